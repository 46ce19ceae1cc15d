//! The binary functions (`a ⊙ b`): torch's checks, the preset from the op table, and one typed
//! loop per op family — arithmetic, ordered ops, bitwise ops, equality/logical ops and order
//! comparisons. `pow` with a Python number on one side is `pow.rs`.

use super::args::{checked_as, is_scalar, negated, original_value_f32, Arg};
use super::element::Element;
use super::elementary::{complex_logaddexp, next_after_bits, RealBinary};
use super::integer::IntegerOps;
use super::math::{Arith, Bitwise, Compute, Ordered, TrueDiv};
use super::run::Target;
use super::table::{BinaryOp, Preset, Reflection, UnaryOp};
use crate::error::{Error, Result};
use crate::exec::raw::{map2, map2_widened};
use crate::plan::{direct_operands, Input, TensorIterator, TensorIteratorConfig};
use crate::{
    dispatch_all, dispatch_in, dispatch_inexact, dispatch_integral, dispatch_ordered, Array, DType,
    Scalar,
};
use std::sync::atomic::{AtomicBool, Ordering};

/// torch's iterator for `op` (the op table's preset).
fn config(op: BinaryOp, out: Option<Array>, a: Input, b: Input) -> TensorIteratorConfig {
    match op.preset() {
        Preset::Float => TensorIteratorConfig::binary_float_op(out, a, b),
        Preset::Comparison => TensorIteratorConfig::comparison_op(out, a, b),
        _ => TensorIteratorConfig::binary_op(out, a, b),
    }
}

/// The plan `op` runs on, built from the op's config.
fn config_plan(op: BinaryOp, a: &Arg, b: &Arg, out: Option<Array>) -> Result<TensorIterator> {
    let mut config = config(op, out, a.input()?, b.input()?);
    config.structured(op.is_structured());
    config.into_kernel_plan()
}

/// The Python number of `a ⊙ b` (one side a number, the other a contiguous array) as a 0-d
/// array of the array's dtype, converted as the build's temporary would be
/// (`run::number_array`), when the direct plan can take it: the number leaves the array's
/// dtype as the common one (`a * 2` on floats, `a + 1` on integers, `a += 2`), no true
/// division of integers, no half type (whose `*` and `/` read a number unrounded from the
/// original: see `binary_tensors`), and an `out` (if any) of that dtype — checked here so that
/// no array is made for a call the direct plan would decline anyway. `None` otherwise.
fn direct_number(op: BinaryOp, a: &Arg, b: &Arg, out: Option<&Array>) -> Result<Option<Array>> {
    let (value, array) = match (a, b) {
        (Arg::Array(x), Arg::Scalar(s)) => (*s, x),
        (Arg::Scalar(s), Arg::Array(y)) => (*s, y),
        _ => return Ok(None),
    };
    let dtype = array.dtype();
    let common = crate::dtype::result_type(&[a.participant(), b.participant()])?;
    let contiguous = array.ndim() > 0
        && array
            .layout()
            .is_contiguous(crate::MemoryFormat::Contiguous)
            == Ok(true);
    let halves = matches!(dtype, DType::F16 | DType::BF16);
    let float = op.preset() == Preset::Float;
    let out_fits = out.is_none_or(|o| o.dtype() == dtype);
    if common != dtype || !contiguous || halves || (float && dtype.is_integral(true)) || !out_fits {
        return Ok(None);
    }
    super::run::number_array(value, dtype)
}

