//! A blocked single-threaded GEMM for float32 and float64 on AVX2 + FMA or AVX-512: `c = a ·
//! b` of an `m × k` and a `k × n` matrix, each addressed by its first element and its own
//! element strides (any sign; zero for broadcast inputs).
//!
//! The classic five-loop layout: `b` is packed `KC × NC` at a time into panels `NR` columns
//! wide, `a` `MC × KC` at a time into panels `MR` rows tall (zero-padded at the edges), and a
//! register micro-kernel multiplies one `a` panel by one `b` panel, `MR × NR` sums held in
//! vector registers and updated by one FMA per register and `k`: 12 ymm registers in AVX2 (6 ×
//! 16 float32, 6 × 8 float64), 24 zmm in AVX-512 (12 × 32, 12 × 16). A `b` panel (`KC × NR`)
//! is reused by every `a` panel of a block (`MC × KC`, 144-192 KiB, in L2): the AVX2 one (16
//! KiB) stays in L1 beside the `a` panel in use, the AVX-512 one (32 KiB) fills a 32 KiB L1 by
//! itself (KC 192 ran slower on Zen 4 all the same). Both kernels block `k` by the same `KC`,
//! so they give the same bits. The AVX-512 kernel is meant for Xeons with two 512-bit FMA
//! units (twice AVX2's arithmetic); on Zen 4, which splits a 512-bit FMA in two, it ran
//! within 5% of the AVX2 kernel (1 thread) and 0-12% ahead (2 threads). Its 12-row tiles
//! leave a 4-row partial tile in a call of one 64-row unit (`gemm::ROWS_PER_UNIT`; 72 or 96
//! would split 256- and 1024-row products unevenly over 2 threads).
//!
//! Every element of `c` is summed the same way whatever the rows and columns around it: `k` in
//! order within a block of `KC`, one FMA chain per element, the blocks added to `c` in order
//! (the transposed product of few columns too). So a product split by rows or columns over
//! threads gives the same bits at any thread count. Products of one row or column take a
//! matrix-vector loop instead ([`gemv`]), chosen by the whole product's shape, not a part's.
//!
//! Why not `matrixmultiply` (still the path for CPUs without AVX2): its float32 kernel ran
//! 1024² products at 68 GFLOPS on a 2-core Zen 3 (1 thread) where torch's reached 91. Since
//! the `gemm` crate took the products of matrices of more than 256 results ([`super::gemm`]:
//! ~1.2-1.3x this kernel on a Sapphire Rapids Xeon), this runs the smaller ones and the
//! matrix-vector products. Raw memory: see the invariants in [`super`].

#![cfg(target_arch = "x86_64")]

pub(crate) use super::gemm::Whole;
use super::kept::Kept;
use std::arch::x86_64::*;

/// A float type the GEMM multiplies: its matrix-vector loop and its two micro-kernels.
pub(crate) trait FmaElement:
    Copy + Default + std::ops::Add<Output = Self> + 'static
{
    /// The micro-kernel and blocking in 256-bit registers (AVX2 and FMA).
    type Avx2: MicroKernel<Element = Self>;
    /// The micro-kernel and blocking in 512-bit registers (AVX-512F).
    type Avx512: MicroKernel<Element = Self>;

    /// `a·b + c`, rounded once.
    fn fma(a: Self, b: Self, c: Self) -> Self;

    /// [`gemv`] (a `#[target_feature]` copy of it for this type).
    ///
    /// # Safety
    /// As for [`gemv`].
    unsafe fn gemv(
        mk: (usize, usize),
        a: *const Self,
        sa: (isize, isize),
        x: &[Self],
        y: (*mut Self, isize),
    );
}

/// A register micro-kernel of one vector width and the blocking sized for it.
pub(crate) trait MicroKernel {
    type Element: FmaElement;
    /// Rows and columns of a micro-kernel's tile of `c`.
    const MR: usize;
    const NR: usize;
    /// Rows of `a` packed at a time, depth of a packed block, columns of `b` packed at a time.
    const MC: usize;
    const KC: usize;
    const NC: usize;

    /// Whether this CPU runs the kernel (the capability `FERROITER_CPU_CAPABILITY` allows).
    fn available() -> bool;

    /// The CPU features the kernel needs (for the tests' `FERROITER_REQUIRE_ISA`).
    #[cfg(test)]
    const FEATURES: &'static str;

    /// [`pack`] of `a`'s rows (`MR` a panel) and of `b`'s columns (`NR` a panel).
    ///
    /// # Safety
    /// As for [`pack`].
    unsafe fn pack_a(
        dst: &mut [Self::Element],
        src: *const Self::Element,
        s: (isize, isize),
        n: usize,
        d: usize,
    );
    /// # Safety
    /// As for [`pack`].
    unsafe fn pack_b(
        dst: &mut [Self::Element],
        src: *const Self::Element,
        s: (isize, isize),
        n: usize,
        d: usize,
    );

