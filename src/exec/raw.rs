//! The raw-pointer half of execution: a 2-D block of operand pointers and the typed inner
//! loops over it. Every `unsafe` here rests on what `build()` established once for the plan:
//!
//! - each operand's byte strides and the iteration shape only address elements inside that
//!   operand's storage (arrays are bounds-checked when made; broadcasting only adds 0 strides);
//! - pointers and strides are multiples of the element size, so typed accesses are aligned;
//! - outputs are writable, and the executor only runs chunks in parallel when no output
//!   element is reached twice (so writes from different threads never meet).
//!
//! Inputs and outputs may alias (in-place ops): the loops use raw reads and writes, never
//! references, so aliasing is allowed.
//!
//! Contiguous and broadcast-scalar rows run in a copy of their loop compiled for AVX2 when the
//! CPU has it (detected at run time: the build itself targets baseline x86-64), and float16
//! arithmetic converts eight lanes at a time with F16C. Both give bit-identical results to the
//! baseline loops.

use std::mem::{size_of, size_of_val};

/// A pointer that may be sent to another thread: the plan makes the accesses disjoint.
#[derive(Debug, Clone, Copy)]
pub struct SendPtr(pub *mut u8);
// SAFETY: the pointer is only dereferenced inside the loops below, under the plan's guarantees
// listed at the top of this module.
unsafe impl Send for SendPtr {}
// SAFETY: as for `Send`.
unsafe impl Sync for SendPtr {}

/// One 2-D step of a walk: a base pointer per operand (outputs first) and each operand's byte
/// strides along dims 0 and 1; the block is `size0 × size1` elements.
#[derive(Debug)]
pub struct Block<'a> {
    pub ptrs: &'a [*mut u8],
    pub strides0: &'a [isize],
    pub strides1: &'a [isize],
    pub size0: usize,
    pub size1: usize,
}

impl Block<'_> {
    /// Operand `k`'s pointer at row `j` of the block.
    #[inline(always)]
    fn row(&self, k: usize, j: usize) -> *mut u8 {
        self.ptrs[k].wrapping_offset(j as isize * self.strides1[k])
    }
    #[inline(always)]
    fn is_contiguous<T>(&self, k: usize) -> bool {
        self.strides0[k] == size_of::<T>() as isize
    }
}

/// Reads element `i` of a row with byte stride `s`.
///
/// # Safety
/// `p + i·s` must address a valid, aligned `T` inside the operand (the plan guarantees it for
/// `i < size0`).
#[inline(always)]
unsafe fn get<T: Copy>(p: *const u8, i: usize, s: isize) -> T {
    // SAFETY: guaranteed by the caller.
    unsafe { (p.wrapping_offset(i as isize * s) as *const T).read() }
}

/// Writes element `i` of a row with byte stride `s`.
///
/// # Safety
/// As for [`get`], and the operand must be writable (an output).
#[inline(always)]
unsafe fn put<T: Copy>(p: *mut u8, i: usize, s: isize, v: T) {
    // SAFETY: guaranteed by the caller.
    unsafe { (p.wrapping_offset(i as isize * s) as *mut T).write(v) }
}

/// Whether this CPU runs the AVX2 copy of the contiguous loops ([`row_avx2`]). The wheel is
/// built for the baseline x86-64 (SSE2) so that it runs everywhere; the check is a cached
/// atomic load, made once per block.
#[inline]
fn wide() -> bool {
    #[cfg(target_arch = "x86_64")]
    {
        std::arch::is_x86_feature_detected!("avx2")
            && std::arch::is_x86_feature_detected!("fma")
            && std::arch::is_x86_feature_detected!("f16c")
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        false
    }
}

/// `o[i] = g(i)` for `i < n`: every contiguous or broadcast-scalar path below is one of these,
/// with `g` reading the inputs at `i` (or a value read once). This is the loop LLVM vectorizes.
///
/// `g` is a `move` closure holding the row's pointers and a clone of the kernel: were they
/// captured by reference, LLVM would have to assume every store through `o` may change them,
/// reload them per element and give up on vectorizing (hence the `Clone` bound on kernels).
///
/// # Safety
/// `o` must address `n` writable, aligned `O`s, and `g(i)` must be sound for every `i < n`.
#[inline(always)]
unsafe fn row<O>(o: *mut O, n: usize, g: impl Fn(usize) -> O) {
    for i in 0..n {
        // SAFETY: guaranteed by the caller.
        unsafe { o.add(i).write(g(i)) };
    }
}

