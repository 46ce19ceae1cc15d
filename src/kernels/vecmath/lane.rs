//! The building blocks of branch-free lane code: selects, rounding to an integer in the
//! mantissa, powers of two from exponent bits, exact sums.

#![forbid(unsafe_code)]

/// `if c { a } else { b }` with both sides already computed: a vector select, not a branch.
#[inline(always)]
pub fn select(c: bool, a: f64, b: f64) -> f64 {
    if c {
        a
    } else {
        b
    }
}

/// 1.5·2^52: adding it to |x| < 2^51 rounds x to an integer held in the low mantissa bits.
const SHIFTER: f64 = 6_755_399_441_055_744.0;

/// The integer nearest `x·scale` (of the exact product: it and the rounding in one FMA, one
/// operation fewer than rounding the rounded product), as a float and as an integer;
/// |x·scale| < 2^51.
#[inline(always)]
pub fn round_scaled(x: f64, scale: f64) -> (f64, i64) {
    let t = x.mul_add(scale, SHIFTER);
    let k = t - SHIFTER;
    (k, t.to_bits().wrapping_sub(SHIFTER.to_bits()) as i64)
}

/// [`SHIFTER`] plus the exponent bias: `x·scale + SHIFTER_BIASED`, rounded, holds `k + 1023`
/// (the biased exponent of `2^k`) in its low mantissa bits.
const SHIFTER_BIASED: f64 = SHIFTER + 1023.0;

/// The integer `k` nearest `x·scale` (in one FMA, as [`round_scaled`]) and `2^k`, for `k` in
/// [-1022, 1023]: the low bits shifted into the exponent field (the shifter's own bits leave
/// at the top), one operation where [`round_scaled`]'s integer and [`pow2`] take three.
#[inline(always)]
pub fn round_scaled_pow2(x: f64, scale: f64) -> (f64, f64) {
    let t = x.mul_add(scale, SHIFTER_BIASED);
    (t - SHIFTER_BIASED, f64::from_bits(t.to_bits() << 52))
}

/// `2^k` for `k` in [-1022, 1023], from the exponent bits.
#[inline(always)]
pub fn pow2(k: i64) -> f64 {
    f64::from_bits(((k + 1023) as u64) << 52)
}

/// `(s, e)` with `s = a + b` rounded and `s + e = a + b` exactly (Knuth's two-sum).
#[inline(always)]
pub fn two_sum(a: f64, b: f64) -> (f64, f64) {
    let s = a + b;
    let bb = s - a;
    (s, (a - (s - bb)) + (b - bb))
}

/// `1/d` to about 2^-46 relative for `d` in f32's normal range (0 beyond its top): an f32
/// division (twice the lanes of an f64 one, and faster) and one Newton step in f64. For the
/// float32 kernels, whose quotients need far less than f64's precision.
#[inline(always)]
pub fn recip_lite(d: f64) -> f64 {
    let q = (1.0f32 / d as f32) as f64;
    q * (-d).mul_add(q, 2.0)
}
