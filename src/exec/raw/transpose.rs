//! The direct transposing copy of a tiled walk (see [`crate::exec::tiled`]): a tile of the
//! input (operand 1) copied into the output (operand 0) in one pass, no scratch. When the
//! output is contiguous along dim 0 and the input along dim 1, register blocks are transposed
//! so that each output row receives a whole 64-byte cache line per step (2 AVX2 8 × 8 blocks
//! for 4-byte elements, 2 4 × 4 blocks for 8-byte ones, 4 SSE2 8 × 8 blocks for 2-byte ones),
//! which lets the stores be non-temporal: a streamed output line never has to be read first.
//! Other element sizes and strides take [`pack::copy_tile`], or [`copy_any`] when the elements
//! are not aligned to their size (a folded walk's runs of several plan elements). Raw memory: see the invariants in
//! [`super`].

#[cfg(target_arch = "x86_64")]
use super::lines256;
#[cfg(target_arch = "x86_64")]
use super::lines512;
#[cfg(target_arch = "x86_64")]
use super::lines512::Joins;
use super::pack;
use super::Block;

/// Off x86-64 no tile takes the realigned AVX-512 kernel, so no two tiles are ever joined
/// ([`joinable`] is false): a stand-in for `lines512::Joins` that is always the default.
#[cfg(not(target_arch = "x86_64"))]
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
struct Joins {
    after_previous: bool,
    into_next: bool,
}

#[cfg(not(target_arch = "x86_64"))]
impl Joins {
    /// Never: there is no realigned kernel whose tiles could be joined.
    fn possible(_before: usize, _after: usize) -> bool {
        false
    }
}

/// Copies `blk`'s operand 1 into its operand 0, both of `width`-byte elements, in tiles of
/// the block's whole width and `edge(i)` rows from row `i` on (a direct walk's column of
/// tiles: the two operands must not overlap, which the tiled walk's order checks ensure).
/// `stream`: write whole output lines with non-temporal stores where they are aligned; the
/// walk calls [`fence`] before it returns. Output columns realigned in registers
/// (`lines512::copy_tile_realigned`) are joined from tile to tile ([`lines512::Joins`]).
pub(crate) fn copy_tiles(blk: &Block, width: usize, stream: bool, edge: impl Fn(usize) -> usize) {
    let (n0, n1) = (blk.size0(), blk.size1());
    let (s0, d0) = (blk.stride0(1), blk.stride0(0));
    let rows = |i: usize| (edge(i).max(1)).min(n0 - i);
    let mut after_previous = false;
    let mut i = 0;
    while i < n0 {
        let t = rows(i);
        let next = if i + t < n0 { rows(i + t) } else { 0 };
        let into_next = next > 0 && joinable(blk, width, stream, i, (t, next));
        let joins = Joins {
            after_previous,
            into_next,
        };
        let (src, dst) = (
            blk.ptr(1).wrapping_offset(i as isize * s0) as *const u8,
            blk.ptr(0).wrapping_offset(i as isize * d0),
        );
        let strides = ((s0, blk.stride1(1)), (d0, blk.stride1(0)));
        // SAFETY: rows i..i + t of the block, and with `into_next` the next tile's rows
        // (i + t + 16 <= n0: at least 32 of them): the block's guarantee; `joins` as
        // `copy_tile` asks ([`joinable`]).
        unsafe { copy_tile(src, dst, strides, (t, n1), width, stream, joins) };
        after_previous = into_next;
        i += t;
    }
}

/// Whether the tiles of `t` rows from row `i` of `blk` and of `next` rows after it (a direct
/// walk's, [`copy_tiles`]) both take the realigned AVX-512 kernel ([`copy_tile`]'s dispatch
/// to [`lines_avx512_4`], then [`realigns`]) and can be joined ([`Joins::possible`]).
fn joinable(blk: &Block, width: usize, stream: bool, i: usize, (t, next): (usize, usize)) -> bool {
    let dc = blk.stride1(0);
    let tile_dst = |i: usize| blk.ptr(0).wrapping_offset(i as isize * blk.stride0(0)) as *const u8;
    cfg!(target_arch = "x86_64")
        && width == 4
        && crate::exec::cpu::avx512()
        && blk.stride0(0) == 4
        && blk.stride1(1) == 4
        && blk.size1() > 1
        && Joins::possible(t, next)
        && realigns(tile_dst(i), dc, t, stream)
        && realigns(tile_dst(i + t), dc, next, stream)
}

