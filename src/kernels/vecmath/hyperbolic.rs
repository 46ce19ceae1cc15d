//! `tanh` and `sigmoid` of one f64 lane, branch-free. Both are quotients of `1 ± exp`, which
//! a rounded `exp` would leave up to 2 ulp off: the f64 versions take `expm1` (tanh) or `exp`
//! (sigmoid, `exp_dd`) as a double-double and correct the quotient by one Newton step; the float32 ones
//! (`LITE`) compute in f64 with an f32 reciprocal refined once, far below an f32 ulp.

#![forbid(unsafe_code)]

use super::exp_log::{exp, exp_dd, horner, LN2_HI, LN2_LO};
use super::lane::{pow2, recip_lite, round_scaled_pow2, select, two_sum};

/// `(expm1(r) - r)/r²` for |r| ≤ ln2/2 as a polynomial, lowest degree first: minimax
/// coefficients fitted for ferroiter (a Remez exchange at 256-bit precision, error weighted
/// to `p = r + r²·Q(r)`'s relative error). With the coefficients rounded to f64, `p` is within
/// 2^-59.9 of `expm1(r)` relatively: better than the 12 Taylor terms (2^-56.2) in one term less.
const EXPM1_Q11: [f64; 11] = [
    0.5,
    0.166_666_666_666_666_77,
    0.041_666_666_666_666_51,
    0.008_333_333_333_321_691,
    0.001_388_888_888_896_238,
    0.000_198_412_698_859_656_67,
    2.480_158_717_251_696e-5,
    2.755_724_437_445_881e-6,
    2.755_740_266_330_439e-7,
    2.510_897_878_784_092e-8,
    2.087_532_307_581_668e-9,
];

/// The same with ten terms (plain minimax of `Q`): `r²·Q(r)` within 2^-56.1 of `expm1(r) - r`
/// absolutely (2^-54.3 relative to `expm1(r)`), enough where only `exp(r)`'s relative error
/// counts (`sigmoid_near`, whose `1 + p` is at least 0.7).
const EXPM1_Q10: [f64; 10] = [
    0.500_000_000_000_000_1,
    0.166_666_666_666_666_74,
    0.041_666_666_666_624_09,
    0.008_333_333_333_321_806,
    0.001_388_888_891_723_242_6,
    0.000_198_412_698_879_88,
    2.480_152_126_727_255_6e-5,
    2.755_724_056_844_218e-6,
    2.762_010_195_111_892e-7,
    2.511_078_461_235_797_6e-8,
];

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
    // tanh|x| = -E/(2 + E) with E = expm1(-2|x|) as a double-double: -E keeps its relative
    // accuracy down to the smallest |x| (no series, no cancellation) and 2 + E lies in (1, 2]
    let a = x.abs();
    // past 19.1 the result rounds to 1
    let a = select(a > 20.0, 20.0, a);
    let y = -2.0 * a;
    let (k, s) = round_scaled_pow2(y, std::f64::consts::LOG2_E);
    // y - k·ln2 = r + r_lo (as in `sigmoid_near`)
    let r1 = (-k).mul_add(LN2_HI, y);
    let r = (-k).mul_add(LN2_LO, r1);
    let r_lo = (-k).mul_add(LN2_LO, r1 - r);
    // expm1(r + r_lo) = ph + pl
    // (r_lo's own term is r_lo·exp(r): r_lo plus r_lo·p, the second added to the low part)
    let corr = (r * r).mul_add(horner(&EXPM1_Q11, r), r_lo);
    let ph = r + corr;
    let pl = r_lo.mul_add(ph, corr - (ph - r));
    // E = (s - 1) + s·(ph + pl), s = 2^k ≤ 1: s - 1 = t + te exactly, and |t| ≥ |s·ph|
    // unless k = 0 (then t = 0), so each sum's rounding error is exact in two operations
    let t = s - 1.0;
    let te = s - (t + 1.0);
    let sp = s * ph;
    let eh = t + sp;
    let el = s.mul_add(pl, ((t - eh) + sp) + te);
    let dh = 2.0 + eh;
    let dl = ((2.0 - dh) + eh) + el;
    // ±0, subnormals (whose tanh is themselves), NaN and ±inf all come out of the same
    // arithmetic; the sign is x's
    div_dd(-eh, -el, dh, dl).copysign(x)
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
/// |k| ≤ 52, so `1 + 2^-k` is exact, and needs no clamping or subnormal care.
#[inline(always)]
pub fn sigmoid_near_domain(x: f64) -> bool {
    x.abs() <= 36.0
}

/// float64 `sigmoid` for |x| ≤ 36, shorter than [`sigmoid`]'s general path: `exp(-x) =
/// 2^k·(1 + p)`, `p = expm1(r1 - t)` with `r1 = y - k·LN2_HI` (exact) and `t = k·LN2_LO`: the
/// series' linear term exact (`r1 - t` as `r1` plus a small rest) and its higher terms at
/// `r = r1 - t` rounded (their slope, under 0.42, times `r`'s rounding: below 2^-56). Then
/// `1/(1 + 2^k·(1 + p)) = w/(w + 1 + p)` with `w = 2^-k`: the denominator summed as `u + lo`
/// (`1 + w` exact, every rounding error kept in `lo`), `1/u` corrected by one Newton step
/// against `u + lo`, rounded once, times `w` (exact). The FMA pipes bound this kernel: 18
/// multiplies or FMAs a lane (22 before this form), the division overlapping them.
#[inline(always)]
pub fn sigmoid_near(x: f64) -> f64 {
    let y = -x;
    // k nearest y/ln2 and w = 2^-k, from x (rounding to nearest even is symmetric)
    let (nk, w) = round_scaled_pow2(x, std::f64::consts::LOG2_E);
    let k = -nk;
    // exact under FMA (see `exp_log::reduce_ln2`)
    let r1 = (-k).mul_add(LN2_HI, y);
    let t = k * LN2_LO;
    let r = r1 - t;
    // p = r1 + q: q = expm1(r) - r, less t
    let q = (r * r).mul_add(horner(&EXPM1_Q10, r), -t);
    // 1/(1 + 2^k·(1 + p)) = w/(w + 1 + p) with w = 2^-k: 1 + w is exact (|k| ≤ 52), and no
    // product with 2^k is needed before the last
    let a = 1.0 + w;
    // r1 + q as p + pe (|r1| ≥ |q| but where both are far below 1's ulp), then a + p as
    // u + ue (|a| > 1 > |p|)
    let p = r1 + q;
    let pe = (r1 - p) + q;
    let u = a + p;
    let lo = ((a - u) + p) + pe;
    let q0 = 1.0 / u;
    let e = (-q0).mul_add(u, 1.0);
    let e = (-q0).mul_add(lo, e);
    q0.mul_add(e, q0) * w
}