    /// `t.c[i·t.rs + j·t.cs] (+)= Σ_l a[l·MR + i] · b[l·NR + j]` over `l < kc`, for `i <
    /// t.rows`, `j < t.cols`: stored when `t.first`, added to what `c` holds otherwise.
    ///
    /// # Safety
    /// `a` holds `kc·MR` readable elements and `b` `kc·NR`; the tile's elements are
    /// writable (readable when not `first`), `rows <= MR`, `cols <= NR`, no two of them the
    /// same; [`MicroKernel::available`].
    unsafe fn kernel(
        kc: usize,
        a: *const Self::Element,
        b: *const Self::Element,
        t: Tile<Self::Element>,
    );
}

/// Where a micro-kernel's sums go: element `(i, j)` at `c + i·rs + j·cs` for `i < rows`, `j <
/// cols`, stored (`first`, the first block of `k`) or added.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Tile<T> {
    c: *mut T,
    rs: isize,
    cs: isize,
    rows: usize,
    cols: usize,
    first: bool,
}

/// `c = a · b` (module doc), a part of a product of the kind `whole`, in the widest
/// micro-kernel this CPU runs (the same for every part of a product: the capability is read
/// once per process).
///
/// # Safety
/// `a + i·rsa + l·csa` (`i < m`, `l < k`) and `b + l·rsb + j·csb` (`l < k`, `j < n`) address
/// readable elements, `c + i·rsc + j·csc` (`i < m`, `j < n`) distinct writable ones that no
/// one else accesses meanwhile and that overlap neither input; the CPU has AVX2 and FMA.
pub(crate) unsafe fn gemm<T: FmaElement>(
    mkn: (usize, usize, usize),
    whole: Whole,
    a: (*const T, (isize, isize)),
    b: (*const T, (isize, isize)),
    c: (*mut T, (isize, isize)),
) {
    // SAFETY: the caller's guarantees; each kernel runs only where it is available.
    unsafe {
        if T::Avx512::available() {
            product::<T::Avx512>(mkn, whole, a, b, c)
        } else {
            product::<T::Avx2>(mkn, whole, a, b, c)
        }
    }
}

/// [`gemm`] with the micro-kernel `K`.
///
/// # Safety
/// As for [`gemm`]; `K` is available.
unsafe fn product<K: MicroKernel>(
    (m, k, n): (usize, usize, usize),
    whole: Whole,
    (a, (rsa, csa)): (*const K::Element, (isize, isize)),
    (b, (rsb, csb)): (*const K::Element, (isize, isize)),
    (c, (rsc, csc)): (*mut K::Element, (isize, isize)),
) {
    if m == 0 || n == 0 {
        return;
    }
    if k == 0 {
        for i in 0..m {
            for j in 0..n {
                // SAFETY: element (i, j) of `c` (the caller's).
                unsafe { *c.offset(i as isize * rsc + j as isize * csc) = K::Element::default() };
            }
        }
        return;
    }
    if whole != Whole::Matrices {
        // a matrix times a vector (or a vector times a matrix: the transposed product)
        let (rows, a, sa, x, incx, y) = if whole == Whole::MatrixVector {
            (m, a, (rsa, csa), b, rsb, (c, rsc))
        } else {
            (n, b, (csb, rsb), a, csa, (c, csc))
        };
        // the vector gathered (it is read once a row)
        // SAFETY: element l of the vector (the caller's).
        let x: Vec<K::Element> = (0..k)
            .map(|l| unsafe { *x.wrapping_offset(l as isize * incx) })
            .collect();
        // SAFETY: the caller's guarantees, with the roles of rows and columns swapped for
        // one row.
        unsafe { K::Element::gemv((rows, k), a, sa, &x, y) };
        return;
    }
    if n < K::NR && m > n {
        // few columns (a matrix times a vector): the transposed product, whose tiles are
        // full; each element's sum is the same chain of FMAs
        // SAFETY: the same elements, addressed with the roles of rows and columns swapped.
        unsafe {
            product::<K>(
                (n, k, m),
                whole,
                (b, (csb, rsb)),
                (a, (csa, rsa)),
                (c, (csc, rsc)),
            )
        };
        return;
    }
    let kc_max = K::KC.min(k);
    let a_len = K::MC.min(m).next_multiple_of(K::MR) * kc_max;
    let b_len = K::NC.min(n).next_multiple_of(K::NR) * kc_max;
    let mut lines = Scratch::take();
    let (a_pack, b_pack) = lines.split::<K::Element>(a_len, b_len);
    for jc in (0..n).step_by(K::NC) {
        let ncb = K::NC.min(n - jc);
        for pc in (0..k).step_by(K::KC) {
            let kcb = K::KC.min(k - pc);
            let first = pc == 0;
            let b0 = b.wrapping_offset(pc as isize * rsb + jc as isize * csb);
            // SAFETY: rows pc..pc + kcb and columns jc..jc + ncb of `b` (the caller's); the
            // buffer holds `ncb` columns rounded up to panels of `NR`, `kcb` deep.
            unsafe { K::pack_b(b_pack, b0, (csb, rsb), ncb, kcb) };
            for ic in (0..m).step_by(K::MC) {
                let mcb = K::MC.min(m - ic);
                let a0 = a.wrapping_offset(ic as isize * rsa + pc as isize * csa);
                // SAFETY: rows ic..ic + mcb and columns pc..pc + kcb of `a` (the caller's);
                // the buffer holds `mcb` rows rounded up to panels of `MR`, `kcb` deep.
                unsafe { K::pack_a(a_pack, a0, (rsa, csa), mcb, kcb) };
                for jr in (0..ncb).step_by(K::NR) {
                    let bp = b_pack.as_ptr().wrapping_add(jr * kcb);
                    for ir in (0..mcb).step_by(K::MR) {
                        let ap = a_pack.as_ptr().wrapping_add(ir * kcb);
                        let (i, j) = ((ic + ir) as isize, (jc + jr) as isize);
                        let cp = c.wrapping_offset(i * rsc + j * csc);
                        // SAFETY: the panels hold `kcb·MR` and `kcb·NR` packed elements;
                        // rows i..i + mr and columns j..j + nr lie inside `c` (the caller's),
                        // written by `first` before they are read.
                        unsafe {
                            K::kernel(
                                kcb,
                                ap,
                                bp,
                                Tile {
                                    c: cp,
                                    rs: rsc,
                                    cs: csc,
                                    rows: K::MR.min(mcb - ir),
                                    cols: K::NR.min(ncb - jr),
                                    first,
                                },
                            )
                        };
                    }
                }
            }
        }
    }
}

