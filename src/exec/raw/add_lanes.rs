//! Whole blocks of a plain float sum (`f32` or `f64` read and accumulated, combined by IEEE
//! addition) in explicit AVX2 or AVX-512 registers, several blocks side by side.
//!
//! One block's 16 lanes are two (`f32`) or four (`f64`) vector registers, so the generic lane
//! loop is a chain of dependent additions whose latency sets the pace (about 20 bytes per
//! cycle on this machine's cores, not much above the memory's rate, far below the cache's).
//! Several blocks side by side give independent chains. The blocks of one call lie
//! [`Spacing::gap`] apart: consecutive blocks of one run, or the same block of four units
//! (chunks, rows) far apart, which the memory serves as four streams (see
//! `reduce::units_side_by_side`). Each lane still takes its block's elements `l`, `l + 16`, …
//! in order from the reducer's identity, and the lanes are combined by the same tree, so each
//! block sum has the generic loop's bits (LLVM's vectorizer, asked for the same interleaving
//! in generic code, spilled the lanes to the stack; and the tree, done on the registers'
//! halves, costs a few instructions instead of sixty scalar ones). Consecutive blocks side by
//! side are separate streams a few KB long, shorter than the hardware prefetchers take to
//! lock on: their loops prefetch the next call's blocks ([`Spacing::ahead`]; a hint, which
//! never faults, even past the input's end). Raw memory: see the invariants in [`super`].

#[cfg(target_arch = "x86_64")]
use super::prefetch_line;
use super::reduce::{BLOCK, LANES};
#[cfg(target_arch = "x86_64")]
use std::mem::size_of;

/// Blocks side by side per call for an input the cache holds (consecutive blocks): eight
/// vector registers of lanes.
pub(super) const F32_BLOCKS: usize = 4;
/// As [`F32_BLOCKS`], for `f64`.
pub(super) const F64_BLOCKS: usize = 2;

/// Where the `K` blocks of one call lie: block `k` at `q + k·gap` elements; with `ahead`, the
/// loops prefetch that many elements past what they read (the next call's blocks).
#[derive(Debug, Clone, Copy)]
pub(super) struct Spacing {
    pub gap: isize,
    // (only the x86-64 loops prefetch)
    #[cfg_attr(not(target_arch = "x86_64"), allow(dead_code))]
    pub ahead: Option<isize>,
}

/// The sums of `K` whole blocks at `q` spaced by `at`: each lane starts from `identity` and
/// adds its elements in order, then the lanes are combined by the lane tree (lane i with lane
/// i + 8, then + 4, + 2, + 1: the halves of the registers), as the generic loop does.
///
/// # Safety
/// Each block (`q + k·at.gap`, `k < K`) must address `BLOCK` readable, aligned `f32`s, and
/// the CPU must have AVX2.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
pub(super) unsafe fn f32_blocks<const K: usize>(
    q: *const f32,
    at: Spacing,
    identity: f32,
) -> [f32; K] {
    use std::arch::x86_64::*;
    let mut acc = [[_mm256_set1_ps(identity); 2]; K];
    for g in 0..BLOCK / LANES {
        for (k, pair) in acc.iter_mut().enumerate() {
            let p = q.wrapping_offset(k as isize * at.gap + (g * LANES) as isize);
            prefetch_at(p, at.ahead);
            // SAFETY: block k's elements 16g .. 16g + 16 (the caller's range).
            unsafe {
                pair[0] = _mm256_add_ps(pair[0], _mm256_loadu_ps(p));
                pair[1] = _mm256_add_ps(pair[1], _mm256_loadu_ps(p.add(8)));
            }
        }
    }
    // lanes 0-7 and 8-15 (pair[0], pair[1]) → 8, then the rest of the tree
    acc.map(|pair| tree8_ps(_mm256_add_ps(pair[0], pair[1])))
}

