//! float32 `exp`, `expm1`, `sigmoid`, `tanh`, `log`, `log1p`, `sin` and `cos` computed in f32
//! itself, 16 lanes to an AVX-512 register (twice the lanes of the f64 detour the other
//! float32 kernels take, and shorter polynomials). Plain f32 arithmetic would leave these
//! functions up to 2 ulp off, so the roundings that matter are carried as exact error terms
//! (two-sums, FMA residuals) and the result is rounded once at the end, or the formula keeps
//! every rounded term a small part of the result (`log`, `log1p`, `tanh`; every f32 of their
//! domains was checked in a scratch harness): within 1 ulp. Each covers the arguments where
//! its exponents stay normal (or, for `sin` and `cos`, where a three-part π/2 reduces them
//! exactly enough: the `*_fast_domain` functions; `tanh` covers every f32); a block with a
//! lane outside takes the f64 path for that lane (NaN, infinities, the underflowing tails,
//! huge angles).

#![forbid(unsafe_code)]

/// 1.5·2^23: adding it to |x| < 2^22 rounds x to an integer held in the low mantissa bits.
const SHIFTER: f32 = 12_582_912.0;
/// ln 2 as the f32 nearest it plus the f32 nearest the rest (with FMA, `y - k·LN2_HI` is
/// exact for the `k` and `y` of the fast domain: both are multiples of 2^-25 below 2^24·that).
const LN2_HI: f32 = std::f32::consts::LN_2;
const LN2_LO: f32 = -1.904_654_3e-9;

/// The integer nearest `x·scale` (the product and the rounding in one FMA), as a float and
/// as an integer held in the low mantissa bits; |x·scale| < 2^22.
#[inline(always)]
fn round_scaled(x: f32, scale: f32) -> (f32, i32) {
    let t = x.mul_add(scale, SHIFTER);
    (
        t - SHIFTER,
        t.to_bits().wrapping_sub(SHIFTER.to_bits()) as i32,
    )
}

/// [`SHIFTER`] plus the exponent bias: `y + SHIFTER_BIASED` holds `k + 127` in its low bits,
/// which shifted into the exponent field make `2^k` (one operation, where adding the bias to
/// the integer and shifting took two).
const SHIFTER_BIASED: f32 = SHIFTER + 127.0;

/// The integer `k` nearest `x·scale` (the product and the rounding in one FMA) and `2^k`,
/// for `k` in [-126, 127].
#[inline(always)]
fn round_scaled_pow2(x: f32, scale: f32) -> (f32, f32) {
    let t = x.mul_add(scale, SHIFTER_BIASED);
    (t - SHIFTER_BIASED, f32::from_bits(t.to_bits() << 23))
}

/// `y = k·ln2 + r`: `k` the integer nearest `y/ln2` (as a float, with `s = 2^k`; `k` in
/// [-126, 127]), `r1 = y - k·LN2_HI` (exact under FMA in the kernels' domains: see [`exp`])
/// and `r = r1 - k·LN2_LO` rounded.
#[inline(always)]
fn reduce_ln2(y: f32) -> (f32, f32, f32, f32) {
    let (k, s) = round_scaled_pow2(y, std::f32::consts::LOG2_E);
    let r1 = (-k).mul_add(LN2_HI, y);
    (k, s, r1, (-k).mul_add(LN2_LO, r1))
}

/// `if c { a } else { b }`, both computed: a vector blend.
#[inline(always)]
fn select(c: bool, a: f32, b: f32) -> f32 {
    if c {
        a
    } else {
        b
    }
}

/// `exp(r) = 1 + r + r²·Q(r)` for |r| ≤ ln2/2: a degree-4 `Q` (weighted minimax, Lawson's
/// iteration in f64 with the coefficients rounded to f32 one at a time and the rest refitted,
/// made for ferroiter), relative error 2^-28.3, where the Taylor series needed a term more
/// for 2^-27.
const EXP_Q: [f32; 5] = [
    0.499_999_94,
    0.166_665_21,
    0.041_668_255,
    0.008_368_663,
    0.001_382_146_7,
];

