//! `build()`: torch's TensorIterator phases, in torch's order, each a function of the state
//! the previous ones left. Every phase writes what it decided into the trace (when tracing),
//! which is what `explain()` prints.

use super::config::TensorIteratorConfig;
use super::operand::{Operand, Operands};
use super::overlap::{assert_no_internal_overlap, assert_no_partial_overlap};
use super::trace::{list, Trace};
use super::{FastSetup, TensorIterator};
use crate::dims::{Dims, Strides};
use crate::dtype::{self, DType, Participant};
use crate::error::{Error, Result};
use crate::layout::Layout;
use crate::memory_format::{format_strides, MemoryFormat};
use crate::shape::{fmt_shape, infer_size};
use crate::strides::ambiguity_aware_sort;
use crate::Array;
use std::sync::Arc;

/// The mutable state of one build; frozen into a `TensorIterator` at the end.
struct Builder {
    config: Arc<TensorIteratorConfig>,
    ops: Operands,
    noutputs: usize,
    shape: Dims,
    perm: Dims,
    all_ops_same_shape: bool,
    all_ops_are_scalars: bool,
    common_dtype: Option<DType>,
    fast_setup: Option<FastSetup>,
    trace: Trace,
}

/// Runs every phase; with `tracing`, the returned iterator carries the explanation.
pub fn build(config: TensorIteratorConfig, tracing: bool) -> Result<TensorIterator> {
    // A blocked array's layout is its physical view, not its logical shape: the kernels that
    // take blocked arrays (`kernels/blocked.rs`) hand the iterator physical views; any other
    // path gets a clear error rather than a walk over the wrong elements.
    for array in config
        .outputs
        .iter()
        .flatten()
        .chain(config.inputs.iter().map(|i| &i.array))
    {
        array.refuse_blocked("iterator operands")?;
    }
    let config = Arc::new(config);
    if !tracing {
        if let Some(plan) = contiguous_shortcut(&config)? {
            return Ok(plan);
        }
    }
    build_shared(config, tracing)
}

/// The commonest plan in one step: inputs of one dtype and one shape (at least 1-D), all
/// contiguous, plain arrays (no wrapped numbers), no promotion of integers to float, and each
/// output either still to be allocated or given with that shape and dtype, contiguous,
/// writable and at most fully overlapping an input (`add(a, b, out=c)`, `a += b`). The phases
/// would conclude exactly this — no temporaries, a contiguous fast setup, one flat dim — but
/// a tiny op would pay for running them. `None`: not that case, run the phases (which also
/// give the error of a case that fails a check here). `explain()` always runs them.
fn contiguous_shortcut(config: &Arc<TensorIteratorConfig>) -> Result<Option<TensorIterator>> {
    let Some(first) = config.inputs.first().map(|i| &i.array) else {
        return Ok(None);
    };
    let dtype = first.dtype();
    let contiguous = |a: &Array| a.layout().is_contiguous(MemoryFormat::Contiguous) == Ok(true);
    let applies = !config.is_reduction
        && config.static_shape.is_none()
        && !config.outputs.is_empty()
        && first.ndim() > 0
        && !(config.promote_integer_inputs_to_float && dtype.is_integral(true))
        && config.inputs.iter().all(|input| {
            !input.is_wrapped_number
                && input.array.dtype() == dtype
                && input.array.shape() == first.shape()
                && contiguous(&input.array)
        });
    if !applies {
        return Ok(None);
    }
    let noutputs = config.outputs.len();
    let mut operands = Operands::new();
    for (i, given) in config.outputs.iter().enumerate() {
        let out_dtype = config.output_dtype(i).unwrap_or(dtype);
        let Some(out) = given else {
            let strides = crate::dims::contiguous_strides(first.shape());
            let mut op = Operand::new(
                Some(new_output(config, first.shape(), &strides, out_dtype)?),
                true,
            );
            op.stride_bytes = smallvec::smallvec![out_dtype.itemsize() as isize];
            operands.push(op);
            continue;
        };
        let inputs = config.inputs.iter().map(|input| &input.array);
        let same = |j: usize, input: &Array| is_same_operand(config, i, noutputs + j, out, input);
        let check = config.check_mem_overlap;
        let Some(read_write) = (out_dtype == dtype)
            .then(|| given_output(out, dtype, first.shape(), inputs, same, check))
            .flatten()
        else {
            return Ok(None);
        };
        let mut op = Operand::new(Some(out.clone()), true);
        op.is_read_write = read_write;
        op.stride_bytes = smallvec::smallvec![dtype.itemsize() as isize];
        operands.push(op);
    }
    for input in &config.inputs {
        let mut op = Operand::input(input);
        op.stride_bytes = smallvec::smallvec![dtype.itemsize() as isize];
        operands.push(op);
    }
    Ok(Some(TensorIterator {
        operands,
        noutputs,
        shape: smallvec::smallvec![first.numel()],
        perm: smallvec::smallvec![0],
        fast_setup: Some(FastSetup::Contiguous),
        common_dtype: Some(dtype),
        config: config.clone(),
        trace: String::new(),
    }))
}

