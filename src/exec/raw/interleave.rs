//! The permuting copy's tiles of 2 to [`MAX_WAYS`] rows or columns of 1-, 2-, 4- or 8-byte
//! elements with AVX-512 ([`super::permute`]; the lane permutes of 2-byte elements need
//! AVX-512BW, of bytes VBMI: `cpu::avx512_permutes`): NCHW <-> NHWC of an RGB or RGBA image,
//! a (3, N) transpose.
//! The 16 × 16 register transpose of `lines512` pays for a whole block to move a few rows of
//! it: a tile of 3 rows ran NCHW -> NHWC of 3 channels at 13 GB/s on the 2-core Zen 4, bound
//! by its shuffles. Here the short side's 16-element vectors are merged straight into the
//! long side's runs, each output lane taken from its input vector by one masked permute per
//! vector pair: `k²` permutes per `16k` elements for `k` ways, against a transpose's 64
//! shuffles and 16 stores per block of any `k`.
//!
//! - **interleave**: `k` input rows (any addresses) into an output where the tile is one run,
//!   element `(r, c)` at `w(c·k + r)` for `w`-byte elements (NCHW -> NHWC: the channels of a
//!   pixel side by side);
//! - **deinterleave**: an input where the tile is one run, element `(r, c)` at `w(r·k + c)`,
//!   into `k` output columns (any addresses; NHWC -> NCHW).
//!
//! Whole output lines are streamed where asked and aligned. Raw memory: see the invariants
//! in [`super`].

#![cfg(target_arch = "x86_64")]

use crate::exec::permute::MAX_WAYS;

/// Interleaves `k` rows (`2 <= k <= MAX_WAYS`) of `n` elements of `width` bytes: element
/// `(r, c)` from `rows[r] + width·c` to `out + width·(c·k + r)`; whole 64-byte output vectors
/// streamed when `stream` (the caller checked `out` 64-byte aligned, and fences afterwards).
/// The lines of the next tile's rows (`next[r] + width·c`, any addresses: only prefetched)
/// are asked for as this tile's are read: rows of a few lines each, a few per tile, leave
/// the hardware prefetchers too little to follow (3 × 128 float32 tiles 1.3-1.8x with it,
/// 2-core Zen 4).
///
/// # Safety
/// Those addresses are valid for `width` bytes for every `r < k`, `c < n` (readable,
/// writable), the two sides do not overlap; `cpu::avx512_permutes(width)` holds.
pub(super) unsafe fn interleave(
    width: usize,
    rows: &[*const u8; MAX_WAYS],
    k: usize,
    n: usize,
    out: *mut u8,
    stream: bool,
    next: &[*const u8; MAX_WAYS],
) {
    debug_assert!((2..=MAX_WAYS).contains(&k));
    // SAFETY: the caller's guarantees, which each width's kernel states.
    unsafe {
        match width {
            1 => bytes::interleave(rows, k, n, out, stream, next),
            2 => halves::interleave(rows, k, n, out, stream, next),
            4 => words::interleave(rows, k, n, out, stream, next),
            8 => doubles::interleave(rows, k, n, out, stream, next),
            _ => unreachable!("no lane permutes of {width}-byte elements"),
        }
    }
}

/// Deinterleaves `n` rows of `k` elements of `width` bytes (`2 <= k <= MAX_WAYS`): element
/// `(r, c)` from `inp + width·(r·k + c)` to `cols[c] + width·r`; whole 64-byte output
/// vectors streamed when `stream` (the caller checked every `cols[c]` 64-byte aligned, and
/// fences afterwards).
///
/// # Safety
/// Those addresses are valid for `width` bytes for every `r < n`, `c < k` (readable,
/// writable), the two sides do not overlap; `cpu::avx512_permutes(width)` holds.
pub(super) unsafe fn deinterleave(
    width: usize,
    inp: *const u8,
    k: usize,
    n: usize,
    cols: &[*mut u8; MAX_WAYS],
    stream: bool,
) {
    debug_assert!((2..=MAX_WAYS).contains(&k));
    // SAFETY: the caller's guarantees, which each width's kernel states.
    unsafe {
        match width {
            1 => bytes::deinterleave(inp, k, n, cols, stream),
            2 => halves::deinterleave(inp, k, n, cols, stream),
            4 => words::deinterleave(inp, k, n, cols, stream),
            8 => doubles::deinterleave(inp, k, n, cols, stream),
            _ => unreachable!("no lane permutes of {width}-byte elements"),
        }
    }
}

