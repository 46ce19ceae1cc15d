//! The functions of three operands: `where(cond, a, b)` and `clamp(a, min, max)` (bounds as
//! Python numbers make it a unary op, as arrays a ternary one), with torch's promotion rules.

use super::args::{checked_as, common_dtype, converted, result_type, Arg};
use super::math::{Arith, Compute, Ordered};
use super::run::run;
use crate::error::{Error, Result};
use crate::exec::raw::{map1, map2, map3};
use crate::plan::{Input, TensorIteratorConfig};
use crate::{dispatch_all, dispatch_in, dispatch_ordered, Array, DType, Scalar};

/// `where(cond, a, b)`: `a` where `cond` is true, else `b`; `a` and `b` promote together.
pub fn where_(cond: &Array, a: &Arg, b: &Arg, out: Option<Array>) -> Result<Array> {
    let c = Arg::Array(cond.clone());
    if super::blocked::involved(&[&c, a, b], out.as_ref()) {
        let args = [c, a.clone(), b.clone()];
        return super::blocked::elementwise(&args, out.as_ref(), true, |args, out| {
            match &args[0] {
                Arg::Array(cond) => where_(cond, &args[1], &args[2], out),
                Arg::Scalar(_) => unreachable!("where's condition is an array"),
            }
        });
    }
    // torch's order: the promoted dtype, the Python operands made tensors of it
    // (`scalar_tensor`, overflow-checked), out='s dtype, then the condition's.
    let common = result_type(&[a, b])?;
    for s in [a, b] {
        if let Arg::Scalar(s) = s {
            // (torch fills float16/bfloat16 through float without a range check: 1e39 → inf)
            dispatch_in!(common, T in [Bool, U8, U16, U32, U64, I8, I16, I32, I64, F32, F64, C64, C128] => {
                checked_as::<T>(*s)?;
            }, else {});
        }
    }
    if let Some(o) = &out {
        if o.dtype() != common {
            return Err(Error::type_(format!(
                "Expected out type to be {} but got {}",
                common.torch_name(),
                o.dtype().torch_name()
            )));
        }
    }
    let cond = match cond.dtype() {
        DType::Bool => cond.clone(),
        // torch converts a uint8 condition with `.to(kBool)` (preserve-format strides).
        DType::U8 => converted(&Arg::Array(cond.clone()), DType::Bool)?,
        other => {
            return Err(Error::value(format!(
                "where expected condition to be a boolean tensor, but got a tensor with dtype {}",
                other.torch_name()
            )))
        }
    };
    let (a, b) = (converted(a, common)?, converted(b, common)?);
    let mut config = TensorIteratorConfig::new();
    config
        .check_all_same_dtype(false)
        .add_output(out)
        .add_const_input(cond)
        .add_input(a)
        .add_input(b);
    // torch allocates where's result with the promoted dtype before building the iterator.
    config.declare_static_dtype(common);
    let plan = config.into_kernel_plan()?;
    let ni = || Error::NotImplemented {
        kernel: "where_cpu",
        dtype: common,
    };
    dispatch_all!(common, T => {
        run(&plan, |blk| map3::<Bool, T, T, T>(blk, |c, x, y| if c.get() { x } else { y }))?
    }, else return Err(ni()));
    Ok(plan.output(0)?.clone())
}

/// `clamp(a, min, max)`: at least one bound; NaN stays NaN; `min > max` gives `max`.
pub fn clamp(a: &Array, min: Option<&Arg>, max: Option<&Arg>, out: Option<Array>) -> Result<Array> {
    let x = Arg::Array(a.clone());
    let bounds: Vec<&Arg> = [min, max].into_iter().flatten().collect();
    let mut all: Vec<&Arg> = vec![&x];
    all.extend(&bounds);
    if super::blocked::involved(&all, out.as_ref()) {
        let args: Vec<Arg> = all.into_iter().cloned().collect();
        return super::blocked::elementwise(&args, out.as_ref(), true, |args, out| {
            let Arg::Array(a) = &args[0] else {
                unreachable!("clamp's input is an array")
            };
            let mut rest = args[1..].iter();
            let min = min.and_then(|_| rest.next());
            let max = max.and_then(|_| rest.next());
            clamp(a, min, max, out)
        });
    }
    if min.is_none() && max.is_none() {
        return Err(Error::value(
            "torch.clamp: At least one of 'min' or 'max' must not be None",
        ));
    }
    // torch checks self's dtype only (a complex bound fails later, in the kernel)
    if a.dtype().is_complex() {
        return Err(Error::type_("clamp is not supported for complex types"));
    }
    let scalar_bounds = min.is_none_or(|m| matches!(m, Arg::Scalar(_)))
        && max.is_none_or(|m| matches!(m, Arg::Scalar(_)));
    if scalar_bounds {
        return clamp_scalar_bounds(a, min, max, out);
    }
    // torch's clamp.Tensor: self and the bounds promoted together; with one bound the kernel
    // is torch's maximum (min=) or minimum (max=), with both its clamp kernel.
    let mut config = TensorIteratorConfig::new();
    config
        .check_mem_overlap(true)
        .promote_inputs_to_common_dtype(true)
        .cast_common_dtype_to_outputs(true)
        .enforce_safe_casting_to_output(true)
        .structured(true)
        .add_output(out);
    config.inputs.push(Input {
        is_const: true,
        ..Input::array(a.clone())
    });
    for bound in [min, max].into_iter().flatten() {
        let mut input = bound.input()?;
        input.is_const = true;
        config.inputs.push(input);
    }
    let plan = config.into_kernel_plan()?;
    let common = common_dtype(&plan)?;
    if min.is_some() && max.is_some() {
        let ni = || Error::NotImplemented {
            kernel: "clamp_cpu",
            dtype: common,
        };
        dispatch_in!(common, T in [U8, U16, U32, U64, I8, I16, I32, I64, F16, BF16, F32, F64] => {
            run(&plan, |blk| map3::<T, T, T, T>(blk, |v, l, h| {
                let (l, h) = (l.up(), h.up());
                // NaN bounds give NaN; else torch's vectorized minimum(maximum(v, l), h)
                T::down(if l.is_nan() || h.is_nan() {
                    l.add(h)
                } else {
                    Ordered::minimum(Ordered::maximum(v.up(), l), h)
                })
            }))?
        }, else return Err(ni()));
    } else {
        let maximum = min.is_some();
        let name = if maximum {
            "maximum_cpu"
        } else {
            "minimum_cpu"
        };
        let ni = || Error::NotImplemented {
            kernel: name,
            dtype: common,
        };
        dispatch_ordered!(common, T => {
            run(&plan, |blk| map2::<T, T, T>(blk, |v, b| {
                T::down(if maximum { Ordered::maximum(v.up(), b.up()) } else { Ordered::minimum(v.up(), b.up()) })
            }))?
        }, else return Err(ni()));
    }
    Ok(plan.output(0)?.clone())
}

