//! `cargo bench --bench rayon_caller [--features rayon]`: an application that already runs
//! rayon — a `par_iter` over 16 tasks on every core, each task an `add` of 256K float32 — calling
//! ferroiter inside its tasks. Without the `rayon` feature ferroiter's loops wake its own
//! workers, which compete with rayon's threads for the cores; with it, a loop started on a rayon
//! worker runs its chunks on that pool. The `1 thread` row runs ferroiter serially inside each
//! task (`set_num_threads(1)`), the other way to avoid a second pool. Compare the rows of the
//! two builds on one quiet machine.

use criterion::{criterion_group, criterion_main, Criterion};
use ferroiter::exec::set_num_threads;
use ferroiter::kernels::{binary, Arg, BinaryOp};
use ferroiter::{Array, DType, MemoryFormat, Scalar};
use rayon::prelude::*;
use std::hint::black_box;

const TASKS: usize = 16;
const ELEMENTS: usize = 1 << 18;

fn bench(c: &mut Criterion) {
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
    let full = |v: f64| {
        Array::full(
            &[ELEMENTS],
            Scalar::Float(v),
            DType::F32,
            MemoryFormat::Contiguous,
        )
        .unwrap()
    };
    let operands: Vec<(Arg, Arg)> = (0..TASKS)
        .map(|i| (Arg::Array(full(i as f64)), Arg::Array(full(1.0))))
        .collect();
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(cores)
        .build()
        .unwrap();
    let feature = if cfg!(feature = "rayon") {
        "feature rayon"
    } else {
        "default pool"
    };
    let mut group = c.benchmark_group("rayon_caller");
    group.sample_size(20);
    for threads in [1, cores] {
        set_num_threads(threads).unwrap();
        let label = format!("{TASKS} tasks of add 256K, {feature}, ferroiter {threads} thread(s)");
        group.bench_function(label, |b| {
            b.iter(|| {
                pool.install(|| {
                    operands.par_iter().for_each(|(x, y)| {
                        black_box(binary(BinaryOp::Add, x, y, None, None).unwrap());
                    })
                })
            })
        });
    }
    group.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
