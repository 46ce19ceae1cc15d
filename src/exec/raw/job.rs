//! A parallel loop's job as the pool's workers see it: `count` chunks of a borrowed closure,
//! each run exactly once by whichever thread claims it first.
//!
//! Each thread first claims its own chunks (slot `s` of `T` threads: chunks `s`, `s + T`,
//! …), as OpenMP's static schedule hands them out, then any chunk still unclaimed. A loop run
//! again over the same data then finds each chunk's data in the cache of the core that ran
//! it last: with a shared claim counter the chunks went to whichever thread came first, and
//! at 16 threads an add of 1M float32 (each chunk's data fits one core's L2) ran at a third
//! of torch's speed.
//!
//! The workers are long-lived threads, so they cannot hold the borrow of a closure that lives
//! on the caller's stack: the job keeps the closure as a raw pointer with its lifetime erased.
//! That is the one `unsafe` here, and it is sound because of how [`run`] is built:
//!
//! - the closure is called only for a chunk index below `count` whose flag this thread set
//!   (a `swap` from false: one thread per chunk);
//! - [`run`] does not return (nor unwind) before every chunk has been claimed and every
//!   claimed chunk has finished: its drop guard claims what is left itself, then waits;
//! - once all chunks are claimed every later claim fails, so a worker that still holds the
//!   job (an `Arc`) after [`run`] returned never dereferences the pointer.
//!
//! A panic inside a chunk is caught where it happens; [`run`] reports it as a message.

use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// How long a loop's caller yields while other threads finish their chunks, before it sleeps.
const YIELD_FOR: Duration = Duration::from_micros(200);

/// The closure of one loop, called with a chunk index.
type ChunkFn<'a> = dyn Fn(usize) + Sync + 'a;

/// One parallel loop, shared with the workers.
pub(crate) struct Job {
    /// The caller's closure, its lifetime erased (see the module documentation).
    f: *const ChunkFn<'static>,
    count: usize,
    /// The threads whose own chunks are interleaved (`min(threads, count)`).
    slots: usize,
    /// Whether each chunk is claimed.
    claimed: Box<[AtomicBool]>,
    /// Chunks not finished yet.
    remaining: AtomicUsize,
    /// The first panic message of a chunk, if any.
    panic: Mutex<Option<String>>,
}

// SAFETY: `f` points to a `Sync` closure, called only under the protocol of the module
// documentation (while its owner waits in `run`); the other fields are thread-safe.
unsafe impl Send for Job {}
// SAFETY: as for `Send`.
unsafe impl Sync for Job {}

thread_local! {
    /// Whether this thread is running a chunk of a loop, parallel or serial (loops it starts
    /// then run serially).
    static IN_CHUNK: std::cell::Cell<bool> = const { std::cell::Cell::new(false) };
}

/// Whether the calling thread is inside a chunk of a parallel loop.
pub(crate) fn in_parallel_region() -> bool {
    IN_CHUNK.with(|c| c.get())
}

impl Job {
    /// Claims and runs the chunks of thread slot `slot` (the caller is 0, worker `i` is
    /// `i`), then any other chunk left, until none is unclaimed.
    pub(crate) fn help(&self, slot: usize) {
        let own = (slot.min(self.slots)..self.count).step_by(self.slots);
        for t in own.chain(0..self.count) {
            if self.claimed[t].load(Ordering::Relaxed)
                || self.claimed[t].swap(true, Ordering::AcqRel)
            {
                continue;
            }
            // SAFETY: `t < count` was claimed by this thread alone, so the owner is still
            // inside `run`, which keeps the closure alive until this chunk is counted done.
            let f = unsafe { &*self.f };
            let was_inside = IN_CHUNK.with(|c| c.replace(true));
            let outcome = catch_unwind(AssertUnwindSafe(|| f(t)));
            IN_CHUNK.with(|c| c.set(was_inside));
            if let Err(payload) = outcome {
                let mut first = self.panic.lock().unwrap_or_else(|p| p.into_inner());
                first.get_or_insert_with(|| panic_message(payload.as_ref()));
            }
            self.remaining.fetch_sub(1, Ordering::AcqRel);
        }
    }
}

