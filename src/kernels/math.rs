//! Scalar math with torch's semantics, per kind of element. Kernels compute in an "opmath"
//! type: float16/bfloat16 widen to f32 and round once at the end; everything else computes in
//! itself (integers wrap on overflow, as in torch).

use super::element::{Bool, Element, C128, C64};
use super::vecmath::{eval32, eval64, func};
use half::{bf16, f16};

/// An element type and the type it computes in.
pub trait Compute: Element {
    /// The opmath type the element computes in.
    type Op: Copy + Default + Send + Sync + 'static;
    /// Widens the element to its compute type.
    fn up(self) -> Self::Op;
    /// Rounds a compute-type value back to the element type.
    fn down(v: Self::Op) -> Self;
}

macro_rules! computes_in_itself {
    ($($t:ty),*) => {$(
        impl Compute for $t {
            type Op = $t;
            #[inline(always)]
            fn up(self) -> $t { self }
            #[inline(always)]
            fn down(v: $t) -> $t { v }
        }
    )*};
}
computes_in_itself!(Bool, u8, u16, u32, u64, i8, i16, i32, i64, f32, f64, C64, C128);

impl Compute for f16 {
    type Op = f32;
    #[inline(always)]
    fn up(self) -> f32 {
        super::element::f16_to_f32(self)
    }
    #[inline(always)]
    fn down(v: f32) -> f16 {
        super::element::f16_from_f32(v)
    }
}
impl Compute for bf16 {
    type Op = f32;
    #[inline(always)]
    fn up(self) -> f32 {
        super::element::bf16_to_f32(self)
    }
    #[inline(always)]
    fn down(v: f32) -> bf16 {
        super::element::bf16_from_f32(v)
    }
}

/// + − × and friends, defined for every compute type (bool: + is "or", × is "and").
pub trait Arith: Copy + PartialEq + Send + Sync + 'static {
    /// Sum (integers wrap; bool: or).
    fn add(self, b: Self) -> Self;
    /// Difference (integers wrap; bool: xor).
    fn sub(self, b: Self) -> Self;
    /// Product (integers wrap; bool: and).
    fn mul(self, b: Self) -> Self;
    /// `self + alpha·b` in one step: torch's fused multiply-add for floats.
    fn add_alpha(self, b: Self, alpha: Self) -> Self;
    /// Negation (integers wrap; a bool is left as it is).
    fn neg(self) -> Self;
    /// Whether the value is non-zero (a complex number when either part is).
    fn is_nonzero(self) -> bool;
    /// A Python number converted to this type.
    fn from_scalar(s: crate::Scalar) -> Self;
}

macro_rules! int_arith {
    ($($t:ty),*) => {$(
        impl Arith for $t {
            #[inline(always)] fn add(self, b: Self) -> Self { self.wrapping_add(b) }
            #[inline(always)] fn sub(self, b: Self) -> Self { self.wrapping_sub(b) }
            #[inline(always)] fn mul(self, b: Self) -> Self { self.wrapping_mul(b) }
            #[inline(always)] fn add_alpha(self, b: Self, alpha: Self) -> Self { self.wrapping_add(alpha.wrapping_mul(b)) }
            #[inline(always)] fn neg(self) -> Self { self.wrapping_neg() }
            #[inline(always)] fn is_nonzero(self) -> bool { self != 0 }
            fn from_scalar(s: crate::Scalar) -> Self { Element::from_i64(s.as_i64()) }
        }
    )*};
}
int_arith!(u8, u16, u32, u64, i8, i16, i32, i64);

macro_rules! float_arith {
    ($($t:ty),*) => {$(
        impl Arith for $t {
            #[inline(always)] fn add(self, b: Self) -> Self { self + b }
            #[inline(always)] fn sub(self, b: Self) -> Self { self - b }
            #[inline(always)] fn mul(self, b: Self) -> Self { self * b }
            #[inline(always)] fn add_alpha(self, b: Self, alpha: Self) -> Self { b.mul_add(alpha, self) }
            #[inline(always)] fn neg(self) -> Self { -self }
            #[inline(always)] fn is_nonzero(self) -> bool { self != 0.0 }
            fn from_scalar(s: crate::Scalar) -> Self { s.as_f64() as $t }
        }
    )*};
}
float_arith!(f32, f64);

