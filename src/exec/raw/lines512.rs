//! The AVX-512 transposing copy of 4-byte elements shared by the direct tiled walk
//! ([`super::transpose`]) and the permuting copy ([`super::permute`]): 16 × 16 register
//! transposes, each of the 16 input rows read one whole 64-byte line per block and each of the
//! 16 output rows written one whole line, the tile's edges through masked loads and stores
//! (no element-by-element fringe). Outputs too large for the cache are written with
//! non-temporal stores, through a small staging scratch where their columns are not
//! line-aligned, or into a whole tile's image in scratch ([`Store`]).
//!
//! The blocks are visited output row by output row: for each strip of 16 input columns (16
//! output rows) the walk goes down every row of the tile, so each output row is written in
//! one run of `rows · 4` bytes while the input is read a line per row. On the 2-core Zen 4
//! (float32, streamed stores) a 4096² transpose copy ran at 65-69% of a same-size copy this
//! way against 48-57% with the input rows outside (tiles 256 × 256 and 128 × 1024), 2048 ×
//! 8192 at 81-85% against 50-71%. (An image in scratch is cache on the output side: there the
//! input's rows go outside, [`IMAGE_STRIPS_UP_TO`].) Raw memory: see the invariants in
//! [`super`].

#![cfg(target_arch = "x86_64")]

use std::arch::x86_64::*;

/// How [`copy_tile`] writes the output.
pub(super) enum Store<'a> {
    /// Ordinary stores.
    Plain,
    /// Full 16-element output runs take non-temporal stores: the caller checked that every
    /// `out_col(c) + 64k` is 64-byte aligned, and fences afterwards.
    Stream,
    /// Each strip of 16 output columns is transposed into this scratch first (column `q` of
    /// the strip at `q · 4nr` in one of two halves; [`staged_scratch`] bytes), then copied
    /// out with non-temporal stores of the whole lines, columns adjacent in the output as one
    /// run (the caller fences afterwards). For outputs whose columns are not line-aligned, or
    /// shorter than a line but adjacent: a plain store first reads the line it writes (a
    /// third more traffic), and a streamed one must be aligned.
    Staged(&'a mut [u8]),
    /// Ordinary stores into a tile's image in scratch ([`super::tile_image`]), the input's
    /// rows outside when the tile has more than [`IMAGE_STRIPS_UP_TO`] of them: the output
    /// is cache, so the walk suits the input, each row read in one run.
    Image,
}

/// Rows up to which an image is still written strip by strip (a tile of few rows reads each
/// strip's lines from few rows anyway). On the 2-core Xeon (1 thread, 8M float32, staged
/// tiles): the input's rows outside took the 352-row tiles of (13, 27, 21, 24, 13, 4) by
/// (3, 5, 4, 1, 0, 2) from 28-38% to 42% of the copy limit, the 2048 × 50 tiles of
/// (3, 90, 5, 12, 10, 50) by (3, 5, 1, 4, 0, 2) from 34% to 39%, the 78 rows of (78, 80, 85,
/// 16) by (1, 3, 2, 0) from 46% to 51%, but the 20 rows of (92, 10, 20, 5, 16, 6) by (0, 3, 1,
/// 5, 4, 2) from 52% down to 44%.
const IMAGE_STRIPS_UP_TO: usize = 32;

/// Bytes of scratch [`Store::Staged`] needs for tiles of `nr` rows: two halves of 16 columns
/// and a line (the whole stores of a partial block reach up to 60 bytes past a column).
pub(super) fn staged_scratch(nr: usize) -> usize {
    2 * (16 * 4 * nr + 64)
}

/// How far ahead of a block, in input rows of the strip walk's order, its loads ask for the
/// lines of a later block on strips longer than [`ALONG_ROWS_UP_TO`] (down the strip, on into
/// the next strip at its end). A strip reads one line from each of its rows: more streams than
/// the hardware prefetchers follow, and rows a page or more apart, which they never cross.
/// Shorter strips prefetch two strips ahead instead, along each row (a line of the same rows),
/// which gives the lines more time to arrive but holds two strips of them. On the 2-core
/// Zen 4, 1 thread, prefetching along the rows took the (9, 1449, 86, 7) reversal from 25% to
/// 39% of the copy limit and a 4096² transpose from 42% to 48%; on the 2-core Xeon, 1
/// thread, prefetching down the 2048-row strips of NHWC → NCHW (16, 56, 56, 64) took it from
/// 17-20 to 20-24 GB/s (4 blocks ahead; 2 or 8 gained less), alternating processes.
const PREFETCH_ROWS: usize = 64;

