//! The elementwise operations of the API: each picks torch's preset, checks what torch's
//! kernel checks, and runs one typed loop. Python scalars take part as wrapped numbers.

use super::element::Bool;
use super::math::{Arith, Bitwise, Compute, Ordered, Transcendental, TrueDiv};
use super::run::run;
use crate::error::{Error, Result};
use crate::exec::raw::{map1, map2, map3};
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
    let (ab, bb) = (a.dtype() == DType::Bool, b.dtype() == DType::Bool);
    if op == BinaryOp::Sub && ab && bb {
        return Err(Error::type_(
            "Subtraction, the `-` operator, with two bool tensors is not supported. Use the `^` or `logical_xor()` operator instead.",
        ));
    }
    if op == BinaryOp::Sub && (ab || bb) {
        return Err(Error::type_(
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
        Scalar::Float(_) if !dtype.is_floating() && !dtype.is_complex() => {
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

/// Runs `out = a ⊙ b` on a built plan in the common dtype `T` (output in `T` too).
fn run_arith<T: Compute>(plan: &TensorIterator, op: BinaryOp, alpha: Scalar) -> Result<()>
where
    T::Op: Arith,
{
    let up = |x: T| x.up();
    let down = T::down;
    match op {
        BinaryOp::Add if alpha == Scalar::Int(1) => {
            run(plan, |b| map2::<T, T, T>(b, |x, y| down(up(x).add(up(y)))))
        }
        BinaryOp::Sub if alpha == Scalar::Int(1) => {
            run(plan, |b| map2::<T, T, T>(b, |x, y| down(up(x).sub(up(y)))))
        }
        BinaryOp::Add | BinaryOp::Sub => {
            let mut al = <<T as Compute>::Op as Arith>::from_scalar(alpha);
            if op == BinaryOp::Sub {
                al = al.neg();
            }
            run(plan, |b| {
                map2::<T, T, T>(b, |x, y| down(up(x).add_alpha(up(y), al)))
            })
        }
        BinaryOp::Mul => run(plan, |b| map2::<T, T, T>(b, |x, y| down(up(x).mul(up(y))))),
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
    if op.is_predicate() && out.as_ref().is_some_and(|o| o.dtype() != DType::Bool) {
        // An out= of another dtype receives the bool result converted (as torch's cast back).
        let result = binary(op, a, b, None, None)?;
        return finish_into(&result, out);
    }
    let plan = op.config(out, a.input()?, b.input()?).into_plan()?;
    let dtype = plan
        .common_dtype()
        .ok_or_else(|| Error::type_("cannot infer the dtype of the result"))?;
    let ni = || not_implemented(op.name(), dtype);
    use BinaryOp::*;
    match op {
        Add | Sub | Mul => {
            let alpha = alpha.unwrap_or(Scalar::Int(1));
            check_alpha(dtype, alpha)?;
            dispatch_all!(dtype, T => run_arith::<T>(&plan, op, alpha)?, else return Err(ni()))
        }
        Div => {
            dispatch_inexact!(dtype, T => run(&plan, |blk| map2::<T, T, T>(blk, |x, y| T::down(x.up().div(y.up()))))?, else return Err(ni()))
        }
        Pow if dtype.is_complex() => {
            dispatch_in!(dtype, T in [C64, C128] => run(&plan, |blk| map2::<T, T, T>(blk, |x, y| x.powc(y)))?, else return Err(ni()))
        }
        FloorDivide | Remainder | Pow | Maximum | Minimum => {
            if dtype == DType::Bool && matches!(op, Pow | FloorDivide | Remainder) {
                return Err(ni());
            }
            if matches!(op, Maximum | Minimum) && dtype.is_complex() {
                let name = if op == Maximum { "maximum" } else { "minimum" };
                return Err(Error::type_(format!(
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
}

impl UnaryOp {
    /// Functions of floats: integer inputs promote to float32 (torch's unary_float_op).
    fn is_float_function(self) -> bool {
        use UnaryOp::*;
        matches!(self, Exp | Log | Sqrt | Sin | Cos | Tanh | Sigmoid)
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
        }
    }
}

/// torch's refusals that come before any kernel runs.
fn check_unary(op: UnaryOp, dtype: DType) -> Result<()> {
    let msg = match op {
        UnaryOp::Neg if dtype == DType::Bool => "Negation, the `-` operator, on a bool tensor is not supported. If you are trying to invert a mask, use the `~` or `logical_not()` operator instead.",
        UnaryOp::Sign if dtype.is_complex() => "Unlike NumPy, torch.sign is not intended to support complex numbers. Please use torch.sgn instead.",
        UnaryOp::Floor if dtype.is_complex() => "floor is not supported for complex inputs",
        UnaryOp::Ceil if dtype.is_complex() => "ceil is not supported for complex inputs",
        _ => return Ok(()),
    };
    Err(Error::type_(msg))
}

fn run_unary_ordered<T: Compute>(plan: &TensorIterator, op: UnaryOp) -> Result<()>
where
    T::Op: Ordered,
{
    let f = |g: fn(T::Op) -> T::Op| run(plan, move |b| map1::<T, T>(b, |x| T::down(g(x.up()))));
    match op {
        UnaryOp::Abs => f(Ordered::abs),
        UnaryOp::Floor => f(Ordered::floor),
        UnaryOp::Ceil => f(Ordered::ceil),
        UnaryOp::Round => f(Ordered::round),
        _ => f(Ordered::sign),
    }
}

fn run_transcendental<T: Compute>(plan: &TensorIterator, op: UnaryOp) -> Result<()>
where
    T::Op: Transcendental,
{
    let f = |g: fn(T::Op) -> T::Op| run(plan, move |b| map1::<T, T>(b, |x| T::down(g(x.up()))));
    match op {
        UnaryOp::Exp => f(Transcendental::exp),
        UnaryOp::Log => f(Transcendental::ln),
        UnaryOp::Sqrt => f(Transcendental::sqrt),
        UnaryOp::Sin => f(Transcendental::sin),
        UnaryOp::Cos => f(Transcendental::cos),
        UnaryOp::Tanh => f(Transcendental::tanh),
        _ => f(Transcendental::sigmoid),
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
    let plan = config.into_plan()?;
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
    config.into_plan()
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
    let plan = fixed_dtype_unary(a, real)?;
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
    if cond.dtype() != DType::Bool && cond.dtype() != DType::U8 {
        return Err(Error::type_(format!(
            "where expected condition to be a boolean tensor, but got a tensor with dtype {}",
            cond.dtype().torch_name()
        )));
    }
    let common = crate::dtype::result_type(&[participant(a), participant(b)])?;
    let (a, b) = (converted(a, common)?, converted(b, common)?);
    let mut config = TensorIteratorConfig::new();
    config
        .check_all_same_dtype(false)
        .add_output(out)
        .add_const_input(cond.clone())
        .add_input(a)
        .add_input(b);
    // torch allocates where's result with the promoted dtype before building the iterator.
    config.declare_static_dtype(common);
    let plan = config.into_plan()?;
    let ni = || not_implemented("where_cpu", common);
    let cond_is_bool = cond.dtype() == DType::Bool;
    dispatch_all!(common, T => {
        if cond_is_bool {
            run(&plan, |blk| map3::<Bool, T, T, T>(blk, |c, x, y| if c.get() { x } else { y }))?
        } else {
            run(&plan, |blk| map3::<u8, T, T, T>(blk, |c, x, y| if c != 0 { x } else { y }))?
        }
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
    let mut parts = vec![participant(&Arg::Array(a.clone()))];
    parts.extend(min.into_iter().chain(max).map(participant));
    let common = crate::dtype::result_type(&parts)?;
    if common.is_complex() {
        return Err(Error::type_("clamp is not supported for complex types"));
    }
    let scalar_bounds = min.is_none_or(|m| matches!(m, Arg::Scalar(_)))
        && max.is_none_or(|m| matches!(m, Arg::Scalar(_)));
    let x = converted(&Arg::Array(a.clone()), common)?;
    let ni = || not_implemented("clamp_cpu", common);
    if scalar_bounds {
        // torch clamps with Python bounds on a unary plan over `a` alone.
        let plan = TensorIteratorConfig::unary_op(out, x).into_plan()?;
        let bound = |b: Option<&Arg>| match b {
            Some(Arg::Scalar(s)) => Some(*s),
            _ => None,
        };
        let (lo, hi) = (bound(min), bound(max));
        dispatch_ordered!(common, T => {
            let lo = lo.map(<<T as Compute>::Op as Arith>::from_scalar);
            let hi = hi.map(<<T as Compute>::Op as Arith>::from_scalar);
            run(&plan, |blk| map1::<T, T>(blk, |v| T::down(clamp_one(v.up(), lo, hi))))?
        }, else return Err(ni()));
        return Ok(plan.output(0)?.clone());
    }
    let mut config = TensorIteratorConfig::new();
    config
        .promote_inputs_to_common_dtype(true)
        .cast_common_dtype_to_outputs(true)
        .enforce_safe_casting_to_output(true)
        .add_output(out);
    config.inputs.push(Input::array(x));
    for bound in [min, max].into_iter().flatten() {
        config.inputs.push(bound.input()?);
    }
    let plan = config.into_plan()?;
    let both = min.is_some() && max.is_some();
    let has_min = min.is_some();
    dispatch_ordered!(common, T => {
        if both {
            run(&plan, |blk| map3::<T, T, T, T>(blk, |v, l, h| T::down(clamp_one(v.up(), Some(l.up()), Some(h.up())))))?
        } else if has_min {
            run(&plan, |blk| map2::<T, T, T>(blk, |v, l| T::down(clamp_one(v.up(), Some(l.up()), None))))?
        } else {
            run(&plan, |blk| map2::<T, T, T>(blk, |v, h| T::down(clamp_one(v.up(), None, Some(h.up())))))?
        }
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