macro_rules! complex_arith {
    ($($t:ty, $f:ty);*) => {$(
        impl Arith for $t {
            #[inline(always)] fn add(self, b: Self) -> Self { self + b }
            #[inline(always)] fn sub(self, b: Self) -> Self { self - b }
            #[inline(always)] fn mul(self, b: Self) -> Self { self * b }
            #[inline(always)] fn add_alpha(self, b: Self, alpha: Self) -> Self { self + alpha * b }
            #[inline(always)] fn neg(self) -> Self { -self }
            #[inline(always)] fn is_nonzero(self) -> bool { self.re != 0.0 || self.im != 0.0 }
            fn from_scalar(s: crate::Scalar) -> Self {
                match s {
                    crate::Scalar::Complex(re, im) => <$t>::new(re as $f, im as $f),
                    other => <$t>::new(other.as_f64() as $f, 0.0),
                }
            }
        }
    )*};
}
complex_arith!(C64, f32; C128, f64);

impl Arith for Bool {
    #[inline(always)]
    fn add(self, b: Self) -> Self {
        Bool::new(self.get() || b.get())
    }
    #[inline(always)]
    fn sub(self, b: Self) -> Self {
        Bool::new(self.get() != b.get())
    }
    #[inline(always)]
    fn mul(self, b: Self) -> Self {
        Bool::new(self.get() && b.get())
    }
    #[inline(always)]
    fn add_alpha(self, b: Self, alpha: Self) -> Self {
        Bool::new(self.get() || (alpha.get() && b.get()))
    }
    #[inline(always)]
    fn neg(self) -> Self {
        self
    }
    #[inline(always)]
    fn is_nonzero(self) -> bool {
        self.get()
    }
    fn from_scalar(s: crate::Scalar) -> Self {
        Bool::new(s.is_nonzero())
    }
}

/// Division for floats and complex numbers (torch's true division).
pub trait TrueDiv: Arith {
    /// True division, `self / b`.
    fn div(self, b: Self) -> Self;
}
impl TrueDiv for f32 {
    #[inline(always)]
    fn div(self, b: Self) -> Self {
        self / b
    }
}
impl TrueDiv for f64 {
    #[inline(always)]
    fn div(self, b: Self) -> Self {
        self / b
    }
}
macro_rules! complex_div {
    ($($t:ty),*) => {$(
        impl TrueDiv for $t {
            /// Smith's scaled division (what numpy and torch compute): divides by the larger
            /// of |c|, |d| first so that c² + d² never overflows.
            fn div(self, rhs: Self) -> Self {
                let (a, b, c, d) = (self.re, self.im, rhs.re, rhs.im);
                if c.abs() >= d.abs() {
                    if c == 0.0 && d == 0.0 {
                        return <$t>::new(a / c.abs(), b / d.abs());
                    }
                    let rat = d / c;
                    let scl = 1.0 / (c + d * rat);
                    <$t>::new((a + b * rat) * scl, (b - a * rat) * scl)
                } else {
                    let rat = c / d;
                    let scl = 1.0 / (d + c * rat);
                    <$t>::new((a * rat + b) * scl, (b * rat - a) * scl)
                }
            }
        }
    )*};
}
complex_div!(C64, C128);

/// Ordered compute types (everything but complex): comparisons, max/min, floor division,
/// remainder, powers, sign, abs and rounding.
pub trait Ordered: Arith + PartialOrd {
    /// NaN-propagating maximum (torch.maximum).
    fn maximum(self, b: Self) -> Self;
    /// NaN-propagating minimum (torch.minimum).
    fn minimum(self, b: Self) -> Self;
    /// Python-style floor division; `None` for an integer division by zero.
    fn floor_divide(self, b: Self) -> Option<Self>;
    /// Python-style remainder (the sign of the divisor); `None` for an integer division by zero.
    fn remainder(self, b: Self) -> Option<Self>;
    /// `self` to the power `b` (integers wrap; a negative integer exponent follows torch).
    fn pow(self, b: Self) -> Self;
    /// Absolute value (integers wrap at the minimum).
    fn abs(self) -> Self;
    /// -1, 0 or 1 by the sign (0 for NaN).
    fn sign(self) -> Self;
    /// Round towards -∞ (integers are left as they are).
    fn floor(self) -> Self;
    /// Round towards +∞ (integers are left as they are).
    fn ceil(self) -> Self;
    /// Round half to even.
    fn round(self) -> Self;
    /// Round towards zero.
    fn trunc(self) -> Self;
    /// Whether the value is NaN (never, for integers).
    fn is_nan(self) -> bool;
}