/// Whether a given output is one that a contiguous plan writes as it is: of `dtype` (the
/// inputs'), with their `shape`, contiguous, writable, and either the same array as an input
/// (`same(j, input)`: read-write, as `x.add_(y)`, which is `Some(true)`) or, with
/// `check_overlap`, overlapping none partially (`Some(false)`). `None`: leave it to the
/// phases, which resize it, cast into it or give the error.
pub(super) fn given_output<'a>(
    out: &Array,
    dtype: DType,
    shape: &[usize],
    inputs: impl IntoIterator<Item = &'a Array>,
    same: impl Fn(usize, &Array) -> bool,
    check_overlap: bool,
) -> Option<bool> {
    let fits = out.dtype() == dtype
        && out.blocking().is_none()
        && out.shape() == shape
        && out.layout().is_contiguous(MemoryFormat::Contiguous) == Ok(true)
        && out.storage().check_writable().is_ok();
    if !fits {
        return None;
    }
    let mut read_write = false;
    for (j, input) in inputs.into_iter().enumerate() {
        if same(j, input) {
            read_write = true;
        } else if check_overlap && assert_no_partial_overlap(out, input).is_err() {
            return None;
        }
    }
    Some(read_write)
}

/// `build` of a config the caller keeps (explain() rebuilds from the plan's own config).
pub(crate) fn build_shared(
    config: Arc<TensorIteratorConfig>,
    tracing: bool,
) -> Result<TensorIterator> {
    let mut b = Builder::new(config, tracing);
    b.mark_outputs()?;
    b.compute_mem_overlaps()?;
    b.compute_shape()?;
    b.mark_resize_outputs()?;
    b.compute_types()?;
    if !b.fast_set_up()? {
        b.compute_strides();
        b.reorder_dimensions();
        b.allocate_or_resize_outputs()?;
        b.coalesce_dimensions();
    }
    Ok(b.finish())
}

/// A new output array: zeroed, unless the config says a kernel writes all of it first.
fn new_output(
    config: &TensorIteratorConfig,
    shape: &[usize],
    strides: &[isize],
    dtype: DType,
) -> Result<Array> {
    if config.outputs_written_in_full {
        Array::empty_strided_unzeroed(shape, strides, dtype)
    } else {
        Array::empty_strided(shape, strides, dtype)
    }
}

/// How an operand is named in the trace.
fn role(op: &Operand, i: usize) -> String {
    if op.is_output {
        format!("output {i}")
    } else {
        format!("input {i}")
    }
}

fn describe(a: &Array) -> String {
    format!(
        "{} shape {} strides {}",
        a.dtype(),
        fmt_shape(a.shape()),
        fmt_shape(a.strides())
    )
}

impl Builder {
    /// populate_operands: outputs first, then inputs, in insertion order.
    fn new(config: Arc<TensorIteratorConfig>, tracing: bool) -> Self {
        let mut ops = Operands::new();
        ops.extend(config.outputs.iter().map(|o| Operand::new(o.clone(), true)));
        ops.extend(config.inputs.iter().map(Operand::input));
        let mut trace = Trace::new(tracing);
        trace.line(|| "operands (outputs first, then inputs; element strides):".to_string());
        for (i, op) in ops.iter().enumerate() {
            trace.line(|| match &op.array {
                None => format!("  [{i}] {:<9} to be allocated", role(op, i)),
                Some(a) => {
                    let extra = if op.is_wrapped_number {
                        " (a wrapped Python scalar)"
                    } else {
                        ""
                    };
                    format!("  [{i}] {:<9} {}{extra}", role(op, i), describe(a))
                }
            });
        }
        Builder {
            noutputs: config.outputs.len(),
            config,
            ops,
            shape: Dims::new(),
            perm: Dims::new(),
            all_ops_same_shape: true,
            all_ops_are_scalars: false,
            common_dtype: None,
            fast_setup: None,
            trace,
        }
    }

