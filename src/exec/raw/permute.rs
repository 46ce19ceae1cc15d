//! The executor of a permuting copy ([`crate::exec::permute`]): tiles of `R × C` copied from
//! the input to the output through register transposes (16 × 16 with AVX-512 or two 8 × 8
//! with AVX2 for 4-byte elements, two 4 × 4 with AVX2 for 8-byte ones), each input row read
//! in whole lines and each output column written 64 bytes at a time; other element sizes
//! (runs of a folded dim) are copied run by run, down the output's columns, or along the
//! input's rows for runs of a line or more (whose whole lines are streamed). Streamed tiles
//! whose columns the kernel cannot store whole lines into are staged as images
//! ([`super::tile_image`]). Raw memory: see the invariants in [`super`].

use super::tile_image::{ImageLayout, Images};
use super::{prefetch_line, SendPtr};
use crate::exec::permute::{PermuteCopy, TileKernel as Kernel, Ways, MAX_WAYS, STREAMED_RUN_LINES};

/// Copies work items `begin..end` of `p` (see [`PermuteCopy::items`]) from the input at `src`
/// to the output at `dst`.
///
/// # Safety
/// `p` describes the plan whose operands are at `dst` (output, operand 0) and `src` (input):
/// every element index of the plan, split into (outer, r, c) as `p` does, addresses an
/// element of both inside their storage (the plan's guarantees: `p` only regroups the plan's
/// dims and strides), the output writable, the two not overlapping; no other thread writes
/// the output elements of these items meanwhile.
pub(crate) unsafe fn run(p: &PermuteCopy, dst: SendPtr, src: SendPtr, begin: usize, end: usize) {
    let (len_r, len_c) = (p.rows.len(), p.cols.len());
    let e = p.elem;
    // the tables of row and column offsets: whole when a few tiles long (made once: two
    // row tiles taken in turn remade a 1552-entry table at every item, 10% of the (16, 117,
    // 108, 42) by (3, 1, 0, 2) copy); for a group that steps evenly ([`Group::even_stride`])
    // one tile's offsets from its first row or column, made once, the tile's own offset then
    // added to its corner (NCHW -> NHWC of 3 channels remade a 2048-column table at every
    // tile of 3 × 2048 elements: 45% of its time); else one tile's, made when the tile
    // changes
    let whole = (
        len_r <= WHOLE_TABLE_TILES * p.tile_r,
        len_c <= WHOLE_TABLE_TILES * p.tile_c,
    );
    let even = (
        p.rows.even_stride().filter(|_| !whole.0),
        p.cols.even_stride().filter(|_| !whole.1),
    );
    // (a tile's own table holds the next tile's first 16 rows too, for a realigned tile
    // joined into it: `lines512::Joins`)
    let mut in_row = vec![
        0isize;
        if whole.0 {
            len_r
        } else {
            (p.tile_r + 16).min(len_r)
        }
    ];
    let mut out_col = vec![0isize; if whole.1 { len_c } else { p.tile_c.min(len_c) }];
    if whole.0 || even.0.is_some() {
        p.rows.offsets(0, &mut in_row);
    }
    if whole.1 || even.1.is_some() {
        p.cols.offsets(0, &mut out_col);
    }
    // the tile whose tables are made
    let mut have = (usize::MAX, usize::MAX);
    let k = Kernel::for_elem(e);
    // what the streamed tiles' output columns allow (`lines`) and their images' layout,
    // kept for the last few tables of columns (keyed by their count of rows and table: the
    // same for every full tile of an even group): a walk that takes two column tiles in
    // turn sorted an 832-column layout at every tile, 11% of (78, 80, 85, 16) by (1, 3, 2,
    // 0); and the scratch the staged tiles wait in (made at the first one)
    let mut described: Vec<Described> = Vec::new();
    let mut current = 0;
    let no_layout = ImageLayout::default();
    let mut images: Option<Images> = None;
    let image_bytes = (p.tile_r * p.tile_c * e).max(super::super::cache::sizes().l2 / 8);
    // output columns that a register kernel cannot stream whole lines into (not aligned to
    // its stores) go through an image where they are worth staging
    let direct = match k {
        Kernel::Avx512x4 => 64,
        _ => 32,
    };
    let ways = p.ways();
    for item in begin..end {
        let (tr, tc, o) = p.tile_of(item);
        let (r0, c0) = (tr * p.tile_r, tc * p.tile_c);
        let (nr, nc) = (p.tile_r.min(len_r - r0), p.tile_c.min(len_c - c0));
        let (at_r, at_c) = (if whole.0 { r0 } else { 0 }, if whole.1 { c0 } else { 0 });
        // the offsets of this tile's first row in the input and first column in the output
        // that its tables leave out (even groups)
        let (shift_in, shift_out) = (
            even.0.map_or(0, |s| r0 as isize * s),
            even.1.map_or(0, |s| c0 as isize * s),
        );
        // this tile's rows and those of the next tile's first 16 that exist
        let reach = (nr + 16).min(len_r - r0);
        if have.0 != tr && !whole.0 && even.0.is_none() {
            p.rows.offsets(r0, &mut in_row[..reach]);
        }
        let (rows, cols) = (&in_row[at_r..at_r + reach], &mut out_col[at_c..at_c + nc]);
        if have.1 != tc && !whole.1 && even.1.is_none() {
            p.cols.offsets(c0, cols);
        }
        have = (tr, tc);
        let columns = (nr, nc, if even.1.is_some() { usize::MAX } else { tc });
        if p.stream && described.get(current).is_none_or(|d| d.columns != columns) {
            current = match described.iter().position(|d| d.columns == columns) {
                Some(at) => at,
                None => {
                    let interleaved = matches!(ways, Some(Ways::Interleave(_)));
                    let new = Described::of(columns, cols, e, interleaved, k != Kernel::Runs);
                    if described.len() < DESCRIBED_TABLES {
                        described.push(new);
                        described.len() - 1
                    } else {
                        // (round robin from the one in use: the others were used earlier)
                        let at = (current + 1) % DESCRIBED_TABLES;
                        described[at] = new;
                        at
                    }
                }
            };
        }
        let (lines, layout) = match described.get(current) {
            Some(d) if p.stream => (d.lines, &d.layout),
            _ => (OutputLines::default(), &no_layout),
        };
        let (off_out, off_in) = outer_offsets(p, o);
        let (off_out, off_in) = (off_out + shift_out, off_in + shift_in);
        let s = src.get().wrapping_offset(off_in + (c0 * e) as isize) as *const u8;
        let d = dst.get().wrapping_offset(off_out + (r0 * e) as isize);
        #[cfg(target_arch = "x86_64")]
        let ahead = rows;
        let (rows, cols) = (&rows[..nr], &*cols);
        // whether a tile of `n` rows over these columns takes the realigned kernel (its
        // neighbours along the rows have the same columns and output alignment)
        #[cfg(target_arch = "x86_64")]
        let realigned = |n: usize, lines: &OutputLines| {
            p.realign
                && k == Kernel::Avx512x4
                && lines.apart
                && n >= 32
                && lines.aligned_to >= 4
                && (d as usize).is_multiple_of(4)
        };
        if let Some(ways) = ways {
            // an interleaved tile whose output run is off the lines goes through an image
            // (`tile_image`), continued by the tiles that follow it in the output and
            // streamed whole: 1.1-1.5x over plain stores for runs of 228-8000 elements
            // (float32, 2-core Zen 4); the deinterleave's columns are stored plainly there
            // (its images lost 0.5-0.9x)
            let aligned = match ways {
                Ways::Interleave(_) => (d.wrapping_offset(cols[0]) as usize).is_multiple_of(64),
                Ways::Deinterleave(_) => cols
                    .iter()
                    .all(|&c| (d.wrapping_offset(c) as usize).is_multiple_of(64)),
            };
            let staged = p.stream && !aligned && matches!(ways, Ways::Interleave(_));
            let (to, cols) = if staged {
                let images = images.get_or_insert_with(|| Images::new(image_bytes));
                // SAFETY: as for the staged tiles below (`layout` is set for this table of
                // columns whenever interleaving is planned).
                (unsafe { images.image(layout, d) }, &layout.cols[..])
            } else {
                (d, cols)
            };
            let stream = p.stream && aligned && !staged;
            // SAFETY: element (r, c) of this tile at `s + rows[r] + e·c` and `to + e·r +
            // cols[c]` (as for the kernels below); `ways` found the tile's rows all of the
            // plan's with the output columns one run (column c at `cols[0] + e·c·nr`:
            // interleave), or the columns all of them with the input rows one run (row r at
            // `rows[0] + e·r·nc`: deinterleave), and the CPU merges `e`-byte elements
            // (`cpu::lane_merges`); streamed only where aligned (checked just
            // above), and the walk fences after.
            unsafe {
                match ways {
                    Ways::Interleave(k) => {
                        // the input corner of a tile ahead (all the rows are in every tile:
                        // only the outer index and the column tile move), whose lines the
                        // kernel asks for as it reads this tile's: a few rows of a few
                        // lines each per tile are more streams than the hardware prefetchers
                        // pick up
                        let next = if item + 1 < end {
                            let (_, tc, o) = p.tile_of(item + 1);
                            let off_in = outer_offsets(p, o).1 + (tc * p.tile_c * e) as isize;
                            src.get().wrapping_offset(off_in) as *const u8
                        } else {
                            s
                        };
                        merge_interleave(
                            e,
                            |r| s.wrapping_offset(rows[r]),
                            k,
                            nc,
                            to.wrapping_offset(cols[0]),
                            stream,
                            |r| next.wrapping_offset(rows[r]),
                        )
                    }
                    Ways::Deinterleave(k) => merge_deinterleave(
                        e,
                        s.wrapping_offset(rows[0]),
                        k,
                        nr,
                        |c| to.wrapping_offset(cols[c]),
                        stream,
                    ),
                }
            }
            continue;
        }
        #[cfg(target_arch = "x86_64")]
        if realigned(nr, &lines) {
            // the tiles before and after along the rows (items whichever thread takes them)
            // join this one where they take the realigned kernel too
            use super::lines512::Joins;
            let neighbour = |n: usize| n == nr || realigned(n, &OutputLines::of(cols, n * e));
            let next = (len_r - r0 - nr).min(p.tile_r);
            let joins = Joins {
                after_previous: r0 > 0 && Joins::possible(p.tile_r, nr) && neighbour(p.tile_r),
                into_next: next > 0 && Joins::possible(nr, next) && neighbour(next),
            };
            // SAFETY: as for the kernels below (AVX-512F: `k`); the output columns are
            // 4-byte aligned (checked here), as its strips ask; with `into_next`, `ahead`
            // holds the next tile's first 16 rows (it has at least 32: `Joins::possible`),
            // whose output this tile writes up to each column's first line boundary and
            // which that tile then leaves, as `joins.after_previous` says there; the walk
            // fences after.
            unsafe {
                super::lines512::copy_tile_realigned::<false>(
                    |r| s.wrapping_offset(ahead[r]),
                    |c| d.wrapping_offset(cols[c]),
                    (nr, nc),
                    joins,
                )
            };
            continue;
        }
        let staged = p.stream
            && lines.stage
            && k != Kernel::Runs
            && !(lines.aligned_to >= direct && (d as usize).is_multiple_of(direct));
        let (to, cols) = if staged {
            let images = images.get_or_insert_with(|| Images::new(image_bytes));
            // SAFETY: the tile's output columns (`layout`, made from `cols` for this table)
            // are output elements of this work item, which this thread alone writes; the
            // image is filled below, before the next one; flushed before returning, and the
            // walk fences after.
            (unsafe { images.image(layout, d) }, &layout.cols[..])
        } else {
            (d, cols)
        };
        let stream = p.stream && !staged;
        // SAFETY: element (r, c) of this tile is element (r0 + r, c0 + c) of the outer index
        // `o`: at `s + rows[r] + c·e` in the input and `d + r·e + cols[c]` in the output, by
        // the construction of the tables (`Group::offsets`; an even group's from the tile's
        // corner, whose offset `s` and `d` hold) and the caller's guarantees —
        // or, staged, at `to + r·e + layout.cols[c]` in the image, which holds `nc` columns
        // of `nr·e` bytes; the kernels' CPU features were checked by `Kernel::for_elem`.
        unsafe {
            match k {
                #[cfg(target_arch = "x86_64")]
                Kernel::Avx512x4 => tile_avx512_4(s, rows, to, cols, stream, staged, lines),
                #[cfg(target_arch = "x86_64")]
                Kernel::Avx2x4 => tile_avx2::<8>(s, rows, to, cols, stream, lines),
                #[cfg(target_arch = "x86_64")]
                Kernel::Avx2x8 => tile_avx2::<4>(s, rows, to, cols, stream, lines),
                _ if k.runs_along_input_rows(e) => {
                    let stream =
                        stream && whole_lines(e, lines.aligned_to, to) >= STREAMED_RUN_LINES;
                    tile_runs_along_rows(s, rows, to, cols, e, stream)
                }
                _ => tile_runs(s, rows, to, cols, e),
            }
        }
    }
    if let Some(images) = images.as_mut() {
        // SAFETY: the images recorded above, as guaranteed there.
        unsafe { images.flush() };
    }
}

