//! How a same-dtype copy runs (`dst.copy_(src)`, `contiguous()` of a permuted view): one
//! decision from the plan, [`CopyStrategy::of`], whose value the walk runs (`for_each_copy`
//! hands it to the walk and to the copy kernel) and whose printed form is `explain()`'s walk
//! line ([`CopyStrategy::describe`]), so that the two cannot drift apart.
//!
//! The bytes of each element move unchanged, so the walk may move them itself, in any order
//! that keeps torch's results ([`super::tiled`]'s module doc): the permuting copy
//! ([`super::permute`]) where the operands' fastest dims differ and one is short, direct tiles
//! through register transposes where both are long, the input's memory order where the rows
//! are contiguous in both and the stores stream. Every other copy runs the copy kernel on the
//! walk's blocks, as any elementwise kernel does.
#![forbid(unsafe_code)]

use super::permute::{PermuteCopy, TileKernel, Ways};
use super::tiled::{self, TileDecision, Tiling};
use crate::plan::{TensorIterator, INLINE_DIMS};
use smallvec::SmallVec;
use std::cell::LazyCell;

/// How a plan of `copy_` runs, in the order [`CopyStrategy::of`] checks.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum CopyStrategy {
    /// The permuting copy ([`super::permute`]): the walk's ranges map onto its tiles, which it
    /// copies itself. (Boxed: large, and rare.)
    Permute(Box<PermuteCopy>),
    /// Direct tiles ([`super::tiled`]): a tiled walk that copies each tile itself, from the
    /// input to the output through register transposes, with no scratch.
    DirectTiles(Tiling),
    /// The copy kernel on an untiled walk of the plan's dims in this order (the input's memory
    /// order, dim 0 first: `input_order`), every row streamed.
    InputOrder(SmallVec<[usize; INLINE_DIMS]>),
    /// The kernel on the walk's blocks, as for every elementwise plan: torch's 2-D order or
    /// packed tiles, as the decision says. A conversion between dtypes runs so, and so does
    /// every `for_each`.
    Elementwise(TileDecision),
}

impl CopyStrategy {
    /// The strategy of a plan of `copy_` (`TensorIteratorConfig::copy_op`): the permuting copy
    /// where it takes the plan, else direct tiles where the tiling is direct, else the input's
    /// order where an untiled plan asks for it, else the copy kernel on the walk's blocks. A
    /// plan that is not a same-dtype copy of its one input into its one output (a conversion)
    /// gets the elementwise walk of [`tiled::decide`].
    pub fn of(plan: &TensorIterator) -> CopyStrategy {
        if !is_byte_copy(plan) {
            return CopyStrategy::Elementwise(tiled::decide(plan));
        }
        // why torch's order is kept, if it is: asked by the permuting copy, the tiles and the
        // input's order, each after its cheaper tests (at most once, never by small plans)
        let kept = LazyCell::new(|| tiled::order_kept(plan));
        if let Some(p) = permute_copy(plan, || kept.is_some()) {
            return CopyStrategy::Permute(Box::new(p));
        }
        match tiled::choose_for(plan, true).unless(|| *kept) {
            TileDecision::Tiled(t) if t.direct => CopyStrategy::DirectTiles(t),
            TileDecision::Untiled(why) => match input_order(plan, || kept.is_some()) {
                Some(order) => CopyStrategy::InputOrder(order),
                None => CopyStrategy::Elementwise(TileDecision::Untiled(why)),
            },
            packed => CopyStrategy::Elementwise(packed),
        }
    }

    /// Shortest row (bytes) whose stores the copy kernel streams when the copy streams
    /// (`stores::copy_streams`): every row of a walk in the input's order (what it is for),
    /// else [`super::stores::min_streamed_copy_row`].
    pub fn min_streamed_row(&self) -> usize {
        match self {
            CopyStrategy::InputOrder(_) => 0,
            _ => super::stores::min_streamed_copy_row(),
        }
    }

    /// `explain()`'s walk line: this strategy on `plan` (the plan it was chosen for), with its
    /// numbers.
    pub fn describe(&self, plan: &TensorIterator) -> String {
        match self {
            CopyStrategy::Permute(p) => describe_permute(plan, p),
            CopyStrategy::DirectTiles(t) => describe_direct(plan, t),
            CopyStrategy::InputOrder(order) => describe_input_order(plan, order),
            CopyStrategy::Elementwise(decision) => tiled::describe(plan, *decision),
        }
    }
}

