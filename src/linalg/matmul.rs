//! `matmul(a, b)`: torch's dispatch on the operands' dims — dot (1-D·1-D), mv (2-D·1-D),
//! vector-matrix (1-D·2-D, as a one-row mm), mm (2-D·2-D), a batch folded into rows (a ≥3-D
//! left operand whose batch collapses into rows without a copy, against a 1-D or 2-D right
//! one), else batched with the batch dims broadcast — each path with torch's checks, in its
//! order, and texts. Results are new and contiguous.
#![forbid(unsafe_code)]

use crate::dtype::DType;
use crate::error::{Error, Result};
use crate::exec::raw::gemm::batched_gemm;
use crate::exec::raw::lines::{from_slice, to_vec};
use crate::kernels::copy::converted_copy;
use crate::kernels::reduce::{c_type_name, into_out};
use crate::kernels::run::grain_size;
use crate::shape::infer_size;
use crate::{Array, MemoryFormat};

/// `matmul(a, b, out=)`.
pub fn matmul(a: &Array, b: &Array, out: Option<&Array>) -> Result<Array> {
    let (a, b) = (
        &crate::kernels::blocked::dense(a)?,
        &crate::kernels::blocked::dense(b)?,
    );
    let result = matmul_value(a, b)?;
    if let Some(o) = out {
        if o.dtype() != result.dtype() {
            return Err(Error::value(format!(
                "Expected out tensor to have dtype {}, but got {} instead",
                c_type_name(result.dtype()),
                c_type_name(o.dtype())
            )));
        }
    }
    into_out(result, out)
}

fn matmul_value(a: &Array, b: &Array) -> Result<Array> {
    let (da, db) = (a.ndim(), b.ndim());
    if da == 0 || db == 0 {
        return Err(Error::value(format!(
            "both arguments to matmul need to be at least 1D, but they are {da}D and {db}D"
        )));
    }
    match (da, db) {
        (1, 1) => dot(a, b),
        (2, 1) => mv(a, b),
        (1, 2) => mm(&a.unsqueeze(0)?, b)?.squeeze(Some(&[0])),
        (2, 2) => mm(a, b),
        _ if should_fold(a, b)? => {
            // the larger operand's batch folded into rows (a vector on the left multiplies
            // the right operand's transpose)
            let (t1, t2) = if db > da {
                (b.transpose(-2, -1)?, a)
            } else {
                (a.clone(), b)
            };
            let k = t1.shape()[t1.ndim() - 1];
            let lead = &t1.shape()[..t1.ndim() - 1];
            let rows: usize = lead.iter().product();
            let folded = t1.view(&[rows as i64, k as i64])?;
            let mut shape: Vec<i64> = lead.iter().map(|&n| n as i64).collect();
            let r = if t2.ndim() == 2 {
                shape.push(t2.shape()[1] as i64);
                mm(&folded, t2)?
            } else {
                mv(&folded, t2)?
            };
            r.view(&shape)
        }
        _ => batched(a, b),
    }
}

/// torch's `should_fold` without autograd: the larger operand (the right one transposed
/// when it has more dims) is ≥3-D against a 1-D or 2-D other, the left operand is not 2-D, and
/// the larger one's leading dims collapse into rows as a view (or it is empty).
fn should_fold(a: &Array, b: &Array) -> Result<bool> {
    let a_larger = a.ndim() >= b.ndim();
    let t1 = if a_larger {
        a.clone()
    } else {
        b.transpose(-2, -1)?
    };
    let other_dims = if a_larger { b.ndim() } else { a.ndim() };
    let nd = t1.ndim();
    if !(nd >= 3 && other_dims <= 2) || a.ndim() == 2 {
        return Ok(false);
    }
    if t1.numel() == 0 {
        return Ok(true);
    }
    let (shape, strides) = (t1.shape(), t1.strides());
    Ok((0..nd - 2).all(|i| strides[i] == strides[i + 1] * shape[i + 1] as isize))
}