/// Interleaves a tile's `k` rows into its one output run (`raw::interleave`'s contract):
/// with AVX-512's lane permutes where the CPU has them for `width`-byte elements, else with
/// byte shuffles (`raw::lane_shuffle`).
///
/// # Safety
/// As `interleave::interleave`; `cpu::lane_merges(width)` holds.
unsafe fn merge_interleave(
    width: usize,
    row: impl Fn(usize) -> *const u8,
    k: usize,
    n: usize,
    out: *mut u8,
    stream: bool,
    next: impl Fn(usize) -> *const u8,
) {
    let rows: [*const u8; MAX_WAYS] = std::array::from_fn(|r| row(r.min(k - 1)));
    let next: [*const u8; MAX_WAYS] = std::array::from_fn(|r| next(r.min(k - 1)));
    #[cfg(target_arch = "x86_64")]
    if crate::exec::cpu::avx512_permutes(width) {
        // SAFETY: the caller's guarantees, and the CPU's lane permutes (just checked).
        return unsafe { super::interleave::interleave(width, &rows, k, n, out, stream, &next) };
    }
    // SAFETY: the caller's guarantees; without the lane permutes, `lane_merges` means
    // `byte_shuffles`.
    unsafe { super::lane_shuffle::interleave(width, &rows, k, n, out, stream, &next) }
}

