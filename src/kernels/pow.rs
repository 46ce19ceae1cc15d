//! `pow` with a Python number on one side: torch's `pow.Tensor_Scalar` (a unary op over the
//! base with fast paths for common exponents) and `pow.Scalar` (the result takes the
//! exponent's shape). `pow` of two arrays runs in `binary.rs`.

use super::args::{checked_as, converted, scalar_as, scalar_equals, Arg};
use super::binary::binary_tensors;
use super::math::{Arith, Compute, Ordered, Transcendental, TrueDiv};
use super::run::run;
use super::table::BinaryOp;
use crate::error::{Error, Result};
use crate::exec::raw::map1;
use crate::plan::TensorIteratorConfig;
use crate::{dispatch_all, dispatch_in, dispatch_inexact, Array, DType, MemoryFormat, Scalar};

/// `std::pow` of complex numbers as torch computes it (C99 `cpow`: `exp(y·log(x))`).
pub(crate) fn complex_pow<C: Transcendental>(x: C, y: C) -> C {
    (y.mul(x.ln())).exp()
}

/// `pow(tensor, number)`: torch's `pow.Tensor_Scalar` — a unary op over the base converted to
/// the promoted dtype; exponent 0 fills ones, 1 copies, and torch's fast paths for
/// ±0.5, -1, 2, 3 and -2.
pub(crate) fn pow_tensor_scalar(base: &Array, exp: Scalar, out: Option<Array>) -> Result<Array> {
    if base.dtype().is_integral(true) && matches!(exp, Scalar::Int(i) if i < 0) {
        return Err(Error::value(
            "Integers to negative integer powers are not allowed.",
        ));
    }
    let base_arg = Arg::Array(base.clone());
    let common = super::args::result_type(&[&base_arg, &Arg::Scalar(exp)])?;
    let x = converted(&base_arg, common)?;
    // A unary op over the converted base whose result is cast into an out= of another dtype
    // (what torch 2.13 does: `pow(bool, True, out=uint8)` works, `pow(float, 2, out=long)`
    // is refused: float to long is not a safe cast).
    let mut config = TensorIteratorConfig::new();
    config
        .check_mem_overlap(true)
        .promote_inputs_to_common_dtype(true)
        .cast_common_dtype_to_outputs(true)
        .enforce_safe_casting_to_output(true)
        .structured(true)
        .add_output(out)
        .add_input(x);
    let plan = config.into_kernel_plan()?;
    let ni = || Error::NotImplemented {
        kernel: "pow",
        dtype: common,
    };
    if scalar_equals(exp, 0.0) || exp == Scalar::Bool(false) {
        dispatch_all!(common, T => run(&plan, |blk| map1::<T, T>(blk, |_| T::from_i64(1)))?, else return Err(ni()));
        return Ok(plan.output(0)?.clone());
    }
    if scalar_equals(exp, 1.0) || exp == Scalar::Bool(true) {
        dispatch_all!(common, T => run(&plan, |blk| map1::<T, T>(blk, |v| v))?, else return Err(ni()));
        return Ok(plan.output(0)?.clone());
    }
    let fast = |s: f64| scalar_equals(exp, s);
    match common {
        DType::F32 | DType::F64 | DType::BF16 | DType::C64 | DType::C128
            if fast(0.5) || fast(-0.5) || fast(-1.0) =>
        {
            let kind = if fast(0.5) {
                0
            } else if fast(-0.5) {
                1
            } else {
                2
            };
            dispatch_inexact!(common, T => run(&plan, |blk| map1::<T, T>(blk, |v| {
                let x = v.up();
                let one = <<T as Compute>::Op as Arith>::from_scalar(Scalar::Int(1));
                T::down(match kind {
                    0 => x.sqrt(),
                    1 => one.div(x.sqrt()),
                    _ => one.div(x),
                })
            }))?, else return Err(ni()));
        }
        DType::F32 => {
            // torch's vectorized loop raises to the exponent rounded to float (its scalar loop
            // to the double one); ferroiter follows the vectorized loop, correctly rounded.
            let e = exp.as_f64();
            let e32 = e as f32 as f64;
            run(&plan, |blk| {
                map1::<f32, f32>(blk, |x| {
                    real_pow_scalar(x, e, |x| ((x as f64).powf(e32)) as f32)
                })
            })?
        }
        DType::F64 => {
            let e = exp.as_f64();
            run(&plan, |blk| {
                map1::<f64, f64>(blk, |x| real_pow_scalar(x, e, |x| x.powf(e)))
            })?
        }
        DType::BF16 => {
            // torch converts the exponent to bfloat16 and multiplies in bfloat16 (each
            // product rounded) for 2, 3 and -2.
            let e = checked_as::<half::bf16>(exp)?.to_f32();
            let r = |v: f32| half::bf16::from_f32(v).to_f32();
            run(&plan, |blk| {
                map1::<half::bf16, half::bf16>(blk, |b| {
                    let x = b.to_f32();
                    half::bf16::from_f32(if e == 2.0 {
                        x * x
                    } else if e == 3.0 {
                        r(x * x) * x
                    } else if e == -2.0 {
                        1.0 / r(x * x)
                    } else {
                        x.powf(e)
                    })
                })
            })?
        }
        DType::F16 => {
            let e = checked_as::<half::f16>(exp)?.to_f32();
            run(&plan, |blk| {
                map1::<half::f16, half::f16>(blk, |b| half::f16::from_f32(b.to_f32().powf(e)))
            })?
        }
        DType::C64 | DType::C128 => {
            let (re, im) = match exp {
                Scalar::Complex(re, im) => (re, im),
                other => (other.as_f64(), 0.0),
            };
            dispatch_in!(common, T in [C64, C128] => {
                let e = scalar_as::<T>(Scalar::Complex(re, im));
                let one = scalar_as::<T>(Scalar::Int(1));
                run(&plan, |blk| map1::<T, T>(blk, |x| {
                    if fast(2.0) {
                        x * x
                    } else if fast(3.0) {
                        x * x * x
                    } else if fast(-2.0) {
                        TrueDiv::div(one, x * x)
                    } else {
                        complex_pow(x, e)
                    }
                }))?
            }, else return Err(ni()))
        }
        _ => {
            dispatch_in!(common, T in [U8, U16, U32, U64, I8, I16, I32, I64] => {
                let e = checked_as::<T>(exp)?;
                run(&plan, |blk| map1::<T, T>(blk, |x| Ordered::pow(x, e)))?
            }, else return Err(ni()))
        }
    }
    Ok(plan.output(0)?.clone())
}