/// torch's checks before building: complex maximum/minimum, `sub` with bools.
fn check_binary_args(op: BinaryOp, a: &Arg, b: &Arg) -> Result<()> {
    if matches!(op, BinaryOp::Maximum | BinaryOp::Minimum)
        && (a.dtype().is_complex() || b.dtype().is_complex())
    {
        // torch checks the operands before building (so before any out= cast check)
        return Err(Error::value(format!(
            "{} not implemented for complex tensors.",
            op.name()
        )));
    }
    let (ab, bb) = (a.dtype() == DType::Bool, b.dtype() == DType::Bool);
    // torch raises these as RuntimeError (a ValueError here), unlike the NotImplementedError
    // (TypeError) of a kernel without the dtype.
    if op == BinaryOp::Sub && ab && bb {
        return Err(Error::value(
            "Subtraction, the `-` operator, with two bool tensors is not supported. Use the `^` or `logical_xor()` operator instead.",
        ));
    }
    if op == BinaryOp::Sub && (ab || bb) {
        return Err(Error::value(
            "Subtraction, the `-` operator, with a bool tensor is not supported. If you are trying to invert a mask, use the `~` or `logical_not()` operator instead.",
        ));
    }
    Ok(())
}

/// torch's `alpha_check` against the common dtype.
fn check_alpha(dtype: DType, alpha: Scalar) -> Result<()> {
    let msg = match alpha {
        Scalar::Bool(_) if dtype != DType::Bool => {
            Some("Boolean alpha only supported for Boolean results.")
        }
        Scalar::Float(_) | Scalar::Complex(..) if !dtype.is_floating() && !dtype.is_complex() => {
            Some("For integral input tensors, argument alpha must not be a floating point number.")
        }
        Scalar::Complex(..) if !dtype.is_complex() => {
            Some("For non-complex input tensors, argument alpha must not be a complex number.")
        }
        _ => None,
    };
    msg.map_or(Ok(()), |m| Err(Error::value(m)))
}

/// Whether a kernel met an integer division by zero (the loops cannot return errors).
struct ZeroDivision(AtomicBool);

impl ZeroDivision {
    fn new() -> Self {
        ZeroDivision(AtomicBool::new(false))
    }
    fn flag<T: Default>(&self, v: Option<T>) -> T {
        v.unwrap_or_else(|| {
            self.0.store(true, Ordering::Relaxed);
            T::default()
        })
    }
    fn check(&self) -> Result<()> {
        if self.0.load(Ordering::Relaxed) {
            Err(Error::ZeroDivision)
        } else {
            Ok(())
        }
    }
}

/// Runs `out = a ⊙ b` on a built plan in the common dtype `T` (output in `T` too).
///
/// torch computes add/sub as `a + alpha·b` (sub with `-alpha`); for real dtypes with
/// alpha = 1 that is a plain sum, but complex numbers always go through the complex product
/// `alpha·b`, so an infinite component of `b` gives NaN in the other one, as in torch.
fn run_arith<T: Compute>(plan: &Target, op: BinaryOp, alpha: Scalar) -> Result<()>
where
    T::Op: Arith,
{
    let up = |x: T| x.up();
    let down = T::down;
    let complex = T::DTYPE.is_complex();
    match op {
        BinaryOp::Add if alpha == Scalar::Int(1) && !complex => {
            plan.run(|b| map2_widened(b, up, down, |x, y| x.add(y)))
        }
        BinaryOp::Sub if alpha == Scalar::Int(1) && !complex => {
            plan.run(|b| map2_widened(b, up, down, |x, y| x.sub(y)))
        }
        BinaryOp::Add | BinaryOp::Sub => {
            let alpha = if op == BinaryOp::Sub {
                negated(alpha)
            } else {
                alpha
            };
            // torch converts alpha to the dtype first (`alpha.to<scalar_t>()`: float16 alpha
            // is rounded), then computes in opmath.
            let al = checked_as::<T>(alpha)?.up();
            plan.run(|b| map2_widened(b, up, down, move |x, y| x.add_alpha(y, al)))
        }
        BinaryOp::Mul => plan.run(|b| map2_widened(b, up, down, |x, y| x.mul(y))),
        _ => unreachable!("run_arith is only called for + - ×"),
    }
}

