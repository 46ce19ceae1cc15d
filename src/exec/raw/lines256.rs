//! The AVX2 transposing copy shared by the direct tiled walk ([`super::transpose`]) and the
//! permuting copy ([`super::permute`]): `L × L` register transposes of `32 / L`-byte elements
//! (8 × 8 of 4 bytes, 4 × 4 of 8), each input row read a register (32 bytes) per block, each
//! output column written in runs of whole registers.
//!
//! Steps of `B` blocks of `L` rows a strip, staged in registers (or their spills) until the
//! strip's blocks are transposed, so that each output column takes `32·B` contiguous bytes a
//! step: 2 blocks (a 64-byte line) for plain stores, 4 or 8 (2 or 4 lines) for streamed
//! ones. On a 2-core Zen 3, non-temporal stores of one line at a time scattered over the
//! output wrote at half the rate of 2-line runs and a third of 4-line ones (a write-only
//! test: 6.6, 12.8 and 21.7 GB/s). In a scratch harness with the walk's tiles: 4096² float32
//! transposes (rows 16 KiB apart) 10.6-11.6 GB/s with 1-line runs, 11.2-14.7 with 2 and
//! 10.5-13.4 with 4; the NHWC -> NCHW-like 50176 × 64 (rows 256 bytes apart) 7.0-7.9 with 2,
//! 10.3-14.6 with 4, and 12544 × 256 13.1-13.9 against 15.7-23.0: 4 lines where the rows lie
//! close ([`CLOSE_ROWS`]).
//!
//! The edges move at the kernel's pace too. Rows past the last strip go in whole blocks of
//! `L`, the last one overlapping the one before it (some rows copied again: the same values,
//! so the order of the stores does not matter); the columns past the last whole register are
//! blocks with their loads masked ([`edge_block`]: the lanes outside are never read, they may
//! lie outside the tile) and only their columns stored; a tile of fewer than `L` rows or
//! columns takes such blocks throughout ([`narrow`]). Hot in L2 on a 2-core Zen 3 (float32,
//! plain stores), tiles of 14 × 256 ran 2.2-2.5 elements per ns with a masked 6-row block
//! after the first 8 rows and 4.7-5.9 with an overlapping 8-row one; in the
//! permuting copy of (742, 14, 822) by (0, 2, 1) (tiles of 14 rows) that is 7-16% faster,
//! other permutations and the transposes unchanged. An overlapping last *column* step in the
//! strips instead of the masked blocks cost the streamed transposes 10-15% (4096², 2048 ×
//! 8192, 4096 × 2048; same process, builds alternating). Raw memory: see the invariants in
//! [`super`].

#![cfg(target_arch = "x86_64")]

use super::pack::transpose_lanes;
use std::arch::x86_64::*;

/// Input rows at most this far apart (bytes) count as close: their streamed strips take 4-line
/// output runs (module doc).
pub(super) const CLOSE_ROWS: usize = 1024;

/// Copies a tile of `nr × nc` elements of `32 / L` bytes: element `(r, c)` from `in_row(r) +
/// c·size` to `out_col(c) + r·size`. `stream`: whole output registers take non-temporal
/// stores (the caller checked that every `out_col(c)` is 32-byte aligned, and fences
/// afterwards); `close`: the input rows lie close ([`CLOSE_ROWS`]).
///
/// # Safety
/// For every `r < nr`, `c < nc`, both addresses are valid (readable / writable), the two
/// sides do not overlap; the CPU has AVX2.
#[target_feature(enable = "avx2")]
#[inline]
pub(super) unsafe fn copy_tile<const L: usize>(
    in_row: impl Fn(usize) -> *const u8,
    out_col: impl Fn(usize) -> *mut u8,
    (nr, nc): (usize, usize),
    stream: bool,
    close: bool,
) {
    if nr < L || nc < L {
        // SAFETY: as below; blocks of `k` rows and `m` columns inside the tile.
        unsafe { narrow::<L>(&in_row, &out_col, (nr, nc)) };
        return;
    }
    let size = 32 / L;
    let full_c = nc - nc % L;
    // SAFETY: rows and columns inside the tile, as `strips` and `edge_block` want them (the
    // caller's guarantees): the last block of rows starts at `nr - L` >= 0; streamed runs
    // start at `out_col(c) + r·size` with `r·size` a multiple of 32.
    unsafe {
        let wide = match (stream, close) {
            (false, _) => 0,
            (true, true) => strips::<L, 8, _, _>(&in_row, &out_col, (0, nr), full_c, true),
            (true, false) => strips::<L, 4, _, _>(&in_row, &out_col, (0, nr), full_c, true),
        };
        let done = strips::<L, 2, _, _>(&in_row, &out_col, (wide, nr), full_c, stream);
        // the rows left (fewer than `2L`), `L` at a time, the last block ending at `nr`
        // (again over rows done before: the same values, stored plainly)
        let mut r = done;
        while r < nr {
            let at = r.min(nr - L);
            strips::<L, 1, _, _>(&in_row, &out_col, (at, at + L), full_c, false);
            r += L;
        }
        // the last columns (fewer than `L`), in blocks of `L` rows, the last one ending at
        // `nr`: their loads masked, only their columns stored
        if full_c < nc {
            for r in (0..nr).step_by(L).map(|r| r.min(nr - L)) {
                edge_block::<L>(
                    |q| in_row(r + q).wrapping_add(full_c * size),
                    |j| out_col(full_c + j).wrapping_add(r * size),
                    L,
                    (0, nc - full_c),
                );
            }
        }
    }
}