/// The text of a panic's payload.
pub(crate) fn panic_message(payload: &(dyn std::any::Any + Send)) -> String {
    payload
        .downcast_ref::<&str>()
        .map(|s| s.to_string())
        .or_else(|| payload.downcast_ref::<String>().cloned())
        .unwrap_or_else(|| "a panic without a message".to_string())
}

/// Runs chunk `t` of `f` on the calling thread as a chunk of a loop (loops it starts run
/// serially), with the message of its panic, if any: for a chunk another pool's thread runs
/// (the `rayon` feature).
#[cfg(feature = "rayon")]
pub(crate) fn run_chunk(f: &(dyn Fn(usize) + Sync), t: usize) -> Result<(), String> {
    let was_inside = IN_CHUNK.with(|c| c.replace(true));
    let outcome = catch_unwind(AssertUnwindSafe(|| f(t)));
    IN_CHUNK.with(|c| c.set(was_inside));
    outcome.map_err(|payload| panic_message(payload.as_ref()))
}

/// Runs `f(0)`, ..., `f(count - 1)` on the calling thread (no job to share, no allocation),
/// with the message of the first panic, if any; the other chunks still run.
pub(crate) fn run_serial(count: usize, f: &(dyn Fn(usize) + Sync)) -> Result<(), String> {
    let mut first = None;
    let was_inside = IN_CHUNK.with(|c| c.replace(true));
    for t in 0..count {
        if let Err(payload) = catch_unwind(AssertUnwindSafe(|| f(t))) {
            first.get_or_insert_with(|| panic_message(payload.as_ref()));
        }
    }
    IN_CHUNK.with(|c| c.set(was_inside));
    first.map_or(Ok(()), Err)
}

/// Finishes a job on every exit path: claims what is left, then waits for the chunks other
/// threads claimed.
struct WaitForChunks<'j>(&'j Job);

impl Drop for WaitForChunks<'_> {
    fn drop(&mut self) {
        self.0.help(0);
        // Claimed chunks run on threads that are awake and were handed equal shares: spin,
        // then yield (on a loaded machine one of them may have lost its core), then sleep in
        // short steps when a chunk is long, so a wait never burns a core for long.
        let mut spins = 0u32;
        let mut since = None;
        while self.0.remaining.load(Ordering::Acquire) != 0 {
            if spins < 1024 {
                std::hint::spin_loop();
                spins += 1;
            } else if since.get_or_insert_with(Instant::now).elapsed() < YIELD_FOR {
                std::thread::yield_now();
            } else {
                std::thread::sleep(Duration::from_micros(20));
            }
        }
    }
}

/// Runs `f(0)`, ..., `f(count - 1)` once each: `share` hands the job to other threads (which
/// call [`Job::help`] with their slots, 1 to `threads - 1`), the calling thread claims chunks
/// too (slot 0), and `run` returns when all are done — with the message of the first chunk
/// that panicked, if one did.
pub(crate) fn run(
    count: usize,
    threads: usize,
    f: &(dyn Fn(usize) + Sync),
    share: impl FnOnce(&Arc<Job>),
) -> Result<(), String> {
    // SAFETY: only the lifetime changes (same fat pointer). The pointer is dereferenced only
    // for claimed chunks, all of which finish before `run` returns or unwinds (the guard
    // below), so never after `f`'s borrow ends.
    let erased: *const ChunkFn<'static> =
        unsafe { std::mem::transmute::<*const ChunkFn<'_>, *const ChunkFn<'static>>(f) };
    let job = Arc::new(Job {
        f: erased,
        count,
        slots: threads.clamp(1, count.max(1)),
        claimed: (0..count).map(|_| AtomicBool::new(false)).collect(),
        remaining: AtomicUsize::new(count),
        panic: Mutex::new(None),
    });
    {
        let _finish = WaitForChunks(&job);
        share(&job);
    }
    let first_panic = job.panic.lock().unwrap_or_else(|p| p.into_inner()).take();
    match first_panic {
        Some(message) => Err(message),
        None => Ok(()),
    }
}