    fn ndim(&self) -> usize {
        self.shape.len()
    }

    /// torch's `is_same` for operands i and j: one object (`is_same_operand`).
    fn is_same(&self, i: usize, j: usize) -> bool {
        let (Some(a), Some(b)) = (&self.ops[i].array, &self.ops[j].array) else {
            return false;
        };
        is_same_operand(&self.config, i, j, a, b)
    }

    /// mark_outputs: an output that is also an input is read-write (never resized). Outputs
    /// must be writable.
    fn mark_outputs(&mut self) -> Result<()> {
        for i in 0..self.noutputs {
            let Some(out) = &self.ops[i].array else {
                continue;
            };
            out.storage().check_writable()?;
            let same = (self.noutputs..self.ops.len()).any(|j| self.is_same(i, j));
            if same {
                self.ops[i].is_read_write = true;
                self.trace.line(|| {
                    format!("mark_outputs: output {i} is also an input: read-write, never resized")
                });
            }
        }
        Ok(())
    }

    /// compute_mem_overlaps: no output may address one element twice or partially overlap an
    /// input (full overlap, as in `x.add_(x)`, is fine).
    fn compute_mem_overlaps(&mut self) -> Result<()> {
        if !self.config.check_mem_overlap {
            self.trace.line(|| "compute_mem_overlaps: off".to_string());
            return Ok(());
        }
        for i in 0..self.noutputs {
            let Some(out) = &self.ops[i].array else {
                continue;
            };
            assert_no_internal_overlap(out)?;
            for j in self.noutputs..self.ops.len() {
                let Some(input) = &self.ops[j].array else {
                    continue;
                };
                if !self.is_same(i, j) {
                    assert_no_partial_overlap(out, input)?;
                }
            }
        }
        self.trace.line(|| {
            "compute_mem_overlaps: no output overlaps itself or partially overlaps an input"
                .to_string()
        });
        Ok(())
    }

    /// compute_shape: fold `infer_size` over the operands (outputs skipped when they may be
    /// resized); a mix of 0-d and n-d operands counts as "not all the same shape".
    fn compute_shape(&mut self) -> Result<()> {
        if let Some(shape) = &self.config.static_shape {
            // Every operand is walked over the static shape with its own strides: it must
            // have as many dims, each at least as long, or the walk would leave its storage.
            for (i, op) in self.ops.iter().enumerate() {
                let Some(a) = &op.array else { continue };
                if a.ndim() != shape.len() || a.shape().iter().zip(shape).any(|(&n, &s)| n < s) {
                    return Err(Error::value(format!(
                        "declare_static_shape: operand {i} of shape {} does not cover the static shape {}",
                        fmt_shape(a.shape()),
                        fmt_shape(shape)
                    )));
                }
            }
            self.shape = shape.as_slice().into();
            self.trace
                .line(|| format!("compute_shape: static shape {}", list(shape)));
            return Ok(());
        }
        let (mut has_scalars, mut has_tensors) = (false, false);
        let mut shape: Option<Dims> = None;
        for (i, op) in self.ops.iter().enumerate() {
            let Some(a) = &op.array else { continue };
            if self.config.resize_outputs && op.is_output {
                continue;
            }
            if a.ndim() == 0 {
                has_scalars = true;
            } else {
                has_tensors = true;
            }
            if has_scalars && has_tensors {
                self.all_ops_same_shape = false;
            }
            shape = Some(match shape {
                None => a.shape().into(),
                Some(acc) if acc.as_slice() == a.shape() => acc,
                Some(acc) => {
                    self.all_ops_same_shape = false;
                    let next: Dims = infer_size(&acc, a.shape())?.into();
                    self.trace.line(|| {
                        format!(
                            "compute_shape: {} with operand {i} {} -> {}",
                            list(&acc),
                            list(a.shape()),
                            list(&next)
                        )
                    });
                    next
                }
            });
        }
        self.shape = shape.unwrap_or_default();
        self.all_ops_are_scalars = !has_tensors;
        self.trace.line(|| {
            format!(
                "compute_shape: broadcast shape {}; all operands the same shape: {}",
                list(&self.shape),
                self.all_ops_same_shape
            )
        });
        Ok(())
    }