fn run_ordered<T: Compute>(plan: &Target, op: BinaryOp) -> Result<()>
where
    T::Op: Ordered,
{
    let up = |x: T| x.up();
    let down = T::down;
    let zero = ZeroDivision::new();
    match op {
        BinaryOp::FloorDivide => {
            plan.run(|b| map2::<T, T, T>(b, |x, y| down(zero.flag(up(x).floor_divide(up(y))))))?
        }
        BinaryOp::Remainder => {
            plan.run(|b| map2::<T, T, T>(b, |x, y| down(zero.flag(up(x).remainder(up(y))))))?
        }
        BinaryOp::Pow => plan.run(|b| map2::<T, T, T>(b, |x, y| down(up(x).pow(up(y)))))?,
        BinaryOp::Maximum => plan.run(|b| map2::<T, T, T>(b, |x, y| down(up(x).maximum(up(y)))))?,
        BinaryOp::Minimum => plan.run(|b| map2::<T, T, T>(b, |x, y| down(up(x).minimum(up(y)))))?,
        _ => unreachable!("run_ordered is only called for ordered ops"),
    }
    zero.check()
}

fn run_bitwise<T: Bitwise + Copy + Send + Sync + 'static>(
    plan: &Target,
    op: BinaryOp,
) -> Result<()> {
    match op {
        BinaryOp::BitwiseAnd => plan.run(|b| map2::<T, T, T>(b, |x, y| x.and(y))),
        BinaryOp::BitwiseOr => plan.run(|b| map2::<T, T, T>(b, |x, y| x.or(y))),
        _ => plan.run(|b| map2::<T, T, T>(b, |x, y| x.xor(y))),
    }
}

/// The rarer binary functions of real floats (`elementary.rs`), in opmath.
fn run_real_binary<T: Compute>(plan: &Target, op: BinaryOp) -> Result<()>
where
    T::Op: RealBinary,
{
    let f = move |x: T, y: T| {
        let (x, y) = (x.up(), y.up());
        T::down(match op {
            BinaryOp::Atan2 => x.atan2(y),
            BinaryOp::Hypot => x.hypot(y),
            BinaryOp::Copysign => x.copysign(y),
            BinaryOp::Nextafter => x.nextafter(y),
            BinaryOp::Logaddexp => x.logaddexp(y),
            _ => x.fmod(y),
        })
    };
    plan.run(|b| map2::<T, T, T>(b, f))
}

/// Shifts and `fmod` of integers (`integer.rs`).
fn run_integer<T: IntegerOps + Element + Default>(plan: &Target, op: BinaryOp) -> Result<()> {
    let zero = ZeroDivision::new();
    match op {
        BinaryOp::BitwiseLeftShift => plan.run(|b| map2::<T, T, T>(b, |x, y| x.shift_left(y)))?,
        BinaryOp::BitwiseRightShift => plan.run(|b| map2::<T, T, T>(b, |x, y| x.shift_right(y)))?,
        _ => plan.run(|b| map2::<T, T, T>(b, |x, y| zero.flag(x.fmod(y))))?,
    }
    zero.check()
}

/// Equality and logical ops: computed in `T`, written as `O` — bool, or `T` itself when an
/// `out=` of another dtype makes the plan compute into a temporary of the common dtype that
/// is cast back (torch writes `scalar_t(a == b)` there).
fn run_equality<T: Compute, O: Element>(plan: &Target, op: BinaryOp) -> Result<()>
where
    T::Op: Arith,
{
    let up = |x: T| x.up();
    let res = O::from_bool;
    match op {
        BinaryOp::Eq => plan.run(|b| map2::<T, T, O>(b, |x, y| res(up(x) == up(y)))),
        BinaryOp::Ne => plan.run(|b| map2::<T, T, O>(b, |x, y| res(up(x) != up(y)))),
        BinaryOp::LogicalAnd => {
            plan.run(|b| map2::<T, T, O>(b, |x, y| res(up(x).is_nonzero() && up(y).is_nonzero())))
        }
        BinaryOp::LogicalOr => {
            plan.run(|b| map2::<T, T, O>(b, |x, y| res(up(x).is_nonzero() || up(y).is_nonzero())))
        }
        _ => plan.run(|b| map2::<T, T, O>(b, |x, y| res(up(x).is_nonzero() != up(y).is_nonzero()))),
    }
}

