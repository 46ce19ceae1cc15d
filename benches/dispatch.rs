//! `cargo bench --bench dispatch`: what a parallel loop costs before any work, at 1 thread,
//! 2 threads and every available core: an empty loop on ferroiter's pool, beside the rayon
//! scope the previous executor used (spawn a job per chunk, the caller claiming chunks too),
//! and a small `add` split into chunks. Compare rows within one run (machines are noisy).

use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion};
use ferroiter::exec::{parallel_for, set_num_threads};
use ferroiter::kernels::{binary, Arg, BinaryOp};
use ferroiter::{Array, DType, MemoryFormat, Scalar};
use std::hint::black_box;
use std::sync::atomic::{AtomicBool, Ordering};

/// The previous executor's dispatch: a rayon scope spawning one job per chunk after the first,
/// the calling thread running chunk 0 and then any chunk no worker has started.
fn rayon_loop(pool: &rayon::ThreadPool, count: usize, f: &(dyn Fn(usize) + Sync)) {
    let claimed: Vec<AtomicBool> = (0..count).map(|_| AtomicBool::new(false)).collect();
    let run_chunk = |t: usize| {
        if !claimed[t].swap(true, Ordering::AcqRel) {
            f(t);
        }
    };
    pool.in_place_scope(|scope| {
        for t in 1..count {
            let run_chunk = &run_chunk;
            scope.spawn(move |_| run_chunk(t));
        }
        (0..count).for_each(run_chunk);
    });
}

fn thread_counts() -> Vec<usize> {
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
    let mut counts = vec![1, 2, cores];
    counts.sort_unstable();
    counts.dedup();
    counts
}

fn bench(c: &mut Criterion) {
    let mut group = c.benchmark_group("dispatch");
    group.sample_size(20);
    for threads in thread_counts() {
        group.bench_function(
            BenchmarkId::new("empty loop, ferroiter pool", threads),
            |b| b.iter(|| parallel_for(threads, threads, &|t| _ = black_box(t)).unwrap()),
        );
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(threads)
            .build()
            .unwrap();
        group.bench_function(BenchmarkId::new("empty loop, rayon scope", threads), |b| {
            b.iter(|| rayon_loop(&pool, threads, &|t| _ = black_box(t)))
        });

        set_num_threads(threads).unwrap();
        let n = 1 << 16;
        let filled = || {
            Array::full(
                &[n],
                Scalar::Float(1.5),
                DType::F32,
                MemoryFormat::Contiguous,
            )
        };
        let (a, x, out) = (filled().unwrap(), filled().unwrap(), filled().unwrap());
        let (a, x) = (Arg::Array(a), Arg::Array(x));
        group.bench_function(BenchmarkId::new("add 64K float32 into out", threads), |b| {
            b.iter(|| binary(BinaryOp::Add, &a, &x, None, Some(out.clone())).unwrap())
        });
    }
    group.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