/// Whether the plan copies its one input into its one output of the same dtype: the bytes of
/// each element move unchanged.
fn is_byte_copy(plan: &TensorIterator) -> bool {
    let ops = plan.operands();
    ops.len() == 2
        && plan.noutputs() == 1
        && ops[0].target_dtype.is_some()
        && ops[0].target_dtype == ops[1].target_dtype
}

/// Longest run of a dim contiguous in both operands that a permuting copy moves as one element:
/// longer runs are copied at full speed by torch's walk already (each a `memcpy` of whole lines)
/// — unless they are whole lines, shorter than the rows torch's walk streams, and the copy
/// streams (`streams_whole_line_runs`).
pub const MAX_RUN_BYTES: usize = 256;

/// Whether a permuting copy streaming its stores takes runs of `elem` bytes longer than
/// [`MAX_RUN_BYTES`]: whole lines (so that each run is streamed whole where the output is
/// line-aligned) shorter than the rows torch's walk streams
/// ([`super::stores::MIN_STREAMED_ROW`]). Along the input's rows and streamed (`raw::permute`),
/// on the 2-core Zen 4, 1 thread, 32 MiB float32 `(B, S, H, D)` by `(0, 2, 1, 3)` or
/// `(2, 0, 1, 3)`: D = 128 and 256 (runs of 512 and 1024 bytes) 23 -> 50-53 GB/s into
/// line-aligned outputs, 22 -> 38-51 into outputs 16 bytes past a line. Runs that are not
/// whole lines gained less or lost (1588 bytes 22 -> 22-30, 520 bytes 20 -> 16-18).
fn streams_whole_line_runs(elem: usize, stream: bool) -> bool {
    stream && elem.is_multiple_of(64) && elem < super::stores::MIN_STREAMED_ROW
}

/// The shortest fastest dim (of the output and of the input, elements) from which the
/// direct tiled walk is left to copy a permutation: its tiles of whole single dims already
/// read and write long runs there. On the 2-core machine it was 1.3-2.5x faster than the
/// permuting copy for NCHW <-> NHWC and the blocked conversions (dims 16-64 against 3136) and
/// about even on 2-D transposes; the permuting copy wins on short dims and folded runs.
const DIRECT_WALK_MIN_DIM: usize = 16;
/// ... and the length (elements) one of the two must reach besides: where both are short
/// (e.g. 108 against 42, 78 against 16, 19 against 51) the direct walk's tiles of two single
/// dims are as short, and the permuting copy, which merges more dims into its rows and
/// columns, ran 1.4-2.2x faster on the 2-core Zen 4 (float32, three of the bench's random
/// permutations of 8M elements).
const DIRECT_WALK_LONG_DIM: usize = 256;

/// The permuting copy ([`super::permute`]) of a same-dtype copy, when it is one: elements of 4
/// or 8 bytes (or runs of a dim contiguous in both, of 12 to [`MAX_RUN_BYTES`] bytes, or of
/// whole lines where `streams_whole_line_runs`, or of 1 or 2 bytes merged lane by lane:
/// [`PermuteCopy::ways`]), large enough, whose order may change, with output and input each
/// contiguous along its fastest dim and those dims different, and one of them shorter than
/// `DIRECT_WALK_MIN_DIM` or both shorter than `DIRECT_WALK_LONG_DIM` unless a run is folded.
fn permute_copy(plan: &TensorIterator, order_kept: impl FnOnce() -> bool) -> Option<PermuteCopy> {
    let ops = plan.operands();
    let width = ops[0].itemsize();
    let stride = |d: usize, k: usize| ops[k].stride_bytes.get(d).copied().unwrap_or(0);
    let p = super::permute::plan(
        plan.shape(),
        |d| stride(d, 0),
        |d| stride(d, 1),
        width,
        super::stores::transposing_copy_from(
            super::stores::threads_sharing(plan.numel()),
            super::stores::PERMUTING_COPY_ROWS,
        ),
    )?;
    if !(p.elem == 4
        || p.elem == 8
        || (12..=MAX_RUN_BYTES).contains(&p.elem)
        || streams_whole_line_runs(p.elem, p.stream)
        || p.ways().is_some())
    {
        return None;
    }
    let (row, col) = (p.rows.sizes[0], p.cols.sizes[0]);
    if p.fold == 1 && row.min(col) >= DIRECT_WALK_MIN_DIM && row.max(col) >= DIRECT_WALK_LONG_DIM {
        return None;
    }
    (!order_kept()).then_some(p)
}

