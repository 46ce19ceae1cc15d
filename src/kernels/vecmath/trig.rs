//! `sin` and `cos` of one f64 lane, branch-free, for |x| ≤ [`REDUCTION_BOUND`]: `x = n·π/2 + r`
//! by Cody-Waite with π/2 in three doubles (159 bits; the first product is exact under FMA,
//! the rest kept as a double-double `r = hi + lo`), then the Taylor series of sin and cos on
//! |r| ≤ π/4 and the quadrant `n mod 4` picks one. Lanes beyond the bound (and ±inf) are
//! recomputed by the caller with the exact reduction of the platform's libm, only those lanes.

#![forbid(unsafe_code)]

use super::exp_log::horner;
use super::lane::{round_int, select, two_sum};

/// π/2 as the sum of three doubles.
const PIO2_1: f64 = std::f64::consts::FRAC_PI_2;
const PIO2_2: f64 = 6.123_233_995_736_766e-17;
const PIO2_3: f64 = -1.497_384_904_859_169_8e-33;

/// Up to this |x| the three-part reduction keeps |r| to far better than an ulp (n < 2^27,
/// and no double that close to a multiple of π/2 comes within 2^-61 relative of it).
pub const REDUCTION_BOUND: f64 = 1.0e8;

/// `sin(r)/r - 1 = Σ (-1)^n r^(2n)/(2n+1)!` in `z = r²`, n = 1..=8 (5 for LITE: truncated
/// below 1e-11 relative on |r| ≤ π/4).
const SIN_S: [f64; 8] = [
    -1.0 / 6.0,
    1.0 / 120.0,
    -1.0 / 5_040.0,
    1.0 / 362_880.0,
    -1.0 / 39_916_800.0,
    1.0 / 6_227_020_800.0,
    -1.0 / 1_307_674_368_000.0,
    1.0 / 355_687_428_096_000.0,
];

/// `(cos(r) - 1 + r²/2)/r⁴ = Σ (-1)^n r^(2n-4)/(2n)!` in `z = r²`, n = 2..=9 (5 for LITE:
/// truncated below 1e-12).
const COS_C: [f64; 8] = [
    1.0 / 24.0,
    -1.0 / 720.0,
    1.0 / 40_320.0,
    -1.0 / 3_628_800.0,
    1.0 / 479_001_600.0,
    -1.0 / 87_178_291_200.0,
    1.0 / 20_922_789_888_000.0,
    -1.0 / 6_402_373_705_728_000.0,
];

/// `(sin(x), cos(x))` for |x| ≤ [`REDUCTION_BOUND`] (NaN passes through).
#[inline(always)]
fn sin_cos<const LITE: bool>(x: f64) -> (f64, f64, i64) {
    let (n, ni) = round_int(x * std::f64::consts::FRAC_2_PI);
    let r1 = (-n).mul_add(PIO2_1, x);
    let (hi, lo) = if LITE {
        ((-n).mul_add(PIO2_2, r1), 0.0)
    } else {
        let t = n * PIO2_2;
        let (hi, e1) = two_sum(r1, -t);
        (hi, (e1 - n.mul_add(PIO2_2, -t)) - n * PIO2_3)
    };
    let z = hi * hi;
    let (s, c) = if LITE {
        (horner(&SIN_S[..5], z), horner(&COS_C[..5], z))
    } else {
        (horner(&SIN_S, z), horner(&COS_C, z))
    };
    // sin(hi + lo) ≈ sin(hi) + lo·cos(hi), cos(hi + lo) ≈ cos(hi) - lo·sin(hi)
    let sin = hi + (hi * z).mul_add(s, lo.mul_add(1.0 - 0.5 * z, 0.0));
    let half = 0.5 * z;
    let w = 1.0 - half;
    let cos = w + (((1.0 - w) - half) + (z * z).mul_add(c, -hi * lo));
    (sin, cos, ni)
}

/// `sin(x)` for |x| ≤ [`REDUCTION_BOUND`] (and NaN).
#[inline(always)]
pub fn sin_reduced<const LITE: bool>(x: f64) -> f64 {
    let (s, c, n) = sin_cos::<LITE>(x);
    let v = select(n & 1 == 0, s, c);
    let v = select(n & 2 == 0, v, -v);
    // ±0 and subnormals are their own sine
    select(x.abs() < 1e-300, x, v)
}

/// `cos(x)` for |x| ≤ [`REDUCTION_BOUND`] (and NaN).
#[inline(always)]
pub fn cos_reduced<const LITE: bool>(x: f64) -> f64 {
    let (s, c, n) = sin_cos::<LITE>(x);
    let v = select(n & 1 == 0, c, -s);
    select(n & 2 == 0, v, -v)
}
