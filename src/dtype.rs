//! Element types and torch's type rules: the promotion table, `can_cast`, and `result_type`
//! with its three priority buckets (dim tensors, 0-d tensors, wrapped Python scalars).
#![forbid(unsafe_code)]

use crate::error::{Error, Result};

/// The element types ferroiter knows. `ComplexHalf` takes part in the type rules (torch's
/// `complex32`) but no array can hold it: numpy has no such type.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum DType {
    /// bool
    Bool,
    /// uint8
    U8,
    /// uint16
    U16,
    /// uint32
    U32,
    /// uint64
    U64,
    /// int8
    I8,
    /// int16
    I16,
    /// int32
    I32,
    /// int64
    I64,
    /// float16
    F16,
    /// bfloat16
    BF16,
    /// float32
    F32,
    /// float64
    F64,
    /// complex32: in the type rules only; no array holds it (numpy has no such type).
    ComplexHalf,
    /// complex64
    C64,
    /// complex128
    C128,
}

/// The four categories of §8, in promotion order.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Category {
    /// bool
    Bool,
    /// The integer dtypes, signed and unsigned.
    Integral,
    /// The floating dtypes (float16, bfloat16, float32, float64).
    Floating,
    /// The complex dtypes.
    Complex,
}

/// torch's default floating dtype: what `/` of integers and a Python float produce.
pub const DEFAULT_FLOAT: DType = DType::F32;
/// torch's default complex dtype: what a Python complex counts as.
pub const DEFAULT_COMPLEX: DType = DType::C64;

impl DType {
    /// Every dtype, in declaration order.
    pub const ALL: [DType; 16] = [
        DType::Bool,
        DType::U8,
        DType::U16,
        DType::U32,
        DType::U64,
        DType::I8,
        DType::I16,
        DType::I32,
        DType::I64,
        DType::F16,
        DType::BF16,
        DType::F32,
        DType::F64,
        DType::ComplexHalf,
        DType::C64,
        DType::C128,
    ];

    /// Bytes per element.
    pub fn itemsize(self) -> usize {
        match self {
            DType::Bool | DType::U8 | DType::I8 => 1,
            DType::I16 | DType::U16 | DType::F16 | DType::BF16 => 2,
            DType::I32 | DType::U32 | DType::F32 | DType::ComplexHalf => 4,
            DType::I64 | DType::U64 | DType::F64 | DType::C64 => 8,
            DType::C128 => 16,
        }
    }

    /// The category (§8) the dtype belongs to.
    pub fn category(self) -> Category {
        match self {
            DType::Bool => Category::Bool,
            DType::U8
            | DType::U16
            | DType::U32
            | DType::U64
            | DType::I8
            | DType::I16
            | DType::I32
            | DType::I64 => Category::Integral,
            DType::F16 | DType::BF16 | DType::F32 | DType::F64 => Category::Floating,
            DType::ComplexHalf | DType::C64 | DType::C128 => Category::Complex,
        }
    }

    /// Whether the dtype is a floating type (torch's `isFloatingType`).
    pub fn is_floating(self) -> bool {
        self.category() == Category::Floating
    }
    /// Whether the dtype is a complex type (torch's `isComplexType`).
    pub fn is_complex(self) -> bool {
        self.category() == Category::Complex
    }
    /// Integral in torch's sense of `isIntegralType(t, includeBool)`.
    pub fn is_integral(self, include_bool: bool) -> bool {
        match self.category() {
            Category::Integral => true,
            Category::Bool => include_bool,
            _ => false,
        }
    }

    /// Whether an array may hold this dtype (numpy can represent it).
    pub fn is_storable(self) -> bool {
        self != DType::ComplexHalf
    }

