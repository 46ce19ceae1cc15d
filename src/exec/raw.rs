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

/// `out = f()` over a block (operand 0 only).
pub fn fill<O: Copy>(blk: &Block, f: impl Fn() -> O) {
    let so = blk.strides0[0];
    for j in 0..blk.size1 {
        let po = blk.row(0, j);
        // SAFETY: module invariants; `i < size0`.
        unsafe {
            if blk.is_contiguous::<O>(0) {
                for i in 0..blk.size0 {
                    (po as *mut O).add(i).write(f());
                }
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
pub fn map1<A: Copy, O: Copy>(blk: &Block, f: impl Fn(A) -> O) {
    let (so, sa) = (blk.strides0[0], blk.strides0[1]);
    let contiguous = blk.is_contiguous::<O>(0) && blk.is_contiguous::<A>(1);
    for j in 0..blk.size1 {
        let (po, pa) = (blk.row(0, j), blk.row(1, j) as *const u8);
        // SAFETY: module invariants; every index is `< size0`.
        unsafe {
            if contiguous {
                let (po, pa) = (po as *mut O, pa as *const A);
                for i in 0..blk.size0 {
                    po.add(i).write(f(pa.add(i).read()));
                }
            } else if sa == 0 {
                let v = f(get::<A>(pa, 0, 0));
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
pub fn map2<A: Copy, B: Copy, O: Copy>(blk: &Block, f: impl Fn(A, B) -> O) {
    let (so, sa, sb) = (blk.strides0[0], blk.strides0[1], blk.strides0[2]);
    let (co, ca, cb) = (
        blk.is_contiguous::<O>(0),
        blk.is_contiguous::<A>(1),
        blk.is_contiguous::<B>(2),
    );
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
                for i in 0..blk.size0 {
                    o.add(i).write(f(a.add(i).read(), b.add(i).read()));
                }
            } else if co && sa == 0 && cb {
                let av = a.read();
                for i in 0..blk.size0 {
                    o.add(i).write(f(av, b.add(i).read()));
                }
            } else if co && ca && sb == 0 {
                let bv = b.read();
                for i in 0..blk.size0 {
                    o.add(i).write(f(a.add(i).read(), bv));
                }
            } else {
                for i in 0..blk.size0 {
                    put(po, i, so, f(get::<A>(pa, i, sa), get::<B>(pb, i, sb)));
                }
            }
        }
    }
}

/// `out = f(a, b, c)` over a block (operands: out, a, b, c); strided unless all contiguous.
pub fn map3<A: Copy, B: Copy, C: Copy, O: Copy>(blk: &Block, f: impl Fn(A, B, C) -> O) {
    let s = blk.strides0;
    let all = blk.is_contiguous::<O>(0)
        && blk.is_contiguous::<A>(1)
        && blk.is_contiguous::<B>(2)
        && blk.is_contiguous::<C>(3);
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
                for i in 0..blk.size0 {
                    o.add(i)
                        .write(f(a.add(i).read(), b.add(i).read(), c.add(i).read()));
                }
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
