//! The geometry of a permuting copy: `dst.copy_(src)` of the same dtype where the two
//! operands' fastest dims differ (`contiguous()` of a permuted view, NCHW <-> NHWC, any
//! permutation of 3-6 dims).
//!
//! A copy is limited by memory only when every cache line it touches is read (or written)
//! whole, once. The plan's dims are split three ways:
//!
//! - **rows** ("R"): the output's fastest dims, as many as are contiguous one after the other
//!   in the output (their merged index `r` is contiguous there, element `r` at `r·E` bytes);
//! - **columns** ("C"): the input's fastest dims, contiguous in the input in the same way
//!   (merged index `c` at `c·E` bytes of the input);
//! - **outer**: the others, walked outside.
//!
//! A dim contiguous in *both* (a permutation that keeps the last dim in place) is folded into
//! the element first: `E` is that run's bytes, and the rest is permuted in runs.
//!
//! Element `(r, c)` is then at `in_row[r] + c·E` in the input and at `r·E + out_col[c]` in the
//! output: a 2-D transpose whose row starts (input) and column starts (output) come from two
//! small tables (affine for a plain 2-D transpose, not for merged dims of different orders,
//! e.g. the reversal of (9, 1449, 86, 7), where `R` merges sizes 9 and 1449 and `C` 7 and 86).
//! The raw executor (`raw::permute`) cuts `R × C` into tiles and copies each through register
//! transposes: every input row of a tile is read in long runs, every output column written in
//! long runs, whatever the sizes of the single dims.
#![forbid(unsafe_code)]

use smallvec::SmallVec;

/// Dims kept inline.
type Dims<T> = SmallVec<[T; 8]>;

/// Merged dims of one side, fastest first: `sizes`, and the *other* operand's byte strides
/// along them (the table the executor builds from them).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Group {
    /// The merged dims' sizes, fastest first.
    pub sizes: Dims<usize>,
    /// The other operand's byte strides along them.
    pub strides: Dims<isize>,
}

impl Group {
    /// Elements of the merged index.
    pub fn len(&self) -> usize {
        self.sizes.iter().product()
    }
    /// Whether the merged index has no elements.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
    /// The byte stride of the merged index when it steps evenly (every dim's stride its
    /// predecessor's times that one's size, as in a single dim): index `m` is then at
    /// `m · stride`.
    pub fn even_stride(&self) -> Option<isize> {
        let even = self
            .sizes
            .windows(2)
            .zip(self.strides.windows(2))
            .all(|(n, s)| s[1] == s[0] * n[0] as isize);
        even.then(|| self.strides.first().copied().unwrap_or(0))
    }
    /// The other operand's byte offsets of the merged indices `start..start + out.len()`.
    pub fn offsets(&self, start: usize, out: &mut [isize]) {
        // the digits of `start`, fastest first, then counted up
        let mut digits: Dims<usize> = SmallVec::new();
        let mut rest = start;
        let mut offset = 0isize;
        for (&n, &s) in self.sizes.iter().zip(&self.strides) {
            let d = rest % n;
            rest /= n;
            digits.push(d);
            offset += d as isize * s;
        }
        for slot in out.iter_mut() {
            *slot = offset;
            for k in 0..digits.len() {
                digits[k] += 1;
                offset += self.strides[k];
                if digits[k] < self.sizes[k] {
                    break;
                }
                offset -= digits[k] as isize * self.strides[k];
                digits[k] = 0;
            }
        }
    }
}

/// A permuting copy, in the executor's terms (module doc).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PermuteCopy {
    /// Bytes per element (the plan's element times the folded run).
    pub elem: usize,
    /// Plan elements per element: the size of the folded dim, else 1.
    pub fold: usize,
    /// The output's fastest dims; `strides` are the input's.
    pub rows: Group,
    /// The input's fastest dims; `strides` are the output's.
    pub cols: Group,
    /// The other dims in the output's order (fastest first): (size, output byte stride,
    /// input byte stride).
    pub outer: Dims<(usize, isize, isize)>,
    /// Tile edges along `r` and `c` (elements).
    pub tile_r: usize,
    /// Tile edge along `c` (elements).
    pub tile_c: usize,
    /// Write the output with non-temporal stores (large enough by
    /// [`super::stores::transposing_copy_from`]: its lines would only evict the input's).
    pub stream: bool,
    /// Streamed output columns off the cache lines, in tiles long down them
    /// (`tile_edges`): each column's whole lines are realigned in registers and streamed
    /// (`raw::lines512::copy_tile_realigned`) rather than staged through an image.
    pub realign: bool,
    /// Walk the tiles of a band of rows one after the other along the columns (the input's
    /// rows read on from tile to tile), rather than the tiles of a column of tiles first
    /// ([`columns_first`]).
    pub columns_first: bool,
}