    /// numpy's name (what `numpy.dtype(name)` accepts; bfloat16 needs ml_dtypes).
    pub fn name(self) -> &'static str {
        match self {
            DType::Bool => "bool",
            DType::U8 => "uint8",
            DType::U16 => "uint16",
            DType::U32 => "uint32",
            DType::U64 => "uint64",
            DType::I8 => "int8",
            DType::I16 => "int16",
            DType::I32 => "int32",
            DType::I64 => "int64",
            DType::F16 => "float16",
            DType::BF16 => "bfloat16",
            DType::F32 => "float32",
            DType::F64 => "float64",
            DType::ComplexHalf => "complex32",
            DType::C64 => "complex64",
            DType::C128 => "complex128",
        }
    }

    /// torch's ScalarType name, used in its error texts ("Found dtype Long but expected Float").
    pub fn torch_name(self) -> &'static str {
        match self {
            DType::Bool => "Bool",
            DType::U8 => "Byte",
            DType::U16 => "UInt16",
            DType::U32 => "UInt32",
            DType::U64 => "UInt64",
            DType::I8 => "Char",
            DType::I16 => "Short",
            DType::I32 => "Int",
            DType::I64 => "Long",
            DType::F16 => "Half",
            DType::BF16 => "BFloat16",
            DType::F32 => "Float",
            DType::F64 => "Double",
            DType::ComplexHalf => "ComplexHalf",
            DType::C64 => "ComplexFloat",
            DType::C128 => "ComplexDouble",
        }
    }

    /// Parses numpy's name of a dtype; anything else is a `TypeError`.
    pub fn from_name(name: &str) -> Result<DType> {
        DType::ALL
            .iter()
            .copied()
            .find(|d| d.name() == name)
            .filter(|d| d.is_storable())
            .ok_or_else(|| Error::type_(format!("ferroiter does not support dtype {name}")))
    }

    /// The complex type whose parts are `self` (torch's `toComplexType`).
    pub fn to_complex(self) -> DType {
        match self {
            DType::F16 => DType::ComplexHalf,
            DType::F64 => DType::C128,
            DType::ComplexHalf | DType::C64 | DType::C128 => self,
            _ => DType::C64,
        }
    }
}

impl std::fmt::Display for DType {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

/// Whether torch calls this one of its "barebones" unsigned types (uint16, uint32, uint64):
/// they promote only with themselves and with real floating types.
pub fn is_barebones_unsigned(t: DType) -> bool {
    matches!(t, DType::U16 | DType::U32 | DType::U64)
}

/// Position of a dtype on the axes of torch's promotion table (barebones unsigned types are
/// not on it: see [`promote_types`]).
fn table_index(t: DType) -> usize {
    match t {
        DType::U16 | DType::U32 | DType::U64 => usize::MAX,
        DType::U8 => 0,
        DType::I8 => 1,
        DType::I16 => 2,
        DType::I32 => 3,
        DType::I64 => 4,
        DType::F16 => 5,
        DType::F32 => 6,
        DType::F64 => 7,
        DType::ComplexHalf => 8,
        DType::C64 => 9,
        DType::C128 => 10,
        DType::Bool => 11,
        DType::BF16 => 12,
    }
}

/// torch's `promoteTypes`, written as its table (symmetric; axes u8 i8 i16 i32 i64 f16 f32 f64
/// c32 c64 c128 b bf16). A table keeps the odd corners (f16+bf16 = f32, u8+i8 = i16) visible.
/// uint16/uint32/uint64 promote only with themselves and real floating types (to the float);
/// any other mix is torch's `RuntimeError`.
pub fn promote_types(a: DType, b: DType) -> Result<DType> {
    use DType::*;
    if is_barebones_unsigned(a) || is_barebones_unsigned(b) {
        return if a == b {
            Ok(a)
        } else if b.is_floating() {
            Ok(b)
        } else if a.is_floating() {
            Ok(a)
        } else {
            Err(Error::type_(format!(
                "Promotion for uint16, uint32, uint64 types is not supported, attempted to promote {} and {}",
                a.torch_name(),
                b.torch_name()
            )))
        };
    }
    const U1: DType = U8;
    const I1: DType = I8;
    const I2: DType = I16;
    const I4: DType = I32;
    const I8_: DType = I64;
    const F2: DType = F16;
    const F4: DType = F32;
    const F8: DType = F64;
    const C4: DType = ComplexHalf;
    const C8: DType = C64;
    const C16: DType = C128;
    const B1: DType = Bool;
    const BF: DType = BF16;
    #[rustfmt::skip]
    const TABLE: [[DType; 13]; 13] = [
        /* u8   */ [U1, I2, I2, I4, I8_, F2, F4, F8, C4, C8, C16, U1, BF],
        /* i8   */ [I2, I1, I2, I4, I8_, F2, F4, F8, C4, C8, C16, I1, BF],
        /* i16  */ [I2, I2, I2, I4, I8_, F2, F4, F8, C4, C8, C16, I2, BF],
        /* i32  */ [I4, I4, I4, I4, I8_, F2, F4, F8, C4, C8, C16, I4, BF],
        /* i64  */ [I8_, I8_, I8_, I8_, I8_, F2, F4, F8, C4, C8, C16, I8_, BF],
        /* f16  */ [F2, F2, F2, F2, F2, F2, F4, F8, C4, C8, C16, F2, F4],
        /* f32  */ [F4, F4, F4, F4, F4, F4, F4, F8, C8, C8, C16, F4, F4],
        /* f64  */ [F8, F8, F8, F8, F8, F8, F8, F8, C16, C16, C16, F8, F8],
        /* c32  */ [C4, C4, C4, C4, C4, C4, C8, C16, C4, C8, C16, C4, C8],
        /* c64  */ [C8, C8, C8, C8, C8, C8, C8, C16, C8, C8, C16, C8, C8],
        /* c128 */ [C16, C16, C16, C16, C16, C16, C16, C16, C16, C16, C16, C16, C16],
        /* b    */ [U1, I1, I2, I4, I8_, F2, F4, F8, C4, C8, C16, B1, BF],
        /* bf16 */ [BF, BF, BF, BF, BF, F4, F4, F8, C8, C8, C16, BF, BF],
    ];
    Ok(TABLE[table_index(a)][table_index(b)])
}

/// torch's `canCast(from, to)`: no complex → non-complex, no floating → integral, nothing but
/// bool → bool.
pub fn can_cast(from: DType, to: DType) -> bool {
    if from.is_complex() && !to.is_complex() {
        return false;
    }
    if from.is_floating() && to.is_integral(false) {
        return false;
    }
    if from != DType::Bool && to == DType::Bool {
        return false;
    }
    true
}

/// How an operand takes part in `result_type`: by its priority bucket.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Participant {
    /// A tensor with at least one dimension.
    Dim(DType),
    /// A 0-d tensor that is not a wrapped number.
    ZeroDim(DType),
    /// A wrapped Python scalar: bool → Bool, int → Int64, float → F32 (the default dtype),
    /// complex → C64 (the default complex dtype).
    Wrapped(DType),
}

