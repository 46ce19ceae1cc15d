//! `for_each`: run a loop over a plan, serially or split into fixed chunks among threads, in
//! torch's 2-D blocks or in tiles of them ([`super::tiled`]).
#![forbid(unsafe_code)]

use super::chunks::Chunks;
use super::pool;
use super::raw::{Block, Walk};
use super::tiled;
use crate::error::Result;
use crate::plan::TensorIterator;

/// Runs `f` over the plan in 2-D blocks: torch's blocks, or tiles of them when
/// [`tiled::decide`] finds operands that disagree about the fastest dim (then the walk order is
/// `[0, tile dim, the others]`). Ranges of more than `grain` elements are cut into
/// `min(threads, ceil(numel / grain))` equal chunks of the walk order run on ferroiter's pool,
/// so that the chunking — and any result that depends on it — never depends on scheduling.
/// Loops started from inside a chunk run serially; a panic in `f` becomes an error.
/// Plans whose outputs may reach an element twice run serially.
///
/// `f` receives [`Block`]s: read-only views of the pointers and byte strides of one 2-D step,
/// which only the executor can make. Element `(i, j)` of operand `k` (outputs first, then
/// inputs) is at `b.at(k, i, j)`; dereferencing it is `unsafe`, and sound for `i < size0()`,
/// `j < size1()`, as the operand's dtype in the plan, writing only to outputs (inputs may be
/// read by several threads at once).
///
/// ```
/// use ferroiter::exec::{for_each, Block};
/// use ferroiter::{Array, DType, MemoryFormat, Scalar, TensorIteratorConfig};
///
/// // out = 2·a over a transposed input, with a user kernel.
/// let a = Array::full(&[3, 4], Scalar::Float(1.5), DType::F32, MemoryFormat::Contiguous).unwrap();
/// let mut config = TensorIteratorConfig::new();
/// config.add_output(None).add_input(a.transpose(0, 1).unwrap());
/// let plan = config.build().unwrap();
/// for_each(&plan, ferroiter::exec::GRAIN_SIZE, |b: &Block| {
///     for j in 0..b.size1() {
///         for i in 0..b.size0() {
///             let (out, a) = (b.at(0, i, j) as *mut f32, b.at(1, i, j) as *const f32);
///             // SAFETY: i < size0() and j < size1(); both operands are float32 and operand 0
///             // is the output, as for_each promises.
///             unsafe { *out = 2.0 * *a };
///         }
///     }
/// })
/// .unwrap();
/// let out = plan.output(0).unwrap();
/// assert_eq!(out.shape(), &[4, 3]);
/// assert_eq!(out.to_scalars().unwrap()[3 * 3 + 2], Scalar::Float(3.0));
/// ```
pub fn for_each(plan: &TensorIterator, grain: usize, f: impl Fn(&Block) + Sync) -> Result<()> {
    let numel = plan.numel();
    if numel == 0 {
        return Ok(());
    }
    let walk = Walk::new(plan, tiled::decide(plan).tiling());
    let threads = pool::get_num_threads();
    let chunks = Chunks::new(numel, grain, threads);
    // `parallel_safe` is asked last: it costs more, and small plans never get there.
    let count = if chunks.count <= 1 || pool::in_parallel_region() || !plan.parallel_safe() {
        1
    } else {
        chunks.count
    };
    // Each chunk runs once, on whichever thread claims it first (the calling thread takes
    // part, so a loop never waits for a worker to wake before work starts); the fixed chunk
    // boundaries keep the results independent of who ran what. A serial loop runs the same
    // way on one chunk, so a panic becomes an error on both paths.
    pool::parallel_for(count, threads, &|t| {
        let (begin, end) = if count == 1 {
            (0, numel)
        } else {
            chunks.range(t)
        };
        walk.run(begin, end, &f);
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{Array, DType, MemoryFormat, Scalar, TensorIteratorConfig};
    use std::collections::HashMap;
    use std::sync::Mutex;

    /// Every element's address is handed out exactly once, at any grain and thread count.
    #[test]
    fn chunks_cover_every_element_once() {
        let a = Array::full(
            &[7, 13],
            Scalar::Float(1.0),
            DType::F32,
            MemoryFormat::Contiguous,
        )
        .unwrap();
        let mut config = TensorIteratorConfig::new();
        config
            .add_output(None)
            .add_input(a.transpose(0, 1).unwrap());
        let plan = config.build().unwrap();
        for (grain, threads) in [(1, 4), (5, 3), (32, 2), (1000, 4)] {
            let seen = Mutex::new(HashMap::<usize, u32>::new());
            let chunks = Chunks::new(plan.numel(), grain, threads);
            let run = || {
                for_each(&plan, grain, |b: &Block| {
                    let mut seen = seen.lock().unwrap();
                    for j in 0..b.size1() {
                        for i in 0..b.size0() {
                            *seen.entry(b.at(0, i, j) as usize).or_default() += 1;
                        }
                    }
                })
            };
            crate::exec::set_num_threads(threads).unwrap();
            run().unwrap();
            let seen = seen.into_inner().unwrap();
            assert_eq!(seen.len(), 7 * 13, "grain {grain}, {chunks:?}");
            assert!(seen.values().all(|&n| n == 1));
        }
    }
}
