//! `TensorIterator`: the built plan and what can be asked of it — shape, permutation, byte
//! strides, dtypes, outputs, the 2-D steps of a walk, and the explanation of every build
//! decision (`exec::explain` adds how the walk runs).

use super::config::TensorIteratorConfig;
use super::operand::{Operand, Operands};
use super::trace::list;
use crate::dims::Dims;
use crate::dtype::DType;
use crate::error::{Error, Result};
use crate::Array;

/// torch's `FastSetupType`: the layout every operand already shares, if any.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FastSetup {
    /// Every operand is contiguous.
    Contiguous,
    /// Every operand is channels-last contiguous.
    ChannelsLast,
    /// Every operand is non-overlapping and dense, with the same strides.
    NonOverlappingDense,
}

impl FastSetup {
    /// torch's name for it, in lower case (`contiguous`, `channels_last`, `non_overlapping_dense`).
    pub fn name(self) -> &'static str {
        match self {
            FastSetup::Contiguous => "contiguous",
            FastSetup::ChannelsLast => "channels_last",
            FastSetup::NonOverlappingDense => "non_overlapping_dense",
        }
    }
    pub(crate) fn description(self) -> &'static str {
        match self {
            FastSetup::Contiguous => "contiguous",
            FastSetup::ChannelsLast => "channels-last contiguous",
            FastSetup::NonOverlappingDense => "non-overlapping and dense with the same strides",
        }
    }
}

/// One 2-D step of a walk: the multi-index where it starts (fastest dim first) and its
/// `(size0, size1)`.
pub type Step = (Vec<usize>, (usize, usize));

/// A built iteration plan. Immutable: build another one to iterate differently.
#[derive(Debug, Clone)]
pub struct TensorIterator {
    pub(crate) operands: Operands,
    pub(crate) noutputs: usize,
    pub(crate) shape: Dims,
    pub(crate) perm: Dims,
    pub(crate) fast_setup: Option<FastSetup>,
    pub(crate) common_dtype: Option<DType>,
    pub(crate) config: std::sync::Arc<TensorIteratorConfig>,
    pub(crate) trace: String,
}

impl TensorIterator {
    /// The iteration shape after reordering and coalescing, fastest dim first.
    pub fn shape(&self) -> &[usize] {
        &self.shape
    }
    /// The permutation of the stride sort (torch's `perm_`): plan dim k is logical dim
    /// `perm[k]`. After a fast setup it is simply reversed.
    pub fn perm(&self) -> &[usize] {
        &self.perm
    }
    /// The number of plan dims.
    pub fn ndim(&self) -> usize {
        self.shape.len()
    }
    /// The number of elements iterated.
    pub fn numel(&self) -> usize {
        self.shape.iter().product()
    }
    /// The number of operands, outputs and inputs (torch's `ntensors()`).
    pub fn ntensors(&self) -> usize {
        self.operands.len()
    }
    /// The number of outputs (the first operands).
    pub fn noutputs(&self) -> usize {
        self.noutputs
    }
    /// The layout every operand already shares, if the build found one.
    pub fn fast_setup(&self) -> Option<FastSetup> {
        self.fast_setup
    }
    /// The common dtype the build computed (torch's `common_dtype()`), if any.
    pub fn common_dtype(&self) -> Option<DType> {
        self.common_dtype
    }
    /// The operands: outputs first, then inputs.
    pub fn operands(&self) -> &[Operand] {
        &self.operands
    }

    fn operand(&self, i: usize) -> Result<&Operand> {
        self.operands.get(i).ok_or_else(|| {
            Error::index(format!(
                "operand index {i} is out of range for an iterator of {} operands",
                self.operands.len()
            ))
        })
    }
    /// Operand `i`'s byte strides, fastest dim first.
    pub fn strides(&self, i: usize) -> Result<&[isize]> {
        Ok(&self.operand(i)?.stride_bytes)
    }
    /// Operand `i`'s dtype inside the kernel.
    pub fn dtype(&self, i: usize) -> Result<DType> {
        self.operand(i)?
            .target_dtype
            .ok_or_else(|| Error::type_(format!("operand {i} has no dtype")))
    }
    /// Output `i` as the user sees it: the given array, the allocated one, or — for an output
    /// computed through a temporary of another dtype — the user's array.
    pub fn output(&self, i: usize) -> Result<&Array> {
        if i >= self.noutputs {
            return Err(Error::index(format!(
                "output index {i} is out of range for {} outputs",
                self.noutputs
            )));
        }
        let op = &self.operands[i];
        op.original
            .as_deref()
            .or(op.array.as_ref())
            .ok_or_else(|| Error::value(format!("output {i} was not allocated")))
    }

    /// The 2-D steps a serial walk over `[begin, end)` takes: the multi-index where each
    /// starts (fastest dim first) and its `(size0, size1)`.
    pub fn loops(&self, begin: usize, end: usize) -> Result<Vec<Step>> {
        let numel = self.numel();
        if begin > end || end > numel {
            return Err(Error::index(format!(
                "range [{begin}, {end}) is outside [0, {numel})"
            )));
        }
        Ok(super::dim_counter::blocks(&self.shape, begin, end))
    }

    /// Whether chunks may run on different threads: no output element can be reached twice
    /// (every output's layout is provably non-overlapping), so parallel writes never meet.
    pub fn parallel_safe(&self) -> bool {
        super::overlap::outputs_never_repeat(self)
    }

    /// Whether an output's bytes may meet another operand's bytes without being the very same
    /// view (an in-place op): then only torch's walk order gives torch's results.
    pub fn outputs_share_memory(&self) -> bool {
        super::overlap::outputs_share_memory(self)
    }

    /// Whether the first output's bytes may meet an input's, the very same view included (an
    /// in-place op): then streaming its stores saves no traffic.
    pub fn output_meets_an_input(&self) -> bool {
        super::overlap::output_meets_an_input(self)
    }

    /// The build's part of `explain()`: the trace of every phase with its numbers, the plan
    /// and the outputs. `exec::explain` appends how the walk runs.
    pub fn explain_build(&self) -> Result<String> {
        let traced = super::build::build_shared(self.config.clone(), true)?;
        let mut text = traced.trace;
        let strides: Vec<String> = self
            .operands
            .iter()
            .enumerate()
            .map(|(i, op)| format!("[{i}] {}", list(&op.stride_bytes)))
            .collect();
        text.push_str(&format!(
            "\nplan: shape {} (fastest first), byte strides {}",
            list(&self.shape),
            strides.join("  ")
        ));
        for i in 0..self.noutputs {
            let out = self.output(i)?;
            text.push_str(&format!(
                "\noutput {i}: shape {} strides {} dtype {}",
                list(out.shape()),
                list(out.strides()),
                out.dtype()
            ));
        }
        Ok(text)
    }
}
