//! The permuting copy's tiles of 2 to [`MAX_WAYS`] rows or columns of 4-byte elements with
//! AVX-512 ([`super::permute`]): NCHW <-> NHWC of an RGB or RGBA image, a (3, N) transpose.
//! The 16 × 16 register transpose of `lines512` pays for a whole block to move a few rows of
//! it: a tile of 3 rows ran NCHW -> NHWC of 3 channels at 13 GB/s on the 2-core Zen 4, bound
//! by its shuffles. Here the short side's 16-element vectors are merged straight into the
//! long side's runs, each output lane taken from its input vector by one masked permute per
//! vector pair: `k²` permutes per `16k` elements for `k` ways, against a transpose's 64
//! shuffles and 16 stores per block of any `k`.
//!
//! - **interleave**: `k` input rows (any addresses) into an output where the tile is one run,
//!   element `(r, c)` at `4(c·k + r)` (NCHW -> NHWC: the channels of a pixel side by side);
//! - **deinterleave**: an input where the tile is one run, element `(r, c)` at `4(r·k + c)`,
//!   into `k` output columns (any addresses; NHWC -> NCHW).
//!
//! Whole output lines are streamed where asked and aligned. Raw memory: see the invariants
//! in [`super`].

#![cfg(target_arch = "x86_64")]

use std::arch::x86_64::*;

use crate::exec::permute::MAX_WAYS;

/// For `k` ways: the index vector and masks that build output vector `v` of a 16-element
/// group of each way: lane `l` of vector `v` is element `16v + l` of the merged sequence,
/// which comes from way `(16v + l) % k`, lane `(16v + l) / k` (interleave). The inverse
/// (deinterleave) swaps the roles: output way `c` lane `l` is merged element `l·k + c`, in
/// input vector `(l·k + c) / 16`, lane `(l·k + c) % 16`.
struct Lanes {
    index: [__m512i; MAX_WAYS],
    mask: [[__mmask16; MAX_WAYS]; MAX_WAYS],
}

impl Lanes {
    /// Output vector `v`, lane `l` from source vector `from(v, l).0`, lane `from(v, l).1`.
    #[target_feature(enable = "avx512f")]
    fn new(k: usize, from: impl Fn(usize, usize) -> (usize, usize)) -> Lanes {
        let mut index = [_mm512_setzero_si512(); MAX_WAYS];
        let mut mask = [[0; MAX_WAYS]; MAX_WAYS];
        for (v, slot) in index.iter_mut().enumerate().take(k) {
            let mut lanes = [0i32; 16];
            for (l, lane) in lanes.iter_mut().enumerate() {
                let (src, at) = from(v, l);
                *lane = at as i32;
                mask[v][src] |= 1 << l;
            }
            // SAFETY: `lanes` is 16 readable i32s.
            *slot = unsafe { _mm512_loadu_si512(lanes.as_ptr() as *const _) };
        }
        Lanes { index, mask }
    }

    /// Output vector `v` from the `k` source vectors `x`.
    #[target_feature(enable = "avx512f")]
    #[inline]
    fn merge(&self, v: usize, x: &[__m512; MAX_WAYS], k: usize) -> __m512 {
        let mut out = _mm512_setzero_ps();
        for (src, &lanes) in x.iter().zip(&self.mask[v]).take(k) {
            out = _mm512_mask_permutexvar_ps(out, lanes, self.index[v], *src);
        }
        out
    }
}