/// [`row`] compiled for AVX2 (8 f32 lanes instead of SSE2's 4; integer shifts by a vector, so
/// the float16 conversions vectorize). FMA and F16C only change the instructions of what the
/// code asks for explicitly (`mul_add` is fused either way, and Rust never fuses `a * b + c`
/// on its own), so results are the same as the baseline copy's.
///
/// # Safety
/// As for [`row`], and the CPU must have AVX2, FMA and F16C ([`wide`]).
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2,fma,f16c")]
unsafe fn row_avx2<O>(o: *mut O, n: usize, g: impl Fn(usize) -> O) {
    // SAFETY: guaranteed by the caller.
    unsafe { row(o, n, g) }
}

/// [`row`] in the widest copy the CPU runs (`wide` is [`wide`]'s answer).
///
/// # Safety
/// As for [`row`].
#[inline(always)]
unsafe fn run_row<O>(wide: bool, o: *mut O, n: usize, g: impl Fn(usize) -> O) {
    #[cfg(target_arch = "x86_64")]
    if wide {
        // SAFETY: the caller's guarantees, and `wide` says the CPU has the features.
        return unsafe { row_avx2(o, n, g) };
    }
    let _ = wide;
    // SAFETY: guaranteed by the caller.
    unsafe { row(o, n, g) }
}

/// `out = f()` over a block (operand 0 only).
pub fn fill<O: Copy>(blk: &Block, f: impl Fn() -> O + Clone) {
    let so = blk.strides0[0];
    let wide = wide();
    for j in 0..blk.size1 {
        let po = blk.row(0, j);
        // SAFETY: module invariants; `i < size0`.
        unsafe {
            if blk.is_contiguous::<O>(0) {
                let f = f.clone();
                run_row(wide, po as *mut O, blk.size0, move |_| f());
            } else {
                for i in 0..blk.size0 {
                    put(po, i, so, f());
                }
            }
        }
    }
}

/// `out = f(a)` over a block (operands: out, a). Contiguous rows take a loop the compiler
/// vectorizes; a broadcast input is read once per row.
pub fn map1<A: Copy, O: Copy>(blk: &Block, f: impl Fn(A) -> O + Clone) {
    let (so, sa) = (blk.strides0[0], blk.strides0[1]);
    let co = blk.is_contiguous::<O>(0);
    let contiguous = co && blk.is_contiguous::<A>(1);
    let wide = wide();
    for j in 0..blk.size1 {
        let (po, pa) = (blk.row(0, j), blk.row(1, j) as *const u8);
        // SAFETY: module invariants; every index is `< size0`.
        unsafe {
            let (o, a) = (po as *mut O, pa as *const A);
            if contiguous {
                let f = f.clone();
                run_row(wide, o, blk.size0, move |i| f(a.add(i).read()));
            } else if sa == 0 && co {
                let v = f(a.read());
                run_row(wide, o, blk.size0, move |_| v);
            } else if sa == 0 {
                let v = f(a.read());
                for i in 0..blk.size0 {
                    put(po, i, so, v);
                }
            } else {
                for i in 0..blk.size0 {
                    put(po, i, so, f(get::<A>(pa, i, sa)));
                }
            }
        }
    }
}

/// `out = f(a, b)` over a block (operands: out, a, b), with torch's three paths: all
/// contiguous, one input a broadcast scalar (stride 0) with the rest contiguous, or strided.
pub fn map2<A: Copy, B: Copy, O: Copy>(blk: &Block, f: impl Fn(A, B) -> O + Clone) {
    let (so, sa, sb) = (blk.strides0[0], blk.strides0[1], blk.strides0[2]);
    let (co, ca, cb) = (
        blk.is_contiguous::<O>(0),
        blk.is_contiguous::<A>(1),
        blk.is_contiguous::<B>(2),
    );
    let (n, wide) = (blk.size0, wide());
    for j in 0..blk.size1 {
        let (po, pa, pb) = (
            blk.row(0, j),
            blk.row(1, j) as *const u8,
            blk.row(2, j) as *const u8,
        );
        // SAFETY: module invariants; every index is `< size0`.
        unsafe {
            let (o, a, b) = (po as *mut O, pa as *const A, pb as *const B);
            if co && ca && cb {
                let f = f.clone();
                run_row(wide, o, n, move |i| f(a.add(i).read(), b.add(i).read()));
            } else if co && sa == 0 && cb {
                let av = a.read();
                let f = f.clone();
                run_row(wide, o, n, move |i| f(av, b.add(i).read()));
            } else if co && ca && sb == 0 {
                let bv = b.read();
                let f = f.clone();
                run_row(wide, o, n, move |i| f(a.add(i).read(), bv));
            } else {
                for i in 0..n {
                    put(po, i, so, f(get::<A>(pa, i, sa), get::<B>(pb, i, sb)));
                }
            }
        }
    }
}