/// [`PREFETCH_ROWS`] for the realigned strips ([`strip_realigned`]): 16 blocks ahead. Their
/// blocks take longer than plain ones (a permute more per output line, the line pointers of
/// 16 columns), and four blocks ahead left their loads waiting: on the 2-core Zen 4 (1
/// thread, alternating processes, two rounds) the realigned permutations' 1024-1296-row
/// strips ran at 64 / 128 / 192 / 256 / 384 rows ahead: (9, 1449, 86, 7) by (3, 2, 1, 0)
/// 37-39 / 46-50 / 38-52 / 47-49 / 45-46 GB/s, (30, 106, 3, 21, 16, 3) by (5, 3, 4, 2, 0, 1)
/// 36-42 / - / 34 / 43-49 / 45-48, (3, 90, 5, 12, 10, 50) by (3, 5, 1, 4, 0, 2) 26-30 / 31 /
/// 24-32 / 30-31 / 28-30 (32 rows: 25 and 27). 256 rows of one line each stay well inside L1.
const REALIGNED_PREFETCH_ROWS: usize = 256;

/// Where in a block's row of 16 elements (bytes) its prefetch points: at the last one, so
/// that an input row off the cache lines has the line each load ends in asked for (the line
/// it starts in is the one the strip before ended in). Asked for at the first element, a
/// strip walking down its rows left every other line of such rows to a demand miss: on the
/// 2-core Zen 4 (1 thread, 8M float32, the input 16 bytes past a line as numpy allocates it,
/// alternating) the realigned 1024 × 128 tiles of (30, 106, 3, 21, 16, 3) by
/// (5, 3, 4, 2, 0, 1) ran at 12 GB/s there against 29 with the input on a line.
const PREFETCH_AT: usize = 60;

/// The longest strips that prefetch two strips ahead along their rows: two strips' lines
/// (32 KiB) still fit an L1 data cache. On the 2-core Xeon, `bench --rows transpose` with the
/// transposes' 176-row strips prefetching down instead (the limit at 64 rows) ran 8.7-10.0
/// GB/s at 1 thread against 9.6-11.5 with this limit, alternating builds twice.
const ALONG_ROWS_UP_TO: usize = 256;

/// The shortest tile rows (elements) whose blocks of fewer than 16 rows ask for their lines
/// ahead as whole blocks do ([`strip`]; tiles of a multiple of 16 rows never ask): tiles of
/// fewer than 16 rows (or their last rows) read as many short streams as whole blocks, which
/// the hardware prefetchers leave to demand misses. On the 2-core Zen 4 (1 thread, one
/// process alternating with the blocks asking nothing, four runs) asking took tiles of
/// 19 × 969 1.12-1.18x (1.11-1.22x at 2 threads) and 20 × 480 from inputs 16 bytes past a
/// line 1.2-1.5x; 14 × 822 moved 0.9-1.2x from run to run. Rows shorter than this are a few
/// lines each, read by the blocks themselves or streamed by the hardware along tiles that
/// follow each other in memory (5 × 76 tiles ran 0.9x asking).
const EDGES_ASK_FROM: usize = 128;

/// Rows `r..r + 16`, columns `c..c + 16` of the tile, row q in `x[q]`, asking for the lines
/// of the block at `(pr, pc)` on the way (a macro: as a function, not inlined into its
/// callers, its block went through memory, a third of a transpose's time).
///
/// Safety: as for [`full_block`]; used inside its callers' `unsafe`.
macro_rules! load_block {
    ($in_row:expr, ($r:expr, $c:expr), ($pr:expr, $pc:expr)) => {{
        let (r, c, pr, pc) = ($r, $c, $pr, $pc);
        let mut x = [_mm512_setzero_ps(); 16];
        for (q, v) in x.iter_mut().enumerate() {
            let at = $in_row(r + q).wrapping_add(4 * c);
            let ahead = $in_row(pr + q).wrapping_add(4 * pc + PREFETCH_AT);
            // A prefetch is a hint that never faults, whatever its address.
            _mm_prefetch::<_MM_HINT_T0>(ahead as *const i8);
            *v = _mm512_loadu_ps(at as *const f32);
        }
        x
    }};
}

/// Copies a tile of `nr × nc` 4-byte elements: element `(r, c)` from `in_row(r) + 4c` to
/// `out_col(c) + 4r`, stored as `store` says.
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
    store: Store,
) {
    if matches!(store, Store::Image) && nr > IMAGE_STRIPS_UP_TO {
        // SAFETY: the caller's guarantees, block by block.
        unsafe { rows_outside(&in_row, &out_col, (nr, nc)) };
        return;
    }
    // SAFETY: the caller's guarantees.
    unsafe {
        if nc >= EDGES_ASK_FROM && !nr.is_multiple_of(16) {
            strips::<true>(in_row, out_col, (nr, nc), store)
        } else {
            strips::<false>(in_row, out_col, (nr, nc), store)
        }
    }
}

