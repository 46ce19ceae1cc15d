//! The typed inner loops over a [`Block`]: `out = f(inputs)` with torch's paths — all
//! contiguous, one input a broadcast scalar, or strided — picked by [`InnerLoop::of`], the
//! same predicate `explain()` prints. Raw memory: see the invariants in [`super`].
//!
//! Every row (contiguous, broadcast scalar, strided) runs in a copy of its loop compiled for
//! AVX2 when the CPU has it ([`Isa::avx2`]: the build itself targets baseline x86-64), and float16
//! arithmetic converts eight lanes at a time with F16C. Both give bit-identical results to the
//! baseline loops.

use super::isa::{in_copy, Isa};
#[cfg(target_arch = "x86_64")]
use super::wide;
use super::{get, prefetch_line, put, stream, Block};
use crate::exec::InnerLoop;
use std::mem::size_of;

/// `o[k] = g(start + k)` for `k < n`: every contiguous or broadcast-scalar path below is one
/// of these, with `g` reading the inputs at its index (or a value read once). This is the loop
/// LLVM vectorizes. (`start` lets a streamed row compute its pieces into scratch with the same
/// compiled loop: see [`out_row`].)
///
/// `g` is a `move` closure holding the row's pointers and a clone of the kernel: were they
/// captured by reference, LLVM would have to assume every store through `o` may change them,
/// reload them per element and give up on vectorizing (hence the `Clone` bound on kernels).
///
/// # Safety
/// `o` must address `n` writable, aligned `O`s, and `g(start + k)` must be sound for every
/// `k < n`.
#[inline(always)]
unsafe fn row<O>(o: *mut O, start: usize, n: usize, g: impl Fn(usize) -> O) {
    for k in 0..n {
        // SAFETY: guaranteed by the caller.
        unsafe { o.add(k).write(g(start + k)) };
    }
}

/// `o[i] = g(i)` for `i < n`, an output row of a block, inside the block's ISA copy (see
/// [`map1`]): [`row`], with its whole lines
/// streamed when the block says so (its `stream_out`, see [`stream::staged_rows`]) and
/// the row is at least [`crate::exec::stores::MIN_STREAMED_ROW`] bytes, or in blocks when
/// `in_place` ([`in_place_row`]). The values are the same either way.
///
/// # Safety
/// As for [`row`] with `start` 0.
#[inline(always)]
unsafe fn out_row<O, G: Fn(usize) -> O + Clone>(
    stream: bool,
    in_place: bool,
    isa: Isa,
    o: *mut O,
    n: usize,
    g: G,
) {
    if stream::streams_row::<O>(stream, n) {
        // SAFETY: `fill` writes elements `start..start + count` of `g` at `dst`, which is
        // what `staged_rows` asks; the caller's guarantees cover `g` for every index `< n`.
        unsafe {
            stream::staged_rows(isa, o, n, |dst, start, count| {
                row(dst, start, count, g.clone())
            })
        }
    } else if in_place {
        // SAFETY: guaranteed by the caller.
        unsafe { in_place_row(o, n, g) }
    } else {
        // SAFETY: guaranteed by the caller.
        unsafe { row(o, 0, n, g) }
    }
}

/// Bytes of a block of [`in_place_row`]: one AVX-512 vector, two AVX2 ones.
const IN_PLACE_BLOCK: usize = 64;

/// A block of [`IN_PLACE_BLOCK`] bytes, aligned for every element type.
#[repr(C, align(64))]
struct Stage([u8; IN_PLACE_BLOCK]);

/// [`row`] for a row whose output is also one of its inputs, element for element (an
/// in-place op such as `x += y`): LLVM guards its vectorized loop with a test that the output
/// does not overlap an input, which an exact alias fails, so such rows ran the scalar loop.
/// Here each block of [`IN_PLACE_BLOCK`] bytes is computed into a local (registers, once
/// optimized) before it is stored, so its loads come before its stores, as in the
/// element-by-element loop, and no overlap test is needed. (1 thread, `x += row` over (83886,
/// 50) float32 in a harness: 1.47 ms -> 0.70, where 1 KiB staged through memory gave 1.10;
/// on the bench 2.7-3.0x, 16K-element `x += y` 2.2-2.5x. Rows out of place keep LLVM's loop:
/// there the blocks lost up to 2.5x on long rows in the AVX-512 copy.)
///
/// # Safety
/// As for [`row`] with `start` 0.
#[inline(always)]
unsafe fn in_place_row<O>(o: *mut O, n: usize, g: impl Fn(usize) -> O) {
    if size_of::<O>() > IN_PLACE_BLOCK {
        // SAFETY: guaranteed by the caller.
        return unsafe { row(o, 0, n, g) };
    }
    let per = IN_PLACE_BLOCK / size_of::<O>().max(1);
    let mut stage = std::mem::MaybeUninit::<Stage>::uninit();
    let scratch = stage.as_mut_ptr() as *mut O;
    let mut k = 0;
    while k + per <= n {
        for i in 0..per {
            // SAFETY: the local block holds `per` `O`s (an element is at most its size,
            // checked above), aligned (its alignment, 64, is a multiple of any element's);
            // `g` is sound for `k + i < n` (the caller's guarantee).
            unsafe { scratch.add(i).write(g(k + i)) };
        }
        for i in 0..per {
            // SAFETY: `o[k + i]` lies inside the caller's row; the block's element `i` was
            // written just above.
            unsafe { o.add(k + i).write(scratch.add(i).read()) };
        }
        k += per;
    }
    for k in k..n {
        // SAFETY: guaranteed by the caller.
        unsafe { o.add(k).write(g(k)) };
    }
}

/// Whether an output row starting at `po` of `out_width`-byte elements is one of `inputs`
/// (row starts and element sizes) element for element: see [`in_place_row`].
#[inline(always)]
fn in_place(po: *mut u8, out_width: usize, inputs: &[(*const u8, usize)]) -> bool {
    inputs
        .iter()
        .any(|&(p, width)| std::ptr::eq(p, po) && width == out_width)
}

/// `out = f(a)` over a block (operands: out, a). Contiguous rows take a loop the compiler
/// vectorizes; a broadcast input is read once per row (in the strided loop too).
///
/// The whole block runs in one ISA copy ([`Isa::avx2`]): AVX2 (8 f32 lanes instead of SSE2's 4;
/// integer shifts by a vector, so the float16 conversions vectorize) where the CPU has it.
/// FMA and F16C only change the instructions of what the code asks for explicitly (`mul_add`
/// is fused either way, and Rust never fuses `a * b + c` on its own), so results are the same
/// as the baseline copy's. One call into the copy per block, not per row: rows of a few
/// elements paid for the call each (a (400, 4) float64 array minus a row into `out`: 5.4 us
/// -> 4.2, torch 2.7; docs/performance-notes.md).
pub(crate) fn map1<A: Copy, O: Copy>(blk: &Block, f: impl Fn(A) -> O + Clone) {
    let isa = Isa::avx2();
    in_copy!(isa, map1_rows(isa, blk, f))
}