impl Participant {
    /// The one constructor: an operand of `dtype` with `ndim` dims, `wrapped` when it is a
    /// Python number torch wrapped as a 0-d tensor. A wrapped float or complex counts as the
    /// default dtype of its kind (float32, complex64) whatever width it is stored in.
    pub fn of(dtype: DType, ndim: usize, wrapped: bool) -> Participant {
        if wrapped {
            Participant::Wrapped(match dtype.category() {
                Category::Floating => DEFAULT_FLOAT,
                Category::Complex => DEFAULT_COMPLEX,
                _ => dtype,
            })
        } else if ndim == 0 {
            Participant::ZeroDim(dtype)
        } else {
            Participant::Dim(dtype)
        }
    }

    /// The dtype this participant brings to the promotion.
    pub fn dtype(self) -> DType {
        match self {
            Participant::Dim(d) | Participant::ZeroDim(d) | Participant::Wrapped(d) => d,
        }
    }
}

/// The dtype of the 0-d tensor torch wraps a Python number of `category` in: the widest of
/// its kind (bool, int64, float64, complex128), so that the number keeps its value until the
/// kernel converts it to the common dtype.
pub fn wrapped_number_dtype(category: Category) -> DType {
    match category {
        Category::Bool => DType::Bool,
        Category::Integral => DType::I64,
        Category::Floating => DType::F64,
        Category::Complex => DType::C128,
    }
}

/// Folds one bucket with `promote_types`; `None` is torch's Undefined.
fn promote_opt(acc: Option<DType>, t: DType) -> Result<Option<DType>> {
    Ok(Some(match acc {
        None => t,
        Some(a) => promote_types(a, t)?,
    }))
}

/// torch's `combine_categories(higher, lower)`: a lower-priority bucket only wins when its
/// category is higher.
fn combine_categories(higher: Option<DType>, lower: Option<DType>) -> Result<Option<DType>> {
    let Some(h) = higher else { return Ok(lower) };
    if h.is_complex() {
        return Ok(Some(h));
    }
    Ok(match lower {
        Some(l) if l.is_complex() => {
            if h.is_floating() {
                Some(h.to_complex())
            } else {
                Some(l)
            }
        }
        _ if h.is_floating() => Some(h),
        Some(l) if h == DType::Bool || l.is_floating() => Some(promote_types(h, l)?),
        _ => Some(h),
    })
}

