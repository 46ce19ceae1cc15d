//! Batched matrix products. Where the CPU has AVX2 and FMA (x86-64), products of matrices
//! (not a matrix and a vector) of more than [`CRATE_MIN_ELEMENTS`] result elements, of
//! float32, float64, complex64 and complex128, run through the `gemm` crate (faer's; its
//! AVX-512 kernels where the CPU has them); the other products of float32 and float64 through
//! [`super::gemm_fma`] (matrix-vector loops, small products), and everything without AVX2
//! (and the complex products the crate does not take) through `matrixmultiply`. Which GEMM
//! runs is chosen by the whole product, never by a part of it. Each operand is read in place
//! with its own element strides (any sign, zero included for the inputs), the result is a new
//! contiguous array. The work is cut into (batch, row block, column block) units run on the
//! pool, the columns cut only where there are fewer row blocks than threads; a task's
//! consecutive row blocks of one batch are one single-threaded GEMM call.
//!
//! A result never depends on the thread count or on how the work was cut: every GEMM here
//! forms each element's sum the same way whatever the rows and columns around it. `gemm_fma`
//! and `matrixmultiply` do so for any part. The `gemm` crate does for the parts this module
//! gives it: its depth block (how many terms one register chain sums before the chains are
//! added to the result, in order) would follow the call's sizes (512 terms for parts of at
//! most 64 × 64, `k` split evenly in blocks of at most 512 for larger ones), so each call
//! here gets at most [`CRATE_KC`] terms, blocks of `k` fixed by `k` alone and added to the
//! result in order; and it switches to dot-product or matrix-vector kernels (which sum
//! differently) for parts of at most 256 elements or of one row or column, so every part
//! given to it has more than 256 elements and at least two rows and two columns
//! ([`Cut::of`]). Its AVX2 and AVX-512 kernels then give the same bits (measured with both
//! builds of the crate on one machine), so `FERROITER_CPU_CAPABILITY=avx2` and `avx512` agree.
//! Raw memory: see the invariants in [`super`].

use super::SendPtr;
use crate::error::{Error, Result};
use crate::exec::tasks::{run_tasks, task_count};
use crate::kernels::element::{Element, C128, C64};
use crate::Array;
use matrixmultiply::CGemmOption;

/// Rows per unit of work: large enough for the GEMM's packing to pay, small enough to share
/// a 1024-row product among the threads.
const ROWS_PER_UNIT: usize = 64;
/// Fewest columns per unit where a product of few rows is also split by columns.
const MIN_COLS_PER_UNIT: usize = 32;
/// Fewest result elements of a product the `gemm` crate runs, and of each part of it: at 256
/// or fewer the crate takes dot-product kernels for some layouts.
const CRATE_MIN_ELEMENTS: usize = 257;
/// Most terms of `k` one `gemm` crate call sums (the crate's own depth block for parts of at
/// most 64 × 64; larger parts would take blocks that follow `k` differently).
#[cfg(target_arch = "x86_64")]
const CRATE_KC: usize = 512;

/// What the whole product that a GEMM call is part of multiplies: every part of a product
/// takes the same loop (the matrix-vector loop forms its sums differently), whatever the
/// part's own sizes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Whole {
    /// Matrices: the blocked product.
    Matrices,
    /// A matrix times a vector (one column).
    MatrixVector,
    /// A vector times a matrix (one row): the transposed matrix-vector loop.
    VectorMatrix,
}

impl Whole {
    /// The kind of an `m × k` times `k × n` product.
    pub(crate) fn of(m: usize, n: usize) -> Whole {
        match (m, n) {
            (_, 1) => Whole::MatrixVector,
            (1, _) => Whole::VectorMatrix,
            _ => Whole::Matrices,
        }
    }
}