/// [`map1`]'s rows, in the copy `isa`.
#[inline(always)]
fn map1_rows<A: Copy, O: Copy>(isa: Isa, blk: &Block, f: impl Fn(A) -> O + Clone) {
    let (so, sa) = (blk.strides0[0], blk.strides0[1]);
    let path = InnerLoop::of(blk.strides0, &[size_of::<O>(), size_of::<A>()], 1);
    let stream = blk.stream_out;
    let row_bytes = blk.size0 * size_of::<A>();
    let ahead = match path {
        InnerLoop::Vectorized => rows_ahead(row_bytes, blk.strides1[1], blk.size1),
        _ => None,
    };
    for j in 0..blk.size1 {
        prefetch_row_ahead(blk, 1, ahead, j, row_bytes);
        let (po, pa) = (blk.row(0, j), blk.row(1, j) as *const u8);
        let own = in_place(po, size_of::<O>(), &[(pa, size_of::<A>())]);
        // SAFETY: module invariants; every index is `< size0`.
        unsafe {
            let (o, a) = (po as *mut O, pa as *const A);
            match path {
                InnerLoop::Vectorized => {
                    let f = f.clone();
                    out_row(stream, own, isa, o, blk.size0, move |i| f(a.add(i).read()));
                }
                InnerLoop::ScalarBroadcast(_) => {
                    let v = f(a.read());
                    out_row(stream, false, isa, o, blk.size0, move |_| v);
                }
                InnerLoop::Strided if sa == 0 => {
                    let v = f(a.read());
                    for i in 0..blk.size0 {
                        put(po, i, so, v);
                    }
                }
                InnerLoop::Strided => {
                    for i in 0..blk.size0 {
                        put(po, i, so, f(get::<A>(pa, i, sa)));
                    }
                }
            }
        }
    }
    stream::fence_if(stream);
}

/// Longest input row (bytes) that [`map1`] and [`map2`] prefetch ahead: on longer rows the
/// hardware prefetchers lock on in time (rows of 6400 bytes gained nothing, 3200 at most 6%).
const PREFETCHED_ROW_MAX: usize = 2048;

/// How far ahead (bytes) [`map1`] and [`map2`] ask for their inputs' rows ([`rows_ahead`]).
const PREFETCH_ROWS_BYTES: usize = 2048;

/// Rows ahead that [`map1`], [`map2`] and the streamed copy prefetch of an input whose block
/// has `rows` short contiguous rows (`row_bytes` each, `row_gap` apart) that do not follow
/// each other in memory, such as a permuting copy that keeps the last dim: each row starts in
/// another page, a run shorter than the hardware prefetchers take to lock on, so every row
/// began with a wait on memory. About 2 KiB ahead, at least 2 rows. 2-core Zen 3, 8M float32
/// `.contiguous()`, the same process alternating builds, 1 / 2 threads: (46, 111, 24, 66) by
/// (1, 2, 0, 3) (264-byte rows) 1.56-1.59x / 1.31-1.34x, (300, 300, 90) by (1, 0, 2) (360)
/// 1.69-1.88x / 1.32-1.54x, (46, 111, 16, 130) (520) 1.30-1.45x / 1.11-1.15x, (46, 111, 4,
/// 397) (1588) 1.03-1.10x / 1.03-1.24x, the attention heads' (8, 512, 16, 128) by (0, 2, 1,
/// 3) 1.26-1.28x / 1.14x. A contiguous array plus such a view, `out=`: (300, 300, 90) 1.62x /
/// 1.18x, (46, 111, 16, 130) 1.32x / 1.22x, (8, 512, 16, 128) 1.23x / 0.95x. (A tiled walk's
/// unpacked operands may take it too, beside the tile prefetch.) A broadcast row (gap 0) is the
/// same row each time, already in L1: no prefetch.
pub(crate) fn rows_ahead(row_bytes: usize, row_gap: isize, rows: usize) -> Option<usize> {
    let far = row_gap != 0 && row_gap.unsigned_abs() != row_bytes;
    (far && rows > 1 && (1..=PREFETCHED_ROW_MAX).contains(&row_bytes))
        .then(|| PREFETCH_ROWS_BYTES.div_ceil(row_bytes).max(2))
}

/// With `ahead` ([`rows_ahead`]), asks for each line of operand `k`'s row `j + ahead` of the
/// block (`row_bytes` long), if there is one (hints: they never fault).
#[inline(always)]
pub(super) fn prefetch_row_ahead(
    blk: &Block,
    k: usize,
    ahead: Option<usize>,
    j: usize,
    row_bytes: usize,
) {
    let Some(ahead) = ahead.filter(|&d| j + d < blk.size1) else {
        return;
    };
    let p = blk.row(k, j + ahead);
    let head = p as usize % 64;
    let start = p.wrapping_sub(head);
    for line in 0..(head + row_bytes).div_ceil(64) {
        prefetch_line(start.wrapping_add(64 * line));
    }
}

/// `out = f(a, b)` over a block (operands: out, a, b), with torch's three paths: all
/// contiguous, one input a broadcast scalar (stride 0) with the rest contiguous, or strided;
/// in one ISA copy per block, as [`map1`].
pub(crate) fn map2<A: Copy, B: Copy, O: Copy>(blk: &Block, f: impl Fn(A, B) -> O + Clone) {
    let isa = Isa::avx2();
    in_copy!(isa, map2_rows(isa, blk, f))
}

