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

use std::mem::size_of;

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
