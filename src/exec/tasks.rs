//! `run_tasks`: a fixed list of independent tasks run on the pool. Reductions and scans cut
//! their work into units fixed by the input's size alone; this only decides who runs them, so
//! that results never depend on the thread count or on scheduling.
#![forbid(unsafe_code)]

use super::pool;
use crate::error::Result;

/// How many tasks `units` units of work of `elements` elements in all make: one per thread at
/// most, each of at least `grain` elements, never more than there are units.
pub fn task_count(units: usize, elements: usize, grain: usize) -> usize {
    let threads = pool::get_num_threads();
    threads
        .min(elements.div_ceil(grain.max(1)))
        .min(units)
        .max(1)
}

/// Runs `f(begin, end)` for `tasks` contiguous, near-equal ranges of `0..units`, in parallel
/// when there is more than one task (the calling thread takes part; nested calls run serially).
pub fn run_tasks(units: usize, tasks: usize, f: impl Fn(usize, usize) + Sync) -> Result<()> {
    let tasks = tasks.clamp(1, units.max(1));
    let range = |t: usize| (t * units / tasks, (t + 1) * units / tasks);
    pool::parallel_for(tasks, tasks, &|t| {
        let (b, e) = range(t);
        f(b, e);
    })
}