/// [`map2`]'s rows, in the copy `isa`.
#[inline(always)]
fn map2_rows<A: Copy, B: Copy, O: Copy>(isa: Isa, blk: &Block, f: impl Fn(A, B) -> O + Clone) {
    let (so, sa, sb) = (blk.strides0[0], blk.strides0[1], blk.strides0[2]);
    let sizes = [size_of::<O>(), size_of::<A>(), size_of::<B>()];
    let path = InnerLoop::of(blk.strides0, &sizes, 1);
    let (n, stream) = (blk.size0, blk.stream_out);
    let ahead = |k: usize| match path {
        InnerLoop::Vectorized => rows_ahead(n * sizes[k], blk.strides1[k], blk.size1),
        _ => None,
    };
    if let Some(repeat) = repeated_input(blk, &sizes, path) {
        // SAFETY: `repeated_input` found the block's rows as `map2_repeated_rows` asks.
        return unsafe { map2_repeated_rows(isa, blk, f, repeat) };
    }
    let (ahead_a, ahead_b) = (ahead(1), ahead(2));
    for j in 0..blk.size1 {
        prefetch_row_ahead(blk, 1, ahead_a, j, n * sizes[1]);
        prefetch_row_ahead(blk, 2, ahead_b, j, n * sizes[2]);
        let (po, pa, pb) = (
            blk.row(0, j),
            blk.row(1, j) as *const u8,
            blk.row(2, j) as *const u8,
        );
        let own = in_place(po, sizes[0], &[(pa, sizes[1]), (pb, sizes[2])]);
        // SAFETY: module invariants; every index is `< size0`.
        unsafe {
            let (o, a, b) = (po as *mut O, pa as *const A, pb as *const B);
            match path {
                InnerLoop::Vectorized => {
                    let f = f.clone();
                    out_row(stream, own, isa, o, n, move |i| {
                        f(a.add(i).read(), b.add(i).read())
                    });
                }
                InnerLoop::ScalarBroadcast(1) => {
                    let av = a.read();
                    let f = f.clone();
                    out_row(stream, own, isa, o, n, move |i| f(av, b.add(i).read()));
                }
                InnerLoop::ScalarBroadcast(_) => {
                    let bv = b.read();
                    let f = f.clone();
                    out_row(stream, own, isa, o, n, move |i| f(a.add(i).read(), bv));
                }
                InnerLoop::Strided => {
                    for i in 0..n {
                        put(po, i, so, f(get::<A>(pa, i, sa), get::<B>(pb, i, sb)));
                    }
                }
            }
        }
    }
    stream::fence_if(stream);
}

/// Longest rows (bytes) that [`map2_repeated_rows`] runs several at a time: rows of a few
/// elements paid more for their call than for their elements (`X - row` of (1M, 3) float32:
/// 4.5 ns a row, 0.41x torch, one row per call; `X / column` 0.58x).
const REPEATED_ROW_BYTES: usize = 256;

/// Bytes of the scratch that holds an input's rows for [`map2_repeated_rows`] (at least 8
/// rows of [`REPEATED_ROW_BYTES`]).
const REPEATED_ROWS_SCRATCH: usize = 2048;

/// [`REPEATED_ROWS_SCRATCH`] bytes, aligned for every element type.
#[repr(C, align(64))]
struct RowsScratch([std::mem::MaybeUninit<u8>; REPEATED_ROWS_SCRATCH]);

/// An input of a block whose short rows [`map2_repeated_rows`] spells out in a scratch.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Repeated {
    /// Input `k` is one contiguous row for every row (stride 0 between rows): `X - row`.
    Row(usize),
    /// Input `k` is one value per row (stride 0 along the row): `X / column`.
    Scalar(usize),
}

/// The input of a block that is the same short row for every row, or one value per row, while
/// the output's and the other input's rows are contiguous and follow one another in memory
/// (`X - row`, `X / column` of a contiguous `X`; rows of at most [`REPEATED_ROW_BYTES`]).
/// `None`: not such a block, or one whose output meets the repeated input or (other than
/// element for element, in place) the other input: there torch's row-by-row order decides
/// what each row reads (`X -= X[0].expand(...)` reads row 0 as row 0 left it), which a scratch
/// filled ahead or a long row read ahead would not.
fn repeated_input(blk: &Block, sizes: &[usize; 3], path: InnerLoop) -> Option<Repeated> {
    let n = blk.size0;
    let follow = |k: usize| blk.strides1[k] == (n * sizes[k]) as isize;
    let (repeat, k) = match path {
        InnerLoop::Vectorized => match (blk.strides1[1], blk.strides1[2]) {
            (0, s) if s != 0 => (Repeated::Row(1), 1),
            (s, 0) if s != 0 => (Repeated::Row(2), 2),
            _ => return None,
        },
        InnerLoop::ScalarBroadcast(k) if blk.strides1[k] != 0 => (Repeated::Scalar(k), k),
        _ => return None,
    };
    let short = n > 0 && n * sizes[k] <= REPEATED_ROW_BYTES;
    if !(blk.size1 > 1 && short && follow(0) && follow(3 - k)) {
        return None;
    }
    // byte spans from row 0 to the last row, `bytes` from each row's start: the output's and
    // the other input's rows (one after another), the repeated row, the column of values
    let span = |k: usize, bytes: usize| {
        let (first, last) = (blk.row(k, 0) as usize, blk.row(k, blk.size1 - 1) as usize);
        (first.min(last), first.max(last) + bytes)
    };
    let meet = |(a0, a1): (usize, usize), (b0, b1): (usize, usize)| a0 < b1 && b0 < a1;
    let other = 3 - k;
    let out = span(0, n * sizes[0]);
    let repeated = match repeat {
        Repeated::Row(_) => span(k, n * sizes[k]),
        Repeated::Scalar(_) => span(k, sizes[k]),
    };
    let in_place = blk.row(other, 0) == blk.row(0, 0) && sizes[other] == sizes[0];
    let apart = !meet(out, repeated) && (in_place || !meet(out, span(other, n * sizes[other])));
    apart.then_some(repeat)
}

/// Writes `rows` rows of `n` elements of `T` at `dst`, row `r` being `n` copies of the value
/// at `src + r·step`: a column's values spread along their rows.
///
/// # Safety
/// `dst` must address `rows · n` writable, aligned `T`s; `src + r·step` a readable, aligned
/// `T` for every `r < rows`.
#[inline(always)]
unsafe fn spread_values<T: Copy>(dst: *mut u8, src: *const u8, step: isize, rows: usize, n: usize) {
    let dst = dst as *mut T;
    for r in 0..rows {
        // SAFETY: guaranteed by the caller.
        let v = unsafe { (src.wrapping_offset(r as isize * step) as *const T).read() };
        for i in 0..n {
            // SAFETY: `r · n + i < rows · n`, guaranteed writable by the caller.
            unsafe { dst.add(r * n + i).write(v) };
        }
    }
}