/// [`f32_blocks`] with each block's 16 lanes in one AVX-512 register, read in aligned
/// vectors: the same additions in the same order per lane, and the same tree.
///
/// numpy's buffers are 16-byte aligned, and a 64-byte load from such an address straddles two
/// cache lines (0.8x the speed from the cache). So the loads start at the line `m` elements
/// before the block: lane `l` sits at register position `(l + m) mod 16`, in the same order;
/// the first vector's lanes before the block and the last one's after it are masked off (not
/// read: a masked load does not touch them), and the register is rotated back by `m` before
/// the tree. (The tree, lane i with i + 8, then + 4, + 2, + 1, gives the same sum of any
/// rotation of the lanes but for the operand order of some additions, which shows only in
/// the payload of a NaN plus another NaN: the rotation keeps those bits too.)
///
/// # Safety
/// As for [`f32_blocks`], with `at.gap` a multiple of 16 (every block as far from a line as
/// the first), and the CPU must have AVX-512F.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx512f,avx2")]
pub(super) unsafe fn f32_blocks_avx512<const K: usize>(
    q: *const f32,
    at: Spacing,
    identity: f32,
) -> [f32; K] {
    use std::arch::x86_64::*;
    let m = (q as usize / 4) % LANES;
    let line = q.wrapping_sub(m);
    let block = |k: usize| line.wrapping_offset(k as isize * at.gap);
    // positions m.. of the first vector, ..m of the one past the block's 64th
    let (head, tail) = ((0xFFFFu32 << m) as u16, ((1u32 << m) - 1) as u16);
    let mut acc = [_mm512_set1_ps(identity); K];
    for (k, a) in acc.iter_mut().enumerate() {
        // SAFETY: the head lanes are the block's first 16 - m elements.
        *a = unsafe { _mm512_mask_add_ps(*a, head, *a, _mm512_maskz_loadu_ps(head, block(k))) };
    }
    for g in 1..BLOCK / LANES {
        for (k, a) in acc.iter_mut().enumerate() {
            let p = block(k).wrapping_add(g * LANES);
            prefetch_at(p, at.ahead);
            // SAFETY: block k's elements 16g - m .. 16g - m + 16, inside 0..BLOCK for
            // 1 ≤ g < BLOCK/16; `line` is 64-byte aligned, and so is every block's start
            // (`at.gap` a multiple of 16).
            *a = unsafe { _mm512_add_ps(*a, _mm512_load_ps(p)) };
        }
    }
    for (k, a) in acc.iter_mut().enumerate() {
        // SAFETY: the tail lanes are the block's last m elements.
        *a = unsafe {
            let last = _mm512_maskz_loadu_ps(tail, block(k).wrapping_add(BLOCK));
            _mm512_mask_add_ps(*a, tail, *a, last)
        };
    }
    // lane l back to position l: position (l + m) mod 16
    let turn = _mm512_and_si512(
        _mm512_add_epi32(
            _mm512_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15),
            _mm512_set1_epi32(m as i32),
        ),
        _mm512_set1_epi32(15),
    );
    acc.map(|a| {
        let a = _mm512_permutexvar_ps(turn, a);
        // lanes 0-7 and 8-15 → 8, then the rest of the tree
        let lo = _mm512_castps512_ps256(a);
        let hi = _mm256_castpd_ps(_mm512_extractf64x4_pd::<1>(_mm512_castps_pd(a)));
        tree8_ps(_mm256_add_ps(lo, hi))
    })
}

/// As [`f32_blocks`], for `f64`s.
///
/// # Safety
/// As for [`f32_blocks`], with `f64`s.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
pub(super) unsafe fn f64_blocks<const K: usize>(
    q: *const f64,
    at: Spacing,
    identity: f64,
) -> [f64; K] {
    use std::arch::x86_64::*;
    let mut acc = [[_mm256_set1_pd(identity); 4]; K];
    for g in 0..BLOCK / LANES {
        for (k, quad) in acc.iter_mut().enumerate() {
            let p = q.wrapping_offset(k as isize * at.gap + (g * LANES) as isize);
            prefetch_at(p, at.ahead);
            prefetch_at(p.wrapping_add(8), at.ahead);
            for (j, a) in quad.iter_mut().enumerate() {
                // SAFETY: block k's elements 16g .. 16g + 16 (the caller's range).
                *a = unsafe { _mm256_add_pd(*a, _mm256_loadu_pd(p.add(4 * j))) };
            }
        }
    }
    // lanes 0-3, 4-7, 8-11, 12-15 → 8 → 4 → 2 → 1
    acc.map(|quad| {
        let (lo, hi) = (
            _mm256_add_pd(quad[0], quad[2]),
            _mm256_add_pd(quad[1], quad[3]),
        );
        tree4_pd(_mm256_add_pd(lo, hi))
    })
}

