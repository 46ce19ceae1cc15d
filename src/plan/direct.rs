//! Direct plans: the plan of the commonest kernel calls (`a + b`, `a * 2`, `sqrt(a)`,
//! `X - row`, `a += 2`, `add(a, b, out=o)`) made straight from the arrays, without a config or
//! the phases — which would conclude the same plan (`tests.rs` holds them to it). A direct
//! plan of one short row is not even made: the kernel runs that row
//! ([`DirectOperands::one_row`]).

use super::build::given_output;
use super::config::TensorIteratorConfig;
use super::operand::{Operand, Operands};
use super::{FastSetup, TensorIterator};
use crate::dims::Strides;
use crate::dtype::DType;
use crate::error::Result;
use crate::memory_format::MemoryFormat;
use crate::Array;
use smallvec::smallvec;
use std::sync::Arc;

/// Inputs a direct plan takes at most: a binary op's two (the row runner's fixed arrays hold
/// one more, the output).
pub(crate) const MAX_DIRECT_INPUTS: usize = 2;

/// The operands of a direct plan, checked ([`direct_operands`]) and with the output made or
/// taken: made into the plan ([`DirectOperands::into_plan`]), or, when they are one short
/// row, handed to the kernel as that row (`exec::for_each_row`), which skips making the plan
/// (cloning each input into it, moving a value of several hundred bytes around) and walking
/// it.
pub(crate) struct DirectOperands<'a> {
    /// The output: new (unzeroed, which the kernel writes in full) or given.
    output: Array,
    /// The output is one of the inputs (in place).
    read_write: bool,
    /// The inputs, each contiguous of the plan's shape, 0-d, or a broadcast row.
    inputs: &'a [&'a Array],
    /// The input whose shape the plan takes: the first of the most dims.
    first: &'a Array,
    /// Elements along the plan's first dim: all of them, or (beside a row) the row's.
    inner: usize,
    /// Beside a row: the rows (the plan's second dim, the leading dims coalesced).
    outer: Option<usize>,
    /// Whether the phases sort the dims by stride (beside a number or a row): then their
    /// permutation is every dim reversed and they find no fast setup.
    sorted: bool,
}