/// `y[i·incy] = Σ_l a[i·rsa + l·csa] · x[l]` for `i < m`, `l < k` (`k = x.len() > 0`):
/// along the rows of `a` where they are contiguous (four rows at a time, `W` running sums
/// each, added up at the end), else down its columns (`k` in order for every row).
///
/// # Safety
/// The elements of `a` readable, the `m` of `y` writable, not overlapping `a` or `x`.
#[inline(always)]
unsafe fn gemv<T: FmaElement, const W: usize>(
    (m, k): (usize, usize),
    a: *const T,
    (rsa, csa): (isize, isize),
    x: &[T],
    (y, incy): (*mut T, isize),
) {
    let row = |i: usize| a.wrapping_offset(i as isize * rsa);
    if csa == 1 {
        let whole = k - k % W;
        let mut i = 0;
        while i < m {
            let rows = (m - i).min(4);
            let mut acc = [[T::default(); W]; 4];
            for l in (0..whole).step_by(W) {
                let xs: &[T; W] = x[l..l + W].try_into().expect("W elements");
                for (q, sums) in acc.iter_mut().enumerate().take(rows) {
                    // SAFETY: row i + q, elements l..l + W (contiguous, `csa` 1).
                    let v = unsafe { (row(i + q).add(l) as *const [T; W]).read_unaligned() };
                    for j in 0..W {
                        sums[j] = T::fma(v[j], xs[j], sums[j]);
                    }
                }
            }
            for (q, sums) in acc.iter().enumerate().take(rows) {
                let mut tail = T::default();
                for (l, &xl) in x.iter().enumerate().skip(whole) {
                    // SAFETY: row i + q, element l.
                    tail = T::fma(unsafe { *row(i + q).add(l) }, xl, tail);
                }
                // the running sums added pairwise, then the tail
                let mut s = *sums;
                let mut w = W;
                while w > 1 {
                    w /= 2;
                    for j in 0..w {
                        s[j] = s[j] + s[j + w];
                    }
                }
                // SAFETY: element i + q of `y`.
                unsafe { *y.wrapping_offset((i + q) as isize * incy) = s[0] + tail };
            }
            i += rows;
        }
        return;
    }
    // down the columns, `W` rows at a time
    for i0 in (0..m).step_by(W) {
        let rows = (m - i0).min(W);
        let mut sums = [T::default(); W];
        for (l, &xl) in x.iter().enumerate() {
            let col = row(i0).wrapping_offset(l as isize * csa);
            for (q, s) in sums.iter_mut().enumerate().take(rows) {
                // SAFETY: row i0 + q, element l.
                *s = T::fma(unsafe { *col.wrapping_offset(q as isize * rsa) }, xl, *s);
            }
        }
        for (q, &s) in sums.iter().enumerate().take(rows) {
            // SAFETY: element i0 + q of `y`.
            unsafe { *y.wrapping_offset((i0 + q) as isize * incy) = s };
        }
    }
}

