//! `for_each`: run a loop over a plan, serially or split into fixed chunks among threads, in
//! torch's 2-D blocks or in tiles of them ([`super::tiled`]).
#![forbid(unsafe_code)]

use super::chunks::Chunks;
use super::copy_strategy::CopyStrategy;
use super::pool;
use super::raw::{run_flat, run_row, Block, Walk};
use super::stores;
use super::tiled;
use crate::error::Result;
use crate::plan::{DirectOperands, TensorIterator};
use std::sync::atomic::{AtomicUsize, Ordering};

/// Runs `f` over the plan in 2-D blocks: torch's blocks, or tiles of them when
/// [`tiled::decide`] finds operands that disagree about the fastest dim (then the walk order is
/// `[0, tile dim, the others]`). Ranges of more than `grain` elements are cut into
/// `min(threads, ceil(numel / grain))` equal chunks of the walk order run on ferroiter's pool,
/// large chunks into fixed pieces ([`Chunks::pieces`]) that an idle thread takes over, so
/// that the split — and any result that depends on it — never depends on scheduling.
/// Loops started from inside a chunk run serially; a panic in `f` becomes an error.
/// Plans whose outputs may reach an element twice run serially. `f` runs on every element of
/// every plan, a copy's too (the walks that copy by themselves are `copy_`'s own).
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
    // (`runs_as_row` asks the same of a direct call's operands before any plan is made)
    if plan.ndim() == 1 && numel <= grain.max(1) && !stores::elementwise_streams(plan) {
        // one serial block, untiled (one dim) and unstreamed: no walk to build (the commonest
        // call, a small contiguous op, spent a fifth of its time there)
        let threads = pool::get_num_threads();
        return pool::parallel_for(1, threads, &|_| run_flat(plan, &f));
    }
    run_walk(
        plan,
        CopyStrategy::Elementwise(tiled::decide(plan)),
        grain,
        &f,
    )
}

/// Whether [`for_each`] would run the plan that a direct plan's operands make as one serial,
/// unstreamed block: one row ([`DirectOperands::one_row`]) of at most `grain` elements and an
/// output too small to stream. [`for_each_row`] then runs it without the plan. (Keep in step
/// with `for_each`'s first branch: `stores::may_stream` is `elementwise_streams`' own size
/// test, which it must pass to stream.)
pub(crate) fn runs_as_row(operands: &DirectOperands, grain: usize) -> bool {
    let numel = operands.numel();
    operands.one_row()
        && numel <= grain.max(1)
        && !stores::may_stream(numel.saturating_mul(operands.output().itemsize()))
}

/// [`for_each`] on the one row of a direct plan's operands, where [`runs_as_row`]: `f` runs
/// once on the row, serially, as on the plan they make.
pub(crate) fn for_each_row(operands: &DirectOperands, f: impl Fn(&Block) + Sync) -> Result<()> {
    debug_assert!(operands.one_row());
    if operands.numel() == 0 {
        return Ok(());
    }
    // (a serial loop on the pool's path, so that a panic becomes an error as in `for_each`)
    pool::parallel_for(1, 1, &|_| run_row(operands, &f))
}

/// Runs a same-dtype copy (`kernels::copy`) of the plan's input into its output as its
/// [`CopyStrategy::of`] says: the walks that hand out blocks run `kernel_for(&strategy)` on
/// them (a kernel that copies operand 1 into operand 0), direct tiles and the permuting copy
/// move the bytes themselves.
pub(crate) fn for_each_copy<K: Fn(&Block) + Sync>(
    plan: &TensorIterator,
    grain: usize,
    kernel_for: impl FnOnce(&CopyStrategy) -> K,
) -> Result<()> {
    if plan.numel() == 0 {
        return Ok(());
    }
    let strategy = CopyStrategy::of(plan);
    let kernel = kernel_for(&strategy);
    #[cfg(test)]
    super::copy_strategy::LAST_RUN.set(Some(strategy.clone()));
    run_walk(plan, strategy, grain, &kernel)
}