/// Order comparisons, as [`run_equality`] (not for complex numbers).
fn run_order<T: Compute, O: Element>(plan: &Target, op: BinaryOp) -> Result<()>
where
    T::Op: PartialOrd,
{
    let up = |x: T| x.up();
    let res = O::from_bool;
    match op {
        BinaryOp::Lt => plan.run(|b| map2::<T, T, O>(b, |x, y| res(up(x) < up(y)))),
        BinaryOp::Le => plan.run(|b| map2::<T, T, O>(b, |x, y| res(up(x) <= up(y)))),
        BinaryOp::Gt => plan.run(|b| map2::<T, T, O>(b, |x, y| res(up(x) > up(y)))),
        _ => plan.run(|b| map2::<T, T, O>(b, |x, y| res(up(x) >= up(y)))),
    }
}

/// `out = a ⊙ b` with torch's output layout, dtype and values; `alpha` scales `b` for add/sub.
/// A given `out=` of another shape is resized (torch's policy, `plan/resize.rs`): the result
/// is then a new array, which the caller puts in the place of `out`.
pub fn binary(
    op: BinaryOp,
    a: &Arg,
    b: &Arg,
    alpha: Option<Scalar>,
    out: Option<Array>,
) -> Result<Array> {
    if super::blocked::involved(&[a, b], out.as_ref()) {
        // an integer division by zero in the padding lanes would raise: integer divisions of
        // padded blocked arrays take the dense route
        let integral = |x: &Arg| x.dtype().is_integral(true);
        let padding_safe = !(matches!(op.name(), "floor_divide" | "remainder" | "fmod")
            && integral(a)
            && integral(b));
        return super::blocked::elementwise(
            &[a.clone(), b.clone()],
            out.as_ref(),
            padding_safe,
            |args, out| binary(op, &args[0], &args[1], alpha, out),
        );
    }
    check_binary_args(op, a, b)?;
    if op == BinaryOp::Pow {
        match (a, b) {
            (Arg::Array(base), Arg::Scalar(exp)) => {
                return super::pow::pow_tensor_scalar(base, *exp, out)
            }
            (Arg::Scalar(base), Arg::Array(exp)) => {
                return super::pow::pow_scalar_tensor(*base, exp, out)
            }
            _ => {}
        }
    }
    binary_tensors(op, a, b, alpha, out)
}

/// `other ⊙ a` for an operator Python reflected onto the Array `a` (`other` is a number or a
/// numpy array on the left): what the op table's reflection says.
pub fn reflected(op: BinaryOp, other: &Arg, a: &Array) -> Result<Array> {
    let array = Arg::Array(a.clone());
    match (op.reflection(), other) {
        (Reflection::Commuted, _) => binary(op, &array, other, None, None),
        (Reflection::Reciprocal, Arg::Scalar(s)) => {
            let r = super::unary::unary(UnaryOp::Reciprocal, a, None)?;
            binary(BinaryOp::Mul, &Arg::Array(r), &Arg::Scalar(*s), None, None)
        }
        _ => binary(op, other, &array, None, None),
    }
}

/// `a ⊙= b`: computed into `a` itself (torch's `add_` & co.: `a` is a read-write output, so a
/// `b` that does not broadcast to `a`'s shape gets torch's "doesn't match the broadcast
/// shape" error rather than a resize).
pub fn inplace(op: BinaryOp, a: &Array, b: &Arg) -> Result<Array> {
    binary(op, &Arg::Array(a.clone()), b, None, Some(a.clone()))
}