/// [`copy_tile`] of a tile narrower than a register block (`nr < L` or `nc < L`): blocks of
/// `min(nr, L)` rows and `min(nc, L)` columns ([`edge_block`]), the last block of a side at
/// least `L` long ending at its end (overlapping the one before).
///
/// # Safety
/// As for [`copy_tile`].
#[target_feature(enable = "avx2")]
#[inline]
unsafe fn narrow<const L: usize>(
    in_row: &impl Fn(usize) -> *const u8,
    out_col: &impl Fn(usize) -> *mut u8,
    (nr, nc): (usize, usize),
) {
    let size = 32 / L;
    let last = |at: usize, n: usize| if n >= L { at.min(n - L) } else { at };
    for r in (0..nr).step_by(L).map(|r| last(r, nr)) {
        for c in (0..nc).step_by(L).map(|c| last(c, nc)) {
            // SAFETY: rows r..r + min(nr, L), columns c..c + min(nc, L): inside the tile.
            unsafe {
                edge_block::<L>(
                    |q| in_row(r + q).wrapping_add(c * size),
                    |j| out_col(c + j).wrapping_add(r * size),
                    nr.min(L),
                    (0, nc.min(L)),
                )
            };
        }
    }
}

/// Rows `r0..` of [`copy_tile`]'s tile in strips of `B·L` rows (`B <= 8`), columns
/// `0..full_c` (a multiple of `L`) in steps of `L`: each step transposes the strip's `B`
/// blocks, then stores each output column's `B` registers back to back (streamed as `stream`
/// says). Returns the end of the last whole strip.
///
/// # Safety
/// As for [`copy_tile`], for rows `r0..nr` and columns `0..full_c`; streamed, every
/// `out_col(c) + r·size` of a strip is 32-byte aligned.
#[target_feature(enable = "avx2")]
#[inline]
#[allow(clippy::needless_range_loop)] // (a block's lanes go to output columns)
unsafe fn strips<const L: usize, const B: usize, I, O>(
    in_row: &I,
    out_col: &O,
    (r0, nr): (usize, usize),
    full_c: usize,
    stream: bool,
) -> usize
where
    I: Fn(usize) -> *const u8,
    O: Fn(usize) -> *mut u8,
{
    let size = 32 / L;
    let strip = B * L;
    let end = r0 + (nr - r0) / strip * strip;
    let mut row = [std::ptr::null::<u8>(); 64];
    for r in (r0..end).step_by(strip) {
        for (q, p) in row.iter_mut().enumerate().take(strip) {
            *p = in_row(r + q);
        }
        for c in (0..full_c).step_by(L) {
            let mut staged = [[_mm256_setzero_ps(); B]; 8];
            for b in 0..B {
                let mut x = [_mm256_setzero_ps(); 8];
                for q in 0..L {
                    // SAFETY: input row r+bL+q, columns c..c+L: inside the tile.
                    x[q] = unsafe {
                        _mm256_loadu_ps(row[b * L + q].wrapping_add(c * size) as *const f32)
                    };
                }
                let x = transpose_lanes::<L>(x);
                for q in 0..L {
                    staged[q][b] = x[q];
                }
            }
            for (q, regs) in staged.iter().enumerate().take(L) {
                let out = out_col(c + q).wrapping_add(r * size) as *mut f32;
                for (b, &v) in regs.iter().enumerate() {
                    // SAFETY: output column c+q, rows r+bL..r+(b+1)L: inside the tile;
                    // 32-byte aligned when streaming (the caller's).
                    unsafe {
                        if stream {
                            _mm256_stream_ps(out.wrapping_add(8 * b), v)
                        } else {
                            _mm256_storeu_ps(out.wrapping_add(8 * b), v)
                        }
                    };
                }
            }
        }
    }
    end
}

