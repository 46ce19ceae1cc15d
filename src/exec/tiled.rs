//! When and how to walk a plan in tiles (cache blocking), and which operands to pack.
//!
//! torch's walk runs dim 0 innermost over whole rows. When an operand is fastest along another
//! dim k — a transpose copy, NCHW <-> NHWC, channels_last + contiguous — each step along dim 0
//! lands that operand on a new cache line, and by the time the walk comes back along dim k for
//! the rest of the line it has been evicted: every line is fetched once per element it holds.
//! The tiled walk reorders the plan's dims to `[0, k, the others]` (so that the blocks span
//! dims 0 and k, the other dims outside) and cuts each 2-D block into `edge0 × edge1` tiles.
//!
//! In each tile, every operand that is not contiguous along dim 0 (nor broadcast there) is
//! *packed*: copied into a per-thread scratch tile laid out dim 0 contiguous (a transpose,
//! through registers for 4- and 8-byte elements), and an output is copied back afterwards.
//! The kernel then gets an ordinary [`Block`](super::Block) whose operands are all contiguous
//! along dim 0 (or broadcast), so its vectorized loop runs, and the kernels do not change.
//! Each packed operand's lines are read (or written) whole, one after another, so that no line
//! has to survive in L1 between two visits: the edges are bounded by the scratch size only.
//!
//! When the kernel is a same-dtype copy (`copy_`, `contiguous()` of a permuted view) and
//! [`super::copy_strategy`] chooses direct tiles, the walk packs nothing: it copies each tile
//! itself, *directly* from input to output, through register transposes (see
//! `raw::transpose`), with non-temporal stores when the output is too large to stay in a cache
//! the core reads quickly ([`super::stores`]: its lines are written whole and would only evict
//! the input's). Direct tiles are sized from the machine's caches ([`super::cache`]): both
//! operands' tiles together in half of L2, so that long runs of each operand are read and
//! written per row.
//!
//! Only the visiting order changes, which is invisible in the results of elementwise plans:
//! each element is computed once from the same inputs. Plans where the order can show are
//! walked in torch's order: reductions (accumulation order), `enforce_linear_iteration`,
//! outputs that reach an element twice (the last write wins) and outputs that share memory
//! with another operand in another layout (a later element may read an earlier one's result).
#![forbid(unsafe_code)]

use crate::plan::TensorIterator;

/// L1 data cache assumed by the packed walk: 32 KiB (current x86 — Intel, AMD Zen — and most
/// ARM cores have 32 or 48).
pub const L1_BYTES: usize = super::cache::FALLBACK_L1_BYTES;
/// Least scratch a thread's packed tiles may take together ([`scratch_bytes`]). Longer runs
/// per row of each operand help memory more than keeping the scratch in L1 does: on a 4096²
/// transpose copy, NCHW <-> NHWC and channels_last + contiguous (float32, 2-core AMD EPYC),
/// tiles of 32 x 64 / 64 x 64 / 64 x 128 / 128 x 128 ran at about 28 / 30 / 40 / 40% of the
/// contiguous copy.
pub const SCRATCH_BYTES: usize = 32 * 1024;
/// Most scratch a thread's packed tiles may take together ([`scratch_bytes`]).
pub const MAX_SCRATCH_BYTES: usize = 256 * 1024;

/// Scratch a thread's packed tiles take together: a quarter of L2, between [`SCRATCH_BYTES`]
/// and [`MAX_SCRATCH_BYTES`]. The packed operand's rows are read in long runs (a 64-row
/// tile of float32 reads 4 KiB of each row), which the hardware prefetchers follow, while
/// the scratch stays in L2. 2-core Zen 4 (1 MiB L2), 1 thread, the same process alternating:
/// an NHWC + NCHW (16, 64, 56, 56) float32 add into `out` ran at 12.6 GB/s in 64 x 128 tiles
/// (32 KiB, with the next tile prefetched), 17.7 in 64 x 1024 (256 KiB, nothing prefetched),
/// 21 with the contiguous tiles run as one row (the packed walk's kernel call).
pub fn scratch_bytes() -> usize {
    (super::cache::sizes().l2 / 4).clamp(SCRATCH_BYTES, MAX_SCRATCH_BYTES)
}
/// Tile edge along dim 0 (elements): the kernel's contiguous rows.
pub const EDGE0: usize = 64;
/// Bounds of the tile edge along the second dim (elements), which fills the scratch.
pub const MIN_EDGE1: usize = 8;
/// Upper bound of the tile edge along the second dim (elements).
pub const MAX_EDGE1: usize = 1024;
/// Plans whose operands together span at most this many bytes are not tiled: all of their
/// lines fit in L1 in any order, and the 1-element path stays short.
pub const MIN_TILED_BYTES: usize = L1_BYTES;

