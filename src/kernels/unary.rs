//! The unary functions (`f(a)`): torch's refusals, the preset from the op table, and one typed
//! loop per function; `logical_not` (a bool result) and `abs` of complex numbers (a real
//! result) follow torch's own paths.

use super::element::{C128, C64};
use super::elementary::Elementary;
use super::math::{Arith, Bitwise, Compute, Ordered, Transcendental, TrueDiv};
use super::run::{run, Target};
use super::table::{Preset, UnaryOp};
use crate::error::{Error, Result};
use crate::exec::raw::map1;
use crate::plan::{direct_operands, TensorIteratorConfig};
use crate::{
    dispatch_all, dispatch_inexact, dispatch_integral, dispatch_ordered, Array, DType,
    MemoryFormat, Scalar,
};

/// torch's refusals that come before any kernel runs (NotImplementedError in torch, so
/// TypeError here; negating a bool is torch's RuntimeError, so ValueError).
fn check_unary(op: UnaryOp, dtype: DType) -> Result<()> {
    if op == UnaryOp::Neg && dtype == DType::Bool {
        return Err(Error::value("Negation, the `-` operator, on a bool tensor is not supported. If you are trying to invert a mask, use the `~` or `logical_not()` operator instead."));
    }
    let msg = match op {
        UnaryOp::Sign if dtype.is_complex() => "Unlike NumPy, torch.sign is not intended to support complex numbers. Please use torch.sgn instead.",
        UnaryOp::Floor if dtype.is_complex() => "floor is not supported for complex inputs",
        UnaryOp::Ceil if dtype.is_complex() => "ceil is not supported for complex inputs",
        UnaryOp::Trunc if dtype.is_complex() => "trunc is not supported for complex inputs",
        UnaryOp::Signbit if dtype.is_complex() => "signbit is not implemented for complex tensors.",
        _ => return Ok(()),
    };
    Err(Error::type_(msg))
}

/// `out = g(a)` computed in opmath. `g` is a generic (each function its own type, not a `fn`
/// pointer) so that it inlines into the inner loop and the loop vectorizes.
fn run_unary_fn<T: Compute>(
    plan: &Target,
    g: impl Fn(T::Op) -> T::Op + Copy + Send + Sync,
) -> Result<()> {
    plan.run(move |b| map1::<T, T>(b, move |x| T::down(g(x.up()))))
}

fn run_unary_ordered<T: Compute>(plan: &Target, op: UnaryOp) -> Result<()>
where
    T::Op: Ordered,
{
    match op {
        UnaryOp::Abs => run_unary_fn::<T>(plan, Ordered::abs),
        UnaryOp::Floor => run_unary_fn::<T>(plan, Ordered::floor),
        UnaryOp::Ceil => run_unary_fn::<T>(plan, Ordered::ceil),
        UnaryOp::Round => run_unary_fn::<T>(plan, Ordered::round),
        UnaryOp::Trunc => run_unary_fn::<T>(plan, Ordered::trunc),
        _ => run_unary_fn::<T>(plan, Ordered::sign),
    }
}

/// The functions of floats (and complex numbers): one arm per function.
fn run_transcendental<T: Compute>(plan: &Target, op: UnaryOp) -> Result<()>
where
    T::Op: Transcendental,
{
    match op {
        UnaryOp::Exp => run_unary_fn::<T>(plan, Transcendental::exp),
        UnaryOp::Expm1 => run_unary_fn::<T>(plan, Transcendental::exp_m1),
        UnaryOp::Log => run_unary_fn::<T>(plan, Transcendental::ln),
        UnaryOp::Log1p => run_unary_fn::<T>(plan, Transcendental::ln_1p),
        UnaryOp::Sqrt => run_unary_fn::<T>(plan, Transcendental::sqrt),
        UnaryOp::Sin => run_unary_fn::<T>(plan, Transcendental::sin),
        UnaryOp::Cos => run_unary_fn::<T>(plan, Transcendental::cos),
        UnaryOp::Tanh => run_unary_fn::<T>(plan, Transcendental::tanh),
        UnaryOp::Sigmoid => run_unary_fn::<T>(plan, Transcendental::sigmoid),
        UnaryOp::Reciprocal => run_unary_fn::<T>(plan, |x| {
            TrueDiv::div(<T::Op as Arith>::from_scalar(Scalar::Int(1)), x)
        }),
        _ => unreachable!("{op:?} is not a function of floats"),
    }
}