/// The binary ops with torch's `Tensor ⊙ Tensor` semantics (Python numbers as wrapped
/// numbers).
pub(crate) fn binary_tensors(
    op: BinaryOp,
    a: &Arg,
    b: &Arg,
    alpha: Option<Scalar>,
    out: Option<Array>,
) -> Result<Array> {
    // the direct plan (`plan::direct_operands`) of two arrays, or of an array and a number
    // made a 0-d array here; else the plan the config's phases build
    let number = direct_number(op, a, b, out.as_ref())?;
    let inputs = match (a, b, &number) {
        (Arg::Array(x), Arg::Array(y), _) => Some([x, y]),
        (Arg::Array(x), Arg::Scalar(_), Some(n)) => Some([x, n]),
        (Arg::Scalar(_), Arg::Array(y), Some(n)) => Some([n, y]),
        _ => None,
    };
    let preset = op.preset();
    let output_dtype = (preset == Preset::Comparison).then_some(DType::Bool);
    let float = preset == Preset::Float;
    let direct = match &inputs {
        Some(inputs) => direct_operands(inputs, output_dtype, float, out.as_ref())?,
        None => None,
    };
    let plan = match direct {
        // (the half types' kernels below read their plan's operands: never a row)
        Some(d) if matches!(d.common_dtype(), DType::F16 | DType::BF16) => {
            Target::plan(d.into_plan())
        }
        Some(d) => Target::direct(d),
        None => Target::plan(config_plan(op, a, b, out)?),
    };
    let dtype = plan.common_dtype()?;
    let ni = || Error::NotImplemented {
        kernel: op.kernel_name(),
        dtype,
    };
    use BinaryOp::*;
    if let Some(halves) = plan.built().filter(|p| {
        matches!(op, Mul | Div | FloorDivide)
            && matches!(dtype, DType::F16 | DType::BF16)
            && p.numel() > 0
            && is_scalar(p, 2)
    }) {
        // torch's reduced-float kernels read a second operand that is one value broadcast
        // (a Python number, a 0-d or all-broadcast array) from the *original* array in float
        // (`original_scalar_value<float>`), never rounded to the common dtype first.
        let s = original_value_f32(&halves.operands()[2])?;
        let f = move |x: f32| -> f32 {
            match op {
                Mul => x * s,
                Div => x / s,
                _ => Ordered::floor_divide(x, s).unwrap_or(f32::NAN),
            }
        };
        dispatch_in!(dtype, T in [F16, BF16] => plan.run(|blk| map2::<T, T, T>(blk, |x, _| T::down(f(x.up()))))?, else return Err(ni()));
        return plan.into_output();
    }
    if op == FloorDivide && matches!(dtype, DType::F16 | DType::BF16) {
        // torch computes floor division of half types in the half type, rounding each step.
        dispatch_in!(dtype, T in [F16, BF16] => plan.run(|blk| map2::<T, T, T>(blk, floor_divide_rounding_each_step))?, else return Err(ni()));
        return plan.into_output();
    }
    // a predicate writes bool, or the common dtype into a temporary for an out= of another
    // dtype (see `run_equality`)
    let to_bool = plan.output_dtype()? == DType::Bool;
    match op {
        Add | Sub | Mul => {
            let alpha = alpha.unwrap_or(Scalar::Int(1));
            check_alpha(dtype, alpha)?;
            dispatch_all!(dtype, T => run_arith::<T>(&plan, op, alpha)?, else return Err(ni()))
        }
        Div => {
            dispatch_inexact!(dtype, T => plan.run(|blk| map2_widened(blk, |x: T| x.up(), T::down, |x, y| x.div(y)))?, else return Err(ni()))
        }
        Pow if dtype.is_complex() => {
            dispatch_in!(dtype, T in [C64, C128] => plan.run(|blk| map2::<T, T, T>(blk, super::pow::complex_pow))?, else return Err(ni()))
        }
        FloorDivide | Remainder | Pow | Maximum | Minimum => {
            if dtype == DType::Bool && matches!(op, Pow | FloorDivide | Remainder) {
                return Err(ni());
            }
            if matches!(op, Maximum | Minimum) && dtype.is_complex() {
                return Err(Error::value(format!(
                    "{} not implemented for complex tensors.",
                    op.name()
                )));
            }
            dispatch_ordered!(dtype, T => run_ordered::<T>(&plan, op)?, else return Err(ni()))
        }
        BitwiseAnd | BitwiseOr | BitwiseXor => {
            dispatch_integral!(dtype, T => run_bitwise::<T>(&plan, op)?, else return Err(ni()))
        }
        Eq | Ne | LogicalAnd | LogicalOr | LogicalXor => {
            dispatch_all!(dtype, T => if to_bool {
                run_equality::<T, Bool>(&plan, op)?
            } else {
                run_equality::<T, T>(&plan, op)?
            }, else return Err(ni()))
        }
        Lt | Le | Gt | Ge => {
            dispatch_ordered!(dtype, T => if to_bool {
                run_order::<T, Bool>(&plan, op)?
            } else {
                run_order::<T, T>(&plan, op)?
            }, else return Err(ni()))
        }
        Nextafter if matches!(dtype, DType::F16 | DType::BF16) => {
            dispatch_in!(dtype, T in [F16, BF16] => plan.run(|blk| map2::<T, T, T>(blk, |x, y| {
                T::from_bits(next_after_bits(x.to_bits(), y.to_bits(), x.up(), y.up()))
            }))?, else return Err(ni()))
        }
        Logaddexp if dtype.is_complex() => {
            dispatch_in!(dtype, T in [C64, C128] => plan.run(|blk| map2::<T, T, T>(blk, complex_logaddexp))?, else return Err(ni()))
        }
        Atan2 | Hypot | Copysign | Nextafter | Logaddexp => {
            dispatch_in!(dtype, T in [F16, BF16, F32, F64] => run_real_binary::<T>(&plan, op)?, else return Err(ni()))
        }
        Fmod if dtype.is_floating() => {
            dispatch_in!(dtype, T in [F16, BF16, F32, F64] => run_real_binary::<T>(&plan, op)?, else return Err(ni()))
        }
        Fmod | BitwiseLeftShift | BitwiseRightShift => {
            dispatch_in!(dtype, T in [U8, U16, U32, U64, I8, I16, I32, I64] => run_integer::<T>(&plan, op)?, else return Err(ni()))
        }
    }
    plan.into_output()
}

