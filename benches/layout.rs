//! `cargo bench --bench layout`: layout conversions (issue 10) next to the contiguous copy of
//! the same bytes in the same run, bytes moved as the throughput so that criterion reports
//! GB/s: NCHW <-> NHWC, 2-D transposes and a few 3-6-dim permutations, float32, at 1 and 2
//! threads. Their share of the copy limit is the ratio of the GB/s figures.

use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion, Throughput};
use ferroiter::kernels::copy::copy_into;
use ferroiter::{Array, DType, MemoryFormat, Scalar};

fn filled(shape: &[usize]) -> Array {
    Array::full(
        shape,
        Scalar::Float(1.5),
        DType::F32,
        MemoryFormat::Contiguous,
    )
    .unwrap()
}

/// (name, source shape, permutation): the view `src.permute(perm)` is copied into a
/// contiguous array.
const CASES: [(&str, &[usize], &[i64]); 11] = [
    ("NCHW->NHWC (32,64,56,56)", &[32, 64, 56, 56], &[0, 2, 3, 1]),
    ("NHWC->NCHW (32,56,56,64)", &[32, 56, 56, 64], &[0, 3, 1, 2]),
    ("transpose 4096^2", &[4096, 4096], &[1, 0]),
    ("transpose 8192^2", &[8192, 8192], &[1, 0]),
    (
        "permute (64,32,16,512) (3,1,0,2)",
        &[64, 32, 16, 512],
        &[3, 1, 0, 2],
    ),
    (
        "permute (16,16,16,16,256) (4,2,0,3,1)",
        &[16, 16, 16, 16, 256],
        &[4, 2, 0, 3, 1],
    ),
    (
        "permute (8,8,16,16,16,64) (5,3,1,4,2,0)",
        &[8, 8, 16, 16, 16, 64],
        &[5, 3, 1, 4, 2, 0],
    ),
    (
        "permute (2,2048,2048,2) (2,1,0,3)",
        &[2, 2048, 2048, 2],
        &[2, 1, 0, 3],
    ),
    // permuting copies that merge dims into rows / columns (exec/permute.rs)
    (
        "permute (9,1449,86,7) (3,2,1,0)",
        &[9, 1449, 86, 7],
        &[3, 2, 1, 0],
    ),
    (
        "permute (335,6,332,13) (2,1,0,3)",
        &[335, 6, 332, 13],
        &[2, 1, 0, 3],
    ),
    (
        "permute (3,90,5,12,10,50) (3,5,1,4,0,2)",
        &[3, 90, 5, 12, 10, 50],
        &[3, 5, 1, 4, 0, 2],
    ),
];

fn bench(c: &mut Criterion) {
    let mut group = c.benchmark_group("layout");
    group.sample_size(10);
    for threads in [1usize, 2] {
        ferroiter::exec::set_num_threads(threads).unwrap();
        let n = 1 << 24;
        let (src, dst) = (filled(&[n]), filled(&[n]));
        group.throughput(Throughput::Bytes((n * 8) as u64));
        group.bench_function(BenchmarkId::new("copy contiguous 16M", threads), |b| {
            b.iter(|| copy_into(&dst, &src).unwrap())
        });
        for (name, shape, perm) in CASES {
            let src = filled(shape).permute(perm).unwrap();
            let dst = src.empty_like(None, MemoryFormat::Contiguous).unwrap();
            group.throughput(Throughput::Bytes((src.numel() * 8) as u64));
            group.bench_function(BenchmarkId::new(name, threads), |b| {
                b.iter(|| copy_into(&dst, &src).unwrap())
            });
        }
    }
    group.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
