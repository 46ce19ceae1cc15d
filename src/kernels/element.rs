//! Element types as Rust types: one per dtype, with torch's conversions between every pair and
//! the "opmath" type each computes in (float16/bfloat16 compute in f32 and round once).

use super::halfconv;
use crate::dtype::DType;
use half::{bf16, f16};
use num_complex::Complex;

/// torch's bool as stored: one byte, read as "non-zero" so that any byte pattern is safe.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, PartialOrd, Ord, Hash)]
#[repr(transparent)]
pub struct Bool(pub u8);

impl Bool {
    /// Whether the byte is non-zero.
    pub fn get(self) -> bool {
        self.0 != 0
    }
    /// `true` as 1, `false` as 0.
    pub fn new(b: bool) -> Bool {
        Bool(b as u8)
    }
}

/// complex64's element type.
pub type C64 = Complex<f32>;
/// complex128's element type.
pub type C128 = Complex<f64>;

/// A Rust type that holds one element of a dtype, and converts to every other as torch does:
/// float → int truncates (through i64, so narrower ints wrap), anything → bool is `!= 0`,
/// half types round through f32, complex → real keeps the real part.
pub trait Element: Copy + Send + Sync + Default + PartialEq + std::fmt::Debug + 'static {
    /// The dtype this type holds.
    const DTYPE: DType;
    /// Converts a bool as torch does.
    fn from_bool(v: bool) -> Self;
    /// Converts an int64 as torch does.
    fn from_i64(v: i64) -> Self;
    /// Converts a float32 as torch does.
    fn from_f32(v: f32) -> Self;
    /// Converts a float64 as torch does.
    fn from_f64(v: f64) -> Self;
    /// Converts a complex64 as torch does.
    fn from_c64(v: C64) -> Self;
    /// Converts a complex128 as torch does.
    fn from_c128(v: C128) -> Self;
    /// A uint64 value: integers and bool see its bits as an int64 (the same wrapping), floats
    /// and complex numbers round its full value.
    #[inline(always)]
    fn from_u64(v: u64) -> Self {
        Self::from_i64(v as i64)
    }
    /// Converts `self` into `D` by the rule for `Self`'s kind.
    fn cast<D: Element>(self) -> D;
}

macro_rules! int_element {
    // signed types and uint8: floats through int64 (Rust's saturating cast), casts by value
    ($t:ty, $dtype:ident) => {
        int_element!($t, $dtype, from_float: |v: f64| (v as i64) as $t,
            cast: |x: $t| D::from_i64(x as i64));
    };
    ($t:ty, $dtype:ident, from_float: $from:expr, cast: $cast:expr) => {
        impl Element for $t {
            const DTYPE: DType = DType::$dtype;
            #[inline(always)]
            fn from_bool(v: bool) -> Self {
                v as $t
            }
            #[inline(always)]
            fn from_i64(v: i64) -> Self {
                v as $t
            }
            #[inline(always)]
            fn from_f32(v: f32) -> Self {
                $from(v as f64)
            }
            #[inline(always)]
            fn from_f64(v: f64) -> Self {
                $from(v)
            }
            #[inline(always)]
            fn from_c64(v: C64) -> Self {
                Self::from_f32(v.re)
            }
            #[inline(always)]
            fn from_c128(v: C128) -> Self {
                Self::from_f64(v.re)
            }
            #[inline(always)]
            fn cast<D: Element>(self) -> D {
                $cast(self)
            }
        }
    };
}
int_element!(u8, U8);

/// C++'s `static_cast<int64_t>(double)` as x86's `cvttsd2si` computes it: truncation, and the
/// "integer indefinite" value `i64::MIN` for NaN and everything out of range (Rust's `as`
/// saturates instead).
#[inline(always)]
fn x86_f64_to_i64(v: f64) -> i64 {
    const LIMIT: f64 = 9223372036854775808.0; // 2^63
    if v > -LIMIT - 1.0 && v < LIMIT {
        v as i64
    } else {
        i64::MIN
    }
}

/// torch's float → uint64 on x86: values below 2^63 (and NaN) convert as int64, larger ones
/// as `int64(v - 2^63)` with the top bit flipped. So -1.5 gives 2^64-1, NaN 2^63, 2^64 0.
#[inline(always)]
fn x86_f64_to_u64(v: f64) -> u64 {
    const LIMIT: f64 = 9223372036854775808.0;
    if v >= LIMIT {
        (x86_f64_to_i64(v - LIMIT) as u64) ^ (1 << 63)
    } else {
        x86_f64_to_i64(v) as u64
    }
}