/// [`f64_blocks`] with each block's 16 lanes in two AVX-512 registers, read in aligned
/// vectors as [`f32_blocks_avx512`] does: lane `l` at position `(l + m) mod 16` of the pair
/// (a vector at an even position in the block's stream of lines goes to the first register),
/// rotated back across the two registers before the tree.
///
/// # Safety
/// As for [`f64_blocks`], with `at.gap` a multiple of 8, and the CPU must have AVX-512F.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx512f,avx2")]
pub(super) unsafe fn f64_blocks_avx512<const K: usize>(
    q: *const f64,
    at: Spacing,
    identity: f64,
) -> [f64; K] {
    use std::arch::x86_64::*;
    const HALF: usize = LANES / 2;
    let m = (q as usize / 8) % HALF;
    let line = q.wrapping_sub(m);
    let block = |k: usize| line.wrapping_offset(k as isize * at.gap);
    let (head, tail) = ((0xFFu32 << m) as u8, ((1u32 << m) - 1) as u8);
    let mut acc = [[_mm512_set1_pd(identity); 2]; K];
    for (k, pair) in acc.iter_mut().enumerate() {
        // SAFETY: the head lanes are the block's first 8 - m elements.
        pair[0] = unsafe {
            let first = _mm512_maskz_loadu_pd(head, block(k));
            _mm512_mask_add_pd(pair[0], head, pair[0], first)
        };
    }
    // vectors 1, 2, ..., BLOCK/8 - 1 of the stream: odd ones to the second register
    for g in 0..BLOCK / LANES - 1 {
        for (k, pair) in acc.iter_mut().enumerate() {
            let p = block(k).wrapping_add(g * LANES + HALF);
            prefetch_at(p, at.ahead);
            prefetch_at(p.wrapping_add(HALF), at.ahead);
            // SAFETY: block k's elements 16g + 8 - m .. 16g + 24 - m, inside 0..BLOCK for
            // g < BLOCK/16 - 1; every block's line is 64-byte aligned (`at.gap` a multiple
            // of 8).
            unsafe {
                pair[1] = _mm512_add_pd(pair[1], _mm512_load_pd(p));
                pair[0] = _mm512_add_pd(pair[0], _mm512_load_pd(p.add(HALF)));
            }
        }
    }
    for (k, pair) in acc.iter_mut().enumerate() {
        // SAFETY: block k's elements BLOCK - 8 - m .. BLOCK - m; its line is aligned.
        let x = unsafe { _mm512_load_pd(block(k).wrapping_add(BLOCK - HALF)) };
        pair[1] = _mm512_add_pd(pair[1], x);
    }
    for (k, pair) in acc.iter_mut().enumerate() {
        // SAFETY: the tail lanes are the block's last m elements (the stream's vector
        // BLOCK/8, at an even position).
        pair[0] = unsafe {
            let last = _mm512_maskz_loadu_pd(tail, block(k).wrapping_add(BLOCK));
            _mm512_mask_add_pd(pair[0], tail, pair[0], last)
        };
    }
    // lane l back to position l: position (l + m) mod 16 of the pair (bit 3 picks the register)
    let iota = _mm512_setr_epi64(0, 1, 2, 3, 4, 5, 6, 7);
    let shift = _mm512_set1_epi64(m as i64);
    let fifteen = _mm512_set1_epi64(15);
    let turn_lo = _mm512_and_si512(_mm512_add_epi64(iota, shift), fifteen);
    let turn_hi = _mm512_and_si512(
        _mm512_add_epi64(_mm512_add_epi64(iota, _mm512_set1_epi64(8)), shift),
        fifteen,
    );
    acc.map(|pair| {
        let lo = _mm512_permutex2var_pd(pair[0], turn_lo, pair[1]);
        let hi = _mm512_permutex2var_pd(pair[0], turn_hi, pair[1]);
        // lanes i + 8 (the two registers), then + 4, then the rest of the tree
        let x = _mm512_add_pd(lo, hi);
        tree4_pd(_mm256_add_pd(
            _mm512_castpd512_pd256(x),
            _mm512_extractf64x4_pd::<1>(x),
        ))
    })
}

