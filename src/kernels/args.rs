//! Operands of the elementwise functions, and torch's rules for the Python numbers among them:
//! how a number promotes (a wrapped number), how it is converted to a kernel's element type
//! (c10's checked conversion), how it compares, and how an operand is made an array of a dtype.

use super::element::{Element, C128};
use crate::dtype::{DType, Participant};
use crate::error::{Error, Result};
use crate::plan::{Input, Operand, TensorIterator};
use crate::{Array, MemoryFormat, Scalar};

/// An operand of an operation: an array or a Python number.
#[derive(Debug, Clone)]
pub enum Arg {
    /// An array.
    Array(Array),
    /// A Python number.
    Scalar(Scalar),
}

impl Arg {
    /// The operand as the iterator takes it (a number becomes torch's wrapped 0-d array).
    pub(crate) fn input(&self) -> Result<Input> {
        match self {
            Arg::Array(a) => Ok(Input::array(a.clone())),
            Arg::Scalar(s) => Input::wrapped(*s),
        }
    }
    /// How the operand takes part in `result_type`.
    pub fn participant(&self) -> Participant {
        match self {
            Arg::Array(a) => Participant::of(a.dtype(), a.ndim(), false),
            Arg::Scalar(s) => s.participant(),
        }
    }
    /// The dtype torch sees for the operand (a Python number's default dtype for its kind).
    pub fn dtype(&self) -> DType {
        self.participant().dtype()
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

/// The promoted dtype of operands (torch's `result_type`).
pub(crate) fn result_type(args: &[&Arg]) -> Result<DType> {
    let parts: smallvec::SmallVec<[Participant; 4]> =
        args.iter().map(|a| a.participant()).collect();
    crate::dtype::result_type(&parts)
}

/// A Python number as an element type, unchecked (torch's `static_cast` of the number's
/// value: a complex number gives its real part to real types).
pub(crate) fn scalar_as<T: Element>(s: Scalar) -> T {
    match s {
        Scalar::Bool(b) => T::from_bool(b),
        Scalar::Int(i) => T::from_i64(i),
        Scalar::UInt(u) => T::from_u64(u),
        Scalar::Float(f) => T::from_f64(f),
        Scalar::Complex(re, im) => T::from_c128(C128::new(re, im)),
    }
}

/// A Python number as an element type with c10's overflow check (torch's `Scalar::to<T>()`;
/// the rule itself is [`Scalar::checked_for`]).
pub(crate) fn checked_as<T: Element>(s: Scalar) -> Result<T> {
    Ok(scalar_as::<T>(s.checked_for(T::DTYPE)?))
}

/// torch's `-alpha` for `sub` (negating the Python number, so an int 1 becomes -1 + 0i).
pub(crate) fn negated(alpha: Scalar) -> Scalar {
    match alpha {
        Scalar::Bool(b) => Scalar::Int(-(b as i64)),
        Scalar::Int(i) => Scalar::Int(i.wrapping_neg()),
        Scalar::UInt(u) => Scalar::Int((u as i64).wrapping_neg()),
        Scalar::Float(f) => Scalar::Float(-f),
        Scalar::Complex(re, im) => Scalar::Complex(-re, -im),
    }
}

/// torch's `Scalar::equal(num)`: a bool never equals a number.
pub(crate) fn scalar_equals(s: Scalar, num: f64) -> bool {
    match s {
        Scalar::Bool(_) => false,
        Scalar::Int(i) => i as f64 == num,
        Scalar::UInt(u) => u as f64 == num,
        Scalar::Float(f) => f == num,
        Scalar::Complex(re, im) => re == num && im == 0.0,
    }
}

/// An operand as an array of `dtype` (torch's `.to(dtype)`: preserve-format strides; a
/// number becomes a 0-d array).
pub(crate) fn converted(a: &Arg, dtype: DType) -> Result<Array> {
    let array = match a {
        Arg::Array(x) => x.clone(),
        Arg::Scalar(s) => Array::full(&[], *s, dtype, MemoryFormat::Contiguous)?,
    };
    if array.dtype() == dtype {
        return Ok(array);
    }
    let out = array.empty_like(Some(dtype), MemoryFormat::Preserve)?;
    super::copy::copy_into(&out, &array)?;
    Ok(out)
}

/// The plan's common dtype (every elementwise preset computes one).
pub(crate) fn common_dtype(plan: &TensorIterator) -> Result<DType> {
    plan.common_dtype()
        .ok_or_else(|| Error::type_("cannot infer the dtype of the result"))
}

/// torch's `TensorIteratorBase::is_scalar(arg)`: every dim of the iteration has stride 0 or
/// size 1 for that operand (one value broadcast everywhere).
pub(crate) fn is_scalar(plan: &TensorIterator, arg: usize) -> bool {
    let strides = &plan.operands()[arg].stride_bytes;
    plan.shape()
        .iter()
        .enumerate()
        .all(|(d, &size)| size == 1 || strides.get(d).copied().unwrap_or(0) == 0)
}

/// The first element of an operand's original array (before any conversion to the common
/// dtype), as f32: `c10::fetch_and_cast<float>`.
pub(crate) fn original_value_f32(op: &Operand) -> Result<f32> {
    let array = op
        .original
        .as_deref()
        .or(op.array.as_ref())
        .ok_or_else(|| Error::value("operand without an array"))?;
    let first = array.as_strided(&[], &[], None)?.item()?;
    Ok(match first {
        Scalar::Bool(b) => b as u8 as f32,
        Scalar::Int(i) => i as f32,
        Scalar::UInt(u) => u as f32,
        Scalar::Float(f) => f as f32,
        Scalar::Complex(re, _) => re as f32,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use half::f16;

    #[test]
    fn checked_conversions_have_torch_texts() {
        let err = checked_as::<u8>(Scalar::Int(300)).unwrap_err();
        assert_eq!(
            err.to_string(),
            "value cannot be converted to type uint8_t without overflow"
        );
        // negative ints wrap into uint8 down to -255, as c10's overflows() allows
        assert_eq!(checked_as::<u8>(Scalar::Int(-1)).unwrap(), 255);
        assert!(checked_as::<u8>(Scalar::Int(-256)).is_err());
        assert!(checked_as::<f16>(Scalar::Float(1e6)).is_err());
        assert!(checked_as::<f16>(Scalar::Float(f64::INFINITY)).is_ok());
        assert!(checked_as::<i32>(Scalar::Float(f64::NAN)).is_err());
        assert!(checked_as::<f64>(Scalar::Float(1e300)).is_ok());
    }

    /// The case the two copies of c10's conversion disagreed on: a complex number with a
    /// non-zero imaginary part overflows every real type (torch: `value cannot be converted
    /// to type float without overflow`), and converts when the imaginary part is zero.
    #[test]
    fn complex_with_an_imaginary_part_fits_no_real_type() {
        for (dtype, name) in [
            (DType::F32, "float"),
            (DType::F64, "double"),
            (DType::I64, "int64_t"),
            (DType::F16, "c10::Half"),
        ] {
            let err = Scalar::Complex(1.0, 2.0).checked_for(dtype).unwrap_err();
            assert_eq!(err, Error::Overflow { type_name: name });
        }
        assert!(checked_as::<f32>(Scalar::Complex(1.0, 2.0)).is_err());
        assert_eq!(checked_as::<f32>(Scalar::Complex(1.5, 0.0)).unwrap(), 1.5);
        assert!(checked_as::<C128>(Scalar::Complex(1.0, 2.0)).is_ok());
        assert!(checked_as::<super::super::element::Bool>(Scalar::Complex(1.0, 2.0)).is_ok());
    }

    #[test]
    fn scalar_equality_follows_torch() {
        assert!(scalar_equals(Scalar::Int(1), 1.0));
        assert!(scalar_equals(Scalar::Complex(1.0, 0.0), 1.0));
        assert!(!scalar_equals(Scalar::Bool(true), 1.0));
        assert!(!scalar_equals(Scalar::Complex(1.0, 1.0), 1.0));
    }
}