/// `dot` of two vectors: dtype first, then sizes; no kernel for bool even when empty.
fn dot(a: &Array, b: &Array) -> Result<Array> {
    if a.dtype() != b.dtype() {
        return Err(Error::value(format!(
            "dot : expected both vectors to have same dtype, but found {} and {}",
            a.dtype().torch_name(),
            b.dtype().torch_name()
        )));
    }
    let (k, k2) = (a.numel(), b.numel());
    if k != k2 {
        return Err(Error::value(format!(
            "inconsistent tensor size, expected tensor [{k}] and src [{k2}] to have the same number of elements, but got {k} and {k2} elements respectively"
        )));
    }
    supported(a.dtype(), "dot")?;
    product(&a.unsqueeze(0)?, &b.unsqueeze(1)?)?.view(&[])
}

/// `mv`: sizes first, then dtypes (torch names the result's, the matrix's and the vector's).
fn mv(a: &Array, v: &Array) -> Result<Array> {
    let (m, k, k2) = (a.shape()[0], a.shape()[1], v.shape()[0]);
    if k != k2 {
        return Err(Error::value(format!(
            "size mismatch, got input ({m}), mat ({m}x{k}), vec ({k2})"
        )));
    }
    if a.dtype() != v.dtype() {
        let (vn, an) = (v.dtype().torch_name(), a.dtype().torch_name());
        return Err(Error::value(format!(
            "addmv input tensors must have the same dtype, but got {vn}, {an}, and {vn}"
        )));
    }
    if m > 0 && k > 0 {
        supported(a.dtype(), "addmv_impl_cpu")?;
    }
    product(a, &v.unsqueeze(1)?)?.view(&[m as i64])
}

/// `mm`: sizes first, then dtypes.
fn mm(a: &Array, b: &Array) -> Result<Array> {
    let (m, k) = (a.shape()[0], a.shape()[1]);
    let (k2, n) = (b.shape()[0], b.shape()[1]);
    if k != k2 {
        return Err(Error::value(format!(
            "mat1 and mat2 shapes cannot be multiplied ({m}x{k} and {k2}x{n})"
        )));
    }
    if a.dtype() != b.dtype() {
        return Err(Error::value(format!(
            "expected m1 and m2 to have the same dtype, but got: {} != {}",
            c_type_name(a.dtype()),
            c_type_name(b.dtype())
        )));
    }
    if m * n > 0 && k > 0 {
        supported(a.dtype(), "addmm_impl_cpu_")?;
    }
    product(a, b)
}

/// The batched path: batch dims broadcast, a 1-D operand as one row (left) or one column
/// (right) that the result then drops.
fn batched(a: &Array, b: &Array) -> Result<Array> {
    let (da, db) = (a.ndim(), b.ndim());
    let n = if da > 1 { a.shape()[da - 2] } else { 1 };
    let m1 = a.shape()[da - 1];
    let (m2, p) = if db > 1 {
        (b.shape()[db - 2], b.shape()[db - 1])
    } else {
        (b.shape()[0], 1)
    };
    let batch_a = &a.shape()[..da.saturating_sub(2)];
    let batch_b = &b.shape()[..db.saturating_sub(2)];
    let batch = infer_size(batch_a, batch_b)?;
    let count: usize = batch.iter().product();
    if m1 != m2 {
        return Err(Error::value(format!(
            "Expected size for first two dimensions of batch2 tensor to be: [{count}, {m1}] but got: [{count}, {m2}]."
        )));
    }
    // torch returns before its kernel when nothing is summed, so neither the kernel's dtype
    // nor the operands' agreement is checked then (the result takes the second's dtype)
    let mut shape: Vec<i64> = batch.iter().map(|&s| s as i64).collect();
    if da > 1 {
        shape.push(n as i64);
    }
    if db > 1 {
        shape.push(p as i64);
    }
    if count * n * p == 0 || m1 == 0 {
        let dims: Vec<usize> = shape.iter().map(|&s| s as usize).collect();
        let zero = crate::Scalar::Int(0);
        return Array::full(&dims, zero, b.dtype(), MemoryFormat::Contiguous);
    }
    supported(a.dtype(), "bmm")?;
    if a.dtype() != b.dtype() {
        return Err(Error::value(format!(
            "expected scalar type {} but found {}",
            a.dtype().torch_name(),
            b.dtype().torch_name()
        )));
    }
    let as_matrix = |x: &Array, rows: usize, cols: usize, one_d_as_row: bool| -> Result<Array> {
        let x = match (x.ndim(), one_d_as_row) {
            (1, true) => x.unsqueeze(0)?,
            (1, false) => x.unsqueeze(1)?,
            _ => x.clone(),
        };
        let mut target: Vec<i64> = batch.iter().map(|&s| s as i64).collect();
        target.extend([rows as i64, cols as i64]);
        x.expand(&target)
    };
    let result = product(&as_matrix(a, n, m1, true)?, &as_matrix(b, m2, p, false)?)?;
    result.view(&shape)
}