/// Whether [`lines_avx512_4`] writes a tile of `nr` rows at `dst`, output columns `dc` bytes
/// apart, through the realigned kernel (`lines512::copy_tile_realigned`): streamed output
/// columns that are not line-aligned, apart (not one run) and at least two blocks long.
fn realigns(dst: *const u8, dc: isize, nr: usize, stream: bool) -> bool {
    let (aligned, adjacent) = output_columns(dst, dc, nr);
    stream && !aligned && !adjacent && nr >= 32 && (dst as usize).is_multiple_of(4) && dc % 4 == 0
}

/// Where a tile of `nr` rows writes its float32 output columns, `dc` bytes apart from `dst`:
/// on cache lines (full output runs start at `dst + c·dc + 64k`), and adjacent (the columns
/// one run).
fn output_columns(dst: *const u8, dc: isize, nr: usize) -> (bool, bool) {
    (
        (dst as usize).is_multiple_of(64) && dc % 64 == 0,
        dc == 4 * nr as isize,
    )
}

/// Whether a tile's input rows `stride` bytes apart share their cache sets: rows a multiple
/// of 4 KiB apart (the span of an x86 L1's sets, 64 sets of 64 bytes) put a column's line of
/// every row of a block into one L1 set and of 8-16 rows into one L2 set (a 4096-wide float32
/// matrix's rows: 16 KiB), so that a strip's lines, brought in ahead, evict each other before
/// their loads come. Such tiles take the diagonal walk
/// (`lines512::copy_tile_diagonal`).
pub(crate) fn rows_share_cache_sets(stride: isize) -> bool {
    stride != 0 && stride.unsigned_abs().is_multiple_of(4096)
}

/// One tile of [`copy_tiles`]: element `(i, j)` from `src + i·s0 + j·s1` to `dst + i·d0 +
/// j·d1` for `i < n0`, `j < n1`.
///
/// # Safety
/// Those elements are valid on both sides (writable in `dst`), the two do not overlap; with
/// `joins` other than the default, the tile takes the realigned kernel ([`joinable`]), and
/// `joins.into_next`'s rows `n0..n0 + 16` are valid too.
unsafe fn copy_tile(
    src: *const u8,
    dst: *mut u8,
    ((s0, s1), (d0, d1)): ((isize, isize), (isize, isize)),
    (n0, n1): (usize, usize),
    width: usize,
    stream: bool,
    joins: Joins,
) {
    let w = width as isize;
    // (only the x86-64 register transposes stream)
    #[cfg(not(target_arch = "x86_64"))]
    let _ = stream;
    #[cfg(target_arch = "x86_64")]
    if d0 == w && s1 == w && n0 > 1 && n1 > 1 {
        // SAFETY: every `(i, j)` with `i < n0`, `j < n1` addresses an element of `width` bytes
        // on both sides (the caller's guarantee), writable in the output; element `(i, j)` of
        // the input is at `src + i·s0 + j·w` and of the output at `dst + i·w + j·d1`, as the
        // kernels want (unaligned accesses only); the features they need are checked here;
        // `joins` as the caller says.
        unsafe {
            match width {
                4 if crate::exec::cpu::avx512() => {
                    lines_avx512_4(src, s0, dst, d1, (n0, n1), stream, joins)
                }
                4 if super::wide() => lines_avx2::<8>(src, s0, dst, d1, (n0, n1), stream),
                8 if super::wide() => lines_avx2::<4>(src, s0, dst, d1, (n0, n1), stream),
                2 => lines_u16_sse2(src, s0, dst, d1, (n0, n1), stream),
                _ => copy_any(src, (s0, s1), dst, (d0, d1), (n0, n1), width),
            }
        }
        return;
    }
    // A folded walk's elements (runs of a few plan elements) are only aligned to the plan's
    // element: the typed tile copy wants elements aligned to their size.
    let aligned = width.is_power_of_two()
        && width <= 16
        && [src as isize, dst as isize, s0, s1, d0, d1]
            .iter()
            .all(|&x| x % w == 0);
    debug_assert_eq!(
        joins,
        Joins::default(),
        "joined tiles take the realigned kernel"
    );
    // SAFETY: as above, with the tile's own strides; `pack::copy_tile` reads aligned typed
    // elements, which `aligned` checked.
    unsafe {
        if aligned {
            pack::copy_tile(src, (s0, s1), dst, (d0, d1), (n0, n1), width)
        } else {
            copy_any(src, (s0, s1), dst, (d0, d1), (n0, n1), width)
        }
    }
}

