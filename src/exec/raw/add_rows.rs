//! Blocks of a plain float sum side by side, [`ROWS`] a call, each a contiguous run of at most
//! one block (`reduce::BLOCK` elements): the rows of `sum(x, -1)` of a (262144, 64) array.
//!
//! Through the generic loop each short row was a unit of its own: the run walk, the lane
//! loop, a scalar lane tree of 15 additions and a block counter, about 40 ns a row (rows of
//! 64 float32 summed at 6 GB/s, a fifth of torch's speed). Here each block's 16 lanes live in
//! vector registers (one AVX-512 register of `f32`, two of `f64`; two or four AVX2 ones), each
//! lane taking the block's elements `l`, `l + 16`, … from the reducer's identity as the
//! generic loop does, the last partial group only into its lanes; then the lane tree — lane i
//! with i + 8, then + 4, + 2, + 1 — runs *across* the blocks: every step combines two
//! registers' halves with one shuffle each, so that the last step leaves one block's sum in
//! each position. The same additions with the same operands in the same order as
//! `reduce::lane_tree`, so the same block sums (NaN payloads aside, see the test); the caller
//! adds the identity, as `reduce::finish_range` ends a single block. Raw memory: see the
//! invariants in [`super`].

#[cfg(target_arch = "x86_64")]
use super::reduce::LANES;

/// Runs (rows, or blocks of rows) per call.
pub(super) const ROWS: usize = 16;

/// The sums of 16 blocks of `len` (1 to `BLOCK`) `f32`s at `rows`, AVX-512.
///
/// # Safety
/// Each `rows[k]` addresses `len` readable, aligned `f32`s; the CPU has AVX-512F.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx512f")]
pub(super) unsafe fn f32_rows_avx512(
    rows: &[*const f32; ROWS],
    len: usize,
    id: f32,
) -> [f32; ROWS] {
    use std::arch::x86_64::*;
    // (plain loops, no closures: a closure does not inherit the target features, and its
    // intrinsics became calls)
    let (groups, rem) = (len / LANES, len % LANES);
    let tail = ((1u32 << rem) - 1) as u16;
    let mut acc = [_mm512_set1_ps(id); ROWS];
    for k in 0..ROWS {
        for g in 0..groups {
            // SAFETY: elements 16g .. 16g + 16 < len of row k (the caller's range).
            let x = unsafe { _mm512_loadu_ps(rows[k].add(g * LANES)) };
            acc[k] = _mm512_add_ps(acc[k], x);
        }
        if rem > 0 {
            // SAFETY: the tail's `rem` elements of row k; a masked load reads no others.
            let x = unsafe { _mm512_maskz_loadu_ps(tail, rows[k].add(groups * LANES)) };
            acc[k] = _mm512_mask_add_ps(acc[k], tail, acc[k], x);
        }
    }
    // + 8: row 2j's lanes 0-7 (low half) and row 2j + 1's (high half), each plus its 8-15
    let mut s1 = [_mm512_setzero_ps(); 8];
    for (j, s) in s1.iter_mut().enumerate() {
        let (a, b) = (acc[2 * j], acc[2 * j + 1]);
        *s = _mm512_add_ps(
            _mm512_shuffle_f32x4::<0b01_00_01_00>(a, b),
            _mm512_shuffle_f32x4::<0b11_10_11_10>(a, b),
        );
    }
    // + 4: rows 4m .. 4m + 4, lanes 0-3 each, in the four 128-bit parts
    let mut s2 = [_mm512_setzero_ps(); 4];
    for (m, s) in s2.iter_mut().enumerate() {
        let (a, b) = (s1[2 * m], s1[2 * m + 1]);
        *s = _mm512_add_ps(
            _mm512_shuffle_f32x4::<0b10_00_10_00>(a, b),
            _mm512_shuffle_f32x4::<0b11_01_11_01>(a, b),
        );
    }
    // + 2: part k holds lanes 0-1 of rows 8t + k and 8t + 4 + k
    let mut s3 = [_mm512_setzero_ps(); 2];
    for (t, s) in s3.iter_mut().enumerate() {
        let (a, b) = (s2[2 * t], s2[2 * t + 1]);
        *s = _mm512_add_ps(
            _mm512_shuffle_ps::<0b01_00_01_00>(a, b),
            _mm512_shuffle_ps::<0b11_10_11_10>(a, b),
        );
    }
    // + 1: position 4k + j holds row k + 4j
    let s4 = _mm512_add_ps(
        _mm512_shuffle_ps::<0b10_00_10_00>(s3[0], s3[1]),
        _mm512_shuffle_ps::<0b11_01_11_01>(s3[0], s3[1]),
    );
    let mut at = [0f32; ROWS];
    // SAFETY: `at` holds 16 f32s.
    unsafe { _mm512_storeu_ps(at.as_mut_ptr(), s4) };
    let mut out = [0f32; ROWS];
    for (r, o) in out.iter_mut().enumerate() {
        *o = at[4 * (r % 4) + r / 4];
    }
    out
}