/// [`map2`]'s contiguous or broadcast-scalar path on a block [`repeated_input`] chose: the
/// repeated input's rows are spelled out in a scratch (the one row copied several times, or
/// each row's value repeated along it), and each group of as many rows runs as one long row
/// of the output and the other input against the scratch — the same elements and values, one
/// call per group instead of one per row.
///
/// # Safety
/// `repeated_input` returned `Some(repeat)` for the block, the sizes of `O`, `A` and `B` and
/// its inner-loop path (the module invariants hold for the block).
#[inline(always)]
unsafe fn map2_repeated_rows<A: Copy, B: Copy, O: Copy>(
    isa: Isa,
    blk: &Block,
    f: impl Fn(A, B) -> O + Clone,
    repeat: Repeated,
) {
    let n = blk.size0;
    let k = match repeat {
        Repeated::Row(k) | Repeated::Scalar(k) => k,
    };
    let other = 3 - k;
    let (width, width_other) = match k {
        1 => (size_of::<A>(), size_of::<B>()),
        _ => (size_of::<B>(), size_of::<A>()),
    };
    let per_group = REPEATED_ROWS_SCRATCH / (n * width);
    let mut scratch = std::mem::MaybeUninit::<RowsScratch>::uninit();
    let spelled = scratch.as_mut_ptr() as *mut u8;
    // Fills the scratch with rows `j..j + rows` of input `k`.
    let spell = |j: usize, rows: usize| {
        let src = blk.row(k, j) as *const u8;
        // SAFETY: the scratch holds `per_group · n` elements of input `k`'s type (`width`
        // bytes; 64-byte aligned) and `rows <= per_group`. A row: `n` contiguous elements at
        // row 0 of the block, copied `rows` times (`Vectorized`: contiguous along dim 0); a
        // scalar: row `j + r`'s element 0 (`r < rows`), inside the block.
        unsafe {
            match (repeat, k) {
                (Repeated::Row(_), _) => {
                    for r in 0..rows {
                        std::ptr::copy_nonoverlapping(src, spelled.add(r * n * width), n * width);
                    }
                }
                (Repeated::Scalar(_), 1) => {
                    spread_values::<A>(spelled, src, blk.strides1[k], rows, n)
                }
                (Repeated::Scalar(_), _) => {
                    spread_values::<B>(spelled, src, blk.strides1[k], rows, n)
                }
            }
        }
    };
    if let Repeated::Row(_) = repeat {
        spell(0, per_group.min(blk.size1));
    }
    let mut j = 0;
    while j < blk.size1 {
        let rows = per_group.min(blk.size1 - j);
        if let Repeated::Scalar(_) = repeat {
            spell(j, rows);
        }
        let m = rows * n;
        let (po, p) = (blk.row(0, j), blk.row(other, j) as *const u8);
        let own = in_place(po, size_of::<O>(), &[(p, width_other)]);
        let f = f.clone();
        // SAFETY: rows `j..j + rows` of the output and of input `other` follow one another
        // (`repeated_input`), so element `i < m` of the long row is element `i % n` of row
        // `j + i / n`, inside the block; the scratch holds input `k`'s `m` elements of those
        // rows, aligned (64, and offsets that are multiples of the width).
        unsafe {
            if k == 1 {
                let (a, b) = (spelled as *const A, p as *const B);
                out_row(blk.stream_out, own, isa, po as *mut O, m, move |i| {
                    f(a.add(i).read(), b.add(i).read())
                });
            } else {
                let (a, b) = (p as *const A, spelled as *const B);
                out_row(blk.stream_out, own, isa, po as *mut O, m, move |i| {
                    f(a.add(i).read(), b.add(i).read())
                });
            }
        }
        j += rows;
    }
    stream::fence_if(blk.stream_out);
}

/// `out = f(a, b, c)` over a block (operands: out, a, b, c), with the same three paths as
/// [`map2`], in one ISA copy per block.
pub(crate) fn map3<A: Copy, B: Copy, C: Copy, O: Copy>(
    blk: &Block,
    f: impl Fn(A, B, C) -> O + Clone,
) {
    let isa = Isa::avx2();
    in_copy!(isa, map3_rows(isa, blk, f))
}

/// [`map3`]'s rows, in the copy `isa`.
#[inline(always)]
fn map3_rows<A: Copy, B: Copy, C: Copy, O: Copy>(
    isa: Isa,
    blk: &Block,
    f: impl Fn(A, B, C) -> O + Clone,
) {
    let s = blk.strides0;
    let sizes = [
        size_of::<O>(),
        size_of::<A>(),
        size_of::<B>(),
        size_of::<C>(),
    ];
    let path = InnerLoop::of(s, &sizes, 1);
    let (n, stream) = (blk.size0, blk.stream_out);
    for j in 0..blk.size1 {
        let (po, pa, pb, pc) = (
            blk.row(0, j),
            blk.row(1, j) as *const u8,
            blk.row(2, j) as *const u8,
            blk.row(3, j) as *const u8,
        );
        let own = in_place(
            po,
            sizes[0],
            &[(pa, sizes[1]), (pb, sizes[2]), (pc, sizes[3])],
        );
        // SAFETY: module invariants; every index is `< size0`.
        unsafe {
            let (o, a, b, c) = (po as *mut O, pa as *const A, pb as *const B, pc as *const C);
            match path {
                InnerLoop::Vectorized => {
                    let f = f.clone();
                    out_row(stream, own, isa, o, n, move |i| {
                        f(a.add(i).read(), b.add(i).read(), c.add(i).read())
                    });
                }
                InnerLoop::ScalarBroadcast(1) => {
                    let (av, f) = (a.read(), f.clone());
                    out_row(stream, own, isa, o, n, move |i| {
                        f(av, b.add(i).read(), c.add(i).read())
                    });
                }
                InnerLoop::ScalarBroadcast(2) => {
                    let (bv, f) = (b.read(), f.clone());
                    out_row(stream, own, isa, o, n, move |i| {
                        f(a.add(i).read(), bv, c.add(i).read())
                    });
                }
                InnerLoop::ScalarBroadcast(_) => {
                    let (cv, f) = (c.read(), f.clone());
                    out_row(stream, own, isa, o, n, move |i| {
                        f(a.add(i).read(), b.add(i).read(), cv)
                    });
                }
                InnerLoop::Strided => {
                    for i in 0..n {
                        let (x, y, z) = (
                            get::<A>(pa, i, s[1]),
                            get::<B>(pb, i, s[2]),
                            get::<C>(pc, i, s[3]),
                        );
                        put(po, i, s[0], f(x, y, z));
                    }
                }
            }
        }
    }
    stream::fence_if(stream);
}

/// `out = down(op(up(a), up(b)))` over a block: a kernel that computes in a wider type `W`
/// than its element type `T` (float16 and bfloat16 compute in f32), given in three parts so
/// that float16 rows can convert eight lanes per instruction with F16C (torch does the same);
/// other types, and CPUs without AVX2/F16C, run [`map2`] on the composition.
pub(crate) fn map2_widened<T: Copy + 'static, W: Copy + 'static>(
    blk: &Block,
    up: impl Fn(T) -> W + Clone,
    down: impl Fn(W) -> T + Clone,
    op: impl Fn(W, W) -> W + Clone,
) {
    #[cfg(target_arch = "x86_64")]
    if std::any::TypeId::of::<(T, W)>() == std::any::TypeId::of::<(half::f16, f32)>() && wide() {
        let f = op.clone();
        // `W` is f32 (checked above): the transmutes are identities.
        let op32 = move |x: f32, y: f32| -> f32 {
            // SAFETY: `W` and f32 are the same type.
            unsafe {
                std::mem::transmute_copy(&f(
                    std::mem::transmute_copy(&x),
                    std::mem::transmute_copy(&y),
                ))
            }
        };
        if map2_f16(blk, &op32) {
            return;
        }
    }
    map2(blk, move |x: T, y: T| down(op(up(x), up(y))))
}