/// Copies an `n0 × n1` tile of `width`-byte elements with no alignment: `(i, j)` from `src +
/// i·s0 + j·s1` to `dst + i·d0 + j·d1`, the source's faster dim innermost.
///
/// # Safety
/// Every `(i, j)` with `i < n0`, `j < n1` addresses `width` valid bytes on both sides,
/// writable in `dst`, and the two tiles do not overlap.
unsafe fn copy_any(
    src: *const u8,
    (s0, s1): (isize, isize),
    dst: *mut u8,
    (d0, d1): (isize, isize),
    (n0, n1): (usize, usize),
    width: usize,
) {
    let ((sr, sc), (dr, dc), (nr, nc)) = if s0.unsigned_abs() < s1.unsigned_abs() {
        ((s1, s0), (d1, d0), (n1, n0))
    } else {
        ((s0, s1), (d0, d1), (n0, n1))
    };
    macro_rules! by_width {
        ($($n:literal)*) => {
            match width {
                $($n => {
                    // SAFETY: the caller's guarantees, dims renamed; `[u8; N]` has no alignment.
                    unsafe { pack::copy_elements::<[u8; $n]>(src, (sr, sc), dst, (dr, dc), (nr, nc)) }
                })*
                _ => {
                    for r in 0..nr {
                        for c in 0..nc {
                            let s = src.wrapping_offset(r as isize * sr + c as isize * sc);
                            let d = dst.wrapping_offset(r as isize * dr + c as isize * dc);
                            // SAFETY: element (r, c) of both tiles: the caller's guarantees.
                            unsafe { std::ptr::copy_nonoverlapping(s, d, width) };
                        }
                    }
                }
            }
        };
    }
    by_width!(1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 20 24 28 32);
}

/// Orders the non-temporal stores of this thread before anything it does next (a thread
/// that streamed must fence before another thread may read what it wrote). (Miri, which has
/// no `sfence`, gets a full fence.)
#[inline(always)]
pub(crate) fn fence() {
    #[cfg(all(target_arch = "x86_64", not(miri)))]
    // SAFETY: `sfence` only orders stores; SSE is part of x86-64.
    unsafe {
        std::arch::x86_64::_mm_sfence()
    };
    #[cfg(miri)]
    std::sync::atomic::fence(std::sync::atomic::Ordering::SeqCst);
}

/// The fringe of a line kernel: rows `r0..nr` of columns `c0..nc` (or any sub-tile), through
/// the general tile copy.
///
/// # Safety
/// The sub-tile is inside the caller's tile (as for [`lines_avx2`]).
#[cfg(target_arch = "x86_64")]
#[inline(always)]
unsafe fn fringe(
    src: *const u8,
    sr: isize,
    dst: *mut u8,
    dc: isize,
    (r0, nr): (usize, usize),
    (c0, nc): (usize, usize),
    width: usize,
) {
    if r0 >= nr || c0 >= nc {
        return;
    }
    let w = width as isize;
    let s = src.wrapping_offset(r0 as isize * sr + c0 as isize * w);
    let d = dst.wrapping_offset(r0 as isize * w + c0 as isize * dc);
    // SAFETY: the caller's guarantees for rows r0..nr, columns c0..nc.
    unsafe { copy_any(s, (sr, w), d, (w, dc), (nr - r0, nc - c0), width) }
}

