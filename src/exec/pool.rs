//! ferroiter's thread pool: workers that stay ready between loops, so that a parallel loop
//! costs microseconds rather than a wake-up per worker.
//!
//! - **Ready between loops.** After a loop a worker spins for [`SPIN`] (the first
//!   [`BUSY_SPIN`] of it without yielding its core, then yielding it), then parks on a
//!   condition variable. A new loop bumps an epoch counter: spinning workers see it at
//!   once; parked ones are woken by one `notify_all` (one wake reaches all), and only when
//!   some worker is parked. A loop of fewer chunks than threads is joined only by as many
//!   workers as it has chunks besides the caller's: the others go on waiting, so a 2-chunk
//!   loop at 16 threads does not have 15 workers contending for its job and its claim
//!   counter.
//! - **The calling thread takes part.** It claims chunks like a worker (`raw::job`), so a
//!   loop never waits for a worker to wake before work starts, and returns when every chunk is
//!   done.
//! - **Fixed chunks.** The pool runs chunk indices `0..count`; the chunk boundaries are
//!   torch's formula ([`super::chunks`]), so results never depend on which thread ran what.
//! - **Serial when it must.** A loop started from inside a chunk (nested) runs serially on the
//!   thread that started it; so does a loop started while another thread's loop holds the
//!   workers (the chunks are identical either way, and the workers are busy anyway).
//! - **Thread count changes.** The pool has [`get_num_threads`] threads (or more, when a loop
//!   asks for more) and is rebuilt when that changes; a loop already running on the old pool
//!   keeps it alive until it finishes, then its workers exit. A loop on fewer threads (a
//!   reduction with fewer tasks than threads) takes that many of the pool's: rebuilding the
//!   pool for it would spawn and join threads at every change between such a loop and a full
//!   one.
//! - **Panics.** A panic inside a chunk is caught there and becomes an [`Error`].
//! - **Inside a rayon pool** (the `rayon` feature): a loop started on a thread of a rayon
//!   pool runs its chunks on that pool, so an application that already parallelizes with rayon
//!   gets no second set of threads competing for its cores; the chunks are the same.
//! - **Fork.** A forked child has none of its parent's workers: a pool built in another
//!   process (its pid differs) is leaked, never joined or locked, and a fresh one is built.
//!
//! Crates evaluated before writing this (see the README's notes on the executor): rayon
//! (sleeping workers are woken one job at a time and the scope joins them all, the cost this
//! pool removes), chili and forte (heartbeat scheduling shares work only every ~100 µs,
//! too late for loops of tens of microseconds; forte is an alpha), paralight (a pool per
//! `&mut` handle, no calling-thread participation, its own range split), orx-parallel
//! (threads per computation by default).
#![forbid(unsafe_code)]

use super::raw::job::{self, Job};
use crate::error::{Error, Result};
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Condvar, Mutex, RwLock};
use std::time::{Duration, Instant};

pub use crate::settings::{get_num_threads, set_num_threads};

/// How long an idle worker spins before it parks: longer than the gap between two loops of a
/// Python program (a few microseconds of interpreter work), short enough not to burn a core
/// for long (OpenMP runtimes spin between 0.1 ms and 200 ms by default).
pub const SPIN: Duration = Duration::from_micros(100);

/// How much of [`SPIN`] a worker spins without yielding its core. A worker that yields on a
/// busy machine loses its core for a whole time slice of another process (milliseconds), and
/// the caller then runs every chunk of the next loop itself: measured on 2 cores, a 64K add on
/// 2 threads ran no faster than on 1 while the worker yielded from its first microseconds.
/// OpenMP's workers spin without yielding for their whole spin time.
pub const BUSY_SPIN: Duration = Duration::from_micros(50);

/// What the workers of one pool share.
struct Shared {
    /// Bumped for each loop (and at shutdown): a worker runs when it sees a new value.
    epoch: AtomicU64,
    /// The loop in progress (or the last one; its chunks are then all claimed). Workers only
    /// read it, concurrently.
    job: RwLock<Option<Arc<Job>>>,
    /// How many workers the loop in progress wants (its chunks less the caller's): worker
    /// `i` (numbered from 1) joins when `i <= helpers`. Written before the epoch is bumped.
    helpers: AtomicUsize,
    /// Workers parked on `wake` (a loop notifies only when some are).
    sleepers: AtomicUsize,
    park: Mutex<()>,
    wake: Condvar,
    shutdown: AtomicBool,
}

/// A set of `threads - 1` workers (the calling thread is the last one).
pub(crate) struct Pool {
    shared: Arc<Shared>,
    threads: usize,
    /// Held while a loop uses the workers.
    busy: Mutex<()>,
    /// The process that started the workers.
    pid: u32,
}