/// The walk that runs `strategy` (chosen for this plan) over the plan, serially or in chunks
/// among the threads ([`for_each`]'s doc).
fn run_walk(
    plan: &TensorIterator,
    strategy: CopyStrategy,
    grain: usize,
    f: &(impl Fn(&Block) + Sync),
) -> Result<()> {
    let numel = plan.numel();
    let threads = pool::get_num_threads();
    let walk = Walk::new(plan, strategy);
    let chunks = Chunks::new(numel, grain, threads);
    // `parallel_safe` is asked last: it costs more, and small plans never get there.
    if chunks.count <= 1 || pool::in_parallel_region() || !plan.parallel_safe() {
        // A serial loop runs on the pool's path too, so a panic becomes an error either way.
        return pool::parallel_for(1, threads, &|_| walk.run(0, numel, f));
    }
    // Each chunk is claimed by the first thread to reach it (the calling thread takes part,
    // so a loop never waits for a worker to wake before work starts). A thread runs its
    // chunk's pieces in order, then the pieces no thread has started of the chunks after
    // it (and then before it): a worker slowed by a busy core leaves its last pieces to the
    // others. Every piece runs once; the fixed pieces keep the results independent of who ran
    // what.
    let pieces = pieces(&walk, &chunks, grain);
    if pieces == 1 {
        // chunks too small to share: no claims to make (at 16 threads they would cost more
        // than the loop's dispatch)
        return pool::parallel_for(chunks.count, threads, &|t| {
            let (begin, end) = chunks.range(t);
            walk.run(begin, end, f);
        });
    }
    let next: Vec<AtomicUsize> = (0..chunks.count).map(|_| AtomicUsize::new(0)).collect();
    pool::parallel_for(chunks.count, threads, &|t| {
        for c in (t..chunks.count).chain(0..t) {
            loop {
                let k = next[c].fetch_add(1, Ordering::Relaxed);
                if k >= pieces {
                    break;
                }
                let (begin, end) = chunks.piece(c, k, pieces);
                walk.run(begin, end, f);
            }
        }
    })
}