/// A transpose of an `nr × nc` tile of `L`-lane elements (4 bytes for `L = 8`, 8 bytes for
/// `L = 4`): element `(r, c)` at `src + r·sr + c·size` goes to `dst + r·size + c·dc`, through
/// the register transposes of [`lines256`] (streamed when `stream` and the output is
/// aligned), the input's first columns through masked loads where its rows start off a
/// 32-byte boundary ([`masked_columns`]).
///
/// # Safety
/// Every `(r, c)` with `r < nr`, `c < nc` addresses a valid element on both sides, writable
/// in `dst`, the two not overlapping; the CPU has AVX2.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
unsafe fn lines_avx2<const L: usize>(
    src: *const u8,
    sr: isize,
    dst: *mut u8,
    dc: isize,
    (nr, nc): (usize, usize),
    stream: bool,
) {
    let size = 32 / L;
    // Input rows that start off a 32-byte boundary (numpy's large arrays start 16 bytes
    // past a line) would split every other load over two lines: their first columns go
    // through `masked_columns`, the rest start aligned. (On a 2-core Zen 3, float32 transposes
    // of 2048² to 2048 × 8192 ran 10.3-10.9 GB/s from such an input against 11.7-13.5
    // aligned.)
    let head = (src as usize).wrapping_neg() % 32 / size;
    if sr % 32 == 0 && (src as usize).is_multiple_of(size) && head > 0 && head < nc {
        // SAFETY: columns 0..head, then head..nc of the caller's tile (whose input rows then
        // start 32-byte aligned: no further split).
        unsafe {
            masked_columns::<L>(src, sr, dst, dc, nr, (0, head, L - head));
            let (src, dst) = (
                src.wrapping_add(head * size),
                dst.wrapping_offset(head as isize * dc),
            );
            return lines_avx2::<L>(src, sr, dst, dc, (nr, nc - head), stream);
        }
    }
    let aligned = (dst as usize).is_multiple_of(32) && dc % 32 == 0;
    // SAFETY: element (r, c) at `src + r·sr + c·size` and `dst + r·size + c·dc`: the caller's
    // guarantees, which are `copy_tile`'s; every `dst + c·dc` is 32-byte aligned when
    // streaming (`aligned`).
    unsafe {
        lines256::copy_tile::<L>(
            |r| src.wrapping_offset(r as isize * sr),
            |c| dst.wrapping_offset(c as isize * dc),
            (nr, nc),
            stream && aligned,
            sr.unsigned_abs() <= lines256::CLOSE_ROWS,
        )
    }
}

/// Columns `c0..c0 + k` of a [`lines_avx2`] tile (`0 < k < L`), fewer than a register's:
/// each block of `L` rows (and the rows left) is loaded as the `L` elements from `first`
/// columns before `c0` (`first + k <= L`) with the lanes outside the columns masked off
/// ([`lines256`]: not read, they may lie outside the tile), transposed, and the
/// transposed rows of the `k` columns stored: the head of a tile whose input rows start off
/// a 32-byte boundary (the `k` columns before it, `first = L - k`; the tail past the last
/// whole register is [`lines256::copy_tile`]'s own edge). (Through the scalar fringe, the 4
/// head columns of NHWC -> NCHW's 64-column tiles from numpy's arrays cost it a third of its
/// speed on the Zen 3.)
///
/// # Safety
/// As for [`lines_avx2`], for the columns `c0..c0 + k`.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
unsafe fn masked_columns<const L: usize>(
    src: *const u8,
    sr: isize,
    dst: *mut u8,
    dc: isize,
    nr: usize,
    (c0, k, first): (usize, usize, usize),
) {
    let size = 32 / L;
    let base = src.wrapping_add(c0 * size).wrapping_sub(first * size);
    for r in (0..nr).step_by(L) {
        let from = base.wrapping_offset(r as isize * sr);
        let to = dst.wrapping_offset(c0 as isize * dc + (r * size) as isize);
        // SAFETY: rows r..r+L (or the rest), columns c0..c0+k: inside the tile; lanes `first..
        // first + k` of `from`'s rows are those columns.
        unsafe {
            lines256::edge_block::<L>(
                |q| from.wrapping_offset(q as isize * sr),
                |j| to.wrapping_offset(j as isize * dc),
                (nr - r).min(L),
                (first, k),
            )
        };
    }
}