/// Whether a tiled walk packs an operand with byte stride `stride0` along dim 0 and elements
/// of `width` bytes: unless it is contiguous (or broadcast) there already.
pub fn is_packed(stride0: isize, width: usize) -> bool {
    stride0 != 0 && stride0 != width as isize
}

/// A tiled walk: dims 0 and `dim` are the two dims of every tile.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Tiling {
    /// The plan dim walked second (dim 1 of every block): `operand`'s fastest dim.
    pub dim: usize,
    /// The operand that is fastest along `dim` rather than dim 0 (the one stepping farthest
    /// along dim 0 when several are).
    pub operand: usize,
    /// Tile edge along dim 0, in elements.
    pub edge0: usize,
    /// Tile edge along `dim`, in elements.
    pub edge1: usize,
    /// The walk copies each tile itself, from the input to the output, with no scratch (the
    /// kernel is a same-dtype copy; see the module doc).
    pub direct: bool,
    /// A direct walk writes whole output lines with non-temporal stores.
    pub stream: bool,
    /// Input rows apart a direct walk's tile reads at once ([`direct_input_rows`]: what
    /// `stream` was decided with); 0 for packed tiles.
    pub input_rows: usize,
    /// A direct walk over a plan whose dim 0 is contiguous in both operands and short (at
    /// most [`MAX_FOLD_BYTES`]): each run along dim 0 is copied as one element, and the tiles
    /// span dims 1 and `dim` (a permutation that keeps the last dims in place, e.g. (2,1,0,3)).
    pub fold: bool,
}

/// Whether to tile, and why not when not.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TileDecision {
    /// Tiled, with this geometry.
    Tiled(Tiling),
    /// Not tiled, and why (as `explain()` reports it).
    Untiled(&'static str),
}

impl TileDecision {
    /// The tiling, if the plan is tiled.
    pub fn tiling(self) -> Option<Tiling> {
        match self {
            TileDecision::Tiled(t) => Some(t),
            TileDecision::Untiled(_) => None,
        }
    }

    /// The decision, untiled where `kept` gives why torch's order is kept (asked only of a
    /// tiled decision).
    pub fn unless(self, kept: impl FnOnce() -> Option<&'static str>) -> TileDecision {
        match self {
            TileDecision::Tiled(_) => kept().map_or(self, TileDecision::Untiled),
            untiled => untiled,
        }
    }
}

/// The decision for an elementwise plan: the geometry ([`choose`]), then the order checks
/// (module doc). Cheap for small plans: the size test comes first and nothing is allocated
/// before it. (A same-dtype copy decides with `direct` tiles: `exec::copy_strategy`.)
pub fn decide(plan: &TensorIterator) -> TileDecision {
    choose_for(plan, false).unless(|| order_kept(plan))
}

/// [`choose`] on the plan's shape and strides, before the order checks; `direct`: the kernel
/// is a same-dtype copy of operand 1 into operand 0, which the walk may do itself.
pub(crate) fn choose_for(plan: &TensorIterator, direct: bool) -> TileDecision {
    let ops = plan.operands();
    choose(
        plan.shape(),
        ops.len(),
        |d, k| ops[k].stride_bytes.get(d).copied().unwrap_or(0),
        |k| ops[k].itemsize(),
        direct,
    )
}

/// Why the walk must keep torch's order on this plan (module doc), if it must.
pub(crate) fn order_kept(plan: &TensorIterator) -> Option<&'static str> {
    let config = &plan.config;
    if config.is_reduction {
        return Some("a reduction: torch's accumulation order is kept");
    }
    if config.enforce_linear_iteration {
        return Some("enforce_linear_iteration: torch's order is kept");
    }
    if !plan.parallel_safe() {
        return Some(
            "an output may reach an element twice: torch's order decides which write wins",
        );
    }
    if plan.outputs_share_memory() {
        return Some(
            "an output shares memory with another operand in another layout: torch's order is kept",
        );
    }
    None
}