macro_rules! int_ordered {
    ($($t:ty),*) => {$(
        impl Ordered for $t {
            #[inline(always)] fn maximum(self, b: Self) -> Self { if self > b { self } else { b } }
            #[inline(always)] fn minimum(self, b: Self) -> Self { if self < b { self } else { b } }
            #[inline(always)]
            fn floor_divide(self, b: Self) -> Option<Self> {
                if b == 0 { return None; }
                let q = self.wrapping_div(b);
                #[allow(unused_comparisons)]
                let signs_differ = (self < 0) != (b < 0);
                Some(if signs_differ && self.wrapping_rem(b) != 0 { q.wrapping_sub(1) } else { q })
            }
            #[inline(always)]
            fn remainder(self, b: Self) -> Option<Self> {
                if b == 0 { return None; }
                let r = self.wrapping_rem(b);
                #[allow(unused_comparisons)]
                let fix = r != 0 && ((r < 0) != (b < 0));
                Some(if fix { r.wrapping_add(b) } else { r })
            }
            fn pow(self, b: Self) -> Self {
                #[allow(unused_comparisons)]
                if b < 0 {
                    // torch: 1 and -1 keep a value, everything else truncates to 0.
                    return if self == 1 { 1 } else if self == (0 as $t).wrapping_sub(1) {
                        if (0 as $t).wrapping_sub(b) % 2 == 1 { self } else { 1 }
                    } else { 0 };
                }
                let (mut base, mut exp, mut acc) = (self, b, 1 as $t);
                while exp != 0 {
                    if exp & 1 == 1 { acc = acc.wrapping_mul(base); }
                    base = base.wrapping_mul(base);
                    exp >>= 1;
                }
                acc
            }
            #[inline(always)]
            #[allow(unused_comparisons)]
            fn abs(self) -> Self { if self < 0 { self.wrapping_neg() } else { self } }
            #[inline(always)]
            #[allow(unused_comparisons)]
            fn sign(self) -> Self { (self > 0) as $t - ((self < 0) as $t) }
            #[inline(always)] fn floor(self) -> Self { self }
            #[inline(always)] fn ceil(self) -> Self { self }
            #[inline(always)] fn round(self) -> Self { self }
            #[inline(always)] fn trunc(self) -> Self { self }
            #[inline(always)] fn is_nan(self) -> bool { false }
        }
    )*};
}
int_ordered!(u8, u16, u32, u64, i8, i16, i32, i64);

macro_rules! float_ordered {
    ($($t:ty),*) => {$(
        impl Ordered for $t {
            /// NaN-propagating; equal values (+0 and -0) give `b`, as torch's vectorized
            /// loop (`_mm*_max_ps`) does for the elements it covers.
            #[inline(always)]
            fn maximum(self, b: Self) -> Self {
                if self.is_nan() || b.is_nan() { <$t>::NAN } else if self > b { self } else { b }
            }
            #[inline(always)]
            fn minimum(self, b: Self) -> Self {
                if self.is_nan() || b.is_nan() { <$t>::NAN } else if self < b { self } else { b }
            }
            fn floor_divide(self, b: Self) -> Option<Self> {
                if b == 0.0 { return Some(self / b); }
                let m = self % b;
                let mut div = (self - m) / b;
                if m != 0.0 && ((b < 0.0) != (m < 0.0)) { div -= 1.0; }
                Some(if div != 0.0 {
                    let f = div.floor();
                    if div - f > 0.5 { f + 1.0 } else { f }
                } else {
                    (0.0 as $t).copysign(self / b)
                })
            }
            fn remainder(self, b: Self) -> Option<Self> {
                let m = self % b;
                Some(if m != 0.0 && ((b < 0.0) != (m < 0.0)) { m + b } else { m })
            }
            #[inline(always)] fn pow(self, b: Self) -> Self { self.powf(b) }
            #[inline(always)] fn abs(self) -> Self { <$t>::abs(self) }
            #[inline(always)]
            fn sign(self) -> Self { ((0.0 < self) as u8 as $t) - ((self < 0.0) as u8 as $t) }
            #[inline(always)] fn floor(self) -> Self { <$t>::floor(self) }
            #[inline(always)] fn ceil(self) -> Self { <$t>::ceil(self) }
            #[inline(always)] fn round(self) -> Self { self.round_ties_even() }
            #[inline(always)] fn trunc(self) -> Self { <$t>::trunc(self) }
            #[inline(always)] fn is_nan(self) -> bool { <$t>::is_nan(self) }
        }
    )*};
}
float_ordered!(f32, f64);