/// `out = f(a, b, c)` over a block (operands: out, a, b, c); strided unless all contiguous.
pub fn map3<A: Copy, B: Copy, C: Copy, O: Copy>(blk: &Block, f: impl Fn(A, B, C) -> O + Clone) {
    let s = blk.strides0;
    let all = blk.is_contiguous::<O>(0)
        && blk.is_contiguous::<A>(1)
        && blk.is_contiguous::<B>(2)
        && blk.is_contiguous::<C>(3);
    let wide = wide();
    for j in 0..blk.size1 {
        let (po, pa, pb, pc) = (
            blk.row(0, j),
            blk.row(1, j) as *const u8,
            blk.row(2, j) as *const u8,
            blk.row(3, j) as *const u8,
        );
        // SAFETY: module invariants; every index is `< size0`.
        unsafe {
            if all {
                let (o, a, b, c) = (po as *mut O, pa as *const A, pb as *const B, pc as *const C);
                let f = f.clone();
                run_row(wide, o, blk.size0, move |i| {
                    f(a.add(i).read(), b.add(i).read(), c.add(i).read())
                });
            } else {
                for i in 0..blk.size0 {
                    put(
                        po,
                        i,
                        s[0],
                        f(
                            get::<A>(pa, i, s[1]),
                            get::<B>(pb, i, s[2]),
                            get::<C>(pc, i, s[3]),
                        ),
                    );
                }
            }
        }
    }
}