    /// mark_resize_outputs: a given output of another shape is reallocated if allowed,
    /// otherwise it is torch's "doesn't match the broadcast shape" error.
    fn mark_resize_outputs(&mut self) -> Result<()> {
        if self.config.static_shape.is_some() {
            return Ok(());
        }
        for i in 0..self.noutputs {
            let Some(out) = &self.ops[i].array else {
                continue;
            };
            if out.shape() != self.shape.as_slice() {
                if self.config.resize_outputs && !self.ops[i].is_read_write {
                    self.trace.line(|| {
                        format!(
                            "mark_resize_outputs: output {i} has shape {} and will be resized",
                            list(out.shape())
                        )
                    });
                    self.ops[i].will_resize = true;
                    continue;
                }
                if !self.config.is_reduction {
                    return Err(Error::value(format!(
                        "output with shape {} doesn't match the broadcast shape {}",
                        fmt_shape(out.shape()),
                        fmt_shape(&self.shape)
                    )));
                }
            }
        }
        Ok(())
    }

    /// compute_types: the common dtype (first input's, or `result_type` of the inputs when
    /// they differ), torch's same-dtype and safe-casting checks, and temporaries for inputs
    /// and outputs of another dtype.
    fn compute_types(&mut self) -> Result<()> {
        let cfg = self.config.clone();
        let mut common: Option<DType> = None;
        let mut output_dtype: Option<DType> = None;
        let (mut diff_inputs, mut diff_outputs, mut undefined_outputs) = (false, false, false);
        for (i, op) in self.ops.iter_mut().enumerate() {
            let Some(a) = &op.array else {
                // (only outputs are undefined, and they come first)
                match cfg.output_dtype(i) {
                    Some(d) => op.target_dtype = Some(d),
                    None => undefined_outputs = true,
                }
                continue;
            };
            let seen = if op.is_output {
                &mut output_dtype
            } else {
                &mut common
            };
            match seen {
                None => *seen = Some(a.dtype()),
                Some(d) if *d != a.dtype() => {
                    if op.is_output {
                        diff_outputs = true
                    } else {
                        diff_inputs = true
                    }
                }
                _ => {}
            }
        }
        let name = |d: Option<DType>| d.map_or("Undefined", |d| d.torch_name());
        if cfg.check_all_same_dtype
            && (diff_inputs || diff_outputs || (output_dtype.is_some() && common != output_dtype))
        {
            for op in self.ops.iter().filter(|op| op.array.is_some()) {
                if op.target_dtype != common {
                    return Err(match (op.target_dtype, common) {
                        (Some(found), Some(expected)) => Error::DTypeMismatch { found, expected },
                        (found, expected) => Error::type_(format!(
                            "Found dtype {} but expected {}",
                            name(found),
                            name(expected)
                        )),
                    });
                }
            }
        }
        if !undefined_outputs
            && !cfg.check_all_same_device
            && !cfg.promote_inputs_to_common_dtype
            && !cfg.cast_common_dtype_to_outputs
            && !cfg.enforce_safe_casting_to_output
        {
            self.common_dtype = if diff_inputs { None } else { common };
            self.trace.line(|| {
                format!(
                    "compute_types: no promotion asked; common dtype {}",
                    name(self.common_dtype)
                )
            });
            return Ok(());
        }
        if (diff_inputs || self.all_ops_are_scalars) && cfg.promote_inputs_to_common_dtype {
            let parts: Vec<Participant> = self
                .ops
                .iter()
                .filter(|op| !op.is_output)
                .filter_map(participant)
                .collect();
            common = Some(dtype::result_type(&parts)?);
            self.trace.line(|| {
                format!(
                    "compute_types: inputs differ in dtype: result_type (dim arrays > 0-d arrays > Python scalars) = {}",
                    name(common)
                )
            });
        }
        if cfg.promote_integer_inputs_to_float && common.is_some_and(|d| d.is_integral(true)) {
            common = Some(dtype::DEFAULT_FLOAT);
            self.trace.line(|| {
                "compute_types: integer inputs promote to the default float32".to_string()
            });
        }
        self.common_dtype = common;
        for i in 0..self.ops.len() {
            let op = &mut self.ops[i];
            if op.target_dtype.is_none() {
                op.target_dtype = common;
            }
            let Some(common) = common else { continue };
            // (a clone only for the rare operand that needs a temporary)
            let Some(a) = op.array.as_ref().filter(|a| a.dtype() != common).cloned() else {
                continue;
            };
            if cfg.enforce_safe_casting_to_output
                && op.is_output
                && !dtype::can_cast(common, a.dtype())
            {
                return Err(Error::UnsafeCast {
                    from: common,
                    to: a.dtype(),
                });
            }
            if cfg.cast_common_dtype_to_outputs && op.is_output {
                // A contiguous temporary of the common dtype, cast back after the kernel.
                let temp = a.empty_like(Some(common), MemoryFormat::Contiguous)?;
                self.trace.line(|| format!("compute_types: output {i} is {}: computing into a contiguous {common} temporary", a.dtype()));
                op.original = Some(Box::new(a));
                op.array = Some(temp);
                op.target_dtype = Some(common);
            } else if cfg.promote_inputs_to_common_dtype && !op.is_output {
                // torch's `input.to(common)`: preserve-format strides, so a non-dense input
                // becomes dense, and those strides drive the layout from here on.
                let converted = a.empty_like(Some(common), MemoryFormat::Preserve)?;
                self.trace.line(|| {
                    format!(
                        "compute_types: input {i} ({}) converted to {common} first, strides {}",
                        a.dtype(),
                        list(converted.strides())
                    )
                });
                op.original = Some(Box::new(a));
                op.array = Some(converted);
                op.target_dtype = Some(common);
            }
        }
        self.trace
            .line(|| format!("compute_types: common dtype {}", name(self.common_dtype)));
        Ok(())
    }