impl PermuteCopy {
    /// Tiles along `r` and `c`.
    pub fn tiles(&self) -> (usize, usize) {
        (
            self.rows.len().div_ceil(self.tile_r),
            self.cols.len().div_ceil(self.tile_c),
        )
    }
    /// Work items: every tile of every outer index (rows of tiles fastest, then columns of
    /// tiles, or the other way round with [`PermuteCopy::columns_first`]; then the outer
    /// dims in the output's order).
    pub fn items(&self) -> usize {
        let (tr, tc) = self.tiles();
        tr * tc * self.outer.iter().map(|o| o.0).product::<usize>()
    }
    /// Work item `item`'s tile: (row of tiles, column of tiles, outer index).
    pub fn tile_of(&self, item: usize) -> (usize, usize, usize) {
        let (tiles_r, tiles_c) = self.tiles();
        let (tile, outer) = (item % (tiles_r * tiles_c), item / (tiles_r * tiles_c));
        if self.columns_first {
            (tile / tiles_c, tile % tiles_c, outer)
        } else {
            (tile % tiles_r, tile / tiles_r, outer)
        }
    }
}

/// How a tile of a few rows or columns is merged lane by lane (`raw::interleave`) rather
/// than through register transposes ([`PermuteCopy::ways`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Ways {
    /// `k` input rows into an output where the tile is one run (NCHW -> NHWC of `k`
    /// channels).
    Interleave(usize),
    /// An input where the tile is one run into `k` output columns (NHWC -> NCHW).
    Deinterleave(usize),
}

/// Most rows (or columns) a tile is merged lane by lane for ([`Ways`]): one masked permute
/// per pair of vectors, `k²` per `16k` elements, passes the 16 × 16 transpose's 64 shuffles
/// and 16 stores per block near `k = 9`.
pub const MAX_WAYS: usize = 8;

/// Most rows (or columns) a tile of `width`-byte elements is merged for with byte shuffles
/// (`raw::lane_shuffle`, where AVX-512's lane permutes are missing): past these the other
/// kernels were faster. A/B on the 2-core Zen 3 (AVX2, 1 thread, 8 MiB images (N, k, 224,
/// 224) <-> (N, 224, 224, k), in docs/performance-notes.md): the merges won for every width
/// up to 5 ways (1.2-43x; 8-byte elements into NHWC at 4 ways about even: 0.89x and 1.11x in
/// two runs), lost from 6 ways for 4- and 8-byte elements (0.26-0.88x against the register
/// transposes) and at 8 ways for 2-byte ones (0.55x one way); bytes have no faster kernel
/// (run by run: 1-5 GB/s).
pub const fn shuffled_ways(width: usize) -> usize {
    match width {
        1 => 8,
        2 => 7,
        _ => 5,
    }
}

/// Shortest long side (elements) of a tile merged lane by lane ([`Ways`]). Against the
/// register transposes (2-core Zen 4, 1 thread, float32 (N, k, L) <-> (N, L, k), one process
/// alternating): from 128 the merge won nearly everywhere (1.0-3.4x for k = 3 and 5, 0.86-1.9x
/// for k = 8, the losses into columns off the lines); shorter tiles are mostly a few
/// hundred bytes, whose per-tile costs and part strips the transposes' walk hid better (5 ×
/// 76 of (20, 25, 38, 5, 4, 19) by (0, 1, 2, 4, 5, 3): merged 0.74x).
pub const MIN_MERGED_EDGE: usize = 128;