/// One single-threaded product `c = a · b` of an `m × k` and a `k × n` matrix, each operand
/// addressed by its first element and its (row, column) element strides; `whole`: what the
/// product it is part of multiplies.
pub(crate) struct GemmCall<T> {
    #[cfg_attr(not(target_arch = "x86_64"), allow(dead_code))]
    whole: Whole,
    /// Whether the `gemm` crate runs the product ([`GemmElement::by_crate`] of the whole).
    #[cfg_attr(not(target_arch = "x86_64"), allow(dead_code))]
    by_crate: bool,
    m: usize,
    k: usize,
    n: usize,
    a: *const T,
    a_strides: (isize, isize),
    b: *const T,
    b_strides: (isize, isize),
    c: *mut T,
    c_strides: (isize, isize),
}

/// An element the GEMMs multiply.
pub(crate) trait GemmElement: Element {
    /// Whether the `gemm` crate runs an `m × k` times `k × n` product of this type here: a
    /// product of matrices of more than [`CRATE_MIN_ELEMENTS`] results (`k > 0`), on x86-64
    /// with AVX2 and FMA (not the `default` capability).
    fn by_crate(m: usize, n: usize) -> bool {
        cfg!(target_arch = "x86_64")
            && Whole::of(m, n) == Whole::Matrices
            && m * n >= CRATE_MIN_ELEMENTS
            && crate::exec::cpu::avx2()
    }

    /// Runs `call`.
    ///
    /// # Safety
    /// `a + i·rsa + l·csa` (`i < m`, `l < k`) and `b + l·rsb + j·csb` (`l < k`, `j < n`) must
    /// address readable elements, and `c + i·rsc + j·csc` distinct writable elements that no
    /// one else accesses meanwhile.
    unsafe fn gemm(call: &GemmCall<Self>);
}

macro_rules! real_gemm {
    ($t:ty, $f:ident) => {
        impl GemmElement for $t {
            unsafe fn gemm(g: &GemmCall<Self>) {
                let ((rsa, csa), (rsb, csb), (rsc, csc)) = (g.a_strides, g.b_strides, g.c_strides);
                #[cfg(target_arch = "x86_64")]
                if g.by_crate {
                    // SAFETY: the caller's guarantee is `crate_gemm`'s contract; `by_crate`
                    // was set by `by_crate` of the whole product.
                    unsafe { crate_gemm(g, 1.0) };
                    return;
                }
                #[cfg(target_arch = "x86_64")]
                if crate::exec::cpu::avx2() {
                    // SAFETY: the caller's guarantee is `gemm_fma::gemm`'s contract; the CPU
                    // has AVX2 and FMA (`cpu::avx2`).
                    unsafe {
                        super::gemm_fma::gemm(
                            (g.m, g.k, g.n),
                            g.whole,
                            (g.a, (rsa, csa)),
                            (g.b, (rsb, csb)),
                            (g.c, (rsc, csc)),
                        )
                    };
                    return;
                }
                // SAFETY: the caller's guarantee is matrixmultiply's contract (β = 0, so `c`
                // is only written).
                unsafe {
                    matrixmultiply::$f(
                        g.m, g.k, g.n, 1.0, g.a, rsa, csa, g.b, rsb, csb, 0.0, g.c, rsc, csc,
                    )
                }
            }
        }
    };
}
real_gemm!(f32, sgemm);
real_gemm!(f64, dgemm);

macro_rules! complex_gemm {
    ($t:ty, $parts:ty, $f:ident) => {
        impl GemmElement for $t {
            unsafe fn gemm(g: &GemmCall<Self>) {
                #[cfg(target_arch = "x86_64")]
                if g.by_crate {
                    // SAFETY: as for the real types.
                    unsafe { crate_gemm(g, <$t>::new(1.0, 0.0)) };
                    return;
                }
                let ((rsa, csa), (rsb, csb), (rsc, csc)) = (g.a_strides, g.b_strides, g.c_strides);
                let (one, zero): ($parts, $parts) = ([1.0, 0.0], [0.0, 0.0]);
                let standard = CGemmOption::Standard;
                let (a, b, c) = (
                    g.a as *const $parts,
                    g.b as *const $parts,
                    g.c as *mut $parts,
                );
                // SAFETY: `num_complex::Complex<F>` is `repr(C)` `{ re, im }`, the layout of
                // matrixmultiply's `[F; 2]`; otherwise as for the real types.
                unsafe {
                    matrixmultiply::$f(
                        standard, standard, g.m, g.k, g.n, one, a, rsa, csa, b, rsb, csb, zero, c,
                        rsc, csc,
                    )
                }
            }
        }
    };
}
complex_gemm!(C64, [f32; 2], cgemm);
complex_gemm!(C128, [f64; 2], zgemm);

