//! The elementwise operations of the API: each picks torch's preset, checks what torch's
//! kernel checks, and runs one typed loop. Python scalars take part as wrapped numbers.

use super::element::Bool;
use super::math::{Arith, Bitwise, Compute, Ordered, Transcendental, TrueDiv};
use super::run::run;
use crate::error::{Error, Result};
use crate::exec::raw::{map1, map2, map2_widened, map3};
use crate::plan::{Input, TensorIterator, TensorIteratorConfig};
use crate::{
    dispatch_all, dispatch_in, dispatch_inexact, dispatch_integral, dispatch_ordered, Array, DType,
    Scalar,
};
use std::sync::atomic::{AtomicBool, Ordering};

/// An operand of an operation: an array or a Python number.
#[derive(Debug, Clone)]
pub enum Arg {
    Array(Array),
    Scalar(Scalar),
}

impl Arg {
    fn input(&self) -> Result<Input> {
        match self {
            Arg::Array(a) => Ok(Input::array(a.clone())),
            Arg::Scalar(s) => Input::wrapped(*s),
        }
    }
    /// The dtype torch sees for the operand (a Python scalar's own wide dtype).
    fn dtype(&self) -> DType {
        match self {
            Arg::Array(a) => a.dtype(),
            Arg::Scalar(s) => s.wrapped_dtype(),
        }
    }
}

impl From<Array> for Arg {
    fn from(a: Array) -> Arg {
        Arg::Array(a)
    }
}
impl From<Scalar> for Arg {
    fn from(s: Scalar) -> Arg {
        Arg::Scalar(s)
    }
}

/// torch's message for a kernel that has no implementation for a dtype (`name` as torch
/// registers the kernel, e.g. `add_cpu`).
fn not_implemented(name: &str, dtype: DType) -> Error {
    Error::type_(format!(
        "\"{name}\" not implemented for '{}'",
        dtype.torch_name()
    ))
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum BinaryOp {
    Add,
    Sub,
    Mul,
    Div,
    FloorDivide,
    Remainder,
    Pow,
    Maximum,
    Minimum,
    BitwiseAnd,
    BitwiseOr,
    BitwiseXor,
    LogicalAnd,
    LogicalOr,
    LogicalXor,
    Eq,
    Ne,
    Lt,
    Le,
    Gt,
    Ge,
}

impl BinaryOp {
    /// torch's kernel name, for messages.
    pub fn name(self) -> &'static str {
        use BinaryOp::*;
        match self {
            Add => "add_cpu",
            Sub => "sub_cpu",
            Mul => "mul_cpu",
            Div => "div_true_cpu",
            FloorDivide => "div_floor_cpu",
            Remainder => "remainder_cpu",
            Pow => "pow",
            Maximum => "maximum_cpu",
            Minimum => "minimum_cpu",
            BitwiseAnd => "bitwise_and_cpu",
            BitwiseOr => "bitwise_or_cpu",
            BitwiseXor => "bitwise_xor_cpu",
            LogicalAnd => "logical_and_cpu",
            LogicalOr => "logical_or_cpu",
            LogicalXor => "logical_xor_cpu",
            Eq => "eq_cpu",
            Ne => "ne_cpu",
            Lt => "lt_cpu",
            Le => "le_cpu",
            Gt => "gt_cpu",
            Ge => "ge_cpu",
        }
    }

    /// Ops whose result is bool (unless an `out=` of another dtype is given).
    fn is_predicate(self) -> bool {
        use BinaryOp::*;
        matches!(
            self,
            LogicalAnd | LogicalOr | LogicalXor | Eq | Ne | Lt | Le | Gt | Ge
        )
    }

    fn config(self, out: Option<Array>, a: Input, b: Input) -> TensorIteratorConfig {
        match self {
            BinaryOp::Div => TensorIteratorConfig::binary_float_op(out, a, b),
            op if op.is_predicate() => TensorIteratorConfig::comparison_op(out, a, b),
            _ => TensorIteratorConfig::binary_op(out, a, b),
        }
    }
}