impl PermuteCopy {
    /// Whether the tiles are merged lane by lane ([`Ways`]): elements of 1, 2, 4 or 8 bytes
    /// that this CPU merges ([`super::cpu::lane_merges`]), and either all the rows (2 to
    /// [`MAX_WAYS`] with AVX-512's lane permutes, to [`shuffled_ways`] with byte shuffles) in
    /// every tile with the output's columns one after the other (the tile one output run), or
    /// all the columns with the input's rows one after the other; tiles at least
    /// [`MIN_MERGED_EDGE`] long the other way.
    pub fn ways(&self) -> Option<Ways> {
        if !super::cpu::lane_merges(self.elem) {
            return None;
        }
        let (r, c) = (self.rows.len(), self.cols.len());
        let most = if super::cpu::avx512_permutes(self.elem) {
            MAX_WAYS
        } else {
            shuffled_ways(self.elem)
        };
        let few = |n: usize| (2..=most).contains(&n);
        let run = |n: usize| Some((n * self.elem) as isize);
        if few(r)
            && self.tile_r == r
            && self.tile_c >= MIN_MERGED_EDGE
            && self.cols.even_stride() == run(r)
        {
            Some(Ways::Interleave(r))
        } else if few(c)
            && self.tile_c == c
            && self.tile_r >= MIN_MERGED_EDGE
            && self.rows.even_stride() == run(c)
        {
            Some(Ways::Deinterleave(c))
        } else {
            None
        }
    }
}

/// Total bytes (both operands) from which a copy takes the permuting path: smaller ones fit
/// in L1 in any order.
pub const MIN_BYTES: usize = 32 * 1024;
/// A group stops merging dims once its index is this long (elements): longer runs than a
/// tile's edge gain nothing, and the dims left over are free for the other group.
pub const GROUP_TARGET: usize = 1024;

/// Tile edges (elements along r, along c) for elements of `elem` bytes over `rows × cols`:
/// both operands' tiles together in half of L2 (so that long runs of each are read and
/// written per row), a square when both are long, else the short side whole and the other
/// longer; rows a multiple of 16 (a register transpose's step) where they are cut.
///
/// The AVX2 kernels ([`TileKernel::Avx2x4`], [`TileKernel::Avx2x8`]: `raw::lines256`) walk
/// a tile in strips of 16-64 rows, each across the tile's whole width: there long input runs
/// matter more than output runs longer than a strip's (short input runs leave the hardware
/// prefetchers little to follow), so two long sides take [`AVX2_ROWS`] rows and the long side
/// of a tile with a short one is at least [`AVX2_MIN_EDGE`]. On a 2-core Zen 3 (1 thread, 8M
/// float32, 3 runs alternating) the 176 × 176 squares of a 512 KiB L2 ran the (9, 1449, 86,
/// 7) reversal at 18-30% of the copy limit, (30, 106, 3, 21, 16, 3) by (5, 3, 4, 2, 0, 1)
/// at 22-28% and (13, 27, 21, 24, 13, 4) by (3, 5, 4, 1, 0, 2) at 15-23%; 64 × 1024 tiles at
/// 28-47, 33-41 and 30-37% (64 × 2048 and 32 × 1024 close behind, 128 × 512 no better than
/// the squares); the 78 rows of (78, 80, 85, 16) by (1, 3, 2, 0) 31-33% with 416 columns,
/// 34-39% with 1024.
///
/// With AVX-512, two long sides whose streamed output columns lie off the cache lines
/// (`off_lines`) take [`REALIGNED_TILE`] instead, and the third value says so: each column's
/// run then has its two partial lines in 65, where the squares' had them in 17. On the 2-core
/// Zen 4 (1 thread, 8M float32, % of the copy limit, alternating) the (30, 106, 3, 21, 16, 3)
/// by (5, 3, 4, 2, 0, 1) copy went from 28% to 38-39%, (13, 27, 21, 24, 13, 4) by (3, 5, 4,
/// 1, 0, 2) from 26% to 28-30%, the (9, 1449, 86, 7) reversal from 24-26% to 25-28%; realigned
/// in the squares they lost (22-25%), and so did a short side's 1296-row tiles of (3, 90, 5,
/// 12, 10, 50) by (3, 5, 1, 4, 0, 2) (26% against 32-36% staged). Since the tiles along the
/// rows are joined (`raw::lines512::Joins`: the line where two tiles' runs of a column meet
/// written whole by the first, not in two masked plain stores), the 2-core Xeon (1 thread,
/// 8M float32) runs the realigned (9, 1449, 86, 7) reversal, (30, 106, 3, 21, 16, 3) by
/// (5, 3, 4, 2, 0, 1) and (13, 27, 21, 24, 13, 4) by (3, 5, 4, 1, 0, 2) at 79-80% of the
/// copy limit, from 63-64%; and a short side's tiles (its columns whole, the rows long) are
/// realigned too: the (3, 90, 5, 12, 10, 50) by (3, 5, 1, 4, 0, 2) copy, staged before, went
/// from 55% to 63% (alternating builds, twice). (Short rows stay staged: their runs would
/// end in partial lines every few lines, with nothing to join.)
fn tile_edges(elem: usize, rows: usize, cols: usize, off_lines: bool) -> (usize, usize, bool) {
    const STEP: usize = 16;
    let elements = (super::cache::sizes().l2 / 4 / elem).max(STEP * STEP);
    let square = (elements.isqrt() / STEP * STEP).max(STEP);
    let avx2 = TileKernel::for_elem(elem).avx2();
    let fill = |short: usize| {
        let fill = (elements / short.max(1) / STEP * STEP).clamp(STEP, MAX_EDGE);
        if avx2 {
            fill.max(AVX2_MIN_EDGE)
        } else {
            fill
        }
    };
    if rows <= square {
        (rows, cols.min(fill(rows)), false)
    } else if cols <= square {
        (
            rows.min(fill(cols)),
            cols,
            off_lines && TileKernel::for_elem(elem) == TileKernel::Avx512x4,
        )
    } else if avx2 {
        (AVX2_ROWS, cols.min(fill(AVX2_ROWS)), false)
    } else if off_lines && TileKernel::for_elem(elem) == TileKernel::Avx512x4 {
        (rows.min(REALIGNED_TILE.0), cols.min(REALIGNED_TILE.1), true)
    } else {
        (square, square, false)
    }
}

