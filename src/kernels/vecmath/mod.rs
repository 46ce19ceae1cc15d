//! Vector math: `exp`, `expm1`, `log`, `log1p`, `sin`, `cos`, `tanh` and `sigmoid` of
//! float32/float64 (and float16/bfloat16, which compute in float32 and round once) as
//! branch-free polynomial code over lane blocks, within 1 ulp of the correctly rounded result.
//! The lane functions are written per lane in f64 ([`exp_log`], [`trig`], [`hyperbolic`]); a
//! block applies one to `N` lanes in a loop LLVM vectorizes, and `exec::raw::map1_lanes` runs
//! the blocks in the AVX-512, AVX2 or baseline copy this CPU has.
//!
//! float32 kernels compute in f32 itself where their arguments allow ([`single`]: 16 lanes a
//! register, error terms carried; within 1 ulp). Elsewhere (NaN, infinities, the tails where
//! exponents leave the normal range, angles beyond 2^20) they compute in f64 with shorter
//! polynomials (`LITE`):
//! relative error below 1e-11 before the one rounding to f32, so results are correctly
//! rounded but for rare near-halfway cases (and always within 1 ulp). float64 reduces its arguments in
//! double-double and keeps the polynomial's rounding below an eighth of an ulp.

#![forbid(unsafe_code)]

pub mod exp_log;
pub mod hyperbolic;
mod lane;
pub mod single;
pub mod trig;

use super::math::Compute;
use super::run::Target;
use super::table::UnaryOp;
use crate::error::Result;
use crate::exec::raw::{map1_lanes, LaneMap};
use crate::DType;
use half::{bf16, f16};
use std::marker::PhantomData;

/// The functions, as const parameters of the lane kernels.
pub mod func {
    /// `exp`
    pub const EXP: u8 = 0;
    /// `expm1`
    pub const EXPM1: u8 = 1;
    /// `log`
    pub const LOG: u8 = 2;
    /// `log1p`
    pub const LOG1P: u8 = 3;
    /// `sin`
    pub const SIN: u8 = 4;
    /// `cos`
    pub const COS: u8 = 5;
    /// `tanh`
    pub const TANH: u8 = 6;
    /// `sigmoid`
    pub const SIGMOID: u8 = 7;
}

/// Function `F` of one lane (its fast path only, for sin and cos: see [`apply`]).
#[inline(always)]
fn lane<const F: u8, const LITE: bool>(x: f64) -> f64 {
    match F {
        func::EXP => exp_log::exp::<LITE>(x),
        func::EXPM1 => exp_log::expm1::<LITE>(x),
        func::LOG => exp_log::log::<LITE>(x),
        func::LOG1P => exp_log::log1p::<LITE>(x),
        func::SIN => trig::sin_reduced::<LITE>(x),
        func::COS => trig::cos_reduced::<LITE>(x),
        func::TANH => hyperbolic::tanh::<LITE>(x),
        _ => hyperbolic::sigmoid::<LITE>(x),
    }
}

/// Function `F` of `N` lanes: the vectorized lane code, then (sin and cos only) the libm
/// result for the lanes past the reduction bound, when there are any.
#[inline(always)]
#[allow(clippy::needless_range_loop)]
fn apply<const F: u8, const LITE: bool, const N: usize>(x: [f64; N]) -> [f64; N] {
    // index loops, not `array::map`: map's body is a function of its own, compiled without
    // the target features of the copy this is inlined into (so scalar, and `mul_add` a call)
    let mut y = [0.0; N];
    for i in 0..N {
        y[i] = lane::<F, LITE>(x[i]);
    }
    if (F == func::SIN || F == func::COS) && any_lane(&x, |v| v.abs() > trig::REDUCTION_BOUND) {
        for (yi, &xi) in y.iter_mut().zip(&x) {
            if xi.abs() > trig::REDUCTION_BOUND {
                *yi = if F == func::SIN { xi.sin() } else { xi.cos() };
            }
        }
    }
    y
}

/// Whether `x` lies in the domain of `F`'s f32 kernel.
#[inline(always)]
fn single_domain<const F: u8>(x: f32) -> bool {
    match F {
        func::EXP => single::exp_fast_domain(x),
        func::EXPM1 => single::expm1_fast_domain(x),
        func::SIN | func::COS => single::trig_fast_domain(x),
        func::TANH => single::tanh_fast_domain(x),
        func::SIGMOID => single::sigmoid_fast_domain(x),
        func::LOG => single::log_fast_domain(x),
        func::LOG1P => single::log1p_fast_domain(x),
        _ => false,
    }
}

