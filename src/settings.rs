//! The one place for ferroiter's run-time settings: how many threads a parallel loop uses and
//! the grain size (the smallest range worth splitting). Both are process-wide, readable
//! without a lock on every loop, and changeable at any time (a loop already running keeps the
//! values it started with).
//!
//! The thread count is decided once, on first use, in this order (torch with OpenMP reads
//! `OMP_NUM_THREADS`; ferroiter's own variable comes first so that it can differ from the
//! OpenMP libraries loaded in the same process):
//!
//! 1. `FERROITER_NUM_THREADS`,
//! 2. `OMP_NUM_THREADS` (its first entry when it is a list such as `4,2`, as OpenMP reads
//!    it for the outermost level),
//! 3. the cores this process may run on: [`std::thread::available_parallelism`], which on
//!    Linux honours the process's CPU affinity mask (`sched_getaffinity`, so `taskset` and
//!    `docker --cpuset-cpus` count) and cgroup CPU quotas, not the machine's total.
//!
//! A variable that is set but not a positive integer is ignored with a warning on stderr, the
//! next source deciding — what OpenMP runtimes do (libgomp prints "Invalid value for
//! environment variable OMP_NUM_THREADS" and ignores it). A later [`set_num_threads`] wins
//! over all of them. [`num_threads_source`] says which source decided, for a configuration
//! report.
#![forbid(unsafe_code)]

use crate::error::{Error, Result};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;

/// torch's grain size: ranges of at most this many elements run on one thread.
pub const GRAIN_SIZE: usize = 32768;

/// Where the thread count in force came from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ThreadsSource {
    /// The `FERROITER_NUM_THREADS` environment variable.
    FerroiterEnv,
    /// The `OMP_NUM_THREADS` environment variable.
    OmpEnv,
    /// The cores available to the process (its CPU affinity and cgroup quota).
    AvailableCores,
    /// A call to [`set_num_threads`].
    SetNumThreads,
}

impl ThreadsSource {
    /// A short text for a configuration report.
    pub fn describe(self) -> &'static str {
        match self {
            ThreadsSource::FerroiterEnv => "FERROITER_NUM_THREADS",
            ThreadsSource::OmpEnv => "OMP_NUM_THREADS",
            ThreadsSource::AvailableCores => "cores available to the process",
            ThreadsSource::SetNumThreads => "set_num_threads",
        }
    }
}

/// The thread count (0: not decided yet), read on every loop.
static THREADS: AtomicUsize = AtomicUsize::new(0);
/// Where [`THREADS`] came from; written together with it under this lock.
static SOURCE: Mutex<ThreadsSource> = Mutex::new(ThreadsSource::AvailableCores);
/// The grain size kernels run with.
static GRAIN: AtomicUsize = AtomicUsize::new(GRAIN_SIZE);

/// Parses a thread-count variable's value: a positive integer, or a list whose first entry is
/// one (OpenMP's nested form). `None` for anything else.
fn parse_threads(value: &str) -> Option<usize> {
    let first = value.split(',').next()?.trim();
    first.parse::<usize>().ok().filter(|&n| n > 0)
}

/// The thread count from the environment and the machine, with its source (see the module
/// documentation for the order).
fn threads_from_environment() -> (usize, ThreadsSource) {
    let sources = [
        ("FERROITER_NUM_THREADS", ThreadsSource::FerroiterEnv),
        ("OMP_NUM_THREADS", ThreadsSource::OmpEnv),
    ];
    for (name, source) in sources {
        if let Some(value) = std::env::var_os(name) {
            match value.to_str().and_then(parse_threads) {
                Some(n) => return (n, source),
                None => {
                    eprintln!("ferroiter: ignoring {name}={value:?}: expected a positive integer")
                }
            }
        }
    }
    (available_cores(), ThreadsSource::AvailableCores)
}

/// The cores this process may run on: `available_parallelism` honours the affinity mask and
/// cgroup quotas on Linux (and falls back to 1 where it cannot tell).
pub fn available_cores() -> usize {
    std::thread::available_parallelism().map_or(1, |n| n.get())
}

/// The thread count in force and where it came from.
pub fn num_threads_source() -> (usize, ThreadsSource) {
    let mut source = SOURCE.lock().unwrap_or_else(|p| p.into_inner());
    let n = THREADS.load(Ordering::Acquire);
    if n != 0 {
        return (n, *source);
    }
    let (n, from) = threads_from_environment();
    THREADS.store(n, Ordering::Release);
    *source = from;
    (n, from)
}

/// How many threads a parallel loop uses (the calling thread included).
pub fn get_num_threads() -> usize {
    match THREADS.load(Ordering::Acquire) {
        0 => num_threads_source().0,
        n => n,
    }
}

/// Sets the number of threads parallel loops use (at least 1, as torch requires). Safe while
/// loops run on other threads: they finish with the count they started with.
pub fn set_num_threads(n: usize) -> Result<()> {
    if n == 0 {
        return Err(Error::value("set_num_threads expects a positive integer"));
    }
    let mut source = SOURCE.lock().unwrap_or_else(|p| p.into_inner());
    THREADS.store(n, Ordering::Release);
    *source = ThreadsSource::SetNumThreads;
    Ok(())
}

/// The grain size kernels run with ([`GRAIN_SIZE`] unless changed, e.g. by tests that want
/// tiny arrays split among threads).
pub fn grain_size() -> usize {
    GRAIN.load(Ordering::Relaxed)
}

/// Sets the grain size kernels run with (at least 1).
pub fn set_grain_size(grain: usize) -> Result<()> {
    if grain == 0 {
        return Err(Error::value("set_grain_size expects a positive integer"));
    }
    GRAIN.store(grain, Ordering::Relaxed);
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn thread_variables_parse_like_openmp() {
        assert_eq!(parse_threads("4"), Some(4));
        assert_eq!(parse_threads(" 3 "), Some(3));
        assert_eq!(parse_threads("4,2"), Some(4));
        assert_eq!(parse_threads("0"), None);
        assert_eq!(parse_threads("-2"), None);
        assert_eq!(parse_threads("four"), None);
        assert_eq!(parse_threads(""), None);
    }

    #[test]
    fn zero_is_refused() {
        assert!(set_num_threads(0).is_err());
        assert!(set_grain_size(0).is_err());
        assert!(get_num_threads() >= 1);
    }
}