/// Deinterleaves a tile's one input run into its `k` output columns
/// (`raw::interleave`'s contract), as [`merge_interleave`] chooses.
///
/// # Safety
/// As `interleave::deinterleave`; `cpu::lane_merges(width)` holds.
unsafe fn merge_deinterleave(
    width: usize,
    inp: *const u8,
    k: usize,
    n: usize,
    col: impl Fn(usize) -> *mut u8,
    stream: bool,
) {
    let cols: [*mut u8; MAX_WAYS] = std::array::from_fn(|c| col(c.min(k - 1)));
    #[cfg(target_arch = "x86_64")]
    if crate::exec::cpu::avx512_permutes(width) {
        // SAFETY: the caller's guarantees, and the CPU's lane permutes (just checked).
        return unsafe { super::interleave::deinterleave(width, inp, k, n, &cols, stream) };
    }
    // SAFETY: the caller's guarantees; without the lane permutes, `lane_merges` means
    // `byte_shuffles`.
    unsafe { super::lane_shuffle::deinterleave(width, inp, k, n, &cols, stream) }
}

/// Tables of output columns whose [`Described`] a walk keeps.
const DESCRIBED_TABLES: usize = 8;

/// What a table of a tile's output columns allows when streamed, and its image's layout.
struct Described {
    /// (rows, columns, column tile or `usize::MAX` for an even group's one table)
    columns: (usize, usize, usize),
    lines: OutputLines,
    layout: ImageLayout,
}