/// Copies a block of `k <= L` input rows and `m` columns of `32 / L`-byte elements whose
/// columns sit at lanes `first..first + m` of a register (`first + m <= L`): element `(q, j)`
/// goes from `in_row(q) + (first + j)·size` to `out_col(j) + q·size`. A block with every row
/// and lane (`k = m = L`) takes whole loads and stores.
///
/// # Safety
/// Those addresses are valid for every `q < k`, `j < m` (readable on the input side, writable
/// on the output side), the two sides do not overlap; the CPU has AVX2. The lanes outside the
/// block are never accessed: `maskload` does not touch masked-off lanes, and the stores write
/// `k` elements.
#[target_feature(enable = "avx2")]
#[inline]
pub(super) unsafe fn edge_block<const L: usize>(
    in_row: impl Fn(usize) -> *const u8,
    out_col: impl Fn(usize) -> *mut u8,
    k: usize,
    (first, m): (usize, usize),
) {
    let size = 32 / L;
    debug_assert!(k <= L && first + m <= L, "an edge block inside a register");
    // the 4-byte lanes of bytes `first·size .. (first + m)·size`
    let (lo, hi) = (first * size, (first + m) * size);
    let lane = |i: usize| if (lo..hi).contains(&(4 * i)) { -1 } else { 0 };
    let mask = _mm256_setr_epi32(
        lane(0),
        lane(1),
        lane(2),
        lane(3),
        lane(4),
        lane(5),
        lane(6),
        lane(7),
    );
    // a fixed count of rows keeps the block in registers
    let mut x = [_mm256_setzero_ps(); 8];
    for (q, v) in x.iter_mut().enumerate().take(L) {
        if q < k {
            let at = in_row(q) as *const f32;
            // SAFETY: row q < k; the lanes loaded are the block's columns (the caller's
            // guarantees), all of them when `m = L`.
            *v = unsafe {
                if m == L {
                    _mm256_loadu_ps(at)
                } else {
                    _mm256_maskload_ps(at, mask)
                }
            };
        }
    }
    let x = transpose_lanes::<L>(x);
    for j in 0..m {
        // SAFETY: column j < m, rows 0..k: `k·size` bytes from `out_col(j)`.
        unsafe { store_first(out_col(j), x[first + j], k * size) };
    }
}

