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
    fn nan(self) -> bool;
    fn inf(self) -> bool;
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
int_classify!(u8, i8, i16, i32, i64);

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