/// The geometric rule on a plan's shape and byte strides (`stride(d, k)`: operand k along dim
/// d; `itemsize(k)`): tile when some operand steps along dim 0 and is faster along another dim
/// k — its smallest nonzero |stride| over dims of size > 1 is along k and smaller than along
/// dim 0. An operand with stride 0 along dim 0 (broadcast) reads one element per row and
/// never asks for tiles. Among several such operands the one stepping farthest along dim 0
/// picks k.
///
/// `direct` (the kernel is a same-dtype copy of operand 1 into operand 0): when the output is
/// contiguous along dim 0 and the input asks for tiles, a direct tiling ([`direct_edges`]).
///
/// Edges otherwise: `edge0 = min(size0, EDGE0)`; `edge1` as long as the packed operands' scratch tiles
/// fit in [`scratch_bytes`] together (between [`MIN_EDGE1`] and [`MAX_EDGE1`], at most the
/// dim): 64 x 1024 for one packed float32 operand where L2 is 1 MiB, longer for a short
/// dim 0 (3 channels).
pub fn choose(
    shape: &[usize],
    nops: usize,
    stride: impl Fn(usize, usize) -> isize,
    itemsize: impl Fn(usize) -> usize,
    direct: bool,
) -> TileDecision {
    choose_dyn(shape, nops, &stride, &itemsize, direct, direct)
}

/// Longest run along dim 0 (bytes) that a direct walk copies as one element.
pub const MAX_FOLD_BYTES: usize = 32;

/// [`choose`], with `fold`: whether a direct walk may fold dim 0 into the element.
fn choose_dyn(
    shape: &[usize],
    nops: usize,
    stride: &dyn Fn(usize, usize) -> isize,
    itemsize: &dyn Fn(usize) -> usize,
    direct: bool,
    fold: bool,
) -> TileDecision {
    if fold
        && nops == 2
        && shape.len() >= 3
        && shape[0] > 1
        && shape[0] * itemsize(0) <= MAX_FOLD_BYTES
        && (0..2).all(|k| stride(0, k) == itemsize(k) as isize)
    {
        let n0 = shape[0];
        let folded = choose_dyn(
            &shape[1..],
            nops,
            &|d, k| stride(d + 1, k),
            &|k| itemsize(k) * n0,
            true,
            false,
        );
        if let TileDecision::Tiled(t) = folded {
            return TileDecision::Tiled(Tiling {
                dim: t.dim + 1,
                fold: true,
                ..t
            });
        }
    }
    if shape.len() < 2 {
        return TileDecision::Untiled("fewer than 2 dims");
    }
    let numel: usize = shape.iter().product();
    let bytes: usize = (0..nops).map(itemsize).sum::<usize>() * numel;
    if bytes <= MIN_TILED_BYTES {
        return TileDecision::Untiled("the operands fit in L1 in any order");
    }
    let mut pick: Option<(usize, usize, usize)> = None; // (operand, dim, |stride along dim 0|)
    for k in 0..nops {
        let s0 = stride(0, k).unsigned_abs();
        if s0 == 0 || shape[0] <= 1 {
            continue;
        }
        let fastest = (1..shape.len())
            .filter(|&d| shape[d] > 1 && stride(d, k) != 0)
            .min_by_key(|&d| stride(d, k).unsigned_abs());
        if let Some(d) = fastest {
            if stride(d, k).unsigned_abs() < s0 && pick.is_none_or(|(_, _, best)| s0 > best) {
                pick = Some((k, d, s0));
            }
        }
    }
    let Some((operand, dim, _)) = pick else {
        return TileDecision::Untiled("every operand is fastest along dim 0 (or broadcast there)");
    };
    // A direct copy needs the output (operand 0) contiguous along dim 0 and the input to be
    // the operand that asked for tiles.
    let direct = direct && operand == 1 && stride(0, 0) == itemsize(0) as isize;
    if direct {
        let out_bytes = numel * itemsize(0);
        let rows = direct_input_rows(shape[0], shape[dim], stride(0, 1), itemsize(1));
        let stream = out_bytes
            >= super::stores::transposing_copy_from(super::stores::threads_sharing(numel), rows);
        let (edge0, edge1) = direct_edges(shape[0], shape[dim], itemsize(0));
        return TileDecision::Tiled(Tiling {
            dim,
            operand,
            edge0,
            edge1,
            direct,
            stream,
            input_rows: rows,
            fold: false,
        });
    }
    let packed_bytes: usize = (0..nops)
        .filter(|&k| is_packed(stride(0, k), itemsize(k)))
        .map(itemsize)
        .sum();
    let edge0 = shape[0].min(EDGE0);
    let edge1 = (scratch_bytes() / (edge0 * packed_bytes.max(1)))
        .clamp(MIN_EDGE1, MAX_EDGE1)
        .min(shape[dim]);
    TileDecision::Tiled(Tiling {
        dim,
        operand,
        edge0,
        edge1,
        direct: false,
        stream: false,
        input_rows: 0,
        fold: false,
    })
}