/// The rarer functions of floats and complex numbers (`elementary.rs`).
fn run_elementary<T: Compute>(plan: &Target, op: UnaryOp) -> Result<()>
where
    T::Op: Elementary,
{
    match op {
        UnaryOp::Acos => run_unary_fn::<T>(plan, Elementary::acos),
        UnaryOp::Asin => run_unary_fn::<T>(plan, Elementary::asin),
        UnaryOp::Atan => run_unary_fn::<T>(plan, Elementary::atan),
        UnaryOp::Acosh => run_unary_fn::<T>(plan, Elementary::acosh),
        UnaryOp::Asinh => run_unary_fn::<T>(plan, Elementary::asinh),
        UnaryOp::Atanh => run_unary_fn::<T>(plan, Elementary::atanh),
        UnaryOp::Tan => run_unary_fn::<T>(plan, Elementary::tan),
        UnaryOp::Sinh => run_unary_fn::<T>(plan, Elementary::sinh),
        UnaryOp::Cosh => run_unary_fn::<T>(plan, Elementary::cosh),
        UnaryOp::Log2 => run_unary_fn::<T>(plan, Elementary::log2),
        UnaryOp::Log10 => run_unary_fn::<T>(plan, Elementary::log10),
        _ => unreachable!("{op:?} is not an elementary function"),
    }
}

/// `out = f(a)` with torch's output layout, dtype and values. A given `out=` of another shape
/// is resized (torch's policy, `plan/resize.rs`): the result is then a new array.
pub fn unary(op: UnaryOp, a: &Array, out: Option<Array>) -> Result<Array> {
    use super::Arg;
    let arg = Arg::Array(a.clone());
    if super::blocked::involved(&[&arg], out.as_ref()) {
        return super::blocked::elementwise(&[arg], out.as_ref(), true, |args, out| {
            match &args[0] {
                Arg::Array(a) => unary(op, a, out),
                Arg::Scalar(_) => unreachable!("unary takes an array"),
            }
        });
    }
    check_unary(op, a.dtype())?;
    if op == UnaryOp::LogicalNot {
        return logical_not(a, out);
    }
    if op == UnaryOp::Abs && a.dtype().is_complex() {
        return complex_abs(a, out);
    }
    if op == UnaryOp::Square {
        // torch's square is `pow(a, 2)` (so bool promotes to int64)
        return super::pow::pow_tensor_scalar(a, Scalar::Int(2), out);
    }
    if op.preset() == Preset::Predicate {
        return super::predicates::predicate(op, a, out);
    }
    let float = op.preset() == Preset::Float;
    let inputs = [a];
    let plan = match direct_operands(&inputs, None, float, out.as_ref())? {
        Some(direct) => Target::direct(direct),
        None => {
            let mut config = if float {
                TensorIteratorConfig::unary_float_op(out, a.clone())
            } else {
                TensorIteratorConfig::unary_op(out, a.clone())
            };
            // (torch's unary functions here are structured kernels; only the float ones can
            // compute through a temporary, which is when it shows)
            config.structured(true);
            Target::plan(config.into_kernel_plan()?)
        }
    };
    let dtype = plan.common_dtype()?;
    let ni = || Error::NotImplemented {
        kernel: op.kernel_name(),
        dtype,
    };
    match op {
        UnaryOp::Neg => {
            dispatch_all!(dtype, T => plan.run(|b| map1::<T, T>(b, |x| T::down(x.up().neg())))?, else return Err(ni()))
        }
        UnaryOp::BitwiseNot => {
            dispatch_integral!(dtype, T => plan.run(|b| map1::<T, T>(b, |x| x.not()))?, else return Err(ni()))
        }
        UnaryOp::Abs
        | UnaryOp::Floor
        | UnaryOp::Ceil
        | UnaryOp::Round
        | UnaryOp::Trunc
        | UnaryOp::Sign => {
            if dtype == DType::Bool && op != UnaryOp::Sign {
                return Err(ni());
            }
            dispatch_ordered!(dtype, T => run_unary_ordered::<T>(&plan, op)?, else return Err(ni()))
        }
        UnaryOp::Acos
        | UnaryOp::Asin
        | UnaryOp::Atan
        | UnaryOp::Acosh
        | UnaryOp::Asinh
        | UnaryOp::Atanh
        | UnaryOp::Tan
        | UnaryOp::Sinh
        | UnaryOp::Cosh
        | UnaryOp::Log2
        | UnaryOp::Log10 => {
            dispatch_inexact!(dtype, T => run_elementary::<T>(&plan, op)?, else return Err(ni()))
        }
        _ => {
            if let Some(done) = super::vecmath::run_vector(&plan, op, dtype) {
                done?;
            } else {
                dispatch_inexact!(dtype, T => run_transcendental::<T>(&plan, op)?, else return Err(ni()))
            }
        }
    }
    plan.into_output()
}