    /// The operands that decide layouts: defined and not about to be resized.
    fn layout_operands(&self) -> impl Iterator<Item = (usize, &Array)> {
        self.ops
            .iter()
            .enumerate()
            .filter(|(_, op)| !op.will_resize)
            .filter_map(|(i, op)| op.array.as_ref().map(|a| (i, a)))
    }

    /// fast_set_up: when every operand has the same shape and they agree on one dense layout,
    /// the whole iteration is one flat loop and outputs take that layout.
    fn fast_set_up(&mut self) -> Result<bool> {
        let setup = self.fast_setup_type();
        self.trace.line(|| match setup {
            None if self.config.is_reduction => "fast_set_up: no (a reduction)".to_string(),
            None if self.config.static_shape.is_some() => {
                "fast_set_up: no (a static shape: operands keep their own strides)".to_string()
            }
            None if !self.all_ops_same_shape => {
                "fast_set_up: no (operands differ in shape)".to_string()
            }
            None => "fast_set_up: no (operands disagree on a dense layout)".to_string(),
            Some(s) => format!(
                "fast_set_up: {} (every operand is {})",
                s.name(),
                s.description()
            ),
        });
        let Some(setup) = setup else { return Ok(false) };
        self.fast_setup = Some(setup);
        let last_defined_strides = match setup {
            FastSetup::NonOverlappingDense => self
                .ops
                .iter()
                .rev()
                .find_map(|op| op.array.as_ref().map(|a| a.strides().to_vec())),
            _ => None,
        };
        for (i, dtype) in self.outputs_to_allocate()? {
            let strides: Strides = match setup {
                FastSetup::Contiguous => format_strides(&self.shape, MemoryFormat::Contiguous)?,
                FastSetup::ChannelsLast => format_strides(&self.shape, MemoryFormat::ChannelsLast)?,
                FastSetup::NonOverlappingDense => {
                    Strides::from_vec(last_defined_strides.clone().unwrap_or_default())
                }
            };
            let out = new_output(&self.config, &self.shape, &strides, dtype)?;
            self.trace.line(|| {
                format!(
                    "fast_set_up: output {i} allocated with strides {}",
                    list(out.strides())
                )
            });
            self.set_output(i, out)?;
        }
        if self.ndim() >= 1 {
            let numel = self.shape.iter().product();
            self.shape = smallvec::smallvec![numel];
        }
        let ndim = self.ndim();
        for op in &mut self.ops {
            op.stride_bytes = smallvec::smallvec![op.itemsize() as isize; ndim];
        }
        self.perm = (0..ndim).rev().collect();
        Ok(true)
    }