/// Stores the first `bytes` (a multiple of 4, at most 32) of `v` at `at`, in at most three
/// plain stores (masked stores are slow on AMD's cores before Zen 4).
///
/// # Safety
/// `bytes` writable at `at`; the CPU has AVX2.
#[target_feature(enable = "avx2")]
#[inline]
pub(super) unsafe fn store_first(at: *mut u8, v: __m256, bytes: usize) {
    if bytes == 32 {
        // SAFETY: 32 bytes writable at `at` (the caller's).
        unsafe { _mm256_storeu_ps(at as *mut f32, v) };
        return;
    }
    let (mut part, mut at, mut left) = (_mm256_castps256_ps128(v), at, bytes);
    // SAFETY: each store writes the next 16, 8 or 4 of the `bytes` at `at` (the caller's).
    unsafe {
        if left >= 16 {
            _mm_storeu_ps(at as *mut f32, part);
            part = _mm256_extractf128_ps::<1>(v);
            at = at.add(16);
            left -= 16;
        }
        if left >= 8 {
            _mm_storel_epi64(at as *mut __m128i, _mm_castps_si128(part));
            part = _mm_movehl_ps(part, part);
            at = at.add(8);
            left -= 8;
        }
        if left >= 4 {
            _mm_store_ss(at as *mut f32, part);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every block shape of both lane counts, columns at any lanes: the block's elements land
    /// transposed and nothing around them is read into the output or written.
    #[test]
    fn edge_blocks_copy_exactly_their_elements() {
        if !crate::exec::cpu::test_runs("avx2", is_x86_feature_detected!("avx2")) {
            return;
        }
        for l in [8usize, 4] {
            let size = 32 / l;
            // input: 8 rows of 8 lanes (32 bytes) each, 40 bytes apart, bytes numbered
            let input: Vec<u8> = (0..8 * 40 + 32).map(|i| (i % 251) as u8 + 1).collect();
            for k in 1..=l {
                for first in 0..l {
                    for m in 1..=l - first {
                        // output: m columns 48 bytes apart, zeroed
                        let mut out = vec![0u8; 8 * 48 + 32];
                        let (src, dst) = (input.as_ptr(), out.as_mut_ptr());
                        // SAFETY: rows q < k at `src + 40q` (32 bytes each) inside `input`;
                        // columns j < m at `dst + 48j` (k·size <= 32 bytes) inside `out`.
                        unsafe {
                            if l == 8 {
                                edge_block::<8>(
                                    |q| src.add(40 * q),
                                    |j| dst.add(48 * j),
                                    k,
                                    (first, m),
                                )
                            } else {
                                edge_block::<4>(
                                    |q| src.add(40 * q),
                                    |j| dst.add(48 * j),
                                    k,
                                    (first, m),
                                )
                            }
                        }
                        let mut want = vec![0u8; out.len()];
                        for j in 0..m {
                            for q in 0..k {
                                let from = 40 * q + (first + j) * size;
                                let to = 48 * j + q * size;
                                want[to..to + size].copy_from_slice(&input[from..from + size]);
                            }
                        }
                        assert_eq!(out, want, "L {l}, {k} rows, lanes {first}..{}", first + m);
                    }
                }
            }
        }
    }

    /// Whole tiles of every edge case (narrow tiles, rows and columns past a multiple of a
    /// block, strips of every kind, streamed or not) against an element loop, the bytes
    /// between output columns untouched.
    #[test]
    fn tiles_copy_every_element_once_in_place() {
        if !crate::exec::cpu::test_runs("avx2", is_x86_feature_detected!("avx2")) {
            return;
        }
        let mut sides: Vec<usize> = (1..=20).collect();
        sides.extend([23, 31, 32, 33, 47, 48, 49, 63, 64, 65, 70, 129]);
        for l in [8usize, 4] {
            let size = 32 / l;
            for &nr in &sides {
                for &nc in sides.iter().filter(|&&c| c <= 40) {
                    for (stream, close) in [(false, false), (true, true), (true, false)] {
                        // input rows 8 bytes past their elements; output columns 32-byte
                        // aligned, a 32-byte gap after each
                        let row = nc * size + 8;
                        let col = (nr * size).div_ceil(32) * 32 + 32;
                        let input: Vec<u8> = (0..nr * row).map(|i| (i % 251) as u8 + 1).collect();
                        let mut out = vec![0u8; nc * col + 32];
                        let skew = out.as_ptr().align_offset(32);
                        let (src, dst) = (input.as_ptr(), out[skew..].as_mut_ptr());
                        // SAFETY: row r at `src + r·row` holds `nc·size` bytes of `input`;
                        // column c at `dst + c·col` holds `nr·size` bytes of `out`, 32-byte
                        // aligned; the two buffers are separate; AVX2 checked.
                        unsafe {
                            let (i, o) = (|r| src.add(r * row), |c| dst.add(c * col));
                            if l == 8 {
                                copy_tile::<8>(i, o, (nr, nc), stream, close)
                            } else {
                                copy_tile::<4>(i, o, (nr, nc), stream, close)
                            }
                            _mm_sfence();
                        }
                        let mut want = vec![0u8; out.len()];
                        for c in 0..nc {
                            for r in 0..nr {
                                let (from, to) = (r * row + c * size, skew + c * col + r * size);
                                want[to..to + size].copy_from_slice(&input[from..from + size]);
                            }
                        }
                        assert_eq!(
                            out, want,
                            "L {l}, {nr} x {nc}, stream {stream}, close {close}"
                        );
                    }
                }
            }
        }
    }
}
