//! The AVX-512 transposing copy of 4-byte elements shared by the direct tiled walk
//! ([`super::transpose`]) and the permuting copy ([`super::permute`]): 16 × 16 register
//! transposes, each of the 16 input rows read one whole 64-byte line per block and each of the
//! 16 output rows written one whole line, the tile's edges through masked loads and stores
//! (no element-by-element fringe).
//!
//! The blocks are visited output row by output row: for each strip of 16 input columns (16
//! output rows) the walk goes down every row of the tile, so each output row is written in
//! one run of `rows · 4` bytes while the input is read a line per row. On the 2-core Zen 4
//! (float32, streamed stores) a 4096² transpose copy ran at 65-69% of a same-size copy this
//! way against 48-57% with the input rows outside (tiles 256 × 256 and 128 × 1024), 2048 ×
//! 8192 at 81-85% against 50-71%. Raw memory: see the invariants in [`super`].

#![cfg(target_arch = "x86_64")]

use std::arch::x86_64::*;

/// Copies a tile of `nr × nc` 4-byte elements: element `(r, c)` from `in_row(r) + 4c` to
/// `out_col(c) + 4r`. `stream`: full 16-element output runs take non-temporal stores (the
/// caller checked that every `out_col(c) + 64k` is 64-byte aligned and fences afterwards).
///
/// # Safety
/// For every `r < nr`, `c < nc`, both addresses are valid for 4 bytes (readable, writable),
/// the two sides do not overlap; the CPU has AVX-512F. Masked-off lanes are never accessed
/// (AVX-512 masked loads and stores suppress faults on them).
#[target_feature(enable = "avx512f")]
#[inline]
pub(super) unsafe fn copy_tile(
    in_row: impl Fn(usize) -> *const u8,
    out_col: impl Fn(usize) -> *mut u8,
    (nr, nc): (usize, usize),
    stream: bool,
) {
    let mut c = 0;
    while c < nc {
        let m = (nc - c).min(16);
        let mut r = 0;
        while r < nr {
            let k = (nr - r).min(16);
            // SAFETY: rows r..r+k and columns c..c+m of the tile (the caller's guarantees).
            unsafe {
                if k == 16 && m == 16 {
                    full_block(&in_row, &out_col, (r, c), stream)
                } else {
                    edge_block(&in_row, &out_col, (r, c), (k, m))
                }
            }
            r += 16;
        }
        c += 16;
    }
}

/// The 16 × 16 block at `(r, c)` of [`copy_tile`]'s tile, every lane valid.
///
/// # Safety
/// As for [`copy_tile`], for rows `r..r + 16` and columns `c..c + 16`.
#[target_feature(enable = "avx512f")]
#[inline]
unsafe fn full_block(
    in_row: &impl Fn(usize) -> *const u8,
    out_col: &impl Fn(usize) -> *mut u8,
    (r, c): (usize, usize),
    stream: bool,
) {
    let mut x = [_mm512_setzero_ps(); 16];
    for (q, v) in x.iter_mut().enumerate() {
        // SAFETY: row r+q, columns c..c+16: inside the tile.
        *v = unsafe { _mm512_loadu_ps(in_row(r + q).wrapping_add(4 * c) as *const f32) };
    }
    let y = transpose16(x);
    for (q, v) in y.iter().enumerate() {
        let at = out_col(c + q).wrapping_add(4 * r) as *mut f32;
        // SAFETY: column c+q, rows r..r+16: inside the tile; 64-byte aligned when streaming
        // (the caller's check; `4r` is a multiple of 64).
        unsafe {
            if stream {
                _mm512_stream_ps(at, *v);
            } else {
                _mm512_storeu_ps(at, *v);
            }
        }
    }
}

/// A block of `k < 16` rows or `m < 16` columns at `(r, c)` of [`copy_tile`]'s tile: the
/// missing lanes masked off (plain stores: the partial output lines are shared with
/// neighbours).
///
/// # Safety
/// As for [`copy_tile`], for rows `r..r + k` and columns `c..c + m`.
#[target_feature(enable = "avx512f")]
#[inline]
unsafe fn edge_block(
    in_row: &impl Fn(usize) -> *const u8,
    out_col: &impl Fn(usize) -> *mut u8,
    (r, c): (usize, usize),
    (k, m): (usize, usize),
) {
    let load_mask: __mmask16 = if m == 16 { !0 } else { (1 << m) - 1 };
    let store_mask: __mmask16 = if k == 16 { !0 } else { (1 << k) - 1 };
    let mut x = [_mm512_setzero_ps(); 16];
    for (q, v) in x.iter_mut().enumerate().take(k) {
        let at = in_row(r + q).wrapping_add(4 * c) as *const f32;
        // SAFETY: row r+q < r+k, columns c..c+m: inside the tile; lanes past m are masked
        // off, never read (no fault either).
        *v = unsafe { _mm512_maskz_loadu_ps(load_mask, at) };
    }
    let y = transpose16(x);
    for (q, v) in y.iter().enumerate().take(m) {
        let at = out_col(c + q).wrapping_add(4 * r) as *mut f32;
        // SAFETY: column c+q < c+m, rows r..r+k: inside the tile; lanes past k masked off.
        unsafe { _mm512_mask_storeu_ps(at, store_mask, *v) };
    }
}