/// [`map2_widened`] for float16 with F16C, on the blocks [`map2`] runs vectorized (all
/// contiguous, or one input a broadcast scalar); `false` (nothing done) for any other block.
#[cfg(target_arch = "x86_64")]
fn map2_f16(blk: &Block, op: &impl Fn(f32, f32) -> f32) -> bool {
    // Steps of the inputs in elements: 1 contiguous, 0 a broadcast scalar.
    let (step_a, step_b) = match InnerLoop::of(blk.strides0, &[size_of::<u16>(); 3], 1) {
        InnerLoop::Vectorized => (1, 1),
        InnerLoop::ScalarBroadcast(1) => (0, 1),
        InnerLoop::ScalarBroadcast(_) => (1, 0),
        InnerLoop::Strided => return false,
    };
    for j in 0..blk.size1 {
        let (o, a, b) = (blk.row(0, j), blk.row(1, j), blk.row(2, j));
        // SAFETY: module invariants (every index is `< size0`, times the step), and `wide()`
        // was checked by the caller.
        unsafe {
            row_f16_avx2(
                o as *mut u16,
                (a as *const u16, step_a),
                (b as *const u16, step_b),
                blk.size0,
                op,
            )
        };
    }
    true
}

/// One float16 row, eight lanes per step: `o[i] = f16(op(f32(a[i·sa]), f32(b[i·sb])))` with
/// the steps `sa`, `sb` 1 (contiguous) or 0 (a broadcast scalar). The last partial step goes
/// through a zero-padded buffer. F16C converts exactly as the scalar conversions do (round to
/// nearest even, NaN quieted with sign and payload kept).
///
/// # Safety
/// `o` must address `n` writable `u16`s, each input `n` readable ones at its step (one for
/// step 0), and the CPU must have AVX2, FMA and F16C. Inputs may alias the output exactly.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2,fma,f16c")]
unsafe fn row_f16_avx2(
    o: *mut u16,
    (a, sa): (*const u16, usize),
    (b, sb): (*const u16, usize),
    n: usize,
    op: &impl Fn(f32, f32) -> f32,
) {
    use std::arch::x86_64::*;
    if n == 0 {
        return;
    }
    // A broadcast input is read once per row, as in `map2`.
    // SAFETY: `n > 0`, so index 0 is in bounds; the CPU has F16C (the caller's guarantee).
    let scalar = |p: *const u16| unsafe { _mm256_cvtph_ps(_mm_set1_epi16(p.read() as i16)) };
    let (ba, bb) = (scalar(a), scalar(b));
    // SAFETY: indices `i..i + len` are in bounds (the caller's guarantee); `buf` is local.
    let load = |p: *const u16, step: usize, broadcast: __m256, i: usize, len: usize| unsafe {
        if step == 0 {
            broadcast
        } else if len == 8 {
            _mm256_cvtph_ps(_mm_loadu_si128(p.add(i) as *const __m128i))
        } else {
            let mut buf = [0u16; 8];
            std::ptr::copy_nonoverlapping(p.add(i), buf.as_mut_ptr(), len);
            _mm256_cvtph_ps(_mm_loadu_si128(buf.as_ptr() as *const __m128i))
        }
    };
    let mut i = 0;
    while i < n {
        let len = (n - i).min(8);
        let (mut x, mut y) = ([0f32; 8], [0f32; 8]);
        // SAFETY: `x` and `y` hold eight f32s; `load` as above.
        unsafe {
            _mm256_storeu_ps(x.as_mut_ptr(), load(a, sa, ba, i, len));
            _mm256_storeu_ps(y.as_mut_ptr(), load(b, sb, bb, i, len));
        }
        let r: [f32; 8] = std::array::from_fn(|k| op(x[k], y[k]));
        // SAFETY: `o + i .. o + i + len` is in bounds (the caller's guarantee); `buf` is local.
        unsafe {
            let h = _mm256_cvtps_ph::<_MM_FROUND_TO_NEAREST_INT>(_mm256_loadu_ps(r.as_ptr()));
            if len == 8 {
                _mm_storeu_si128(o.add(i) as *mut __m128i, h);
            } else {
                let mut buf = [0u16; 8];
                _mm_storeu_si128(buf.as_mut_ptr() as *mut __m128i, h);
                std::ptr::copy_nonoverlapping(buf.as_ptr(), o.add(i), len);
            }
        }
        i += len;
    }
}

