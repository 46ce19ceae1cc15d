//! `out = f(a)` over a block, computed `N` lanes at a time by a [`LaneMap`] (the vector math
//! kernels), in the widest copy the CPU runs ([`Isa::widest`]: AVX-512, AVX2+FMA or the
//! baseline build, chosen at run time; the wheel stays portable). Every path — contiguous rows, their tails, a
//! broadcast scalar, strided rows — feeds the same lane function, so a value's result never
//! depends on where it sits. Raw memory: see the invariants in [`super`].

use super::isa::{in_copy, Isa};
use super::{get, put, Block};
use crate::exec::InnerLoop;
use std::mem::{size_of, MaybeUninit};

/// A function of `N` lanes at a time: branch-free per-lane code over arrays, which LLVM
/// compiles to vector instructions of whatever width the copy it is inlined into allows.
pub(crate) trait LaneMap<const N: usize>: Copy + Send + Sync {
    type In: Copy;
    type Out: Copy;
    /// The function on `N` lanes. Implementations are `#[inline(always)]` so that they
    /// compile into each copy of [`lanes_row`] with that copy's CPU features.
    fn block(&self, x: [Self::In; N]) -> [Self::Out; N];
}

/// `o[i] = k(a[i])` for `i < n`, `N` lanes at a time; the last partial block is padded with
/// copies of `a[0]`. Reads before writes within a block, so `o` may be `a` (in place).
///
/// # Safety
/// `a` addresses `n` readable `In`s and `o` `n` writable `Out`s, both aligned; they either
/// coincide or do not overlap.
#[inline(always)]
unsafe fn lanes_row<const N: usize, K: LaneMap<N>>(
    k: K,
    o: *mut K::Out,
    a: *const K::In,
    n: usize,
) {
    let mut i = 0;
    while i + N <= n {
        // SAFETY: `i + N <= n`; `[T; N]` has `T`'s alignment.
        unsafe {
            let x = (a.add(i) as *const [K::In; N]).read();
            (o.add(i) as *mut [K::Out; N]).write(k.block(x));
        }
        i += N;
    }
    if i < n {
        // SAFETY: `i < n`, and every index read or written below is `< n`.
        unsafe {
            let mut x = [a.read(); N];
            for (j, v) in x.iter_mut().enumerate().take(n - i) {
                *v = a.add(i + j).read();
            }
            let y = k.block(x);
            for (j, v) in y.iter().enumerate().take(n - i) {
                o.add(i + j).write(*v);
            }
        }
    }
}

/// Elements a strided row is staged through at a time (a few KiB of stack).
const STAGE: usize = 256;

/// `o[i·so] = k(a[i·sa])` for `i < n`: a strided row (or one element, `n = 1`), gathered
/// [`STAGE`] elements at a time into a contiguous buffer, run through [`lanes_row`], and
/// scattered back; a row of at most `N` elements is one block. (Gathered one block of `N`
/// lanes at a time, strided float32 `tanh` took 4.2 ns an element on a 2-core Xeon; staged,
/// 2.1-2.4, against 1.0 contiguous.)
///
/// # Safety
/// `pa + i·sa` addresses a readable `In` and `po + i·so` a writable `Out` for every `i < n`,
/// both aligned; a chunk's elements are all read before any is written, so the two rows may
/// coincide.
#[inline(always)]
unsafe fn lanes_strided<const N: usize, K: LaneMap<N>>(
    k: K,
    po: *mut u8,
    so: isize,
    pa: *const u8,
    sa: isize,
    n: usize,
) {
    if n == 0 {
        return;
    }
    if n <= N {
        // one block (a broadcast row's value, a short row): no staging buffers to fill
        // SAFETY: indices `< n` (the caller's guarantees); all are read before any is written.
        unsafe {
            let mut x = [get::<K::In>(pa, 0, sa); N];
            for (l, v) in x.iter_mut().enumerate().take(n) {
                *v = get::<K::In>(pa, l, sa);
            }
            for (l, v) in k.block(x).iter().enumerate().take(n) {
                put(po, l, so, *v);
            }
        }
        return;
    }
    // SAFETY: `n > 0`, so element 0 is readable.
    let mut xs = [unsafe { get::<K::In>(pa, 0, sa) }; STAGE];
    let mut ys = [MaybeUninit::<K::Out>::uninit(); STAGE];
    let mut i = 0;
    while i < n {
        let m = STAGE.min(n - i);
        // SAFETY: indices `i..i + m` are `< n` (the caller's guarantees); `lanes_row` writes
        // `ys[..m]` from `xs[..m]` (distinct buffers), and only those are read back.
        unsafe {
            for (l, v) in xs.iter_mut().enumerate().take(m) {
                *v = get::<K::In>(pa, i + l, sa);
            }
            lanes_row(k, ys.as_mut_ptr() as *mut K::Out, xs.as_ptr(), m);
            for (l, v) in ys.iter().enumerate().take(m) {
                put(po, i + l, so, v.assume_init());
            }
        }
        i += m;
    }
}

/// `out = k(a)` over a block (operands: out, a), every path in the widest vector copy:
/// contiguous rows directly, a broadcast input computed once per row, strided rows staged
/// through a contiguous buffer ([`lanes_strided`]).
pub(crate) fn map1_lanes<const N: usize, K: LaneMap<N>>(blk: &Block, k: K) {
    let (so, sa) = (blk.strides0[0], blk.strides0[1]);
    let sizes = [size_of::<K::Out>(), size_of::<K::In>()];
    let path = InnerLoop::of(blk.strides0, &sizes, 1);
    let (n, isa) = (blk.size0, Isa::widest());
    for j in 0..blk.size1 {
        let (po, pa) = (blk.row(0, j), blk.row(1, j) as *const u8);
        match path {
            InnerLoop::Vectorized => in_copy!(isa, {
                // SAFETY: module invariants; every index is `< size0`.
                unsafe { lanes_row(k, po as *mut K::Out, pa as *const K::In, n) }
            }),
            _ if sa == 0 && n > 0 => {
                // the one value, then copies of it
                // SAFETY: module invariants; every index is `< size0`.
                in_copy!(isa, unsafe { lanes_strided(k, po, so, pa, 0, 1) });
                // SAFETY: as above.
                unsafe {
                    let v = get::<K::Out>(po, 0, so);
                    for i in 1..n {
                        put(po, i, so, v);
                    }
                }
            }
            // SAFETY: module invariants; every index is `< size0`.
            _ => in_copy!(isa, unsafe { lanes_strided(k, po, so, pa, sa, n) }),
        }
    }
}
