//! float32 `exp`, `sigmoid`, `log` and `log1p` computed in f32 itself, 16 lanes to an AVX-512 register
//! (twice the lanes of the f64 detour the other float32 kernels take, and shorter
//! polynomials). Plain f32 arithmetic would leave these functions up to 2 ulp off, so the
//! roundings that matter are carried as exact error terms (two-sums, FMA residuals) and
//! the result is rounded once at the end: within 1 ulp. Each covers the arguments where its
//! exponents stay normal ([`exp_fast_domain`], [`sigmoid_fast_domain`], [`log_fast_domain`],
//! [`log1p_fast_domain`]); a block with a
//! lane outside takes the f64 path whole (NaN, infinities, the underflowing tails).

#![forbid(unsafe_code)]

/// 1.5·2^23: adding it to |x| < 2^22 rounds x to an integer held in the low mantissa bits.
const SHIFTER: f32 = 12_582_912.0;
/// ln 2 as the f32 nearest it plus the f32 nearest the rest (with FMA, `y - k·LN2_HI` is
/// exact for the `k` and `y` of the fast domain: both are multiples of 2^-25 below 2^24·that).
const LN2_HI: f32 = std::f32::consts::LN_2;
const LN2_LO: f32 = -1.904_654_3e-9;

/// `if c { a } else { b }`, both computed: a vector blend.
#[inline(always)]
fn select(c: bool, a: f32, b: f32) -> f32 {
    if c {
        a
    } else {
        b
    }
}

/// `1/n!` for n = 2..=7: `exp(r) = 1 + r + r²·Σ r^(n-2)/n!`, truncated below 2^-27 for
/// |r| ≤ ln2/2 (a tenth of the result's ulp).
const EXP_Q: [f32; 6] = crate::kernels::series::inverse_factorials_f32(2);

/// Horner's rule over `c` (lowest degree first) at `z`.
#[inline(always)]
fn horner(c: &[f32], z: f32) -> f32 {
    c.iter().rev().fold(0.0, |acc, &ci| acc.mul_add(z, ci))
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
/// errors left are `r`'s rounding (2^-26 relative), the series' truncation and its
/// roundings (under 2^-28), within 1 ulp on a sweep of every f32 in the domain.
#[inline(always)]
pub fn exp(x: f32) -> f32 {
    let t = x.mul_add(std::f32::consts::LOG2_E, SHIFTER);
    let k = t - SHIFTER;
    let ki = t.to_bits().wrapping_sub(SHIFTER.to_bits()) as i32;
    let r1 = (-k).mul_add(LN2_HI, x);
    let r = (-k).mul_add(LN2_LO, r1);
    let p = (r * r).mul_add(horner(&EXP_Q, r), r);
    let s = f32::from_bits(((ki + 127) as u32) << 23);
    s.mul_add(p, s)
}

/// Where [`sigmoid`] applies: |x| ≤ 16 (NaN is not), so that `exp(-x) = 2^k·…` has
/// |k| ≤ 23 and `1 + 2^k` is exact. Wider arguments (rare in practice: the result is
/// within 2^-23 of 0 or 1 there) take the f64 path.
#[inline(always)]
pub fn sigmoid_fast_domain(x: f32) -> bool {
    x.abs() <= 16.0
}

/// `1 / (1 + exp(-x))` for `x` in [`sigmoid_fast_domain`].
///
/// `exp(-x) = 2^k·(1 + p)`, `p = r + r²·Q(r)` with `r` the reduced argument; the
/// denominator `(1 + 2^k) + 2^k·p` is summed as `u + ue` (`1 + 2^k` and `2^k·p` exact, the
/// sum's rounding error `ue` kept); then `1/u` corrected by one Newton step against
/// `u + ue` rounds once. Within 1 ulp on a sweep of every f32 in the domain.
#[inline(always)]
pub fn sigmoid(x: f32) -> f32 {
    let y = -x;
    let t = y.mul_add(std::f32::consts::LOG2_E, SHIFTER);
    let k = t - SHIFTER;
    let ki = t.to_bits().wrapping_sub(SHIFTER.to_bits()) as i32;
    let r1 = (-k).mul_add(LN2_HI, y);
    let r = (-k).mul_add(LN2_LO, r1);
    let p = (r * r).mul_add(horner(&EXP_Q, r), r);
    let s = f32::from_bits(((ki + 127) as u32) << 23);
    // 1 + s is exact (|k| ≤ 23); |1 + s| ≥ |s·p|
    let a = 1.0 + s;
    let sp = s * p;
    let u = a + sp;
    let ue = (a - u) + sp;
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

/// `2·atanh(s)/s - 2 = Σ 2z^n/(2n+1)` in `z = s²`, n = 1..=5; z ≤ 0.0295, so truncated
/// below 2^-34 relative.
const LOG_R: [f32; 5] = [2.0 / 3.0, 2.0 / 5.0, 2.0 / 7.0, 2.0 / 9.0, 2.0 / 11.0];

/// `e·ln2 + log(1 + f) + c` for `u = 2^e·(1 + f)` (a positive normal f32, `1 + f ∈ [√½,
/// √2)`) and a small correction `c`: `log(1 + f) = f - f²/2 + s·(f²/2 + R(s²))` with
/// `s = f/(2 + f)`.
#[inline(always)]
fn log_of_normal(u: f32, c: f32) -> f32 {
    let bits = u.to_bits();
    // the mantissa scaled into [√½, √2): 0x3F35_04F3 is √½'s pattern
    let shifted = bits.wrapping_sub(0x3F35_04F3);
    let e = ((shifted as i32) >> 23) as f32;
    let m = f32::from_bits((shifted & 0x007F_FFFF).wrapping_add(0x3F35_04F3));
    let f = m - 1.0;
    let s = f / (2.0 + f);
    let z = s * s;
    let r = z * horner(&LOG_R, z);
    let hfsq = 0.5 * f * f;
    e.mul_add(
        LN2_HI_SHORT,
        f - (hfsq - s.mul_add(hfsq + r, e.mul_add(LN2_LO_SHORT, c))),
    )
}

/// Where [`log`] applies: positive normal finite `x`.
#[inline(always)]
pub fn log_fast_domain(x: f32) -> bool {
    (f32::MIN_POSITIVE..f32::INFINITY).contains(&x)
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
