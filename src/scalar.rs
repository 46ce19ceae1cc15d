//! A single value of any dtype, and torch's conversions between them (float → int truncates,
//! anything → bool is `!= 0`, narrower ints wrap, half types round through float).
#![forbid(unsafe_code)]

use crate::dtype::{wrapped_number_dtype, Category, DType, Participant};
use crate::error::{Error, Result};
use half::{bf16, f16};

/// One element, widened to the value kinds Python has.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Scalar {
    /// A Python bool.
    Bool(bool),
    /// A Python int in the int64 range.
    Int(i64),
    /// A Python int in [2^63, 2^64) (torch's uint64 Scalar): its full value for floats and
    /// uint64, its bits (an int64) for the other integer types.
    UInt(u64),
    /// A Python float.
    Float(f64),
    /// A Python complex: real and imaginary parts.
    Complex(f64, f64),
}

impl Scalar {
    /// The kind of Python number this is.
    pub fn category(self) -> Category {
        match self {
            Scalar::Bool(_) => Category::Bool,
            Scalar::Int(_) | Scalar::UInt(_) => Category::Integral,
            Scalar::Float(_) => Category::Floating,
            Scalar::Complex(..) => Category::Complex,
        }
    }

    /// How this number takes part in `result_type` as a Python operand (a wrapped number).
    pub fn participant(self) -> Participant {
        Participant::of(self.wrapped_dtype(), 0, true)
    }

    /// The dtype of the 0-d array torch wraps this number in: the widest of its kind, uint64
    /// for an int beyond int64 (so that the number keeps its value until the kernel converts
    /// it to the common dtype).
    pub fn wrapped_dtype(self) -> DType {
        match self {
            Scalar::UInt(_) => DType::U64,
            other => wrapped_number_dtype(other.category()),
        }
    }

    /// torch's default dtype for a Python number of this kind (bool, int64, float32,
    /// complex64): the dtype of `full(shape, value)` and of its wrapped-number bucket.
    pub fn default_dtype(self) -> DType {
        Participant::of(wrapped_number_dtype(self.category()), 0, true).dtype()
    }

    /// The value as f64 (a bool as 0 or 1, a complex number's real part).
    pub fn as_f64(self) -> f64 {
        match self {
            Scalar::Bool(b) => b as u8 as f64,
            Scalar::Int(i) => i as f64,
            Scalar::UInt(u) => u as f64,
            Scalar::Float(f) => f,
            Scalar::Complex(re, _) => re,
        }
    }

    /// Integer value with C-like truncation toward zero (saturating at the i64 range first).
    pub fn as_i64(self) -> i64 {
        match self {
            Scalar::Bool(b) => b as i64,
            Scalar::Int(i) => i,
            Scalar::UInt(u) => u as i64,
            Scalar::Float(f) => f as i64,
            Scalar::Complex(re, _) => re as i64,
        }
    }