/// How many pieces `for_each` cuts each chunk of `walk` into: [`Chunks::pieces`], except for
/// a walk that copies by itself (transposes, permutations), which runs each chunk whole: on
/// the 2-core Zen 3 at 2 threads, pieces cost the 4096² float32 transpose 12-16% (in-process,
/// both orders) and gained nothing on the permutations.
pub(crate) fn pieces(walk: &Walk, chunks: &Chunks, grain: usize) -> usize {
    if walk.copies_by_itself() {
        1
    } else {
        chunks.pieces(grain)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{Array, DType, MemoryFormat, Scalar, TensorIteratorConfig};
    use std::collections::HashMap;
    use std::sync::Mutex;

    /// A worker that is slow (here: sleeps in every block it gets) leaves the pieces of its
    /// chunk that it has not started to the calling thread: every element still runs once,
    /// and the caller runs more than its own half. (Tried until a worker takes part: the
    /// caller may claim both chunks before a worker wakes.)
    #[test]
    fn a_slow_worker_leaves_its_pieces_to_the_others() {
        let n = 4000;
        let a = Array::full(
            &[n],
            Scalar::Float(1.0),
            DType::F32,
            MemoryFormat::Contiguous,
        )
        .unwrap();
        let mut config = TensorIteratorConfig::new();
        config.add_output(None).add_input(a);
        let plan = config.build().unwrap();
        let (grain, threads) = (10, 2);
        let chunks = Chunks::new(n, grain, threads);
        assert_eq!((chunks.count, chunks.pieces(grain)), (2, 8));
        let caller = std::thread::current().id();
        for _attempt in 0..50 {
            crate::exec::set_num_threads(threads).unwrap();
            let seen = Mutex::new(HashMap::<usize, u32>::new());
            let (by_caller, by_workers) = (Mutex::new(0usize), Mutex::new(0usize));
            for_each(&plan, grain, |b: &Block| {
                let elements = b.size0() * b.size1();
                if std::thread::current().id() == caller {
                    *by_caller.lock().unwrap() += elements;
                } else {
                    *by_workers.lock().unwrap() += elements;
                    std::thread::sleep(std::time::Duration::from_millis(20));
                }
                let mut seen = seen.lock().unwrap();
                for j in 0..b.size1() {
                    for i in 0..b.size0() {
                        *seen.entry(b.at(0, i, j) as usize).or_default() += 1;
                    }
                }
            })
            .unwrap();
            let seen = seen.into_inner().unwrap();
            assert_eq!(seen.len(), n);
            assert!(seen.values().all(|&k| k == 1));
            let by_caller = by_caller.into_inner().unwrap();
            if by_workers.into_inner().unwrap() > 0 {
                assert!(by_caller > n / 2, "the caller ran {by_caller} of {n}");
                return;
            }
        }
        panic!("no worker took part in 50 loops");
    }

    /// A one-dim plan up to a grain runs as one block without a walk: the whole plan, each
    /// operand at its first element with its plan stride (0 for a broadcast input); a larger
    /// one still runs in the walk's blocks, covering the same elements.
    #[test]
    fn small_one_dim_plans_run_as_one_block() {
        let a = Array::full(
            &[7],
            Scalar::Float(1.0),
            DType::F64,
            MemoryFormat::Contiguous,
        )
        .unwrap();
        let row = Array::full(
            &[1],
            Scalar::Float(2.0),
            DType::F64,
            MemoryFormat::Contiguous,
        )
        .unwrap()
        .expand(&[7])
        .unwrap();
        let mut config = TensorIteratorConfig::new();
        config.add_output(None).add_input(a.clone()).add_input(row);
        let plan = config.build().unwrap();
        assert_eq!(plan.ndim(), 1);
        let out = plan.output(0).unwrap().clone();
        for grain in [7, 1000, 3] {
            let blocks = Mutex::new(Vec::new());
            for_each(&plan, grain, |b: &Block| {
                let strides: Vec<isize> = (0..3).map(|k| b.stride0(k)).collect();
                blocks.lock().unwrap().push((
                    b.at(0, 0, 0) as usize,
                    b.at(1, 0, 0) as usize,
                    strides,
                    b.size0(),
                    b.size1(),
                ));
            })
            .unwrap();
            let mut blocks = blocks.into_inner().unwrap();
            blocks.sort();
            let covered: usize = blocks.iter().map(|b| b.3 * b.4).sum();
            assert_eq!(covered, 7);
            assert_eq!(blocks[0].0, out.data_ptr());
            assert_eq!(blocks[0].1, a.data_ptr());
            assert_eq!(blocks[0].2, vec![8, 8, 0]);
            if grain >= 7 {
                assert_eq!(blocks.len(), 1, "grain {grain}");
            }
        }
    }

    /// `for_each` over the plan of a same-dtype copy runs its closure on every element, also
    /// where `copy_` moves the bytes in its own walk (direct tiles, the permuting copy).
    #[test]
    fn a_copy_plan_runs_the_closure_on_every_element() {
        for (shape, perm) in [([512i64, 512], [1i64, 0]), ([3, 100_000], [1, 0])] {
            let src = Array::full(
                &[shape[0] as usize, shape[1] as usize],
                Scalar::Float(1.0),
                DType::F32,
                MemoryFormat::Contiguous,
            )
            .unwrap()
            .permute(&perm)
            .unwrap();
            let dst = Array::empty(src.shape(), DType::F32, MemoryFormat::Contiguous).unwrap();
            let plan = TensorIteratorConfig::copy_op(dst, src).build().unwrap();
            let strategy = CopyStrategy::of(&plan);
            assert!(
                matches!(
                    strategy,
                    CopyStrategy::DirectTiles(_) | CopyStrategy::Permute(_)
                ),
                "{strategy:?}"
            );
            let count = AtomicUsize::new(0);
            for_each(&plan, 4096, |b: &Block| {
                count.fetch_add(b.size0() * b.size1(), Ordering::Relaxed);
            })
            .unwrap();
            assert_eq!(count.into_inner(), plan.numel(), "{shape:?}");
        }
    }

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