/// Horner's rule over `c` (lowest degree first) at `z`.
#[inline(always)]
fn horner(c: &[f32], z: f32) -> f32 {
    // from the top coefficient (not 0·z + c: an FMA LLVM may not fold away, z being
    // possibly infinite)
    let (&top, rest) = c.split_last().expect("a polynomial has a coefficient");
    rest.iter().rev().fold(top, |acc, &ci| acc.mul_add(z, ci))
}

/// Where [`exp`] applies: -87 ≤ x ≤ 88 (NaN is not), so that `2^k` is a normal f32
/// (|k| ≤ 127). Beyond, the result overflows, underflows into the subnormals or is NaN: the
/// f64 path.
#[inline(always)]
pub fn exp_fast_domain(x: f32) -> bool {
    (-87.0..=88.0).contains(&x)
}

/// `exp(x)` for `x` in [`exp_fast_domain`]: `2^k·(1 + p)`, `p = r + r²·Q(r)` with `r` the
/// reduced argument, rounded once (`s·p + s` in one FMA, `s = 2^k`).
///
/// `x - k·LN2_HI` is exact under FMA (a multiple of 2^-24 below 0.35 in magnitude); the
/// errors left are `r`'s rounding (2^-26 relative), the polynomial's error and its
/// roundings (under 2^-28), within 1 ulp on a sweep of every f32 (0.4% of all patterns 1
/// ulp off). 12 vector operations for 16 lanes, where the Taylor series and the integer
/// route to `2^k` took 15: in cache, 1 thread, 2-core Xeon, 0.153 -> 0.135-0.147 ns an
/// element (torch 0.140-0.155).
#[inline(always)]
pub fn exp(x: f32) -> f32 {
    let (_, s, _, r) = reduce_ln2(x);
    let p = (r * r).mul_add(horner(&EXP_Q, r), r);
    s.mul_add(p, s)
}

/// Where [`sigmoid`] applies: x ≥ -87 (NaN is not), so that `exp(-x) = 2^k·…` has
/// k ≤ 126 and the result is a normal f32; `+inf` included (the kernel clamps x at 17.5,
/// from where the result rounds to 1). Below -87 the result nears the subnormals, and the
/// f64 path takes those lanes. (With |x| ≤ 16, a block of 16 lanes of uniform(-20, 20) data
/// nearly always held a lane outside, and the whole block ran both paths: 1.1 ns a float32
/// against 0.2.)
#[inline(always)]
pub fn sigmoid_fast_domain(x: f32) -> bool {
    x >= -87.0
}

/// `1 / (1 + exp(-x))` for `x` in [`sigmoid_fast_domain`].
///
/// `exp(-x) = 2^k·(1 + p)`, `p = r + r²·Q(r)` with `r` the reduced argument; the
/// denominator `(1 + 2^k) + 2^k·p` is summed as `u + ue` (`2^k·p` exact; the roundings of
/// `1 + 2^k` and of the sum kept in `ue`); then `1/u` corrected by one Newton step against
/// `u + ue` rounds once. Within 1 ulp on a sweep of every f32 in the domain.
#[inline(always)]
pub fn sigmoid(x: f32) -> f32 {
    sigmoid_with::<true>(x)
}

/// Where [`sigmoid_near`] applies: |x| ≤ 16.
#[inline(always)]
pub fn sigmoid_near_domain(x: f32) -> bool {
    x.abs() <= 16.0
}

/// [`sigmoid`] for |x| ≤ 16, where `1 + 2^k` is exact (|k| ≤ 23): the same bits without
/// the two-sum of `1 + 2^k` (its error is 0 there) and the clamp (20% of the kernel's time).
#[inline(always)]
pub fn sigmoid_near(x: f32) -> f32 {
    sigmoid_with::<false>(x)
}