/// Granularity of direct tile edges (elements): 16 keeps every tile's output rows starting
/// on the same offset within a cache line as the first tile's (a line holds 16 float32).
pub const DIRECT_EDGE_STEP: usize = 16;
/// Longest direct tile edge (elements).
pub const MAX_DIRECT_EDGE: usize = 2048;

/// Edges of a direct tile over dims of sizes `n0` (the output's contiguous dim) and `n1`
/// (the input's) with `width`-byte elements: both operands' tiles together in half of L2, a
/// square when both dims are long, else the short dim whole and the other one longer.
/// 4-byte elements over two long dims take half the square's rows and four times its
/// columns instead: their kernel writes each output row of a tile in one run and reads each
/// input line whole, so nothing is reused within a tile, and on the 2-core Zen 4 tiles of
/// 128 × 1024 float32 (also 64 × 1024, 128 × 512, 256 × 1024) ran a 4096² / 2048 × 8192
/// transpose copy at 61-68% of a same-size copy where 256 × 256 ran at 56-64%; never
/// smaller than that 128 × 1024. Streamed output columns that do not start on a cache line
/// take the same tiles: their runs meet from tile to tile inside a line, which the realigned
/// kernel writes whole (`raw::lines512::Joins`). (Before the joins, each junction's line
/// took two masked plain stores, and the transposed shape, 1024 × 128, ran better by having
/// fewer junctions: on the 2-core Xeon, 1 thread, a 4097 × 4096 float32 transpose ran at
/// 52-55% of a same-size copy that way, at 62% with joins in 176 × 1408 tiles, 61-62% in
/// 352 × 704, 55% in 1408 × 176.)
pub fn direct_edges(n0: usize, n1: usize, width: usize) -> (usize, usize) {
    let elements = (super::cache::sizes().l2 / 4 / width).max(DIRECT_EDGE_STEP * DIRECT_EDGE_STEP);
    let square = (elements.isqrt() / DIRECT_EDGE_STEP * DIRECT_EDGE_STEP).max(DIRECT_EDGE_STEP);
    let fill = |short: usize| {
        (elements / short.max(1) / DIRECT_EDGE_STEP * DIRECT_EDGE_STEP)
            .clamp(DIRECT_EDGE_STEP, MAX_DIRECT_EDGE)
    };
    if n0 <= square {
        (n0, n1.min(fill(n0)))
    } else if n1 <= square {
        (n0.min(fill(n1)), n1)
    } else if width == 4 {
        // at least 128 × 1024 where L2 is small: on a 2-core Zen 3 (512 KiB of L2, 80 × 704
        // by the rule) a scratch harness of the AVX2 kernel ran 4096² and 2048 × 8192
        // transposes at 12.6-14.7 GB/s in 80 × 704 tiles, 15.8-17.1 in 128 × 1024
        let rows = (square / 2 / DIRECT_EDGE_STEP * DIRECT_EDGE_STEP).max(128);
        let cols = (square * 4).clamp(1024, MAX_DIRECT_EDGE);
        (rows.min(n0), n1.min(cols))
    } else {
        (square, square)
    }
}

/// Input rows apart that a direct walk's tile reads at once, for the stores' threshold
/// ([`super::stores::transposing_copy_from`]): 1 where the tile takes the input's rows whole
/// and they follow each other in memory (NHWC -> NCHW's rows of C), else the tile's rows
/// (NCHW -> NHWC's 64 channels, each read 1024 elements at a time). `n0`, `n1`: the sizes of
/// dim 0 and of the input's fastest dim; `s0`: the input's byte stride along dim 0.
pub fn direct_input_rows(n0: usize, n1: usize, s0: isize, width: usize) -> usize {
    let (edge0, edge1) = direct_edges(n0, n1, width);
    if edge1 == n1 && s0.unsigned_abs() == n1 * width {
        1
    } else {
        edge0
    }
}