/// The two kernels for one element width: `$lanes` elements of `$int` per 64-byte vector,
/// masks of `$mask`, AVX-512's masked load, lane permute and masked store of that width
/// (enabled by `$features`).
macro_rules! width {
    ($name:ident, $features:literal, $int:ty, $lanes:literal, $mask:ty,
     $load:ident, $permute:ident, $store:ident) => {
        mod $name {
            use super::MAX_WAYS;
            use std::arch::x86_64::*;

            const L: usize = $lanes;
            const W: usize = 64 / L;

            /// A mask of the first `n` lanes (`n <= L`).
            fn first(n: usize) -> $mask {
                if n >= L {
                    <$mask>::MAX
                } else {
                    ((1u64 << n) - 1) as $mask
                }
            }

            /// For `k` ways (entry `k` of [`INTERLEAVE`] or [`DEINTERLEAVE`]): lane `l` of
            /// output vector `v` is lane `index[v][l]` of the source vector whose `mask[v]`
            /// has bit `l`.
            struct Table {
                index: [[$int; L]; MAX_WAYS],
                mask: [[$mask; MAX_WAYS]; MAX_WAYS],
            }

            const EMPTY: Table = Table {
                index: [[0; L]; MAX_WAYS],
                mask: [[0; MAX_WAYS]; MAX_WAYS],
            };

            /// The tables for 2 to `MAX_WAYS` ways, made at compile time: a tile of a few
            /// columns (5 × 76 float32) is too short to pay for making them (it did, at 8.7
            /// GB/s against 19-22 through the register transposes, 2-core Zen 4).
            /// Interleaving, output lane `L·v + l` is column `(L·v + l) / k` of row
            /// `(L·v + l) % k`; deinterleaving, column `v`'s lane `l` is input element
            /// `l·k + v`, lane `(l·k + v) % L` of vector `(l·k + v) / L`.
            const fn tables(interleaving: bool) -> [Table; MAX_WAYS + 1] {
                let mut all = [EMPTY; MAX_WAYS + 1];
                let mut k = 2;
                while k <= MAX_WAYS {
                    let mut v = 0;
                    while v < k {
                        let mut l = 0;
                        while l < L {
                            let (src, at) = if interleaving {
                                ((L * v + l) % k, (L * v + l) / k)
                            } else {
                                ((l * k + v) / L, (l * k + v) % L)
                            };
                            all[k].index[v][l] = at as $int;
                            all[k].mask[v][src] |= (1 as $mask) << l;
                            l += 1;
                        }
                        v += 1;
                    }
                    k += 1;
                }
                all
            }

            static INTERLEAVE: [Table; MAX_WAYS + 1] = tables(true);
            static DEINTERLEAVE: [Table; MAX_WAYS + 1] = tables(false);

            /// A table's index vectors in registers, for one tile.
            struct Lanes {
                index: [__m512i; MAX_WAYS],
                mask: &'static [[$mask; MAX_WAYS]; MAX_WAYS],
            }

            impl Lanes {
                #[target_feature(enable = $features)]
                fn new(k: usize, table: &'static Table) -> Lanes {
                    let mut index = [_mm512_setzero_si512(); MAX_WAYS];
                    for (slot, lanes) in index.iter_mut().zip(&table.index).take(k) {
                        // SAFETY: `lanes` is 64 readable bytes.
                        *slot = unsafe { _mm512_loadu_si512(lanes.as_ptr() as *const _) };
                    }
                    Lanes {
                        index,
                        mask: &table.mask,
                    }
                }

                /// Output vector `v` from the `k` source vectors `x`.
                #[target_feature(enable = $features)]
                #[inline]
                fn merge(&self, v: usize, x: &[__m512i; MAX_WAYS], k: usize) -> __m512i {
                    let mut out = _mm512_setzero_si512();
                    for (src, &lanes) in x.iter().zip(&self.mask[v]).take(k) {
                        out = $permute(out, lanes, self.index[v], *src);
                    }
                    out
                }
            }

            /// [`super::interleave`] for this width, the rows' starts in `rows[..k]`.
            ///
            /// # Safety
            /// As there.
            #[target_feature(enable = $features)]
            pub(super) unsafe fn interleave(
                rows: &[*const u8; MAX_WAYS],
                k: usize,
                n: usize,
                out: *mut u8,
                stream: bool,
                next: &[*const u8; MAX_WAYS],
            ) {
                let lanes = Lanes::new(k, &INTERLEAVE[k]);
                let mut x = [_mm512_setzero_si512(); MAX_WAYS];
                let mut c = 0;
                while c < n {
                    let m = (n - c).min(L);
                    for &ahead in next.iter().take(k) {
                        _mm_prefetch::<_MM_HINT_T0>(ahead.wrapping_add(W * c) as *const i8);
                    }
                    for (v, &r) in x.iter_mut().zip(rows).take(k) {
                        // SAFETY: row r, columns c..c+m (lanes past m masked off, never
                        // accessed).
                        *v = unsafe { $load(first(m), r.wrapping_add(W * c) as *const _) };
                    }
                    // the strip's `m·k` output elements, L per vector
                    let at = out.wrapping_add(W * c * k);
                    for v in 0..(m * k).div_ceil(L) {
                        let y = lanes.merge(v, &x, k);
                        let left = m * k - L * v;
                        let to = at.wrapping_add(64 * v);
                        // SAFETY: output elements c·k + Lv .. + min(L, left): columns
                        // c..c+m of the tile; `to` is 64-byte aligned when streaming (`out`
                        // is, and 64k divides W·L·k).
                        unsafe {
                            if left >= L && stream {
                                _mm512_stream_si512(to as *mut _, y);
                            } else {
                                $store(to as *mut _, first(left), y);
                            }
                        }
                    }
                    c += m;
                }
            }

            /// [`super::deinterleave`] for this width, the columns' starts in `cols[..k]`.
            ///
            /// # Safety
            /// As there.
            #[target_feature(enable = $features)]
            pub(super) unsafe fn deinterleave(
                inp: *const u8,
                k: usize,
                n: usize,
                cols: &[*mut u8; MAX_WAYS],
                stream: bool,
            ) {
                let lanes = Lanes::new(k, &DEINTERLEAVE[k]);
                let mut x = [_mm512_setzero_si512(); MAX_WAYS];
                let mut r = 0;
                while r < n {
                    let m = (n - r).min(L);
                    // the strip's `m·k` input elements, L per vector
                    let from = inp.wrapping_add(W * r * k);
                    for (v, slot) in x.iter_mut().enumerate().take((m * k).div_ceil(L)) {
                        let (left, at) = (m * k - L * v, from.wrapping_add(64 * v));
                        // SAFETY: input elements r·k + Lv .. + min(L, left): rows r..r+m of
                        // the tile (lanes past them masked off, never accessed).
                        *slot = unsafe { $load(first(left), at as *const _) };
                    }
                    for (c, &to) in cols.iter().enumerate().take(k) {
                        let y = lanes.merge(c, &x, k);
                        let at = to.wrapping_add(W * r);
                        // SAFETY: column c, rows r..r+m of the tile; `at` is 64-byte aligned
                        // when streaming (`cols[c]` is, and W·r is a multiple of 64).
                        unsafe {
                            if m == L && stream {
                                _mm512_stream_si512(at as *mut _, y);
                            } else {
                                $store(at as *mut _, first(m), y);
                            }
                        }
                    }
                    r += m;
                }
            }
        }
    };
}

width!(
    bytes,
    "avx512f,avx512bw,avx512vbmi",
    i8,
    64,
    u64,
    _mm512_maskz_loadu_epi8,
    _mm512_mask_permutexvar_epi8,
    _mm512_mask_storeu_epi8
);
width!(
    halves,
    "avx512f,avx512bw",
    i16,
    32,
    u32,
    _mm512_maskz_loadu_epi16,
    _mm512_mask_permutexvar_epi16,
    _mm512_mask_storeu_epi16
);
width!(
    words,
    "avx512f",
    i32,
    16,
    u16,
    _mm512_maskz_loadu_epi32,
    _mm512_mask_permutexvar_epi32,
    _mm512_mask_storeu_epi32
);
width!(
    doubles,
    "avx512f",
    i64,
    8,
    u8,
    _mm512_maskz_loadu_epi64,
    _mm512_mask_permutexvar_epi64,
    _mm512_mask_storeu_epi64
);