/// [`copy_tile`]'s strips of 16 columns, whose blocks of fewer than 16 rows ask for their
/// lines ahead when `ASK_EDGES` ([`EDGES_ASK_FROM`]; a constant: the tiles that do not ask
/// keep their code as it was, on which their speed depends).
///
/// # Safety
/// As for [`copy_tile`].
#[target_feature(enable = "avx512f")]
#[inline]
unsafe fn strips<const ASK_EDGES: bool>(
    in_row: impl Fn(usize) -> *const u8,
    out_col: impl Fn(usize) -> *mut u8,
    (nr, nc): (usize, usize),
    store: Store,
) {
    let run = 4 * nr;
    // a staged strip is flushed one strip later, from the other half of the scratch, so that
    // its loads do not wait on the strip's own stores still in flight (wide stores do not
    // always forward to narrower loads)
    let mut pending: Option<(usize, usize, *const u8)> = None;
    let mut c = 0;
    while c < nc {
        let m = (nc - c).min(16);
        // SAFETY: columns c..c+m of the tile (the caller's guarantees); a staged strip's
        // column `cc` lies at `(cc - c) · run` in its half of the scratch, which holds 16
        // runs.
        unsafe {
            match &store {
                Store::Staged(scratch) => {
                    debug_assert!(
                        scratch.len() >= staged_scratch(nr),
                        "a staged tile's scratch"
                    );
                    let half = scratch
                        .as_ptr()
                        .wrapping_add((c / 16 % 2) * (16 * run + 64))
                        as *mut u8;
                    let stage = |cc: usize| half.wrapping_add((cc - c) * run);
                    strip::<ASK_EDGES>(&in_row, &stage, (c, m), nr, false, true);
                    if let Some((pc, pm, pbase)) = pending {
                        flush(pbase, run, pm, |q| out_col(pc + q));
                    }
                    pending = Some((c, m, half));
                }
                Store::Stream => strip::<ASK_EDGES>(&in_row, &out_col, (c, m), nr, true, false),
                Store::Plain | Store::Image => {
                    strip::<ASK_EDGES>(&in_row, &out_col, (c, m), nr, false, false)
                }
            }
        }
        c += 16;
    }
    if let Some((pc, pm, pbase)) = pending {
        // SAFETY: the last staged strip, as above.
        unsafe { flush(pbase, run, pm, |q| out_col(pc + q)) };
    }
}

/// [`copy_tile`] with non-temporal stores of whole lines into output columns that do not
/// start on one: each column's blocks are shifted across its line boundaries in registers
/// ([`strip_realigned`]), only the partial lines at the ends of each column stored plainly
/// (the caller fences afterwards). Strips of fewer than 16 columns, tiles of fewer than 32
/// rows and columns not 4-byte aligned are stored plainly. A function of its own: as a
/// fourth [`Store`], its code changed how the compiler laid out the others' (the streamed
/// 4096² transpose lost a fifth, its row addresses spilled).
///
/// `joins` says which ends of the columns' runs meet a neighbouring tile's ([`Joins`]).
/// With `ASK_JOINED`, the next tile's first 16 rows that a join reads are asked for ahead
/// like the tile's own (left to demand misses they held up every strip): the direct walk's
/// 4097 × 4100 float32 transpose 1.21-1.24x on the 2-core Zen 4 at 1 thread, 1.04x at 2
/// (one process alternating). The permuting copy's tiles do without: with it, two of its realigned random
/// permutations ran 0.74-0.89x, even when only their strips' code differed and not what
/// they asked for (the compiled kernel as a whole; not understood).
///
/// # Safety
/// As for [`copy_tile`]; with `joins.into_next`, also for rows `nr..nr + 16` (the next
/// tile's first rows, of which this tile writes the elements before each column's first
/// line boundary there), and `nr` is a multiple of 16.
#[target_feature(enable = "avx512f")]
#[inline(never)]
pub(super) unsafe fn copy_tile_realigned<const ASK_JOINED: bool>(
    in_row: impl Fn(usize) -> *const u8,
    out_col: impl Fn(usize) -> *mut u8,
    (nr, nc): (usize, usize),
    joins: Joins,
) {
    for c in (0..nc).step_by(16) {
        let m = (nc - c).min(16);
        // SAFETY: columns c..c+m of the tile (the caller's guarantees, rows past `nr` with
        // `into_next`); the realigned strip's columns checked 4-byte aligned here.
        unsafe {
            if m == 16 && nr >= 32 && (0..16).all(|q| (out_col(c + q) as usize).is_multiple_of(4)) {
                strip_realigned::<ASK_JOINED>(&in_row, &out_col, c, nr, joins)
            } else {
                // (its edge blocks ask for nothing: which leaves this kernel's code as it
                // was, on which the realigned strips' speed depends)
                strip::<false>(&in_row, &out_col, (c, m), nr, false, false)
            }
        }
    }
}