/// `acc[j] = (((acc[j] + r0[j]) + r1[j]) + r2[j]) + r3[j]` for `j < w`, with `rows` = [r0,
/// r1, r2, r3]: the outer-dim path's 4 rows into one lane row, the generic loop's additions in
/// its order. (The generic loop checks at run time whether the lane row overlaps the rows,
/// which on a narrow tile, such as a channels_last image's 64 channels, costs as much as the
/// additions.) With `ahead` (bytes), each line of the rows that far on is prefetched: the 64
/// rows of a step are read as four streams 4 KB apart, out of memory order, which the
/// hardware prefetchers follow poorly where rows are short.
///
/// # Safety
/// `acc` must address `w` writable `f32`s, each of `rows` `w` readable ones, none of them
/// overlapping `acc`, all aligned; the CPU must have AVX2.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
pub(super) unsafe fn f32_rows4(
    acc: *mut f32,
    rows: [*const f32; 4],
    w: usize,
    ahead: Option<isize>,
) {
    use std::arch::x86_64::{_mm256_add_ps, _mm256_loadu_ps, _mm256_storeu_ps};
    let mut j = 0;
    while j + 8 <= w {
        if (j * size_of::<f32>()).is_multiple_of(64) {
            for r in rows {
                prefetch_at(r.wrapping_add(j), ahead);
            }
        }
        // SAFETY: j + 8 <= w.
        unsafe {
            let mut a = _mm256_loadu_ps(acc.add(j));
            for r in rows {
                a = _mm256_add_ps(a, _mm256_loadu_ps(r.add(j)));
            }
            _mm256_storeu_ps(acc.add(j), a);
        }
        j += 8;
    }
    while j < w {
        // SAFETY: j < w.
        unsafe {
            let mut a = acc.add(j).read();
            for r in rows {
                a += r.add(j).read();
            }
            acc.add(j).write(a);
        }
        j += 1;
    }
}

/// As [`f32_rows4`], for `f64`s.
///
/// # Safety
/// As for [`f32_rows4`], with `f64`s.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
pub(super) unsafe fn f64_rows4(
    acc: *mut f64,
    rows: [*const f64; 4],
    w: usize,
    ahead: Option<isize>,
) {
    use std::arch::x86_64::{_mm256_add_pd, _mm256_loadu_pd, _mm256_storeu_pd};
    let mut j = 0;
    while j + 4 <= w {
        if (j * size_of::<f64>()).is_multiple_of(64) {
            for r in rows {
                prefetch_at(r.wrapping_add(j), ahead);
            }
        }
        // SAFETY: j + 4 <= w.
        unsafe {
            let mut a = _mm256_loadu_pd(acc.add(j));
            for r in rows {
                a = _mm256_add_pd(a, _mm256_loadu_pd(r.add(j)));
            }
            _mm256_storeu_pd(acc.add(j), a);
        }
        j += 4;
    }
    while j < w {
        // SAFETY: j < w.
        unsafe {
            let mut a = acc.add(j).read();
            for r in rows {
                a += r.add(j).read();
            }
            acc.add(j).write(a);
        }
        j += 1;
    }
}

/// Columns per pass of [`f32_block_columns`]: one AVX-512 register.
pub(super) const COLUMN_GROUP: usize = 16;

/// Bytes of rows per panel of [`f32_block_columns`]: half an L1, which then also holds the
/// lanes of up to [`BLOCK_COLUMN_GROUPS`] groups.
const BLOCK_PANEL_BYTES: usize = 16 << 10;