/// torch's refusal of a dtype its CPU product kernels lack (bool, complex32).
fn supported(dtype: DType, kernel: &'static str) -> Result<()> {
    match dtype {
        DType::Bool | DType::ComplexHalf => Err(Error::NotImplemented { kernel, dtype }),
        _ => Ok(()),
    }
}

/// `a @ b` for checked operands of one dtype and equal batch shapes `(batch..., m, k)` and
/// `(batch..., k, n)`: a new contiguous `(batch..., m, n)` array.
pub(crate) fn product(a: &Array, b: &Array) -> Result<Array> {
    let grain = grain_size();
    match a.dtype() {
        DType::F32 => batched_gemm::<f32>(a, b, grain),
        DType::F64 => batched_gemm::<f64>(a, b, grain),
        DType::C64 => batched_gemm::<crate::kernels::element::C64>(a, b, grain),
        DType::C128 => batched_gemm::<crate::kernels::element::C128>(a, b, grain),
        DType::F16 | DType::BF16 => {
            let wide = |x: &Array| converted_copy(x, Some(DType::F32), MemoryFormat::Preserve);
            let r = batched_gemm::<f32>(&wide(a)?, &wide(b)?, grain)?;
            converted_copy(&r, Some(a.dtype()), MemoryFormat::Contiguous)
        }
        DType::Bool => {
            // only reached when nothing is summed: zeros (false)
            let mut shape = a.shape().to_vec();
            let nd = shape.len();
            shape[nd - 1] = b.shape()[nd - 1];
            Array::full(
                &shape,
                crate::Scalar::Bool(false),
                DType::Bool,
                MemoryFormat::Contiguous,
            )
        }
        dtype => crate::dispatch_in!(dtype, T in [U8, U16, U32, U64, I8, I16, I32, I64] => {
            integer_product::<T>(a, b)
        }, else Err(Error::NotImplemented { kernel: "addmm_impl_cpu_", dtype })),
    }
}

/// An integer element: products summed with wrapping (modular) arithmetic, as C++'s
/// integer matmul wraps.
trait WrappingInt: crate::kernels::element::Element {
    fn widen(self) -> i64;
    fn narrow(x: i64) -> Self;
}
macro_rules! wrapping_int {
    ($($t:ty),*) => {$(
        impl WrappingInt for $t {
            fn widen(self) -> i64 { self as i64 }
            fn narrow(x: i64) -> Self { x as $t }
        }
    )*};
}
wrapping_int!(u8, u16, u32, u64, i8, i16, i32, i64);

/// The integer product: a plain loop (no GEMM crate has integers), summed in wrapping int64
/// (the same residue as summing in the narrow type).
fn integer_product<T: WrappingInt>(a: &Array, b: &Array) -> Result<Array> {
    let nd = a.ndim();
    let (m, k, n) = (a.shape()[nd - 2], a.shape()[nd - 1], b.shape()[nd - 1]);
    let (av, bv) = (to_vec::<T>(a)?, to_vec::<T>(b)?);
    let batches: usize = a.shape()[..nd - 2].iter().product();
    let mut c = vec![T::narrow(0); batches * m * n];
    for t in 0..batches {
        let (ab, bb) = (
            &av[t * m * k..(t + 1) * m * k],
            &bv[t * k * n..(t + 1) * k * n],
        );
        for i in 0..m {
            let mut row = vec![0i64; n];
            for l in 0..k {
                let x = ab[i * k + l].widen();
                for (acc, y) in row.iter_mut().zip(&bb[l * n..(l + 1) * n]) {
                    *acc = acc.wrapping_add(x.wrapping_mul(y.widen()));
                }
            }
            for (slot, v) in c[(t * m + i) * n..(t * m + i + 1) * n].iter_mut().zip(row) {
                *slot = T::narrow(v);
            }
        }
    }
    let mut shape = a.shape()[..nd - 2].to_vec();
    shape.extend([m, n]);
    from_slice(&c, &shape)
}
