//! Batched matrix products: float32 and float64 through [`super::gemm_fma`] where the CPU has
//! AVX2 and FMA, else (and complex64, complex128) through `matrixmultiply`. Each operand is
//! read in place with its own element strides (any sign, zero included for the inputs), the
//! result is a new contiguous array. The work is cut into (batch, row block, column block)
//! units run on the pool, the columns cut only where there are fewer row blocks than threads;
//! a task's consecutive row blocks of one batch are one single-threaded GEMM. Both GEMMs form
//! every element's sum the same way whatever the rows and columns around it, so a result
//! never depends on the thread count or on how the work was cut.
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

/// An element `matrixmultiply` multiplies.
pub(crate) trait GemmElement: Element {
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
    let row_blocks = m.div_ceil(ROWS_PER_UNIT);
    // products of fewer row blocks than threads are cut by columns too (how a product is cut
    // never changes a sum, so this may follow the thread count)
    let threads = crate::exec::pool::get_num_threads();
    let col_blocks = if row_blocks >= threads {
        1
    } else {
        threads
            .div_ceil(row_blocks)
            .min(n.div_ceil(MIN_COLS_PER_UNIT))
            .max(1)
    };
    let cols_per_unit = n.div_ceil(col_blocks);
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
        let mut u = begin;
        while u < end {
            let (t, rest) = (u / (row_blocks * col_blocks), u % (row_blocks * col_blocks));
            let (block, col_block) = (rest / col_blocks, rest % col_blocks);
            // whole rows: the task's consecutive units of this batch; else this unit's columns
            let last = if col_blocks == 1 {
                end.min((t + 1) * row_blocks)
            } else {
                u + 1
            };
            let r0 = block * ROWS_PER_UNIT;
            let rows = (block + last - u) * ROWS_PER_UNIT;
            let rows = rows.min(m) - r0;
            let col0 = col_block * cols_per_unit;
            let cols = cols_per_unit.min(n - col0);
            u = last;
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
        }
    })?;
    Ok(out)
}