/// The clauses of an untiled walk's line for a loop of one or two inputs whose contiguous
/// rows lie apart (a permuting copy that keeps the last dim, an add of such a view): how far
/// ahead `raw::map1`, `raw::map2` and the streamed copy prefetch them, as `raw::rows_ahead`
/// decides for each block of rows.
fn rows_prefetched(plan: &TensorIterator) -> String {
    let ops = plan.operands();
    let shape = plan.shape();
    if !(2..=3).contains(&ops.len()) || plan.noutputs() != 1 || shape.len() < 2 {
        return String::new();
    }
    let strides0: Vec<isize> = ops.iter().map(|op| op.stride_bytes[0]).collect();
    let itemsizes: Vec<usize> = ops.iter().map(|op| op.itemsize()).collect();
    if super::InnerLoop::of(&strides0, &itemsizes, 1) != super::InnerLoop::Vectorized {
        return String::new();
    }
    let mut text = String::new();
    for (k, op) in ops.iter().enumerate().skip(1) {
        let (row, gap) = (shape[0] * op.itemsize(), op.stride_bytes[1]);
        if let Some(ahead) = super::raw::rows_ahead(row, gap, shape[1]) {
            text.push_str(&format!(
                "; operand {k}'s rows of {row} bytes lie {} bytes apart: the typed loops \
                 (copies, casts, ops of one or two inputs; not the vector math kernels nor \
                 float16's F16C rows) prefetch each {ahead} rows ahead (about {} bytes)",
                gap.unsigned_abs(),
                ahead * row
            ));
        }
    }
    text
}