/// Where a realigned tile's output column runs meet the runs of the tiles before and after
/// it along the rows (the same columns, the rows just before or after), when both sides take
/// realigned strips (at least 32 rows each; the first one a multiple of 16 rows). Each such
/// junction falls inside an output line: left to both tiles, it would be written in two
/// masked plain stores, each reading the line first. Joined, the tile before writes it
/// whole (streamed, the next tile's first rows read for it) and the tile after leaves it.
/// On the 2-core Xeon, 1 thread, a 4097 × 4096 float32 transpose in 176 × 1408 tiles ran at
/// 33% of a same-size copy with the masked stores at every junction, 61-64% with none.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub(crate) struct Joins {
    /// The tile before wrote this tile's columns up to their first line boundary.
    pub after_previous: bool,
    /// This tile writes the next tile's columns up to their first line boundary.
    pub into_next: bool,
}

impl Joins {
    /// Whether tiles of `before` and `after` rows meeting along the rows take realigned
    /// strips on both sides, so that their junction can be joined (see [`Joins`]).
    pub(crate) fn possible(before: usize, after: usize) -> bool {
        before >= 32 && after >= 32 && before.is_multiple_of(16)
    }
}

/// [`copy_tile`]'s tile with ordinary stores, 16 input rows at a time, each read along its
/// whole length.
///
/// # Safety
/// As for [`copy_tile`].
#[target_feature(enable = "avx512f")]
#[inline]
unsafe fn rows_outside(
    in_row: &impl Fn(usize) -> *const u8,
    out_col: &impl Fn(usize) -> *mut u8,
    (nr, nc): (usize, usize),
) {
    for r in (0..nr).step_by(16) {
        let k = (nr - r).min(16);
        for c in (0..nc).step_by(16) {
            let m = (nc - c).min(16);
            // SAFETY: rows r..r+k and columns c..c+m of the tile (the caller's guarantees);
            // the prefetch along the rows, 32 columns ahead.
            unsafe { block::<_MM_HINT_T0>(in_row, out_col, (r, c), (k, m), (r, c + 32), false) };
        }
    }
}

/// Row blocks (16 rows) between the strips that consecutive row blocks of a diagonal walk
/// take at once ([`copy_tile_diagonal`]): each block asks for its next strip's lines, one
/// strip ahead, and 3 apart those lines are never the ones another block is reading.
const DIAGONAL_STEP: usize = 3;

/// [`copy_tile`] (streamed as `stream` says, else plain stores) for input rows that share
/// their cache sets ([`super::transpose::rows_share_cache_sets`]), walked diagonally: row block `b` takes strip
/// `t - 3b` at step `t`, so that the lines in flight lie in as many columns as there are row
/// blocks (in as many sets), and each block asks for its next strip's lines into L2 only (an
/// L1 set cannot hold a block's 16 rows of one column anyway). On the 2-core Zen 4, 1 / 2
/// threads, one process alternating with [`copy_tile`]'s strips: 4096² float32 23.4 -> 38.9
/// / 40.3 -> 56.0 GB/s (75% / 93% of a copy), 2048 × 8192 and 8192 × 2048 1.6x / 1.1-1.3x,
/// 2048² 1.4x / 1.1-1.2x, NCHW -> NHWC of (64, 64, 32, 32) 1.2-1.5x / 1.1x; inputs 16 bytes
/// past a line up to 2.1x. Padding the input rows by a line instead gave the same speeds.
///
/// # Safety
/// As for [`copy_tile`] with [`Store::Stream`] (when `stream`) or [`Store::Plain`].
#[target_feature(enable = "avx512f")]
pub(super) unsafe fn copy_tile_diagonal(
    in_row: impl Fn(usize) -> *const u8,
    out_col: impl Fn(usize) -> *mut u8,
    (nr, nc): (usize, usize),
    stream: bool,
) {
    let blocks = nr.div_ceil(16);
    let strips = nc.div_ceil(16);
    for t in 0..strips + DIAGONAL_STEP * (blocks - 1) {
        for b in 0..blocks {
            let Some(s) = t.checked_sub(DIAGONAL_STEP * b) else {
                break;
            };
            if s >= strips {
                continue;
            }
            let (r, c) = (16 * b, 16 * s);
            let (k, m) = ((nr - r).min(16), (nc - c).min(16));
            // SAFETY: rows r..r+k and columns c..c+m of the tile (the caller's guarantees);
            // the prefetch asks for the same rows one strip on.
            unsafe { block::<_MM_HINT_T1>(&in_row, &out_col, (r, c), (k, m), (r, c + 16), stream) };
        }
    }
}