/// Shortest rows (bytes) of a streamed same-dtype copy that `input_order` walks in the
/// input's order: rows of 64 float32 were the shortest measured (2x, see
/// [`super::stores::streamed_copy_follows_input`]). The permuting copy, which comes first,
/// takes runs up to [`MAX_RUN_BYTES`] and streamed whole-line runs
/// (`streams_whole_line_runs`), so rows of 260 bytes, 520, 1588 come here.
pub const INPUT_ORDER_MIN_ROW: usize = 256;

/// The walk order (dims fastest first, dim 0 kept first) of an untiled same-dtype copy that the
/// permuting copy does not take, whose rows are contiguous in both operands but whose outer
/// dims the input lays out in another order (a permutation that keeps the last dim, e.g.
/// (46, 111, 4, 397) by (1, 2, 0, 3)), when its stores stream and
/// [`super::stores::streamed_copy_follows_input`]: the dims after 0 sorted by the input's
/// strides, so that the input is read once in memory order while each row's whole lines are
/// streamed to wherever the output keeps it (every row is streamed, whatever its length).
/// torch's order reads the input's rows far apart (705 KB there), which the prefetchers follow
/// poorly, and plain stores read every output line first. `None`: torch's order (also when the
/// orders agree or a dim of the input is broadcast).
fn input_order(
    plan: &TensorIterator,
    order_kept: impl FnOnce() -> bool,
) -> Option<SmallVec<[usize; INLINE_DIMS]>> {
    if !super::stores::streamed_copy_follows_input() || plan.ndim() < 3 {
        return None;
    }
    let ops = plan.operands();
    let width = ops[0].itemsize();
    let (out, inp) = (&ops[0].stride_bytes, &ops[1].stride_bytes);
    let rows_contiguous = out[0] == width as isize && inp[0] == width as isize;
    if !rows_contiguous || plan.shape()[0] * width < INPUT_ORDER_MIN_ROW || inp[1..].contains(&0) {
        return None;
    }
    if !super::stores::copy_streams(plan.numel(), width, width) || order_kept() {
        return None;
    }
    let mut order: SmallVec<[usize; INLINE_DIMS]> = (0..plan.ndim()).collect();
    order[1..].sort_by_key(|&d| inp[d].unsigned_abs());
    let changed = order.iter().enumerate().any(|(i, &d)| i != d);
    changed.then_some(order)
}

/// Whether a direct copy's streamed float32 output has columns (`col_stride` bytes apart) off
/// the cache lines: each column's whole lines are then realigned in registers
/// (`raw::lines512::copy_tile_realigned`) and the tiles along dim 0 joined (`Joins`).
fn off_lines(stream: bool, width: usize, col_stride: isize) -> bool {
    stream && width == 4 && col_stride % 64 != 0
}

/// Whether a direct copy's float32 tiles (`edge0` rows, input rows `row_stride` bytes apart)
/// take the diagonal walk (`raw::lines512::copy_tile_diagonal`, where the rows share cache
/// sets); the kernel decides per tile, for tiles of 32 rows or more.
fn diagonal(width: usize, row_stride: isize, edge0: usize) -> bool {
    width == 4 && edge0 >= 32 && crate::exec::raw::rows_share_cache_sets(row_stride)
}

/// How a permuting copy's tiles are copied ([`TileKernel`]).
fn describe_tile_kernel(p: &PermuteCopy) -> String {
    use super::permute::{RUNS_ALONG_INPUT_ROWS_FROM, STREAMED_RUN_LINES};
    let kernel = TileKernel::for_elem(p.elem);
    if let Some(ways) = p.ways() {
        let how = if super::cpu::avx512_permutes(p.elem) {
            "AVX-512 masked permutes"
        } else {
            "byte shuffles within 16-byte lanes: AVX2's vpshufb, NEON's tbl"
        };
        match ways {
            Ways::Interleave(k) => format!(
                "by interleaving its {k} rows lane by lane into the tile's one output run \
                 ({how}, no transpose; through an image where that run is off the lines)"
            ),
            Ways::Deinterleave(k) => format!(
                "by deinterleaving the tile's one input run lane by lane into its {k} \
                 columns ({how}, no transpose)"
            ),
        }
    } else if kernel != TileKernel::Runs {
        "through register transposes".to_string()
    } else if kernel.runs_along_input_rows(p.elem) {
        format!(
            "run by run along the input's rows, each read in order (runs of at least \
             {RUNS_ALONG_INPUT_ROWS_FROM} bytes){}",
            if p.stream {
                format!(
                    ", the whole lines of runs that hold at least {STREAMED_RUN_LINES} of \
                     them streamed"
                )
            } else {
                String::new()
            }
        )
    } else {
        format!(
            "run by run down the output's columns (runs shorter than \
             {RUNS_ALONG_INPUT_ROWS_FROM} bytes)"
        )
    }
}