// uint16/uint32/uint64: from floats as torch converts on x86 (through int64's indefinite
// value, so 2^64 and NaN give 0 in uint16/uint32); uint64 hands its full value on.
int_element!(u16, U16, from_float: |v: f64| x86_f64_to_i64(v) as u16,
    cast: |x: u16| D::from_i64(x as i64));
int_element!(u32, U32, from_float: |v: f64| x86_f64_to_i64(v) as u32,
    cast: |x: u32| D::from_i64(x as i64));
int_element!(u64, U64, from_float: x86_f64_to_u64, cast: |x: u64| D::from_u64(x));
int_element!(i8, I8);
int_element!(i16, I16);
int_element!(i32, I32);
int_element!(i64, I64);

impl Element for Bool {
    const DTYPE: DType = DType::Bool;
    #[inline(always)]
    fn from_bool(v: bool) -> Self {
        Bool::new(v)
    }
    #[inline(always)]
    fn from_i64(v: i64) -> Self {
        Bool::new(v != 0)
    }
    #[inline(always)]
    fn from_f32(v: f32) -> Self {
        Bool::new(v != 0.0)
    }
    #[inline(always)]
    fn from_f64(v: f64) -> Self {
        Bool::new(v != 0.0)
    }
    #[inline(always)]
    fn from_c64(v: C64) -> Self {
        Bool::new(v.re != 0.0 || v.im != 0.0)
    }
    #[inline(always)]
    fn from_c128(v: C128) -> Self {
        Bool::new(v.re != 0.0 || v.im != 0.0)
    }
    #[inline(always)]
    fn cast<D: Element>(self) -> D {
        D::from_bool(self.get())
    }
}

macro_rules! float_element {
    ($t:ty, $dtype:ident, from_f32: $from32:expr, from_f64: $from64:expr, from_i64: $fromi:expr, from_u64: $fromu:expr, wide: $wide:expr, via: $via:ident) => {
        impl Element for $t {
            const DTYPE: DType = DType::$dtype;
            #[inline(always)]
            fn from_u64(v: u64) -> Self {
                $fromu(v)
            }
            #[inline(always)]
            fn from_bool(v: bool) -> Self {
                $from32(v as u8 as f32)
            }
            #[inline(always)]
            fn from_i64(v: i64) -> Self {
                $fromi(v)
            }
            #[inline(always)]
            fn from_f32(v: f32) -> Self {
                $from32(v)
            }
            #[inline(always)]
            fn from_f64(v: f64) -> Self {
                $from64(v)
            }
            #[inline(always)]
            fn from_c64(v: C64) -> Self {
                $from32(v.re)
            }
            #[inline(always)]
            fn from_c128(v: C128) -> Self {
                $from64(v.re)
            }
            #[inline(always)]
            fn cast<D: Element>(self) -> D {
                D::$via($wide(self))
            }
        }
    };
}

/// f32 → float16 / bfloat16 and back by the branch-free conversions of [`super::halfconv`]
/// (a loop of them vectorizes).
#[inline(always)]
pub fn f16_from_f32(v: f32) -> f16 {
    f16::from_bits(halfconv::f32_to_f16_bits(v))
}
/// float16 → f32 (exact), by [`super::halfconv`].
#[inline(always)]
pub fn f16_to_f32(v: f16) -> f32 {
    halfconv::f16_bits_to_f32(v.to_bits())
}
/// f32 → bfloat16, by [`super::halfconv`].
#[inline(always)]
pub fn bf16_from_f32(v: f32) -> bf16 {
    bf16::from_bits(halfconv::f32_to_bf16_bits(v))
}
/// bfloat16 → f32 (exact), by [`super::halfconv`].
#[inline(always)]
pub fn bf16_to_f32(v: bf16) -> f32 {
    halfconv::bf16_bits_to_f32(v.to_bits())
}

// Integers round once into the target (i64 → f32 directly, never through f64); half types
// go through f32, as torch's `Half(float)` constructors do.
float_element!(f16, F16, from_f32: f16_from_f32, from_f64: |v: f64| f16_from_f32(v as f32),
    from_i64: |v: i64| f16_from_f32(v as f32), from_u64: |v: u64| f16_from_f32(v as f32), wide: f16_to_f32, via: from_f32);
float_element!(bf16, BF16, from_f32: bf16_from_f32, from_f64: |v: f64| bf16_from_f32(v as f32),
    from_i64: |v: i64| bf16_from_f32(v as f32), from_u64: |v: u64| bf16_from_f32(v as f32), wide: bf16_to_f32, via: from_f32);
float_element!(f32, F32, from_f32: |v: f32| v, from_f64: |v: f64| v as f32,
    from_i64: |v: i64| v as f32, from_u64: |v: u64| v as f32, wide: |x: f32| x, via: from_f32);