impl Described {
    /// For output columns at `cols` of `columns.0` elements of `e` bytes, the layout made
    /// for `interleaved` tiles (`raw::interleave`) and where the `registers` kernels may
    /// stage them.
    fn of(
        columns: (usize, usize, usize),
        cols: &[isize],
        e: usize,
        interleaved: bool,
        registers: bool,
    ) -> Described {
        let run = columns.0 * e;
        let mut lines = OutputLines::of(cols, run);
        let mut layout = ImageLayout::default();
        if interleaved || registers && (lines.stage || lines.apart) {
            layout.set(cols, run);
            // columns apart within the kernels' strips of 16 may still follow each other in
            // the output (the (92, 10, 20, 5, 16, 6) by (0, 3, 1, 5, 4, 2) copy's 20-row
            // columns, 1280 bytes apart in the strip's order, 16 adjacent in the output):
            // plain stores scatter them, the image streams them as one run
            lines.stage |= layout.bytes()
                >= crate::exec::stores::staged_run(false).saturating_mul(layout.runs());
        }
        Described {
            columns,
            lines,
            layout,
        }
    }
}

/// The offsets (output, input; bytes) of outer index `o` of `p`.
fn outer_offsets(p: &PermuteCopy, mut o: usize) -> (isize, isize) {
    let (mut off_out, mut off_in) = (0, 0);
    for &(n, so, si) in &p.outer {
        let d = o % n;
        o /= n;
        off_out += d as isize * so;
        off_in += d as isize * si;
    }
    (off_out, off_in)
}

/// Tables of row or column offsets up to this many tiles long are made whole, once.
const WHOLE_TABLE_TILES: usize = 4;

/// How far ahead along an input row (bytes) the run copy asks for lines: it reads many rows
/// at once in steps of one run, more streams than the hardware prefetchers follow (the
/// register kernels read whole lines per row and step, which they do follow).
const PREFETCH_AHEAD: usize = 512;

/// Copies `len` bytes from `s` to `d` in as few unaligned moves as it can (16-byte moves, the
/// last one overlapping the one before).
///
/// # Safety
/// `len` bytes readable at `s`, writable at `d`, not overlapping.
#[inline(always)]
unsafe fn copy_run(s: *const u8, d: *mut u8, len: usize) {
    // SAFETY: every move below stays inside `[0, len)` of both ranges (the caller's).
    unsafe {
        if len >= 16 {
            let mut o = 0;
            while o + 16 <= len {
                let v = (s.add(o) as *const u128).read_unaligned();
                (d.add(o) as *mut u128).write_unaligned(v);
                o += 16;
            }
            if o < len {
                let v = (s.add(len - 16) as *const u128).read_unaligned();
                (d.add(len - 16) as *mut u128).write_unaligned(v);
            }
        } else if len >= 8 {
            let (a, b) = (
                (s as *const u64).read_unaligned(),
                (s.add(len - 8) as *const u64).read_unaligned(),
            );
            (d as *mut u64).write_unaligned(a);
            (d.add(len - 8) as *mut u64).write_unaligned(b);
        } else if len >= 4 {
            let (a, b) = (
                (s as *const u32).read_unaligned(),
                (s.add(len - 4) as *const u32).read_unaligned(),
            );
            (d as *mut u32).write_unaligned(a);
            (d.add(len - 4) as *mut u32).write_unaligned(b);
        } else {
            std::ptr::copy_nonoverlapping(s, d, len);
        }
    }
}