/// Packs `count` lines (rows of `a` or columns of `b`) of `depth` elements into panels of
/// `W` lines: line `i`, element `l` at `(i / W)·depth·W + l·W + i % W`, the last panel's
/// missing lines zero. Line `i`'s element `l` is at `src + i·along + l·down`.
///
/// # Safety
/// Those source elements are readable; `dst` holds `count.next_multiple_of(W)·depth`; the
/// CPU has AVX2 (the register transposes of [`contiguous_lines`]).
unsafe fn pack<T: FmaElement, const W: usize>(
    dst: &mut [T],
    src: *const T,
    (along, down): (isize, isize),
    count: usize,
    depth: usize,
) {
    for (p, panel) in dst[..count.next_multiple_of(W) * depth]
        .chunks_exact_mut(depth * W)
        .enumerate()
    {
        let i0 = p * W;
        let lines = W.min(count - i0);
        let base = src.wrapping_offset(i0 as isize * along);
        if lines == W && along == 1 {
            // a panel's lines next to each other in memory: `W` contiguous elements a step
            for (l, out) in panel.chunks_exact_mut(W).enumerate() {
                let at = base.wrapping_offset(l as isize * down) as *const [T; W];
                // SAFETY: lines i0..i0 + W of element l, contiguous (`along` 1), readable.
                out.copy_from_slice(&unsafe { at.read_unaligned() });
            }
            continue;
        }
        let mut done = 0;
        if lines == W && down == 1 {
            // each line's elements next to each other (`a` row-major, `b` column-major)
            let (size, bytes) = (
                std::mem::size_of::<T>(),
                along * std::mem::size_of::<T>() as isize,
            );
            let (to, from) = (panel.as_mut_ptr() as *mut u8, base as *const u8);
            // SAFETY: the panel's lines, elements 0..depth, readable (the caller's); the panel
            // holds `depth·W` elements; the CPU has AVX2 (`gemm`'s contract).
            done = unsafe {
                match size {
                    4 => contiguous_lines::<8, W>(to, from, bytes, depth),
                    _ => contiguous_lines::<4, W>(to, from, bytes, depth),
                }
            };
        }
        for (l, out) in panel.chunks_exact_mut(W).enumerate().skip(done) {
            let at = base.wrapping_offset(l as isize * down);
            for (i, slot) in out.iter_mut().enumerate() {
                *slot = if i < lines {
                    // SAFETY: line i0 + i, element l: readable (the caller's).
                    unsafe { *at.wrapping_offset(i as isize * along) }
                } else {
                    T::default()
                };
            }
        }
    }
}

/// [`pack`]'s panel of `W` whole lines whose elements lie next to each other (line `i`'s
/// element `l` at `src + i·along + l·(32 / L)` bytes): `L` elements of each line at a time,
/// `L` lines transposed in registers. Returns the elements of each line packed (a multiple
/// of `L`; the rest is the caller's).
///
/// # Safety
/// Those elements readable for `l < depth`; `dst` holds `depth·W` elements of `32 / L`
/// bytes; the CPU has AVX2.
#[target_feature(enable = "avx2")]
unsafe fn contiguous_lines<const L: usize, const W: usize>(
    dst: *mut u8,
    src: *const u8,
    along: isize,
    depth: usize,
) -> usize {
    let size = 32 / L;
    let whole = depth - depth % L;
    for l in (0..whole).step_by(L) {
        for g in (0..W).step_by(L) {
            let n = L.min(W - g);
            let mut x = [_mm256_setzero_ps(); 8];
            for (q, v) in x.iter_mut().enumerate().take(n) {
                let at = src
                    .wrapping_offset((g + q) as isize * along)
                    .wrapping_add(l * size);
                // SAFETY: line g + q, elements l..l + L (`l + L <= depth`), readable.
                *v = unsafe { _mm256_loadu_ps(at as *const f32) };
            }
            let t = super::pack::transpose_lanes::<L>(x);
            for (j, &v) in t.iter().enumerate().take(L) {
                let at = dst.wrapping_add(((l + j) * W + g) * size);
                // SAFETY: element l + j of lines g..g + n: `n·size` bytes inside `dst`.
                unsafe { super::lines256::store_first(at, v, n * size) };
            }
        }
    }
    whole
}

/// A 64-byte line of scratch.
#[derive(Clone, Copy)]
#[repr(C, align(64))]
struct Line([u8; 64]);

thread_local! {
    /// Each thread's packing scratch, kept between products: a fresh buffer for every product
    /// is a fresh mapping for large ones, whose page faults and unmapping (a TLB shootdown
    /// across the pool's threads) cost 256² products at 2 threads more than their packing.
    static SCRATCH: std::cell::Cell<Vec<Line>> = const { std::cell::Cell::new(Vec::new()) };
}

/// The calling thread's packing scratch, taken for one product and given back when dropped (a
/// nested product meanwhile makes its own): a [`Kept`] buffer, grown by [`Scratch::split`].
struct Scratch(Kept<Line>);

impl Scratch {
    fn take() -> Scratch {
        Scratch(Kept::take(&SCRATCH, 0, Line([0; 64])))
    }