/// torch's checks on `sub` with bools and on `alpha`'s kind.
fn check_binary_args(op: BinaryOp, a: &Arg, b: &Arg) -> Result<()> {
    if matches!(op, BinaryOp::Maximum | BinaryOp::Minimum)
        && (a.dtype().is_complex() || b.dtype().is_complex())
    {
        // torch checks the operands before building (so before any out= cast check)
        let name = if op == BinaryOp::Maximum {
            "maximum"
        } else {
            "minimum"
        };
        return Err(Error::value(format!(
            "{name} not implemented for complex tensors."
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

/// Whether a kernel reported an integer division by zero.
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
            Err(Error::value("ZeroDivisionError"))
        } else {
            Ok(())
        }
    }
}

/// A Python number converted to an element type as torch's `Scalar::to<T>()` does.
fn scalar_as<T: super::element::Element>(s: Scalar) -> T {
    use super::element::{Element, C128};
    match s {
        Scalar::Bool(b) => T::from_bool(b),
        Scalar::Int(i) => T::from_i64(i),
        Scalar::Float(f) => T::from_f64(f),
        Scalar::Complex(re, im) => <T as Element>::from_c128(C128::new(re, im)),
    }
}

/// torch's `-alpha` for `sub` (negating the Python number, so an int 1 becomes -1 + 0i).
fn negated(alpha: Scalar) -> Scalar {
    match alpha {
        Scalar::Bool(b) => Scalar::Int(-(b as i64)),
        Scalar::Int(i) => Scalar::Int(i.wrapping_neg()),
        Scalar::Float(f) => Scalar::Float(-f),
        Scalar::Complex(re, im) => Scalar::Complex(-re, -im),
    }
}

/// Runs `out = a ⊙ b` on a built plan in the common dtype `T` (output in `T` too).
///
/// torch computes add/sub as `a + alpha·b` (sub with `-alpha`); for real dtypes with
/// alpha = 1 that is a plain sum, but complex numbers always go through the complex product
/// `alpha·b`, so an infinite component of `b` gives NaN in the other one, as in torch.
fn run_arith<T: Compute>(plan: &TensorIterator, op: BinaryOp, alpha: Scalar) -> Result<()>
where
    T::Op: Arith,
{
    let up = |x: T| x.up();
    let down = T::down;
    let complex = T::DTYPE.is_complex();
    match op {
        BinaryOp::Add if alpha == Scalar::Int(1) && !complex => {
            run(plan, |b| map2_widened(b, up, down, |x, y| x.add(y)))
        }
        BinaryOp::Sub if alpha == Scalar::Int(1) && !complex => {
            run(plan, |b| map2_widened(b, up, down, |x, y| x.sub(y)))
        }
        BinaryOp::Add | BinaryOp::Sub => {
            let alpha = if op == BinaryOp::Sub {
                negated(alpha)
            } else {
                alpha
            };
            // torch converts alpha to the dtype first (`alpha.to<scalar_t>()`: float16 alpha
            // is rounded), then computes in opmath.
            let al = checked_scalar_as::<T>(alpha)?.up();
            run(plan, |b| {
                map2_widened(b, up, down, move |x, y| x.add_alpha(y, al))
            })
        }
        BinaryOp::Mul => run(plan, |b| map2_widened(b, up, down, |x, y| x.mul(y))),
        _ => unreachable!("run_arith is only called for + - ×"),
    }
}

fn run_ordered<T: Compute>(plan: &TensorIterator, op: BinaryOp) -> Result<()>
where
    T::Op: Ordered,
{
    let up = |x: T| x.up();
    let down = T::down;
    let zero = ZeroDivision::new();
    match op {
        BinaryOp::FloorDivide => run(plan, |b| {
            map2::<T, T, T>(b, |x, y| down(zero.flag(up(x).floor_divide(up(y)))))
        })?,
        BinaryOp::Remainder => run(plan, |b| {
            map2::<T, T, T>(b, |x, y| down(zero.flag(up(x).remainder(up(y)))))
        })?,
        BinaryOp::Pow => run(plan, |b| map2::<T, T, T>(b, |x, y| down(up(x).pow(up(y)))))?,
        BinaryOp::Maximum => run(plan, |b| {
            map2::<T, T, T>(b, |x, y| down(up(x).maximum(up(y))))
        })?,
        BinaryOp::Minimum => run(plan, |b| {
            map2::<T, T, T>(b, |x, y| down(up(x).minimum(up(y))))
        })?,
        _ => unreachable!("run_ordered is only called for ordered ops"),
    }
    zero.check()
}

fn run_bitwise<T: Bitwise + Copy + Send + Sync + 'static>(
    plan: &TensorIterator,
    op: BinaryOp,
) -> Result<()> {
    match op {
        BinaryOp::BitwiseAnd => run(plan, |b| map2::<T, T, T>(b, |x, y| x.and(y))),
        BinaryOp::BitwiseOr => run(plan, |b| map2::<T, T, T>(b, |x, y| x.or(y))),
        _ => run(plan, |b| map2::<T, T, T>(b, |x, y| x.xor(y))),
    }
}

/// Equality and logical ops: computed in `T`, written as bool.
fn run_equality<T: Compute>(plan: &TensorIterator, op: BinaryOp) -> Result<()>
where
    T::Op: Arith,
{
    let up = |x: T| x.up();
    let res = Bool::new;
    match op {
        BinaryOp::Eq => run(plan, |b| map2::<T, T, Bool>(b, |x, y| res(up(x) == up(y)))),
        BinaryOp::Ne => run(plan, |b| map2::<T, T, Bool>(b, |x, y| res(up(x) != up(y)))),
        BinaryOp::LogicalAnd => run(plan, |b| {
            map2::<T, T, Bool>(b, |x, y| res(up(x).is_nonzero() && up(y).is_nonzero()))
        }),
        BinaryOp::LogicalOr => run(plan, |b| {
            map2::<T, T, Bool>(b, |x, y| res(up(x).is_nonzero() || up(y).is_nonzero()))
        }),
        _ => run(plan, |b| {
            map2::<T, T, Bool>(b, |x, y| res(up(x).is_nonzero() != up(y).is_nonzero()))
        }),
    }
}

/// Order comparisons, as `run_equality` (not for complex numbers).
fn run_order<T: Compute>(plan: &TensorIterator, op: BinaryOp) -> Result<()>
where
    T::Op: PartialOrd,
{
    let up = |x: T| x.up();
    let res = Bool::new;
    match op {
        BinaryOp::Lt => run(plan, |b| map2::<T, T, Bool>(b, |x, y| res(up(x) < up(y)))),
        BinaryOp::Le => run(plan, |b| map2::<T, T, Bool>(b, |x, y| res(up(x) <= up(y)))),
        BinaryOp::Gt => run(plan, |b| map2::<T, T, Bool>(b, |x, y| res(up(x) > up(y)))),
        _ => run(plan, |b| map2::<T, T, Bool>(b, |x, y| res(up(x) >= up(y)))),
    }
}

/// `out = a ⊙ b` with torch's output layout, dtype and values; `alpha` scales `b` for add/sub.
pub fn binary(
    op: BinaryOp,
    a: &Arg,
    b: &Arg,
    alpha: Option<Scalar>,
    out: Option<Array>,
) -> Result<Array> {
    check_binary_args(op, a, b)?;
    if op == BinaryOp::Pow {
        match (a, b) {
            (Arg::Array(base), Arg::Scalar(exp)) => return pow_tensor_scalar(base, *exp, out),
            (Arg::Scalar(base), Arg::Array(exp)) => return pow_scalar_tensor(*base, exp, out),
            _ => {}
        }
    }
    binary_tensors(op, a, b, alpha, out)
}

/// The binary ops with torch's `Tensor ⊙ Tensor` semantics (Python numbers as wrapped
/// numbers).
fn binary_tensors(
    op: BinaryOp,
    a: &Arg,
    b: &Arg,
    alpha: Option<Scalar>,
    out: Option<Array>,
) -> Result<Array> {
    if op.is_predicate() && out.as_ref().is_some_and(|o| o.dtype() != DType::Bool) {
        // An out= of another dtype receives the bool result converted (as torch's cast back),
        // after torch's build-time checks of that out (shape, overlap) in torch's order.
        op.config(out.clone(), a.input()?, b.input()?)
            .into_kernel_plan()?;
        let result = binary(op, a, b, None, None)?;
        return finish_into(&result, out);
    }
    let plan = op.config(out, a.input()?, b.input()?).into_kernel_plan()?;
    let dtype = plan
        .common_dtype()
        .ok_or_else(|| Error::type_("cannot infer the dtype of the result"))?;
    let ni = || not_implemented(op.name(), dtype);
    use BinaryOp::*;
    if matches!(op, Mul | Div | FloorDivide)
        && matches!(dtype, DType::F16 | DType::BF16)
        && plan.numel() > 0
        && is_scalar(&plan, 2)
    {
        // torch's reduced-float kernels read a second operand that is one value broadcast
        // (a Python number, a 0-d or all-broadcast array) from the *original* array in float
        // (`original_scalar_value<float>`), never rounded to the common dtype first.
        let s = original_value_f32(&plan.operands()[2])?;
        let f = move |x: f32| -> f32 {
            match op {
                Mul => x * s,
                Div => x / s,
                _ => Ordered::floor_divide(x, s).unwrap_or(f32::NAN),
            }
        };
        dispatch_in!(dtype, T in [F16, BF16] => run(&plan, |blk| map2::<T, T, T>(blk, |x, _| T::down(f(x.up()))))?, else return Err(ni()));
        return Ok(plan.output(0)?.clone());
    }
    if op == FloorDivide && matches!(dtype, DType::F16 | DType::BF16) {
        // torch computes floor division of half types in the half type, rounding each step.
        dispatch_in!(dtype, T in [F16, BF16] => run(&plan, |blk| map2::<T, T, T>(blk, floor_divide_rounding_each_step))?, else return Err(ni()));
        return Ok(plan.output(0)?.clone());
    }
    match op {
        Add | Sub | Mul => {
            let alpha = alpha.unwrap_or(Scalar::Int(1));
            check_alpha(dtype, alpha)?;
            dispatch_all!(dtype, T => run_arith::<T>(&plan, op, alpha)?, else return Err(ni()))
        }
        Div => {
            dispatch_inexact!(dtype, T => run(&plan, |blk| map2_widened(blk, |x: T| x.up(), T::down, |x, y| x.div(y)))?, else return Err(ni()))
        }
        Pow if dtype.is_complex() => {
            dispatch_in!(dtype, T in [C64, C128] => run(&plan, |blk| map2::<T, T, T>(blk, complex_pow))?, else return Err(ni()))
        }
        FloorDivide | Remainder | Pow | Maximum | Minimum => {
            if dtype == DType::Bool && matches!(op, Pow | FloorDivide | Remainder) {
                return Err(ni());
            }
            if matches!(op, Maximum | Minimum) && dtype.is_complex() {
                let name = if op == Maximum { "maximum" } else { "minimum" };
                return Err(Error::value(format!(
                    "{name} not implemented for complex tensors."
                )));
            }
            dispatch_ordered!(dtype, T => run_ordered::<T>(&plan, op)?, else return Err(ni()))
        }
        BitwiseAnd | BitwiseOr | BitwiseXor => {
            dispatch_integral!(dtype, T => run_bitwise::<T>(&plan, op)?, else return Err(ni()))
        }
        Eq | Ne | LogicalAnd | LogicalOr | LogicalXor => {
            dispatch_all!(dtype, T => run_equality::<T>(&plan, op)?, else return Err(ni()))
        }
        Lt | Le | Gt | Ge => {
            dispatch_ordered!(dtype, T => run_order::<T>(&plan, op)?, else return Err(ni()))
        }
    }
    Ok(plan.output(0)?.clone())
}

/// torch's `TensorIteratorBase::is_scalar(arg)`: every dim of the iteration has stride 0 or
/// size 1 for that operand (one value broadcast everywhere).
fn is_scalar(plan: &TensorIterator, arg: usize) -> bool {
    let strides = &plan.operands()[arg].stride_bytes;
    plan.shape()
        .iter()
        .enumerate()
        .all(|(d, &size)| size == 1 || strides.get(d).copied().unwrap_or(0) == 0)
}

/// The first element of an operand's original array (before any conversion to the common
/// dtype), as f32: `c10::fetch_and_cast<float>`.
fn original_value_f32(op: &crate::plan::Operand) -> Result<f32> {
    let array = op
        .original
        .as_ref()
        .or(op.array.as_ref())
        .ok_or_else(|| Error::value("operand without an array"))?;
    let first = array.as_strided(&[], &[], None)?.item()?;
    Ok(match first {
        Scalar::Bool(b) => b as u8 as f32,
        Scalar::Int(i) => i as f32,
        Scalar::Float(f) => f as f32,
        Scalar::Complex(re, _) => re as f32,
    })
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

/// `std::pow` of complex numbers as torch computes it (C99 `cpow`: `exp(y·log(x))`).
fn complex_pow<C: Transcendental>(x: C, y: C) -> C {
    (y.mul(x.ln())).exp()
}

/// A Python number converted to an element type with `c10::checked_convert`'s overflow check
/// (torch's `Scalar::to<T>()`): out of range raises `value cannot be converted to type T
/// without overflow`; infinities and NaN pass for float types; negative ints wrap for uint8.
fn checked_scalar_as<T: super::element::Element>(s: Scalar) -> Result<T> {
    let dtype = T::DTYPE;
    let (lo, hi): (f64, f64) = match dtype {
        DType::U8 => (0.0, 255.0),
        DType::I8 => (-128.0, 127.0),
        DType::I16 => (-32768.0, 32767.0),
        DType::I32 => (-2147483648.0, 2147483647.0),
        DType::I64 => (-9223372036854775808.0, 9223372036854775807.0),
        DType::F16 => (-65504.0, 65504.0),
        DType::BF16 | DType::F32 | DType::C64 => (-(f32::MAX as f64), f32::MAX as f64),
        _ => return Ok(scalar_as::<T>(s)),
    };
    let overflows = match s {
        Scalar::Bool(_) => false,
        Scalar::Int(i) if dtype == DType::U8 => !(-255..=255).contains(&i),
        Scalar::Int(_) if dtype == DType::I64 => false,
        Scalar::Int(i) => (i as f64) < lo || (i as f64) > hi,
        Scalar::Float(f) | Scalar::Complex(f, _) if !f.is_finite() => {
            dtype.is_integral(false) && (f.is_nan() || f.is_infinite())
        }
        Scalar::Float(f) => f < lo || f > hi,
        Scalar::Complex(re, im) => {
            re < lo || re > hi || (dtype.is_complex() && (im < lo || im > hi))
        }
    };
    if overflows {
        let name = match dtype {
            DType::U8 => "uint8_t",
            DType::I8 => "int8_t",
            DType::I16 => "int16_t",
            DType::I32 => "int",
            DType::I64 => "int64_t",
            DType::F16 => "c10::Half",
            DType::BF16 => "c10::BFloat16",
            DType::F32 => "float",
            _ => "c10::complex<float>",
        };
        return Err(Error::value(format!(
            "value cannot be converted to type {name} without overflow"
        )));
    }
    Ok(scalar_as::<T>(s))
}

/// torch's `Scalar::equal(num)`: a bool never equals a number.
fn scalar_equals(s: Scalar, num: f64) -> bool {
    match s {
        Scalar::Bool(_) => false,
        Scalar::Int(i) => i as f64 == num,
        Scalar::Float(f) => f == num,
        Scalar::Complex(re, im) => re == num && im == 0.0,
    }
}

/// `pow(tensor, number)`: torch's `pow.Tensor_Scalar` — a unary op over the base converted to
/// the promoted dtype; exponent 0 fills ones, 1 copies, and torch's fast paths for
/// ±0.5, -1, 2, 3 and -2.
fn pow_tensor_scalar(base: &Array, exp: Scalar, out: Option<Array>) -> Result<Array> {
    if base.dtype().is_integral(true) && matches!(exp, Scalar::Int(i) if i < 0) {
        return Err(Error::value(
            "Integers to negative integer powers are not allowed.",
        ));
    }
    let common = crate::dtype::result_type(&[
        participant(&Arg::Array(base.clone())),
        crate::dtype::Participant::Wrapped(exp.wrapped_dtype()),
    ])?;
    let x = converted(&Arg::Array(base.clone()), common)?;
    // A unary op over the converted base whose result is cast into an out= of another dtype
    // (what torch 2.13 does: `pow(bool, True, out=uint8)` works, `pow(float, 2, out=long)`
    // is refused as an unsafe cast).
    let mut config = TensorIteratorConfig::new();
    config
        .check_mem_overlap(true)
        .promote_inputs_to_common_dtype(true)
        .cast_common_dtype_to_outputs(true)
        .enforce_safe_casting_to_output(true)
        .add_output(out)
        .add_input(x);
    let plan = config.into_kernel_plan()?;
    let ni = || not_implemented("pow", common);
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
            let e = checked_scalar_as::<half::bf16>(exp)?.to_f32();
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
            let e = checked_scalar_as::<half::f16>(exp)?.to_f32();
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
            dispatch_in!(common, T in [U8, I8, I16, I32, I64] => {
                let e = checked_scalar_as::<T>(exp)?;
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

/// `pow(number, tensor)`: torch's `pow.Scalar` — the result is allocated contiguous with the
/// exponent's shape (an out= keeps its dtype), a base of 1 fills ones, anything else is
/// `pow(wrapped number, tensor)` into it.
fn pow_scalar_tensor(base: Scalar, exp: &Array, out: Option<Array>) -> Result<Array> {
    let common = crate::dtype::result_type(&[
        crate::dtype::Participant::Wrapped(base.wrapped_dtype()),
        participant(&Arg::Array(exp.clone())),
    ])?;
    let out = match out {
        Some(o) => o,
        None => Array::empty(exp.shape(), common, crate::MemoryFormat::Contiguous)?,
    };
    if scalar_equals(base, 1.0) {
        let one = Array::full(
            &[],
            Scalar::Int(1),
            out.dtype(),
            crate::MemoryFormat::Contiguous,
        )?;
        super::copy::copy_into(&out, &one)?;
        return Ok(out);
    }
    binary_tensors(
        BinaryOp::Pow,
        &Arg::Scalar(base),
        &Arg::Array(exp.clone()),
        None,
        Some(out),
    )
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum UnaryOp {
    Neg,
    Abs,
    Exp,
    Log,
    Sqrt,
    Sin,
    Cos,
    Tanh,
    Sigmoid,
    Floor,
    Ceil,
    Round,
    Sign,
    BitwiseNot,
    LogicalNot,
    /// `1 / x` (not a module function: `number / array` is `reciprocal(array) * number` in
    /// torch).
    Reciprocal,
}

impl UnaryOp {
    /// Functions of floats: integer inputs promote to float32 (torch's unary_float_op).
    fn is_float_function(self) -> bool {
        use UnaryOp::*;
        matches!(
            self,
            Exp | Log | Sqrt | Sin | Cos | Tanh | Sigmoid | Reciprocal
        )
    }
    /// torch's kernel name, for messages.
    fn name(self) -> &'static str {
        use UnaryOp::*;
        match self {
            Neg => "neg_cpu",
            Abs => "abs_cpu",
            Exp => "exp_vml_cpu",
            Log => "log_vml_cpu",
            Sqrt => "sqrt_vml_cpu",
            Sin => "sin_vml_cpu",
            Cos => "cos_vml_cpu",
            Tanh => "tanh_vml_cpu",
            Sigmoid => "sigmoid_cpu",
            Floor => "floor_vml_cpu",
            Ceil => "ceil_vml_cpu",
            Round => "round_vml_cpu",
            Sign => "sign_cpu",
            BitwiseNot => "bitwise_not_cpu",
            LogicalNot => "logical_not_cpu",
            Reciprocal => "reciprocal_cpu",
        }
    }
}

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
        _ => return Ok(()),
    };
    Err(Error::type_(msg))
}

/// `out = g(a)` computed in opmath. `g` is a generic (each function its own type, not a `fn`
/// pointer) so that it inlines into the inner loop and the loop vectorizes.
fn run_unary_fn<T: Compute>(
    plan: &TensorIterator,
    g: impl Fn(T::Op) -> T::Op + Copy + Send + Sync,
) -> Result<()> {
    run(plan, move |b| map1::<T, T>(b, move |x| T::down(g(x.up()))))
}

fn run_unary_ordered<T: Compute>(plan: &TensorIterator, op: UnaryOp) -> Result<()>
where
    T::Op: Ordered,
{
    match op {
        UnaryOp::Abs => run_unary_fn::<T>(plan, Ordered::abs),
        UnaryOp::Floor => run_unary_fn::<T>(plan, Ordered::floor),
        UnaryOp::Ceil => run_unary_fn::<T>(plan, Ordered::ceil),
        UnaryOp::Round => run_unary_fn::<T>(plan, Ordered::round),
        _ => run_unary_fn::<T>(plan, Ordered::sign),
    }
}

fn run_transcendental<T: Compute>(plan: &TensorIterator, op: UnaryOp) -> Result<()>
where
    T::Op: Transcendental,
{
    match op {
        UnaryOp::Exp => run_unary_fn::<T>(plan, Transcendental::exp),
        UnaryOp::Log => run_unary_fn::<T>(plan, Transcendental::ln),
        UnaryOp::Sqrt => run_unary_fn::<T>(plan, Transcendental::sqrt),
        UnaryOp::Sin => run_unary_fn::<T>(plan, Transcendental::sin),
        UnaryOp::Cos => run_unary_fn::<T>(plan, Transcendental::cos),
        UnaryOp::Tanh => run_unary_fn::<T>(plan, Transcendental::tanh),
        UnaryOp::Reciprocal => run_unary_fn::<T>(plan, |x| {
            TrueDiv::div(<T::Op as Arith>::from_scalar(Scalar::Int(1)), x)
        }),
        _ => run_unary_fn::<T>(plan, Transcendental::sigmoid),
    }
}

/// `out = f(a)` with torch's output layout, dtype and values.
pub fn unary(op: UnaryOp, a: &Array, out: Option<Array>) -> Result<Array> {
    check_unary(op, a.dtype())?;
    if op == UnaryOp::LogicalNot {
        return logical_not(a, out);
    }
    if op == UnaryOp::Abs && a.dtype().is_complex() {
        return complex_abs(a, out);
    }
    let config = if op.is_float_function() {
        TensorIteratorConfig::unary_float_op(out, a.clone())
    } else {
        TensorIteratorConfig::unary_op(out, a.clone())
    };
    let plan = config.into_kernel_plan()?;
    let dtype = plan
        .common_dtype()
        .ok_or_else(|| Error::type_("cannot infer the dtype of the result"))?;
    let ni = || not_implemented(op.name(), dtype);
    match op {
        UnaryOp::Neg => {
            dispatch_all!(dtype, T => run(&plan, |b| map1::<T, T>(b, |x| T::down(x.up().neg())))?, else return Err(ni()))
        }
        UnaryOp::BitwiseNot => {
            dispatch_integral!(dtype, T => run(&plan, |b| map1::<T, T>(b, |x| x.not()))?, else return Err(ni()))
        }
        UnaryOp::Abs | UnaryOp::Floor | UnaryOp::Ceil | UnaryOp::Round | UnaryOp::Sign => {
            if dtype == DType::Bool && op != UnaryOp::Sign {
                return Err(ni());
            }
            dispatch_ordered!(dtype, T => run_unary_ordered::<T>(&plan, op)?, else return Err(ni()))
        }
        _ => {
            dispatch_inexact!(dtype, T => run_transcendental::<T>(&plan, op)?, else return Err(ni()))
        }
    }
    Ok(plan.output(0)?.clone())
}

/// A plan whose (allocated) output has a fixed dtype, as torch's force-boolean unary ops build.
fn fixed_dtype_unary(a: &Array, dtype: DType) -> Result<TensorIterator> {
    let mut config = TensorIteratorConfig::new();
    config
        .check_mem_overlap(true)
        .check_all_same_dtype(false)
        .declare_static_dtype(dtype)
        .add_output(None)
        .add_input(a.clone());
    config.into_kernel_plan()
}

/// `logical_not`: bool result; an `out=` of another dtype receives the converted result.
fn logical_not(a: &Array, out: Option<Array>) -> Result<Array> {
    let plan = fixed_dtype_unary(a, DType::Bool)?;
    let ni = || not_implemented(UnaryOp::LogicalNot.name(), a.dtype());
    dispatch_all!(a.dtype(), T => run(&plan, |b| map1::<T, Bool>(b, |x| Bool::new(!x.up().is_nonzero())))?, else return Err(ni()));
    finish_into(plan.output(0)?, out)
}

/// `abs` of complex numbers: the magnitude, as the real dtype.
fn complex_abs(a: &Array, out: Option<Array>) -> Result<Array> {
    let real = if a.dtype() == DType::C128 {
        DType::F64
    } else {
        DType::F32
    };
    if let Some(o) = &out {
        if o.dtype().is_complex() && o.dtype() != a.dtype() {
            // a complex out= makes torch run the complex → complex unary op (same dtypes)
            return Err(Error::type_(format!(
                "Found dtype {} but expected {}",
                o.dtype().torch_name(),
                a.dtype().torch_name()
            )));
        }
        if !o.dtype().is_complex() && !crate::dtype::can_cast(real, o.dtype()) {
            return Err(Error::type_(format!(
                "result type {} can't be cast to the desired output type {}",
                real.torch_name(),
                o.dtype().torch_name()
            )));
        }
    }
    // torch allocates the result with `empty_like(self, real dtype)` (preserve format), then
    // iterates into it.
    let result = a.empty_like(Some(real), crate::MemoryFormat::Preserve)?;
    let mut config = TensorIteratorConfig::new();
    config
        .check_mem_overlap(true)
        .check_all_same_dtype(false)
        .add_output(Some(result))
        .add_input(a.clone());
    let plan = config.into_kernel_plan()?;
    if a.dtype() == DType::C128 {
        run(&plan, |b| {
            map1::<super::element::C128, f64>(b, |z| z.norm())
        })?;
    } else {
        run(&plan, |b| map1::<super::element::C64, f32>(b, |z| z.norm()))?;
    }
    finish_into(plan.output(0)?, out)
}

/// Returns `result`, or copies it into `out` (which must have its shape) and returns `out`.
fn finish_into(result: &Array, out: Option<Array>) -> Result<Array> {
    match out {
        None => Ok(result.clone()),
        Some(out) => {
            if out.shape() != result.shape() {
                return Err(Error::value(format!(
                    "out= has shape {} but the result has shape {}",
                    crate::shape::fmt_shape(out.shape()),
                    crate::shape::fmt_shape(result.shape())
                )));
            }
            super::copy::copy_into(&out, result)?;
            Ok(out)
        }
    }
}

/// `where(cond, a, b)`: `a` where `cond` is true, else `b`; `a` and `b` promote together.
pub fn where_(cond: &Array, a: &Arg, b: &Arg, out: Option<Array>) -> Result<Array> {
    // torch's order: the promoted dtype, the Python operands made tensors of it
    // (`scalar_tensor`, overflow-checked), out='s dtype, then the condition's.
    let common = crate::dtype::result_type(&[participant(a), participant(b)])?;
    for s in [a, b] {
        if let Arg::Scalar(s) = s {
            // (torch fills float16/bfloat16 through float without a range check: 1e39 → inf)
            dispatch_in!(common, T in [Bool, U8, I8, I16, I32, I64, F32, F64, C64, C128] => {
                checked_scalar_as::<T>(*s)?;
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
    let ni = || not_implemented("where_cpu", common);
    dispatch_all!(common, T => {
        run(&plan, |blk| map3::<Bool, T, T, T>(blk, |c, x, y| if c.get() { x } else { y }))?
    }, else return Err(ni()));
    Ok(plan.output(0)?.clone())
}

/// How an operand takes part in `result_type`.
fn participant(a: &Arg) -> crate::dtype::Participant {
    use crate::dtype::Participant;
    match a {
        Arg::Array(x) if x.ndim() == 0 => Participant::ZeroDim(x.dtype()),
        Arg::Array(x) => Participant::Dim(x.dtype()),
        Arg::Scalar(s) => Participant::Wrapped(s.wrapped_dtype()),
    }
}

/// An operand as an array of `dtype` (torch's `.to(dtype)`: preserve-format strides).
fn converted(a: &Arg, dtype: DType) -> Result<Array> {
    let array = match a {
        Arg::Array(x) => x.clone(),
        Arg::Scalar(s) => Array::full(&[], *s, dtype, crate::MemoryFormat::Contiguous)?,
    };
    if array.dtype() == dtype {
        return Ok(array);
    }
    let out = array.empty_like(Some(dtype), crate::MemoryFormat::Preserve)?;
    super::copy::copy_into(&out, &array)?;
    Ok(out)
}

/// `clamp(a, min, max)`: at least one bound; NaN stays NaN; `min > max` gives `max`.
pub fn clamp(a: &Array, min: Option<&Arg>, max: Option<&Arg>, out: Option<Array>) -> Result<Array> {
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
    let common = plan
        .common_dtype()
        .ok_or_else(|| Error::type_("cannot infer the dtype of the result"))?;
    if min.is_some() && max.is_some() {
        let ni = || not_implemented("clamp_cpu", common);
        dispatch_in!(common, T in [U8, I8, I16, I32, I64, F16, BF16, F32, F64] => {
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
        let ni = || not_implemented(name, common);
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
        let mut parts = vec![participant(&Arg::Array(a.clone()))];
        parts.extend(min.into_iter().chain(max).map(participant));
        common = crate::dtype::result_type(&parts)?;
        if common.is_complex() {
            return Err(Error::type_("clamp is not supported for complex types"));
        }
    }
    for s in [lo, hi].into_iter().flatten() {
        if matches!(s, Scalar::Complex(_, im) if im != 0.0) {
            return Err(Error::value(
                "value cannot be converted to type double without overflow",
            ));
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
    let ni = || not_implemented(name, common);
    let nan_bound = [lo, hi]
        .into_iter()
        .flatten()
        .any(|s| matches!(s, Scalar::Float(f) if f.is_nan()));
    if lo.is_some() && hi.is_some() && nan_bound {
        // torch fills the result with NaN when either bound is NaN
        dispatch_in!(common, T in [F16, BF16, F32, F64] => run(&plan, |blk| map1::<T, T>(blk, |_| T::from_f64(f64::NAN)))?, else return Err(ni()));
        return Ok(plan.output(0)?.clone());
    }
    dispatch_in!(common, T in [U8, I8, I16, I32, I64, F16, BF16, F32, F64] => {
        // torch converts the bounds to the dtype (`Scalar::to<T>()`, overflow-checked).
        let lo = lo.map(checked_scalar_as::<T>).transpose()?.map(|v| v.up());
        let hi = hi.map(checked_scalar_as::<T>).transpose()?.map(|v| v.up());
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

#[cfg(test)]
mod tests {
    use super::*;
    use half::f16;

    #[test]
    fn checked_scalar_conversions_have_torch_texts() {
        let err = checked_scalar_as::<u8>(Scalar::Int(300)).unwrap_err();
        assert_eq!(
            err.to_string(),
            "value cannot be converted to type uint8_t without overflow"
        );
        // negative ints wrap into uint8 down to -255, as c10's overflows() allows
        assert_eq!(checked_scalar_as::<u8>(Scalar::Int(-1)).unwrap(), 255);
        assert!(checked_scalar_as::<u8>(Scalar::Int(-256)).is_err());
        assert!(checked_scalar_as::<f16>(Scalar::Float(1e6)).is_err());
        assert!(checked_scalar_as::<f16>(Scalar::Float(f64::INFINITY)).is_ok());
        assert!(checked_scalar_as::<i32>(Scalar::Float(f64::NAN)).is_err());
        assert!(checked_scalar_as::<f64>(Scalar::Float(1e300)).is_ok());
    }

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

    #[test]
    fn scalar_equality_follows_torch() {
        assert!(scalar_equals(Scalar::Int(1), 1.0));
        assert!(scalar_equals(Scalar::Complex(1.0, 0.0), 1.0));
        assert!(!scalar_equals(Scalar::Bool(true), 1.0));
        assert!(!scalar_equals(Scalar::Complex(1.0, 1.0), 1.0));
    }
}