/// [`lines_avx2`] for 4-byte elements with AVX-512: 16 × 16 blocks, output row by output
/// row, the edges masked ([`lines512`]).
///
/// # Safety
/// As for [`lines_avx2`], with AVX-512F instead of AVX2; `joins` other than the default only
/// where the realigned kernel runs, as [`lines512::copy_tile_realigned`] asks.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx512f")]
unsafe fn lines_avx512_4(
    src: *const u8,
    sr: isize,
    dst: *mut u8,
    dc: isize,
    (nr, nc): (usize, usize),
    stream: bool,
    joins: Joins,
) {
    // the kernels' row and column addresses (plain pointers and strides: the closures copy)
    let in_row = |r: usize| src.wrapping_offset(r as isize * sr);
    let out_col = |c: usize| dst.wrapping_offset(c as isize * dc);
    // output columns that are not line-aligned are streamed realigned in registers when
    // they are apart and at least two blocks long ([`realigns`]), else staged if their runs
    // (a strip's 16 as one where they are adjacent: one run through the scratch, where
    // realigned each column would end in partial lines) are long (`lines512::Store::Staged`)
    if realigns(dst, dc, nr, stream) {
        // SAFETY: as below, and the caller's guarantees for `joins`.
        unsafe { lines512::copy_tile_realigned::<true>(in_row, out_col, (nr, nc), joins) };
        return;
    }
    debug_assert_eq!(
        joins,
        Joins::default(),
        "joined tiles take the realigned kernel"
    );
    let (aligned, adjacent) = output_columns(dst, dc, nr);
    let plain_or_streamed = !stream || aligned;
    if plain_or_streamed && nr >= 32 && rows_share_cache_sets(sr) {
        // SAFETY: as below, streamed only where `lines512::Store::Stream` would be.
        unsafe { lines512::copy_tile_diagonal(in_row, out_col, (nr, nc), stream) };
        return;
    }
    let run = if adjacent { 64 * nr } else { 4 * nr };
    let mut scratch = Vec::new();
    let store = if stream && aligned {
        lines512::Store::Stream
    } else if stream && run >= crate::exec::stores::staged_run(adjacent) {
        scratch.resize(lines512::staged_scratch(nr), 0u8);
        lines512::Store::Staged(&mut scratch)
    } else {
        lines512::Store::Plain
    };
    // SAFETY: element (r, c) at `src + r·sr + 4c` and `dst + 4r + c·dc` for r < nr, c < nc:
    // the caller's guarantees, which are `lines512::copy_tile`'s; the scratch's size is the
    // one `copy_tile` asks for.
    unsafe { lines512::copy_tile(in_row, out_col, (nr, nc), store) }
}

/// [`lines_avx2`] for 2-byte elements with SSE2 (part of x86-64): steps of 32 rows × 8
/// columns, four 8 × 8 transposes of 16-bit lanes, 64 bytes per output row.
///
/// # Safety
/// As for [`lines_avx2`], without the AVX2 requirement.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "sse2")]
unsafe fn lines_u16_sse2(
    src: *const u8,
    sr: isize,
    dst: *mut u8,
    dc: isize,
    (nr, nc): (usize, usize),
    stream: bool,
) {
    use std::arch::x86_64::*;
    const L: usize = 8;
    const GROUPS: usize = 4;
    let step_r = GROUPS * L;
    let (full_r, full_c) = (nr - nr % step_r, nc - nc % L);
    let stream = stream && (dst as usize).is_multiple_of(16) && dc % 16 == 0;
    for r in (0..full_r).step_by(step_r) {
        for c in (0..full_c).step_by(L) {
            let mut cols = [[_mm_setzero_si128(); L]; GROUPS];
            for (g, out) in cols.iter_mut().enumerate() {
                let s = src.wrapping_offset((r + g * L) as isize * sr + (c * 2) as isize);
                let mut x = [_mm_setzero_si128(); L];
                for (q, v) in x.iter_mut().enumerate() {
                    // SAFETY: input rows r+g·L+q and columns c..c+8: inside the tile.
                    *v = unsafe {
                        _mm_loadu_si128(s.wrapping_offset(q as isize * sr) as *const __m128i)
                    };
                }
                *out = transpose8x16(x);
            }
            let d = dst.wrapping_offset((r * 2) as isize + c as isize * dc);
            for q in 0..L {
                let row = d.wrapping_offset(q as isize * dc) as *mut __m128i;
                for (g, col) in cols.iter().enumerate() {
                    // SAFETY: output row c+q, elements r+8g..r+8g+8: inside the tile; 16-byte
                    // aligned when streaming (checked above; `r·2` is a multiple of 64).
                    unsafe {
                        if stream {
                            _mm_stream_si128(row.wrapping_add(g), col[q]);
                        } else {
                            _mm_storeu_si128(row.wrapping_add(g), col[q]);
                        }
                    }
                }
            }
        }
    }
    // SAFETY: sub-tiles of the caller's tile.
    unsafe {
        fringe(src, sr, dst, dc, (0, full_r), (full_c, nc), 2);
        fringe(src, sr, dst, dc, (full_r, nr), (0, nc), 2);
    }
}

