//! `tanh` and `sigmoid` of one f64 lane, branch-free. Both are quotients of `1 ± exp`, which
//! a rounded `exp` would leave up to 2 ulp off: the f64 versions take `exp` as a
//! double-double ([`exp_dd`]) and correct the quotient by one Newton step; the float32 ones
//! (`LITE`) compute in f64 with an f32 reciprocal refined once, far below an f32 ulp.

#![forbid(unsafe_code)]

use super::exp_log::{exp, exp_dd, horner, EXP_Q, LN2_HI, LN2_LO};
use super::lane::{pow2, recip_lite, round_int, select, two_sum};

/// `(tanh(x) - x)/x³` in `z = x²`: the Taylor coefficients of tanh from x³ to x^25.
const TANH_T: [f64; 12] = [
    -0.333_333_333_333_333_3,
    0.133_333_333_333_333_33,
    -0.053_968_253_968_253_97,
    0.021_869_488_536_155_203,
    -0.008_863_235_529_902_197,
    0.003_592_128_036_572_481,
    -0.001_455_834_387_051_318_3,
    0.000_590_027_440_945_586,
    -0.000_239_129_114_243_552_48,
    9.691_537_956_929_451e-5,
    -3.927_832_388_331_683e-5,
    1.591_890_506_932_896_4e-5,
];

/// Below this |x| tanh is its Taylor series (12 terms reach 2^-57 relative).
const TANH_SERIES_BOUND: f64 = 0.3;

/// `(nh + nl) / (dh + dl)` to within about half an ulp: a quotient and one Newton step.
#[inline(always)]
fn div_dd(nh: f64, nl: f64, dh: f64, dl: f64) -> f64 {
    let inv = 1.0 / dh;
    let q = nh * inv;
    let residual = (-q).mul_add(dh, nh) + (nl - q * dl);
    residual.mul_add(inv, q)
}

/// `tanh(x)`.
#[inline(always)]
pub fn tanh<const LITE: bool>(x: f64) -> f64 {
    if LITE {
        // 1 - 2/(exp(2x) + 1); below 2^-13 x(1 - x²/3), where that would cancel
        let small = x * (1.0 - x * x / 3.0);
        let large = 1.0 - 2.0 * recip_lite(exp::<true>(2.0 * x) + 1.0);
        return select(x.abs() < 1.0 / 8192.0, small, large);
    }
    let z = x * x;
    let series = (x * z).mul_add(horner(&TANH_T, z), x);
    // (1 - E)/(1 + E) with E = exp(-2|x|) as a double-double; past 40 the result is ±1
    let a = x.abs();
    let a = select(a > 40.0, 40.0, a);
    let (h, l, k) = exp_dd(-2.0 * a);
    let scale = pow2(k);
    let (eh, el) = (h * scale, l * scale);
    let (nh, ne) = two_sum(1.0, -eh);
    let (dh, de) = two_sum(1.0, eh);
    let q = div_dd(nh, ne - el, dh, de + el);
    let v = select(x.abs() < TANH_SERIES_BOUND, series, q.copysign(x));
    // ±0 and subnormals are their own tanh
    select(x.abs() < 1e-300, x, v)
}

/// f32's overflow threshold: an f64 at least this rounds to inf as an f32.
const F32_OVERFLOW: f64 = 3.402_823_567_797_336_6e38;

/// `1 / (1 + exp(-x))`, and 0 where `exp(-x)` overflows (in the result's precision), as
/// torch's formula gives.
#[inline(always)]
pub fn sigmoid<const LITE: bool>(x: f64) -> f64 {
    if LITE {
        let e = exp::<true>(-x);
        return select(e >= F32_OVERFLOW, 0.0, recip_lite(1.0 + e));
    }
    let y = -x;
    let y = select(y > 710.0, 710.0, y);
    let y = select(y < -746.0, -746.0, y);
    let (h, l, k) = exp_dd(y);
    let k1 = k >> 1;
    let (s1, s2) = (pow2(k1), pow2(k - k1));
    let (eh, el) = ((h * s1) * s2, (l * s1) * s2);
    let (dh, de) = two_sum(1.0, eh);
    let v = div_dd(1.0, 0.0, dh, de + el);
    select(eh == f64::INFINITY, 0.0, v)
}

/// Where [`sigmoid_near`] applies: |x| ≤ 36 (NaN is not), where `exp(-x) = 2^k·…` has
/// |k| ≤ 52, so `1 + 2^k` is exact, and needs no clamping or subnormal care.
#[inline(always)]
pub fn sigmoid_near_domain(x: f64) -> bool {
    x.abs() <= 36.0
}

/// float64 `sigmoid` for |x| ≤ 36, shorter than [`sigmoid`]'s general path: `exp(-x) =
/// 2^k·(1 + r + q)` with `r` the reduced argument (exact) and `q` the rest of the series
/// plus the reduction's rounding; the denominator `(1 + 2^k) + 2^k·(r + q)` summed as
/// `u + lo` (`1 + 2^k` exact, every rounding error on the way kept in `lo`); `1/u`
/// corrected by one Newton step against `u + lo`, rounded once.
#[inline(always)]
pub fn sigmoid_near(x: f64) -> f64 {
    let y = -x;
    let (k, ki) = round_int(y * std::f64::consts::LOG2_E);
    // exact under FMA (see `exp_log::reduce_ln2`), then r + r_lo = r1 - k·LN2_LO
    let r1 = (-k).mul_add(LN2_HI, y);
    let r = (-k).mul_add(LN2_LO, r1);
    let r_lo = (-k).mul_add(LN2_LO, r1 - r);
    let q = (r * r).mul_add(horner(&EXP_Q, r), r_lo);
    let s = pow2(ki);
    // r + q as p + pe (|r| ≥ |q|), then + s·p (exact; |1 + s| ≥ |s·p|)
    let a = 1.0 + s;
    let p = r + q;
    let pe = (r - p) + q;
    let sp = s * p;
    let u = a + sp;
    let ue = (a - u) + sp;
    let lo = s.mul_add(pe, ue);
    let q0 = 1.0 / u;
    let e = (-q0).mul_add(u, 1.0);
    let e = (-q0).mul_add(lo, e);
    q0.mul_add(e, q0)
}
