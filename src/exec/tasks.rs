//! `run_tasks`: a fixed list of independent tasks run on the pool. Reductions and scans cut
//! their work into units fixed by the input's size alone; this only decides who runs them, so
//! that results never depend on the thread count or on scheduling.
#![forbid(unsafe_code)]

use super::pool;
use crate::error::Result;

/// How many tasks `units` units of work of `elements` elements in all make: one per thread at
/// most, each of at least `grain` elements, never more than there are units.
pub fn task_count(units: usize, elements: usize, grain: usize) -> usize {
    task_count_on(pool::get_num_threads(), units, elements, grain)
}

/// [`task_count`] on `threads` threads (`explain()` describes thread counts other than the
/// pool's).
pub fn task_count_on(threads: usize, units: usize, elements: usize, grain: usize) -> usize {
    threads
        .min(elements.div_ceil(grain.max(1)))
        .min(units)
        .max(1)
}

/// Runs `f(begin, end)` for `tasks` contiguous, near-equal ranges of `0..units`, in parallel
/// when there is more than one task (the calling thread takes part; nested calls run serially).
pub fn run_tasks(units: usize, tasks: usize, f: impl Fn(usize, usize) + Sync) -> Result<()> {
    run_pieces(units, tasks, tasks, f)
}

/// How many pieces [`run_pieces`] cuts `units` into for `tasks` tasks asking for `pieces`: at
/// least one per task, at most one per unit.
pub fn piece_count(units: usize, tasks: usize, pieces: usize) -> usize {
    let tasks = tasks.clamp(1, units.max(1));
    pieces.clamp(tasks, units.max(1))
}

/// The `k`-th of `pieces` near-equal, consecutive ranges of `0..units`.
pub fn piece_range(units: usize, pieces: usize, k: usize) -> (usize, usize) {
    (k * units / pieces, (k + 1) * units / pieces)
}

/// As [`run_tasks`], but `units` are cut into `pieces` near-equal ranges (at least `tasks`)
/// that the `tasks` threads claim in turn: a thread that starts late, or loses its core to
/// another process for a while, takes fewer pieces instead of holding up the loop's end. Who
/// runs a piece never changes what it computes.
pub fn run_pieces(
    units: usize,
    tasks: usize,
    pieces: usize,
    f: impl Fn(usize, usize) + Sync,
) -> Result<()> {
    let tasks = tasks.clamp(1, units.max(1));
    let pieces = piece_count(units, tasks, pieces);
    pool::parallel_for(pieces, tasks, &|k| {
        let (b, e) = piece_range(units, pieces, k);
        f(b, e);
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::atomic::{AtomicU32, Ordering};

    #[test]
    fn pieces_cover_every_unit_exactly_once() {
        for units in [0usize, 1, 2, 5, 16, 513] {
            for (tasks, pieces) in [(1, 1), (1, 4), (2, 2), (2, 8), (3, 100), (4, 3)] {
                let hits: Vec<AtomicU32> = (0..units).map(|_| AtomicU32::new(0)).collect();
                run_pieces(units, tasks, pieces, |b, e| {
                    for h in &hits[b..e] {
                        h.fetch_add(1, Ordering::Relaxed);
                    }
                })
                .unwrap();
                let counts: Vec<u32> = hits.iter().map(|h| h.load(Ordering::Relaxed)).collect();
                assert_eq!(counts, vec![1; units], "{units} units, {tasks} x {pieces}");
            }
        }
    }
}