/// Column groups [`f32_block_columns`] carries through a block at once (their lanes, 16 KiB
/// at most, on the stack); wider tiles take several turns.
#[cfg(target_arch = "x86_64")]
const BLOCK_COLUMN_GROUPS: usize = 16;

/// Rows per panel of [`f32_block_columns`] for rows `stride` bytes apart: the most (a power of
/// two, so that panels tile the block) whose rows take [`BLOCK_PANEL_BYTES`], at least 16.
pub(super) fn block_panel_rows(stride: isize) -> usize {
    let fit = BLOCK_PANEL_BYTES / stride.unsigned_abs().max(1);
    let rows = if fit == 0 { 1 } else { 1 << fit.ilog2() };
    rows.clamp(LANES, BLOCK)
}

/// The sums of `w` columns (a multiple of [`COLUMN_GROUP`]) over one whole block of `BLOCK`
/// rows, row `k` at `row0 + k·stride` bytes, into `sums[..w]`. Per 16-column group the 16
/// lanes are 16 registers: lane `l` adds rows `l`, `l + 16`, … in order from `identity`, then
/// the lanes are combined by the lane tree (lane i with lane i + 8, then + 4, + 2, + 1), the
/// generic outer-dim loop's additions in its order, so its bits. That loop keeps the lanes
/// in memory (a load and a store of accumulators per 4 rows) and reads 64 rows as four
/// streams 4 KB apart. Here the block is read in panels of 16 KiB of rows
/// ([`block_panel_rows`]): each group's pass adds the panel's rows into its lanes, loaded
/// from and stored back to the stack once a panel, and the passes after the first read the
/// panel from L1. Passes over the whole block (256 KiB of 256-byte rows, from L2 after the
/// first) summed (4, 64, 56, 56) channels_last float32 over H, W at 43 GB/s; in panels 50
/// (torch 48-52), on the 2-core Zen 4 at 1 thread, the same process alternating.
///
/// # Safety
/// Each of the `BLOCK` rows must address `w` readable, aligned `f32`s; `sums` must address
/// `w` writable ones that no row overlaps; the CPU must have AVX-512F.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx512f")]
pub(super) unsafe fn f32_block_columns(
    row0: *const u8,
    stride: isize,
    w: usize,
    identity: f32,
    sums: *mut f32,
) {
    use std::arch::x86_64::{_mm512_add_ps, _mm512_loadu_ps, _mm512_set1_ps, _mm512_storeu_ps};
    if w == 2 * COLUMN_GROUP {
        // SAFETY: the caller's guarantee, with w = 32.
        return unsafe { f32_block_two_groups(row0, stride, identity, sums) };
    }
    let panel = block_panel_rows(stride);
    let mut c0 = 0;
    while c0 + COLUMN_GROUP <= w {
        let groups = ((w - c0) / COLUMN_GROUP).min(BLOCK_COLUMN_GROUPS);
        let mut lanes = [[_mm512_set1_ps(identity); LANES]; BLOCK_COLUMN_GROUPS];
        for p in (0..BLOCK).step_by(panel) {
            for (q, group) in lanes.iter_mut().enumerate().take(groups) {
                let mut acc = *group;
                let col = c0 + q * COLUMN_GROUP;
                for g in (p..p + panel).step_by(LANES) {
                    for (l, a) in acc.iter_mut().enumerate() {
                        let row = row0.wrapping_offset((g + l) as isize * stride) as *const f32;
                        // SAFETY: row g + l < BLOCK and columns col..col + 16 <= w (the
                        // caller's range).
                        *a = _mm512_add_ps(*a, unsafe { _mm512_loadu_ps(row.add(col)) });
                    }
                }
                *group = acc;
            }
        }
        for (q, acc) in lanes.iter().enumerate().take(groups) {
            // SAFETY: c0 + 16 (q + 1) <= w (the caller's range).
            unsafe { _mm512_storeu_ps(sums.add(c0 + q * COLUMN_GROUP), lane_tree(*acc)) };
        }
        c0 += groups * COLUMN_GROUP;
    }
}

