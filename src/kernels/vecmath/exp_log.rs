//! `exp`, `expm1`, `log` and `log1p` of one f64 lane, branch-free (every `if` is a select of
//! two computed values, so a loop over lanes vectorizes). `LITE` is the float32 flavour: the
//! argument came from an f32 and the result will be rounded to f32, so shorter polynomials
//! (relative error below 1e-11) and no subnormal or double-double care are needed.
//!
//! exp: `x = k·ln2 + r`, |r| ≤ ln2/2, Cody-Waite with ln2 in two parts (the first product
//! exact under FMA), `exp(r) = 1 + r + r²·Q(r)` by its Taylor series, `2^k` built in the
//! exponent bits (in two factors where it leaves the normal range). log: `x = 2^e·m` with
//! `m ∈ [√½, √2)`, `f = m - 1`, `s = f/(2+f)` and `log(1+f) = f - f²/2 + s·(f²/2 + R(s²))`
//! with `R` a minimax fit of `2·atanh(s)/s - 2`.

#![forbid(unsafe_code)]

use super::lane::{pow2, recip_lite, round_scaled, round_scaled_pow2, select, two_sum};

/// ln 2 in two parts: the double nearest ln 2, then the double nearest the rest.
pub(super) const LN2_HI: f64 = std::f64::consts::LN_2;
pub(super) const LN2_LO: f64 = 2.3190468138462996e-17;
/// ln 2 split for `log`: 42 significant bits (so `e·LN2_HI_SHORT` is exact for every
/// exponent of an f64), then the rest.
const LN2_HI_SHORT: f64 = 6.931_471_803_691_238e-1;
const LN2_LO_SHORT: f64 = 1.908_214_929_270_587_7e-10;

/// `1/n!` for n = 2..=13: `Q(r) = Σ r^(n-2)/n!`.
pub(super) const EXP_Q: [f64; 12] = crate::kernels::series::inverse_factorials(2);

/// Horner's rule over `c` (lowest degree first) at `z`.
#[inline(always)]
pub(super) fn horner(c: &[f64], z: f64) -> f64 {
    // from the top coefficient (not 0·z + c: an FMA LLVM may not fold away, z being
    // possibly infinite)
    let (&top, rest) = c.split_last().expect("a polynomial has a coefficient");
    rest.iter().rev().fold(top, |acc, &ci| acc.mul_add(z, ci))
}

/// `x - k·ln2` for the `k` nearest `x/ln2`, as a double-double `(hi, lo)` (`lo` is 0 for
/// `LITE`), and `k` as an integer.
#[inline(always)]
fn reduce_ln2<const LITE: bool>(x: f64) -> (f64, f64, i64) {
    let (k, ki) = round_scaled(x, std::f64::consts::LOG2_E);
    // exact: x and k·LN2_HI agree to within ln2 and share a grain of 2^-53 or coarser
    let r1 = (-k).mul_add(LN2_HI, x);
    if LITE {
        return ((-k).mul_add(LN2_LO, r1), 0.0, ki);
    }
    let t = k * LN2_LO;
    let (hi, e1) = two_sum(r1, -t);
    (hi, e1 - k.mul_add(LN2_LO, -t), ki)
}

/// `exp(r) - 1` for |r| ≤ ln2/2 (and its double-double `lo` part): `r + r²·Q(r)`.
#[inline(always)]
fn expm1_reduced<const LITE: bool>(hi: f64, lo: f64) -> f64 {
    let q = if LITE {
        horner(&EXP_Q[..8], hi)
    } else {
        horner(&EXP_Q, hi)
    };
    hi + (hi * hi).mul_add(q, lo)
}

/// `exp(x)` as `(h, l, k)` with `exp(x) ≈ (h + l)·2^k`, `h + l` in [0.7, 1.5) to about
/// 2^-60 relative: for `tanh` and `sigmoid`, which need more than a rounded `exp`. `x` must
/// be finite or NaN, |x| < 2^50.
#[inline(always)]
pub(super) fn exp_dd(x: f64) -> (f64, f64, i64) {
    let (hi, lo, ki) = reduce_ln2::<false>(x);
    // p = ph + pl exactly, before the one rounding of `1 + p`
    let corr = (hi * hi).mul_add(horner(&EXP_Q, hi), lo);
    let ph = hi + corr;
    let pl = corr - (ph - hi);
    let h = 1.0 + ph;
    let l = ((1.0 - h) + ph) + pl;
    (h, l, ki)
}

