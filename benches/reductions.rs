//! `cargo bench --bench reductions`: the deterministic reductions and scans, with the bytes
//! read (and written, for scans) as the throughput so criterion reports GB/s. Compare the rows
//! with each other and with `copy contiguous 16M` of the `for_each` bench, within one run.

use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion, Throughput};
use ferroiter::kernels::reduce::{reduction, scan_op, ReduceOp};
use ferroiter::{Array, DType, MemoryFormat, Scalar};

fn filled(shape: &[usize], format: MemoryFormat) -> Array {
    Array::full(shape, Scalar::Float(1.5), DType::F32, format).unwrap()
}

fn bench(c: &mut Criterion) {
    let mut group = c.benchmark_group("reductions");
    group.sample_size(10);
    let n = 1 << 24;
    let flat = filled(&[n], MemoryFormat::Contiguous);
    let square = filled(&[4096, 4096], MemoryFormat::Contiguous);
    let cl = filled(&[32, 64, 56, 56], MemoryFormat::ChannelsLast);
    // many rows of few outputs: the outer-dim path's row groups carry the threads
    let tall = filled(&[1 << 16, 256], MemoryFormat::Contiguous);
    let bytes = |a: &Array| Throughput::Bytes((a.numel() * 4) as u64);
    for threads in [1usize, 2] {
        ferroiter::exec::set_num_threads(threads).unwrap();
        let rows: [(&str, &Array, ReduceOp, Option<&[i64]>); 10] = [
            ("sum 16M", &flat, ReduceOp::Sum, None),
            ("sum(dim=1) 4096x4096", &square, ReduceOp::Sum, Some(&[1])),
            ("sum(dim=0) 4096x4096", &square, ReduceOp::Sum, Some(&[0])),
            (
                "sum(H,W) (32,64,56,56) channels_last",
                &cl,
                ReduceOp::Sum,
                Some(&[2, 3]),
            ),
            ("amax 16M", &flat, ReduceOp::Amax, None),
            ("sum(dim=0) 65536x256", &tall, ReduceOp::Sum, Some(&[0])),
            ("argmax 16M", &flat, ReduceOp::Argmax, None),
            ("argmin 16M", &flat, ReduceOp::Argmin, None),
            ("mean 16M", &flat, ReduceOp::Mean, None),
            ("all 16M (float32)", &flat, ReduceOp::All, None),
        ];
        for (name, a, op, dims) in rows {
            group.throughput(bytes(a));
            group.bench_function(BenchmarkId::new(name, threads), |b| {
                b.iter(|| reduction(op, a, dims, false, None, None).unwrap())
            });
        }
        group.throughput(Throughput::Bytes((n * 8) as u64));
        group.bench_function(BenchmarkId::new("cumsum 16M", threads), |b| {
            b.iter(|| scan_op(false, &flat, 0, None, None).unwrap())
        });
        group.bench_function(BenchmarkId::new("cumsum(dim=0) 4096x4096", threads), |b| {
            b.iter(|| scan_op(false, &square, 0, None, None).unwrap())
        });
    }
    group.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
