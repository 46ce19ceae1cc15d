//! A single value of any dtype, and torch's conversions between them (float → int truncates,
//! anything → bool is `!= 0`, narrower ints wrap, half types round through float).

use crate::dtype::DType;
use half::{bf16, f16};

/// One element, widened to the value kinds Python has.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Scalar {
    Bool(bool),
    Int(i64),
    Float(f64),
    Complex(f64, f64),
}

impl Scalar {
    /// The dtype a Python scalar of this kind counts as ("wrapped number" rule).
    pub fn wrapped_dtype(self) -> DType {
        match self {
            Scalar::Bool(_) => DType::Bool,
            Scalar::Int(_) => DType::I64,
            Scalar::Float(_) => crate::dtype::DEFAULT_FLOAT,
            Scalar::Complex(..) => crate::dtype::DEFAULT_COMPLEX,
        }
    }

    pub fn as_f64(self) -> f64 {
        match self {
            Scalar::Bool(b) => b as u8 as f64,
            Scalar::Int(i) => i as f64,
            Scalar::Float(f) => f,
            Scalar::Complex(re, _) => re,
        }
    }

    /// Integer value with C-like truncation toward zero (saturating at the i64 range first).
    pub fn as_i64(self) -> i64 {
        match self {
            Scalar::Bool(b) => b as i64,
            Scalar::Int(i) => i,
            Scalar::Float(f) => f as i64,
            Scalar::Complex(re, _) => re as i64,
        }
    }

    pub fn is_nonzero(self) -> bool {
        match self {
            Scalar::Bool(b) => b,
            Scalar::Int(i) => i != 0,
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

#[cfg(test)]
mod tests {
    use super::*;

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