/// [`f32_rows_avx512`] in AVX2 registers: each row's lanes 0-7 and 8-15 in two, combined
/// (+ 8) into one, then the tree's other steps across eight rows at a time.
///
/// # Safety
/// As for [`f32_rows_avx512`], the CPU having AVX2.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
pub(super) unsafe fn f32_rows(rows: &[*const f32; ROWS], len: usize, id: f32) -> [f32; ROWS] {
    use std::arch::x86_64::*;
    let (groups, rem) = (len / LANES, len % LANES);
    // lanes `from..from + 8` of the tail group: all ones where the lane is one of its `rem`
    let on = |l: usize| -((l < rem) as i32);
    let mask_lo = _mm256_setr_epi32(on(0), on(1), on(2), on(3), on(4), on(5), on(6), on(7));
    let mask_hi = _mm256_setr_epi32(on(8), on(9), on(10), on(11), on(12), on(13), on(14), on(15));
    let mut lo = [_mm256_set1_ps(id); ROWS];
    let mut hi = lo;
    for k in 0..ROWS {
        for g in 0..groups {
            let p = rows[k].wrapping_add(g * LANES);
            // SAFETY: elements 16g .. 16g + 16 < len of row k (the caller's range).
            unsafe {
                lo[k] = _mm256_add_ps(lo[k], _mm256_loadu_ps(p));
                hi[k] = _mm256_add_ps(hi[k], _mm256_loadu_ps(p.add(8)));
            }
        }
        if rem > 0 {
            let p = rows[k].wrapping_add(groups * LANES);
            // SAFETY: the tail's `rem` elements of row k; a masked load reads no others,
            // and the masked-off lanes keep their sums (not + 0.0, which turns -0.0).
            unsafe {
                let x = _mm256_maskload_ps(p, mask_lo);
                let sum = _mm256_add_ps(lo[k], x);
                lo[k] = _mm256_blendv_ps(lo[k], sum, _mm256_castsi256_ps(mask_lo));
                if rem > 8 {
                    let x = _mm256_maskload_ps(p.add(8), mask_hi);
                    let sum = _mm256_add_ps(hi[k], x);
                    hi[k] = _mm256_blendv_ps(hi[k], sum, _mm256_castsi256_ps(mask_hi));
                }
            }
        }
    }
    let mut v = lo;
    for (v, h) in v.iter_mut().zip(hi) {
        *v = _mm256_add_ps(*v, h);
    }
    let mut out = [0f32; ROWS];
    for (eight, v) in out.chunks_exact_mut(8).zip(v.chunks_exact(8)) {
        eight.copy_from_slice(&tree8x8_ps(v));
    }
    out
}