/// `c10::div_floor_floating` evaluated in a half type: each operation rounds to `T`.
fn floor_divide_rounding_each_step<T: Compute<Op = f32>>(a: T, b: T) -> T {
    let r = |v: f32| T::down(v).up();
    let (a, b) = (a.up(), b.up());
    if b == 0.0 {
        return T::down(a / b);
    }
    let m = r(a % b);
    let mut div = r(r(a - m) / b);
    if m != 0.0 && ((b < 0.0) != (m < 0.0)) {
        div = r(div - 1.0);
    }
    if div != 0.0 {
        let mut floordiv = div.floor();
        if r(div - floordiv) > 0.5 {
            floordiv = r(floordiv + 1.0);
        }
        T::down(floordiv)
    } else {
        T::down(0.0f32.copysign(r(a / b)))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use half::f16;

    #[test]
    fn half_floor_division_rounds_each_step() {
        // (a - fmod(a, b)) / b rounds to float16 at each step, as torch's Half arithmetic:
        // torch gives -17680 where one rounding of the float result gives -17696
        let (a, b) = (f16::from_f32(-1126.0), f16::from_f32(0.063_659_67));
        assert_eq!(
            floor_divide_rounding_each_step(a, b),
            f16::from_f32(-17680.0)
        );
        assert_eq!(
            floor_divide_rounding_each_step(f16::from_f32(7.0), f16::from_f32(2.0)),
            f16::from_f32(3.0)
        );
    }
}