/// A tile one element (`e` bytes: an element, or a run shorter than a line) at a time: down
/// each output column (a run of output bytes), the input's lines reused from one column to
/// the next.
///
/// # Safety
/// Element `(r, c)` at `s + rows[r] + c·e` (readable) and `d + r·e + cols[c]` (writable), for
/// every `r < rows.len()`, `c < cols.len()`; the two sides do not overlap.
unsafe fn tile_runs(s: *const u8, rows: &[isize], d: *mut u8, cols: &[isize], e: usize) {
    for (c, &col) in cols.iter().enumerate() {
        let from = s.wrapping_add(c * e);
        let to = d.wrapping_offset(col);
        for (r, &row) in rows.iter().enumerate() {
            let at = from.wrapping_offset(row);
            prefetch_line(at.wrapping_add(PREFETCH_AHEAD));
            // SAFETY: element (r, c), as the caller guarantees.
            unsafe { copy_run(at, to.wrapping_add(r * e), e) };
        }
    }
}

/// Whole lines in each of a tile's `e`-byte runs whose output starts at `d` plus column
/// offsets that are multiples of `aligned_to`: every line of a run when all of them start on
/// a line, else at least as many as any run holds, however its ends fall.
fn whole_lines(e: usize, aligned_to: usize, d: *mut u8) -> usize {
    if e.is_multiple_of(64) && aligned_to >= 64 && (d as usize).is_multiple_of(64) {
        e / 64
    } else {
        e.saturating_sub(63) / 64
    }
}

/// A tile of runs of at least [`RUNS_ALONG_INPUT_ROWS_FROM`] bytes, along the input's rows:
/// each row's runs read in order and each written to its output column, the run's whole lines
/// streamed when `stream` (its partial end lines plainly).
///
/// [`RUNS_ALONG_INPUT_ROWS_FROM`]: crate::exec::permute::RUNS_ALONG_INPUT_ROWS_FROM
///
/// # Safety
/// As for [`tile_runs`]; when `stream`, the caller fences before another thread reads the
/// output.
unsafe fn tile_runs_along_rows(
    s: *const u8,
    rows: &[isize],
    d: *mut u8,
    cols: &[isize],
    e: usize,
    stream: bool,
) {
    for (r, &row) in rows.iter().enumerate() {
        let (from, to) = (s.wrapping_offset(row), d.wrapping_add(r * e));
        for (c, &col) in cols.iter().enumerate() {
            let (at, out) = (from.wrapping_add(c * e), to.wrapping_offset(col));
            // SAFETY: element (r, c), as the caller guarantees.
            unsafe {
                if stream {
                    super::stream::stream_bytes(out, at, e)
                } else {
                    copy_run(at, out, e)
                }
            }
        }
    }
}

/// The tile through the AVX2 register transposes of [`super::lines256`] (`32 / L`-byte
/// elements), whole output registers streamed when asked and aligned, as `lines` says.
///
/// # Safety
/// As for [`tile_runs`] with `e = 32 / L`; the CPU has AVX2.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
unsafe fn tile_avx2<const L: usize>(
    s: *const u8,
    rows: &[isize],
    d: *mut u8,
    cols: &[isize],
    stream: bool,
    lines: OutputLines,
) {
    let aligned = stream && lines.aligned_to >= 32 && (d as usize).is_multiple_of(32);
    let close = rows.len() > 1 && rows[1].abs_diff(rows[0]) <= super::lines256::CLOSE_ROWS;
    // SAFETY: element (r, c) at `s + rows[r] + c·e` and `d + r·e + cols[c]`: the caller's
    // guarantees, which are `copy_tile`'s; every `d + cols[c]` is 32-byte aligned when
    // streaming (`aligned`).
    unsafe {
        super::lines256::copy_tile::<L>(
            |r| s.wrapping_offset(rows[r]),
            |c| d.wrapping_offset(cols[c]),
            (rows.len(), cols.len()),
            aligned,
            close,
        )
    }
}

/// [`tile_avx2`] for 4-byte elements with AVX-512: 16 × 16 register transposes, each input
/// row read and each output column written one 64-byte line per block, the tile's edges
/// masked ([`super::lines512`]); output columns that are line-aligned streamed when asked,
/// an image (`image`: scratch, see [`super::tile_image`]) in the walk that suits it.
///
/// # Safety
/// As for [`tile_runs`] with `e = 4`; the CPU has AVX-512F.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx512f")]
unsafe fn tile_avx512_4(
    s: *const u8,
    rows: &[isize],
    d: *mut u8,
    cols: &[isize],
    stream: bool,
    image: bool,
    lines: OutputLines,
) {
    use super::lines512::Store;
    let store = if image {
        Store::Image
    } else if stream && lines.aligned_to >= 64 && (d as usize).is_multiple_of(64) {
        Store::Stream
    } else {
        Store::Plain
    };
    // SAFETY: element (r, c) at `s + rows[r] + 4c` and `d + 4r + cols[c]`: the caller's
    // guarantees, which are `lines512::copy_tile`'s.
    unsafe {
        super::lines512::copy_tile(
            |r| s.wrapping_offset(rows[r]),
            |c| d.wrapping_offset(cols[c]),
            (rows.len(), cols.len()),
            store,
        )
    }
}