/// The lane tree's steps + 4, + 2, + 1 across eight rows (`v[k]`: row k's lanes 0-7, each
/// already combined + 8).
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
fn tree8x8_ps(v: &[std::arch::x86_64::__m256]) -> [f32; 8] {
    use std::arch::x86_64::*;
    // + 4: row 2m's lanes 0-3 (low half), row 2m + 1's (high half)
    let mut s2 = [_mm256_setzero_ps(); 4];
    for (m, s) in s2.iter_mut().enumerate() {
        let (a, b) = (v[2 * m], v[2 * m + 1]);
        *s = _mm256_add_ps(
            _mm256_permute2f128_ps::<0x20>(a, b),
            _mm256_permute2f128_ps::<0x31>(a, b),
        );
    }
    // + 2: half h holds lanes 0-1 of rows 4t + h and 4t + 2 + h
    let mut s3 = [_mm256_setzero_ps(); 2];
    for (t, s) in s3.iter_mut().enumerate() {
        let (a, b) = (s2[2 * t], s2[2 * t + 1]);
        *s = _mm256_add_ps(
            _mm256_shuffle_ps::<0b01_00_01_00>(a, b),
            _mm256_shuffle_ps::<0b11_10_11_10>(a, b),
        );
    }
    // + 1: position 4h + j holds row h + 2j
    let s4 = _mm256_add_ps(
        _mm256_shuffle_ps::<0b10_00_10_00>(s3[0], s3[1]),
        _mm256_shuffle_ps::<0b11_01_11_01>(s3[0], s3[1]),
    );
    let mut at = [0f32; 8];
    // SAFETY: `at` holds 8 f32s.
    unsafe { _mm256_storeu_ps(at.as_mut_ptr(), s4) };
    let mut out = [0f32; 8];
    for (r, o) in out.iter_mut().enumerate() {
        *o = at[4 * (r % 2) + r / 2];
    }
    out
}

/// As [`f32_rows_avx512`], for `f64`s: each row's lanes 0-7 and 8-15 in two registers,
/// combined (+ 8) into one, then the tree's other steps across eight rows at a time.
///
/// # Safety
/// As for [`f32_rows_avx512`], with `f64`s.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx512f")]
pub(super) unsafe fn f64_rows_avx512(
    rows: &[*const f64; ROWS],
    len: usize,
    id: f64,
) -> [f64; ROWS] {
    use std::arch::x86_64::*;
    let (groups, rem) = (len / LANES, len % LANES);
    let (tail_lo, tail_hi) = (
        ((1u32 << rem.min(8)) - 1) as u8,
        ((1u32 << rem.saturating_sub(8)) - 1) as u8,
    );
    let mut lo = [_mm512_set1_pd(id); ROWS];
    let mut hi = lo;
    for k in 0..ROWS {
        for g in 0..groups {
            let p = rows[k].wrapping_add(g * LANES);
            // SAFETY: elements 16g .. 16g + 16 < len of row k (the caller's range).
            unsafe {
                lo[k] = _mm512_add_pd(lo[k], _mm512_loadu_pd(p));
                hi[k] = _mm512_add_pd(hi[k], _mm512_loadu_pd(p.add(8)));
            }
        }
        if rem > 0 {
            let p = rows[k].wrapping_add(groups * LANES);
            // SAFETY: the tail's `rem` elements of row k; masked loads read no others.
            unsafe {
                let x = _mm512_maskz_loadu_pd(tail_lo, p);
                lo[k] = _mm512_mask_add_pd(lo[k], tail_lo, lo[k], x);
                let x = _mm512_maskz_loadu_pd(tail_hi, p.add(8));
                hi[k] = _mm512_mask_add_pd(hi[k], tail_hi, hi[k], x);
            }
        }
    }
    let mut v = lo;
    for (v, h) in v.iter_mut().zip(hi) {
        *v = _mm512_add_pd(*v, h);
    }
    let mut out = [0f64; ROWS];
    for (eight, v) in out.chunks_exact_mut(8).zip(v.chunks_exact(8)) {
        eight.copy_from_slice(&tree8x8_pd(v));
    }
    out
}