impl Pool {
    fn new(threads: usize) -> Pool {
        let shared = Arc::new(Shared {
            epoch: AtomicU64::new(0),
            job: RwLock::new(None),
            helpers: AtomicUsize::new(0),
            sleepers: AtomicUsize::new(0),
            park: Mutex::new(()),
            wake: Condvar::new(),
            shutdown: AtomicBool::new(false),
        });
        for i in 1..threads {
            let for_worker = shared.clone();
            let spawned = std::thread::Builder::new()
                .name(format!("ferroiter-{i}"))
                .spawn(move || worker(&for_worker, i));
            if spawned.is_err() {
                // Fewer workers only means fewer hands: the caller runs what they leave.
                break;
            }
        }
        Pool {
            shared,
            threads,
            busy: Mutex::new(()),
            pid: std::process::id(),
        }
    }

    /// Hands `job` to the workers it needs (`threads` with the caller: its chunks or its
    /// thread count, whichever is fewer): publish it, bump the epoch, wake parked workers.
    fn publish(&self, job: &Arc<Job>, threads: usize) {
        let shared = &self.shared;
        *write(&shared.job) = Some(job.clone());
        shared
            .helpers
            .store(threads.clamp(1, self.threads) - 1, Ordering::SeqCst);
        shared.epoch.fetch_add(1, Ordering::SeqCst);
        // A worker about to park counts itself in `sleepers` before it checks the epoch (both
        // SeqCst), so either it sees the new epoch or we see it counted and notify; taking
        // `park` first means a worker between its check and its wait cannot miss the notify.
        if shared.sleepers.load(Ordering::SeqCst) > 0 {
            let _parked = lock(&shared.park);
            shared.wake.notify_all();
        }
    }
}

impl Drop for Pool {
    fn drop(&mut self) {
        let shared = &self.shared;
        shared.shutdown.store(true, Ordering::SeqCst);
        shared.epoch.fetch_add(1, Ordering::SeqCst);
        let _parked = lock(&shared.park);
        shared.wake.notify_all();
    }
}

/// Worker `index` (from 1): wait for a new epoch (spin, then park), run chunks of the job
/// when the loop wants this many workers, repeat.
fn worker(shared: &Shared, index: usize) {
    let mut seen = shared.epoch.load(Ordering::Acquire);
    loop {
        seen = wait_for_epoch(shared, seen);
        if shared.shutdown.load(Ordering::Acquire) {
            return;
        }
        if index > shared.helpers.load(Ordering::Acquire) {
            continue;
        }
        let job = read(&shared.job).clone();
        if let Some(job) = job {
            job.help(index);
        }
    }
}

/// Waits until the epoch differs from `seen` and returns it: spins for [`BUSY_SPIN`], then
/// spins yielding its core until [`SPIN`], then parks.
fn wait_for_epoch(shared: &Shared, seen: u64) -> u64 {
    let start = Instant::now();
    let mut spins = 0u32;
    loop {
        let epoch = shared.epoch.load(Ordering::Acquire);
        if epoch != seen {
            return epoch;
        }
        spins = spins.wrapping_add(1);
        // The clock is read once per 64 spins (a `pause` takes tens of cycles).
        if !spins.is_multiple_of(64) {
            std::hint::spin_loop();
            continue;
        }
        let spent = start.elapsed();
        if spent < BUSY_SPIN {
            std::hint::spin_loop();
            continue;
        }
        if spent < SPIN {
            std::thread::yield_now();
            continue;
        }
        let mut parked = lock(&shared.park);
        shared.sleepers.fetch_add(1, Ordering::SeqCst);
        while shared.epoch.load(Ordering::SeqCst) == seen {
            parked = shared.wake.wait(parked).unwrap_or_else(|p| p.into_inner());
        }
        shared.sleepers.fetch_sub(1, Ordering::SeqCst);
        drop(parked);
        return shared.epoch.load(Ordering::Acquire);
    }
}

/// Locks a mutex whose data stays valid if a holder panicked.
fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|p| p.into_inner())
}

/// Reads a lock whose data stays valid if a writer panicked.
fn read<T>(m: &RwLock<T>) -> std::sync::RwLockReadGuard<'_, T> {
    m.read().unwrap_or_else(|p| p.into_inner())
}

/// Writes a lock whose data stays valid if a writer panicked.
fn write<T>(m: &RwLock<T>) -> std::sync::RwLockWriteGuard<'_, T> {
    m.write().unwrap_or_else(|p| p.into_inner())
}

