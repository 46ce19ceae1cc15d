//! `for_each`: run a loop over a plan, serially or split into fixed chunks among threads, in
//! torch's 2-D blocks or in tiles of them ([`super::tiled`]).
#![forbid(unsafe_code)]

use super::chunks::Chunks;
use super::pool;
use super::raw::{Block, Walk};
use super::tiled;
use crate::error::Result;
use crate::plan::TensorIterator;
use smallvec::SmallVec;
use std::sync::atomic::{AtomicBool, Ordering};

/// Runs `f` over the plan in 2-D blocks: torch's blocks, or tiles of them when
/// [`tiled::decide`] finds operands that disagree about the fastest dim (then the walk order is
/// `[0, tile dim, the others]`). Ranges of more than `grain` elements are cut into
/// `min(threads, ceil(numel / grain))` equal chunks of the walk order run on ferroiter's pool,
/// so that the chunking — and any result that depends on it — never depends on scheduling.
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
    let chunks = Chunks::new(numel, grain, pool::get_num_threads());
    // `parallel_safe` is asked last: it costs more, and small plans never get there.
    if chunks.count <= 1 || rayon::current_thread_index().is_some() || !plan.parallel_safe() {
        walk.run(0, numel, &f);
        return Ok(());
    }
    // Each chunk runs once, on whichever thread claims it first: the workers are asked to
    // take chunks 1.., while the calling thread runs chunk 0 and then every chunk no worker
    // has started yet. A loop is never slower than serial when the workers are slow to wake
    // (a sleeping pool costs tens of microseconds), and the fixed chunk boundaries keep the
    // results independent of who ran what.
    let claimed: SmallVec<[AtomicBool; 8]> =
        (0..chunks.count).map(|_| AtomicBool::new(false)).collect();
    let run_chunk = |t: usize| {
        if !claimed[t].swap(true, Ordering::AcqRel) {
            let (begin, end) = chunks.range(t);
            walk.run(begin, end, &f);
        }
    };
    pool::pool()?.in_place_scope(|scope| {
        for t in 1..chunks.count {
            let run_chunk = &run_chunk;
            scope.spawn(move |_| run_chunk(t));
        }
        (0..chunks.count).for_each(run_chunk);
    });
    Ok(())
}