/// [`f32_block_columns`] for a tile of exactly two column groups (32 columns: a sum over H,W
/// of 32 channels): both groups' 16 lanes stay in the 32 AVX-512 registers for the whole
/// block, and each row is read whole, once, in row order. The panels read each row's two
/// halves in two passes; in a standalone loop over 8 x 3136 rows of 32 float32 (3.2 MB, in
/// L3) on the 2-core Zen 4 at 1 thread, they ran at 55-67 GB/s and this at 88-93 (wider
/// tiles, two groups a pass: no gain). The same additions in the same order, so the same bits.
///
/// # Safety
/// As for [`f32_block_columns`], with `w` = 32.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx512f")]
unsafe fn f32_block_two_groups(row0: *const u8, stride: isize, identity: f32, sums: *mut f32) {
    use std::arch::x86_64::{_mm512_add_ps, _mm512_loadu_ps, _mm512_set1_ps, _mm512_storeu_ps};
    let mut low = [_mm512_set1_ps(identity); LANES];
    let mut high = low;
    for g in (0..BLOCK).step_by(LANES) {
        for l in 0..LANES {
            let row = row0.wrapping_offset((g + l) as isize * stride) as *const f32;
            // SAFETY: row g + l < BLOCK and columns 0..32 = w (the caller's range).
            unsafe {
                low[l] = _mm512_add_ps(low[l], _mm512_loadu_ps(row));
                high[l] = _mm512_add_ps(high[l], _mm512_loadu_ps(row.add(COLUMN_GROUP)));
            }
        }
    }
    for (q, acc) in [low, high].into_iter().enumerate() {
        // SAFETY: 16 (q + 1) <= 32 = w (the caller's range).
        unsafe { _mm512_storeu_ps(sums.add(q * COLUMN_GROUP), lane_tree(acc)) };
    }
}

/// One column group's 16 lanes combined by the lane tree (lane i with lane i + 8, then + 4,
/// + 2, + 1): the generic outer-dim loop's additions in its order.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx512f")]
#[inline]
fn lane_tree(mut acc: [std::arch::x86_64::__m512; LANES]) -> std::arch::x86_64::__m512 {
    let mut half = LANES / 2;
    while half >= 1 {
        for i in 0..half {
            acc[i] = std::arch::x86_64::_mm512_add_ps(acc[i], acc[i + half]);
        }
        half /= 2;
    }
    acc[0]
}

/// `f32` columns per pass of [`panel_columns`]: one AVX2 register (4 of `f64`).
pub(super) const PANEL_COLUMN_GROUP: usize = 8;

/// A float that [`panel_columns`] adds a register at a time.
#[cfg(target_arch = "x86_64")]
pub(super) trait PanelFloat: Copy {
    /// Elements per AVX2 register.
    const LANES: usize;
    type V: Copy;
    /// # Safety
    /// A register of readable elements at `p`; AVX2.
    unsafe fn load(p: *const Self) -> Self::V;
    /// # Safety
    /// A register of writable elements at `p`; AVX2.
    unsafe fn store(p: *mut Self, v: Self::V);
    /// # Safety
    /// AVX2.
    unsafe fn add(a: Self::V, b: Self::V) -> Self::V;
}

#[cfg(target_arch = "x86_64")]
impl PanelFloat for f32 {
    const LANES: usize = 8;
    type V = std::arch::x86_64::__m256;
    #[inline(always)]
    unsafe fn load(p: *const f32) -> Self::V {
        // SAFETY: the caller's.
        unsafe { std::arch::x86_64::_mm256_loadu_ps(p) }
    }
    #[inline(always)]
    unsafe fn store(p: *mut f32, v: Self::V) {
        // SAFETY: the caller's.
        unsafe { std::arch::x86_64::_mm256_storeu_ps(p, v) }
    }
    #[inline(always)]
    unsafe fn add(a: Self::V, b: Self::V) -> Self::V {
        // SAFETY: the caller's (AVX2).
        unsafe { std::arch::x86_64::_mm256_add_ps(a, b) }
    }
}

