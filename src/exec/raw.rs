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