/// Interleaves `k` rows (`2 <= k <= MAX_WAYS`) of `n` elements: element `(r, c)` from
/// `row(r) + 4c` to `out + 4(c·k + r)`; whole 64-byte output vectors streamed when `stream`
/// (the caller checked `out` 64-byte aligned, and fences afterwards).
///
/// # Safety
/// Those addresses are valid for 4 bytes for every `r < k`, `c < n` (readable, writable), the
/// two sides do not overlap; the CPU has AVX-512F.
#[target_feature(enable = "avx512f")]
pub(super) unsafe fn interleave(
    row: impl Fn(usize) -> *const u8,
    k: usize,
    n: usize,
    out: *mut u8,
    stream: bool,
) {
    debug_assert!((2..=MAX_WAYS).contains(&k));
    let lanes = Lanes::new(k, |v, l| ((16 * v + l) % k, (16 * v + l) / k));
    let rows: [*const u8; MAX_WAYS] = std::array::from_fn(|r| if r < k { row(r) } else { row(0) });
    let mut x = [_mm512_setzero_ps(); MAX_WAYS];
    let mut c = 0;
    while c < n {
        let m = (n - c).min(16);
        let load: __mmask16 = if m == 16 { !0 } else { (1 << m) - 1 };
        for (v, &r) in x.iter_mut().zip(&rows).take(k) {
            // SAFETY: row r, columns c..c+m (lanes past m masked off, never accessed).
            *v = unsafe { _mm512_maskz_loadu_ps(load, r.wrapping_add(4 * c) as *const f32) };
        }
        // the strip's `m·k` output elements, 16 per vector
        let at = out.wrapping_add(4 * c * k) as *mut f32;
        for v in 0..(m * k).div_ceil(16) {
            let y = lanes.merge(v, &x, k);
            let left = m * k - 16 * v;
            // SAFETY: output elements c·k + 16v .. + min(16, left): columns c..c+m of the
            // tile; `at` is 64-byte aligned when streaming (`out` is, and 64k divides 4·16k).
            unsafe {
                if left >= 16 && stream {
                    _mm512_stream_ps(at.add(16 * v), y);
                } else if left >= 16 {
                    _mm512_storeu_ps(at.add(16 * v), y);
                } else {
                    _mm512_mask_storeu_ps(at.add(16 * v), (1 << left) - 1, y);
                }
            }
        }
        c += m;
    }
}

/// Deinterleaves `n` rows of `k` elements (`2 <= k <= MAX_WAYS`): element `(r, c)` from
/// `inp + 4(r·k + c)` to `col(c) + 4r`; whole 64-byte output vectors streamed when `stream`
/// (the caller checked every `col(c)` 64-byte aligned, and fences afterwards).
///
/// # Safety
/// Those addresses are valid for 4 bytes for every `r < n`, `c < k` (readable, writable), the
/// two sides do not overlap; the CPU has AVX-512F.
#[target_feature(enable = "avx512f")]
pub(super) unsafe fn deinterleave(
    inp: *const u8,
    k: usize,
    n: usize,
    col: impl Fn(usize) -> *mut u8,
    stream: bool,
) {
    debug_assert!((2..=MAX_WAYS).contains(&k));
    let lanes = Lanes::new(k, |c, l| ((l * k + c) / 16, (l * k + c) % 16));
    let cols: [*mut u8; MAX_WAYS] = std::array::from_fn(|c| if c < k { col(c) } else { col(0) });
    let mut x = [_mm512_setzero_ps(); MAX_WAYS];
    let mut r = 0;
    while r < n {
        let m = (n - r).min(16);
        // the strip's `m·k` input elements, 16 per vector
        let from = inp.wrapping_add(4 * r * k) as *const f32;
        for (v, slot) in x.iter_mut().enumerate().take((m * k).div_ceil(16)) {
            let left = m * k - 16 * v;
            let load: __mmask16 = if left >= 16 { !0 } else { (1 << left) - 1 };
            // SAFETY: input elements r·k + 16v .. + min(16, left): rows r..r+m of the tile
            // (lanes past them masked off, never accessed).
            *slot = unsafe { _mm512_maskz_loadu_ps(load, from.add(16 * v)) };
        }
        for (c, &to) in cols.iter().enumerate().take(k) {
            let y = lanes.merge(c, &x, k);
            let at = to.wrapping_add(4 * r) as *mut f32;
            // SAFETY: column c, rows r..r+m of the tile; `at` is 64-byte aligned when
            // streaming (`col(c)` is, and `4r` is a multiple of 64).
            unsafe {
                if m == 16 && stream {
                    _mm512_stream_ps(at, y);
                } else if m == 16 {
                    _mm512_storeu_ps(at, y);
                } else {
                    _mm512_mask_storeu_ps(at, (1 << m) - 1, y);
                }
            }
        }
        r += m;
    }
}