/// `exp(x)`.
#[inline(always)]
pub fn exp<const LITE: bool>(x: f64) -> f64 {
    // beyond these the result is inf or 0 (NaN compares false and passes)
    let (lowest, highest) = if LITE {
        (-110.0, 90.0)
    } else {
        (-746.0, 710.0)
    };
    let x = select(x > highest, highest, x);
    let x = select(x < lowest, lowest, x);
    let (hi, lo, ki) = reduce_ln2::<LITE>(x);
    let v = 1.0 + expm1_reduced::<LITE>(hi, lo);
    if LITE {
        v * pow2(ki)
    } else {
        // two factors: k in [-1077, 1025] leaves the normal exponents; the last product
        // rounds once (to a subnormal, or to inf)
        let k1 = ki >> 1;
        (v * pow2(k1)) * pow2(ki - k1)
    }
}

/// `Q` of `exp(r) = 1 + r + r²·Q(r)` for |r| ≤ 0.3476 (ln2/2 and the slack of rounding
/// `x/ln2` in one FMA), fitted for ferroiter by a Remez exchange at 256-bit precision
/// (relative error weighted): within 2^-57 of `exp(r)` relatively with the coefficients
/// rounded to f64, two terms fewer than the Taylor series' 2^-57.7 ([`EXP_Q`]).
const EXP_Q10: [f64; 10] = [
    0.500_000_000_000_001_1,
    0.166_666_666_666_664_05,
    0.041_666_666_666_527_054,
    0.008_333_333_333_498_187,
    0.001_388_888_894_456_46,
    0.000_198_412_695_007_713_97,
    2.480_149_202_723_97e-5,
    2.755_758_947_505_452_7e-6,
    2.763_066_284_729_972_4e-7,
    2.499_975_075_864_512_4e-8,
];

/// Where [`exp_fast`] applies: -708 ≤ x ≤ 709 (NaN is not), where `2^k` is a normal f64 and
/// so is the result.
#[inline(always)]
pub fn exp_fast_domain(x: f64) -> bool {
    (-708.0..=709.0).contains(&x)
}

/// `exp(x)` for `x` in [`exp_fast_domain`], in 17 operations where [`exp`] takes about 40
/// (its clamps, double-double reduction and two-factor scaling serve the arguments outside):
/// `k` and the biased exponent of `2^k` from one FMA, `r = x - k·ln2` with the first product
/// exact and the second rounded (2^-54.5 of `exp`, relatively), `p = r + r²·Q(r)` rounded,
/// and `2^k + 2^k·p` in one FMA. Within 1 ulp of the correctly rounded result. On a 2-core
/// Xeon (AVX-512, 1 thread, in one process): 0.68 against 1.10 ns an element.
#[inline(always)]
pub fn exp_fast(x: f64) -> f64 {
    let (k, s) = round_scaled_pow2(x, std::f64::consts::LOG2_E);
    // exact under FMA (see `reduce_ln2`)
    let r1 = (-k).mul_add(LN2_HI, x);
    let r = (-k).mul_add(LN2_LO, r1);
    let p = (r * r).mul_add(horner(&EXP_Q10, r), r);
    s.mul_add(p, s)
}

/// `exp(x) - 1` = `2·(2^(k-1)·p + (2^(k-1) - ½))` with `p = exp(r) - 1`: one fused rounding,
/// and `2^(k-1)` stays finite up to the overflow threshold.
#[inline(always)]
pub fn expm1<const LITE: bool>(x: f64) -> f64 {
    let highest = if LITE { 90.0 } else { 710.0 };
    let y = select(x > highest, highest, x);
    // below -60 the result rounds to -1 in f64
    let y = select(y < -60.0, -60.0, y);
    let (hi, lo, ki) = reduce_ln2::<LITE>(y);
    let p = expm1_reduced::<LITE>(hi, lo);
    let t = pow2(ki - 1);
    let v = 2.0 * t.mul_add(p, t - 0.5);
    // tiny arguments (and ±0) are their own result
    select(x.abs() < 1e-300, x, v)
}

/// √½'s bit pattern: subtracted from a positive normal's bits, it leaves the exponent `e` of
/// `u = 2^e·m`, `m ∈ [√½, √2)`, in the top bits (as a signed integer) and `m`'s offset from
/// √½ in the mantissa field.
const SQRT_HALF_BITS: u64 = 0x3FE6_A09E_667F_3BCD;

/// `(e, f)` with `u = 2^e·(1 + f)`, `1 + f ∈ [√½, √2)`, for a positive normal `u`; `e` as a
/// float. Integer steps (a subtraction, an arithmetic shift and a conversion for `e`, a mask
/// and an addition for `m`): 6 vector operations where a comparison, a halving select and
/// the exponent field as a float by the 2^52 trick took 10 (float64 log, 1 thread, 2-core
/// Xeon with AVX-512, with [`LOG_R`]'s fit: 1.15 → 0.88 ns an element in a scratch harness;
/// on AVX2, which emulates the shift and conversion, 2.0 → 1.4).
#[inline(always)]
fn split_exponent(u: f64) -> (f64, f64) {
    let shifted = u.to_bits().wrapping_sub(SQRT_HALF_BITS);
    let e = ((shifted as i64) >> 52) as f64;
    let m = f64::from_bits((shifted & 0x000F_FFFF_FFFF_FFFF).wrapping_add(SQRT_HALF_BITS));
    (e, m - 1.0)
}