/// `explain()`'s walk line of a kernel on the walk's blocks (an elementwise plan, or a copy
/// the walk does not do itself: `exec::copy_strategy`), decided as `decision`.
pub fn describe(plan: &TensorIterator, decision: TileDecision) -> String {
    match decision {
        TileDecision::Untiled(why) => format!(
            "walk: torch's 2-D order, untiled ({why}){}; {}",
            rows_prefetched(plan),
            super::stores::describe_flat(super::stores::elementwise_streams(plan))
        ),
        TileDecision::Tiled(t) => {
            let ops = plan.operands();
            let rest: Vec<String> = (1..plan.ndim())
                .filter(|&d| d != t.dim)
                .map(|d| d.to_string())
                .collect();
            let packed: Vec<usize> = (0..ops.len())
                .filter(|&k| is_packed(ops[k].stride_bytes[0], ops[k].itemsize()))
                .collect();
            let scratch: usize = packed
                .iter()
                .map(|&k| t.edge0 * t.edge1 * ops[k].itemsize())
                .sum();
            format!(
                "walk: tiled; operand {} is fastest along dim {} (byte stride {} there, {} along \
                 dim 0), so dims 0 and {} (sizes {} x {}) form the tiles and dims [{}] run \
                 outside; tiles {} x {} elements; operands {:?} (not contiguous along dim 0) \
                 are packed per tile into dim-0-contiguous scratch ({} bytes per thread, at most \
                 {}: a quarter of L2, 32 to 256 KiB) so that the kernel runs its contiguous loop (a tile whose \
                 operands all continue from one row to the next as one row), outputs copied \
                 back",
                t.operand,
                t.dim,
                ops[t.operand].stride_bytes[t.dim],
                ops[t.operand].stride_bytes[0],
                t.dim,
                plan.shape()[0],
                plan.shape()[t.dim],
                rest.join(", "),
                t.edge0,
                t.edge1,
                packed,
                scratch,
                scratch_bytes()
            )
        }
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;

    #[test]
    fn direct_tiles_count_the_input_rows_they_read_apart() {
        // NHWC -> NCHW of (16, 56, 56, 64) float32: rows of 64 channels, taken whole, one
        // after another
        assert_eq!(direct_input_rows(3136, 64, 256, 4), 1);
        // NCHW -> NHWC: 64 channels 12544 bytes apart, each read in part
        assert_eq!(direct_input_rows(64, 3136, 12544, 4), 64);
        // NCHW -> nChw16c: 16 channels at a time
        assert_eq!(direct_input_rows(16, 3136, 12544, 4), 16);
        // a 2-D transpose of 4096² float32: its tiles' rows
        let (edge0, _) = direct_edges(4096, 4096, 4);
        assert_eq!(direct_input_rows(4096, 4096, 16384, 4), edge0);
    }
    use crate::exec::copy_strategy::CopyStrategy;
    use crate::{Array, DType, MemoryFormat, Scalar, TensorIteratorConfig};
    use proptest::prelude::*;

    /// Contiguous byte strides of `shape` (fastest first) for elements of `width` bytes.
    pub(crate) fn dense(shape: &[usize], width: isize) -> Vec<isize> {
        let mut s = Vec::with_capacity(shape.len());
        let mut acc = width;
        for &n in shape {
            s.push(acc);
            acc *= n.max(1) as isize;
        }
        s
    }

    /// A random iteration space and operands: a probe whose address is the linear index (byte
    /// strides 1, n0, n0·n1, …), then two operands laid out in random dim orders, some dims
    /// reversed (negative strides) or broadcast (stride 0).
    pub(crate) fn geometry() -> impl Strategy<Value = (Vec<usize>, Vec<Vec<isize>>)> {
        prop::collection::vec(1usize..7, 2..5).prop_flat_map(|shape| {
            let n = shape.len();
            let layout = (
                Just((0..n).collect::<Vec<_>>()).prop_shuffle(),
                prop::collection::vec(0u8..6, n),
            );
            (Just(shape), layout.clone(), layout).prop_map(|(shape, a, b)| {
                let mut ops = vec![dense(&shape, 1)];
                for (order, flags) in [a, b] {
                    let permuted: Vec<usize> = order.iter().map(|&d| shape[d]).collect();
                    let packed = dense(&permuted, 4);
                    let mut s = vec![0isize; shape.len()];
                    for (pos, &d) in order.iter().enumerate() {
                        s[d] = match flags[d] {
                            0 => 0,
                            1 => -packed[pos],
                            _ => packed[pos],
                        };
                    }
                    ops.push(s);
                }
                (shape, ops)
            })
        })
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(256))]

        /// The rule picks a dim where the chosen operand really is faster than along dim 0,
        /// and edges inside the dims.
        #[test]
        fn choice_is_consistent((shape, ops) in geometry(), scale in 1usize..40, direct in any::<bool>()) {
            let shape: Vec<usize> = shape.iter().map(|&n| n * scale).collect();
            let ops: Vec<Vec<isize>> = ops.iter().map(|s| {
                let mut acc = 1isize;
                s.iter().zip(&shape).map(|(&x, &n)| { let v = x.signum() * acc; if x != 0 { acc *= n as isize; } v * 4 }).collect()
            }).collect();
            if let TileDecision::Tiled(t) = choose(&shape, ops.len(), |d, k| ops[k][d], |_| 4, direct) {
                let s = &ops[t.operand];
                let first = usize::from(t.fold);
                prop_assert!(t.dim > first && t.dim < shape.len());
                prop_assert!(s[t.dim] != 0 && s[t.dim].abs() < s[first].abs());
                prop_assert!(t.edge0 >= 1 && t.edge0 <= shape[first]);
                prop_assert!(t.edge1 >= 1 && t.edge1 <= shape[t.dim]);
            }
        }
    }

    fn iota(shape: &[usize]) -> Array {
        let n: usize = shape.iter().product();
        let flat = Array::arange(
            Scalar::Int(0),
            Scalar::Int(n as i64),
            Scalar::Int(1),
            DType::F32,
        )
        .unwrap();
        let shape: Vec<i64> = shape.iter().map(|&n| n as i64).collect();
        flat.view(&shape).unwrap()
    }

    /// A transpose copy large enough to tile, run in chunks on 2 threads, gives torch's values;
    /// explain() shows the decision.
    #[test]
    fn transpose_copy_tiles_and_is_exact() {
        crate::exec::set_num_threads(2).unwrap();
        let (rows, cols) = (300usize, 1024usize);
        let src = iota(&[rows, cols]).transpose(0, 1).unwrap();
        let dst = Array::empty(&[cols, rows], DType::F32, MemoryFormat::Contiguous).unwrap();
        let plan = TensorIteratorConfig::copy_op(dst.clone(), src.clone())
            .build()
            .unwrap();
        let TileDecision::Tiled(t) = decide(&plan) else {
            panic!("expected tiles: {}", describe(&plan, decide(&plan)));
        };
        // one packed float32 operand: 64-row tiles fill the scratch (64 x 1024 where L2 is
        // 1 MiB, 64 x 128 at the least)
        let edge1 = (scratch_bytes() / (EDGE0 * 4)).clamp(MIN_EDGE1, MAX_EDGE1);
        assert!(edge1 >= 128);
        assert_eq!((t.dim, t.edge0, t.edge1), (1, EDGE0, edge1));
        let text = crate::exec::explain(&plan, 2, 32768).unwrap();
        assert!(
            text.contains(&format!("tiles 64 x {edge1}")) && text.contains("operands [1]"),
            "{text}"
        );
        crate::kernels::copy::copy_into(&dst, &src).unwrap();
        let got = dst.to_scalars().unwrap();
        for (idx, v) in got.iter().enumerate() {
            let (c, r) = (idx / rows, idx % rows);
            assert_eq!(*v, Scalar::Float((r * cols + c) as f64), "at {idx}");
        }
    }

    /// `contiguous()` of permuted views through the direct walk (folded or not, 2 threads,
    /// every dtype width) gives each element its source value; explain() says direct.
    #[test]
    fn direct_permuted_copies_are_exact() {
        crate::exec::set_num_threads(2).unwrap();
        let cases: [(&[usize], &[i64], bool); 6] = [
            (&[40, 33, 17], &[2, 0, 1], false),
            (&[2, 510, 3, 2], &[2, 1, 0, 3], true),
            (&[5, 7, 9, 11, 2], &[4, 2, 0, 3, 1], false),
            (&[170, 31, 2, 3], &[1, 0, 2, 3], true),
            (&[64, 5, 97], &[2, 1, 0], false),
            (&[3, 3000, 4], &[1, 0, 2], true),
        ];
        for dtype in [DType::U8, DType::I16, DType::F32, DType::F64, DType::C128] {
            for (shape, perm, fold) in cases {
                let n: usize = shape.iter().product();
                let flat = Array::arange(
                    Scalar::Int(0),
                    Scalar::Int(n as i64),
                    Scalar::Int(1),
                    DType::I64,
                )
                .unwrap();
                let dims: Vec<i64> = shape.iter().map(|&x| x as i64).collect();
                let src = crate::kernels::copy::converted_copy(
                    &flat,
                    Some(dtype),
                    MemoryFormat::Contiguous,
                )
                .unwrap()
                .view(&dims)
                .unwrap();
                let view = src.permute(perm).unwrap();
                let dst = view.empty_like(None, MemoryFormat::Contiguous).unwrap();
                let config = TensorIteratorConfig::copy_op(dst.clone(), view.clone());
                let plan = config.into_plan().unwrap();
                // the direct walk's decision, also where the permuting copy takes the plan
                let decision = choose_for(&plan, true).unless(|| order_kept(&plan));
                let text = CopyStrategy::of(&plan).describe(&plan);
                if let TileDecision::Tiled(t) = decision {
                    assert!(t.direct, "{shape:?} {perm:?}: {text}");
                    assert!(t.fold == fold || !fold, "{shape:?} {perm:?}: {text}");
                    assert!(
                        text.contains("direct copy") || text.contains("permuting copy"),
                        "{text}"
                    );
                }
                if dtype == DType::F32 {
                    // large enough to tile, and a fold where dim 0 is short in both
                    assert!(
                        matches!(decision, TileDecision::Tiled(t) if t.fold == fold),
                        "{shape:?} {perm:?}: {text}"
                    );
                }
                crate::kernels::copy::copy_into(&dst, &view).unwrap();
                assert_eq!(
                    dst.to_scalars().unwrap(),
                    view.to_scalars().unwrap(),
                    "{dtype:?} {shape:?} {perm:?}"
                );
            }
        }
    }

    /// Reductions and tiny plans keep torch's walk.
    #[test]
    fn untiled_cases() {
        let src = iota(&[300, 1024]).transpose(0, 1).unwrap();
        let mut config = TensorIteratorConfig::new();
        config
            .add_output(None)
            .add_input(src.clone())
            .is_reduction(true);
        let plan = config.build().unwrap();
        assert!(
            matches!(decide(&plan), TileDecision::Untiled(_)),
            "{}",
            describe(&plan, decide(&plan))
        );
        let small = iota(&[8, 8]).transpose(0, 1).unwrap();
        let dst = Array::empty(&[8, 8], DType::F32, MemoryFormat::Contiguous).unwrap();
        let plan = TensorIteratorConfig::copy_op(dst, small).build().unwrap();
        assert_eq!(
            decide(&plan),
            TileDecision::Untiled("the operands fit in L1 in any order")
        );
    }
}