    /// Two buffers of `a` and `b` elements, each starting on a line. Their contents are left
    /// from earlier products: the packing writes every element the kernels read.
    fn split<T: FmaElement>(&mut self, a: usize, b: usize) -> (&mut [T], &mut [T]) {
        let lines = |n: usize| (n * std::mem::size_of::<T>()).div_ceil(64);
        let need = lines(a) + lines(b);
        if self.0.len() < need {
            *self.0 = vec![Line([0; 64]); need];
        }
        let (x, y) = self.0.split_at_mut(lines(a));
        // SAFETY: `x` and `y` are disjoint, 64-byte aligned and hold at least `a` and `b`
        // elements of `T` (f32 or f64: every bit pattern is a value, alignment at most 8).
        unsafe {
            (
                std::slice::from_raw_parts_mut(x.as_mut_ptr() as *mut T, a),
                std::slice::from_raw_parts_mut(y.as_mut_ptr() as *mut T, b),
            )
        }
    }
}

/// A [`MicroKernel`]: the struct `$name` for the element type `$t`, compiled with the target
/// features `$features`: `MR` rows of 2 registers of `lanes` (the intrinsics of its width),
/// `a` packed `MC × KC` at a time, `b` `KC × NC`.
macro_rules! micro_kernel {
    ($name:ident, $t:ty, $features:literal, $available:path, lanes $lanes:literal, mr $mr:literal,
     mc $mc:literal, kc $kc:literal, nc $nc:literal,
     $zero:ident, $load:ident, $broadcast:ident, $fmadd:ident, $store:ident, $add:ident) => {
        #[doc = concat!("The ", stringify!($t), " micro-kernel in ", $features, ".")]
        pub(crate) struct $name;

        impl MicroKernel for $name {
            type Element = $t;
            const MR: usize = $mr;
            const NR: usize = 2 * $lanes;
            const MC: usize = $mc;
            const KC: usize = $kc;
            const NC: usize = $nc;

            fn available() -> bool {
                $available()
            }

            #[cfg(test)]
            const FEATURES: &'static str = $features;

            unsafe fn kernel(kc: usize, a: *const $t, b: *const $t, t: Tile<$t>) {
                /// The kernel with its target features.
                #[target_feature(enable = $features)]
                unsafe fn fast(kc: usize, a: *const $t, b: *const $t, t: Tile<$t>) {
                    let Tile {
                        c,
                        rs: rsc,
                        cs: csc,
                        rows: mr,
                        cols: nr,
                        first,
                    } = t;
                    const NR: usize = 2 * $lanes;
                    let mut acc = [[$zero(); 2]; $mr];
                    for l in 0..kc {
                        // SAFETY: element l of the panels: `a` holds kc·MR elements, `b`
                        // kc·NR (the caller's).
                        unsafe {
                            let bp = b.add(l * NR);
                            let (b0, b1) = ($load(bp), $load(bp.add($lanes)));
                            let ap = a.add(l * $mr);
                            for (i, row) in acc.iter_mut().enumerate() {
                                let x = $broadcast(*ap.add(i));
                                row[0] = $fmadd(x, b0, row[0]);
                                row[1] = $fmadd(x, b1, row[1]);
                            }
                        }
                    }
                    if mr == $mr && nr == NR && csc == 1 {
                        // whole registers into the tile's rows
                        for (i, row) in acc.iter().enumerate() {
                            let p = c.wrapping_offset(i as isize * rsc);
                            for (v, &sum) in row.iter().enumerate() {
                                let at = p.wrapping_add(v * $lanes);
                                // SAFETY: row i, columns v·lanes.. of the tile: contiguous,
                                // inside `c` (the caller's), readable when not `first`.
                                unsafe {
                                    if first {
                                        $store(at, sum);
                                    } else {
                                        $store(at, $add($load(at), sum));
                                    }
                                }
                            }
                        }
                        return;
                    }
                    // a partial tile (or strided columns): through a copy on the stack
                    let mut tmp = [[<$t>::default(); NR]; $mr];
                    for (out, row) in tmp.iter_mut().zip(&acc) {
                        for (v, &sum) in row.iter().enumerate() {
                            // SAFETY: `lanes` elements inside a row of `tmp`.
                            unsafe { $store(out.as_mut_ptr().add(v * $lanes), sum) };
                        }
                    }
                    for (i, row) in tmp.iter().enumerate().take(mr) {
                        for (j, &x) in row.iter().enumerate().take(nr) {
                            let at = c.wrapping_offset(i as isize * rsc + j as isize * csc);
                            // SAFETY: element (i, j) of the tile, inside `c` (the caller's).
                            unsafe { *at = if first { x } else { *at + x } };
                        }
                    }
                }
                // SAFETY: the caller's guarantees, which are `fast`'s (the kernel is
                // available: the CPU has its features).
                unsafe { fast(kc, a, b, t) }
            }

            unsafe fn pack_a(
                dst: &mut [$t],
                src: *const $t,
                s: (isize, isize),
                n: usize,
                d: usize,
            ) {
                // SAFETY: the caller's guarantees.
                unsafe { pack::<$t, $mr>(dst, src, s, n, d) }
            }

            unsafe fn pack_b(
                dst: &mut [$t],
                src: *const $t,
                s: (isize, isize),
                n: usize,
                d: usize,
            ) {
                // SAFETY: the caller's guarantees.
                unsafe { pack::<$t, { 2 * $lanes }>(dst, src, s, n, d) }
            }
        }
    };
}