    /// torch's `Scalar::to<T>()` for a value about to be stored as `dtype` (`full`, `fill_`,
    /// `arange`'s bounds): the value, or torch's overflow error when `dtype` cannot hold it.
    ///
    /// The rules are c10's `checked_convert`: bool takes anything; a complex value with a non-zero
    /// imaginary part fits no real type; the floating types refuse finite values beyond their
    /// range (infinities and NaN pass); integers refuse NaN, infinities and values beyond their
    /// range, except that uint8 lets negative ints down to -255 wrap. (torch's fill kernel
    /// checks float16/bfloat16 values as doubles instead: see `Array::full`.)
    pub fn checked_for(self, dtype: DType) -> Result<Scalar> {
        let type_name = c10_type_name(dtype);
        let overflow = || Error::Overflow { type_name };
        // c10: a complex value with a non-zero imaginary part overflows every real type
        // (bool excepted: it holds anything).
        let real = || -> Result<f64> {
            match self {
                Scalar::Complex(_, im) if im != 0.0 => Err(overflow()),
                other => Ok(other.as_f64()),
            }
        };
        let beyond = |x: f64, max: f64| x.is_finite() && x.abs() > max;
        match dtype {
            DType::Bool | DType::C128 => Ok(self),
            DType::F64 => real().map(|_| self),
            DType::F32 | DType::F16 | DType::BF16 => {
                let max = match dtype {
                    DType::F32 => f32::MAX as f64,
                    DType::F16 => f16::MAX.to_f64(),
                    _ => bf16::MAX.to_f64(),
                };
                if beyond(real()?, max) {
                    return Err(overflow());
                }
                Ok(self)
            }
            DType::ComplexHalf | DType::C64 => {
                let (re, im) = match self {
                    Scalar::Complex(re, im) => (re, im),
                    other => (other.as_f64(), 0.0),
                };
                if beyond(re, f32::MAX as f64) || beyond(im, f32::MAX as f64) {
                    return Err(overflow());
                }
                Ok(self)
            }
            DType::U64 => match self {
                // every int64 fits (negative ones wrap); floats must lie in [0, 2^64)
                Scalar::Bool(_) | Scalar::Int(_) | Scalar::UInt(_) => Ok(self),
                Scalar::Float(_) | Scalar::Complex(..) => {
                    let x = real()?;
                    if x.is_nan() || !(0.0..=u64::MAX as f64).contains(&x) {
                        return Err(overflow());
                    }
                    Ok(Scalar::Int(
                        <u64 as crate::kernels::element::Element>::from_f64(x) as i64,
                    ))
                }
            },
            DType::U8
            | DType::U16
            | DType::U32
            | DType::I8
            | DType::I16
            | DType::I32
            | DType::I64 => {
                let (lo, hi): (i64, i64) = match dtype {
                    DType::U8 => (0, u8::MAX as i64),
                    DType::U16 => (0, u16::MAX as i64),
                    DType::U32 => (0, u32::MAX as i64),
                    DType::I8 => (i8::MIN as i64, i8::MAX as i64),
                    DType::I16 => (i16::MIN as i64, i16::MAX as i64),
                    DType::I32 => (i32::MIN as i64, i32::MAX as i64),
                    _ => (i64::MIN, i64::MAX),
                };
                match self {
                    Scalar::Bool(_) => Ok(self),
                    Scalar::UInt(_) => Err(overflow()),
                    Scalar::Int(i) => {
                        // unsigned types let negative values wrap (two's complement), down
                        // to -max
                        let fits = if lo == 0 {
                            (-hi..=hi).contains(&i)
                        } else {
                            (lo..=hi).contains(&i)
                        };
                        if fits {
                            Ok(self)
                        } else {
                            Err(overflow())
                        }
                    }
                    Scalar::Float(_) | Scalar::Complex(..) => {
                        let x = real()?;
                        // compared as doubles, like C++: 2^63 passes for int64 (and becomes
                        // i64::MIN on x86, as in torch)
                        if x.is_nan() || x < lo as f64 || x > hi as f64 {
                            return Err(overflow());
                        }
                        if dtype == DType::I64 && x >= i64::MAX as f64 {
                            return Ok(Scalar::Int(i64::MIN));
                        }
                        Ok(Scalar::Int(x as i64))
                    }
                }
            }
        }
    }

    /// Whether the value is non-zero (a complex number when either part is).
    pub fn is_nonzero(self) -> bool {
        match self {
            Scalar::Bool(b) => b,
            Scalar::Int(i) => i != 0,
            Scalar::UInt(u) => u != 0,
            Scalar::Float(f) => f != 0.0,
            Scalar::Complex(re, im) => re != 0.0 || im != 0.0,
        }
    }