/// The process-wide pool, built on first use.
static POOL: Mutex<Option<Arc<Pool>>> = Mutex::new(None);

/// The pool for `threads` threads, or `None` when the loop should run serially. Rebuilds the
/// pool when the thread count changed or the process forked. Never blocks for long: a forked
/// child may have inherited the lock held by a parent thread that no longer exists.
fn pool_for(threads: usize) -> Option<Arc<Pool>> {
    let mut slot = None;
    for _ in 0..64 {
        match POOL.try_lock() {
            Ok(guard) => {
                slot = Some(guard);
                break;
            }
            Err(std::sync::TryLockError::Poisoned(p)) => {
                slot = Some(p.into_inner());
                break;
            }
            Err(std::sync::TryLockError::WouldBlock) => std::thread::yield_now(),
        }
    }
    let mut slot = slot?;
    let pid = std::process::id();
    match slot.as_ref() {
        Some(pool) if pool.threads == threads && pool.pid == pid => return Some(pool.clone()),
        Some(pool) if pool.pid != pid => {
            // Forked: the workers and any lock they held belong to the parent. Leak the
            // parent's pool rather than signal threads that do not exist here.
            std::mem::forget(slot.take());
        }
        _ => {}
    }
    let pool = Arc::new(Pool::new(threads));
    *slot = Some(pool.clone());
    Some(pool)
}

/// Whether the calling thread is running a chunk of a loop, parallel or serial (then loops it
/// starts run serially, as torch's nested `parallel_for`s do).
pub fn in_parallel_region() -> bool {
    job::in_parallel_region()
}

/// Runs `f(0)`, ..., `f(count - 1)`, each exactly once, on up to `threads` threads (the
/// calling one included), returning when all are done. Serial when `count` or `threads` is 1,
/// inside a chunk of another loop, or while another thread's loop holds the pool. A panic in
/// `f` becomes an error (the other chunks still run).
pub fn parallel_for(count: usize, threads: usize, f: &(dyn Fn(usize) + Sync)) -> Result<()> {
    #[cfg(feature = "rayon")]
    if count > 1 && threads > 1 && !in_parallel_region() && rayon::current_thread_index().is_some()
    {
        return on_callers_rayon_pool(count, f);
    }
    let pool = if count > 1 && threads > 1 && !in_parallel_region() {
        pool_for(threads.max(get_num_threads()))
    } else {
        None
    };
    let busy = pool.as_ref().and_then(|p| p.busy.try_lock().ok());
    let outcome = match (&pool, busy) {
        (Some(pool), Some(_busy)) => {
            let threads = threads.min(pool.threads).min(count);
            let outcome = job::run(count, threads, f, |job| pool.publish(job, threads));
            *write(&pool.shared.job) = None;
            outcome
        }
        _ => job::run_serial(count, f),
    };
    outcome.map_err(|message| Error::value(format!("a parallel loop panicked: {message}")))
}