/// torch's clamp.Scalar: the result dtype is self's when self is floating (a Python bound
/// never promotes it), else the promoted one; a unary op over self converted to it.
fn clamp_scalar_bounds(
    a: &Array,
    min: Option<&Arg>,
    max: Option<&Arg>,
    out: Option<Array>,
) -> Result<Array> {
    let bound = |b: Option<&Arg>| match b {
        Some(Arg::Scalar(s)) => Some(*s),
        _ => None,
    };
    let (lo, hi) = (bound(min), bound(max));
    let mut common = a.dtype();
    if !common.is_floating() {
        let self_arg = Arg::Array(a.clone());
        let mut args = vec![&self_arg];
        args.extend(min.into_iter().chain(max));
        common = result_type(&args)?;
        if common.is_complex() {
            return Err(Error::type_("clamp is not supported for complex types"));
        }
    }
    for s in [lo, hi].into_iter().flatten() {
        if matches!(s, Scalar::Complex(_, im) if im != 0.0) {
            // (torch converts the bounds to double first)
            return Err(Error::Overflow {
                type_name: "double",
            });
        }
    }
    let real = |s: Scalar| match s {
        Scalar::Complex(re, _) => Scalar::Float(re),
        other => other,
    };
    let (lo, hi) = (lo.map(real), hi.map(real));
    let x = converted(&Arg::Array(a.clone()), common)?;
    let plan = TensorIteratorConfig::unary_op(out, x).into_kernel_plan()?;
    let name = match (lo, hi) {
        (Some(_), Some(_)) => "clamp_scalar_cpu",
        (Some(_), None) => "clamp_min_scalar_cpu",
        _ => "clamp_max_scalar_cpu",
    };
    let ni = || Error::NotImplemented {
        kernel: name,
        dtype: common,
    };
    let nan_bound = [lo, hi]
        .into_iter()
        .flatten()
        .any(|s| matches!(s, Scalar::Float(f) if f.is_nan()));
    if lo.is_some() && hi.is_some() && nan_bound {
        // torch fills the result with NaN when either bound is NaN
        dispatch_in!(common, T in [F16, BF16, F32, F64] => run(&plan, |blk| map1::<T, T>(blk, |_| T::from_f64(f64::NAN)))?, else return Err(ni()));
        return Ok(plan.output(0)?.clone());
    }
    dispatch_in!(common, T in [U8, U16, U32, U64, I8, I16, I32, I64, F16, BF16, F32, F64] => {
        // torch converts the bounds to the dtype (`Scalar::to<T>()`, overflow-checked).
        let lo = lo.map(checked_as::<T>).transpose()?.map(|v| v.up());
        let hi = hi.map(checked_as::<T>).transpose()?.map(|v| v.up());
        run(&plan, |blk| map1::<T, T>(blk, |v| T::down(clamp_one(v.up(), lo, hi))))?
    }, else return Err(ni()));
    Ok(plan.output(0)?.clone())
}

/// One clamped value: NaN in any operand propagates; the upper bound wins over the lower.
#[inline(always)]
fn clamp_one<T: Ordered>(v: T, lo: Option<T>, hi: Option<T>) -> T {
    let mut r = v;
    if let Some(lo) = lo {
        if lo.is_nan() {
            return lo;
        }
        r = if r.is_nan() {
            r
        } else if r < lo {
            lo
        } else {
            r
        };
    }
    if let Some(hi) = hi {
        if hi.is_nan() {
            return hi;
        }
        r = if r.is_nan() {
            r
        } else if r > hi {
            hi
        } else {
            r
        };
    }
    r
}