/// Transposes the 8 × 8 block of 16-bit lanes in `x` (row q in `x[q]`). Lanes are only moved.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "sse2")]
fn transpose8x16(x: [std::arch::x86_64::__m128i; 8]) -> [std::arch::x86_64::__m128i; 8] {
    use std::arch::x86_64::*;
    // Pairs: t0 = (a0 b0 a1 b1 a2 b2 a3 b3), t1 = (a4 b4 .. a7 b7); t2, t3 from c, d; ...
    let t = [
        _mm_unpacklo_epi16(x[0], x[1]),
        _mm_unpackhi_epi16(x[0], x[1]),
        _mm_unpacklo_epi16(x[2], x[3]),
        _mm_unpackhi_epi16(x[2], x[3]),
        _mm_unpacklo_epi16(x[4], x[5]),
        _mm_unpackhi_epi16(x[4], x[5]),
        _mm_unpacklo_epi16(x[6], x[7]),
        _mm_unpackhi_epi16(x[6], x[7]),
    ];
    // Quads: u0 = (a0 b0 c0 d0 a1 b1 c1 d1), u1 = (.. 2 .. 3), u2 = (.. 4 .. 5), u3 = (6, 7);
    // u4..u7 the same for e..h.
    let u = [
        _mm_unpacklo_epi32(t[0], t[2]),
        _mm_unpackhi_epi32(t[0], t[2]),
        _mm_unpacklo_epi32(t[1], t[3]),
        _mm_unpackhi_epi32(t[1], t[3]),
        _mm_unpacklo_epi32(t[4], t[6]),
        _mm_unpackhi_epi32(t[4], t[6]),
        _mm_unpacklo_epi32(t[5], t[7]),
        _mm_unpackhi_epi32(t[5], t[7]),
    ];
    [
        _mm_unpacklo_epi64(u[0], u[4]),
        _mm_unpackhi_epi64(u[0], u[4]),
        _mm_unpacklo_epi64(u[1], u[5]),
        _mm_unpackhi_epi64(u[1], u[5]),
        _mm_unpacklo_epi64(u[2], u[6]),
        _mm_unpackhi_epi64(u[2], u[6]),
        _mm_unpacklo_epi64(u[3], u[7]),
        _mm_unpackhi_epi64(u[3], u[7]),
    ]
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Runs [`copy_tiles`] on one `n0 × n1` tile cut from bigger buffers at an offset (so that
    /// fringes and unaligned starts occur) and compares with the naive loop, for the layouts
    /// the direct walk gives (output along dim 0, input along dim 1) and others.
    fn check<T: Copy + PartialEq + std::fmt::Debug + Default>(
        n0: usize,
        n1: usize,
        make: fn(usize) -> T,
        transposed: bool,
        (stream, adjacent): (bool, bool),
    ) {
        let width = std::mem::size_of::<T>();
        let w = width as isize;
        // streamed: output rows 64-byte aligned (so that the streaming path runs), or
        // adjacent at an offset of one element (the staged path); else an odd row length and
        // an offset of one element
        let (src_row, dst_row) = if adjacent {
            (n1 + 3, n0)
        } else if stream {
            (n1 + 3, (n0 * width).next_multiple_of(64) / width)
        } else {
            (n1 + 3, n0 + 3)
        };
        let len = (n0 + 3) * (n1 + 3) + 64;
        let src: Vec<T> = (0..len + dst_row * n1).map(make).collect();
        let mut dst = vec![T::default(); len + dst_row * n1];
        let off = if stream && !adjacent {
            (64 - dst.as_ptr() as usize % 64) % 64 / width
        } else {
            1
        };
        // input: contiguous along dim 1 when `transposed`, else along dim 0
        let (s0, s1) = if transposed {
            (src_row as isize * w, w)
        } else {
            (w, (n0 + 3) as isize * w)
        };
        let (d0, d1) = (w, dst_row as isize * w);
        let ptrs = [
            dst.as_mut_ptr().wrapping_add(off) as *mut u8,
            src.as_ptr().wrapping_add(off) as *mut u8,
        ];
        let (strides0, strides1) = ([d0, s0], [d1, s1]);
        // SAFETY: (i, j) with i < n0, j < n1 lies inside both padded buffers (rows of at most
        // max(n0, n1) + 64 elements, `off` < 64); the output is a local buffer.
        let blk = unsafe { Block::new(&ptrs, &strides0, &strides1, n0, n1) };
        copy_tiles(&blk, width, stream, |_| n0);
        fence();
        let sat = |base: usize, s0: isize, s1: isize, i: usize, j: usize| {
            (base as isize + (i as isize * s0 + j as isize * s1) / w) as usize
        };
        for j in 0..n1 {
            for i in 0..n0 {
                assert_eq!(
                    dst[sat(off, d0, d1, i, j)],
                    src[sat(off, s0, s1, i, j)],
                    "{n0}x{n1} width {width} at ({i}, {j})"
                );
            }
        }
        // nothing outside the tile written
        let written: usize = dst.iter().filter(|&&x| x != T::default()).count();
        let inside = (0..n1)
            .flat_map(|j| (0..n0).map(move |i| (i, j)))
            .filter(|&(i, j)| src[sat(off, s0, s1, i, j)] != T::default())
            .count();
        assert_eq!(
            written, inside,
            "{n0}x{n1} width {width}: writes outside the tile"
        );
    }

    /// A column of streamed tiles into output columns off the cache lines (rows of `n0 + 1`
    /// or `n0 + 5` elements, starting 0-15 elements past a line): the realigned kernel's
    /// tiles joined where both sides have 32 rows or more, every element copied once, and
    /// nothing outside written; tiles of 32-80 rows, the last one shorter or longer than 32.
    #[test]
    fn joined_tiles_copy_every_element_once() {
        for n0 in [32usize, 63, 64, 65, 95, 96, 100, 128, 161, 300] {
            for n1 in [2usize, 16, 17, 40] {
                for edge in [32usize, 48, 64, 80] {
                    for (pad, skew) in [(1usize, 0usize), (5, 7), (1, 15)] {
                        let ld = n0 + pad;
                        let src_row = n1 + 3;
                        let src: Vec<u32> = (0..n0 * src_row + 8).map(|i| i as u32 + 1).collect();
                        let mut buf = vec![0u32; ld * n1 + 64];
                        let skip = (buf.as_ptr() as usize).wrapping_neg() % 64 / 4 + skew;
                        let ptrs = [
                            buf[skip..].as_mut_ptr() as *mut u8,
                            src[1..].as_ptr() as *mut u8,
                        ];
                        let (strides0, strides1) =
                            ([4, 4 * src_row as isize], [4 * ld as isize, 4]);
                        // SAFETY: (i, j) with i < n0, j < n1 at `1 + i·src_row + j` in `src`
                        // and `skip + i + j·ld` in `buf` (`skip` < 32, 64 spare elements).
                        let blk = unsafe { Block::new(&ptrs, &strides0, &strides1, n0, n1) };
                        copy_tiles(&blk, 4, true, |_| edge);
                        fence();
                        for j in 0..n1 {
                            for i in 0..n0 {
                                assert_eq!(
                                    buf[skip + i + j * ld],
                                    src[1 + i * src_row + j],
                                    "{n0}x{n1} edge {edge} pad {pad} skew {skew} at ({i}, {j})"
                                );
                            }
                        }
                        let written = buf.iter().filter(|&&x| x != 0).count();
                        assert_eq!(
                            written,
                            n0 * n1,
                            "{n0}x{n1} edge {edge} pad {pad} skew {skew}: writes outside"
                        );
                    }
                }
            }
        }
    }

    /// The AVX2 line kernel of 4-byte elements, which CPUs with AVX-512 no longer take
    /// through [`copy_tile`]: sizes around its 16 × 8 steps, streamed and not.
    #[cfg(target_arch = "x86_64")]
    #[test]
    fn avx2_lines_of_4_byte_elements_match_the_naive_loop() {
        if !crate::exec::cpu::test_runs("avx2", super::super::wide()) {
            return;
        }
        // input rows of any alignment, or all starting 16 or 4 bytes past a 32-byte boundary
        // (the first columns then take masked loads); rows close (4-line runs when streamed)
        // or more than 1 KiB apart (2-line runs)
        let layouts = [
            (3usize, None),
            (8, Some(16usize)),
            (16, Some(4)),
            (264, Some(16)),
        ];
        for nr in [1usize, 15, 16, 17, 33, 48, 65] {
            for nc in [1usize, 7, 8, 9, 17] {
                for (stream, (pad, skew)) in [false, true]
                    .into_iter()
                    .flat_map(|s| layouts.map(|l| (s, l)))
                {
                    let sr = nc.next_multiple_of(8) + pad;
                    let data: Vec<u32> = (0..nr * sr + 8).map(|i| i as u32 + 1).collect();
                    let first = skew.map_or(0, |b| {
                        (data.as_ptr() as usize + 32 - b).wrapping_neg() % 32 / 4
                    });
                    let src = &data[first..];
                    let dc = nr.next_multiple_of(16);
                    let mut buf = vec![0u32; dc * nc + 16];
                    let skip = (buf.as_ptr() as usize).wrapping_neg() % 64 / 4;
                    let dst = buf[skip..].as_mut_ptr() as *mut u8;
                    // SAFETY: element (r, c) at `src + 4(r·sr + c)` and `dst + 4(r + c·dc)`,
                    // inside both buffers for r < nr, c < nc; AVX2 checked above.
                    unsafe {
                        lines_avx2::<8>(
                            src.as_ptr() as *const u8,
                            4 * sr as isize,
                            dst,
                            4 * dc as isize,
                            (nr, nc),
                            stream,
                        )
                    };
                    fence();
                    for r in 0..nr {
                        for c in 0..nc {
                            assert_eq!(buf[skip + c * dc + r], src[r * sr + c], "{nr}x{nc}");
                        }
                    }
                }
            }
        }
    }

    #[test]
    fn transposing_copy_matches_the_naive_loop() {
        let sizes = [1usize, 2, 7, 8, 9, 15, 16, 17, 31, 32, 33, 47, 64, 65];
        for &n0 in &sizes {
            for &n1 in &sizes {
                for transposed in [true, false] {
                    // (streamed, output columns adjacent at an odd offset: staged)
                    for stream in [(false, false), (true, false), (true, true)] {
                        check::<u8>(n0, n1, |i| (i % 251 + 1) as u8, transposed, stream);
                        check::<u16>(n0, n1, |i| (i % 65521 + 1) as u16, transposed, stream);
                        check::<u32>(n0, n1, |i| i as u32 + 1, transposed, stream);
                        check::<u64>(n0, n1, |i| (i as u64 + 1) << 33 | 1, transposed, stream);
                        check::<u128>(n0, n1, |i| (i as u128 + 1) << 70 | 1, transposed, stream);
                        // a folded walk's elements: runs of plan elements, any alignment
                        check::<[u8; 3]>(n0, n1, |i| [(i % 251 + 1) as u8; 3], transposed, stream);
                        check::<[u8; 12]>(
                            n0,
                            n1,
                            |i| [(i % 241 + 1) as u8; 12],
                            transposed,
                            stream,
                        );
                        check::<[u8; 24]>(
                            n0,
                            n1,
                            |i| [(i % 239 + 1) as u8; 24],
                            transposed,
                            stream,
                        );
                        check::<[u8; 28]>(
                            n0,
                            n1,
                            |i| [(i % 233 + 1) as u8; 28],
                            transposed,
                            stream,
                        );
                        check::<[u8; 18]>(
                            n0,
                            n1,
                            |i| [(i % 229 + 1) as u8; 18],
                            transposed,
                            stream,
                        );
                    }
                }
            }
        }
    }
}
