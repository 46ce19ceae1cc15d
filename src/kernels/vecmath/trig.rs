//! `sin` and `cos` of one f64 lane, branch-free, for |x| ≤ [`REDUCTION_BOUND`]: `x = n·π/2 + r`
//! by Cody-Waite with π/2 in three doubles (159 bits; the first product is exact under FMA,
//! the rest kept as a double-double `r = hi + lo`), then minimax polynomials of sin and cos on
//! |r| ≤ π/4 and the quadrant `n mod 4` picks one. Lanes beyond the bound (and ±inf) are
//! recomputed by the caller with the exact reduction of the platform's libm, only those lanes.

#![forbid(unsafe_code)]

use super::exp_log::horner;
use super::lane::{round_scaled, select};

/// π/2 as the sum of three doubles.
const PIO2_1: f64 = std::f64::consts::FRAC_PI_2;
const PIO2_2: f64 = 6.123_233_995_736_766e-17;
const PIO2_3: f64 = -1.497_384_904_859_169_8e-33;

/// Up to this |x| the three-part reduction keeps |r| to far better than an ulp (n < 2^27,
/// and no double that close to a multiple of π/2 comes within 2^-61 relative of it).
pub const REDUCTION_BOUND: f64 = 1.0e8;

/// `(1 - sin(r)/r)/r²` in `z = r²` for |r| ≤ 1.0001·π/4: a degree-6 minimax fit (Remez
/// exchange at 256 bits, relative error weighted, made for ferroiter), within 2^-54 with
/// the coefficients rounded to f64 (the rounding of 1/6 itself), one term fewer than the
/// Taylor series needs. It enters `sin` as `r - r·z·S`, at most a tenth of the result.
const SIN_S: [f64; 7] = [
    0.166_666_666_666_666_66,
    -0.008_333_333_333_333_331,
    0.000_198_412_698_412_650_22,
    -2.755_731_921_930_967_8e-6,
    2.505_210_622_310_827e-8,
    -1.605_853_025_574_871_6e-10,
    7.586_622_500_533_641e-13,
];

/// `(cos(r) - 1 + r²/2)/r⁴` in `z = r²` on the same interval: a degree-5 minimax fit (as
/// [`SIN_S`]), within 2^-54 rounded, two terms fewer than the series. It enters `cos` as
/// `z²·C`, at most a fortieth of the result. (With both fits, float64 sin took 1.24 against
/// 1.33 ns an element in a scratch harness, 1 thread, 2-core Xeon with AVX-512; a mpmath check
/// of 500,000 arguments found the same worst error as with the series, 0.76 ulp.)
const COS_C: [f64; 6] = [
    0.041_666_666_666_666_664,
    -0.001_388_888_888_888_738_7,
    2.480_158_729_875_096e-5,
    -2.755_731_726_490_518_5e-7,
    2.087_614_497_787_600_6e-9,
    -1.138_254_703_716_675_5e-11,
];

/// `(sin(x), cos(x))` for |x| ≤ [`REDUCTION_BOUND`] (NaN passes through), and the quadrant.
///
/// The sine comes out as `hi - Y`, where `Y` is `+0` for `x = ±0`: `-0 - +0` keeps the
/// sign that `hi + X` (`X = -Y`, the same bits otherwise, rounding being symmetric) lost,
/// so `sin` needs no select for ±0 (subnormals come through as themselves, `z` being 0).
/// Hence `S` holds the series' negation and `nlo` is `-lo`, computed so that it is `+0` at 0.
#[inline(always)]
fn sin_cos<const LITE: bool>(x: f64) -> (f64, f64, i64) {
    let (n, ni) = round_scaled(x, std::f64::consts::FRAC_2_PI);
    let r1 = (-n).mul_add(PIO2_1, x);
    let (hi, nlo) = if LITE {
        ((-n).mul_add(PIO2_2, r1), 0.0)
    } else {
        // Fast2Sum's error of `r1 - t`, exact though |r1| may be below |t|: `r1` is a
        // multiple of 2^-53 (2^-52 past 1) and `t` (below 10^-8) has its lowest bit far
        // below that, where Fast2Sum is exact in any order (as in `single::sin_cos`, where
        // every f32 was checked)
        let t = n * PIO2_2;
        let hi = r1 - t;
        let e1 = (r1 - hi) - t;
        (hi, n.mul_add(PIO2_3, n.mul_add(PIO2_2, -t) - e1))
    };
    let z = hi * hi;
    let (s, c) = (horner(&SIN_S, z), horner(&COS_C, z));
    let half = 0.5 * z;
    let w = 1.0 - half;
    // sin(hi + lo) ≈ sin(hi) + lo·cos(hi), cos(hi + lo) ≈ cos(hi) - lo·sin(hi)
    let sin = hi - (hi * z).mul_add(s, nlo * w);
    let cos = w + (((1.0 - w) - half) + (z * z).mul_add(c, hi * nlo));
    (sin, cos, ni)
}

/// `sin(x)` for |x| ≤ [`REDUCTION_BOUND`] (and NaN; ±0 and subnormals are their own sine).
#[inline(always)]
pub fn sin_reduced<const LITE: bool>(x: f64) -> f64 {
    let (s, c, n) = sin_cos::<LITE>(x);
    let v = select(n & 1 == 0, s, c);
    select(n & 2 == 0, v, -v)
}

/// `cos(x)` for |x| ≤ [`REDUCTION_BOUND`] (and NaN).
#[inline(always)]
pub fn cos_reduced<const LITE: bool>(x: f64) -> f64 {
    let (s, c, n) = sin_cos::<LITE>(x);
    let v = select(n & 1 == 0, c, -s);
    select(n & 2 == 0, v, -v)
}