/// The walk line of [`CopyStrategy::Permute`].
fn describe_permute(plan: &TensorIterator, p: &PermuteCopy) -> String {
    let sizes = super::cache::sizes();
    format!(
        "walk: permuting copy; the output's fastest dims (sizes {:?}) form the rows, the \
         input's (sizes {:?}) the columns, dims of sizes {:?} run outside{}; tiles {} x {} \
         elements of {} bytes copied from input to output {} (caches: L1 {} KiB, L2 {} \
         KiB, L3 {} KiB){}{}; {}",
        p.rows.sizes.as_slice(),
        p.cols.sizes.as_slice(),
        p.outer.iter().map(|o| o.0).collect::<Vec<_>>(),
        if p.fold > 1 {
            format!(
                "; a dim of size {} contiguous in both is copied as one element",
                p.fold
            )
        } else {
            String::new()
        },
        p.tile_r,
        p.tile_c,
        p.elem,
        describe_tile_kernel(p),
        sizes.l1d >> 10,
        sizes.l2 >> 10,
        sizes.l3 >> 10,
        if p.realign {
            "; the output's columns lie off the cache lines: tiles long down them, each \
             column's whole lines realigned in registers and streamed, the line where two \
             tiles' runs meet written whole by the first, only each column's own partial \
             end lines stored plainly"
        } else {
            ""
        },
        if p.columns_first && p.tiles().0 > 1 && p.tiles().1 > 1 {
            format!(
                "; the {} tiles of each band of rows walked along the columns, the input's \
                 rows read on from tile to tile (near last-level cache)",
                p.tiles().1
            )
        } else {
            String::new()
        },
        super::stores::describe(p.stream, plan.numel(), super::stores::PERMUTING_COPY_ROWS)
    )
}

/// The walk line of [`CopyStrategy::InputOrder`].
fn describe_input_order(plan: &TensorIterator, order: &[usize]) -> String {
    let ops = plan.operands();
    let rest: Vec<String> = order[1..].iter().map(|d| d.to_string()).collect();
    format!(
        "walk: the input's memory order, untiled; a streamed same-dtype copy of rows of {} \
         bytes contiguous in both: dims [{}] outside dim 0, by the input's strides (torch's \
         order reads its rows {} bytes apart), so the input is read once in order; stores: \
         non-temporal, each row's whole lines streamed wherever the output keeps it, only \
         the partial lines at its ends stored plainly (the operands move more than {} KiB; \
         near last-level cache)",
        plan.shape()[0] * ops[0].itemsize(),
        rest.join(", "),
        ops[1].stride_bytes[1].unsigned_abs(),
        super::cache::sizes().l3 >> 10
    )
}

/// The walk line of [`CopyStrategy::DirectTiles`].
fn describe_direct(plan: &TensorIterator, t: &Tiling) -> String {
    let ops = plan.operands();
    let first = usize::from(t.fold);
    let rest: Vec<String> = (first + 1..plan.ndim())
        .filter(|&d| d != t.dim)
        .map(|d| d.to_string())
        .collect();
    let sizes = super::cache::sizes();
    format!(
        "walk: tiled, direct copy; the input is fastest along dim {} (byte stride {} \
         there, {} along dim {first}), so dims {first} and {} (sizes {} x {}) form \
         the tiles and dims [{}] run outside; tiles {} x {} elements (from the \
         caches: L1 {} KiB, L2 {} KiB, L3 {} KiB) copied from input to output \
         through register transposes, no scratch{}; {}",
        t.dim,
        ops[1].stride_bytes[t.dim],
        ops[1].stride_bytes[first],
        t.dim,
        plan.shape()[first],
        plan.shape()[t.dim],
        rest.join(", "),
        t.edge0,
        t.edge1,
        sizes.l1d >> 10,
        sizes.l2 >> 10,
        sizes.l3 >> 10,
        if t.fold {
            "; dim 0 is contiguous in both operands and short: each run along it is \
             copied as one element"
                .to_string()
        } else if off_lines(t.stream, ops[0].itemsize(), ops[0].stride_bytes[t.dim]) {
            format!(
                "; the output's columns lie {} bytes apart, off the cache lines: \
                 (with AVX-512) each column's whole lines realigned in registers \
                 and streamed, the line where two tiles' runs meet written whole \
                 by the first, only each column's own partial end lines stored \
                 plainly",
                ops[0].stride_bytes[t.dim]
            )
        } else if diagonal(ops[0].itemsize(), ops[1].stride_bytes[first], t.edge0) {
            format!(
                "; the input's rows lie {} bytes apart, a multiple of 4 KiB, where a \
                 column's lines share cache sets: (with AVX-512) each tile walked \
                 diagonally, row block b taking strip t - 3b at step t, each block \
                 asking for its next strip's lines into L2",
                ops[1].stride_bytes[first]
            )
        } else {
            String::new()
        },
        super::stores::describe(t.stream, plan.numel(), t.input_rows)
    )
}