/// `call` through the `gemm` crate, single-threaded: `k` in blocks of at most [`CRATE_KC`]
/// terms, as many as `k` needs and as even as they go (so fixed by `k` alone), each added to
/// the result in order (the first writes it). `one`: 1 of `T`.
///
/// # Safety
/// As for [`GemmElement::gemm`]; `T` is `f32`, `f64`, `C64` or `C128` (num-complex's
/// `Complex32` and `Complex64`, the crate's `c32` and `c64`), `call.k > 0`, and the call's
/// part has at least two rows, two columns and [`CRATE_MIN_ELEMENTS`] elements ([`Cut`]).
#[cfg(target_arch = "x86_64")]
unsafe fn crate_gemm<T: 'static + Copy>(g: &GemmCall<T>, one: T) {
    let ((rsa, csa), (rsb, csb), (rsc, csc)) = (g.a_strides, g.b_strides, g.c_strides);
    let depth = g.k.div_ceil(g.k.div_ceil(CRATE_KC));
    let mut l0 = 0;
    while l0 < g.k {
        let kb = depth.min(g.k - l0);
        let a = g.a.wrapping_offset(l0 as isize * csa);
        let b = g.b.wrapping_offset(l0 as isize * rsb);
        // SAFETY: columns `l0..l0 + kb` of `a` and rows `l0..l0 + kb` of `b` are among the
        // elements the caller guarantees; `c` is only read after the first block wrote it
        // (`read_dst`: c = 1·c + 1·a·b); the crate takes any strides (it flips negative ones
        // of the result and of `a`'s columns itself) and `T` is one of its types.
        unsafe {
            gemm::gemm(
                g.m,
                g.n,
                kb,
                g.c,
                csc,
                rsc,
                l0 > 0,
                a,
                csa,
                rsa,
                b,
                csb,
                rsb,
                one,
                one,
                false,
                false,
                false,
                gemm::Parallelism::None,
            )
        };
        l0 += kb;
    }
}

/// How a product's rows and columns are cut into blocks (the units of work are a row block
/// by a column block of one batch): block `i` of `count` starts at `i · size`, the last one
/// runs to the end.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Cut {
    row_blocks: usize,
    rows: usize,
    col_blocks: usize,
    cols: usize,
}

impl Cut {
    /// The cut of an `m × n` product (`m, n > 0`) for `threads` threads, `by_crate` where the
    /// `gemm` crate runs it: then every block has at least two rows, two columns and
    /// [`CRATE_MIN_ELEMENTS`] elements (the last blocks take what is left over instead of
    /// being blocks of their own). Products of fewer row blocks than threads are cut by
    /// columns too (how a product is cut never changes a sum, so this may follow the thread
    /// count).
    fn of(m: usize, n: usize, threads: usize, by_crate: bool) -> Cut {
        if !by_crate {
            let row_blocks = m.div_ceil(ROWS_PER_UNIT);
            let col_blocks = if row_blocks >= threads {
                1
            } else {
                threads
                    .div_ceil(row_blocks)
                    .min(n.div_ceil(MIN_COLS_PER_UNIT))
                    .max(1)
            };
            return Cut {
                row_blocks,
                rows: ROWS_PER_UNIT,
                col_blocks,
                cols: n.div_ceil(col_blocks),
            };
        }
        // rows · n > 256 in every block, the last taking the rest
        let rows = ROWS_PER_UNIT.max(CRATE_MIN_ELEMENTS.div_ceil(n));
        let row_blocks = (m / rows).max(1);
        let fewest_rows = rows.min(m);
        let fewest_cols = MIN_COLS_PER_UNIT.max(CRATE_MIN_ELEMENTS.div_ceil(fewest_rows));
        let col_blocks = if row_blocks >= threads {
            1
        } else {
            threads.div_ceil(row_blocks).min(n / fewest_cols).max(1)
        };
        Cut {
            row_blocks,
            rows,
            col_blocks,
            cols: n / col_blocks,
        }
    }