#[inline(always)]
fn sigmoid_with<const WIDE: bool>(x: f32) -> f32 {
    // from 17.5 on, 1/(1 + e^-x) > 1 - 2^-25: the result rounds to 1
    let y = if WIDE { -x.min(17.5) } else { -x };
    let (_, s, _, r) = reduce_ln2(y);
    let p = (r * r).mul_add(horner(&EXP_Q, r), r);
    // 1 + s and its rounding error (either may be the larger; exact for |k| ≤ 23)
    let (a, ae) = if WIDE {
        two_sum(1.0, s)
    } else {
        (1.0 + s, 0.0)
    };
    // |a| ≥ |s·p|, so the rounding error of a + s·p is (a - u) + s·p
    let sp = s * p;
    let u = a + sp;
    let ue = ((a - u) + sp) + ae;
    let q0 = 1.0 / u;
    let e = (-q0).mul_add(u, 1.0);
    let e = (-q0).mul_add(ue, e);
    q0.mul_add(e, q0)
}

/// Where [`log1p`] is exact enough: `-1 < x < inf` (NaN is not).
#[inline(always)]
pub fn log1p_fast_domain(x: f32) -> bool {
    x > -1.0 && x < f32::INFINITY
}

/// ln 2 for `e·ln 2` with `e` an f32 exponent: a high part of 16 bits (so `e·LN2_HI_SHORT`
/// is exact), then the rest.
const LN2_HI_SHORT: f32 = 0.693_145_75;
const LN2_LO_SHORT: f32 = 1.428_606_8e-6;

/// `(log(1 + f) - f)/f²` for `f` in [√½ - 1, √2 - 1]: a degree-8 minimax fit (Remez exchange
/// at 200 bits, made for ferroiter), `f + f²·Q(f)` within 2^-27.8 of `log(1 + f)` relatively.
/// (It replaced `f - f²/2 + s·(f²/2 + R(s²))` with `s = f/(2 + f)`: the same accuracy without
/// the division, 13 vector operations where that took 18.)
const LOG_Q: [f32; 9] = [
    -0.499_999_88,
    0.333_333_25,
    -0.250_016,
    0.200_020_9,
    -0.166_087_69,
    0.141_792_1,
    -0.132_429_21,
    0.129_223_44,
    -0.076_449_65,
];

/// `e·ln2 + log(1 + f) + c` for `u = 2^e·(1 + f)` (a positive normal f32, `1 + f ∈ [√½,
/// √2)`) and a small correction `c`: `log(1 + f) = f + f²·Q(f)`, the terms below `f` summed
/// first (`f` itself is exact) and `e·ln2`'s 16-bit high part added last, exactly.
#[inline(always)]
fn log_of_normal(u: f32, c: f32) -> f32 {
    let bits = u.to_bits();
    // the mantissa scaled into [√½, √2): 0x3F35_04F3 is √½'s pattern
    let shifted = bits.wrapping_sub(0x3F35_04F3);
    let e = ((shifted as i32) >> 23) as f32;
    let m = f32::from_bits((shifted & 0x007F_FFFF).wrapping_add(0x3F35_04F3));
    let f = m - 1.0;
    let low = (f * f).mul_add(horner(&LOG_Q, f), e.mul_add(LN2_LO_SHORT, c));
    e.mul_add(LN2_HI_SHORT, f + low)
}

/// Where [`log`] applies: normal `x` from 2^-126 up to 10^38. (Up to the largest finite f32,
/// the test would be "positive normal", which LLVM turns into an integer class test that it
/// leaves scalar, one lane at a time: 2.3x slower in all. The rare `x` above 10^38 take the
/// f64 path.)
#[inline(always)]
pub fn log_fast_domain(x: f32) -> bool {
    (f32::MIN_POSITIVE..1e38).contains(&x)
}

/// `log(x)` for `x` in [`log_fast_domain`].
#[inline(always)]
pub fn log(x: f32) -> f32 {
    log_of_normal(x, 0.0)
}

/// `log(1 + x)` for `x` in [`log1p_fast_domain`]: the log of `u = 1 + x` rounded, plus
/// `(1 + x - u)/u` for the rounding of `u`.
#[inline(always)]
pub fn log1p(x: f32) -> f32 {
    let u = 1.0 + x;
    // the rounding error of u (two-sum with 1 or x the larger), then its share of the log
    let (big, small) = (select(x > 1.0, x, 1.0), select(x > 1.0, 1.0, x));
    let err = small - (u - big);
    let v = log_of_normal(u, err / u);
    // ±0 keep their sign
    select(x == 0.0, x, v)
}