/// Copies `size0 × size1` elements of `width` bytes each between two operands (out, src)
/// without interpreting them, as unsigned integers of that width through [`map1`] (whose
/// contiguous rows the compiler vectorizes). (A C-library `memcpy` per row instead was no
/// faster on the 1588-byte rows of (46, 111, 4, 397) by (1, 2, 0, 3) on a 2-core Zen 3:
/// 13.2-17.0 GB/s against 12.5-16.5, alternating builds.)
pub(crate) fn copy_bytes(blk: &Block, width: usize) {
    match width {
        1 => map1::<u8, u8>(blk, |x| x),
        2 => map1::<u16, u16>(blk, |x| x),
        4 => map1::<u32, u32>(blk, |x| x),
        8 => map1::<u64, u64>(blk, |x| x),
        _ => map1::<u128, u128>(blk, |x| x),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::exec::stores::MIN_STREAMED_ROW;
    use crate::kernels::element::{f16_from_f32, f16_to_f32};
    use half::f16;

    /// Runs `map2_widened` on float16 rows (`b` broadcast when `sb` is 0) and checks every
    /// element against the scalar composition, bit for bit.
    fn check(a: &[u16], b: &[u16], sb: isize, op: fn(f32, f32) -> f32) {
        let n = a.len();
        let mut out = vec![0u16; n];
        let ptrs = [
            out.as_mut_ptr() as *mut u8,
            a.as_ptr() as *mut u8,
            b.as_ptr() as *mut u8,
        ];
        let (strides0, strides1) = ([2, 2, sb], [0; 3]);
        // SAFETY: one row of `n` u16s per operand, `b` broadcast (one element) when `sb` is 0;
        // the output is a local buffer of `n`.
        let blk = unsafe { Block::new(&ptrs, &strides0, &strides1, n, 1) };
        map2_widened(&blk, f16_to_f32, f16_from_f32, op);
        for i in 0..n {
            let y = b[if sb == 0 { 0 } else { i }];
            let (x, y) = (f16::from_bits(a[i]), f16::from_bits(y));
            let want = f16_from_f32(op(f16_to_f32(x), f16_to_f32(y)));
            assert_eq!(out[i], want.to_bits(), "{x:?} op {y:?}");
        }
    }

    #[test]
    fn float16_rows_match_the_scalar_path() {
        // every pattern against a scrambled partner, with a partial last step (n % 8 = 3)
        let a: Vec<u16> = (0..65539u32).map(|i| i as u16).collect();
        let b: Vec<u16> = (0..65539u32).map(|i| (i * 7919 + 13) as u16).collect();
        for op in [
            |x: f32, y: f32| x + y,
            |x, y| x - y,
            |x, y| x * y,
            |x, y| x / y,
            |x: f32, y: f32| y.mul_add(0.1, x),
        ] {
            check(&a, &b, 2, op);
            check(&a, &[0x3C01], 0, op);
            check(&a[..5], &b[..5], 2, op);
        }
    }

    /// `x ⊙ row`, `row ⊙ x`, `x ⊙ column` and `column ⊙ x` of `rows` contiguous rows of `n`
    /// elements against one broadcast row (or one value per row), into a separate output and in
    /// place, through `map2`: short rows take the repeated-rows path ([`repeated_input`]),
    /// long ones the row loop; every element is `f` of its two operands, and nothing past the
    /// rows is written.
    fn check_repeated<T: Copy + PartialEq + std::fmt::Debug>(
        n: usize,
        rows: usize,
        value: fn(usize) -> T,
        f: fn(T, T) -> T,
    ) {
        let w = size_of::<T>() as isize;
        let x: Vec<T> = (0..n * rows).map(value).collect();
        let row: Vec<T> = (0..n).map(|i| value(7 * i + 3)).collect();
        let column: Vec<T> = (0..rows).map(|i| value(5 * i + 1)).collect();
        let guard = value(usize::MAX / 5);
        for (k, per_row, in_place) in [
            (1, false, false),
            (2, false, false),
            (2, false, true),
            (1, true, false),
            (2, true, false),
            (2, true, true),
        ] {
            let mut out = vec![guard; n * rows + 1];
            let mut xs = x.clone();
            let o = if in_place {
                xs.as_mut_ptr()
            } else {
                out.as_mut_ptr()
            };
            let px = xs.as_mut_ptr() as *mut u8;
            let pr = if per_row {
                column.as_ptr()
            } else {
                row.as_ptr()
            } as *mut u8;
            let ptrs = if k == 1 {
                [o as *mut u8, pr, px]
            } else {
                [o as *mut u8, px, pr]
            };
            let (mut strides0, mut strides1) = ([w; 3], [n as isize * w; 3]);
            if per_row {
                (strides0[k], strides1[k]) = (0, w);
            } else {
                strides1[k] = 0;
            }
            // SAFETY: `rows` rows of `n` contiguous elements in the output (or `xs`, in place)
            // and `xs`; one row of `n` in `row`, read at every row (stride 0), or one value
            // per row in `column`.
            let blk = unsafe { Block::new(&ptrs, &strides0, &strides1, n, rows) };
            let path = InnerLoop::of(&strides0, &[w as usize; 3], 1);
            let taken = repeated_input(&blk, &[w as usize; 3], path).is_some();
            assert_eq!(
                taken,
                rows > 1 && n as isize * w <= REPEATED_ROW_BYTES as isize
            );
            map2(&blk, f);
            let got = if in_place { &xs[..] } else { &out[..n * rows] };
            for (i, &g) in got.iter().enumerate() {
                let y = if per_row { column[i / n] } else { row[i % n] };
                let want = if k == 1 { f(y, x[i]) } else { f(x[i], y) };
                let what = if per_row { "column" } else { "row" };
                assert_eq!(
                    g, want,
                    "n {n}, rows {rows}, input {k} a {what}, element {i}"
                );
            }
            assert_eq!(
                out[n * rows],
                guard,
                "n {n}, rows {rows}: written past the rows"
            );
        }
    }

    /// A block whose output meets its repeated row or column (views of one array), or meets
    /// the other input other than element for element, keeps the row loop: torch's row order
    /// decides what each row reads there.
    #[test]
    fn repeated_rows_step_aside_where_the_output_meets_them() {
        let (n, rows, w) = (4usize, 6usize, 8isize);
        let mut x: Vec<f64> = (0..n * rows).map(|i| i as f64).collect();
        let mut elsewhere = vec![0.0f64; n * rows];
        let px = x.as_mut_ptr() as *mut u8;
        let pe = elsewhere.as_mut_ptr() as *mut u8;
        let at = |p: *mut u8, i: usize| p.wrapping_add(i * w as usize);
        let row_bytes = n as isize * w;
        // (output, other input, repeated input, its strides0/strides1, rows), and whether the
        // repeated path may run
        let cases = [
            // apart: a separate output, the row elsewhere
            (pe, px, at(px, 0), (w, 0), rows, true),
            // in place, element for element, the row elsewhere
            (pe, pe, at(px, 0), (w, 0), rows, true),
            // in place on x, the row being x's row 0 (`X -= X[0].expand(...)`)
            (px, px, at(px, 0), (w, 0), rows, false),
            // x's rows 1.. from x's rows ..-1 (the output meets the other input, shifted)
            (at(px, n), px, at(pe, 0), (w, 0), rows - 1, false),
            // x's rows 1.. divided by x's first column of the rows before
            (at(px, n), at(px, n), px, (0, row_bytes), rows - 1, false),
            // a column elsewhere, in place
            (px, px, pe, (0, row_bytes), rows, true),
        ];
        for (i, &(o, other, rep, (s0, s1), rows, expected)) in cases.iter().enumerate() {
            let ptrs = [o, other, rep];
            let strides0 = [w, w, s0];
            let strides1 = [row_bytes, row_bytes, s1];
            // SAFETY: every pointer addresses `rows` rows of `n` float64 (or the repeated
            // row / column) inside `x` or `elsewhere`; the block is only inspected.
            let blk = unsafe { Block::new(&ptrs, &strides0, &strides1, n, rows) };
            let path = InnerLoop::of(&strides0, &[8; 3], 1);
            assert_eq!(
                repeated_input(&blk, &[8; 3], path).is_some(),
                expected,
                "case {i}"
            );
        }
    }

    #[test]
    fn repeated_rows_match_the_row_loop() {
        for n in [1, 2, 3, 5, 8, 17, 31, 32, 33, 64, 65] {
            for rows in [1, 2, 3, 7, 8, 9, 63, 64, 65, 300] {
                check_repeated(n, rows, |i| i as f32 * 0.5 - 3.0, |a, b| a - b);
                check_repeated(n, rows, |i| (i as f64).sin(), |a, b| a / b);
                check_repeated(n, rows, |i| i as u8, |a: u8, b| a.wrapping_mul(b));
                check_repeated(
                    n,
                    rows,
                    |i| (i as i64).wrapping_mul(31).wrapping_sub(7),
                    |a: i64, b| a.wrapping_sub(b),
                );
            }
        }
    }

    /// Rows of a block that streams its output ([`out_row`]) over `n` elements of `T`, the
    /// output starting `skew` elements past a line: two contiguous rows, and two with the
    /// second input a broadcast scalar; the elements around each row stay untouched.
    fn check_streamed<T: Copy + PartialEq + std::fmt::Debug>(
        n: usize,
        skew: usize,
        value: fn(usize) -> T,
        f: fn(T, T) -> T,
    ) {
        let w = size_of::<T>();
        const PAD: usize = 64; // elements of guard around the rows
        let pitch = n + 2 * PAD; // elements between rows
        let guard = value(usize::MAX / 3);
        // the output in u128s (aligned for every T), viewed as Ts from `skew` on
        let mut out = vec![0u128; (2 * pitch + 2 * PAD) * w / 16 + 1];
        let base = (out.as_mut_ptr() as *mut T).wrapping_add(skew + 1);
        for k in 0..2 * pitch {
            // SAFETY: `out` holds `(2·pitch + 2·PAD)·w` bytes, past `skew + 1 + 2·pitch` Ts.
            unsafe { base.wrapping_sub(1).add(k).write(guard) };
        }
        let a: Vec<T> = (0..2 * pitch).map(value).collect();
        let b: Vec<T> = (0..2 * pitch).map(|i| value(i * 7 + 3)).collect();
        for sb in [w as isize, 0] {
            let ptrs = [
                base as *mut u8,
                a.as_ptr() as *mut u8,
                b.as_ptr() as *mut u8,
            ];
            let (strides0, strides1) = ([w as isize, w as isize, sb], [(pitch * w) as isize; 3]);
            // SAFETY: two rows of `n` Ts `pitch` apart in each buffer (`b`'s first element
            // only when broadcast); operand 0 is the output, inside `out` (above).
            let blk =
                unsafe { Block::new(&ptrs, &strides0, &strides1, n, 2) }.streaming_output(true);
            map2::<T, T, T>(&blk, f);
            for j in 0..2 {
                // SAFETY: inside `out`, as above.
                let at = |i: isize| unsafe { base.offset(i + (j * pitch) as isize).read() };
                for i in 0..n {
                    let y = if sb == 0 {
                        b[j * pitch]
                    } else {
                        b[j * pitch + i]
                    };
                    let want = f(a[j * pitch + i], y);
                    assert_eq!(
                        at(i as isize),
                        want,
                        "n {n}, skew {skew}, row {j}, element {i}"
                    );
                }
                assert_eq!(
                    (at(-1), at(n as isize)),
                    (guard, guard),
                    "n {n}, skew {skew}"
                );
            }
        }
    }

    #[test]
    fn streamed_rows_give_the_plain_values() {
        // rows just under, at and past the streamed length, and several scratches long, from
        // every element position within a line
        for n_bytes in [
            MIN_STREAMED_ROW - 16,
            MIN_STREAMED_ROW,
            MIN_STREAMED_ROW + 48,
            13_000,
        ] {
            for skew in [0, 1, 5, 13] {
                let n = |w: usize| n_bytes / w;
                check_streamed::<u8>(n(1), skew, |i| i as u8, |x, y| x ^ y.rotate_left(3));
                check_streamed::<u16>(n(2), skew % 32, |i| i as u16, |x, y| x.wrapping_mul(y));
                check_streamed::<f32>(n(4), skew % 16, |i| i as f32 * 0.5, |x, y| x * y - x);
                check_streamed::<f64>(n(8), skew % 8, |i| i as f64 - 7.0, |x, y| x / y);
                check_streamed::<u128>(n(16), skew % 4, |i| i as u128, |x, y| x << 3 ^ y);
            }
        }
    }

    /// Short rows far apart are prefetched about 2 KiB ahead; adjacent rows, a single row and
    /// long rows are not. A copy of far rows (from a misaligned start, fewer rows than the
    /// distance left at the end) gives every row's values: the prefetch, a hint, changes none.
    #[test]
    fn far_short_rows_prefetch_ahead_and_copy_the_same_values() {
        assert_eq!(rows_ahead(264, 3 * 264, 40), Some(8));
        assert_eq!(rows_ahead(264, -264 * 5, 40), Some(8));
        assert_eq!(rows_ahead(1588, 705_072, 46), Some(2));
        assert_eq!(rows_ahead(2048, 4096, 46), Some(2));
        assert_eq!(rows_ahead(264, 264, 40), None);
        assert_eq!(rows_ahead(200, 0, 40), None);
        assert_eq!(rows_ahead(264, 3 * 264, 1), None);
        assert_eq!(rows_ahead(2052, 4104, 46), None);
        assert_eq!(rows_ahead(0, 64, 46), None);

        const N: usize = 66;
        const ROWS: usize = 40;
        let pitch = 3 * N + 5; // elements between input rows
        let input: Vec<u32> = (0..(pitch * ROWS + 1) as u32).collect();
        let mut out = vec![0u32; N * ROWS];
        let ptrs = [
            out.as_mut_ptr() as *mut u8,
            input.as_ptr().wrapping_add(1) as *mut u8,
        ];
        let (strides0, strides1) = ([4, 4], [(N * 4) as isize, (pitch * 4) as isize]);
        // SAFETY: input rows j at 1 + j·pitch, N elements each, inside `input`'s
        // pitch·ROWS + 1; the output's ROWS rows of N fill `out`; the output is written only.
        let blk = unsafe { Block::new(&ptrs, &strides0, &strides1, N, ROWS) };
        map1::<u32, u32>(&blk, |x| x);
        for j in 0..ROWS {
            for i in 0..N {
                assert_eq!(out[j * N + i], (1 + j * pitch + i) as u32, "({i}, {j})");
            }
        }
    }

    /// `map1`, `map2` and `map3` on every mix of operand layouts along dim 0 — output
    /// contiguous or strided, each input contiguous, broadcast (stride 0) or strided — so that
    /// each path [`InnerLoop::of`] picks runs, against the naive loop over the indices.
    #[test]
    fn every_path_gives_the_naive_values() {
        const N: usize = 37;
        const ROWS: usize = 3;
        let pitch = (2 * N * 4) as isize; // bytes between rows, for every operand
        let stride = |mode: usize| [0isize, 4, 8][mode];
        // operand k's value at (i, j): distinct per operand and element
        let value = |k: usize, i: usize, j: usize| (k * 100_000 + j * 1000 + i) as u32;
        let make = |k: usize, mode: usize| {
            let mut buf = vec![0u32; 2 * N * ROWS + 2];
            for j in 0..ROWS {
                for i in 0..N {
                    let at = (i as isize * stride(mode) + j as isize * pitch) / 4;
                    buf[at as usize] = if mode == 0 {
                        value(k, 0, j)
                    } else {
                        value(k, i, j)
                    };
                }
            }
            buf
        };
        let f3 = |x: u32, y: u32, z: u32| x.wrapping_mul(3) ^ y.wrapping_add(z.rotate_left(7));
        let mut seen = Vec::new();
        for out_mode in 1..3 {
            for modes in (0..27).map(|m| [m % 3, m / 3 % 3, m / 9]) {
                for nin in 1..=3 {
                    if modes[nin..].iter().any(|&m| m != 1) {
                        continue; // each mix once per arity
                    }
                    let mut bufs: Vec<Vec<u32>> = vec![vec![0u32; 2 * N * ROWS + 2]];
                    bufs.extend((0..nin).map(|k| make(k + 1, modes[k])));
                    let ptrs: Vec<*mut u8> =
                        bufs.iter_mut().map(|b| b.as_mut_ptr() as *mut u8).collect();
                    let strides0: Vec<isize> = std::iter::once(stride(out_mode))
                        .chain(modes[..nin].iter().map(|&m| stride(m)))
                        .collect();
                    let strides1 = vec![pitch; nin + 1];
                    seen.push(InnerLoop::of(&strides0, &vec![4; nin + 1], 1));
                    // SAFETY: each buffer holds `2·N·ROWS + 2` u32s, more than the largest
                    // offset `(N-1)·8 + (ROWS-1)·pitch` bytes reaches; operand 0 is the output.
                    let blk = unsafe { Block::new(&ptrs, &strides0, &strides1, N, ROWS) };
                    match nin {
                        1 => map1::<u32, u32>(&blk, |x| x.wrapping_mul(3)),
                        2 => map2::<u32, u32, u32>(&blk, |x, y| f3(x, y, 0)),
                        _ => map3::<u32, u32, u32, u32>(&blk, f3),
                    }
                    for j in 0..ROWS {
                        for i in 0..N {
                            let at = |k: usize| {
                                let m = if k == 0 { out_mode } else { modes[k - 1] };
                                let i = if m == 0 { 0 } else { i };
                                value(k, i, j)
                            };
                            let want = match nin {
                                1 => at(1).wrapping_mul(3),
                                2 => f3(at(1), at(2), 0),
                                _ => f3(at(1), at(2), at(3)),
                            };
                            let o = (i as isize * stride(out_mode) + j as isize * pitch) / 4;
                            assert_eq!(
                                bufs[0][o as usize],
                                want,
                                "out {out_mode} inputs {:?} at ({i}, {j})",
                                &modes[..nin]
                            );
                        }
                    }
                }
            }
        }
        for path in [
            InnerLoop::Vectorized,
            InnerLoop::ScalarBroadcast(1),
            InnerLoop::ScalarBroadcast(2),
            InnerLoop::ScalarBroadcast(3),
            InnerLoop::Strided,
        ] {
            assert!(seen.contains(&path), "{path:?} never ran");
        }
    }

    /// A row whose output is one of its inputs (`x += y`, `y = x * y`, `x = f(x)`; several
    /// blocks long, and shorter than one) gets the values of the same op into another output, for
    /// every element size and with the other input contiguous or a broadcast scalar.
    #[test]
    fn in_place_rows_give_the_out_of_place_values() {
        fn check<T: Copy + PartialEq + std::fmt::Debug>(
            n: usize,
            make: impl Fn(usize) -> T,
            f: fn(T, T) -> T,
        ) {
            const ROWS: usize = 2;
            let w = size_of::<T>() as isize;
            let fresh = |k: usize| -> Vec<T> { (0..n * ROWS).map(|i| make(i * 3 + k)).collect() };
            for arity in 1..=3 {
                for own in 1..=arity {
                    for broadcast_other in [false, true] {
                        let inputs: Vec<Vec<T>> = (1..=arity).map(fresh).collect();
                        let mut expected = vec![make(0); n * ROWS];
                        let mut actual = inputs.clone();
                        let run = |out: *mut u8, ins: &[*mut u8]| {
                            let mut ptrs = vec![out];
                            ptrs.extend_from_slice(ins);
                            let mut s0 = vec![w; arity + 1];
                            let mut s1 = vec![n as isize * w; arity + 1];
                            // the last input (when it is not the output) a broadcast scalar
                            if broadcast_other && own != arity {
                                (s0[arity], s1[arity]) = (0, 0);
                            }
                            // SAFETY: every buffer holds ROWS rows of n elements; the
                            // output is one of them or a buffer of its own.
                            let blk = unsafe { Block::new(&ptrs, &s0, &s1, n, ROWS) };
                            match arity {
                                1 => map1::<T, T>(&blk, move |x| f(x, x)),
                                2 => map2::<T, T, T>(&blk, f),
                                _ => map3::<T, T, T, T>(&blk, move |x, y, z| f(f(x, y), z)),
                            }
                        };
                        let mut ins: Vec<Vec<T>> = inputs.clone();
                        let in_ptrs: Vec<*mut u8> =
                            ins.iter_mut().map(|b| b.as_mut_ptr() as *mut u8).collect();
                        run(expected.as_mut_ptr() as *mut u8, &in_ptrs);
                        let act_ptrs: Vec<*mut u8> = actual
                            .iter_mut()
                            .map(|b| b.as_mut_ptr() as *mut u8)
                            .collect();
                        run(act_ptrs[own - 1], &act_ptrs);
                        assert_eq!(actual[own - 1], expected, "n {n}, arity {arity}, output = input {own}, broadcast {broadcast_other}");
                    }
                }
            }
        }
        for n in [5, 37, 700] {
            check::<u8>(n, |i| i as u8, |x, y| x.wrapping_mul(7) ^ y);
            check::<f32>(n, |i| i as f32 * 0.25 - 3.0, |x, y| x * 1.5 + y);
            check::<f64>(n, |i| i as f64 - 11.0, |x, y| x / (y + 0.5));
            check::<u128>(n, |i| i as u128, |x, y| (x << 3) ^ y);
        }
    }
}