float_element!(f64, F64, from_f32: |v: f32| v as f64, from_f64: |v: f64| v,
    from_i64: |v: i64| v as f64, from_u64: |v: u64| v as f64, wide: |x: f64| x, via: from_f64);

impl Element for C64 {
    const DTYPE: DType = DType::C64;
    #[inline(always)]
    fn from_bool(v: bool) -> Self {
        C64::new(v as u8 as f32, 0.0)
    }
    #[inline(always)]
    fn from_i64(v: i64) -> Self {
        C64::new(v as f32, 0.0)
    }
    #[inline(always)]
    fn from_u64(v: u64) -> Self {
        C64::new(v as f32, 0.0)
    }
    #[inline(always)]
    fn from_f32(v: f32) -> Self {
        C64::new(v, 0.0)
    }
    #[inline(always)]
    fn from_f64(v: f64) -> Self {
        C64::new(v as f32, 0.0)
    }
    #[inline(always)]
    fn from_c64(v: C64) -> Self {
        v
    }
    #[inline(always)]
    fn from_c128(v: C128) -> Self {
        C64::new(v.re as f32, v.im as f32)
    }
    #[inline(always)]
    fn cast<D: Element>(self) -> D {
        D::from_c64(self)
    }
}

impl Element for C128 {
    const DTYPE: DType = DType::C128;
    #[inline(always)]
    fn from_bool(v: bool) -> Self {
        C128::new(v as u8 as f64, 0.0)
    }
    #[inline(always)]
    fn from_i64(v: i64) -> Self {
        C128::new(v as f64, 0.0)
    }
    #[inline(always)]
    fn from_u64(v: u64) -> Self {
        C128::new(v as f64, 0.0)
    }
    #[inline(always)]
    fn from_f32(v: f32) -> Self {
        C128::new(v as f64, 0.0)
    }
    #[inline(always)]
    fn from_f64(v: f64) -> Self {
        C128::new(v, 0.0)
    }
    #[inline(always)]
    fn from_c64(v: C64) -> Self {
        C128::new(v.re as f64, v.im as f64)
    }
    #[inline(always)]
    fn from_c128(v: C128) -> Self {
        v
    }
    #[inline(always)]
    fn cast<D: Element>(self) -> D {
        D::from_c128(self)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn torch_conversions() {
        assert_eq!(Element::cast::<u8>(-1.7f32), 255);
        assert_eq!(Element::cast::<u8>(300.0f32), 44);
        assert_eq!(Element::cast::<i32>(-2.7f64), -2);
        assert_eq!(Element::cast::<Bool>(0.1f32), Bool(1));
        assert_eq!(Element::cast::<Bool>(f32::NAN), Bool(1));
        assert_eq!(Element::cast::<u8>(256i64), 0);
        assert_eq!(Element::cast::<i32>(Bool(7)), 1);
        assert_eq!(Element::cast::<f64>((1i64 << 53) + 1), 9007199254740992.0);
        assert_eq!(Element::cast::<f32>(16777217i64), 16777216.0);
        assert_eq!(Element::cast::<f64>(C64::new(1.5, 2.0)), 1.5);
    }

    #[test]
    fn unsigned_conversions_as_torch_on_x86() {
        let cases: [(f64, u64, u32, u16); 6] = [
            (-1.5, u64::MAX, u32::MAX, u16::MAX),
            (18446744073709551616.0, 0, 0, 0),
            (9223372036854775808.0, 1 << 63, 0, 0),
            (7e19, 0, 0, 0),
            (f64::NAN, 1 << 63, 0, 0),
            (70000.0, 70000, 70000, 4464),
        ];
        for (v, w64, w32, w16) in cases {
            assert_eq!(Element::cast::<u64>(v), w64, "{v}");
            assert_eq!(Element::cast::<u32>(v), w32, "{v}");
            assert_eq!(Element::cast::<u16>(v), w16, "{v}");
        }
        assert_eq!(Element::cast::<f64>(u64::MAX), 18446744073709551616.0);
        assert_eq!(Element::cast::<f32>(u64::MAX), 18446744073709551616.0);
        assert_eq!(Element::cast::<i64>(u64::MAX), -1);
        assert_eq!(Element::cast::<u16>(u64::MAX), u16::MAX);
        assert_eq!(Element::cast::<u64>(-1i64), u64::MAX);
        assert_eq!(Element::cast::<f32>(u32::MAX), 4294967296.0);
        assert_eq!(Element::cast::<Bool>(u64::MAX), Bool(1));
    }
}