// AVX2: 6 × 16 float32 tiles (12 of the 16 ymm registers), `a` blocks of 144 × 256 (144 KiB,
// in L2), `b` panels 256 × 16 (16 KiB, in L1); float64 the same bytes
micro_kernel!(F32Avx2, f32, "avx2,fma", crate::exec::cpu::avx2, lanes 8, mr 6,
    mc 144, kc 256, nc 4096,
    _mm256_setzero_ps, _mm256_loadu_ps, _mm256_set1_ps, _mm256_fmadd_ps, _mm256_storeu_ps,
    _mm256_add_ps);
micro_kernel!(F64Avx2, f64, "avx2,fma", crate::exec::cpu::avx2, lanes 4, mr 6,
    mc 72, kc 256, nc 2048,
    _mm256_setzero_pd, _mm256_loadu_pd, _mm256_set1_pd, _mm256_fmadd_pd, _mm256_storeu_pd,
    _mm256_add_pd);
// AVX-512: 12 × 32 float32 tiles (24 of the 32 zmm registers), `b` panels KC × 32 (KC·128
// bytes, in L1 beside the `a` panel in use); float64 the same bytes
micro_kernel!(F32Avx512, f32, "avx512f,avx2,fma", crate::exec::cpu::avx512, lanes 16, mr 12,
    mc 192, kc 256, nc 4096,
    _mm512_setzero_ps, _mm512_loadu_ps, _mm512_set1_ps, _mm512_fmadd_ps, _mm512_storeu_ps,
    _mm512_add_ps);
micro_kernel!(F64Avx512, f64, "avx512f,avx2,fma", crate::exec::cpu::avx512, lanes 8, mr 12,
    mc 96, kc 256, nc 2048,
    _mm512_setzero_pd, _mm512_loadu_pd, _mm512_set1_pd, _mm512_fmadd_pd, _mm512_storeu_pd,
    _mm512_add_pd);

/// The [`FmaElement`] impl of a float type: its kernels and its matrix-vector loop (`W`
/// running sums).
macro_rules! fma_element {
    ($t:ty, $avx2:ident, $avx512:ident, gemv $w:literal) => {
        impl FmaElement for $t {
            type Avx2 = $avx2;
            type Avx512 = $avx512;

            #[inline(always)]
            fn fma(a: $t, b: $t, c: $t) -> $t {
                a.mul_add(b, c)
            }

            unsafe fn gemv(
                mk: (usize, usize),
                a: *const $t,
                sa: (isize, isize),
                x: &[$t],
                y: (*mut $t, isize),
            ) {
                /// [`gemv`] with FMA instructions.
                #[target_feature(enable = "avx2,fma")]
                unsafe fn fast(
                    mk: (usize, usize),
                    a: *const $t,
                    sa: (isize, isize),
                    x: &[$t],
                    y: (*mut $t, isize),
                ) {
                    // SAFETY: the caller's guarantees.
                    unsafe { gemv::<$t, $w>(mk, a, sa, x, y) }
                }
                // SAFETY: the caller's guarantees; the CPU has AVX2 and FMA (`gemm`'s
                // contract).
                unsafe { fast(mk, a, sa, x, y) }
            }
        }
    };
}

fma_element!(f32, F32Avx2, F32Avx512, gemv 32);
fma_element!(f64, F64Avx2, F64Avx512, gemv 16);

#[cfg(test)]
mod tests {
    use super::*;

    /// The product by the definition, in float64, `k` in order.
    fn reference(a: &[f64], b: &[f64], (m, k, n): (usize, usize, usize)) -> Vec<f64> {
        let mut c = vec![0.0; m * n];
        for i in 0..m {
            for j in 0..n {
                c[i * n + j] = (0..k).map(|l| a[i * k + l] * b[l * n + j]).sum();
            }
        }
        c
    }

    /// The `cols × rows` row-major transpose of a `rows × cols` row-major matrix.
    fn transposed(v: &[f64], rows: usize, cols: usize) -> Vec<f64> {
        (0..rows * cols)
            .map(|x| v[(x % rows) * cols + x / rows])
            .collect()
    }

    /// Small integers, so that every sum is exact in float32 and float64 alike.
    fn values(len: usize, seed: usize) -> Vec<f64> {
        (0..len)
            .map(|i| ((i * 7 + seed * 13) % 11) as f64 - 5.0)
            .collect()
    }