    /// The single-threaded GEMM calls of units `begin..end` of an `m × n` product (units
    /// numbered by batch, row block, column block): `f(batch, (first row, rows), (first
    /// column, columns))`. Without a column cut, a task's consecutive row blocks of one batch
    /// are one call (`b` is packed once per call).
    fn calls(
        &self,
        begin: usize,
        end: usize,
        (m, n): (usize, usize),
        mut f: impl FnMut(usize, (usize, usize), (usize, usize)),
    ) {
        let per_batch = self.row_blocks * self.col_blocks;
        let mut u = begin;
        while u < end {
            let (t, rest) = (u / per_batch, u % per_batch);
            let (block, col_block) = (rest / self.col_blocks, rest % self.col_blocks);
            // whole rows: the task's consecutive units of this batch; else this unit's columns
            let last = if self.col_blocks == 1 {
                end.min((t + 1) * self.row_blocks)
            } else {
                u + 1
            };
            f(
                t,
                self.row_range(block, block + last - u, m),
                self.col_range(col_block, n),
            );
            u = last;
        }
    }

    /// First row and row count of row blocks `first..last`, of `m` rows.
    fn row_range(&self, first: usize, last: usize, m: usize) -> (usize, usize) {
        let end = if last == self.row_blocks {
            m
        } else {
            last * self.rows
        };
        (first * self.rows, end - first * self.rows)
    }

    /// First column and column count of column block `j`, of `n` columns.
    fn col_range(&self, j: usize, n: usize) -> (usize, usize) {
        let end = if j + 1 == self.col_blocks {
            n
        } else {
            (j + 1) * self.cols
        };
        (j * self.cols, end - j * self.cols)
    }
}