/// `out = down(op(up(a), up(b)))` over a block: a kernel that computes in a wider type `W`
/// than its element type `T` (float16 and bfloat16 compute in f32), given in three parts so
/// that float16 rows can convert eight lanes per instruction with F16C (torch does the same);
/// other types, and CPUs without AVX2/F16C, run [`map2`] on the composition.
pub fn map2_widened<T: Copy + 'static, W: Copy + 'static>(
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

/// [`map2_widened`] for float16 with F16C, when the output is contiguous and each input
/// contiguous or a broadcast scalar; `false` (nothing done) for any other block.
#[cfg(target_arch = "x86_64")]
fn map2_f16(blk: &Block, op: &impl Fn(f32, f32) -> f32) -> bool {
    let w = size_of::<u16>() as isize;
    let step = |s: isize| match s {
        0 => Some(0),
        s if s == w => Some(1),
        _ => None,
    };
    let (Some(1), Some(step_a), Some(step_b)) = (
        step(blk.strides0[0]),
        step(blk.strides0[1]),
        step(blk.strides0[2]),
    ) else {
        return false;
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
/// without interpreting them: a row `memcpy` when both are contiguous.
pub fn copy_bytes(blk: &Block, width: usize) {
    match width {
        1 => map1::<u8, u8>(blk, |x| x),
        2 => map1::<u16, u16>(blk, |x| x),
        4 => map1::<u32, u32>(blk, |x| x),
        8 => map1::<u64, u64>(blk, |x| x),
        _ => map1::<u128, u128>(blk, |x| x),
    }
}

/// Asks the CPU to start loading every cache line of a tile (all operands), so that the tile
/// a walk visits next is on its way from memory while the current one runs: a tiled walk
/// reads each operand in short runs (a few lines per row, each row in another page), which
/// the hardware prefetchers do not follow. Each operand's tile is taken along its faster dim;
/// a tile with no contiguous-ish dim (both strides over a line) is left alone.
pub fn prefetch(blk: &Block) {
    #[cfg(target_arch = "x86_64")]
    for k in 0..blk.ptrs.len() {
        let (s0, s1) = (blk.strides0[k], blk.strides1[k]);
        let ((sf, nf), (ss, ns)) = if s0.unsigned_abs() <= s1.unsigned_abs() {
            ((s0, blk.size0), (s1, blk.size1))
        } else {
            ((s1, blk.size1), (s0, blk.size0))
        };
        if sf.unsigned_abs() > 64 || nf == 0 {
            continue;
        }
        // The run along the fast dim, from its lowest to its highest byte.
        let reach = (nf as isize - 1) * sf;
        let (lo, len) = (reach.min(0), reach.unsigned_abs() + 1);
        for r in 0..ns {
            let row = blk.ptrs[k].wrapping_offset(r as isize * ss + lo);
            let mut off = 0;
            while off < len + 63 {
                let p = row.wrapping_add(off.min(len - 1)) as *const i8;
                // SAFETY: a prefetch is a hint: it never faults or changes memory, whatever the
                // address (here, one inside the tile anyway); SSE is part of x86-64.
                unsafe { std::arch::x86_64::_mm_prefetch::<{ std::arch::x86_64::_MM_HINT_T0 }>(p) };
                off += 64;
            }
        }
    }
}

/// One cache line of scratch memory: the scratch tiles of a packed walk are vectors of these,
/// so that every packed row starts on a line (and the AVX2 stores never split one needlessly).
#[derive(Debug, Clone, Copy)]
#[repr(C, align(64))]
pub struct Line(pub [u8; 64]);

impl Line {
    pub const ZERO: Line = Line([0; 64]);
}

/// The bytes a packed `size0 × size1` tile of `width`-byte elements takes with rows of `ld`
/// elements: what [`pack`] and [`unpack`] require of their scratch.
pub fn packed_bytes(ld: usize, size1: usize, width: usize) -> usize {
    ld * size1 * width
}

/// Copies operand `k` of a tile into `scratch`, dim 0 contiguous: element `(i, j)` goes to
/// byte `(j·ld + i)·width`. The kernel then sees the operand with strides `(width,
/// ld·width)` and runs its contiguous loop. `ld >= size0`.
pub fn pack(blk: &Block, k: usize, width: usize, scratch: &mut [Line], ld: usize) {
    assert!(ld >= blk.size0 && packed_bytes(ld, blk.size1, width) <= size_of_val(scratch));
    let dst = scratch.as_mut_ptr() as *mut u8;
    let w = width as isize;
    // SAFETY: the source is operand k's tile, inside its storage by the module invariants
    // (`i < size0`, `j < size1`); the destination is `(j·ld + i)·width` bytes into `scratch`,
    // below `packed_bytes`, checked above.
    unsafe {
        copy_tile(
            blk.ptrs[k],
            (blk.strides0[k], blk.strides1[k]),
            dst,
            (w, ld as isize * w),
            (blk.size0, blk.size1),
            width,
        )
    }
}

/// The inverse of [`pack`]: writes the scratch tile back into operand `k` (an output the
/// kernel computed in scratch).
pub fn unpack(blk: &Block, k: usize, width: usize, scratch: &[Line], ld: usize) {
    assert!(ld >= blk.size0 && packed_bytes(ld, blk.size1, width) <= size_of_val(scratch));
    let src = scratch.as_ptr() as *const u8;
    let w = width as isize;
    // SAFETY: as for `pack`, with source and destination swapped; operand k is an output, so
    // writable.
    unsafe {
        copy_tile(
            src,
            (w, ld as isize * w),
            blk.ptrs[k],
            (blk.strides0[k], blk.strides1[k]),
            (blk.size0, blk.size1),
            width,
        )
    }
}

/// Copies an `n0 × n1` tile of `width`-byte elements: `(i, j)` from `src + i·s0 + j·s1` to
/// `dst + i·d0 + j·d1`. When one side is contiguous along i and the other along j (a
/// transpose) and the elements are 4 or 8 bytes, AVX2 transposes 8 × 8 / 4 × 4 blocks in
/// registers; otherwise a scalar loop reads the source along its faster dim.
///
/// # Safety
/// Every `(i, j)` with `i < n0`, `j < n1` must address a valid, aligned element of `width`
/// bytes on both sides, writable in `dst`, and the two tiles must not overlap.
unsafe fn copy_tile(
    src: *const u8,
    (s0, s1): (isize, isize),
    dst: *mut u8,
    (d0, d1): (isize, isize),
    (n0, n1): (usize, usize),
    width: usize,
) {
    let w = width as isize;
    // Name the dims so that the source is contiguous along `c` ("columns"): then a transpose
    // is `d_r == w`.
    let ((sr, sc), (dr, dc), (nr, nc)) = if s0.unsigned_abs() < s1.unsigned_abs() {
        ((s1, s0), (d1, d0), (n1, n0))
    } else {
        ((s0, s1), (d0, d1), (n0, n1))
    };
    #[cfg(target_arch = "x86_64")]
    if sc == w && dr == w && (width == 4 || width == 8) && wide() {
        // SAFETY: the caller's guarantees (the same tile, dims renamed); AVX2 checked.
        unsafe {
            match width {
                4 => transpose_avx2::<8>(src, sr, dst, dc, nr, nc),
                _ => transpose_avx2::<4>(src, sr, dst, dc, nr, nc),
            }
        };
        return;
    }
    // SAFETY: the caller's guarantees, dims renamed.
    unsafe {
        match width {
            1 => copy_tile_scalar::<u8>(src, (sr, sc), dst, (dr, dc), (nr, nc)),
            2 => copy_tile_scalar::<u16>(src, (sr, sc), dst, (dr, dc), (nr, nc)),
            4 => copy_tile_scalar::<u32>(src, (sr, sc), dst, (dr, dc), (nr, nc)),
            8 => copy_tile_scalar::<u64>(src, (sr, sc), dst, (dr, dc), (nr, nc)),
            _ => copy_tile_scalar::<u128>(src, (sr, sc), dst, (dr, dc), (nr, nc)),
        }
    }
}

/// [`copy_tile`] one element at a time, the source's contiguous dim (`c`) innermost.
///
/// # Safety
/// As for [`copy_tile`], with `T` the element type.
#[inline(always)]
unsafe fn copy_tile_scalar<T: Copy>(
    src: *const u8,
    (sr, sc): (isize, isize),
    dst: *mut u8,
    (dr, dc): (isize, isize),
    (nr, nc): (usize, usize),
) {
    for r in 0..nr {
        let (s, d) = (
            src.wrapping_offset(r as isize * sr),
            dst.wrapping_offset(r as isize * dr),
        );
        for c in 0..nc {
            // SAFETY: `r < nr`, `c < nc`: the caller's guarantees.
            unsafe { put::<T>(d, c, dc, get::<T>(s, c, sc)) };
        }
    }
}

/// A transpose of an `nr × nc` tile of `L`-lane elements (4 bytes for `L = 8`, 8 bytes for
/// `L = 4`: one 256-bit register holds a row of L): element `(r, c)` is at `src + r·sr +
/// c·size` and goes to `dst + r·size + c·dc`. Whole `L × L` blocks go through registers; the
/// fringe is copied one element at a time.
///
/// # Safety
/// As for [`copy_tile`] (source contiguous along c, destination along r), and the CPU has
/// AVX2.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
unsafe fn transpose_avx2<const L: usize>(
    src: *const u8,
    sr: isize,
    dst: *mut u8,
    dc: isize,
    nr: usize,
    nc: usize,
) {
    use std::arch::x86_64::*;
    let size = (32 / L) as isize;
    let (full_r, full_c) = (nr - nr % L, nc - nc % L);
    for r in (0..full_r).step_by(L) {
        for c in (0..full_c).step_by(L) {
            let s = src.wrapping_offset(r as isize * sr + c as isize * size);
            let d = dst.wrapping_offset(r as isize * size + c as isize * dc);
            // SAFETY: rows r..r+L and columns c..c+L are inside the tile (full blocks only).
            unsafe {
                let mut x = [_mm256_setzero_ps(); 8];
                for (q, v) in x.iter_mut().enumerate().take(L) {
                    *v = _mm256_loadu_ps(s.wrapping_offset(q as isize * sr) as *const f32);
                }
                let y = if L == 8 { transpose8(x) } else { transpose4(x) };
                for (q, v) in y.iter().enumerate().take(L) {
                    _mm256_storeu_ps(d.wrapping_offset(q as isize * dc) as *mut f32, *v);
                }
            }
        }
    }
    // The fringe: columns past the last full block in every row, then the remaining rows.
    let w = size;
    // SAFETY: inside the tile, as the caller guarantees.
    unsafe {
        let tail = |r0: usize, r1: usize, c0: usize| {
            let s = src.wrapping_offset(r0 as isize * sr + c0 as isize * w);
            let d = dst.wrapping_offset(r0 as isize * w + c0 as isize * dc);
            if L == 8 {
                copy_tile_scalar::<u32>(s, (sr, w), d, (w, dc), (r1 - r0, nc - c0));
            } else {
                copy_tile_scalar::<u64>(s, (sr, w), d, (w, dc), (r1 - r0, nc - c0));
            }
        };
        tail(0, full_r, full_c);
        tail(full_r, nr, 0);
    }
}

/// Transposes the 8 × 8 block of 32-bit lanes in `x` (row q in `x[q]`). Lanes are only moved,
/// never interpreted: any bit pattern survives.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
fn transpose8(x: [std::arch::x86_64::__m256; 8]) -> [std::arch::x86_64::__m256; 8] {
    use std::arch::x86_64::*;
    // Rows a..h. Pairs interleaved: t0 = (a0 b0 a1 b1 | a4 b4 a5 b5), t1 = (a2 b2 a3 b3 | a6 ..).
    let (t0, t1) = (
        _mm256_unpacklo_ps(x[0], x[1]),
        _mm256_unpackhi_ps(x[0], x[1]),
    );
    let (t2, t3) = (
        _mm256_unpacklo_ps(x[2], x[3]),
        _mm256_unpackhi_ps(x[2], x[3]),
    );
    let (t4, t5) = (
        _mm256_unpacklo_ps(x[4], x[5]),
        _mm256_unpackhi_ps(x[4], x[5]),
    );
    let (t6, t7) = (
        _mm256_unpacklo_ps(x[6], x[7]),
        _mm256_unpackhi_ps(x[6], x[7]),
    );
    // Quads: u0 = (a0 b0 c0 d0 | a4 b4 c4 d4), u1 = (a1 .. d1 | a5 .. d5), u2, u3; u4..u7: e..h.
    let u0 = _mm256_shuffle_ps::<0x44>(t0, t2);
    let u1 = _mm256_shuffle_ps::<0xEE>(t0, t2);
    let u2 = _mm256_shuffle_ps::<0x44>(t1, t3);
    let u3 = _mm256_shuffle_ps::<0xEE>(t1, t3);
    let u4 = _mm256_shuffle_ps::<0x44>(t4, t6);
    let u5 = _mm256_shuffle_ps::<0xEE>(t4, t6);
    let u6 = _mm256_shuffle_ps::<0x44>(t5, t7);
    let u7 = _mm256_shuffle_ps::<0xEE>(t5, t7);
    // Column c: the low halves of u_c and u_{c+4} for c < 4, the high halves for c >= 4.
    [
        _mm256_permute2f128_ps::<0x20>(u0, u4),
        _mm256_permute2f128_ps::<0x20>(u1, u5),
        _mm256_permute2f128_ps::<0x20>(u2, u6),
        _mm256_permute2f128_ps::<0x20>(u3, u7),
        _mm256_permute2f128_ps::<0x31>(u0, u4),
        _mm256_permute2f128_ps::<0x31>(u1, u5),
        _mm256_permute2f128_ps::<0x31>(u2, u6),
        _mm256_permute2f128_ps::<0x31>(u3, u7),
    ]
}

/// Transposes the 4 × 4 block of 64-bit lanes in `x[0..4]` (row q in `x[q]`); `x[4..]` is
/// ignored. Lanes are only moved.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
fn transpose4(x: [std::arch::x86_64::__m256; 8]) -> [std::arch::x86_64::__m256; 8] {
    use std::arch::x86_64::*;
    let (a, b) = (_mm256_castps_pd(x[0]), _mm256_castps_pd(x[1]));
    let (c, d) = (_mm256_castps_pd(x[2]), _mm256_castps_pd(x[3]));
    // t0 = (a0 b0 | a2 b2), t1 = (a1 b1 | a3 b3), t2 = (c0 d0 | c2 d2), t3 = (c1 d1 | c3 d3)
    let (t0, t1) = (_mm256_unpacklo_pd(a, b), _mm256_unpackhi_pd(a, b));
    let (t2, t3) = (_mm256_unpacklo_pd(c, d), _mm256_unpackhi_pd(c, d));
    let z = _mm256_setzero_ps();
    [
        _mm256_castpd_ps(_mm256_permute2f128_pd::<0x20>(t0, t2)),
        _mm256_castpd_ps(_mm256_permute2f128_pd::<0x20>(t1, t3)),
        _mm256_castpd_ps(_mm256_permute2f128_pd::<0x31>(t0, t2)),
        _mm256_castpd_ps(_mm256_permute2f128_pd::<0x31>(t1, t3)),
        z,
        z,
        z,
        z,
    ]
}

#[cfg(test)]
mod tests {
    use super::*;
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
        let blk = Block {
            ptrs: &ptrs,
            strides0: &[2, 2, sb],
            strides1: &[0, 0, 0],
            size0: n,
            size1: 1,
        };
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
}