    /// `len` values in [-0.5, 0.5) with 24 significant bits from a linear congruential
    /// generator at `seed` (advanced): products of them round, in float32 and float64 alike.
    fn rounding_values<T: From<f32>>(seed: &mut u64, len: usize) -> Vec<T> {
        (0..len)
            .map(|_| {
                *seed = seed
                    .wrapping_mul(6364136223846793005)
                    .wrapping_add(1442695040888963407);
                T::from((*seed >> 40) as f32 / (1u64 << 24) as f32 - 0.5)
            })
            .collect()
    }

    /// Every edge of the blocking (partial tiles, panels, blocks of `MC`, `KC` and `NC`,
    /// the transposed path of few columns) and every operand layout (row-major, column-major,
    /// reversed, broadcast), exact against the reference; `c` between its elements untouched.
    fn products_are_exact<K: MicroKernel>()
    where
        K::Element: From<i8> + Into<f64>,
    {
        if !crate::exec::cpu::test_runs(K::FEATURES, K::available()) {
            return;
        }
        let sides = [1usize, 2, 5, 6, 7, 15, 16, 17, 33];
        let mut shapes: Vec<(usize, usize, usize)> = Vec::new();
        for &m in &sides {
            for &n in &sides {
                shapes.push((m, 3, n));
            }
        }
        shapes.extend([
            (K::MC + 7, K::KC + 3, K::NR * 2 + 1),
            (13, 2 * K::KC + 1, 9),
            (7, 5, K::NC + K::NR + 3),
            (200, 1, 1),
            (1, 40, 300),
            (40, 0, 3),
        ]);
        for (case, &(m, k, n)) in shapes.iter().enumerate() {
            let (av, bv) = (values(m * k, case), values(k * n, case + 1));
            let want = reference(&av, &bv, (m, k, n));
            let conv = |v: &[f64]| -> Vec<K::Element> {
                v.iter().map(|&x| K::Element::from(x as i8)).collect()
            };
            for layout in 0..4 {
                // a row-major / column-major / reversed rows / a broadcast row of ones
                let (a, sa): (Vec<K::Element>, (isize, isize)) = match layout {
                    0 | 3 => (conv(&av), (k as isize, 1)),
                    1 => (conv(&transposed(&av, m, k)), (1, m as isize)),
                    _ => (conv(&av), (k as isize, 1)),
                };
                let (b, sb): (Vec<K::Element>, (isize, isize)) = match layout {
                    1 | 2 => (conv(&transposed(&bv, k, n)), (1, k as isize)),
                    _ => (conv(&bv), (n as isize, 1)),
                };
                let ones = vec![K::Element::from(1); k.max(1)];
                // reversed rows of `a` (layout 2): start at the last row, negative stride
                let (a_ptr, sa) = match layout {
                    2 if m * k > 0 => (a[(m - 1) * k..].as_ptr(), (-(k as isize), 1)),
                    3 => (ones.as_ptr(), (0, 1)),
                    _ => (a.as_ptr(), sa),
                };
                let expect: Vec<f64> = match layout {
                    2 => (0..m * n)
                        .map(|x| want[(m - 1 - x / n) * n + x % n])
                        .collect(),
                    3 => {
                        let col: Vec<f64> = (0..n)
                            .map(|j| (0..k).map(|l| bv[l * n + j]).sum())
                            .collect();
                        (0..m * n).map(|x| col[x % n]).collect()
                    }
                    _ => want.clone(),
                };
                // c with a gap of 3 after each row, filled with a marker
                let ldc = n + 3;
                let mut c = vec![K::Element::from(99); m * ldc];
                // SAFETY: the operands' elements lie in `a_ptr`'s, `b`'s and `c`'s buffers
                // as addressed; `c`'s are distinct; the kernel available (checked).
                unsafe {
                    product::<K>(
                        (m, k, n),
                        Whole::of(m, n),
                        (a_ptr, sa),
                        (b.as_ptr(), sb),
                        (c.as_mut_ptr(), (ldc as isize, 1)),
                    )
                };
                for i in 0..m {
                    for j in 0..ldc {
                        let got: f64 = c[i * ldc + j].into();
                        let exp = if j < n { expect[i * n + j] } else { 99.0 };
                        assert_eq!(got, exp, "{m}x{k}x{n}, layout {layout}, ({i}, {j})");
                    }
                }
            }
        }
    }