/// The operands of the contiguous shortcut's plan, taken straight from a kernel's arrays for
/// the commonest calls (`a + b`, `a * 2`, `sqrt(a)`, `X - row`, `a += 2`,
/// `add(a, b, out=o)`), with the output made or taken: inputs of one dtype (at most
/// [`MAX_DIRECT_INPUTS`]), none blocked, each contiguous with the shape of the first of the
/// most dims, or 0-d (a number the kernel reads everywhere: stride 0), or a contiguous row
/// that broadcasts along
/// the leading dims (`broadcast_row_dims`: stride 0 along them); one output of `output_dtype`
/// (`None`: the inputs' dtype), new, which the kernel writes in full, or `out`, given as
/// `given_output` takes it (read-write when it is an input). The phases would conclude exactly
/// this plan (see `build::contiguous_shortcut`; beside a 0-d input or a row they find no fast
/// setup, but coalesce to the same one dim, or to the row's dims and the leading ones: two);
/// taking it here skips filling a config, moving it into an `Arc` and cloning the inputs twice
/// (a quarter of a 1-element add), the phases' stride sort and coalescing (most of a small
/// `X - row`) and, for a number, wrapping it in a float64 array and converting it before the
/// loop. `None`: not that case (an integer input where `promote_integers_to_float` asks for
/// true division; an empty shape beside a number; a number beside a row; non-canonical
/// strides, or (beside a row) dims of size 0 or 1, which the phases may order or coalesce
/// otherwise; an `out` that is not of the inputs' dtype and shape, contiguous, writable and
/// apart from the inputs or one of them): build from a config, whose phases resize, cast or
/// refuse. The plan's config ([`DirectOperands::into_plan`]) is a shared one without
/// operands: such a plan is run by its kernel at once, never explained.
pub(crate) fn direct_operands<'a>(
    inputs: &'a [&'a Array],
    output_dtype: Option<DType>,
    promote_integers_to_float: bool,
    out: Option<&Array>,
) -> Result<Option<DirectOperands<'a>>> {
    // the plan's shape: the first input of the most dims
    let Some(first) = inputs.iter().copied().rev().max_by_key(|a| a.ndim()) else {
        return Ok(None);
    };
    let (dtype, shape) = (first.dtype(), first.shape());
    if shape.is_empty()
        || inputs.len() > MAX_DIRECT_INPUTS
        || (promote_integers_to_float && dtype.is_integral(true))
    {
        return Ok(None);
    }
    let numbers = inputs.iter().any(|a| a.ndim() == 0);
    let contiguous = |a: &Array| a.layout().is_contiguous(MemoryFormat::Contiguous) == Ok(true);
    let mut row_dims = None;
    for &a in inputs {
        let full = a.ndim() == 0 || (a.shape() == shape && contiguous(a));
        if a.dtype() != dtype || a.blocking().is_some() {
            return Ok(None);
        }
        if !full {
            match broadcast_row_dims(a, shape) {
                Some(k) if row_dims.is_none_or(|r| r == k) => row_dims = Some(k),
                _ => return Ok(None),
            }
        }
    }
    // beside a number or a row the phases sort the dims by stride, size-1 dims included:
    // only canonical strides surely give a contiguous output (torch's fast setup ignores
    // them); size-1 dims beside a row would coalesce otherwise, and an empty shape beside a
    // number keeps its dims uncoalesced
    let sorted = numbers || row_dims.is_some();
    let canonical = sorted.then(|| crate::dims::contiguous_strides(shape));
    let plain = |a: &Array| {
        canonical
            .as_ref()
            .is_none_or(|c| a.ndim() == 0 || a.strides() == &c[..])
    };
    let declined = (numbers && (row_dims.is_some() || first.numel() == 0))
        || (row_dims.is_some() && shape.iter().any(|&n| n < 2))
        || inputs.iter().any(|a| a.shape() == shape && !plain(a));
    if declined {
        return Ok(None);
    }
    let out_dtype = output_dtype.unwrap_or(dtype);
    let (output, read_write) = match out {
        None => (Array::contiguous_kernel_output(first, out_dtype)?, false),
        Some(out) => {
            let same = |_: usize, input: &Array| super::build::same_array(out, input);
            let given = (out_dtype == dtype && plain(out))
                .then(|| given_output(out, dtype, shape, inputs.iter().copied(), same, true))
                .flatten();
            match given {
                Some(read_write) => (out.clone(), read_write),
                None => return Ok(None),
            }
        }
    };
    // one flat dim, or (beside a row) the row's dims and the leading ones, each coalesced
    let (inner, outer) = match row_dims {
        None => (first.numel(), None),
        Some(k) => (
            shape[shape.len() - k..].iter().product(),
            Some(shape[..shape.len() - k].iter().product::<usize>()),
        ),
    };
    Ok(Some(DirectOperands {
        output,
        read_write,
        inputs,
        first,
        inner,
        outer,
        sorted,
    }))
}

impl<'a> DirectOperands<'a> {
    /// Whether the plan is one row (no broadcast row): every operand contiguous or a number.
    pub(crate) fn one_row(&self) -> bool {
        self.outer.is_none()
    }

    /// The elements the kernel computes.
    pub(crate) fn numel(&self) -> usize {
        self.first.numel()
    }

    /// The dtype the kernel computes in: the inputs'.
    pub(crate) fn common_dtype(&self) -> DType {
        self.first.dtype()
    }

    /// The output the kernel writes.
    pub(crate) fn output(&self) -> &Array {
        &self.output
    }

    /// The output, for the caller once the kernel has written it.
    pub(crate) fn into_output(self) -> Array {
        self.output
    }

