//! The thread pool ferroiter owns: `set_num_threads` / `get_num_threads`, defaulting to the
//! machine's cores. Loops on one thread never touch the pool.

use crate::error::{Error, Result};
use rayon::{ThreadPool, ThreadPoolBuilder};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};

/// The thread count, readable without a lock on every loop (0: not set yet).
static THREADS: AtomicUsize = AtomicUsize::new(0);

struct PoolState {
    threads: usize,
    pool: Option<Arc<ThreadPool>>,
}

static STATE: Mutex<PoolState> = Mutex::new(PoolState {
    threads: 0,
    pool: None,
});

fn default_threads() -> usize {
    std::thread::available_parallelism().map_or(1, |n| n.get())
}

/// How many threads a parallel loop uses.
pub fn get_num_threads() -> usize {
    match THREADS.load(Ordering::Relaxed) {
        0 => {
            let n = default_threads();
            THREADS.store(n, Ordering::Relaxed);
            n
        }
        n => n,
    }
}

/// Sets the number of threads (at least 1); the pool is rebuilt on next use.
pub fn set_num_threads(n: usize) -> Result<()> {
    if n == 0 {
        return Err(Error::value("set_num_threads expects a positive integer"));
    }
    let mut state = STATE.lock().unwrap_or_else(|p| p.into_inner());
    if state.threads != n {
        state.threads = n;
        state.pool = None;
    }
    THREADS.store(n, Ordering::Relaxed);
    Ok(())
}

/// The pool for `threads` workers, built on first use.
pub(crate) fn pool() -> Result<Arc<ThreadPool>> {
    let mut state = STATE.lock().unwrap_or_else(|p| p.into_inner());
    if state.threads == 0 {
        state.threads = get_num_threads();
    }
    if let Some(pool) = &state.pool {
        return Ok(pool.clone());
    }
    let pool = ThreadPoolBuilder::new()
        .num_threads(state.threads)
        .thread_name(|i| format!("ferroiter-{i}"))
        .build()
        .map_err(|e| Error::value(format!("cannot start the thread pool: {e}")))?;
    let pool = Arc::new(pool);
    state.pool = Some(pool.clone());
    Ok(pool)
}