/// Columns `c..c + m` (`m <= 16`) of [`copy_tile`]'s tile, down all `nr` rows; with
/// `ASK_EDGES`, a block of fewer than 16 rows asks for its rows' lines as a whole block does.
///
/// # Safety
/// As for [`copy_tile`], for those columns; `stream` as [`Store::Stream`] says.
#[target_feature(enable = "avx512f")]
#[inline]
unsafe fn strip<const ASK_EDGES: bool>(
    in_row: &impl Fn(usize) -> *const u8,
    out_col: &impl Fn(usize) -> *mut u8,
    (c, m): (usize, usize),
    nr: usize,
    stream: bool,
    staged: bool,
) {
    let part = nr % 16;
    if staged && part != 0 {
        // SAFETY: as below; the whole stores' extra lanes land in the next column's first
        // rows, which this block's next store or the blocks below write afterwards, or in
        // the scratch's unused columns and slack.
        unsafe { edge_block(in_row, out_col, (nr - part, c), (part, m), true) };
    }
    // the block to prefetch for: two strips ahead on strips up to `ALONG_ROWS_UP_TO` rows,
    // else `PREFETCH_ROWS` ahead in the walk's order (down the strip, then into the next)
    let rows = nr.next_multiple_of(16);
    let mut ahead = if rows <= ALONG_ROWS_UP_TO {
        (0, c + 32)
    } else {
        (PREFETCH_ROWS, c)
    };
    for r in (0..nr).step_by(16) {
        let k = (nr - r).min(16);
        if k == 16 || !staged {
            // (the rows asked for stay inside the tile: the callers' `in_row` may index a
            // table of rows; a full block means `nr >= 16`)
            let rows_ahead = ahead.0.min(nr.saturating_sub(16));
            if ASK_EDGES && k < 16 && m == 16 {
                // the rows of an edge block (which asks for nothing itself), asked for as a
                // whole block asks for its own (rows `nr - k..nr` at most: inside the tile)
                let first = ahead.0.min(nr - k);
                ask_rows(in_row, first..first + k, ahead.1);
            }
            // SAFETY: rows r..r+k and columns c..c+m of the tile (the caller's guarantees).
            unsafe {
                block::<_MM_HINT_T0>(
                    in_row,
                    out_col,
                    (r, c),
                    (k, m),
                    (rows_ahead, ahead.1),
                    stream,
                )
            };
        }
        ahead.0 += 16;
        if ahead.0 >= rows {
            ahead = (ahead.0 - rows, ahead.1 + 16);
        }
    }
}