/// Tile edges (rows, columns) of a realigned AVX-512 tile ([`tile_edges`]).
const REALIGNED_TILE: (usize, usize) = (1024, 128);

/// Rows of an AVX2 tile over two long sides ([`tile_edges`]).
const AVX2_ROWS: usize = 64;
/// Shortest long side (elements) of an AVX2 tile with a short one ([`tile_edges`]).
const AVX2_MIN_EDGE: usize = 1024;

/// The register kernel that copies a permutation's tiles of `elem`-byte elements on this
/// machine: the one home of this choice, for the tile edges (`tile_edges`) and the
/// executor (`raw::permute`), so that tiles are always sized for the kernel that runs them.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TileKernel {
    /// 4-byte elements in 16 × 16 AVX-512 register transposes (`raw::lines512`).
    Avx512x4,
    /// 4-byte elements in 8 × 8 AVX2 register transposes (`raw::lines256`).
    Avx2x4,
    /// 8-byte elements in 4 × 4 AVX2 register transposes (`raw::lines256`).
    Avx2x8,
    /// Any other element (or CPU): run by run ([`TileKernel::runs_along_input_rows`] says in
    /// which order).
    Runs,
}

/// Runs (bytes) from which the run copy goes along the input's rows rather than down the
/// output's columns. Along the rows the input is read in order, as a plain copy reads it, and
/// each run lands in its output column whole; down the columns the output is written in order
/// but every run is read from another input row, more streams than the hardware prefetchers
/// follow. Runs of a line or more lose little of the output's order either way. On the 2-core
/// Zen 4 (1 thread, 32 MiB float32 `(B, S, H, D)` by `(0, 2, 1, 3)`, plain stores): runs of
/// 64 bytes 13 -> 19-25 GB/s, 128 11 -> 15, 256 14 -> 20; but runs of 32 bytes 19 -> 12-16
/// and the 52-byte runs of (335, 6, 332, 13) by (2, 1, 0, 3) 14 -> 10: shorter runs keep the
/// output's order, whose partial lines the plain stores read.
pub const RUNS_ALONG_INPUT_ROWS_FROM: usize = 64;

/// Whole lines a run must hold before the run copy streams it (a streamed copy writes the
/// partial lines at its ends plainly). Same machine and copies, runs along the input's rows,
/// streamed against plain: 128-byte runs on line-aligned outputs 15 -> 33 GB/s, 256 20 -> 51,
/// 512 and 1024 (from torch's walk) 23 -> 52; on outputs 16 bytes past a line, 192-byte runs
/// (two whole lines) 21 -> 26, 256 20 -> 27; but 64-byte runs 25 -> 20 aligned, 128-byte
/// runs (one whole line) 16 -> 14 off the lines.
pub const STREAMED_RUN_LINES: usize = 2;

