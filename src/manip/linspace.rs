//! `linspace(start, end, steps, dtype)` with torch's exact values: the step is
//! `(end − start) / (steps − 1)` in the kernel's step type (double for integer dtypes, the
//! dtype itself otherwise); the first half of the elements count up from `start`, the rest
//! down from `end` (`end − step·(steps − 1 − i)`), so both ends are exact. torch's compiled
//! kernel fuses the multiply-add (one FMA); float16/bfloat16 round after every operation
//! (c10's Half arithmetic). Complex dtypes do the real and imaginary parts apart.
#![forbid(unsafe_code)]

use crate::array::Array;
use crate::dtype::DType;
use crate::error::{Error, Result};
use crate::memory_format::MemoryFormat;
use crate::scalar::Scalar;

/// torch's default dtype: complex64 when an end is complex, else float32.
pub fn default_dtype(start: Scalar, end: Scalar) -> DType {
    if matches!(start, Scalar::Complex(..)) || matches!(end, Scalar::Complex(..)) {
        DType::C64
    } else {
        crate::dtype::DEFAULT_FLOAT
    }
}

/// `x` rounded to `dtype` (a float type) and back.
fn rounded(x: f64, dtype: DType) -> f64 {
    Scalar::from_bytes(dtype, &Scalar::Float(x).to_bytes(dtype)).as_f64()
}

/// The `steps` values of one real line from `a` to `b` as `dtype`'s kernel computes them
/// (as f64: the caller stores each converted to the dtype).
fn line(a: f64, b: f64, steps: usize, dtype: DType) -> Vec<f64> {
    let halfway = steps / 2;
    let last = (steps - 1) as f64;
    let count_down = |i: usize| (steps - 1 - i) as f64;
    match dtype {
        DType::F32 | DType::C64 => {
            let (a, b) = (a as f32, b as f32);
            let step = (b - a) / last as f32;
            (0..steps)
                .map(|i| {
                    if i < halfway {
                        step.mul_add(i as f32, a) as f64
                    } else {
                        (-step).mul_add(count_down(i) as f32, b) as f64
                    }
                })
                .collect()
        }
        DType::F16 | DType::BF16 => {
            let r = |x: f64| rounded(x, dtype);
            let (a, b) = (r(a), r(b));
            let step = r(r(b - a) / r(last));
            (0..steps)
                .map(|i| {
                    if i < halfway {
                        r(a + r(step * r(i as f64)))
                    } else {
                        r(b - r(step * r(count_down(i))))
                    }
                })
                .collect()
        }
        // float64, complex128 and the integers (whose step type is double)
        _ => {
            let step = (b - a) / last;
            (0..steps)
                .map(|i| {
                    if i < halfway {
                        step.mul_add(i as f64, a)
                    } else {
                        (-step).mul_add(count_down(i), b)
                    }
                })
                .collect()
        }
    }
}

/// An end converted to the dtype (integers wrap as a C++ conversion does) and read back as a
/// double, the way the kernel sees it.
fn end_as(x: f64, dtype: DType) -> f64 {
    Scalar::from_bytes(dtype, &Scalar::Float(x).to_bytes(dtype)).as_f64()
}

/// `linspace(start, end, steps, dtype)`.
pub fn linspace(start: Scalar, end: Scalar, steps: i64, dtype: Option<DType>) -> Result<Array> {
    if steps < 0 {
        return Err(Error::value("number of steps must be non-negative"));
    }
    let inferred = default_dtype(start, end);
    let dtype = dtype.unwrap_or(inferred);
    if inferred.is_complex() && !dtype.is_complex() {
        return Err(Error::value(format!(
            "torch.linspace(): inferred dtype {} can't be safely cast to passed dtype {}",
            "c10::complex<float>",
            dtype.torch_name()
        )));
    }
    let steps = steps as usize;
    let out = Array::empty(&[steps], dtype, MemoryFormat::Contiguous)?;
    if steps == 0 {
        return Ok(out);
    }
    let itemsize = dtype.itemsize();
    if steps == 1 {
        let value = start.checked_for(dtype)?;
        out.storage().write(0, &value.to_bytes(dtype))?;
        return Ok(out);
    }
    if dtype == DType::Bool || dtype == DType::ComplexHalf {
        return Err(Error::NotImplemented {
            kernel: "linspace_cpu",
            dtype,
        });
    }
    // the kernel converts both ends to the dtype first (c10's checked conversion)
    let (start, end) = (start.checked_for(dtype)?, end.checked_for(dtype)?);
    let parts = |s: Scalar| match s {
        Scalar::Complex(re, im) => (re, im),
        other => (other.as_f64(), 0.0),
    };
    let ((a_re, a_im), (b_re, b_im)) = (parts(start), parts(end));
    let values: Vec<Scalar> = if dtype.is_complex() {
        let part = if dtype == DType::C64 {
            DType::F32
        } else {
            DType::F64
        };
        let re = line(end_as(a_re, part), end_as(b_re, part), steps, dtype);
        let im = line(end_as(a_im, part), end_as(b_im, part), steps, dtype);
        re.into_iter()
            .zip(im)
            .map(|(r, i)| Scalar::Complex(r, i))
            .collect()
    } else {
        let (a, b) = match (start, end) {
            (Scalar::Int(x), Scalar::Int(y)) if dtype.is_integral(false) => {
                // the ends as the integer dtype, exactly (an int64 beyond 2^53 included)
                let back = |v: i64| Scalar::from_bytes(dtype, &Scalar::Int(v).to_bytes(dtype));
                (back(x).as_f64(), back(y).as_f64())
            }
            _ => (end_as(a_re, dtype), end_as(b_re, dtype)),
        };
        line(a, b, steps, dtype)
            .into_iter()
            .map(Scalar::Float)
            .collect()
    };
    for (i, v) in values.iter().enumerate() {
        out.storage().write(i * itemsize, &v.to_bytes(dtype))?;
    }
    Ok(out)
}