/// What a streamed tile's output columns allow, from its table of column offsets (found
/// once per table, not per tile: small tiles of many outer indices paid 15% for it).
#[derive(Debug, Clone, Copy, Default)]
struct OutputLines {
    /// The largest power of two up to a line (64) that divides every column's offset
    /// (relative to the tile's output corner): 64 when every column starts on a line.
    aligned_to: usize,
    /// The columns, merged where adjacent within each strip of 16, average runs long enough
    /// to stage ([`crate::exec::stores::staged_run`]): the tile goes through an image
    /// ([`super::tile_image`]) unless its columns are aligned to the kernel's streamed stores.
    stage: bool,
    /// No two neighbours in a strip of 16 columns follow each other in the output.
    apart: bool,
}

impl OutputLines {
    /// For columns at `cols` of `run` bytes each.
    fn of(cols: &[isize], run: usize) -> OutputLines {
        let runs: usize = cols
            .chunks(16)
            .map(|strip| {
                1 + strip
                    .windows(2)
                    .filter(|w| w[1] != w[0] + run as isize)
                    .count()
            })
            .sum();
        let adjacent = runs < cols.len();
        OutputLines {
            aligned_to: cols
                .iter()
                .fold(64, |a, &c| a.min(1 << c.trailing_zeros().min(6))),
            stage: cols.len() * run
                >= crate::exec::stores::staged_run(adjacent).saturating_mul(runs),
            apart: !adjacent,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::exec::permute::plan_any_size;

    #[test]
    fn output_lines_know_the_columns_alignment() {
        let of = |cols: &[isize], run| OutputLines::of(cols, run).aligned_to;
        assert_eq!(of(&[0, 64, 128], 64), 64);
        assert_eq!(of(&[0, 32, 64], 32), 32);
        assert_eq!(of(&[0, 20, 40], 20), 4);
        assert_eq!(of(&[-64, -128, 0], 64), 64);
        assert_eq!(of(&[], 4), 64);
        // 16 adjacent columns of 20 bytes: one 320-byte run, which no machine stages; 16
        // columns apart are staged from runs of 512 bytes (or any length where the last
        // level is far)
        let adjacent: Vec<isize> = (0..16).map(|c| 20 * c).collect();
        assert!(!OutputLines::of(&adjacent, 20).stage);
        let apart: Vec<isize> = (0..16).map(|c| 1000 * c).collect();
        assert!(OutputLines::of(&apart, 512).stage);
        let far = crate::exec::stores::last_level() == crate::exec::stores::LastLevel::Far;
        assert_eq!(OutputLines::of(&apart, 20).stage, far);
        // (the run then asks the image whether they follow each other in the output)
        assert!(OutputLines::of(&apart, 20).apart);
        assert!(!OutputLines::of(&adjacent, 20).apart);
    }

    /// Every permutation of small shapes (sizes around the kernels' steps) copied with each
    /// kernel equals the naive permuted copy.
    #[test]
    fn permuting_copies_match_the_naive_loop() {
        let shapes: [&[usize]; 6] = [
            &[33, 47],
            &[16, 64],
            &[3, 17, 40],
            &[9, 31, 2, 7],
            &[5, 1, 33, 18],
            &[2, 3, 5, 7, 4],
        ];
        for shape in shapes {
            let n = shape.len();
            let numel: usize = shape.iter().product();
            let mut perms = vec![(0..n).collect::<Vec<_>>()];
            // all permutations (n <= 5)
            for k in 1..n {
                let mut next = Vec::new();
                for p in &perms {
                    for i in 0..=k {
                        let mut q = p.clone();
                        let v = q.remove(k);
                        q.insert(i, v);
                        next.push(q);
                    }
                }
                perms = next;
            }
            for perm in &perms {
                check::<u32>(shape, perm, numel);
                check::<u64>(shape, perm, numel);
            }
        }
    }

    /// Sizes around the register kernels' steps (5, 14, 15, 16, 17, 49, 65 rows or columns, one-element
    /// dims, batches of 2-D transposes as in NCHW <-> NHWC), every element width the copy
    /// takes (4 and 8 bytes through the register kernels, 16 through the run copy), streamed
    /// (directly or staged as images) and not, tiles cut at odd edges, ranges split as two
    /// threads would run them.
    #[test]
    fn permuting_copies_at_tile_edges_match_the_naive_loop() {
        let cases: [(&[usize], &[usize]); 23] = [
            (&[15, 16], &[1, 0]),
            // tiles shorter than a register step (14 and 5 rows: the edge blocks alone), the
            // last columns short of a register too
            (&[14, 45, 3], &[1, 0, 2]),
            (&[5, 4, 19, 3], &[1, 2, 0, 3]),
            // strips of 32 and 16 rows (streamed 4-byte elements), then the fringe
            (&[49, 17], &[1, 0]),
            (&[65, 9, 2], &[1, 0, 2]),
            (&[16, 17], &[1, 0]),
            (&[17, 15], &[1, 0]),
            (&[16, 33], &[1, 0]),
            (&[1, 16, 17], &[2, 1, 0]),
            (&[16, 1, 17], &[2, 0, 1]),
            (&[16, 17, 2], &[1, 0, 2]),
            (&[32, 17, 3], &[1, 0, 2]),
            (&[3, 16, 17], &[0, 2, 1]),
            (&[17, 33, 2, 3], &[1, 0, 2, 3]),
            (&[8, 31, 5], &[1, 0, 2]),
            (&[64, 15, 3], &[1, 0, 2]),
            // output columns apart (rows of 20 or 40, columns 16 apart in the output): staged
            // when streamed, through images of few rows or many
            (&[20, 6, 16], &[2, 1, 0]),
            (&[40, 6, 17], &[2, 1, 0]),
            (&[5, 3, 18, 2], &[2, 1, 3, 0]),
            // columns apart in the kernels' strips (6 fastest, 480 bytes apart), 16 of them
            // adjacent in the output: staged, the image's runs 16 columns long
            (&[20, 16, 6, 3], &[2, 1, 3, 0]),
            // rows long enough for realigned tiles to join along them (48 + 48 + 4, 64 + 36;
            // 48 · 3 + 17, 64 + 64 + 33; with outer indices), ranges split between joins
            (&[100, 17], &[1, 0]),
            (&[161, 33], &[1, 0]),
            (&[113, 20, 3], &[1, 0, 2]),
        ];
        for (shape, perm) in cases {
            let numel: usize = shape.iter().product();
            check::<u32>(shape, perm, numel);
            check::<u64>(shape, perm, numel);
            check::<u128>(shape, perm, numel);
        }
    }

    /// Tiles of 2 to 8 rows into an output where each tile is one run, and of 2 to 8 columns
    /// from an input where it is one (NCHW <-> NHWC of a few channels), merged lane by lane
    /// with AVX-512 (`interleave`) for 1-, 2-, 4- and 8-byte elements: full strips and short
    /// ones, outer dims, outputs on a line and past one (streamed only where aligned, else
    /// interleaved through images).
    #[test]
    fn few_rows_or_columns_match_the_naive_loop() {
        // (the long sides at least `MIN_MERGED_EDGE`, and not multiples of a strip: full
        // strips of every width, then a short one; streamed, outputs off the lines go
        // through images, which the next tiles continue)
        let cases: [(&[usize], &[usize]); 12] = [
            (&[3, 130, 7], &[1, 0, 2]),
            (&[130, 5, 7], &[1, 0, 2]),
            (&[3, 1100], &[1, 0]),
            (&[1100, 3], &[1, 0]),
            (&[2, 1037, 3], &[1, 0, 2]),
            (&[1037, 2, 3], &[1, 0, 2]),
            (&[8, 1041], &[1, 0]),
            (&[1041, 8], &[1, 0]),
            (&[4, 1030, 5], &[1, 0, 2]),
            (&[1030, 4, 5], &[1, 0, 2]),
            (&[5, 7, 150], &[1, 2, 0]),
            (&[7, 150, 5], &[2, 0, 1]),
        ];
        for (shape, perm) in cases {
            let numel: usize = shape.iter().product();
            // (every plan's tiles take the merge where AVX-512 runs)
            let (mut so, mut si) = (vec![0isize; shape.len()], vec![0isize; shape.len()]);
            let (mut acc_o, mut acc_i) = (4isize, 4isize);
            for d in 0..shape.len() {
                so[d] = acc_o;
                acc_o *= shape[d] as isize;
                si[perm[d]] = acc_i;
                acc_i *= shape[perm[d]] as isize;
            }
            for w in [1, 2, 4, 8] {
                let p = plan_any_size(shape, |d| so[d] / 4 * w, |d| si[d] / 4 * w, w as usize, 0)
                    .unwrap();
                // (the tile's short side is the ways; byte shuffles take a few of them)
                let ways = p.rows.len().min(p.cols.len());
                let w = w as usize;
                assert_eq!(
                    p.ways().is_some(),
                    crate::exec::cpu::avx512_permutes(w)
                        || crate::exec::cpu::byte_shuffles(w)
                            && ways <= crate::exec::permute::shuffled_ways(w),
                    "{shape:?} {perm:?}: {p:?}"
                );
            }
            for past_line in [0, 4, 16, 48] {
                check_past_line::<u32>(shape, perm, numel, past_line);
            }
            for past_line in [0, 2, 16, 62] {
                check_past_line::<u8>(shape, perm, numel, past_line);
            }
            for past_line in [0, 2, 16, 48] {
                check_past_line::<u16>(shape, perm, numel, past_line);
            }
            for past_line in [0, 8, 16, 56] {
                check_past_line::<u64>(shape, perm, numel, past_line);
            }
        }
    }

    /// Runs of a dim contiguous in both (4-byte elements, 16 to 128 of them: 64 to 512 bytes,
    /// and 52 and 80 bytes) copied along the input's rows, streamed (whole lines of runs that
    /// hold two) and not, into outputs starting on a line and 16 bytes past one (where a run's
    /// lines straddle: its ends written plainly).
    #[test]
    fn runs_of_lines_match_the_naive_loop() {
        for run in [16, 32, 48, 64, 128, 13, 20] {
            for past_line in [0, 16] {
                let cases: [(&[usize], &[usize]); 3] = [
                    (&[run, 5, 7], &[0, 2, 1]),
                    (&[run, 3, 17, 2], &[0, 2, 1, 3]),
                    (&[run, 2, 9, 4], &[0, 3, 1, 2]),
                ];
                for (shape, perm) in cases {
                    let numel: usize = shape.iter().product();
                    check_past_line::<u32>(shape, perm, numel, past_line);
                }
            }
        }
    }

    /// Test elements: `of(i)` distinct for every `i` the type can tell apart (bytes mix `i`'s
    /// bits, so that a misplaced element rarely lands on its own value).
    trait Elem: Copy + PartialEq + std::fmt::Debug {
        fn of(i: u32) -> Self;
    }
    impl Elem for u8 {
        fn of(i: u32) -> u8 {
            (i.wrapping_mul(2654435761) >> 24) as u8
        }
    }
    impl Elem for u16 {
        fn of(i: u32) -> u16 {
            i as u16
        }
    }
    impl Elem for u32 {
        fn of(i: u32) -> u32 {
            i
        }
    }
    impl Elem for u64 {
        fn of(i: u32) -> u64 {
            i.into()
        }
    }
    impl Elem for u128 {
        fn of(i: u32) -> u128 {
            i.into()
        }
    }

    /// Plan dims `shape` (output contiguous, fastest first); the input laid out with dims in
    /// the order `perm` (perm[0] fastest); the output on a cache line.
    fn check<T: Elem>(shape: &[usize], perm: &[usize], numel: usize) {
        check_past_line::<T>(shape, perm, numel, 0)
    }

    /// [`check`] with the output `past_line` bytes (a multiple of the element) past a line.
    fn check_past_line<T: Elem>(shape: &[usize], perm: &[usize], numel: usize, past_line: usize) {
        let w = std::mem::size_of::<T>();
        let mut so = vec![0isize; shape.len()];
        let mut si = so.clone();
        let mut acc = w as isize;
        for d in 0..shape.len() {
            so[d] = acc;
            acc *= shape[d] as isize;
        }
        let mut acc = w as isize;
        for &d in perm {
            si[d] = acc;
            acc *= shape[d] as isize;
        }
        let src: Vec<T> = (0..numel as u32).map(|i| T::of(i + 1)).collect();
        // the output starts `past_line` bytes past a cache line (0: streamed stores are taken
        // where the output's columns are whole lines)
        let mut buf = vec![T::of(0); numel + 128 / w];
        let skip = (buf.as_ptr() as usize).wrapping_neg() % 64 / w + past_line / w;
        let dst = &mut buf[skip..skip + numel];
        // (tile edges, streamed, realigned: whole output lines built in registers)
        for (tile, stream, realign) in [
            (None, false, false),
            (None, true, false),
            (Some((16, 8)), true, false),
            (Some((32, 24)), false, false),
            (Some((17, 15)), true, false),
            (Some((1, 16)), false, false),
            (Some((48, 40)), true, false),
            (Some((48, 40)), true, true),
            (Some((33, 17)), true, true),
            (Some((64, 24)), true, true),
        ] {
            let Some(mut p) = plan_any_size(
                shape,
                |d| so[d],
                |d| si[d],
                w,
                if stream { 0 } else { usize::MAX },
            ) else {
                return;
            };
            if let Some((r, c)) = tile {
                (p.tile_r, p.tile_c) = (r, c);
            }
            p.realign = realign;
            // (tiles down the columns of tiles first, and along the rows)
            for columns_first in [false, true] {
                p.columns_first = columns_first;
                dst.fill(T::of(0));
                // split in two ranges, as two threads would run them
                let items = p.items();
                for (b, e) in [(0, items / 3), (items / 3, items)] {
                    // SAFETY: both buffers hold `numel` elements laid out by `so` / `si`.
                    unsafe {
                        run(
                            &p,
                            SendPtr(dst.as_mut_ptr() as *mut u8),
                            SendPtr(src.as_ptr() as *mut u8),
                            b,
                            e,
                        )
                    };
                }
                super::super::transpose::fence();
                for idx in 0..numel {
                    let (mut o, mut i, mut rest) = (0isize, 0isize, idx);
                    for d in 0..shape.len() {
                        let x = (rest % shape[d]) as isize;
                        rest /= shape[d];
                        o += x * so[d];
                        i += x * si[d];
                    }
                    assert_eq!(
                        dst[o as usize / w],
                        src[i as usize / w],
                        "{shape:?} {perm:?} at {idx}: {p:?}"
                    );
                }
            }
        }
    }
}