impl Ordered for Bool {
    fn maximum(self, b: Self) -> Self {
        Bool::new(self.get() || b.get())
    }
    fn minimum(self, b: Self) -> Self {
        Bool::new(self.get() && b.get())
    }
    fn floor_divide(self, b: Self) -> Option<Self> {
        if !b.get() {
            None
        } else {
            Some(self)
        }
    }
    fn remainder(self, b: Self) -> Option<Self> {
        if !b.get() {
            None
        } else {
            Some(Bool(0))
        }
    }
    fn pow(self, b: Self) -> Self {
        Bool::new(self.get() || !b.get())
    }
    fn abs(self) -> Self {
        self
    }
    fn sign(self) -> Self {
        self
    }
    fn floor(self) -> Self {
        self
    }
    fn ceil(self) -> Self {
        self
    }
    fn round(self) -> Self {
        self
    }
    fn trunc(self) -> Self {
        self
    }
    fn is_nan(self) -> bool {
        false
    }
}

/// Bitwise operations (integers and bool).
pub trait Bitwise: Copy {
    /// Bitwise and (bool: logical and).
    fn and(self, b: Self) -> Self;
    /// Bitwise or (bool: logical or).
    fn or(self, b: Self) -> Self;
    /// Bitwise xor (bool: logical xor).
    fn xor(self, b: Self) -> Self;
    /// Bitwise not (bool: logical not).
    fn not(self) -> Self;
}
macro_rules! int_bitwise {
    ($($t:ty),*) => {$(
        impl Bitwise for $t {
            #[inline(always)] fn and(self, b: Self) -> Self { self & b }
            #[inline(always)] fn or(self, b: Self) -> Self { self | b }
            #[inline(always)] fn xor(self, b: Self) -> Self { self ^ b }
            #[inline(always)] fn not(self) -> Self { !self }
        }
    )*};
}
int_bitwise!(u8, u16, u32, u64, i8, i16, i32, i64);
impl Bitwise for Bool {
    fn and(self, b: Self) -> Self {
        Bool::new(self.get() && b.get())
    }
    fn or(self, b: Self) -> Self {
        Bool::new(self.get() || b.get())
    }
    fn xor(self, b: Self) -> Self {
        Bool::new(self.get() != b.get())
    }
    fn not(self) -> Self {
        Bool::new(!self.get())
    }
}

/// Transcendental functions (floats and complex numbers).
pub trait Transcendental: TrueDiv {
    /// `e^x`.
    fn exp(self) -> Self;
    /// `exp(x) - 1`, accurate near 0.
    fn exp_m1(self) -> Self;
    /// Natural logarithm.
    fn ln(self) -> Self;
    /// `log(1 + x)`, accurate near 0.
    fn ln_1p(self) -> Self;
    /// Square root.
    fn sqrt(self) -> Self;
    /// Sine.
    fn sin(self) -> Self;
    /// Cosine.
    fn cos(self) -> Self;
    /// Hyperbolic tangent.
    fn tanh(self) -> Self;
    /// `1 / (1 + exp(-x))`.
    fn sigmoid(self) -> Self;
}
/// `exp` of an f32 computed in f64 and rounded once, so it is correctly rounded but for rare
/// near-halfway cases (within 1 ulp of torch's Sleef `expf8_u10` always). Unlike libm's
/// `expf` it has no branches and no calls, so a loop over it vectorizes (4 f64 lanes with
/// AVX2): about 4x the scalar speed.
///
/// exp(x) = 2^k · exp(r) with k = round(x·log2 e) and |r| <= ln2/2; exp(r) by its Taylor
/// series to degree 11 (truncation < 1e-14, far below f32's half ulp of 3e-8). Inputs are
/// clamped first to where the f32 result is already 0 or inf, so 2^k stays a normal f64;
/// NaN passes through the clamp.
#[inline(always)]
pub fn exp_f32(x: f32) -> f32 {
    exp_in_f64(x) as f32
}