/// `logical_not`: torch's iterator without promotion, whose kernel writes `!a` straight into
/// the output's dtype (bool, or an `out=` of any dtype): one loop per (input, output) pair of
/// dtypes, as torch's own double dispatch.
fn logical_not(a: &Array, out: Option<Array>) -> Result<Array> {
    let mut config = TensorIteratorConfig::new();
    config.check_mem_overlap(true).check_all_same_dtype(false);
    if out.is_none() {
        config.declare_static_dtype(DType::Bool);
    }
    config.add_output(out).add_const_input(a.clone());
    let plan = config.into_kernel_plan()?;
    let ni = || Error::NotImplemented {
        kernel: UnaryOp::LogicalNot.kernel_name(),
        dtype: a.dtype(),
    };
    dispatch_all!(a.dtype(), T => dispatch_all!(plan.dtype(0)?, O => {
        run(&plan, |b| map1::<T, O>(b, |x| O::from_bool(!x.up().is_nonzero())))?
    }, else return Err(ni())), else return Err(ni()));
    Ok(plan.output(0)?.clone())
}

/// `abs` of complex numbers, as torch's `unary_op_impl_with_complex_to_float_out`: a complex
/// `out=` runs the complex → complex op (one dtype: the magnitude with a zero imaginary part);
/// otherwise the magnitude is computed as the real dtype into `empty_like(a)` and, for an
/// `out=`, copied into it after `resize_output`.
fn complex_abs(a: &Array, out: Option<Array>) -> Result<Array> {
    if out.as_ref().is_some_and(|o| o.dtype().is_complex()) {
        let plan = TensorIteratorConfig::unary_op(out, a.clone()).into_kernel_plan()?;
        if a.dtype() == DType::C128 {
            run(&plan, |b| {
                map1::<C128, C128>(b, |z| C128::new(z.norm(), 0.0))
            })?;
        } else {
            run(&plan, |b| map1::<C64, C64>(b, |z| C64::new(z.norm(), 0.0)))?;
        }
        return Ok(plan.output(0)?.clone());
    }
    let real = if a.dtype() == DType::C128 {
        DType::F64
    } else {
        DType::F32
    };
    if let Some(o) = &out {
        if !crate::dtype::can_cast(real, o.dtype()) {
            return Err(Error::UnsafeCast {
                from: real,
                to: o.dtype(),
            });
        }
    }
    let result = a.empty_like(Some(real), MemoryFormat::Preserve)?;
    let mut config = TensorIteratorConfig::new();
    config
        .check_mem_overlap(true)
        .check_all_same_dtype(false)
        .add_output(Some(result))
        .add_input(a.clone());
    let plan = config.into_kernel_plan()?;
    if a.dtype() == DType::C128 {
        run(&plan, |b| map1::<C128, f64>(b, |z| z.norm()))?;
    } else {
        run(&plan, |b| map1::<C64, f32>(b, |z| z.norm()))?;
    }
    let result = plan.output(0)?;
    match out {
        None => Ok(result.clone()),
        Some(o) => {
            let o = crate::plan::resize_output(&o, result.shape())?;
            super::copy::copy_into(&o, result)?;
            Ok(o)
        }
    }
}
