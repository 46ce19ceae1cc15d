//! The unary predicates `isnan`, `isinf`, `isfinite` and `signbit`: a bool result from an
//! input of any dtype, read as it is (no promotion). Integers are never NaN or infinite;
//! a complex number is NaN (infinite) when either part is, finite when both are.

use super::element::{C128, C64};
use super::math::Compute;
use super::run::run;
use super::table::UnaryOp;
use crate::error::{Error, Result};
use crate::exec::raw::map1;
use crate::plan::TensorIteratorConfig;
use crate::{dispatch_all, Array, DType};

/// What a predicate asks of one element.
pub trait Classify: Copy {
    /// Whether the element is NaN (a complex number when either part is).
    fn nan(self) -> bool;
    /// Whether the element is infinite (a complex number when either part is).
    fn inf(self) -> bool;
    /// Whether the element is finite (a complex number when both parts are).
    fn finite(self) -> bool;
    /// The sign bit (`x < 0` for integers; set for -0.0 and negative NaNs).
    fn sign_bit(self) -> bool;
}

macro_rules! int_classify {
    ($($t:ty),*) => {$(
        impl Classify for $t {
            fn nan(self) -> bool { false }
            fn inf(self) -> bool { false }
            fn finite(self) -> bool { true }
            #[allow(unused_comparisons)]
            fn sign_bit(self) -> bool { self < 0 }
        }
    )*};
}
int_classify!(u8, u16, u32, u64, i8, i16, i32, i64);

impl Classify for super::element::Bool {
    fn nan(self) -> bool {
        false
    }
    fn inf(self) -> bool {
        false
    }
    fn finite(self) -> bool {
        true
    }
    fn sign_bit(self) -> bool {
        false
    }
}

macro_rules! float_classify {
    ($($t:ty),*) => {$(
        impl Classify for $t {
            fn nan(self) -> bool { self.is_nan() }
            fn inf(self) -> bool { self.is_infinite() }
            fn finite(self) -> bool { self.is_finite() }
            fn sign_bit(self) -> bool { self.is_sign_negative() }
        }
    )*};
}
float_classify!(f32, f64);

macro_rules! complex_classify {
    ($($t:ty),*) => {$(
        impl Classify for $t {
            fn nan(self) -> bool { self.re.is_nan() || self.im.is_nan() }
            fn inf(self) -> bool { self.re.is_infinite() || self.im.is_infinite() }
            fn finite(self) -> bool { self.re.is_finite() && self.im.is_finite() }
            fn sign_bit(self) -> bool { self.re.is_sign_negative() }
        }
    )*};
}
complex_classify!(C64, C128);

/// `op(a)` as bool (or into an `out=` of another dtype, which `signbit` refuses as torch).
pub fn predicate(op: UnaryOp, a: &Array, out: Option<Array>) -> Result<Array> {
    if op == UnaryOp::Signbit && out.as_ref().is_some_and(|o| o.dtype() != DType::Bool) {
        return Err(Error::value(
            "signbit does not support non-boolean outputs.",
        ));
    }
    let exact = !(a.dtype().is_floating() || a.dtype().is_complex());
    if exact && out.is_none() && matches!(op, UnaryOp::Isinf | UnaryOp::Isfinite) {
        // torch answers integers without a loop: `zeros_like` / `ones_like` (bool), whose
        // strides are `empty_like`'s (the input's own when it is dense)
        let answer = crate::Scalar::Bool(op == UnaryOp::Isfinite);
        return a.full_like(answer, Some(DType::Bool), crate::MemoryFormat::Preserve);
    }
    let settled = !exact && a.shape().iter().any(|&n| n <= 1);
    let out = match out {
        None if settled && matches!(op, UnaryOp::Isinf | UnaryOp::Isfinite) => {
            Some(torch_result_layout(op, a)?)
        }
        out => out,
    };
    let mut config = TensorIteratorConfig::new();
    config.check_mem_overlap(true).check_all_same_dtype(false);
    if out.is_none() {
        config.declare_static_dtype(DType::Bool);
    }
    config.add_output(out).add_const_input(a.clone());
    let plan = config.into_kernel_plan()?;
    let ni = || Error::NotImplemented {
        kernel: op.kernel_name(),
        dtype: a.dtype(),
    };
    dispatch_all!(a.dtype(), T => dispatch_all!(plan.dtype(0)?, O => {
        run(&plan, |b| map1::<T, O>(b, |x| O::from_bool(ask(op, x.up()))))?
    }, else return Err(ni())), else return Err(ni()));
    Ok(plan.output(0)?.clone())
}

/// The result an elementwise iterator allocates for `config` (nothing is computed).
fn allocated(config: TensorIteratorConfig) -> Result<Array> {
    Ok(config.into_kernel_plan()?.output(0)?.clone())
}

/// An uncomputed result of `isinf`/`isfinite` of float or complex `a` with torch's strides.
/// torch composes them: `isinf(x) = abs(x) == inf`, `isfinite(x) = (x == x) * (abs(x) !=
/// inf)`, and for complex `x` the same of the view `real(x)`, combined in place with
/// `imag(x)`'s. Each step is an iterator that lays its result out from the
/// previous one's (a comparison with the scalar `inf` never takes the fast setup, and lays
/// an empty result out with a zero stride after a zero size); where dims of size 0 or 1 leave
/// the order of the strides open this differs from one iterator over `a`, so the steps are
/// replayed here, allocating only.
fn torch_result_layout(op: UnaryOp, a: &Array) -> Result<Array> {
    use crate::plan::Input;
    let inf = || Input::wrapped(crate::Scalar::Float(f64::INFINITY));
    // (real(x)'s doubled element strides can make a dense complex array a sparse real one)
    let a = &super::complex_parts::complex_part(a, false)?;
    let abs = allocated(TensorIteratorConfig::unary_op(None, a.clone()))?;
    let compared_with_inf = allocated(TensorIteratorConfig::comparison_op(
        None,
        Input::array(abs),
        inf()?,
    ))?;
    if op == UnaryOp::Isinf {
        return Ok(compared_with_inf);
    }
    let equal_itself = allocated(TensorIteratorConfig::comparison_op(
        None,
        Input::array(a.clone()),
        Input::array(a.clone()),
    ))?;
    allocated(TensorIteratorConfig::binary_op(
        None,
        Input::array(equal_itself),
        Input::array(compared_with_inf),
    ))
}

/// The predicate's answer for one element (`op` is the same for the whole loop: the branch is
/// predictable).
#[inline(always)]
fn ask<X: Classify>(op: UnaryOp, x: X) -> bool {
    match op {
        UnaryOp::Isnan => x.nan(),
        UnaryOp::Isinf => x.inf(),
        UnaryOp::Isfinite => x.finite(),
        _ => x.sign_bit(),
    }
}