/// `exp(x)` for an f32 `x`, to about 1e-15 relative in f64 (see [`exp_f32`]).
#[inline(always)]
fn exp_in_f64(x: f32) -> f64 {
    /// 1/n! for n = 0..=11.
    const EXP_TAYLOR: [f64; 12] = super::series::inverse_factorials(0);
    /// 1.5 · 2^52: adding it rounds an f64 to an integer, held in the low mantissa bits.
    const SHIFTER: f64 = 6_755_399_441_055_744.0;
    let x = (x as f64).clamp(-150.0, 129.0);
    let t = x * std::f64::consts::LOG2_E + SHIFTER;
    let k = t - SHIFTER;
    let r = x - k * std::f64::consts::LN_2;
    let p = EXP_TAYLOR.iter().rev().fold(0.0, |acc, &c| acc * r + c);
    let k_bits = t.to_bits().wrapping_sub(SHIFTER.to_bits()) as i64;
    let scale = f64::from_bits(((k_bits + 1023) << 52) as u64);
    p * scale
}

/// `1 / (1 + exp(-x))` in f64, rounded once: torch's formula without its three f32
/// roundings (so within 3 ulp of torch's, which carries them), and vectorizable. Where
/// torch's f32 `exp(-x)` overflows (x < -88.7) its result is exactly 0, and so is this one.
#[inline(always)]
pub fn sigmoid_f32(x: f32) -> f32 {
    let e = exp_in_f64(-x);
    let overflows_in_f32 = (e as f32).is_infinite();
    if overflows_in_f32 {
        0.0
    } else {
        (1.0 / (1.0 + e)) as f32
    }
}

/// `tanh` in f64 from one exp, rounded once: `1 - 2 / (exp(2x) + 1)`, and `x (1 - x²/3)`
/// where that would cancel (|x| < 2^-13; the next term, 2x^5/15, is below 1e-16 relative
/// there). No branches or calls: vectorizable, and torch's float tanh is correctly rounded
/// nearly always, as this is.
#[inline(always)]
pub fn tanh_f32(x: f32) -> f32 {
    let xd = x as f64;
    let small = xd * (1.0 - xd * xd / 3.0);
    let large = 1.0 - 2.0 / (exp_in_f64(2.0 * x) + 1.0);
    (if xd.abs() < 1.0 / 8192.0 {
        small
    } else {
        large
    }) as f32
}

macro_rules! float_transcendental {
    ($($t:ty, exp: $exp:expr, expm1: $expm1:expr, log1p: $log1p:expr, tanh: $tanh:expr, sigmoid: $sigmoid:expr);*) => {$(
        impl Transcendental for $t {
            #[inline(always)] fn exp(self) -> Self { $exp(self) }
            #[inline(always)] fn exp_m1(self) -> Self { $expm1(self) }
            #[inline(always)] fn ln(self) -> Self { <$t>::ln(self) }
            #[inline(always)] fn ln_1p(self) -> Self { $log1p(self) }
            #[inline(always)] fn sqrt(self) -> Self { <$t>::sqrt(self) }
            #[inline(always)] fn sin(self) -> Self { <$t>::sin(self) }
            #[inline(always)] fn cos(self) -> Self { <$t>::cos(self) }
            #[inline(always)] fn tanh(self) -> Self { $tanh(self) }
            #[inline(always)] fn sigmoid(self) -> Self { $sigmoid(self) }
        }
    )*};
}
// torch's float tanh (MKL) is correctly rounded nearly always; libm's tanhf is not (up to 2
// ulp): float tanh is computed in double and rounded once (tanh_f32).
float_transcendental!(
    f32, exp: exp_f32, expm1: eval32::<{ func::EXPM1 }>, log1p: eval32::<{ func::LOG1P }>,
    tanh: tanh_f32, sigmoid: sigmoid_f32;
    // torch's scalar formula (its strided loop), in double
    f64, exp: f64::exp, expm1: eval64::<{ func::EXPM1 }>, log1p: eval64::<{ func::LOG1P }>,
    tanh: f64::tanh, sigmoid: |x: f64| 1.0 / (1.0 + (-x).exp())
);