/// torch's `pow_tensor_scalar_optimized_kernel` for float and double: 2, 3 and -2 as products
/// (each rounded), anything else through `general`.
#[inline(always)]
fn real_pow_scalar<F: Copy + std::ops::Mul<Output = F> + std::ops::Div<Output = F> + From<f32>>(
    x: F,
    e: f64,
    general: impl Fn(F) -> F,
) -> F {
    if e == 2.0 {
        x * x
    } else if e == 3.0 {
        x * x * x
    } else if e == -2.0 {
        F::from(1.0) / (x * x)
    } else {
        general(x)
    }
}

/// `pow(number, tensor)`: torch's `pow.Scalar` — the result has the exponent's shape
/// (allocated contiguous; a given out= of another shape is resized, and keeps its dtype), a
/// base of 1 fills ones, anything else is `pow(wrapped number, tensor)` into it.
pub(crate) fn pow_scalar_tensor(base: Scalar, exp: &Array, out: Option<Array>) -> Result<Array> {
    let exp_arg = Arg::Array(exp.clone());
    let common = super::args::result_type(&[&Arg::Scalar(base), &exp_arg])?;
    let out = match out {
        Some(o) => crate::plan::resize_output(&o, exp.shape())?,
        None => Array::empty(exp.shape(), common, MemoryFormat::Contiguous)?,
    };
    if scalar_equals(base, 1.0) {
        let one = Array::full(&[], Scalar::Int(1), out.dtype(), MemoryFormat::Contiguous)?;
        super::copy::copy_into(&out, &one)?;
        return Ok(out);
    }
    binary_tensors(BinaryOp::Pow, &Arg::Scalar(base), &exp_arg, None, Some(out))
}