    /// Little-endian bytes of this value converted to `dtype` (torch's conversion rules).
    /// `ComplexHalf` is not storable and gives its two halves as f16.
    pub fn to_bytes(self, dtype: DType) -> Vec<u8> {
        let f = || self.as_f64();
        let i = || self.as_i64();
        match dtype {
            DType::Bool => vec![self.is_nonzero() as u8],
            DType::U8 => vec![i() as u8],
            DType::U16 => (i() as u16).to_le_bytes().to_vec(),
            DType::U32 => (i() as u32).to_le_bytes().to_vec(),
            DType::U64 => match self {
                Scalar::Float(x) | Scalar::Complex(x, _) => {
                    <u64 as crate::kernels::element::Element>::from_f64(x)
                        .to_le_bytes()
                        .to_vec()
                }
                other => (other.as_i64() as u64).to_le_bytes().to_vec(),
            },
            DType::I8 => (i() as i8).to_le_bytes().to_vec(),
            DType::I16 => (i() as i16).to_le_bytes().to_vec(),
            DType::I32 => (i() as i32).to_le_bytes().to_vec(),
            DType::I64 => i().to_le_bytes().to_vec(),
            DType::F16 => f16::from_f32(f() as f32).to_le_bytes().to_vec(),
            DType::BF16 => bf16::from_f32(f() as f32).to_le_bytes().to_vec(),
            DType::F32 => (f() as f32).to_le_bytes().to_vec(),
            DType::F64 => f().to_le_bytes().to_vec(),
            DType::ComplexHalf | DType::C64 | DType::C128 => {
                let (re, im) = match self {
                    Scalar::Complex(re, im) => (re, im),
                    other => (other.as_f64(), 0.0),
                };
                let mut out = Vec::with_capacity(dtype.itemsize());
                match dtype {
                    DType::ComplexHalf => {
                        out.extend(f16::from_f32(re as f32).to_le_bytes());
                        out.extend(f16::from_f32(im as f32).to_le_bytes());
                    }
                    DType::C64 => {
                        out.extend((re as f32).to_le_bytes());
                        out.extend((im as f32).to_le_bytes());
                    }
                    _ => {
                        out.extend(re.to_le_bytes());
                        out.extend(im.to_le_bytes());
                    }
                }
                out
            }
        }
    }

    /// Reads one element of `dtype` from its little-endian bytes.
    pub fn from_bytes(dtype: DType, b: &[u8]) -> Scalar {
        let a2 = || [b[0], b[1]];
        let a4 = |o: usize| [b[o], b[o + 1], b[o + 2], b[o + 3]];
        let a8 = |o: usize| {
            let mut x = [0u8; 8];
            x.copy_from_slice(&b[o..o + 8]);
            x
        };
        match dtype {
            DType::Bool => Scalar::Bool(b[0] != 0),
            DType::U8 => Scalar::Int(b[0] as i64),
            DType::U16 => Scalar::Int(u16::from_le_bytes(a2()) as i64),
            DType::U32 => Scalar::Int(u32::from_le_bytes(a4(0)) as i64),
            DType::U64 => {
                let v = u64::from_le_bytes(a8(0));
                i64::try_from(v).map_or(Scalar::UInt(v), Scalar::Int)
            }
            DType::I8 => Scalar::Int(b[0] as i8 as i64),
            DType::I16 => Scalar::Int(i16::from_le_bytes(a2()) as i64),
            DType::I32 => Scalar::Int(i32::from_le_bytes(a4(0)) as i64),
            DType::I64 => Scalar::Int(i64::from_le_bytes(a8(0))),
            DType::F16 => Scalar::Float(f16::from_le_bytes(a2()).to_f64()),
            DType::BF16 => Scalar::Float(bf16::from_le_bytes(a2()).to_f64()),
            DType::F32 => Scalar::Float(f32::from_le_bytes(a4(0)) as f64),
            DType::F64 => Scalar::Float(f64::from_le_bytes(a8(0))),
            DType::ComplexHalf => Scalar::Complex(
                f16::from_le_bytes([b[0], b[1]]).to_f64(),
                f16::from_le_bytes([b[2], b[3]]).to_f64(),
            ),
            DType::C64 => Scalar::Complex(
                f32::from_le_bytes(a4(0)) as f64,
                f32::from_le_bytes(a4(4)) as f64,
            ),
            DType::C128 => Scalar::Complex(f64::from_le_bytes(a8(0)), f64::from_le_bytes(a8(8))),
        }
    }
}

/// The C++ type name c10's overflow message uses for a dtype.
fn c10_type_name(dtype: DType) -> &'static str {
    match dtype {
        DType::Bool => "bool",
        DType::U8 => "uint8_t",
        DType::U16 => "uint16_t",
        DType::U32 => "uint32_t",
        DType::U64 => "uint64_t",
        DType::I8 => "int8_t",
        DType::I16 => "int16_t",
        DType::I32 => "int",
        DType::I64 => "int64_t",
        DType::F16 => "c10::Half",
        DType::BF16 => "c10::BFloat16",
        DType::F32 => "float",
        DType::F64 => "double",
        DType::ComplexHalf => "c10::complex<c10::Half>",
        DType::C64 => "c10::complex<float>",
        DType::C128 => "c10::complex<double>",
    }
}