/// `F`'s f32 kernel at `x` (in its domain).
#[inline(always)]
fn single_eval<const F: u8>(x: f32) -> f32 {
    match F {
        func::EXP => single::exp(x),
        func::EXPM1 => single::expm1(x),
        func::SIN => single::sin(x),
        func::COS => single::cos(x),
        func::TANH => single::tanh(x),
        func::SIGMOID => single::sigmoid(x),
        func::LOG => single::log(x),
        func::LOG1P => single::log1p(x),
        _ => x,
    }
}

/// Whether `test` holds for every lane: an OR of the failures over integer lanes, which
/// compiles to vector compares and one mask test. (`iter().all` over a `[bool; N]` was left
/// as a chain of per-lane branches: in a scratch harness on a 2-core Xeon, float32 exp took
/// 0.43 ns an element with it and 0.37 with this.)
#[inline(always)]
fn all_lanes<V: Copy, const N: usize>(x: &[V; N], test: impl Fn(V) -> bool) -> bool {
    let mut failed = 0u32;
    for &v in x {
        failed |= u32::from(!test(v));
    }
    failed == 0
}

/// Whether `F` has a short float64 kernel for the common arguments (the general one, which
/// also handles the rest, runs only for blocks holding a lane outside).
const fn has_short64(f: u8) -> bool {
    f == func::EXP || f == func::LOG || f == func::SIGMOID
}

/// Whether `x` lies in the domain of `F`'s short float64 kernel.
#[inline(always)]
fn short64_domain<const F: u8>(x: f64) -> bool {
    match F {
        func::EXP => exp_log::exp_fast_domain(x),
        func::LOG => exp_log::log_fast_domain(x),
        func::SIGMOID => hyperbolic::sigmoid_near_domain(x),
        _ => false,
    }
}

/// `F`'s short float64 kernel at `x` (in its domain).
#[inline(always)]
fn short64_eval<const F: u8>(x: f64) -> f64 {
    match F {
        func::EXP => exp_log::exp_fast(x),
        func::LOG => exp_log::log_fast(x),
        func::SIGMOID => hyperbolic::sigmoid_near(x),
        _ => x,
    }
}

/// Whether `test` holds for some lane (as [`all_lanes`]: one mask test, no per-lane branch).
#[inline(always)]
fn any_lane<V: Copy, const N: usize>(x: &[V; N], test: impl Fn(V) -> bool) -> bool {
    let mut hit = 0u32;
    for &v in x {
        hit |= u32::from(test(v));
    }
    hit != 0
}

/// Function `F` of float64 lanes.
#[derive(Debug, Clone, Copy, Default)]
pub struct Lanes64<const F: u8>;

impl<const F: u8, const N: usize> LaneMap<N> for Lanes64<F> {
    type In = f64;
    type Out = f64;
    #[inline(always)]
    #[allow(clippy::needless_range_loop)]
    fn block(&self, x: [f64; N]) -> [f64; N] {
        if !has_short64(F) {
            return apply::<F, false, N>(x);
        }
        let mut y = [0.0; N];
        // A block wholly inside takes the short kernel alone, unconditionally (a loop with an
        // `if` per lane compiles to masked or scalar code); in a mixed block the lanes inside
        // still take it, so that each lane's value depends on that lane only (not on which
        // neighbours a walk puts beside it).
        if all_lanes(&x, short64_domain::<F>) {
            for i in 0..N {
                y[i] = short64_eval::<F>(x[i]);
            }
            return y;
        }
        let x = std::hint::black_box(x); // as in `Lanes32`
        let general = apply::<F, false, N>(x);
        for i in 0..N {
            let inside = short64_domain::<F>(x[i]);
            y[i] = lane::select(inside, short64_eval::<F>(x[i]), general[i]);
        }
        y
    }
}

/// Function `F` of float32 lanes, or of float16/bfloat16 ones widened to f32 (the result is
/// rounded to f32 first, as torch's float32 opmath does, then to the element type).
#[derive(Debug, Clone, Copy, Default)]
pub struct Lanes32<T, const F: u8>(PhantomData<T>);