    /// Each operand (the output, then the inputs) with its byte stride along the one row
    /// (0 for a number), when the plan is [`one_row`](Self::one_row).
    pub(crate) fn row_operands(&self) -> impl Iterator<Item = (&Array, isize)> + '_ {
        debug_assert!(self.one_row());
        let stride = |a: &Array| {
            if a.ndim() == 0 {
                0
            } else {
                a.itemsize() as isize
            }
        };
        std::iter::once(&self.output)
            .chain(self.inputs.iter().copied())
            .map(move |a| (a, stride(a)))
    }

    /// The plan the phases would build for these operands.
    pub(crate) fn into_plan(self) -> TensorIterator {
        static KERNEL_CONFIG: std::sync::OnceLock<Arc<TensorIteratorConfig>> =
            std::sync::OnceLock::new();
        let config = KERNEL_CONFIG.get_or_init(|| {
            let mut c = TensorIteratorConfig::new();
            c.outputs_written_in_full = true;
            Arc::new(c)
        });
        let DirectOperands {
            output,
            read_write,
            inputs,
            first,
            inner,
            outer,
            sorted,
        } = self;
        // byte strides along the plan's dims: along the row, then (beside a row) the rows;
        // 0 for a number, and along the rows for the broadcast row
        let strides = |a: &Array, full: bool| -> Strides {
            let item = a.itemsize() as isize;
            match (a.ndim(), outer) {
                (0, _) => smallvec![0],
                (_, None) => smallvec![item],
                (_, Some(_)) if full => smallvec![item, item * inner as isize],
                (_, Some(_)) => smallvec![item, 0],
            }
        };
        let mut operands = Operands::new();
        let output_strides = strides(&output, true);
        let mut out = Operand::new(Some(output), true);
        out.stride_bytes = output_strides;
        out.is_read_write = read_write;
        operands.push(out);
        for &a in inputs {
            let mut input = Operand::new(Some(a.clone()), false);
            input.stride_bytes = strides(a, a.shape() == first.shape());
            operands.push(input);
        }
        TensorIterator {
            operands,
            noutputs: 1,
            shape: match outer {
                None => smallvec![inner],
                Some(outer) => smallvec![inner, outer],
            },
            // (the phases' permutation: a fast setup's after coalescing, else the stride
            // sort's, every dim reversed)
            perm: match sorted {
                false => smallvec![0],
                true => (0..first.ndim()).rev().collect(),
            },
            fast_setup: (!sorted).then_some(FastSetup::Contiguous),
            common_dtype: Some(first.dtype()),
            config: config.clone(),
            trace: String::new(),
        }
    }
}

/// The plan of [`direct_operands`], made (what the tests compare with the phases' plan).
#[cfg(test)]
pub(crate) fn contiguous_kernel_plan(
    inputs: &[&Array],
    output_dtype: Option<DType>,
    promote_integers_to_float: bool,
    out: Option<&Array>,
) -> Result<Option<TensorIterator>> {
    let direct = direct_operands(inputs, output_dtype, promote_integers_to_float, out)?;
    Ok(direct.map(DirectOperands::into_plan))
}

/// How many trailing dims of `shape` the input `a` spans when it broadcasts along the leading
/// ones as a contiguous row (`X - mean` of a (200, 8) `X` and an (8,) `mean`): its own shape
/// past its leading 1s, a proper suffix of `shape`, in canonical strides. `None`: not such a
/// row.
fn broadcast_row_dims(a: &Array, shape: &[usize]) -> Option<usize> {
    let ones = a.shape().iter().take_while(|&&n| n == 1).count();
    let k = a.ndim() - ones;
    let row = k > 0
        && k < shape.len()
        && a.shape()[ones..] == shape[shape.len() - k..]
        && a.strides() == &crate::dims::contiguous_strides(a.shape())[..];
    row.then_some(k)
}