/// `1/n!` for n = 2..=8: `expm1(r) = r + r²·Σ r^(n-2)/n!`, truncated below 2^-30 relative to
/// `r` for |r| ≤ ln2/2 (one term more than [`EXP_Q`], since `expm1`'s result is as small as `r`).
const EXPM1_Q: [f32; 7] = crate::kernels::series::inverse_factorials_f32(2);

/// `(s, e)` with `s = a + b` rounded and `s + e = a + b` exactly (Knuth's two-sum).
#[inline(always)]
fn two_sum(a: f32, b: f32) -> (f32, f32) {
    let s = a + b;
    let bb = s - a;
    (s, (a - (s - bb)) + (b - bb))
}

/// `expm1(y)` as an unevaluated sum `eh + el` (relative error near 2^-30) for
/// y ≤ 88 with `2^k` normal (k ≥ -126): `2^k·(1 + p) - 1` with `p = expm1(r + r_lo)` and
/// every rounding on the way kept in the low part.
#[inline(always)]
fn expm1_dd(y: f32) -> (f32, f32) {
    // r + r_lo = r1 - k·LN2_LO
    let (k, s, r1, r) = reduce_ln2(y);
    let r_lo = (-k).mul_add(LN2_LO, r1 - r);
    // expm1(r + r_lo) = ph + pl (r_lo's term r_lo·exp(r) as r_lo + r_lo·p)
    let corr = (r * r).mul_add(horner(&EXPM1_Q, r), r_lo);
    let ph = r + corr;
    let pl = r_lo.mul_add(ph, corr - (ph - r));
    // 2^k - 1 = t1 + te exactly: for k ≤ 24, t1 + 1 is exact and te = s - (t1 + 1); from
    // k = 25 on, s - 1 rounds to s (2^25 - 1 is a tie, to even) and te = -1. |t1| ≥ |s·ph|
    // unless k = 0 (then t1 = 0), so each sum's rounding error is exact in two operations
    let t1 = s - 1.0;
    let te = select(k > 24.0, -1.0, s - (t1 + 1.0));
    let sp = s * ph;
    let eh = t1 + sp;
    let el = s.mul_add(pl, ((t1 - eh) + sp) + te);
    (eh, el)
}

/// Where [`expm1`] applies: x ≤ 88 (-inf included, NaN not), as [`exp`]: `2^k` stays a
/// normal f32. Above, the result nears or passes the overflow: the f64 path. (With
/// -17 ≤ x ≤ 16, a block of 16 lanes of uniform(-20, 20) data nearly always held a lane
/// outside, and the whole block ran both paths: 1.04 ns a float32 against 0.28.)
#[inline(always)]
pub fn expm1_fast_domain(x: f32) -> bool {
    x <= 88.0
}

/// `expm1(x)` for `x` in [`expm1_fast_domain`], rounded once from `expm1_dd`. From -17.5
/// down, `expm1(x) = -1 + e^x` with `e^x < 2^-25`: the result rounds to -1, so `x` is clamped
/// there.
#[inline(always)]
pub fn expm1(x: f32) -> f32 {
    let (eh, el) = expm1_dd(x.max(-17.5));
    // ±0 keep their sign
    select(x == 0.0, x, eh + el)
}

/// Where [`tanh`] applies: everywhere (NaN included, which its polynomial branch returns).
/// A block therefore never takes the f64 path, which LLVM then drops: with it in the loop,
/// its constants crowded the registers and the kernel ran 1.5x slower in a scratch harness.
#[inline(always)]
pub fn tanh_fast_domain(_x: f32) -> bool {
    true
}

