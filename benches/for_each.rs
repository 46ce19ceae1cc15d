//! `cargo bench`: the executor on the layout cases that matter, with bytes moved as the
//! throughput so criterion reports GB/s. Compare rows within one run (machines are noisy):
//! `copy contiguous` is the bandwidth reference for the others.

use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion, Throughput};
use ferroiter::kernels::copy::copy_into;
use ferroiter::kernels::{binary, unary, Arg, BinaryOp, UnaryOp};
use ferroiter::{Array, DType, MemoryFormat, Scalar};

fn filled(shape: &[usize], format: MemoryFormat) -> Array {
    Array::full(shape, Scalar::Float(1.5), DType::F32, format).unwrap()
}

fn bench(c: &mut Criterion) {
    let mut group = c.benchmark_group("for_each");
    group.sample_size(10);
    for threads in [1usize, 2] {
        ferroiter::exec::set_num_threads(threads).unwrap();
        let n = 1 << 24;
        let (src, dst) = (
            filled(&[n], MemoryFormat::Contiguous),
            filled(&[n], MemoryFormat::Contiguous),
        );
        group.throughput(Throughput::Bytes((n * 8) as u64));
        group.bench_function(BenchmarkId::new("copy contiguous 16M", threads), |b| {
            b.iter(|| copy_into(&dst, &src).unwrap())
        });

        let (a, x) = (Arg::Array(src.clone()), Arg::Array(dst.clone()));
        let out = filled(&[n], MemoryFormat::Contiguous);
        group.throughput(Throughput::Bytes((n * 12) as u64));
        group.bench_function(
            BenchmarkId::new("add contiguous 16M into out", threads),
            |b| b.iter(|| binary(BinaryOp::Add, &a, &x, None, Some(out.clone())).unwrap()),
        );
        group.bench_function(
            BenchmarkId::new("add contiguous 16M allocating", threads),
            |b| b.iter(|| binary(BinaryOp::Add, &a, &x, None, None).unwrap()),
        );

        let big = filled(&[32, 64, 56, 56], MemoryFormat::Contiguous);
        let bias = Arg::Array(filled(&[64, 1, 1], MemoryFormat::Contiguous));
        let out = filled(&[32, 64, 56, 56], MemoryFormat::Contiguous);
        group.throughput(Throughput::Bytes((big.numel() * 8) as u64));
        group.bench_function(
            BenchmarkId::new("add broadcast (32,64,56,56)+(64,1,1)", threads),
            |b| {
                b.iter(|| {
                    binary(
                        BinaryOp::Add,
                        &Arg::Array(big.clone()),
                        &bias,
                        None,
                        Some(out.clone()),
                    )
                    .unwrap()
                })
            },
        );

        // The same broadcast on one image (800 KB per operand: it stays in L2), where the
        // inner loop's width and the per-row cost show rather than memory bandwidth.
        let small = filled(&[1, 64, 56, 56], MemoryFormat::Contiguous);
        let small_out = filled(&[1, 64, 56, 56], MemoryFormat::Contiguous);
        group.throughput(Throughput::Bytes((small.numel() * 8) as u64));
        group.bench_function(
            BenchmarkId::new(
                "add broadcast (1,64,56,56)+(64,1,1) cache-resident",
                threads,
            ),
            |b| {
                b.iter(|| {
                    binary(
                        BinaryOp::Add,
                        &Arg::Array(small.clone()),
                        &bias,
                        None,
                        Some(small_out.clone()),
                    )
                    .unwrap()
                })
            },
        );

        // float16: the conversion from f32 (6 bytes per element) and arithmetic computed in
        // f32 and rounded once (6 bytes per element).
        let half = |shape: &[usize]| {
            Array::full(
                shape,
                Scalar::Float(1.5),
                DType::F16,
                MemoryFormat::Contiguous,
            )
            .unwrap()
        };
        let (h, h_out) = (half(&[n]), half(&[n]));
        group.throughput(Throughput::Bytes((n * 6) as u64));
        group.bench_function(BenchmarkId::new("convert f32 -> f16 16M", threads), |b| {
            b.iter(|| copy_into(&h, &src).unwrap())
        });
        let ha = Arg::Array(h.clone());
        group.bench_function(BenchmarkId::new("add f16 16M into out", threads), |b| {
            b.iter(|| binary(BinaryOp::Add, &ha, &ha, None, Some(h_out.clone())).unwrap())
        });

        let m = filled(&[4096, 4096], MemoryFormat::Contiguous);
        let t = m.transpose(0, 1).unwrap();
        let dst = filled(&[4096, 4096], MemoryFormat::Contiguous);
        group.throughput(Throughput::Bytes((m.numel() * 8) as u64));
        group.bench_function(BenchmarkId::new("transpose copy 4096x4096", threads), |b| {
            b.iter(|| copy_into(&dst, &t).unwrap())
        });

        let nchw = filled(&[32, 64, 56, 56], MemoryFormat::Contiguous);
        let nhwc = filled(&[32, 64, 56, 56], MemoryFormat::ChannelsLast);
        group.throughput(Throughput::Bytes((nchw.numel() * 8) as u64));
        group.bench_function(BenchmarkId::new("NCHW -> NHWC copy", threads), |b| {
            b.iter(|| copy_into(&nhwc, &nchw).unwrap())
        });
    }
    // The layout cases the tiled walk is for (operands disagree about the fastest dim).
    for threads in [1usize, 2] {
        ferroiter::exec::set_num_threads(threads).unwrap();
        let nchw = filled(&[32, 64, 56, 56], MemoryFormat::Contiguous);
        let nhwc = filled(&[32, 64, 56, 56], MemoryFormat::ChannelsLast);
        group.throughput(Throughput::Bytes((nchw.numel() * 8) as u64));
        group.bench_function(BenchmarkId::new("NHWC -> NCHW copy", threads), |b| {
            b.iter(|| copy_into(&nchw, &nhwc).unwrap())
        });
        let out = filled(&[32, 64, 56, 56], MemoryFormat::ChannelsLast);
        let (cl, contiguous) = (Arg::Array(nhwc.clone()), Arg::Array(nchw.clone()));
        group.throughput(Throughput::Bytes((nchw.numel() * 12) as u64));
        group.bench_function(
            BenchmarkId::new("add channels_last + contiguous into out", threads),
            |b| {
                b.iter(|| binary(BinaryOp::Add, &cl, &contiguous, None, Some(out.clone())).unwrap())
            },
        );

        let m = filled(&[4096, 4096], MemoryFormat::Contiguous);
        let dst = filled(&[4096, 4096], MemoryFormat::Contiguous);
        group.throughput(Throughput::Bytes((m.numel() * 8) as u64));
        group.bench_function(
            BenchmarkId::new("neg of transposed 4096x4096 into contiguous out", threads),
            |b| {
                b.iter(|| {
                    unary(UnaryOp::Neg, &m.transpose(0, 1).unwrap(), Some(dst.clone())).unwrap()
                })
            },
        );
        let t3 = filled(&[256, 256, 256], MemoryFormat::Contiguous);
        let src3 = t3.permute(&[2, 1, 0]).unwrap();
        let dst3 = filled(&[256, 256, 256], MemoryFormat::Contiguous);
        group.throughput(Throughput::Bytes((t3.numel() * 8) as u64));
        group.bench_function(
            BenchmarkId::new("permute (2,1,0) copy 256^3", threads),
            |b| b.iter(|| copy_into(&dst3, &src3).unwrap()),
        );
    }
    group.finish();
}