/// `(2·atanh(s)/s - 2)/z`, `z = s² ≤ (3 - 2√2)² ≈ 0.0295`: a degree-7 minimax fit (Remez
/// exchange at 256 bits on [0, 1.0001·0.0295], relative error weighted, made for ferroiter),
/// within 2^-54 relatively with the coefficients rounded to f64, where 11 terms of the
/// series `Σ 2z^(n-1)/(2n+1)` reached 2^-59. `R` enters the result as `s·z·R`, at most a
/// hundredth of it, so 2^-54 costs under 2^-60 of the result: a mpmath check of 500,000
/// arguments (around √½, √2 and their halves, and spread over [10^-5, 10^5]) found the same
/// worst error as with the series, 0.83 ulp.
const LOG_R: [f64; 8] = [
    0.666_666_666_666_666_6,
    0.400_000_000_000_008_8,
    0.285_714_285_708_015_44,
    0.222_222_223_921_444_22,
    0.181_817_955_974_681_42,
    0.153_862_418_720_525_67,
    0.132_687_184_765_029_4,
    0.130_871_670_239_972_2,
];

/// `e·ln2 + log(1 + f) + c` for `f ∈ [√½ - 1, √2 - 1)` and a small correction `c`.
#[inline(always)]
fn log_parts<const LITE: bool>(e: f64, f: f64, c: f64) -> f64 {
    let s = if LITE {
        f * recip_lite(2.0 + f)
    } else {
        f / (2.0 + f)
    };
    let z = s * s;
    let r = z * horner(&LOG_R, z);
    let hfsq = 0.5 * f * f;
    e.mul_add(
        LN2_HI_SHORT,
        f - (hfsq - s.mul_add(hfsq + r, e.mul_add(LN2_LO_SHORT, c))),
    )
}

/// `log(x)`: -inf at ±0, NaN below 0, inf at inf.
#[inline(always)]
pub fn log<const LITE: bool>(x: f64) -> f64 {
    // subnormals (not reachable from f32) are scaled into the normal range first
    let tiny = !LITE && x < f64::MIN_POSITIVE;
    let u = select(tiny, x * 18_014_398_509_481_984.0, x);
    let (e, f) = split_exponent(u);
    let e = select(tiny, e - 54.0, e);
    let v = log_parts::<LITE>(e, f, 0.0);
    special_log(x, x, v)
}

/// Where [`log_fast`] applies: normal `x` from 2^-1022 up to 10^308 (NaN is not). (Up to
/// infinity the test is "positive normal", which LLVM turns into an integer class test that
/// it leaves scalar, one lane at a time: float64 log took 3.2 ns an element with it, against
/// 1.3 for the general path. The rare `x` above 10^308 take the general path.)
#[inline(always)]
pub fn log_fast_domain(x: f64) -> bool {
    (f64::MIN_POSITIVE..1e308).contains(&x)
}

/// `log(x)` for `x` in [`log_fast_domain`]: [`log`] without its subnormal scaling and special
/// values (a fifth of its operations), the same bits.
#[inline(always)]
pub fn log_fast(x: f64) -> f64 {
    let (e, f) = split_exponent(x);
    log_parts::<false>(e, f, 0.0)
}

/// The special values of `log` at `u` (`1 + x` for `log1p`, whose result at tiny `x` is
/// `x`): -inf at 0, NaN below, `u` itself at inf and NaN.
#[inline(always)]
fn special_log(u: f64, x: f64, v: f64) -> f64 {
    let v = select(u == 0.0, f64::NEG_INFINITY, v);
    let v = select(u < 0.0, f64::NAN, v);
    select(u.is_nan() || u == f64::INFINITY, x, v)
}

/// `log(1 + x)`: `u = 1 + x` rounded, split as for `log`, plus `(1 + x - u)/u` for the
/// rounding of `u`.
#[inline(always)]
pub fn log1p<const LITE: bool>(x: f64) -> f64 {
    let (u, err) = two_sum(1.0, x);
    let (e, f) = split_exponent(u);
    // (err is 0 unless |x| < 2^-29 or huge: a rough quotient is plenty for LITE)
    let c = if LITE { err * recip_lite(u) } else { err / u };
    let v = log_parts::<LITE>(e, f, c);
    let v = special_log(u, x, v);
    select(x.abs() < 1e-300, x, v)
}