    fn fast_setup_type(&self) -> Option<FastSetup> {
        // A static shape walks each operand with its own strides over that shape (a scan's
        // squashed dim): a dense flat walk would step over the squashed dim's elements.
        if self.config.is_reduction
            || !self.all_ops_same_shape
            || self.config.static_shape.is_some()
        {
            return None;
        }
        let all = |f: &dyn Fn(&Layout) -> bool| self.layout_operands().all(|(_, a)| f(a.layout()));
        if self.config.enforce_linear_iteration {
            return all(&|l| l.is_contiguous(MemoryFormat::Contiguous).unwrap_or(false))
                .then_some(FastSetup::Contiguous);
        }
        if all(&|l| l.is_contiguous(MemoryFormat::Contiguous).unwrap_or(false)) {
            return Some(FastSetup::Contiguous);
        }
        if all(&|l| l.is_contiguous(MemoryFormat::ChannelsLast).unwrap_or(false)) {
            return Some(FastSetup::ChannelsLast);
        }
        if all(&|l| l.is_non_overlapping_and_dense()) {
            let mut strides = self.layout_operands().map(|(_, a)| a.strides());
            let first = strides.next();
            if strides.all(|s| Some(s) == first) {
                return Some(FastSetup::NonOverlappingDense);
            }
        }
        None
    }

    /// compute_strides: byte strides aligned right; broadcast dims (size 1 against a larger
    /// size) get 0, every other size-1 dim keeps its stride.
    fn compute_strides(&mut self) {
        let ndim = self.ndim();
        let static_shape = self.config.static_shape.is_some();
        for op in &mut self.ops {
            let Some(a) = &op.array else { continue };
            if op.will_resize {
                continue;
            }
            let own_shape = if static_shape {
                self.shape.as_slice()
            } else {
                a.shape()
            };
            let offset = ndim - own_shape.len();
            let item = a.itemsize() as isize;
            let mut strides: Strides = smallvec::smallvec![0; ndim];
            for (i, &size) in own_shape.iter().enumerate() {
                strides[offset + i] = if size == 1 && self.shape[offset + i] != 1 {
                    0
                } else {
                    a.strides()[i] * item
                };
            }
            op.stride_bytes = strides;
        }
        self.trace.line(|| {
            let parts: Vec<String> = self
                .ops
                .iter()
                .enumerate()
                .filter(|(_, op)| !op.stride_bytes.is_empty())
                .map(|(i, op)| {
                    let el: Vec<isize> = op
                        .stride_bytes
                        .iter()
                        .map(|s| s / op.itemsize() as isize)
                        .collect();
                    format!("[{i}] {}", list(&el))
                })
                .collect();
            format!(
                "compute_strides (elements; broadcast dims 0): {}",
                parts.join("  ")
            )
        });
    }

    /// should_swap(d0, d1) of reorder_dimensions: +1 swap, -1 keep and stop, 0 ambiguous,
    /// with the reason, which the trace formats only when it is on.
    fn should_swap(&self, d0: usize, d1: usize) -> (i32, SwapReason) {
        for (i, op) in self.ops.iter().enumerate() {
            if op.stride_bytes.is_empty() || op.will_resize {
                continue;
            }
            let item = op.itemsize() as isize;
            let (s0, s1) = (op.stride_bytes[d0], op.stride_bytes[d1]);
            let (e0, e1) = (s0 / item, s1 / item);
            if self.config.is_reduction && op.is_output && ((s0 == 0) != (s1 == 0)) {
                let r = if s1 == 0 { 1 } else { -1 };
                return (r, SwapReason::ReducedDimFirst(i, e0, e1));
            }
            if s0 == 0 || s1 == 0 {
                continue;
            }
            if s0 < s1 {
                return (-1, SwapReason::Smaller(i, e0, e1));
            }
            if s0 > s1 {
                return (1, SwapReason::Larger(i, e0, e1));
            }
            if self.shape[d0] > self.shape[d1] {
                let sizes = (self.shape[d0], self.shape[d1]);
                return (1, SwapReason::EqualStridesLargerSize(i, e0, sizes));
            }
        }
        (0, SwapReason::Ambiguous)
    }