/// A double as C++'s `std::ostream` prints it by default (like `%g`: six significant digits,
/// trailing zeros dropped, scientific notation below 1e-4 and from 1e6), for torch's messages.
pub fn fmt_g(x: f64) -> String {
    if x.is_nan() {
        return "nan".to_string();
    }
    if x.is_infinite() {
        return if x > 0.0 { "inf" } else { "-inf" }.to_string();
    }
    if x == 0.0 {
        return if x.is_sign_negative() { "-0" } else { "0" }.to_string();
    }
    let trim = |digits: String| -> String {
        if digits.contains('.') {
            digits
                .trim_end_matches('0')
                .trim_end_matches('.')
                .to_string()
        } else {
            digits
        }
    };
    // six significant digits decide the exponent (rounding may carry into the next power)
    let sci = format!("{x:.5e}");
    let (mantissa, exponent) = sci.split_once('e').unwrap_or((&sci, "0"));
    let exponent: i32 = exponent.parse().unwrap_or(0);
    if !(-4..6).contains(&exponent) {
        let sign = if exponent < 0 { '-' } else { '+' };
        format!("{}e{sign}{:02}", trim(mantissa.to_string()), exponent.abs())
    } else {
        trim(format!("{x:.*}", (5 - exponent) as usize))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn prints_like_cpp() {
        assert_eq!(fmt_g(1234567.5), "1.23457e+06");
        assert_eq!(fmt_g(0.5), "0.5");
        assert_eq!(fmt_g(5.0), "5");
        assert_eq!(fmt_g(999999.5), "1e+06");
        assert_eq!(fmt_g(0.0001), "0.0001");
        assert_eq!(fmt_g(0.00001234), "1.234e-05");
        assert_eq!(fmt_g(-2.5e-300), "-2.5e-300");
        assert_eq!(fmt_g(f64::NEG_INFINITY), "-inf");
    }

    #[test]
    fn checked_conversions_follow_torch() {
        let msg = |s: Scalar, t: DType| s.checked_for(t).unwrap_err().to_string();
        assert_eq!(
            msg(Scalar::Int(256), DType::U8),
            "value cannot be converted to type uint8_t without overflow"
        );
        assert_eq!(
            Scalar::Int(-255).checked_for(DType::U8).unwrap(),
            Scalar::Int(-255)
        );
        assert_eq!(
            msg(Scalar::Float(-0.5), DType::U8),
            "value cannot be converted to type uint8_t without overflow"
        );
        assert_eq!(
            msg(Scalar::Float(3.5e38), DType::F32),
            "value cannot be converted to type float without overflow"
        );
        assert!(Scalar::Float(f64::INFINITY).checked_for(DType::F32).is_ok());
        assert_eq!(
            msg(Scalar::Complex(1.0, 1.0), DType::F16),
            "value cannot be converted to type c10::Half without overflow"
        );
        assert_eq!(
            msg(Scalar::Int(70000), DType::F16),
            "value cannot be converted to type c10::Half without overflow"
        );
        assert!(Scalar::Int(70000).checked_for(DType::BF16).is_ok());
        assert_eq!(
            msg(Scalar::Float(f64::NAN), DType::I32),
            "value cannot be converted to type int without overflow"
        );
        assert_eq!(
            Scalar::Float(-1.7).checked_for(DType::I32).unwrap(),
            Scalar::Int(-1)
        );
        assert!(Scalar::Complex(7.0, 1.0).checked_for(DType::Bool).is_ok());
    }

    #[test]
    fn conversions_follow_torch() {
        let rt = |s: Scalar, t: DType| Scalar::from_bytes(t, &s.to_bytes(t));
        assert_eq!(rt(Scalar::Int(-1), DType::U8), Scalar::Int(255));
        assert_eq!(rt(Scalar::Int(256), DType::U8), Scalar::Int(0));
        assert_eq!(rt(Scalar::Float(-2.7), DType::I32), Scalar::Int(-2));
        assert_eq!(rt(Scalar::Float(0.5), DType::Bool), Scalar::Bool(true));
        assert_eq!(rt(Scalar::Float(1.5), DType::BF16), Scalar::Float(1.5));
        assert_eq!(
            rt(Scalar::Complex(1.0, 2.0), DType::C64),
            Scalar::Complex(1.0, 2.0)
        );
    }
}