/// Columns `c..c + 16` of [`copy_tile`]'s tile down all `nr` rows (`nr >= 32`), into
/// output columns that start anywhere on a 4-byte boundary ([`copy_tile_realigned`]): every
/// whole output line is one streamed store, made of the end of one block of the column and
/// the start of the next (one two-source permute a line), so that nothing is staged through
/// memory; the part of each column before its first line boundary and after its last full
/// block's is stored plainly, masked, unless it is joined to a neighbouring tile ([`Joins`]).
///
/// # Safety
/// As for [`copy_tile_realigned`], for those columns; every `out_col(c + q)` is 4-byte
/// aligned.
#[target_feature(enable = "avx512f")]
#[inline]
unsafe fn strip_realigned<const ASK_JOINED: bool>(
    in_row: &impl Fn(usize) -> *const u8,
    out_col: &impl Fn(usize) -> *mut u8,
    c: usize,
    nr: usize,
    joins: Joins,
) {
    let full = nr / 16;
    // per column: its lanes before the first line boundary, the lanes a line takes from a
    // block pair (lane j of the line is lane `j + head` of the two blocks side by side), and
    // where its lines start
    let mut head = [0u32; 16];
    let mut pick = [_mm512_setzero_si512(); 16];
    let mut line = [std::ptr::null_mut::<f32>(); 16];
    let iota = _mm512_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15);
    for q in 0..16 {
        let at = out_col(c + q);
        let h = (at as usize).wrapping_neg() % 64 / 4;
        head[q] = h as u32;
        pick[q] = _mm512_add_epi32(iota, _mm512_set1_epi32(h as i32));
        line[q] = at.wrapping_add(4 * h) as *mut f32;
    }
    // the rows the strip reads: with a join and `ASK_JOINED`, the next tile's first 16 too,
    // asked for like the others (see `copy_tile_realigned`)
    let span = if joins.into_next && ASK_JOINED {
        nr + 16
    } else {
        nr
    };
    let mut ahead = if nr.next_multiple_of(16) <= ALONG_ROWS_UP_TO {
        (0, c + 32)
    } else {
        (REALIGNED_PREFETCH_ROWS, c)
    };
    let rows = span.next_multiple_of(16);
    let next_ahead = |ahead: &mut (usize, usize)| {
        let now = (ahead.0.min(span - 16), ahead.1);
        ahead.0 += 16;
        if ahead.0 >= rows {
            *ahead = (ahead.0 - rows, ahead.1 + 16);
        }
        now
    };
    let first = next_ahead(&mut ahead);
    // SAFETY: rows 0..16 and columns c..c+16 of the tile (the caller's guarantees; so are
    // the later blocks', below 16·full); the lines prefetched are rows of the tile or, with
    // `ASK_JOINED` and a join, of the next tile's first 16 (readable too: the caller's).
    let block0 = unsafe { load_block!(in_row, (0, c), (first.0, first.1)) };
    let mut prev = transpose16(block0);
    for (q, v) in prev.iter().enumerate() {
        if head[q] != 0 && !joins.after_previous {
            // SAFETY: rows 0..head of column c+q (head < 16 <= nr), lanes past it masked off.
            unsafe { _mm512_mask_storeu_ps(out_col(c + q) as *mut f32, (1 << head[q]) - 1, *v) };
        }
    }
    // joined into the next tile, one block more: its rows complete the last line of each
    // column (`nr` is then `16·full`, and those rows are readable: the caller's guarantees)
    let blocks = if joins.into_next { full + 1 } else { full };
    for b in 1..blocks {
        let at = if b < full || ASK_JOINED {
            next_ahead(&mut ahead)
        } else {
            (16 * b, c)
        };
        // SAFETY: as above.
        let y = transpose16(unsafe { load_block!(in_row, (16 * b, c), (at.0, at.1)) });
        for q in 0..16 {
            let l = _mm512_permutex2var_ps(prev[q], pick[q], y[q]);
            // SAFETY: rows head + 16(b-1) .. head + 16b of column c+q, inside its 16·full
            // rows (or, joined, the next tile's first `head` rows); `line[q]` is on a line
            // boundary (4-byte aligned columns: `head` lanes take it there), and so is every
            // 64 bytes on.
            unsafe { _mm512_stream_ps(line[q].add(16 * (b - 1)), l) };
        }
        prev = y;
    }
    if joins.into_next {
        return;
    }
    for (q, v) in prev.iter().enumerate() {
        let from_head: __mmask16 = !((1u32 << head[q]) - 1) as __mmask16;
        // SAFETY: rows 16(full-1) + head .. 16·full of column c+q, lanes before masked off.
        unsafe {
            _mm512_mask_storeu_ps(
                out_col(c + q).wrapping_add(64 * (full - 1)) as *mut f32,
                from_head,
                *v,
            )
        };
    }
    if !nr.is_multiple_of(16) {
        // SAFETY: the rows past the full blocks, columns c..c+16 (the caller's guarantees).
        unsafe { edge_block(in_row, out_col, (16 * full, c), (nr % 16, 16), false) };
    }
}

/// Asks for the line of each row in `rows` at column `c` (plus [`PREFETCH_AT`]) into L1, as
/// [`full_block`] asks for its rows' lines.
#[target_feature(enable = "avx512f")]
#[inline]
fn ask_rows(in_row: &impl Fn(usize) -> *const u8, rows: std::ops::Range<usize>, c: usize) {
    for r in rows {
        // A prefetch is a hint that never faults, whatever its address.
        _mm_prefetch::<_MM_HINT_T0>(in_row(r).wrapping_add(4 * c + PREFETCH_AT) as *const i8);
    }
}

/// The block of `k <= 16` rows and `m <= 16` columns at `(r, c)` of [`copy_tile`]'s tile: a
/// whole one ([`full_block`], streamed as `stream` says, prefetching the block at `ahead`)
/// or an edge ([`edge_block`], plain).
///
/// # Safety
/// As for [`full_block`] (a whole block) or [`edge_block`] (an edge, not `whole`).
#[target_feature(enable = "avx512f")]
#[inline]
unsafe fn block<const HINT: i32>(
    in_row: &impl Fn(usize) -> *const u8,
    out_col: &impl Fn(usize) -> *mut u8,
    (r, c): (usize, usize),
    (k, m): (usize, usize),
    ahead: (usize, usize),
    stream: bool,
) {
    // SAFETY: the caller's guarantees, for the kind of block chosen.
    unsafe {
        if k == 16 && m == 16 {
            full_block::<HINT>(in_row, out_col, (r, c), ahead, stream)
        } else {
            edge_block(in_row, out_col, (r, c), (k, m), false)
        }
    }
}