    /// reorder_dimensions: the ambiguity-aware insertion sort that puts the fastest dim first,
    /// outputs' strides taking precedence, then applies the permutation.
    fn reorder_dimensions(&mut self) {
        let n = self.ndim();
        if n <= 1 || self.config.enforce_linear_iteration {
            self.perm = (0..n).rev().collect();
        } else {
            let mut steps: Vec<String> = vec![];
            let tracing = self.trace.enabled();
            let perm = ambiguity_aware_sort(n, |d0, d1| {
                let (r, why) = self.should_swap(d0, d1);
                if tracing {
                    let verdict = match r {
                        1 => "swap",
                        -1 => "keep, stop",
                        _ => "keep scanning",
                    };
                    steps.push(format!("  dims {d0} vs {d1}: {why} -> {verdict}"));
                }
                r
            });
            self.trace.line(|| {
                format!(
                    "reorder_dimensions: perm starts {}",
                    list(&(0..n).rev().collect::<Vec<_>>())
                )
            });
            for s in steps {
                self.trace.line(|| s);
            }
            self.perm = perm.into();
        }
        let perm = self.perm.clone();
        self.shape = perm.iter().map(|&d| self.shape[d]).collect();
        for op in &mut self.ops {
            if !op.stride_bytes.is_empty() {
                op.stride_bytes = perm.iter().map(|&d| op.stride_bytes[d]).collect();
            }
        }
        self.trace.line(|| {
            format!(
                "reorder_dimensions: perm {} (fastest first); shape in that order {}",
                list(&self.perm),
                list(&self.shape)
            )
        });
    }

    /// allocate_or_resize_outputs: new outputs get dense strides in the sorted order (plain
    /// contiguous when the order is simply reversed).
    fn allocate_or_resize_outputs(&mut self) -> Result<()> {
        let n = self.ndim();
        let inverted = self.perm.iter().enumerate().all(|(j, &p)| p == n - 1 - j);
        for (i, dtype) in self.outputs_to_allocate()? {
            let item = dtype.itemsize() as isize;
            let mut cumulative = Vec::with_capacity(n);
            let mut next = item;
            for &size in &self.shape {
                cumulative.push(next);
                next *= size as isize;
            }
            let mut logical_shape = vec![0usize; n];
            let mut logical_strides = vec![0isize; n];
            for k in 0..n {
                logical_shape[self.perm[k]] = self.shape[k];
                logical_strides[self.perm[k]] = cumulative[k] / item;
            }
            let out = if inverted {
                let strides = format_strides(&logical_shape, MemoryFormat::Contiguous)?;
                new_output(&self.config, &logical_shape, &strides, dtype)?
            } else {
                new_output(&self.config, &logical_shape, &logical_strides, dtype)?
            };
            self.trace.line(|| {
                let el: Vec<isize> = cumulative.iter().map(|s| s / item).collect();
                format!(
                    "allocate_or_resize_outputs: output {i}: cumulative strides {} in sorted order -> strides {}{}",
                    list(&el),
                    list(out.strides()),
                    if inverted { " (order is reversed: plain contiguous)" } else { "" }
                )
            });
            self.set_output(i, out)?;
            self.ops[i].stride_bytes = cumulative.into();
        }
        Ok(())
    }

    /// The outputs the build allocates (undefined, or given with the wrong shape) and their
    /// dtypes.
    fn outputs_to_allocate(&self) -> Result<Vec<(usize, DType)>> {
        (0..self.noutputs)
            .filter(|&i| self.ops[i].array.is_none() || self.ops[i].will_resize)
            .map(|i| {
                let dtype = self.ops[i].target_dtype;
                dtype
                    .map(|d| (i, d))
                    .ok_or_else(|| Error::type_("cannot infer the dtype of an output"))
            })
            .collect()
    }

    /// Installs a newly allocated output. An output the user gave with another shape is
    /// resized by torch's `out=` policy (`resize.rs`: the warning when it had elements); when
    /// it computes into a temporary of another dtype, the user's array is reallocated
    /// alongside with the same layout (torch resizes and restrides it before casting back).
    fn set_output(&mut self, i: usize, out: Array) -> Result<()> {
        let tracing = self.trace.enabled();
        let op = &mut self.ops[i];
        if op.will_resize && !tracing {
            // (explain() rebuilds the plan with tracing: it warns once, at the real build.)
            // A structured kernel resizes the user's array, then its iterator the temporary of
            // the common dtype (made like the user's array, so of its shape): two warnings.
            let user = op.original.as_deref().or(op.array.as_ref());
            let temporary = op.array.as_ref().filter(|_| op.original.is_some());
            let structured = self.config.structured;
            for array in user.into_iter().chain(temporary.filter(|_| structured)) {
                super::resize::note_resize(array, out.shape());
            }
        }
        if let Some(original) = &op.original {
            if original.shape() != out.shape() {
                op.original = Some(Box::new(Array::empty_strided(
                    out.shape(),
                    out.strides(),
                    original.dtype(),
                )?));
            }
        }
        op.target_dtype = Some(out.dtype());
        op.array = Some(out);
        op.will_resize = false;
        Ok(())
    }

