//! Sort keys: every orderable element as a `u64` whose unsigned order is torch's sort order,
//! so that one integer comparison serves every dtype. NaN sorts after everything (torch puts
//! NaN last ascending, first descending); -0 and +0 are equal (torch compares with `<`).
#![forbid(unsafe_code)]

use crate::kernels::element::{Bool, Element};
use half::{bf16, f16};

/// An element with torch's total sort order.
pub trait SortKey: Element {
    /// The ascending key: `a` sorts before `b` in torch iff `key(a) < key(b)`; equal keys are
    /// ties (kept in input order by a stable sort).
    fn key(self) -> u64;
    /// Whether this value is NaN (for unique, where each NaN is its own value).
    fn is_nan(self) -> bool {
        false
    }
}

const SIGN: u64 = 1 << 63;

/// A float's key through its f64 bits (every narrower float is exact in f64).
#[inline(always)]
fn float_key(x: f64) -> u64 {
    if x.is_nan() {
        return u64::MAX;
    }
    let bits = (x + 0.0).to_bits(); // -0 + 0 = +0: both zeros share a key
    if bits & SIGN != 0 {
        !bits
    } else {
        bits | SIGN
    }
}

macro_rules! signed_key {
    ($($t:ty),*) => {$(
        impl SortKey for $t {
            #[inline(always)]
            fn key(self) -> u64 {
                (self as i64 as u64) ^ SIGN
            }
        }
    )*};
}
signed_key!(i8, i16, i32, i64);

macro_rules! unsigned_key {
    ($($t:ty),*) => {$(
        impl SortKey for $t {
            #[inline(always)]
            fn key(self) -> u64 {
                self as u64
            }
        }
    )*};
}
unsigned_key!(u8, u16, u32, u64);
impl SortKey for Bool {
    #[inline(always)]
    fn key(self) -> u64 {
        self.get() as u64
    }
}

macro_rules! float_keys {
    ($($t:ty => |$x:ident| $wide:expr),*) => {$(
        impl SortKey for $t {
            #[inline(always)]
            fn key(self) -> u64 {
                let $x = self;
                float_key($wide)
            }
            #[inline(always)]
            fn is_nan(self) -> bool {
                let $x = self;
                ($wide).is_nan()
            }
        }
    )*};
}
float_keys!(
    f16 => |x| f64::from(x),
    bf16 => |x| f64::from(x),
    f32 => |x| x as f64,
    f64 => |x| x
);

/// The key in the requested direction: descending reverses the order (NaN first).
#[inline(always)]
pub fn directed_key<T: SortKey>(x: T, descending: bool) -> u64 {
    if descending {
        !x.key()
    } else {
        x.key()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn float_order_is_torch_order() {
        let xs = [
            f64::NEG_INFINITY,
            -1.5,
            -0.0,
            0.0,
            1e-300,
            2.0,
            f64::INFINITY,
            f64::NAN,
        ];
        for w in xs.windows(2) {
            assert!(w[0].key() <= w[1].key(), "{} !<= {}", w[0], w[1]);
        }
        assert_eq!((-0.0f64).key(), 0.0f64.key());
        assert!(directed_key(f64::NAN, true) < directed_key(f64::INFINITY, true));
        assert!((-3i8).key() < 2i8.key());
        assert!(i64::MIN.key() < i64::MAX.key());
    }
}