/// Where [`tanh`] takes the odd polynomial: |x| < 0.65. Above, the quotient
/// `q = 2/(e^{2|x|} + 1)` is below 0.43, so its error (the roundings of `e^{2r}`, of `d` and
/// of the quotient, under about 2.4 units of 2^-24 relative to it) is about one unit of
/// 2^-24 in `1 - q` ≥ 0.57 at most; below, the polynomial's term `|x|³·P` is at most 0.14 of
/// the result, so its roundings (about 4 units of 2^-24 relative to it) stay near half a
/// unit. Bounds, not measured errors: a harness sweep of every f32 below 10.5 found every
/// result within 1 ulp of f64's `tanh` rounded, 0.37% of them 1 ulp off (0.26% with the
/// split at 0.8, a polynomial a degree longer and `e^{2r} - 1` kept apart from the 1: six
/// operations more).
const TANH_SPLIT: f32 = 0.65;

/// `tanh(a) = a + a³·P(a²)` for |a| < [`TANH_SPLIT`]: a degree-4 weighted minimax fit
/// (Lawson's iteration in f64, coefficients rounded to f32 one at a time, the rest refitted;
/// made for ferroiter) of `(tanh(a) - a)/a³`, relative error 2^-27.1 of the result.
const TANH_P: [f32; 5] = [
    -0.333_332_6,
    0.133_308_28,
    -0.053_687_703,
    0.020_468_192,
    -0.005_513_676_4,
];

/// `e^{2r} = 1 + r·E(r)` for |r| ≤ ln2/4: a degree-6 fit of `e^{2r}` with its first two
/// coefficients fixed at 1 and 2 (as [`TANH_P`]), relative error 2^-28.3.
const EXP2_E: [f32; 6] = [
    2.0,
    1.999_999_8,
    1.333_321_7,
    0.666_692_1,
    0.267_797_2,
    0.088_457_39,
];

/// `tanh(x)`, both branches computed and one selected (a vector blend):
/// |x| < 0.65 an odd polynomial; above, `1 - 2/d` with `d = e^{2|x|} + 1 = 2^k·e^{2r} + 1`
/// rounded once, `e^{2r}` from `EXP2_E` on `r = |x| - k·ln2/2` (one FMA with ln 2's f32:
/// the rest of ln 2 moves `q` by under 2^-29, and no error terms are carried: see
/// `TANH_SPLIT`). Past |x| = 10 the result rounds to ±1, so |x| is clamped there
/// (infinities too). 24 vector operations for 16 lanes (30 before the split moved from 0.8
/// and the exponential lost its low part of ln 2 and a term: 0.31 -> 0.27 ns an element in a
/// scratch harness, 2-core Intel Xeon); every non-negative f32 below 10.5 was checked within
/// 1 ulp of f64's `tanh` rounded, the negative ones are their mirror.
#[inline(always)]
pub fn tanh(x: f32) -> f32 {
    let a = x.abs();
    let z = a * a;
    let near = (a * z).mul_add(horner(&TANH_P, z), a);
    let b = a.min(10.0);
    // k = round(2b/ln2), s = 2^k; b - k·ln2/2 rounded once
    let (k, s) = round_scaled_pow2(b, 2.0 * std::f32::consts::LOG2_E);
    let r = (-k).mul_add(LN2_HI * 0.5, b);
    let d = s.mul_add(r.mul_add(horner(&EXP2_E, r), 1.0), 1.0);
    let far = 1.0 - 2.0 / d;
    // (NaN fails `a >= TANH_SPLIT`: the polynomial passes it on)
    select(a >= TANH_SPLIT, far, near).copysign(x)
}

/// π/2 as the sum of three f32: the f32 just below it (so that the second part is positive:
/// see [`sin_cos`]), then the nearest to each rest (the fourth rest is below 2^-76).
const PIO2_1: f32 = f32::from_bits(0x3FC9_0FDA);
const PIO2_2: f32 = 7.549_79e-8;
const PIO2_3: f32 = -1.715_124_5e-15;

/// `1 - sin(r)/r = Σ (-1)^(n+1) r^(2n)/(2n+1)!` in `z = r²`, n = 1..=4: truncated below 2^-27
/// relative for |r| ≤ 0.86 (π/4 and the rounding of the quadrant's estimate).
const SIN_S: [f32; 4] = [1.0 / 6.0, -1.0 / 120.0, 1.0 / 5_040.0, -1.0 / 362_880.0];