/// torch's `result_type` over any number of participants: promote within each bucket, then
/// `combine(dim, combine(zero_dim, wrapped))`. An empty list is a `TypeError`.
pub fn result_type(participants: &[Participant]) -> Result<DType> {
    let (mut dim, mut zero, mut wrapped) = (None, None, None);
    for p in participants {
        match *p {
            Participant::Dim(t) => dim = promote_opt(dim, t)?,
            Participant::ZeroDim(t) => zero = promote_opt(zero, t)?,
            Participant::Wrapped(t) => wrapped = promote_opt(wrapped, t)?,
        }
    }
    combine_categories(dim, combine_categories(zero, wrapped)?)?
        .ok_or_else(|| Error::type_("result_type() needs at least one operand"))
}

#[cfg(test)]
mod tests {
    use super::*;
    use DType::*;

    #[test]
    fn table_is_symmetric() {
        for a in DType::ALL {
            for b in DType::ALL {
                let (ab, ba) = (promote_types(a, b), promote_types(b, a));
                assert_eq!(ab.is_ok(), ba.is_ok(), "{a} {b}");
                if let (Ok(ab), Ok(ba)) = (ab, ba) {
                    assert_eq!(ab, ba, "{a} {b}");
                }
            }
        }
    }

    #[test]
    fn spec_examples() {
        use Participant::*;
        let rt = |p: &[Participant]| result_type(p).unwrap();
        assert_eq!(rt(&[Dim(I32), ZeroDim(I64)]), I32);
        assert_eq!(rt(&[Dim(I32), ZeroDim(F64)]), F64);
        assert_eq!(rt(&[Dim(I32), Wrapped(F32)]), F32);
        assert_eq!(rt(&[Dim(U8), ZeroDim(I8)]), U8);
        assert_eq!(rt(&[Dim(U8), Dim(I8)]), I16);
        assert_eq!(rt(&[Dim(Bool), Wrapped(I64)]), I64);
        assert_eq!(rt(&[Dim(Bool), Wrapped(Bool)]), Bool);
        assert_eq!(rt(&[Dim(F16), ZeroDim(F64)]), F16);
        assert_eq!(rt(&[Dim(F16), Dim(BF16)]), F32);
        assert_eq!(rt(&[Dim(F16), Wrapped(C64)]), ComplexHalf);
        assert_eq!(rt(&[Dim(F16), ZeroDim(C128)]), ComplexHalf);
        assert_eq!(rt(&[Dim(I32), Wrapped(C64)]), C64);
        assert_eq!(rt(&[ZeroDim(I64), Wrapped(F32)]), F32);
        assert_eq!(rt(&[ZeroDim(F64), Wrapped(F32)]), F64);
        assert_eq!(rt(&[ZeroDim(I32), ZeroDim(I64)]), I64);
    }

    #[test]
    fn barebones_unsigned_promote_only_with_themselves_and_floats() {
        assert_eq!(promote_types(U32, U32).unwrap(), U32);
        assert_eq!(promote_types(U64, F16).unwrap(), F16);
        assert_eq!(promote_types(BF16, U16).unwrap(), BF16);
        let err = promote_types(U16, I16).unwrap_err().to_string();
        assert!(
            err.ends_with("attempted to promote UInt16 and Short"),
            "{err}"
        );
        assert!(promote_types(U64, C64).is_err());
        assert!(promote_types(U8, U16).is_err());
        use Participant::*;
        assert_eq!(result_type(&[Dim(U32), Wrapped(I64)]).unwrap(), U32);
        assert_eq!(result_type(&[Dim(U64), Wrapped(F32)]).unwrap(), F32);
        assert!(result_type(&[Dim(U64), Dim(I64)]).is_err());
    }

    #[test]
    fn casting() {
        assert!(!can_cast(F32, I64));
        assert!(can_cast(F32, F16));
        assert!(!can_cast(I64, Bool));
        assert!(can_cast(Bool, U8));
        assert!(!can_cast(C64, F64));
        assert!(!can_cast(F32, Bool));
    }
}