impl TileKernel {
    /// The kernel for `elem`-byte elements on the CPU this runs on.
    pub fn for_elem(elem: usize) -> TileKernel {
        use super::cpu::{avx2, avx512};
        match elem {
            4 if avx512() => TileKernel::Avx512x4,
            4 if avx2() => TileKernel::Avx2x4,
            8 if avx2() => TileKernel::Avx2x8,
            _ => TileKernel::Runs,
        }
    }

    /// Whether this kernel copies a tile of `elem`-byte runs along the input's rows
    /// ([`RUNS_ALONG_INPUT_ROWS_FROM`]).
    pub fn runs_along_input_rows(self, elem: usize) -> bool {
        self == TileKernel::Runs && elem >= RUNS_ALONG_INPUT_ROWS_FROM
    }

    /// Whether it is one of the AVX2 kernels (`raw::lines256`), whose tiles [`tile_edges`]
    /// shapes for long input runs.
    fn avx2(self) -> bool {
        matches!(self, TileKernel::Avx2x4 | TileKernel::Avx2x8)
    }
}

/// Longest tile edge (elements).
pub const MAX_EDGE: usize = 2048;

/// Whether a permuting copy of `elem`-byte elements (streamed: `stream`) walks the tiles of
/// a band of rows along the columns, each input row read on where the tile before left it
/// (the lines the AVX-512 strips ask for ahead along a row, `raw::lines512`, are then the next
/// tile's), rather than down a column of tiles, which starts other rows at every tile. With
/// the AVX-512 kernel where the last level is near
/// ([`super::stores::streamed_copy_follows_input`]): on the 2-core Zen 4 (8M float32, input
/// and output on a line, the two orders alternating in one process, three runs) the realigned
/// 1024 × 128 tiles of (30, 106, 3, 21, 16, 3) by (5, 3, 4, 2, 0, 1) went from 28-38% to
/// 58-69% of the copy limit at 1 thread and from 48% to 77% at 2, (13, 27, 21, 24, 13, 4) by
/// (3, 5, 4, 1, 0, 2) from 31-39% to 56-74% and 52% to 90%, the (9, 1449, 86, 7) reversal
/// from 33-35% to 33-38% and 39% to 56%. The run copy (`raw::permute`'s runs of a folded dim,
/// which reuse the input's lines from one output column to the next) lost 5-7% at 2 threads
/// this way ((335, 6, 332, 13) by (2, 1, 0, 3)) and keeps the order; so do copies with one
/// column of tiles, which have no other. Not measured with a far last level or the AVX2
/// kernels.
pub fn columns_first(elem: usize, stream: bool) -> bool {
    stream
        && super::stores::streamed_copy_follows_input()
        && TileKernel::for_elem(elem) == TileKernel::Avx512x4
}

/// The permuting copy of a plan of `shape` (fastest first) with byte strides `out(d)` and
/// `inp(d)` and `width`-byte elements, or `None` when it is not one: fewer than two dims
/// left after folding, an output or input that is not contiguous along its fastest dim, or
/// too small a plan. `stream_from`: output bytes from which stores are streamed.
pub fn plan(
    shape: &[usize],
    out: impl Fn(usize) -> isize,
    inp: impl Fn(usize) -> isize,
    width: usize,
    stream_from: usize,
) -> Option<PermuteCopy> {
    let numel: usize = shape.iter().product();
    if 2 * numel * width <= MIN_BYTES {
        return None;
    }
    plan_any_size(shape, out, inp, width, stream_from)
}