/// `(cos(r) - 1 + r²/2)/r⁴ = Σ (-1)^n r^(2n-4)/(2n)!` in `z = r²`, n = 2..=5: truncated below
/// 2^-31 for |r| ≤ 0.86.
const COS_C: [f32; 4] = [1.0 / 24.0, -1.0 / 720.0, 1.0 / 40_320.0, -1.0 / 3_628_800.0];

/// Where [`sin`] and [`cos`] apply: |x| ≤ 2^20 (NaN and the infinities are not). Every f32
/// there lies at least 4·10^-9 from a multiple of π/2 (at 252.898…), and the three-part
/// reduction errs by under 10^-16, so the reduced argument keeps 2^-26 of relative accuracy.
#[inline(always)]
pub fn trig_fast_domain(x: f32) -> bool {
    x.abs() <= 1_048_576.0
}

/// `(sin, cos)` of `x`'s reduced argument and its quadrant: `x = n·π/2 + hi + lo`, where
/// `x - n·PIO2_1` is exact (a multiple of 2^-24 below 1 in magnitude), `n·PIO2_2` is split
/// exactly by an FMA and the sums' errors are carried in `lo` (held as `nlo = -lo`).
///
/// `hi = r1 - p` takes its rounding error from Fast2Sum (three operations, not two-sum's
/// six), exact here although |r1| may be below |p|: `r1` is a multiple of 2^-24 (of 2^-23
/// past 1) and `p`'s lowest bit lies far below that (|p| < 0.08), the condition under which
/// Fast2Sum is exact for any order of magnitudes. A sweep of every f32 in the domain gave the
/// bits of the two-sum for both functions; the kernels ran 10-12% faster (0.48-0.51 -> 0.42-0.43
/// ns an element, 1 thread, 2-core Intel Xeon).
///
/// The sine comes out as `hi - Y` with `Y = +0` at `x = ±0` (`PIO2_2 > 0` keeps `hi = -0`
/// for `x = -0`, and `nlo` is `+0` there): `-0 - +0` keeps the sign that `hi + (-Y)` would
/// lose, so [`sin`] needs no select for ±0 (0.42 -> 0.40 ns). With these constants, a sweep
/// of every f32 in the domain found about 20,000 results of each function 1 ulp from the
/// previous split's, all within 0.77 ulp of the true value.
#[inline(always)]
fn sin_cos(x: f32) -> (f32, f32, i32) {
    let (n, ni) = round_scaled(x, std::f32::consts::FRAC_2_PI);
    let r1 = (-n).mul_add(PIO2_1, x);
    let p = n * PIO2_2;
    let pe = n.mul_add(PIO2_2, -p);
    let hi = r1 - p;
    let e1 = (r1 - hi) - p;
    let nlo = n.mul_add(PIO2_3, pe - e1);
    let z = hi * hi;
    let half = 0.5 * z;
    let w = 1.0 - half;
    // sin(hi + lo) ≈ sin(hi) + lo·cos(hi), cos(hi + lo) ≈ cos(hi) - lo·sin(hi)
    let sin = hi - (hi * z).mul_add(horner(&SIN_S, z), nlo * w);
    let cos = w + (((1.0 - w) - half) + (z * z).mul_add(horner(&COS_C, z), hi * nlo));
    (sin, cos, ni)
}

/// `sin(x)` for `x` in [`trig_fast_domain`] (±0 and subnormals are their own sine).
#[inline(always)]
pub fn sin(x: f32) -> f32 {
    let (s, c, n) = sin_cos(x);
    let v = select(n & 1 == 0, s, c);
    select(n & 2 == 0, v, -v)
}

/// `cos(x)` for `x` in [`trig_fast_domain`].
#[inline(always)]
pub fn cos(x: f32) -> f32 {
    let (s, c, n) = sin_cos(x);
    let v = select(n & 1 == 0, c, -s);
    select(n & 2 == 0, v, -v)
}