/// Transposes the 16 × 16 block of 32-bit lanes in `x` (row q in `x[q]`). Lanes are only
/// moved. Inlined: a call would pass both blocks through memory.
#[target_feature(enable = "avx512f")]
#[inline]
fn transpose16(x: [__m512; 16]) -> [__m512; 16] {
    // pairs of rows interleaved within each 128-bit lane
    let mut t = [_mm512_setzero_ps(); 16];
    for i in 0..8 {
        t[2 * i] = _mm512_unpacklo_ps(x[2 * i], x[2 * i + 1]);
        t[2 * i + 1] = _mm512_unpackhi_ps(x[2 * i], x[2 * i + 1]);
    }
    // u[4i + j], lane L: rows 4i..4i+4 of column 4L + j
    let mut u = [_mm512_setzero_ps(); 16];
    for i in 0..4 {
        u[4 * i] = _mm512_shuffle_ps::<0x44>(t[4 * i], t[4 * i + 2]);
        u[4 * i + 1] = _mm512_shuffle_ps::<0xEE>(t[4 * i], t[4 * i + 2]);
        u[4 * i + 2] = _mm512_shuffle_ps::<0x44>(t[4 * i + 1], t[4 * i + 3]);
        u[4 * i + 3] = _mm512_shuffle_ps::<0xEE>(t[4 * i + 1], t[4 * i + 3]);
    }
    // column 4L + j: lane L of u[j], u[4 + j], u[8 + j], u[12 + j]
    let mut y = [_mm512_setzero_ps(); 16];
    for j in 0..4 {
        let a01 = _mm512_shuffle_f32x4::<0x44>(u[j], u[4 + j]);
        let a23 = _mm512_shuffle_f32x4::<0xEE>(u[j], u[4 + j]);
        let b01 = _mm512_shuffle_f32x4::<0x44>(u[8 + j], u[12 + j]);
        let b23 = _mm512_shuffle_f32x4::<0xEE>(u[8 + j], u[12 + j]);
        y[j] = _mm512_shuffle_f32x4::<0x88>(a01, b01);
        y[4 + j] = _mm512_shuffle_f32x4::<0xDD>(a01, b01);
        y[8 + j] = _mm512_shuffle_f32x4::<0x88>(a23, b23);
        y[12 + j] = _mm512_shuffle_f32x4::<0xDD>(a23, b23);
    }
    y
}

#[cfg(test)]
mod tests {
    use super::*;

    /// [`copy_tile`] against the naive loop: every row and column count around the block
    /// edges (1-40), input rows stepping forwards or backwards (negative strides), output
    /// columns at odd element offsets or 64-byte aligned and streamed.
    #[test]
    fn masked_edges_and_negative_strides_match_the_naive_loop() {
        if !std::arch::is_x86_feature_detected!("avx512f") {
            return;
        }
        let sizes = [1usize, 2, 5, 15, 16, 17, 31, 32, 33, 40];
        for &nr in &sizes {
            for &nc in &sizes {
                for (reversed, stream) in [(false, false), (true, false), (false, true)] {
                    check(nr, nc, reversed, stream);
                }
            }
        }
    }

    fn check(nr: usize, nc: usize, reversed: bool, stream: bool) {
        // input rows of nc + 3 elements; output columns of `ld` elements, 16-aligned when
        // streaming, else one element off
        let in_ld = nc + 3;
        let src: Vec<u32> = (0..nr * in_ld + 8).map(|i| i as u32 + 1).collect();
        let ld = if stream {
            nr.next_multiple_of(16)
        } else {
            nr + 1
        };
        let mut buf = vec![0u32; ld * nc + 32];
        let skip = if stream {
            (buf.as_ptr() as usize).wrapping_neg() % 64 / 4
        } else {
            1
        };
        let dst = buf[skip..].as_mut_ptr() as *mut u8;
        let base = src.as_ptr().wrapping_add(1) as *const u8;
        let row = |r: usize| {
            let r = if reversed { nr - 1 - r } else { r };
            base.wrapping_add(4 * r * in_ld)
        };
        let col = |c: usize| dst.wrapping_add(4 * c * ld);
        // SAFETY: element (r, c) at `row(r) + 4c` lies in `src` (rows of `in_ld` > nc
        // elements from offset 1) and at `col(c) + 4r` in `buf` (columns of `ld` >= nr from
        // `skip` < 17); aligned to 64 bytes when streaming; AVX-512F checked above.
        unsafe { copy_tile(row, col, (nr, nc), stream) };
        super::super::transpose::fence();
        for r in 0..nr {
            for c in 0..nc {
                let from = if reversed { nr - 1 - r } else { r };
                assert_eq!(
                    buf[skip + c * ld + r],
                    src[1 + from * in_ld + c],
                    "{nr}x{nc} reversed {reversed} stream {stream} at ({r}, {c})"
                );
            }
        }
        // nothing past the tile's columns was written
        for c in 0..nc {
            for r in nr..ld {
                assert_eq!(buf[skip + c * ld + r], 0, "{nr}x{nc} wrote ({r}, {c})");
            }
        }
    }
}