/// `a @ b` for `a` of shape `(batch..., m, k)` and `b` of `(batch..., k, n)` (the same batch
/// shape: broadcast them first), both of dtype `T`: a new contiguous `(batch..., m, n)` array.
pub(crate) fn batched_gemm<T: GemmElement>(a: &Array, b: &Array, grain: usize) -> Result<Array> {
    let nd = a.ndim();
    let fits = nd >= 2
        && b.ndim() == nd
        && a.shape()[..nd - 2] == b.shape()[..nd - 2]
        && a.shape()[nd - 1] == b.shape()[nd - 2]
        && a.dtype() == T::DTYPE
        && b.dtype() == T::DTYPE;
    if !fits {
        return Err(Error::value("batched_gemm: operands that do not fit"));
    }
    // logical shapes with physical strides would address memory outside the storage
    a.refuse_blocked("matrix products")?;
    b.refuse_blocked("matrix products")?;
    let (m, k, n) = (a.shape()[nd - 2], a.shape()[nd - 1], b.shape()[nd - 1]);
    let batch_shape = &a.shape()[..nd - 2];
    let mut shape = batch_shape.to_vec();
    shape.extend([m, n]);
    let strides = crate::dims::contiguous_strides(&shape);
    // A new zeroed array that only this function writes until it returns it.
    let out = Array::empty_strided(&shape, &strides, T::DTYPE)?;
    let batches: usize = batch_shape.iter().product();
    if m == 0 || n == 0 || k == 0 || batches == 0 {
        return Ok(out); // nothing to sum: zeros (torch's result too)
    }
    let (sa, sb) = (a.strides(), b.strides());
    let by_crate = T::by_crate(m, n);
    let cut = Cut::of(m, n, crate::exec::pool::get_num_threads(), by_crate);
    let (row_blocks, col_blocks) = (cut.row_blocks, cut.col_blocks);
    let units = batches * row_blocks * col_blocks;
    let item = T::DTYPE.itemsize() as isize;
    let (pa, pb, pc) = (
        SendPtr(a.data_ptr() as *mut u8),
        SendPtr(b.data_ptr() as *mut u8),
        SendPtr(out.data_ptr() as *mut u8),
    );
    // Element offsets of batch `t` (row-major over the batch dims) in a, b and the result.
    let batch_offsets = |mut t: usize| {
        let (mut oa, mut ob, mut oc) = (0isize, 0isize, 0isize);
        for d in (0..nd - 2).rev() {
            let i = (t % batch_shape[d]) as isize;
            t /= batch_shape[d];
            oa += i * sa[d];
            ob += i * sb[d];
            oc += i * strides[d];
        }
        (oa, ob, oc)
    };
    let tasks = task_count(units, batches * m * n * k, grain);
    run_tasks(units, tasks, |begin, end| {
        // the task's units, one product per batch they cover (its rows in one call: `b` is
        // packed once per call, and how rows are split never changes a sum)
        cut.calls(begin, end, (m, n), |t, (r0, rows), (col0, cols)| {
            let (oa, ob, oc) = batch_offsets(t);
            let oa = oa + r0 as isize * sa[nd - 2];
            let ob = ob + col0 as isize * sb[nd - 1];
            let oc = oc + r0 as isize * strides[nd - 2] + col0 as isize * strides[nd - 1];
            let a0 = pa.get().wrapping_offset(oa * item) as *const T;
            let b0 = pb.get().wrapping_offset(ob * item) as *const T;
            let c0 = pc.get().wrapping_offset(oc * item) as *mut T;
            // SAFETY: a, b and out are arrays of dtype `T` (checked above) whose layouts were
            // checked against their storages, so rows `r0..r0 + rows` of batch `t` of `a` and
            // the result and columns `col0..col0 + cols` of `b` and the result, walked with their
            // own strides, are their elements; `out` is new, contiguous (no two (i, j) alias)
            // and only this task writes these rows and columns of this batch.
            unsafe {
                T::gemm(&GemmCall {
                    whole: Whole::of(m, n),
                    by_crate,
                    m: rows,
                    k,
                    n: cols,
                    a: a0,
                    a_strides: (sa[nd - 2], sa[nd - 1]),
                    b: b0,
                    b_strides: (sb[nd - 2], sb[nd - 1]),
                    c: c0,
                    c_strides: (strides[nd - 2], strides[nd - 1]),
                })
            };
        });
    })?;
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::exec::tasks::{piece_count, piece_range};

    /// Every block of a `gemm` crate product's cut, alone or merged with the next ones of its
    /// task, has two rows, two columns and more than 256 elements, and the blocks tile it.
    #[test]
    fn crate_cuts_give_the_crate_large_parts() {
        for m in (2..300).step_by(7).chain([64, 65, 128, 129, 1000, 1100]) {
            for n in [2, 3, 4, 5, 9, 31, 32, 33, 63, 64, 65, 100, 129, 257, 700] {
                if m * n < CRATE_MIN_ELEMENTS {
                    continue;
                }
                for threads in [1, 2, 3, 4, 5, 8, 16, 17] {
                    let cut = Cut::of(m, n, threads, true);
                    let units = cut.row_blocks * cut.col_blocks;
                    let mut seen = vec![0u8; m * n];
                    for tasks in [1, 2, 3, threads] {
                        let pieces = piece_count(units, tasks, tasks);
                        seen.iter_mut().for_each(|s| *s = 0);
                        for p in 0..pieces {
                            let (b, e) = piece_range(units, pieces, p);
                            cut.calls(b, e, (m, n), |t, (r0, rows), (c0, cols)| {
                                assert_eq!(t, 0);
                                let what = format!("{m}x{n} {threads} threads: {cut:?}");
                                assert!(rows >= 2 && cols >= 2, "{what}");
                                assert!(rows * cols >= CRATE_MIN_ELEMENTS, "{what}");
                                for i in r0..r0 + rows {
                                    for j in c0..c0 + cols {
                                        seen[i * n + j] += 1;
                                    }
                                }
                            });
                        }
                        assert!(seen.iter().all(|&s| s == 1), "{m}x{n} {threads}");
                    }
                }
            }
        }
    }

    /// Values with sums that round, in [-0.5, 0.5).
    fn values<T: Element>(len: usize, seed: u64) -> Vec<T> {
        let mut x = seed
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        (0..len)
            .map(|_| {
                x = x
                    .wrapping_mul(6364136223846793005)
                    .wrapping_add(1442695040888963407);
                let re = (x >> 40) as f64 / (1u64 << 24) as f64 - 0.5;
                x = x
                    .wrapping_mul(6364136223846793005)
                    .wrapping_add(1442695040888963407);
                let im = (x >> 40) as f64 / (1u64 << 24) as f64 - 0.5;
                T::from_c128(C128::new(re, im))
            })
            .collect()
    }

    /// The product of `a` and `b` (`m × k`, `k × n`, element strides as given, from offsets
    /// `oa` and `ob` into the slices) run as `threads` threads would run it, into a new
    /// row-major `m × n` result.
    #[allow(clippy::too_many_arguments)]
    fn product<T: GemmElement>(
        (m, k, n): (usize, usize, usize),
        (a, oa, sa): (&[T], isize, (isize, isize)),
        (b, ob, sb): (&[T], isize, (isize, isize)),
        threads: usize,
    ) -> Vec<T> {
        let mut c = vec![T::default(); m * n];
        let by_crate = T::by_crate(m, n);
        let cut = Cut::of(m, n, threads, by_crate);
        let units = cut.row_blocks * cut.col_blocks;
        let pieces = piece_count(units, threads, threads);
        for p in 0..pieces {
            let (begin, end) = piece_range(units, pieces, p);
            cut.calls(begin, end, (m, n), |_, (r0, rows), (c0, cols)| {
                let call = GemmCall {
                    whole: Whole::of(m, n),
                    by_crate,
                    m: rows,
                    k,
                    n: cols,
                    a: a.as_ptr().wrapping_offset(oa + r0 as isize * sa.0),
                    a_strides: sa,
                    b: b.as_ptr().wrapping_offset(ob + c0 as isize * sb.1),
                    b_strides: sb,
                    c: c.as_mut_ptr().wrapping_add(r0 * n + c0),
                    c_strides: (n as isize, 1),
                };
                // SAFETY: `a` and `b` hold every element their strides reach from their
                // offsets (the layouts below), `c` is `m × n` row-major and these rows and
                // columns of it are this call's alone.
                unsafe { T::gemm(&call) };
            });
        }
        c
    }

    /// Bits of a product, whatever the type.
    fn bits<T: Element>(c: &[T]) -> Vec<u64> {
        c.iter()
            .flat_map(|&x| {
                let z: C128 = Element::cast(x);
                [z.re.to_bits(), z.im.to_bits()]
            })
            .collect()
    }

    /// Products of every layout (row- and column-major operands, reversed rows or columns,
    /// broadcast rows) give the same bits at 1 to 16 threads, and the definition's values
    /// (along four rows and four columns of each).
    fn parts_give_the_same_bits<T: GemmElement>(tolerance: f64, shapes: &[(usize, usize, usize)]) {
        for &(m, k, n) in shapes {
            let (a, b) = (values::<T>(m * k, 1), values::<T>(k * n, 2));
            let (mi, ki, ni) = (m as isize, k as isize, n as isize);
            // (offset, strides) of `a` (m × k) and `b` (k × n) in their vectors
            let a_layouts = [
                (0, (ki, 1)),
                (0, (1, mi)),
                ((mi - 1) * ki, (-ki, 1)),
                (ki - 1, (ki, -1)),
                (0, (0, 1)),
            ];
            let b_layouts = [
                (0, (ni, 1)),
                (0, (1, ki)),
                ((ki - 1) * ni, (-ni, 1)),
                (0, (ni, 0)),
            ];
            for &(oa, sa) in &a_layouts {
                for &(ob, sb) in &b_layouts {
                    let at = |i: usize, l: usize| {
                        a[(oa + i as isize * sa.0 + l as isize * sa.1) as usize]
                    };
                    let bt = |l: usize, j: usize| {
                        b[(ob + l as isize * sb.0 + j as isize * sb.1) as usize]
                    };
                    let base = product((m, k, n), (&a, oa, sa), (&b, ob, sb), 1);
                    for threads in [2, 3, 4, 7, 16] {
                        let c = product((m, k, n), (&a, oa, sa), (&b, ob, sb), threads);
                        let what = format!("{:?} {m}x{k}x{n} {sa:?} {sb:?} {threads}", T::DTYPE);
                        assert!(bits(&c) == bits(&base), "{what}");
                    }
                    // the definition's value at the edges and the middle of every row and
                    // column (the whole product costs minutes in a debug build); the bits of
                    // every element are compared across thread counts above
                    let lines = |len: usize| [0, 1, len / 2, len.saturating_sub(1)];
                    let (rows, cols) = (lines(m), lines(n));
                    for i in 0..m {
                        for j in 0..n {
                            if !rows.contains(&i) && !cols.contains(&j) {
                                continue;
                            }
                            let mut want = C128::new(0.0, 0.0);
                            for l in 0..k {
                                let (x, y): (C128, C128) =
                                    (Element::cast(at(i, l)), Element::cast(bt(l, j)));
                                want += x * y;
                            }
                            let got: C128 = Element::cast(base[i * n + j]);
                            let err = (got - want).norm();
                            assert!(err <= tolerance * (k as f64).sqrt(), "{m}x{k}x{n} {err}");
                        }
                    }
                }
            }
        }
    }

    /// Shapes on both sides of the crate's limits: 256 results, 64 rows or columns, 512 and
    /// 1024 terms, two terms.
    const SHAPES: [(usize, usize, usize); 10] = [
        (2, 3, 129),
        (17, 600, 16),
        (16, 700, 17),
        (5, 2, 300),
        (65, 513, 65),
        (64, 1100, 100),
        (129, 40, 3),
        (200, 1030, 70),
        (50, 3000, 50),
        (300, 64, 257),
    ];

    #[test]
    fn float_parts_give_the_same_bits() {
        parts_give_the_same_bits::<f32>(1e-5, &SHAPES);
        parts_give_the_same_bits::<f64>(1e-13, &SHAPES);
    }

    #[test]
    fn complex_parts_give_the_same_bits() {
        // fewer and smaller than the float ones: the complex reference is slow in debug builds
        let shapes = [
            (2, 3, 129),
            (16, 700, 17),
            (65, 513, 40),
            (130, 1030, 8),
            (20, 40, 257),
        ];
        parts_give_the_same_bits::<C64>(1e-5, &shapes);
        parts_give_the_same_bits::<C128>(1e-13, &shapes);
    }

    /// Which GEMM runs a product: the crate only for matrices of more than 256 results, on
    /// AVX2 and FMA.
    #[test]
    fn the_crate_runs_products_of_matrices() {
        let avx2 = cfg!(target_arch = "x86_64") && crate::exec::cpu::avx2();
        assert_eq!(<f32 as GemmElement>::by_crate(16, 17), avx2);
        assert!(!<f64 as GemmElement>::by_crate(16, 16));
        assert!(!<f64 as GemmElement>::by_crate(1000, 1));
        assert!(!<C64 as GemmElement>::by_crate(1, 1000));
    }
}