#[cfg(target_arch = "x86_64")]
impl PanelFloat for f64 {
    const LANES: usize = 4;
    type V = std::arch::x86_64::__m256d;
    #[inline(always)]
    unsafe fn load(p: *const f64) -> Self::V {
        // SAFETY: the caller's.
        unsafe { std::arch::x86_64::_mm256_loadu_pd(p) }
    }
    #[inline(always)]
    unsafe fn store(p: *mut f64, v: Self::V) {
        // SAFETY: the caller's.
        unsafe { std::arch::x86_64::_mm256_storeu_pd(p, v) }
    }
    #[inline(always)]
    unsafe fn add(a: Self::V, b: Self::V) -> Self::V {
        // SAFETY: the caller's (AVX2).
        unsafe { std::arch::x86_64::_mm256_add_pd(a, b) }
    }
}

/// Adds a panel of `p` rows (a multiple of 16), row `k` at `row0 + k·stride` bytes, into the
/// outer-dim path's 16 lane rows (lane row `l` at `lanes + l·lane_stride` elements), row `k`
/// into lane row `k mod 16`: the generic loop's additions in its order, so its bits. Per
/// column group (one register) the 16 lanes are the 16 `ymm` registers (each row's load
/// folded into its addition, so none spills), loaded from the lane rows and stored back once
/// per panel instead of once per 4 rows, and the group's pass reads one register of each row
/// in row order; the next group reads the same rows again from L1 (the caller's panel fits
/// it). Each line of the next panel's rows is prefetched once, by the pass of the group that
/// starts it: the passes read the rows out of memory order, which alone the hardware
/// prefetchers follow poorly.
///
/// # Safety
/// Each of the `p` rows must address `w` readable, aligned `T`s (`w` a multiple of
/// `T::LANES`); each lane row `w` writable ones that no row overlaps; the CPU must have AVX2.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
pub(super) unsafe fn panel_columns<T: PanelFloat>(
    row0: *const u8,
    stride: isize,
    p: usize,
    w: usize,
    lanes: *mut T,
    lane_stride: usize,
) {
    let next = p as isize * stride;
    let mut c = 0;
    while c + T::LANES <= w {
        let lane = |l: usize| lanes.wrapping_add(l * lane_stride + c);
        // SAFETY: lane row l's columns c..c + T::LANES <= w (the caller's).
        let mut acc: [T::V; LANES] = std::array::from_fn(|l| unsafe { T::load(lane(l)) });
        let starts_line = (c * size_of::<T>()).is_multiple_of(64);
        for g in 0..p / LANES {
            for (l, a) in acc.iter_mut().enumerate() {
                let row = row0.wrapping_offset((g * LANES + l) as isize * stride);
                let at = row.wrapping_add(c * size_of::<T>()) as *const T;
                if starts_line {
                    prefetch_line(at.wrapping_byte_offset(next) as *const u8);
                }
                // SAFETY: row g·16 + l < p, columns c..c + T::LANES <= w (the caller's
                // range); AVX2 (the caller's).
                *a = unsafe { T::add(*a, T::load(at)) };
            }
        }
        for (l, &a) in acc.iter().enumerate() {
            // SAFETY: as for the loads above.
            unsafe { T::store(lane(l), a) };
        }
        c += T::LANES;
    }
}

/// The end of the lane tree for `f32`: lanes 0-7 in `x` (each already lane i + lane i + 8),
/// combined + 4, + 2, + 1 as the generic loop's tree does.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
#[inline]
fn tree8_ps(x: std::arch::x86_64::__m256) -> f32 {
    use std::arch::x86_64::*;
    let x = _mm_add_ps(_mm256_castps256_ps128(x), _mm256_extractf128_ps::<1>(x));
    let x = _mm_add_ps(x, _mm_movehl_ps(x, x));
    let x = _mm_add_ss(x, _mm_shuffle_ps::<1>(x, x));
    _mm_cvtss_f32(x)
}

/// The end of the lane tree for `f64`: lanes 0-3 in `x` (each already combined + 8 and + 4),
/// combined + 2, + 1.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
#[inline]
fn tree4_pd(x: std::arch::x86_64::__m256d) -> f64 {
    use std::arch::x86_64::*;
    let x = _mm_add_pd(_mm256_castpd256_pd128(x), _mm256_extractf128_pd::<1>(x));
    let x = _mm_add_sd(x, _mm_unpackhi_pd(x, x));
    _mm_cvtsd_f64(x)
}

