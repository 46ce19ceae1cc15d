//! Whole blocks of a float amax or amin (`f32` or `f64` read and kept) in explicit AVX2
//! registers, several blocks side by side: the counterpart of [`super::add_lanes`] for the
//! select of `reduce::lanes_without_nan`.
//!
//! Each lane takes its block's elements four groups at a time as the generic loop does —
//! `acc = c(acc, c(c(x0, x1), c(x2, x3)))`, where `c(a, b)` is `b` when `b > a` (`b < a` for
//! amin), else `a`: one `max` (`min`) instruction with the operands swapped, which gives the
//! first of equal keys (-0.0 before 0.0) as the generic select does — and the loop notes
//! whether any element was NaN, in which case the caller takes the exact loop instead. The
//! lanes are returned, not combined: the caller's lane tree gives each block the generic
//! loop's bits. Side by side, the blocks are independent streams (the same block of four
//! units far apart in memory), which the memory serves at once; LLVM's vectorizer, asked for
//! the same interleaving in generic code, lost the registers (a quarter of the speed). Raw
//! memory: see the invariants in [`super`].

#![cfg(target_arch = "x86_64")]

use super::reduce::{BLOCK, LANES};
use std::arch::x86_64::*;

/// The lanes of `K` whole blocks of `f32`, block `k` at `q + k·gap` elements, each lane from
/// `identity`, by amax's select (`MAX`) or amin's; `None` when an element is NaN.
///
/// # Safety
/// Each block must address `BLOCK` readable, aligned `f32`s; the CPU must have AVX2.
#[target_feature(enable = "avx2")]
pub(super) unsafe fn f32_blocks<const K: usize, const MAX: bool>(
    q: *const f32,
    gap: isize,
    identity: f32,
) -> Option<[[f32; LANES]; K]> {
    // c(a, b): `b` where it wins, else `a` (NaN never reaches here unnoticed)
    let c = |a: __m256, b: __m256| {
        if MAX {
            _mm256_max_ps(b, a)
        } else {
            _mm256_min_ps(b, a)
        }
    };
    let mut acc = [[_mm256_set1_ps(identity); 2]; K];
    let mut nan = _mm256_setzero_ps();
    for g in (0..BLOCK / LANES).step_by(4) {
        for (k, acc) in acc.iter_mut().enumerate() {
            let p = q.wrapping_offset(k as isize * gap + (g * LANES) as isize);
            for (h, a) in acc.iter_mut().enumerate() {
                // SAFETY: block k's elements 16g .. 16(g + 4): inside it (g + 4 <= 64).
                let x = |j: usize| unsafe { _mm256_loadu_ps(p.add(j * LANES + 8 * h)) };
                let (x0, x1, x2, x3) = (x(0), x(1), x(2), x(3));
                let either = _mm256_or_ps(
                    _mm256_cmp_ps::<_CMP_UNORD_Q>(x0, x1),
                    _mm256_cmp_ps::<_CMP_UNORD_Q>(x2, x3),
                );
                nan = _mm256_or_ps(nan, either);
                *a = c(*a, c(c(x0, x1), c(x2, x3)));
            }
        }
    }
    if _mm256_movemask_ps(nan) != 0 {
        return None;
    }
    Some(acc.map(|[lo, hi]| {
        let mut lanes = [0f32; LANES];
        // SAFETY: 8 + 8 floats into the 16 of `lanes`.
        unsafe {
            _mm256_storeu_ps(lanes.as_mut_ptr(), lo);
            _mm256_storeu_ps(lanes.as_mut_ptr().add(8), hi);
        }
        lanes
    }))
}

/// [`f32_blocks`] for `f64`: a block's 16 lanes in four registers.
///
/// # Safety
/// Each block must address `BLOCK` readable, aligned `f64`s; the CPU must have AVX2.
#[target_feature(enable = "avx2")]
pub(super) unsafe fn f64_blocks<const K: usize, const MAX: bool>(
    q: *const f64,
    gap: isize,
    identity: f64,
) -> Option<[[f64; LANES]; K]> {
    let c = |a: __m256d, b: __m256d| {
        if MAX {
            _mm256_max_pd(b, a)
        } else {
            _mm256_min_pd(b, a)
        }
    };
    let mut acc = [[_mm256_set1_pd(identity); 4]; K];
    let mut nan = _mm256_setzero_pd();
    for g in (0..BLOCK / LANES).step_by(4) {
        for (k, acc) in acc.iter_mut().enumerate() {
            let p = q.wrapping_offset(k as isize * gap + (g * LANES) as isize);
            for (h, a) in acc.iter_mut().enumerate() {
                // SAFETY: block k's elements 16g .. 16(g + 4): inside it (g + 4 <= 64).
                let x = |j: usize| unsafe { _mm256_loadu_pd(p.add(j * LANES + 4 * h)) };
                let (x0, x1, x2, x3) = (x(0), x(1), x(2), x(3));
                let either = _mm256_or_pd(
                    _mm256_cmp_pd::<_CMP_UNORD_Q>(x0, x1),
                    _mm256_cmp_pd::<_CMP_UNORD_Q>(x2, x3),
                );
                nan = _mm256_or_pd(nan, either);
                *a = c(*a, c(c(x0, x1), c(x2, x3)));
            }
        }
    }
    if _mm256_movemask_pd(nan) != 0 {
        return None;
    }
    Some(acc.map(|regs| {
        let mut lanes = [0f64; LANES];
        for (h, r) in regs.into_iter().enumerate() {
            // SAFETY: 4 doubles at lanes 4h .. 4h + 4 of the 16.
            unsafe { _mm256_storeu_pd(lanes.as_mut_ptr().add(4 * h), r) };
        }
        lanes
    }))
}