/// The chunks of a loop started on a rayon worker, run on that worker's pool (work stealing
/// shares them with the pool's other tasks); the first panic becomes an error.
#[cfg(feature = "rayon")]
fn on_callers_rayon_pool(count: usize, f: &(dyn Fn(usize) + Sync)) -> Result<()> {
    use rayon::prelude::*;
    let first = Mutex::new(None::<String>);
    (0..count).into_par_iter().for_each(|t| {
        if let Err(message) = job::run_chunk(f, t) {
            lock(&first).get_or_insert(message);
        }
    });
    match first.into_inner().unwrap_or_else(|p| p.into_inner()) {
        Some(message) => Err(Error::value(format!("a parallel loop panicked: {message}"))),
        None => Ok(()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::atomic::AtomicU32;

    fn hits(count: usize, threads: usize) -> Vec<u32> {
        let hits: Vec<AtomicU32> = (0..count).map(|_| AtomicU32::new(0)).collect();
        parallel_for(count, threads, &|t| {
            hits[t].fetch_add(1, Ordering::Relaxed);
        })
        .unwrap();
        hits.into_iter().map(|h| h.into_inner()).collect()
    }

    /// With the `rayon` feature, a loop started on a rayon worker runs on that pool's threads
    /// (every chunk once) and never wakes ferroiter's workers; loops inside its chunks run
    /// serially.
    #[cfg(feature = "rayon")]
    #[test]
    fn a_loop_on_a_rayon_worker_runs_on_its_pool() {
        let rayon_pool = rayon::ThreadPoolBuilder::new()
            .num_threads(3)
            .thread_name(|i| format!("app-{i}"))
            .build()
            .unwrap();
        let names = Mutex::new(std::collections::HashSet::new());
        let hits: Vec<AtomicU32> = (0..64).map(|_| AtomicU32::new(0)).collect();
        rayon_pool.install(|| {
            parallel_for(64, 4, &|t| {
                hits[t].fetch_add(1, Ordering::Relaxed);
                lock(&names).insert(std::thread::current().name().map(str::to_owned));
                assert!(in_parallel_region());
            })
            .unwrap();
        });
        assert!(hits.iter().all(|h| h.load(Ordering::Relaxed) == 1));
        for name in lock(&names).iter() {
            assert!(
                name.as_deref().is_some_and(|n| n.starts_with("app-")),
                "{name:?}"
            );
        }
        let err = rayon_pool.install(|| parallel_for(4, 4, &|t| assert!(t != 2, "chunk two")));
        assert!(err.unwrap_err().to_string().contains("chunk two"));
    }

    #[test]
    fn every_chunk_runs_exactly_once() {
        for threads in [1, 2, 3, 8] {
            for count in [0, 1, 2, 3, 7, 8, 64] {
                assert_eq!(hits(count, threads), vec![1; count], "{count} on {threads}");
            }
        }
    }

    #[test]
    fn a_loop_is_joined_only_by_the_workers_it_needs() {
        let caller = std::thread::current().name().map(str::to_owned);
        let names = Mutex::new(std::collections::HashSet::new());
        for _ in 0..200 {
            parallel_for(2, 8, &|_| {
                let name = std::thread::current().name().map(str::to_owned);
                lock(&names).insert(name);
            })
            .unwrap();
        }
        let allowed = [caller, Some("ferroiter-1".to_owned())];
        for name in lock(&names).iter() {
            assert!(
                allowed.contains(name),
                "{name:?} ran a chunk of a 2-chunk loop"
            );
        }
    }

    #[test]
    fn a_loop_on_fewer_threads_uses_that_many_workers() {
        let caller = std::thread::current().name().map(str::to_owned);
        let names = Mutex::new(std::collections::HashSet::new());
        for _ in 0..200 {
            // (the pool may have more threads: `get_num_threads` or another test's loop)
            parallel_for(12, 3, &|_| {
                let name = std::thread::current().name().map(str::to_owned);
                lock(&names).insert(name);
            })
            .unwrap();
        }
        let allowed = [
            caller,
            Some("ferroiter-1".to_owned()),
            Some("ferroiter-2".to_owned()),
        ];
        for name in lock(&names).iter() {
            assert!(
                allowed.contains(name),
                "{name:?} ran a chunk of a 3-thread loop"
            );
        }
    }

    #[test]
    fn nested_loops_run_serially() {
        let inner_threads: Vec<AtomicU32> = (0..4).map(|_| AtomicU32::new(0)).collect();
        parallel_for(4, 4, &|t| {
            assert!(in_parallel_region());
            let me = std::thread::current().id();
            parallel_for(3, 4, &|_| {
                // the nested chunks run on the thread that started them
                assert_eq!(std::thread::current().id(), me);
                inner_threads[t].fetch_add(1, Ordering::Relaxed);
            })
            .unwrap();
        })
        .unwrap();
        assert!(!in_parallel_region());
        assert!(inner_threads.iter().all(|n| n.load(Ordering::Relaxed) == 3));
    }

    #[test]
    fn a_panic_becomes_an_error_and_the_other_chunks_run() {
        let done = AtomicU32::new(0);
        let err = parallel_for(6, 3, &|t| {
            if t == 2 {
                panic!("chunk two failed");
            }
            done.fetch_add(1, Ordering::Relaxed);
        })
        .unwrap_err();
        assert_eq!(
            err.to_string(),
            "a parallel loop panicked: chunk two failed"
        );
        assert_eq!(done.load(Ordering::Relaxed), 5);
        // the pool still works afterwards
        assert_eq!(hits(5, 3), vec![1; 5]);
    }

    #[test]
    fn loops_from_many_threads_while_the_count_changes() {
        std::thread::scope(|s| {
            for _ in 0..4 {
                s.spawn(|| {
                    for i in 0..300 {
                        let count = 1 + i % 9;
                        assert_eq!(hits(count, 1 + i % 4), vec![1; count]);
                    }
                });
            }
            s.spawn(|| {
                for i in 0..200 {
                    set_num_threads(1 + i % 5).unwrap();
                    let threads = get_num_threads();
                    assert_eq!(hits(4, threads), vec![1; 4]);
                }
            });
        });
    }

    #[test]
    fn parked_workers_wake() {
        assert_eq!(hits(4, 4), vec![1; 4]);
        std::thread::sleep(SPIN * 20);
        assert_eq!(hits(4, 4), vec![1; 4]);
    }
}