/// `tanh(x + iy)` as glibc's `ctanh` computes it (no cancellation near the poles):
/// `(sinh x cosh x + i sin y cos y) / (sinh² x + cos² y)`.
fn complex_tanh(x: f64, y: f64) -> (f64, f64) {
    if !x.is_finite() || !y.is_finite() {
        let z = num_complex::Complex::new(x, y).tanh();
        return (z.re, z.im);
    }
    let (sin_y, cos_y) = y.sin_cos();
    if x.abs() > 20.0 {
        // tanh x is ±1 to double precision; the imaginary part decays like exp(-2|x|)
        return (
            1.0f64.copysign(x),
            4.0 * sin_y * cos_y * (-2.0 * x.abs()).exp(),
        );
    }
    let (sinh_x, cosh_x) = (x.sinh(), x.cosh());
    let den = if sinh_x.abs() > cos_y.abs() * f64::EPSILON {
        sinh_x * sinh_x + cos_y * cos_y
    } else {
        cos_y * cos_y
    };
    (sinh_x * cosh_x / den, sin_y * cos_y / den)
}

/// `log|z|` without the cancellation of `ln(hypot(x, y))` when |z| is near 1 (as glibc's
/// `clog` does): `x² + y² - 1` from exact products, then `log1p / 2`.
fn log_abs(x: f64, y: f64) -> f64 {
    let (ax, ay) = (x.abs(), y.abs());
    let (big, small) = if ax >= ay { (ax, ay) } else { (ay, ax) };
    let h_big = big * big;
    if (0.5..=2.0).contains(&h_big) && big.is_finite() {
        let l_big = big.mul_add(big, -h_big);
        let h_small = small * small;
        let l_small = small.mul_add(small, -h_small);
        let s = ((h_big - 1.0) + h_small) + (l_big + l_small);
        0.5 * s.ln_1p()
    } else {
        x.hypot(y).ln()
    }
}
/// `exp(z) - 1` without cancellation near 0: the real part `expm1(x)·cos y - 2 sin²(y/2)`
/// (`cos y - 1 = -2 sin²(y/2)`), the imaginary part `exp(x)·sin y`; a zero imaginary part is
/// kept, as for `exp`.
fn complex_expm1(x: f64, y: f64) -> (f64, f64) {
    if y == 0.0 {
        return (x.exp_m1(), y);
    }
    let half_sin = (0.5 * y).sin();
    let re = x.exp_m1().mul_add(y.cos(), -2.0 * half_sin * half_sin);
    (re, x.exp() * y.sin())
}

/// `log(1 + z)` without cancellation near 0: `log|1 + z| = ½·log1p(2x + x² + y²)` while
/// that sum is small, else from the modulus; the argument of `1 + z`.
fn complex_log1p(x: f64, y: f64) -> (f64, f64) {
    let u = 1.0 + x;
    if x.abs() < 0.5 && y.abs() < 0.5 {
        let s = x.mul_add(2.0 + x, y * y);
        (0.5 * s.ln_1p(), y.atan2(u))
    } else {
        (log_abs(u, y), y.atan2(u))
    }
}

macro_rules! complex_transcendental {
    ($($t:ty),*) => {$(
        impl Transcendental for $t {
            /// C99 `cexp`: a zero imaginary part is kept (no `inf · 0` NaN).
            fn exp(self) -> Self {
                if self.im == 0.0 {
                    <$t>::new(self.re.exp(), self.im)
                } else {
                    <$t>::exp(self)
                }
            }
            fn exp_m1(self) -> Self {
                let (re, im) = complex_expm1(self.re as f64, self.im as f64);
                <$t>::new(re as _, im as _)
            }
            fn ln(self) -> Self {
                <$t>::new(log_abs(self.re as f64, self.im as f64) as _, self.im.atan2(self.re))
            }
            fn ln_1p(self) -> Self {
                let (re, im) = complex_log1p(self.re as f64, self.im as f64);
                <$t>::new(re as _, im as _)
            }
            fn sqrt(self) -> Self { <$t>::sqrt(self) }
            fn sin(self) -> Self { <$t>::sin(self) }
            fn cos(self) -> Self { <$t>::cos(self) }
            fn tanh(self) -> Self {
                let (re, im) = complex_tanh(self.re as f64, self.im as f64);
                <$t>::new(re as _, im as _)
            }
            fn sigmoid(self) -> Self {
                let one = <$t>::new(1.0, 0.0);
                TrueDiv::div(one, one + Transcendental::exp(-self))
            }
        }
    )*};
}
complex_transcendental!(C64, C128);