    /// coalesce_dimensions: merges neighbours that every operand walks as one (size 1, or
    /// stride[d] == shape[d-1]·stride[d-1] for all).
    fn coalesce_dimensions(&mut self) {
        let n = self.ndim();
        if n <= 1 {
            return;
        }
        let before = self.shape.clone();
        let can_merge = |shape: &[usize], ops: &[Operand], d0: usize, d1: usize| {
            shape[d0] == 1
                || shape[d1] == 1
                || ops
                    .iter()
                    .all(|op| shape[d0] as isize * op.stride_bytes[d0] == op.stride_bytes[d1])
        };
        let mut prev = 0;
        for d in 1..n {
            if can_merge(&self.shape, &self.ops, prev, d) {
                if self.shape[prev] == 1 {
                    for op in &mut self.ops {
                        op.stride_bytes[prev] = op.stride_bytes[d];
                    }
                }
                self.shape[prev] *= self.shape[d];
            } else {
                prev += 1;
                if prev != d {
                    for op in &mut self.ops {
                        op.stride_bytes[prev] = op.stride_bytes[d];
                    }
                    self.shape[prev] = self.shape[d];
                }
            }
        }
        self.shape.truncate(prev + 1);
        for op in &mut self.ops {
            op.stride_bytes.truncate(prev + 1);
        }
        self.trace.line(|| {
            format!(
                "coalesce_dimensions: shape {} -> {}",
                list(&before),
                list(&self.shape)
            )
        });
    }

    fn finish(self) -> TensorIterator {
        TensorIterator {
            operands: self.ops,
            noutputs: self.noutputs,
            shape: self.shape,
            perm: self.perm,
            fast_setup: self.fast_setup,
            common_dtype: self.common_dtype,
            config: self.config.clone(),
            trace: self.trace.into_text(),
        }
    }
}

/// Why `should_swap` decided as it did (operand, element strides, sizes): formatted only for
/// the trace, so that an untraced build compares strides without building strings.
#[derive(Debug, Clone, Copy)]
enum SwapReason {
    /// A reduction's output: the reduced dim (stride 0) goes first.
    ReducedDimFirst(usize, isize, isize),
    Smaller(usize, isize, isize),
    Larger(usize, isize, isize),
    /// Equal strides; the first dim is the larger.
    EqualStridesLargerSize(usize, isize, (usize, usize)),
    /// Every operand has a 0 stride or a tie.
    Ambiguous,
}

impl std::fmt::Display for SwapReason {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match *self {
            SwapReason::ReducedDimFirst(i, e0, e1) => {
                write!(f, "operand {i}: reduced dim first ({e0} vs {e1})")
            }
            SwapReason::Smaller(i, e0, e1) => write!(f, "operand {i}: {e0} < {e1}"),
            SwapReason::Larger(i, e0, e1) => write!(f, "operand {i}: {e0} > {e1}"),
            SwapReason::EqualStridesLargerSize(i, e, (n0, n1)) => {
                write!(f, "operand {i}: equal strides {e}, size {n0} > {n1}")
            }
            SwapReason::Ambiguous => {
                write!(f, "ambiguous (every operand has a 0 stride or a tie)")
            }
        }
    }
}

/// torch's `is_same` for operands `i` and `j` (outputs first, then inputs) holding `a` and
/// `b`: declared identities decide when given (equal views with distinct ids are two tensors,
/// as `x` and `x[:]` are in torch); otherwise equal views of one storage count as one.
fn is_same_operand(
    config: &TensorIteratorConfig,
    i: usize,
    j: usize,
    a: &Array,
    b: &Array,
) -> bool {
    let noperands = config.outputs.len() + config.inputs.len();
    match &config.operand_ids {
        Some(ids) if ids.len() == noperands => {
            ids[i].is_some() && ids[i] == ids[j] && same_array(a, b)
        }
        _ => same_array(a, b),
    }
}

/// torch's `is_same` (one tensor object) as ferroiter sees it: the same view of the same
/// storage with the same dtype.
pub(super) fn same_array(a: &Array, b: &Array) -> bool {
    a.shares_storage(b) && a.layout() == b.layout() && a.dtype() == b.dtype()
}

/// An input's promotion bucket (see `Participant::of`).
fn participant(op: &Operand) -> Option<Participant> {
    let a = op.array.as_ref()?;
    Some(Participant::of(a.dtype(), a.ndim(), op.is_wrapped_number))
}