/// The lane tree's steps + 4, + 2, + 1 across eight rows of `f64` (`v[k]`: row k's lanes
/// 0-7, each already combined + 8).
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx512f")]
fn tree8x8_pd(v: &[std::arch::x86_64::__m512d]) -> [f64; 8] {
    use std::arch::x86_64::*;
    // + 4: row 2m's lanes 0-3 (low half), row 2m + 1's (high half)
    let mut s2 = [_mm512_setzero_pd(); 4];
    for (m, s) in s2.iter_mut().enumerate() {
        let (a, b) = (v[2 * m], v[2 * m + 1]);
        *s = _mm512_add_pd(
            _mm512_shuffle_f64x2::<0b01_00_01_00>(a, b),
            _mm512_shuffle_f64x2::<0b11_10_11_10>(a, b),
        );
    }
    // + 2: 128-bit part k holds lanes 0-1 of row 4t + k
    let mut s3 = [_mm512_setzero_pd(); 2];
    for (t, s) in s3.iter_mut().enumerate() {
        let (a, b) = (s2[2 * t], s2[2 * t + 1]);
        *s = _mm512_add_pd(
            _mm512_shuffle_f64x2::<0b10_00_10_00>(a, b),
            _mm512_shuffle_f64x2::<0b11_01_11_01>(a, b),
        );
    }
    // + 1: position 2k + j holds row k + 4j
    let s4 = _mm512_add_pd(
        _mm512_unpacklo_pd(s3[0], s3[1]),
        _mm512_unpackhi_pd(s3[0], s3[1]),
    );
    let mut at = [0f64; 8];
    // SAFETY: `at` holds 8 f64s.
    unsafe { _mm512_storeu_pd(at.as_mut_ptr(), s4) };
    let mut out = [0f64; 8];
    for (r, o) in out.iter_mut().enumerate() {
        *o = at[2 * (r % 4) + r / 4];
    }
    out
}

/// [`f64_rows_avx512`] in AVX2 registers: each row's lanes in four (0-3, 4-7, 8-11, 12-15),
/// combined + 8 and + 4 into one, then + 2 and + 1 across four rows at a time.
///
/// # Safety
/// As for [`f32_rows_avx512`], with `f64`s, the CPU having AVX2.
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
    let mut acc = [[_mm256_set1_pd(id); 4]; ROWS];
    for k in 0..ROWS {
        for g in 0..groups {
            let p = rows[k].wrapping_add(g * LANES);
            for (j, a) in acc[k].iter_mut().enumerate() {
                // SAFETY: elements 16g .. 16g + 16 < len of row k (the caller's range).
                *a = _mm256_add_pd(*a, unsafe { _mm256_loadu_pd(p.add(4 * j)) });
            }
        }
        if rem > 0 {
            let p = rows[k].wrapping_add(groups * LANES);
            for (j, a) in acc[k].iter_mut().enumerate().take(rem.div_ceil(4)) {
                // SAFETY: the tail's `rem` elements of row k; a masked load reads no
                // others, and the masked-off lanes keep their sums.
                let x = unsafe { _mm256_maskload_pd(p.add(4 * j), masks[j]) };
                let m = _mm256_castsi256_pd(masks[j]);
                *a = _mm256_blendv_pd(*a, _mm256_add_pd(*a, x), m);
            }
        }
    }
    let mut out = [0f64; ROWS];
    for (four, acc) in out.chunks_exact_mut(4).zip(acc.chunks_exact(4)) {
        // + 8 (lanes 0-3 with 8-11, 4-7 with 12-15), then + 4
        let mut v = [_mm256_setzero_pd(); 4];
        for (v, [a0, a1, a2, a3]) in v.iter_mut().zip(acc) {
            *v = _mm256_add_pd(_mm256_add_pd(*a0, *a2), _mm256_add_pd(*a1, *a3));
        }
        // + 2: rows A and B (C and D): [A0 + A2, A1 + A3, B0 + B2, B1 + B3]
        let ab = _mm256_add_pd(
            _mm256_permute2f128_pd::<0x20>(v[0], v[1]),
            _mm256_permute2f128_pd::<0x31>(v[0], v[1]),
        );
        let cd = _mm256_add_pd(
            _mm256_permute2f128_pd::<0x20>(v[2], v[3]),
            _mm256_permute2f128_pd::<0x31>(v[2], v[3]),
        );
        // + 1: rows A, C, B, D
        let s = _mm256_add_pd(_mm256_unpacklo_pd(ab, cd), _mm256_unpackhi_pd(ab, cd));
        let mut at = [0f64; 4];
        // SAFETY: `at` holds 4 f64s.
        unsafe { _mm256_storeu_pd(at.as_mut_ptr(), s) };
        four.copy_from_slice(&[at[0], at[2], at[1], at[3]]);
    }
    out
}