impl<T: Compute<Op = f32>, const F: u8, const N: usize> LaneMap<N> for Lanes32<T, F> {
    type In = T;
    type Out = T;
    #[inline(always)]
    #[allow(clippy::needless_range_loop)]
    fn block(&self, x: [T; N]) -> [T; N] {
        let mut narrow = [0.0f32; N];
        for i in 0..N {
            narrow[i] = x[i].up();
        }
        let mut out = [T::default(); N];
        if all_lanes(&narrow, single_domain::<F>) {
            // sigmoid near 0 (the usual block) skips the wide domain's extra terms: the same
            // bits, a fifth faster
            if F == func::SIGMOID && all_lanes(&narrow, single::sigmoid_near_domain) {
                for i in 0..N {
                    out[i] = T::down(single::sigmoid_near(narrow[i]));
                }
                return out;
            }
            for i in 0..N {
                out[i] = T::down(single_eval::<F>(narrow[i]));
            }
            return out;
        }
        // (hidden from the optimizer: else LLVM shares the lanes' loads between this rare path
        // and the one above, and assembles the common path's vector from five pieces; in a
        // scratch harness float32 exp went from 0.37 to 0.32 ns an element, one run)
        let narrow = std::hint::black_box(narrow);
        let mut wide = [0.0; N];
        for i in 0..N {
            wide[i] = narrow[i] as f64;
        }
        let y = apply::<F, true, N>(wide);
        // lanes in the f32 kernel's domain keep its value in a mixed block too: each lane's
        // value depends on that lane only, whatever a walk puts beside it
        for i in 0..N {
            out[i] = T::down(if single_domain::<F>(narrow[i]) {
                single_eval::<F>(narrow[i])
            } else {
                y[i] as f32
            });
        }
        out
    }
}

/// Lanes per block: 16 float32 (their f64 values fill two AVX-512 registers), 8 float64.
const LANES32: usize = 16;
const LANES64: usize = 8;

/// Function `F` of float32 (by way of f64) over a value, as the kernels compute it: for
/// tests and the scalar uses of the same function.
pub fn eval32<const F: u8>(x: f32) -> f32 {
    <Lanes32<f32, F> as LaneMap<1>>::block(&Lanes32(PhantomData), [x])[0]
}

/// Function `F` of float64 over a value, as the kernels compute it.
pub fn eval64<const F: u8>(x: f64) -> f64 {
    <Lanes64<F> as LaneMap<1>>::block(&Lanes64, [x])[0]
}

fn run_f<const F: u8>(plan: &Target, dtype: DType) -> Result<()> {
    match dtype {
        DType::F64 => plan.run(|b| map1_lanes::<LANES64, _>(b, Lanes64::<F>)),
        DType::F32 => plan.run(|b| map1_lanes::<LANES32, _>(b, Lanes32::<f32, F>(PhantomData))),
        DType::F16 => plan.run(|b| map1_lanes::<LANES32, _>(b, Lanes32::<f16, F>(PhantomData))),
        _ => plan.run(|b| map1_lanes::<LANES32, _>(b, Lanes32::<bf16, F>(PhantomData))),
    }
}

/// Runs `op` over the plan with the vector kernels when they cover it (a function listed
/// above, of a real floating dtype); `None` otherwise.
pub(crate) fn run_vector(plan: &Target, op: UnaryOp, dtype: DType) -> Option<Result<()>> {
    if !matches!(dtype, DType::F64 | DType::F32 | DType::F16 | DType::BF16) {
        return None;
    }
    Some(match op {
        UnaryOp::Exp => run_f::<{ func::EXP }>(plan, dtype),
        UnaryOp::Expm1 => run_f::<{ func::EXPM1 }>(plan, dtype),
        UnaryOp::Log => run_f::<{ func::LOG }>(plan, dtype),
        UnaryOp::Log1p => run_f::<{ func::LOG1P }>(plan, dtype),
        UnaryOp::Sin => run_f::<{ func::SIN }>(plan, dtype),
        UnaryOp::Cos => run_f::<{ func::COS }>(plan, dtype),
        UnaryOp::Tanh => run_f::<{ func::TANH }>(plan, dtype),
        UnaryOp::Sigmoid => run_f::<{ func::SIGMOID }>(plan, dtype),
        _ => return None,
    })
}

#[cfg(test)]
mod tests;