/// The vector math kernels, float32 and float64, 16M elements into an `out=`, at 1 and 2
/// threads: compute-bound rows (compare with `python -m ferroiter bench`'s torch column).
fn bench_vecmath(c: &mut Criterion) {
    let mut group = c.benchmark_group("vecmath");
    group.sample_size(10);
    let n = 1 << 24;
    let ops = [
        UnaryOp::Exp,
        UnaryOp::Expm1,
        UnaryOp::Log,
        UnaryOp::Log1p,
        UnaryOp::Sin,
        UnaryOp::Cos,
        UnaryOp::Tanh,
        UnaryOp::Sigmoid,
    ];
    for threads in [1usize, 2] {
        ferroiter::exec::set_num_threads(threads).unwrap();
        for dtype in [DType::F32, DType::F64] {
            let x =
                Array::full(&[n], Scalar::Float(0.75), dtype, MemoryFormat::Contiguous).unwrap();
            let out = x.empty_like(None, MemoryFormat::Contiguous).unwrap();
            group.throughput(Throughput::Elements(n as u64));
            for op in ops {
                let id = format!("{} {:?} 16M into out", op.name(), dtype);
                group.bench_function(BenchmarkId::new(id, threads), |b| {
                    b.iter(|| unary(op, &x, Some(out.clone())).unwrap())
                });
            }
        }
    }
    group.finish();
}

criterion_group!(benches, bench, bench_vecmath);
criterion_main!(benches);