#[cfg(test)]
thread_local! {
    /// The strategy of the last copy this thread ran (`exec::for_each_copy`), for the tests.
    pub(crate) static LAST_RUN: std::cell::RefCell<Option<CopyStrategy>> =
        const { std::cell::RefCell::new(None) };
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::kernels::copy::{converted_copy, copy_into};
    use crate::{Array, DType, MemoryFormat, Scalar, TensorIteratorConfig};

    /// `0..n` as `dtype` laid out in `shape`, viewed permuted by `perm`.
    fn permuted(shape: &[i64], perm: &[i64], dtype: DType) -> Array {
        let n: i64 = shape.iter().product();
        let flat =
            Array::arange(Scalar::Int(0), Scalar::Int(n), Scalar::Int(1), DType::I64).unwrap();
        converted_copy(&flat, Some(dtype), MemoryFormat::Contiguous)
            .unwrap()
            .view(shape)
            .unwrap()
            .permute(perm)
            .unwrap()
    }

    /// The walk `copy_` runs is the strategy whose line `explain()` prints: a 2-D float32
    /// transpose and (3, N) -> (N, 3) (direct tiles and the permuting copy on any machine),
    /// NCHW -> NHWC, a contiguous copy and a conversion (the kernel on `for_each`'s walk); each
    /// copy gives the source's values.
    #[test]
    fn explain_names_the_strategy_the_copy_runs() {
        let cases: [(&[i64], &[i64], DType, DType); 5] = [
            (&[512, 512], &[1, 0], DType::F32, DType::F32),
            (&[2, 64, 56, 56], &[0, 2, 3, 1], DType::F32, DType::F32),
            (&[3, 100_000], &[1, 0], DType::F32, DType::F32),
            (&[64, 1024], &[0, 1], DType::F32, DType::F32),
            (&[300, 1024], &[1, 0], DType::F32, DType::F64),
        ];
        let mut kinds = Vec::new();
        for (shape, perm, from, to) in cases {
            let src = permuted(shape, perm, from);
            let dst = Array::empty(src.shape(), to, MemoryFormat::Contiguous).unwrap();
            let plan = TensorIteratorConfig::copy_op(dst.clone(), src.clone())
                .into_plan()
                .unwrap();
            // other tests change the thread count, which the stores' choice and its text
            // read: tried until both stay put through the explain() and the copy
            for attempt in 0.. {
                let strategy = CopyStrategy::of(&plan);
                let want = strategy.describe(&plan);
                let text = crate::exec::explain_copy(&plan, 2, crate::exec::GRAIN_SIZE).unwrap();
                LAST_RUN.set(None);
                copy_into(&dst, &src).unwrap();
                let ran = LAST_RUN.take();
                let settled =
                    CopyStrategy::of(&plan) == strategy && strategy.describe(&plan) == want;
                if !settled && attempt < 20 {
                    continue;
                }
                let line = text.lines().find(|l| l.starts_with("walk:")).unwrap();
                assert_eq!(line, want, "{shape:?} {perm:?}");
                if from == to {
                    assert_eq!(ran.as_ref(), Some(&strategy), "{shape:?} {perm:?}");
                } else {
                    // a conversion runs its kernel on `for_each`'s walk
                    assert_eq!(ran, None);
                    assert_eq!(strategy, CopyStrategy::Elementwise(tiled::decide(&plan)));
                }
                kinds.push(match strategy {
                    CopyStrategy::Permute(_) => "permuting copy",
                    CopyStrategy::DirectTiles(_) => "direct tiles",
                    CopyStrategy::InputOrder(_) => "input order",
                    CopyStrategy::Elementwise(TileDecision::Untiled(_)) => "untiled",
                    CopyStrategy::Elementwise(TileDecision::Tiled(_)) => "packed tiles",
                });
                break;
            }
            assert_eq!(dst.to_scalars().unwrap(), src.to_scalars().unwrap());
        }
        // machine-independent: neither the stores nor the thread count decides these
        assert_eq!(kinds[0], "direct tiles");
        assert_eq!(kinds[2], "permuting copy");
        assert_eq!(kinds[3..], ["untiled", "packed tiles"]);
    }
}