#[cfg(test)]
mod exp_tests {
    use super::{exp_f32, sigmoid_f32, tanh_f32};

    fn ulps(a: f32, b: f32) -> i64 {
        (a.to_bits() as i32 as i64 - b.to_bits() as i32 as i64).abs()
    }

    /// Every f32 of both signs from 2^-40 to 2^7 in steps of 1/64 of a binade (and zeros):
    /// the worst ulp distance of `f` from `reference` rounded once from f64.
    fn worst(f: fn(f32) -> f32, reference: fn(f64) -> f64) -> i64 {
        let mut worst = 0;
        for e in -40..7 {
            for m in 0..64 {
                let x = (1.0 + m as f32 / 64.0) * 2f32.powi(e);
                for x in [x, -x] {
                    worst = worst.max(ulps(f(x), reference(x as f64) as f32));
                }
            }
        }
        worst
    }

    #[test]
    fn tanh_and_sigmoid_are_within_one_ulp_of_f64() {
        assert!(worst(tanh_f32, f64::tanh) <= 1);
        let torch_sigmoid = |x: f64| match ((-x).exp() as f32).is_infinite() {
            true => 0.0,
            false => 1.0 / (1.0 + (-x).exp()),
        };
        assert!(worst(sigmoid_f32, torch_sigmoid) <= 1);
        assert_eq!(sigmoid_f32(-89.0), 0.0);
        assert_eq!(tanh_f32(-0.0).to_bits(), (-0.0f32).to_bits());
        assert_eq!(tanh_f32(100.0), 1.0);
        assert_eq!(tanh_f32(-100.0), -1.0);
        assert!(tanh_f32(f32::NAN).is_nan());
        assert_eq!(tanh_f32(f32::INFINITY), 1.0);
        assert_eq!(sigmoid_f32(f32::NEG_INFINITY), 0.0);
        assert_eq!(sigmoid_f32(f32::INFINITY), 1.0);
        assert!(sigmoid_f32(f32::NAN).is_nan());
    }

    /// `exp_f32` against libm's `exp` in f64 rounded once (the correctly rounded value but for
    /// double rounding): at most 1 ulp apart over every f32 from -104 to 89 in steps of
    /// 2^-12 and at the special values.
    #[test]
    fn exp_f32_is_within_one_ulp_of_the_rounded_f64_exp() {
        let (mut worst, mut differ, mut count) = (0, 0, 0);
        let mut x = -104.0f32;
        while x < 89.0 {
            let want = (x as f64).exp() as f32;
            let off = ulps(exp_f32(x), want);
            worst = worst.max(off);
            differ += (off != 0) as usize;
            count += 1;
            x += 1.0 / 4096.0;
        }
        assert!(worst <= 1, "worst {worst} ulp");
        // near-halfway cases only: the f64 result is good to about 1e-15
        assert!(differ * 100_000 < count, "{differ} of {count} differ");
        assert_eq!(exp_f32(0.0), 1.0);
        assert_eq!(exp_f32(-0.0), 1.0);
        assert_eq!(exp_f32(f32::INFINITY), f32::INFINITY);
        assert_eq!(exp_f32(f32::NEG_INFINITY), 0.0);
        assert_eq!(exp_f32(88.8), f32::INFINITY);
        assert_eq!(exp_f32(-200.0), 0.0);
        assert!(exp_f32(f32::NAN).is_nan());
        // subnormal results round once, from f64
        assert_eq!(exp_f32(-100.0), (-100.0f64).exp() as f32);
    }
}