/// A hint to bring the cache line at `p` into L2 (it never faults, whatever `p` is). Into L2,
/// not L1: four streams 16 KB ahead would not fit L1 (measured a little faster, too).
#[cfg(target_arch = "x86_64")]
#[inline(always)]
fn prefetch_at<T>(p: *const T, ahead: Option<isize>) {
    if let Some(ahead) = ahead {
        prefetch(p.wrapping_offset(ahead));
    }
}

/// As [`prefetch_at`], at `p` itself.
#[cfg(target_arch = "x86_64")]
#[inline(always)]
fn prefetch<T>(p: *const T) {
    use std::arch::x86_64::{_mm_prefetch, _MM_HINT_T1};
    // SAFETY: a prefetch reads nothing and cannot fault, at any address.
    unsafe { _mm_prefetch::<_MM_HINT_T1>(p as *const i8) };
}

#[cfg(all(test, target_arch = "x86_64"))]
mod tests {
    use super::*;

    /// Column `j`'s block sum in the generic loop's order: lane `l` adds rows `l`, `l + 16`,
    /// … from the identity, then the lane tree.
    fn lane_order_sum(rows: &[Vec<f32>], j: usize, identity: f32) -> f32 {
        let mut lanes = [identity; LANES];
        for (k, row) in rows.iter().enumerate() {
            lanes[k % LANES] += row[j];
        }
        let mut half = LANES / 2;
        while half >= 1 {
            for i in 0..half {
                lanes[i] += lanes[i + half];
            }
            half /= 2;
        }
        lanes[0]
    }

    #[test]
    fn block_columns_in_panels_give_the_lane_order_bits() {
        if !crate::exec::cpu::test_runs("avx512f", crate::exec::cpu::avx512()) {
            return;
        }
        // row strides (in f32s) from 16 (panels of the whole block) to 256 (16 rows), one
        // reversed; 272 columns take two turns of 16 groups, 32 the two-group loop
        for (w, stride) in [
            (16, 16isize),
            (16, 24),
            (64, 64),
            (32, -40),
            (32, 32),
            (272, 256),
            (64, 100),
        ] {
            let len = BLOCK * stride.unsigned_abs() + w;
            // values of many magnitudes, so that any other order changes the bits
            let data: Vec<f32> = (0..len)
                .map(|i| ((i * 7919 % 1000) as f32 - 500.0) * 1.37f32.powi((i % 23) as i32 - 11))
                .collect();
            let first = if stride < 0 { len - w } else { 0 };
            let rows: Vec<Vec<f32>> = (0..BLOCK)
                .map(|k| {
                    let at = (first as isize + k as isize * stride) as usize;
                    data[at..at + w].to_vec()
                })
                .collect();
            let mut sums = vec![f32::NAN; w + 1];
            // SAFETY: each of the BLOCK rows holds w f32s inside `data`; `sums` holds w (and
            // a guard); the CPU has AVX-512F (checked above).
            unsafe {
                f32_block_columns(
                    data.as_ptr().add(first) as *const u8,
                    stride * 4,
                    w,
                    0.5,
                    sums.as_mut_ptr(),
                )
            };
            for (j, s) in sums[..w].iter().enumerate() {
                let want = lane_order_sum(&rows, j, 0.5);
                assert_eq!(
                    s.to_bits(),
                    want.to_bits(),
                    "w {w} stride {stride} column {j}"
                );
            }
            assert!(sums[w].is_nan(), "wrote past the columns");
        }
    }

    #[test]
    fn panels_fill_half_an_l1_and_tile_the_block() {
        assert_eq!(block_panel_rows(256), 64);
        assert_eq!(block_panel_rows(-1024), 16);
        assert_eq!(block_panel_rows(96), 128);
        assert_eq!(block_panel_rows(4), BLOCK);
        assert_eq!(block_panel_rows(0), BLOCK);
        for s in 1..=1024 {
            assert!(BLOCK.is_multiple_of(block_panel_rows(s)));
        }
    }
}
