//! Blocks of a plain float sum, [`ROWS`] a call, each a contiguous run of at most one block
//! (`reduce::BLOCK` elements): the rows of `sum(x, -1)` of a (262144, 64) array.
//!
//! Through the generic loop each short row was a unit of its own: the run walk, the lane
//! loop, a scalar lane tree of 15 additions and a block counter, about 40 ns a row (rows of
//! 64 float32 summed at 6 GB/s, a fifth of torch's speed). Here a call takes [`ROWS`] rows
//! (the walk's cost shared), and each row in turn keeps its 16 lanes in AVX2 registers (two of
//! `f32`, four of `f64`), each lane taking the row's elements `l`, `l + 16`, … from the
//! reducer's identity as the generic loop does, the last partial group only into its lanes;
//! then the lane tree — lane i with i + 8, then + 4, + 2, + 1 — on those registers' halves.
//! The same additions with the same operands in the same order as `reduce::lane_tree`, so the
//! same block sums (NaN payloads aside, see the test); the caller adds the identity, as
//! `reduce::finish_range` ends a single block.
//!
//! Why one row at a time, in AVX2 registers: the first version kept all 16 rows' lanes in
//! registers (one AVX-512 register each) and ran the tree across the rows. Its loads ran row
//! after row all the same, but it read memory slower: on the 2-core Zen 4, in one process
//! alternating the two (1 thread, float32, 64 MiB), rows of 64 at 27.6 vs 29.3 GB/s, of 128
//! at 10.3 vs 29.6, of 256 at 19.8 vs 31.9, of 1024 26.0 vs 36.8 (torch 33-38); float64 rows
//! of 64 13.3 vs 25.9; in cache too (rows of 256 in 8 MiB 57 vs 73 GB/s). A standalone loop
//! showed the same: one row at a time in two AVX2 registers beat one AVX-512 register per row
//! (rows of 128: 32-36 vs 16-19 GB/s). Raw memory: see the invariants in [`super`].

#[cfg(target_arch = "x86_64")]
use super::reduce::LANES;

/// Runs (rows, or blocks of rows) per call.
pub(super) const ROWS: usize = 16;

/// The sums of 16 blocks of `len` (1 to `BLOCK`) `f32`s at `rows`, each from the identity
/// `id` in every lane.
///
/// # Safety
/// Each `rows[k]` addresses `len` readable, aligned `f32`s; the CPU has AVX2.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
pub(super) unsafe fn f32_rows(rows: &[*const f32; ROWS], len: usize, id: f32) -> [f32; ROWS] {
    use std::arch::x86_64::*;
    // (plain loops, no closures: a closure does not inherit the target features, and its
    // intrinsics became calls)
    let (groups, rem) = (len / LANES, len % LANES);
    // lanes `from..from + 8` of the tail group: all ones where the lane is one of its `rem`
    let on = |l: usize| -((l < rem) as i32);
    let mask_lo = _mm256_setr_epi32(on(0), on(1), on(2), on(3), on(4), on(5), on(6), on(7));
    let mask_hi = _mm256_setr_epi32(on(8), on(9), on(10), on(11), on(12), on(13), on(14), on(15));
    let mut out = [0f32; ROWS];
    for (&row, o) in rows.iter().zip(out.iter_mut()) {
        // lanes 0-7 and 8-15
        let (mut lo, mut hi) = (_mm256_set1_ps(id), _mm256_set1_ps(id));
        for g in 0..groups {
            let p = row.wrapping_add(g * LANES);
            // SAFETY: elements 16g .. 16g + 16 < len of the row (the caller's range).
            unsafe {
                lo = _mm256_add_ps(lo, _mm256_loadu_ps(p));
                hi = _mm256_add_ps(hi, _mm256_loadu_ps(p.add(8)));
            }
        }
        if rem > 0 {
            let p = row.wrapping_add(groups * LANES);
            // SAFETY: the tail's `rem` elements of the row; a masked load reads no others,
            // and the masked-off lanes keep their sums (not + 0.0, which turns -0.0).
            unsafe {
                let x = _mm256_maskload_ps(p, mask_lo);
                let sum = _mm256_add_ps(lo, x);
                lo = _mm256_blendv_ps(lo, sum, _mm256_castsi256_ps(mask_lo));
                if rem > 8 {
                    let x = _mm256_maskload_ps(p.add(8), mask_hi);
                    let sum = _mm256_add_ps(hi, x);
                    hi = _mm256_blendv_ps(hi, sum, _mm256_castsi256_ps(mask_hi));
                }
            }
        }
        // + 8, + 4 (lanes 0-3 with 4-7), + 2 (0-1 with 2-3), + 1
        let v = _mm256_add_ps(lo, hi);
        let x = _mm_add_ps(_mm256_castps256_ps128(v), _mm256_extractf128_ps::<1>(v));
        let y = _mm_add_ps(x, _mm_movehl_ps(x, x));
        let z = _mm_add_ss(y, _mm_shuffle_ps::<1>(y, y));
        *o = _mm_cvtss_f32(z);
    }
    out
}

/// As [`f32_rows`], for `f64`s: each row's lanes in four registers (0-3, 4-7, 8-11, 12-15).
///
/// # Safety
/// As for [`f32_rows`], with `f64`s.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
pub(super) unsafe fn f64_rows(rows: &[*const f64; ROWS], len: usize, id: f64) -> [f64; ROWS] {
    use std::arch::x86_64::*;
    let (groups, rem) = (len / LANES, len % LANES);
    // register j's lanes of the tail group: all ones where the lane is one of its `rem`
    let on = |l: usize| -((l < rem) as i64);
    let masks = [
        _mm256_setr_epi64x(on(0), on(1), on(2), on(3)),
        _mm256_setr_epi64x(on(4), on(5), on(6), on(7)),
        _mm256_setr_epi64x(on(8), on(9), on(10), on(11)),
        _mm256_setr_epi64x(on(12), on(13), on(14), on(15)),
    ];
    let mut out = [0f64; ROWS];
    for (&row, o) in rows.iter().zip(out.iter_mut()) {
        let mut acc = [_mm256_set1_pd(id); 4];
        for g in 0..groups {
            let p = row.wrapping_add(g * LANES);
            for (j, a) in acc.iter_mut().enumerate() {
                // SAFETY: elements 16g .. 16g + 16 < len of the row (the caller's range).
                *a = _mm256_add_pd(*a, unsafe { _mm256_loadu_pd(p.add(4 * j)) });
            }
        }
        if rem > 0 {
            let p = row.wrapping_add(groups * LANES);
            for (j, a) in acc.iter_mut().enumerate().take(rem.div_ceil(4)) {
                // SAFETY: the tail's `rem` elements of the row; a masked load reads no
                // others, and the masked-off lanes keep their sums.
                let x = unsafe { _mm256_maskload_pd(p.add(4 * j), masks[j]) };
                let m = _mm256_castsi256_pd(masks[j]);
                *a = _mm256_blendv_pd(*a, _mm256_add_pd(*a, x), m);
            }
        }
        // + 8 (lanes 0-3 with 8-11, 4-7 with 12-15), + 4, + 2 (0-1 with 2-3), + 1
        let v = _mm256_add_pd(_mm256_add_pd(acc[0], acc[2]), _mm256_add_pd(acc[1], acc[3]));
        let x = _mm_add_pd(_mm256_castpd256_pd128(v), _mm256_extractf128_pd::<1>(v));
        let y = _mm_add_sd(x, _mm_unpackhi_pd(x, x));
        *o = _mm_cvtsd_f64(y);
    }
    out
}