    /// A product cut into parts by rows and by columns (down to single rows and columns, as
    /// the pool's units may be) gives the whole product's bits, on values whose sums round.
    fn parts_give_the_same_bits<K: MicroKernel>()
    where
        K::Element: From<f32> + Into<f64>,
    {
        if !crate::exec::cpu::test_runs(K::FEATURES, K::available()) {
            return;
        }
        let mut seed = 12345u64;
        for (m, k, n) in [
            (65, 300, 40),
            (5, 600, 70),
            (130, 2 * K::KC + 1, 17),
            (1, 300, 90),
        ] {
            let a: Vec<K::Element> = rounding_values(&mut seed, m * k);
            let b: Vec<K::Element> = rounding_values(&mut seed, k * n);
            let run = |rows: (usize, usize), cols: (usize, usize)| {
                let mut c = vec![K::Element::default(); (rows.1 - rows.0) * (cols.1 - cols.0)];
                // SAFETY: rows `rows` of `a` and columns `cols` of `b` (row-major), a
                // row-major `c` of that size; the kernel available (checked).
                unsafe {
                    product::<K>(
                        (rows.1 - rows.0, k, cols.1 - cols.0),
                        Whole::of(m, n),
                        (a[rows.0 * k..].as_ptr(), (k as isize, 1)),
                        (b[cols.0..].as_ptr(), (n as isize, 1)),
                        (c.as_mut_ptr(), ((cols.1 - cols.0) as isize, 1)),
                    )
                };
                c
            };
            let whole: Vec<f64> = run((0, m), (0, n)).into_iter().map(Into::into).collect();
            for cut in [1, 6, 64, m - 1].into_iter().filter(|&r| r < m) {
                let mut parts = run((0, cut), (0, n));
                parts.extend(run((cut, m), (0, n)));
                let parts: Vec<f64> = parts.into_iter().map(Into::into).collect();
                assert_eq!(parts, whole, "{m}x{k}x{n} cut at row {cut}");
            }
            for cut in [1, 16, n - 1].into_iter().filter(|&j| j < n) {
                let (left, right) = (run((0, m), (0, cut)), run((0, m), (cut, n)));
                for i in 0..m {
                    for j in 0..n {
                        let got: f64 = if j < cut {
                            left[i * cut + j].into()
                        } else {
                            right[i * (n - cut) + j - cut].into()
                        };
                        assert_eq!(got, whole[i * n + j], "{m}x{k}x{n} cut at column {cut}");
                    }
                }
            }
        }
    }

    #[test]
    fn parts_of_products_give_the_same_bits() {
        parts_give_the_same_bits::<F32Avx2>();
        parts_give_the_same_bits::<F64Avx2>();
        parts_give_the_same_bits::<F32Avx512>();
        parts_give_the_same_bits::<F64Avx512>();
    }

    /// The AVX2 and AVX-512 kernels of a type give the same bits (the same `KC`, so every
    /// element's FMA chains and block sums are the same; 20 float32 and 12 float64 columns are
    /// a transposed product for the AVX-512 kernel only), on values whose sums round.
    fn kernels_agree<A, B>()
    where
        A: MicroKernel,
        B: MicroKernel<Element = A::Element>,
        A::Element: From<f32> + Into<f64>,
    {
        assert_eq!(A::KC, B::KC, "the kernels block k alike");
        let runs = |features, available| crate::exec::cpu::test_runs(features, available);
        if !(runs(A::FEATURES, A::available()) && runs(B::FEATURES, B::available())) {
            return;
        }
        let mut seed = 987654321u64;
        for (m, k, n) in [
            (70, 600, 45),
            (13, 257, 100),
            (200, 90, 7),
            (100, 300, 20),
            (100, 300, 12),
        ] {
            let a: Vec<A::Element> = rounding_values(&mut seed, m * k);
            let b: Vec<A::Element> = rounding_values(&mut seed, k * n);
            let bits = |c: Vec<A::Element>| c.into_iter().map(Into::into).collect::<Vec<f64>>();
            assert_eq!(
                bits(row_major_product::<A>(&a, &b, (m, k, n))),
                bits(row_major_product::<B>(&a, &b, (m, k, n))),
                "{m}x{k}x{n}"
            );
        }
    }

    /// `a · b` of row-major operands into a new row-major `c`, by the kernel `K` (available).
    fn row_major_product<K: MicroKernel>(
        a: &[K::Element],
        b: &[K::Element],
        (m, k, n): (usize, usize, usize),
    ) -> Vec<K::Element> {
        assert!(K::available() && a.len() == m * k && b.len() == k * n);
        let mut c = vec![K::Element::default(); m * n];
        // SAFETY: row-major `a`, `b` and `c` of these sizes (checked); the kernel available.
        unsafe {
            product::<K>(
                (m, k, n),
                Whole::of(m, n),
                (a.as_ptr(), (k as isize, 1)),
                (b.as_ptr(), (n as isize, 1)),
                (c.as_mut_ptr(), (n as isize, 1)),
            )
        };
        c
    }

    #[test]
    fn the_avx2_and_avx512_kernels_agree() {
        kernels_agree::<F32Avx2, F32Avx512>();
        kernels_agree::<F64Avx2, F64Avx512>();
    }

    #[test]
    fn float32_products_are_exact() {
        products_are_exact::<F32Avx2>();
        products_are_exact::<F32Avx512>();
    }

    #[test]
    fn float64_products_are_exact() {
        products_are_exact::<F64Avx2>();
        products_are_exact::<F64Avx512>();
    }
}
