//! `explain()`: the plan's build trace, then how the executor would run it — the inner loop,
//! the walk (tiled or not, or a copy's own: [`CopyStrategy`]) and the split among threads —
//! each derived from the same decisions the executor takes, so the text says what runs.
#![forbid(unsafe_code)]

use super::chunks::{chunk_ranges, Chunks, MAX_PIECES, PIECE_GRAINS};
use super::copy_strategy::CopyStrategy;
use super::raw::Walk;
use super::{tiled, InnerLoop};
use crate::error::Result;
use crate::plan::TensorIterator;

/// The build trace with every decision and its numbers ([`TensorIterator::explain_build`]),
/// then how the walk would run on `threads` threads with this grain size: as a kernel's
/// (`for_each`'s) walk.
pub fn explain(plan: &TensorIterator, threads: usize, grain: usize) -> Result<String> {
    explain_walk(plan, threads, grain, elementwise)
}

/// [`explain`] for a plan of `copy_` (`TensorIteratorConfig::copy_op`): the walk that copy
/// runs, its [`CopyStrategy`].
pub fn explain_copy(plan: &TensorIterator, threads: usize, grain: usize) -> Result<String> {
    explain_walk(plan, threads, grain, CopyStrategy::of)
}

/// How `for_each` walks a plan.
fn elementwise(plan: &TensorIterator) -> CopyStrategy {
    CopyStrategy::Elementwise(tiled::decide(plan))
}

/// [`explain`] with the walk `strategy` chooses for the plan.
fn explain_walk(
    plan: &TensorIterator,
    threads: usize,
    grain: usize,
    strategy: fn(&TensorIterator) -> CopyStrategy,
) -> Result<String> {
    let mut text = plan.explain_build()?;
    if plan.config.is_reduction {
        // a reduction runs its own loops, walk and split, not the elementwise ones
        let d = super::raw::reduce::describe(plan, threads, grain);
        text.push_str(&format!(
            "\ninner loop: {}\n{}\n{}",
            d.inner, d.walk, d.parallel
        ));
        return Ok(text);
    }
    let strategy = strategy(plan);
    let walk_line = strategy.describe(plan);
    let walk = Walk::new(plan, strategy);
    let inner = kernel_loop(plan, &walk).describe();
    text.push_str(&format!("\ninner loop: {inner}\n{walk_line}"));
    let numel = plan.numel();
    let chunks = chunk_ranges(numel, grain, threads);
    text.push_str(&format!(
        "\nparallel: {numel} elements, grain {grain}, {threads} thread(s) -> {} chunk(s) {}",
        chunks.len(),
        chunks
            .iter()
            .map(|(b, e)| format!("[{b}, {e})"))
            .collect::<Vec<_>>()
            .join(" ")
    ));
    let pieces = super::for_each::pieces(&walk, &Chunks::new(numel, grain, threads), grain);
    if pieces > 1 {
        text.push_str(&format!(
            ", each in {pieces} pieces (one per {PIECE_GRAINS} grain(s), at most {MAX_PIECES}): \
             a thread done with its chunk takes the pieces not yet started of the others"
        ));
    }
    Ok(text)
}

/// The path the typed loops take on the plan's blocks: [`InnerLoop::of`] on the dim-0 strides
/// the kernel sees (a tiled walk's packed operands are contiguous there).
pub fn inner_loop(plan: &TensorIterator) -> InnerLoop {
    kernel_loop(plan, &Walk::new(plan, elementwise(plan)))
}

/// [`inner_loop`] on the blocks `walk` hands the kernel.
fn kernel_loop(plan: &TensorIterator, walk: &Walk) -> InnerLoop {
    if plan.ndim() == 0 {
        // No dim 0: the one element runs the strided loop (every walk stride is 0), also
        // when there is no operand at all.
        return InnerLoop::Strided;
    }
    let itemsizes: Vec<usize> = plan.operands().iter().map(|op| op.itemsize()).collect();
    InnerLoop::of(walk.kernel_strides0(), &itemsizes, plan.noutputs())
}