/// Copies a staged strip out: the `m` runs of `run` bytes at `base` go to `to(q)`, runs whose
/// destinations follow each other as one, whole lines streamed.
///
/// # Safety
/// `m · run` bytes readable at `base`; `run` bytes writable at each `to(q)`, not
/// overlapping the scratch.
#[inline]
unsafe fn flush(base: *const u8, run: usize, m: usize, to: impl Fn(usize) -> *mut u8) {
    let mut q = 0;
    while q < m {
        let start = to(q);
        let mut len = run;
        let mut next = q + 1;
        while next < m && to(next) == start.wrapping_add(len) {
            len += run;
            next += 1;
        }
        // SAFETY: runs q..next, adjacent in the output (checked) and in the scratch.
        unsafe { super::stream::stream_bytes(start, base.wrapping_add(q * run), len) };
        q = next;
    }
}

/// The 16 × 16 block at `(r, c)` of [`copy_tile`]'s tile, every lane valid; the lines of the
/// block at `(pr, pc)` are asked for on the way (rows `pr..pr + 16` of the tile, any columns:
/// a prefetch never faults).
///
/// # Safety
/// As for [`copy_tile`], for rows `r..r + 16` and columns `c..c + 16`; rows `pr..pr + 16` are
/// rows of the tile too (`in_row` is asked for them).
#[target_feature(enable = "avx512f")]
#[inline]
unsafe fn full_block<const HINT: i32>(
    in_row: &impl Fn(usize) -> *const u8,
    out_col: &impl Fn(usize) -> *mut u8,
    (r, c): (usize, usize),
    (pr, pc): (usize, usize),
    stream: bool,
) {
    let mut x = [_mm512_setzero_ps(); 16];
    for (q, v) in x.iter_mut().enumerate() {
        let at = in_row(r + q).wrapping_add(4 * c);
        let ahead = in_row(pr + q).wrapping_add(4 * pc + PREFETCH_AT);
        // SAFETY: row r+q, columns c..c+16: inside the tile. A prefetch is a hint that
        // never faults, whatever its address.
        unsafe {
            _mm_prefetch::<HINT>(ahead as *const i8);
            *v = _mm512_loadu_ps(at as *const f32);
        }
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
/// neighbours). `whole`: each column is stored as 16 lanes, the ones past `k` included
/// (into a staged strip, whose next column or slack takes them).
///
/// # Safety
/// As for [`copy_tile`], for rows `r..r + k` and columns `c..c + m`; with `whole`, 64 bytes
/// writable from each column's start.
#[target_feature(enable = "avx512f")]
#[inline]
unsafe fn edge_block(
    in_row: &impl Fn(usize) -> *const u8,
    out_col: &impl Fn(usize) -> *mut u8,
    (r, c): (usize, usize),
    (k, m): (usize, usize),
    whole: bool,
) {
    let load_mask: __mmask16 = if m == 16 { !0 } else { (1 << m) - 1 };
    let store_mask: __mmask16 = if k == 16 { !0 } else { (1 << k) - 1 };
    // A fixed count of rows and columns keeps the block in registers (with `take(k)` it
    // lived on the stack); masked loads and stores only where a line is partial: on the Zen 4
    // they cost several plain ones.
    let mut x = [_mm512_setzero_ps(); 16];
    for (q, v) in x.iter_mut().enumerate() {
        if q < k {
            let at = in_row(r + q).wrapping_add(4 * c) as *const f32;
            // SAFETY: row r+q < r+k, columns c..c+m: inside the tile; lanes past m are
            // masked off, never read (no fault either).
            *v = unsafe {
                if m == 16 {
                    _mm512_loadu_ps(at)
                } else {
                    _mm512_maskz_loadu_ps(load_mask, at)
                }
            };
        }
    }
    let y = transpose16(x);
    for (q, v) in y.iter().enumerate() {
        if q < m {
            let at = out_col(c + q).wrapping_add(4 * r) as *mut f32;
            // SAFETY: column c+q < c+m, rows r..r+k: inside the tile; lanes past k masked
            // off, unless `whole` (the caller's scratch has room for them).
            unsafe {
                if whole || k == 16 {
                    _mm512_storeu_ps(at, *v)
                } else {
                    _mm512_mask_storeu_ps(at, store_mask, *v)
                }
            }
        }
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
    /// columns at odd element offsets or 64-byte aligned and streamed, staged (columns
    /// adjacent or one element apart, at odd offsets), realigned, and walked diagonally.
    #[test]
    fn masked_edges_and_negative_strides_match_the_naive_loop() {
        let has = std::arch::is_x86_feature_detected!("avx512f");
        if !crate::exec::cpu::test_runs("avx512f", has) {
            return;
        }
        let sizes = [1usize, 2, 5, 15, 16, 17, 31, 32, 33, 40, 70];
        // and tiles of a few rows as long as the edge blocks ask ahead along (`EDGES_ASK_FROM`),
        // and strips long enough to ask down their rows (`ALONG_ROWS_UP_TO`)
        let few_long = [
            (5, 130),
            (14, 300),
            (20, 129),
            (33, 200),
            (300, 33),
            (529, 17),
        ];
        let shapes = sizes
            .iter()
            .flat_map(|&nr| sizes.iter().map(move |&nc| (nr, nc)));
        for (nr, nc) in shapes.chain(few_long) {
            for (reversed, mode) in [
                (false, Mode::Plain),
                (true, Mode::Plain),
                (false, Mode::Stream),
                (false, Mode::Staged { gap: 0 }),
                (true, Mode::Staged { gap: 1 }),
                (false, Mode::Realigned),
                (true, Mode::Realigned),
                (false, Mode::Diagonal { stream: false }),
                (true, Mode::Diagonal { stream: false }),
                (false, Mode::Diagonal { stream: true }),
                (true, Mode::Diagonal { stream: true }),
            ] {
                check(nr, nc, reversed, mode);
            }
        }
    }

    #[derive(Debug, Clone, Copy)]
    enum Mode {
        Plain,
        Stream,
        /// Output columns `gap` elements apart.
        Staged {
            gap: usize,
        },
        /// [`copy_tile_realigned`], columns one element longer than the tile's rows (each
        /// starting at another offset within a line).
        Realigned,
        /// [`copy_tile_diagonal`], streamed (as `Stream`) or plain (as `Plain`).
        Diagonal {
            stream: bool,
        },
    }

    fn check(nr: usize, nc: usize, reversed: bool, mode: Mode) {
        // input rows of nc + 3 elements; output columns of `ld` elements, 16-aligned when
        // streaming, else one element off
        let in_ld = nc + 3;
        let src: Vec<u32> = (0..nr * in_ld + 8).map(|i| i as u32 + 1).collect();
        let ld = match mode {
            Mode::Stream | Mode::Diagonal { stream: true } => nr.next_multiple_of(16),
            Mode::Plain | Mode::Realigned | Mode::Diagonal { stream: false } => nr + 1,
            Mode::Staged { gap } => nr + gap,
        };
        let mut buf = vec![0u32; ld * nc + 32];
        let skip = match mode {
            Mode::Stream | Mode::Diagonal { stream: true } => {
                (buf.as_ptr() as usize).wrapping_neg() % 64 / 4
            }
            _ => 1,
        };
        let dst = buf[skip..].as_mut_ptr() as *mut u8;
        let base = src.as_ptr().wrapping_add(1) as *const u8;
        // a table of the tile's rows, as the permuting copy's: a row asked for (or read)
        // outside the tile indexes past it and panics
        let rows: Vec<*const u8> = (0..nr)
            .map(|r| {
                let r = if reversed { nr - 1 - r } else { r };
                base.wrapping_add(4 * r * in_ld)
            })
            .collect();
        let row = |r: usize| rows[r];
        let col = |c: usize| dst.wrapping_add(4 * c * ld);
        let mut scratch = vec![0u8; staged_scratch(nr)];
        let store = match mode {
            Mode::Plain | Mode::Realigned | Mode::Diagonal { .. } => Store::Plain,
            Mode::Stream => Store::Stream,
            Mode::Staged { .. } => Store::Staged(&mut scratch),
        };
        // SAFETY: element (r, c) at `row(r) + 4c` lies in `src` (rows of `in_ld` > nc
        // elements from offset 1) and at `col(c) + 4r` in `buf` (columns of `ld` >= nr from
        // `skip` < 17, 4-byte aligned); aligned to 64 bytes when streaming; the scratch
        // holds two halves of 16 columns and a line; AVX-512F checked above.
        unsafe {
            if let Mode::Diagonal { stream } = mode {
                copy_tile_diagonal(row, col, (nr, nc), stream)
            } else if matches!(mode, Mode::Realigned) {
                copy_tile_realigned::<false>(row, col, (nr, nc), Joins::default())
            } else {
                copy_tile(row, col, (nr, nc), store)
            }
        };
        super::super::transpose::fence();
        for r in 0..nr {
            for c in 0..nc {
                let from = if reversed { nr - 1 - r } else { r };
                assert_eq!(
                    buf[skip + c * ld + r],
                    src[1 + from * in_ld + c],
                    "{nr}x{nc} reversed {reversed} {mode:?} at ({r}, {c})"
                );
            }
        }
        // nothing outside the tile's columns was written
        for c in 0..nc {
            for r in nr..ld {
                assert_eq!(
                    buf[skip + c * ld + r],
                    0,
                    "{nr}x{nc} {mode:?} wrote ({r}, {c})"
                );
            }
        }
        assert!(
            buf[..skip].iter().all(|&v| v == 0),
            "{nr}x{nc} {mode:?} wrote before"
        );
        assert!(
            buf[skip + ld * nc..].iter().all(|&v| v == 0),
            "{nr}x{nc} {mode:?} wrote after"
        );
    }
}