/// [`plan`] without the size test.
pub fn plan_any_size(
    shape: &[usize],
    out: impl Fn(usize) -> isize,
    inp: impl Fn(usize) -> isize,
    width: usize,
    stream_from: usize,
) -> Option<PermuteCopy> {
    let numel: usize = shape.iter().product();
    if numel == 0 {
        return None;
    }
    let w = width as isize;
    // (size, out stride, in stride) of the dims that matter
    let mut dims: Dims<(usize, isize, isize)> = (0..shape.len())
        .filter(|&d| shape[d] > 1)
        .map(|d| (shape[d], out(d), inp(d)))
        .collect();
    // fold a run contiguous in both
    let mut fold = 1;
    if let Some(k) = dims.iter().position(|&(_, so, si)| so == w && si == w) {
        fold = dims[k].0;
        dims.remove(k);
    }
    let elem = width * fold;
    let e = elem as isize;
    if dims.len() < 2 {
        return None;
    }
    let mut by_out: Dims<usize> = (0..dims.len()).collect();
    by_out.sort_by_key(|&k| dims[k].1.unsigned_abs());
    let mut by_in: Dims<usize> = (0..dims.len()).filter(|&k| dims[k].2 != 0).collect();
    by_in.sort_by_key(|&k| dims[k].2.unsigned_abs());
    let (o0, i0) = (by_out[0], *by_in.first()?);
    if dims[o0].1 != e || dims[i0].2 != e || o0 == i0 {
        return None;
    }
    // grow both groups along their operand's contiguous order, the shorter one first
    let (mut rows, mut cols): (Dims<usize>, Dims<usize>) =
        (smallvec::smallvec![o0], smallvec::smallvec![i0]);
    let len = |g: &Dims<usize>| g.iter().map(|&k| dims[k].0).product::<usize>();
    loop {
        let next_row = by_out.get(rows.len()).copied().filter(|&k| {
            let last = dims[*rows.last().unwrap_or(&o0)];
            !cols.contains(&k) && dims[k].1 == last.1 * last.0 as isize
        });
        let next_col = by_in.get(cols.len()).copied().filter(|&k| {
            let last = dims[*cols.last().unwrap_or(&i0)];
            !rows.contains(&k) && dims[k].2 == last.2 * last.0 as isize
        });
        let grow_rows = next_row.filter(|_| len(&rows) < GROUP_TARGET);
        let grow_cols = next_col.filter(|_| len(&cols) < GROUP_TARGET);
        // one dim at a time, the shorter group first: a dim that continues both sides goes
        // to the side that needs it more, and neither side takes a dim the other needs next
        match (grow_rows, grow_cols) {
            (Some(r), Some(c)) => {
                if len(&rows) <= len(&cols) {
                    rows.push(r)
                } else {
                    cols.push(c)
                }
            }
            (Some(r), None) => rows.push(r),
            (None, Some(c)) => cols.push(c),
            (None, None) => break,
        }
    }
    let group = |g: &Dims<usize>, other: fn(&(usize, isize, isize)) -> isize| Group {
        sizes: g.iter().map(|&k| dims[k].0).collect(),
        strides: g.iter().map(|&k| other(&dims[k])).collect(),
    };
    let rows_g = group(&rows, |d| d.2);
    let cols_g = group(&cols, |d| d.1);
    let outer: Dims<(usize, isize, isize)> = by_out
        .iter()
        .filter(|k| !rows.contains(k) && !cols.contains(k))
        .map(|&k| dims[k])
        .collect();
    let stream = numel * width >= stream_from;
    // the output columns start off the cache lines somewhere (a tile's corner moves along the
    // rows in whole lines)
    let off_lines = stream
        && (cols_g.strides.iter().any(|s| s % 64 != 0) || outer.iter().any(|o| o.1 % 64 != 0));
    let (tile_r, tile_c, realign) = tile_edges(elem, rows_g.len(), cols_g.len(), off_lines);
    Some(PermuteCopy {
        columns_first: columns_first(elem, stream),
        elem,
        fold,
        rows: rows_g,
        cols: cols_g,
        outer,
        tile_r,
        tile_c,
        stream,
        realign,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn dense(shape: &[usize], order: &[usize], width: usize) -> Vec<isize> {
        // strides of `shape` laid out with `order[0]` fastest
        let mut s = vec![0isize; shape.len()];
        let mut acc = width as isize;
        for &d in order {
            s[d] = acc;
            acc *= shape[d] as isize;
        }
        s
    }

    #[test]
    fn groups_merge_dims_of_each_side() {
        // plan of the reversal of (9, 1449, 86, 7): plan dims (output fastest first)
        // 9, 1449, 86, 7; the input is fastest along the last.
        let shape = [9, 1449, 86, 7];
        let so = dense(&shape, &[0, 1, 2, 3], 4);
        let si = dense(&shape, &[3, 2, 1, 0], 4);
        let p = plan(&shape, |d| so[d], |d| si[d], 4, usize::MAX).unwrap();
        assert_eq!(p.rows.sizes.as_slice(), &[9, 1449]);
        assert_eq!(p.cols.sizes.as_slice(), &[7, 86]);
        assert!(p.outer.is_empty());
        assert_eq!(p.elem, 4);
        // a kept last dim folds
        let shape = [13, 335, 6, 332];
        let so = dense(&shape, &[0, 1, 2, 3], 4);
        let si = dense(&shape, &[0, 3, 2, 1], 4);
        let p = plan(&shape, |d| so[d], |d| si[d], 4, usize::MAX).unwrap();
        assert_eq!((p.elem, p.fold), (52, 13));
        // the dim of size 6 continues both sides: the shorter group takes it
        assert_eq!(p.rows.sizes.as_slice(), &[335]);
        assert_eq!(p.cols.sizes.as_slice(), &[332, 6]);
        // (3, 90, 5, 12, 10, 50) permuted by (3, 5, 1, 4, 0, 2): the rows (5 x 3 elements)
        // take the dim of size 10 before the columns (50) do, so that both are long
        let shape = [5, 3, 10, 90, 50, 12];
        let so = dense(&shape, &[0, 1, 2, 3, 4, 5], 4);
        let si = dense(&shape, &[4, 2, 5, 0, 3, 1], 4);
        let p = plan(&shape, |d| so[d], |d| si[d], 4, usize::MAX).unwrap();
        assert_eq!(p.rows.sizes.as_slice(), &[5, 3, 10, 90]);
        assert_eq!(p.cols.sizes.as_slice(), &[50]);
    }

    #[test]
    fn tiles_walk_down_or_along_the_rows_of_tiles() {
        let shape = [100, 50, 3];
        let so = dense(&shape, &[0, 1, 2], 4);
        let si = dense(&shape, &[1, 0, 2], 4);
        let mut p = plan_any_size(&shape, |d| so[d], |d| si[d], 4, usize::MAX).unwrap();
        (p.tile_r, p.tile_c) = (32, 16);
        assert_eq!((p.tiles(), p.items()), ((4, 4), 48));
        p.columns_first = false;
        assert_eq!(p.tile_of(1), (1, 0, 0));
        assert_eq!(p.tile_of(4), (0, 1, 0));
        assert_eq!(p.tile_of(16 + 7), (3, 1, 1));
        p.columns_first = true;
        assert_eq!(p.tile_of(1), (0, 1, 0));
        assert_eq!(p.tile_of(4), (1, 0, 0));
        assert_eq!(p.tile_of(16 + 7), (1, 3, 1));
        // every item's tile once, in either order
        for columns_first in [false, true] {
            p.columns_first = columns_first;
            let mut seen: Vec<_> = (0..p.items()).map(|i| p.tile_of(i)).collect();
            seen.sort();
            seen.dedup();
            assert_eq!(seen.len(), p.items());
        }
    }

    #[test]
    fn even_groups_step_by_one_stride() {
        let g = |sizes: &[usize], strides: &[isize]| Group {
            sizes: sizes.into(),
            strides: strides.into(),
        };
        assert_eq!(g(&[50176], &[12]).even_stride(), Some(12));
        assert_eq!(g(&[3, 4], &[100, 300]).even_stride(), Some(100));
        assert_eq!(g(&[3, 4], &[-8, -24]).even_stride(), Some(-8));
        assert_eq!(g(&[3, 4], &[100, 7]).even_stride(), None);
        // an even group's offsets from any start are the start's plus those from 0
        let even = g(&[5, 6, 7], &[4, 20, 120]);
        let (mut from0, mut from9) = ([0isize; 12], [0isize; 12]);
        even.offsets(0, &mut from0);
        even.offsets(9, &mut from9);
        for m in 0..12 {
            assert_eq!(from9[m], 9 * 4 + from0[m]);
        }
    }

    #[test]
    fn offsets_count_through_the_digits() {
        let g = Group {
            sizes: smallvec::smallvec![3, 4],
            strides: smallvec::smallvec![100, 7],
        };
        let mut out = [0isize; 7];
        g.offsets(2, &mut out);
        let want: Vec<isize> = (2..9)
            .map(|m| (m % 3) as isize * 100 + (m / 3) as isize * 7)
            .collect();
        assert_eq!(out.as_slice(), want.as_slice());
    }
}
