//! The walk: a plan's shape and operands turned into the 2-D [`Block`]s a kernel runs on —
//! torch's `serial_for_each` over a linear range, in tiles when [`tiled`] says so, with the
//! packed operands copied through scratch. Raw memory: see the invariants in [`super`].

use super::kept::Kept;
use super::pack::{self, Line};
use super::stream::LINE;
use super::transpose;
use super::{Block, SendPtr};
use crate::exec::copy_strategy::CopyStrategy;
use crate::exec::permute::PermuteCopy;
use crate::exec::tiled::{self, Tiling};
use crate::plan::{DimCounter, DirectOperands, TensorIterator, INLINE_DIMS, MAX_DIRECT_INPUTS};
use smallvec::{smallvec, SmallVec};
use std::marker::PhantomData;

/// Operands kept inline (no heap allocation) by a walk: a ternary op's out + 3 inputs.
const INLINE_OPERANDS: usize = 4;

type Dims<T> = SmallVec<[T; INLINE_DIMS]>;
type PerOperand<T> = SmallVec<[T; INLINE_OPERANDS]>;

/// An operand a tiled walk hands to the kernel through scratch (see [`tiled`]): its element
/// width, whether it is an output (written back after the kernel), and its lines of scratch.
#[derive(Debug, Clone)]
struct Packed {
    width: usize,
    output: bool,
    lines: std::ops::Range<usize>,
}

thread_local! {
    /// Each thread's scratch for packed tiles, kept from one walk to the next ([`Kept`]: at
    /// most `tiled::MAX_SCRATCH_BYTES` per thread).
    static SCRATCH: std::cell::Cell<Vec<Line>> = const { std::cell::Cell::new(Vec::new()) };
}

/// Everything a walk needs, taken from the plan once and kept inline for small plans (the
/// serial path allocates nothing): the shape in walk order (at least 2-D, padded with 1), each
/// operand's base pointer and byte strides, the tile edges when the walk is tiled, and the
/// operands packed in each tile. The lifetime is the plan's (or the buffers') that the
/// pointers point into.
pub(crate) struct Walk<'p> {
    shape: Dims<usize>,
    base: PerOperand<SendPtr>,
    /// `strides[d * nops + k]`: operand k's byte stride along walk dim d, so that the strides
    /// of one dim across operands form the slice a [`Block`] wants.
    strides: SmallVec<[isize; INLINE_DIMS * INLINE_OPERANDS]>,
    nops: usize,
    /// Tile edges along walk dims 0 and 1 (`usize::MAX`: untiled, blocks are whole).
    edges: (usize, usize),
    /// Per operand, how it is packed (`None`: the kernel sees it in place).
    packed: PerOperand<Option<Packed>>,
    /// Lines of scratch a packed walk needs per thread (0: nothing is packed).
    scratch_lines: usize,
    /// The byte strides the kernel sees along dims 0 and 1 of a packed walk's tiles.
    packed_strides: (PerOperand<isize>, PerOperand<isize>),
    /// A direct walk (see [`tiled`]): the element width, and whether to stream the output.
    /// The walk copies operand 1 into operand 0 tile by tile itself.
    direct: Option<(usize, bool)>,
    /// Elements of the plan per element of the walk: the size of dim 0 when a direct walk
    /// folds it into the element ([`Tiling::fold`]), else 1.
    fold: usize,
    /// A permuting copy (see [`crate::exec::permute`]), which replaces the tiles, and the
    /// plan's element count (its ranges map onto the copy's work items).
    /// Boxed: rare, and inline it would grow every walk that a tiny op builds.
    permute: Option<(Box<PermuteCopy>, usize)>,
    /// Whether an untiled walk's blocks stream their output rows
    /// ([`crate::exec::stores::elementwise_streams`]).
    stream_out: bool,
    memory: PhantomData<&'p ()>,
}

/// Each operand's pointer to its first element (null for an output not yet allocated, which
/// a built plan never has): where the walk and [`run_flat`] start.
fn operand_bases(plan: &TensorIterator) -> impl Iterator<Item = *mut u8> + '_ {
    plan.operands().iter().map(|op| {
        op.array
            .as_ref()
            .map_or(std::ptr::null_mut(), |a| a.data_ptr() as *mut u8)
    })
}

/// Runs `f` once on the whole of a one-dim plan: the block [`Walk::run`] hands over for a
/// plan that is neither tiled, packed, permuted nor streamed, without building the walk.
/// `for_each` takes it for small plans (up to a grain), where building the walk cost a
/// 1-element add 1,700 of its 9,700 instructions (callgrind).
pub(crate) fn run_flat(plan: &TensorIterator, f: &impl Fn(&Block)) {
    let ops = plan.operands();
    debug_assert_eq!(plan.ndim(), 1);
    let ptrs: PerOperand<*mut u8> = operand_bases(plan).collect();
    let strides0: PerOperand<isize> = ops
        .iter()
        .map(|op| op.stride_bytes.first().copied().unwrap_or(0))
        .collect();
    let strides1: PerOperand<isize> = smallvec![0; ops.len()];
    // SAFETY: the plan's guarantees (see the module invariants): each operand's byte stride
    // along the plan's one dim addresses `numel` elements of its dtype inside its array's
    // storage, which the plan keeps alive while `f` runs; outputs are writable. Dim 1 has
    // size 1, so its strides are never stepped.
    let block = unsafe { Block::new(&ptrs, &strides0, &strides1, plan.numel(), 1) };
    f(&block);
}

/// Runs `f` once on the one row of a direct plan's operands ([`DirectOperands::one_row`]):
/// the block [`run_flat`] would hand over for the plan they make, without making it.
pub(crate) fn run_row(operands: &DirectOperands, f: &impl Fn(&Block)) {
    const MAX: usize = MAX_DIRECT_INPUTS + 1;
    // (what the block below relies on, and `direct_operands` ensures: checked in release
    // builds too, as it costs nothing next to the call)
    assert!(operands.one_row(), "run_row takes the operands of one row");
    let (mut ptrs, mut strides0) = ([std::ptr::null_mut(); MAX], [0isize; MAX]);
    let mut count = 0;
    for (k, (array, stride)) in operands.row_operands().enumerate() {
        ptrs[k] = array.data_ptr() as *mut u8;
        strides0[k] = stride;
        count = k + 1;
    }
    let strides1 = [0isize; MAX];
    // SAFETY: `direct_operands` checked each operand (at most `MAX`: its inputs and the
    // output; the loop above indexes no further) to be contiguous with the
    // row's `numel` elements from its data pointer (one row, asserted above), or a 0-d number
    // read at stride 0, inside its array's storage, which `operands` keeps alive while `f`
    // runs; the output is new or was checked writable. Arrays are bounds-checked and aligned
    // for their dtype when made. Dim 1 has size 1, so its strides are never stepped.
    let block = unsafe {
        Block::new(
            &ptrs[..count],
            &strides0[..count],
            &strides1[..count],
            operands.numel(),
            1,
        )
    };
    f(&block);
}

impl<'p> Walk<'p> {
    /// The walk that runs `strategy` over a plan's operands: the kernel on torch's blocks
    /// (tiled as the decision says; untiled, with its output rows streamed when
    /// [`crate::exec::stores::elementwise_streams`] says so) or on the input's order, or a
    /// copy the walk does itself (direct tiles, the permuting copy). `strategy` is the one
    /// chosen for this plan (`CopyStrategy::of`, or `tiled::decide`'s for a kernel's walk, as
    /// every caller in `exec` does just before): its geometry addresses the plan's operands.
    pub(crate) fn new(plan: &'p TensorIterator, strategy: CopyStrategy) -> Walk<'p> {
        let (tiling, order, permute) = match strategy {
            CopyStrategy::Elementwise(decision) => (decision.tiling(), None, None),
            CopyStrategy::InputOrder(order) => (None, Some(order), None),
            CopyStrategy::DirectTiles(t) => (Some(t), None, None),
            CopyStrategy::Permute(p) => (None, None, Some(p)),
        };
        let ops = plan.operands();
        let bases = operand_bases(plan);
        let widths: PerOperand<usize> = ops.iter().map(|op| op.itemsize()).collect();
        let dim = |d: usize| order.as_ref().map_or(d, |o| o[d]);
        let shape: Dims<usize> = (0..plan.ndim()).map(|d| plan.shape()[dim(d)]).collect();
        // SAFETY: the plan's guarantees (see the module invariants): every operand's byte
        // strides over the plan's shape address elements of its dtype inside its array's
        // storage, which the plan keeps alive for `'p`; outputs are writable; `widths` are the
        // operands' element sizes. A reordered walk visits the same indices (its dims are the
        // plan's, permuted, each with its own strides).
        let mut walk = unsafe {
            Walk::from_parts(
                &shape,
                bases,
                |d, k| ops[k].stride_bytes.get(dim(d)).copied().unwrap_or(0),
                tiling,
                Some((&widths, plan.noutputs())),
            )
        };
        walk.stream_out =
            tiling.is_none() && permute.is_none() && crate::exec::stores::elementwise_streams(plan);
        // The permuting copy regroups the plan's own dims and strides (its module doc): the
        // same elements, by the plan's guarantees.
        walk.permute = permute.map(|p| (p, plan.numel()));
        walk
    }

    /// A walk over `shape` (fastest first) for operands at `bases` with byte strides
    /// `stride(d, k)`. A tiling reorders the dims to `[0, tiling.dim, the others]`, so that the
    /// blocks a DimCounter hands out span the tile's two dims; the linear ranges given to
    /// [`Walk::run`] (and the thread split) are then ranges of that order.
    ///
    /// `operands` gives each operand's element width and the number of outputs: a tiled walk
    /// then packs the operands that are not contiguous along dim 0 ([`tiled::is_packed`]).
    /// Without it nothing is packed (a walk over pointers that are never dereferenced).
    ///
    /// # Safety
    /// For every operand `k` and every index of `shape`, `bases[k] + Σ_d index[d]·stride(d,
    /// k)` must address an element of operand `k` inside one live allocation, aligned for its
    /// element type (`widths[k]` bytes when `operands` is given), readable, and writable for
    /// the first `noutputs` operands, for `'p`: [`Walk::run`] hands these addresses to its
    /// closure in [`Block`]s (see [`Block::new`]) and packs operands through them.
    pub(crate) unsafe fn from_parts(
        shape: &[usize],
        bases: impl IntoIterator<Item = *mut u8>,
        stride: impl Fn(usize, usize) -> isize,
        tiling: Option<Tiling>,
        operands: Option<(&[usize], usize)>,
    ) -> Walk<'p> {
        let base: PerOperand<SendPtr> = bases.into_iter().map(SendPtr).collect();
        let nops = base.len();
        let ndim = shape.len().max(2);
        let direct = match (tiling, operands) {
            (Some(t), Some((widths, 1))) if t.direct && nops == 2 && widths[0] == widths[1] => {
                Some((widths[0], t.stream))
            }
            _ => None,
        };
        let mut order: Dims<usize> = (0..ndim).collect();
        let mut fold = 1;
        if let Some(t) = tiling {
            order.remove(t.dim);
            order.insert(1, t.dim);
            if t.fold && direct.is_some() && shape.len() >= 3 {
                // dims [1, t.dim, the others]: dim 0 becomes part of the element
                order.remove(0);
                order.retain(|d| *d != 1);
                order.insert(0, 1);
                fold = shape[0];
            }
        }
        let size = |d: usize| shape.get(d).copied().unwrap_or(1);
        let stride_or_0 = |d: usize, k: usize| if d < shape.len() { stride(d, k) } else { 0 };
        let mut strides = SmallVec::with_capacity(ndim * nops);
        for &d in &order {
            strides.extend((0..nops).map(|k| stride_or_0(d, k)));
        }
        let direct = direct.map(|(width, stream)| (width * fold, stream));
        let edges = tiling.map_or((usize::MAX, usize::MAX), |t| (t.edge0, t.edge1));
        let mut packed: PerOperand<Option<Packed>> = smallvec![None; nops];
        let mut scratch_lines = 0;
        if let (Some(_), Some((widths, noutputs)), None) = (tiling, operands, direct) {
            for (k, p) in packed.iter_mut().enumerate() {
                if tiled::is_packed(strides[k], widths[k]) {
                    let bytes = pack::packed_bytes(edges.0, edges.1, widths[k]);
                    let lines = bytes.div_ceil(std::mem::size_of::<Line>());
                    *p = Some(Packed {
                        width: widths[k],
                        output: k < noutputs,
                        lines: scratch_lines..scratch_lines + lines,
                    });
                    scratch_lines += lines;
                }
            }
        }
        let packed_strides = (0..nops)
            .map(|k| match &packed[k] {
                Some(p) => (p.width as isize, (edges.0 * p.width) as isize),
                None => (strides[k], strides[nops + k]),
            })
            .unzip();
        Walk {
            shape: order.iter().map(|&d| size(d)).collect(),
            base,
            strides,
            nops,
            edges,
            packed,
            scratch_lines,
            packed_strides,
            direct,
            fold,
            permute: None,
            stream_out: false,
            memory: PhantomData,
        }
    }

    /// Whether the walk copies by itself (a permuting copy, a direct tiled walk) rather than
    /// handing blocks to a kernel: each range it runs then costs a setup and a store fence.
    pub(crate) fn copies_by_itself(&self) -> bool {
        self.permute.is_some() || self.direct.is_some()
    }

    /// Each operand's byte stride along dim 0 in the blocks the closure of [`Walk::run`] gets:
    /// the plan's, or the element size for an operand packed into scratch. This is what the
    /// loops pick their path from (`explain()` asks here too).
    pub(crate) fn kernel_strides0(&self) -> &[isize] {
        &self.packed_strides.0
    }

    /// torch's `serial_for_each` over `[begin, end)` of the walk order: a DimCounter hands out
    /// 2-D blocks, and a tiled walk cuts each into tiles (rows of tiles along dim 0 first).
    pub(crate) fn run(&self, begin: usize, end: usize, f: &impl Fn(&Block)) {
        if let Some((p, numel)) = &self.permute {
            // ranges of the plan map onto ranges of work items (monotonically: ranges that
            // partition the plan partition the items)
            let items = p.items() as u128;
            let at = |x: usize| (x as u128 * items / (*numel).max(1) as u128) as usize;
            // SAFETY: operand 0 (the output) and 1 (the input) of the plan `p` was made from
            // (`Walk::new`'s strategy is the plan's own), whose guarantees `from_parts` took;
            // ranges handed to different threads map to disjoint items, so no two threads
            // write the same element.
            unsafe { super::permute::run(p, self.base[0], self.base[1], at(begin), at(end)) };
            if p.stream {
                transpose::fence();
            }
            return;
        }
        // A folded walk's elements are runs of `fold` plan elements: a range of the plan maps
        // to the runs that start in it, so that ranges that partition the plan partition the
        // runs too.
        let (begin, end) = (begin.div_ceil(self.fold), end.div_ceil(self.fold));
        let n = self.nops;
        let (strides0, strides1) = (&self.strides[..n], &self.strides[n..2 * n]);
        let mut corner: PerOperand<*mut u8> = smallvec![std::ptr::null_mut(); n];
        let mut ptrs = corner.clone();
        let mut scratch = Kept::take(&SCRATCH, self.scratch_lines, Line::ZERO);
        let mut counter = DimCounter::new(&self.shape, begin, end);
        while !counter.is_done() {
            let (size0, size1) = counter.max_2d_step();
            for (k, p) in corner.iter_mut().enumerate() {
                let offset: isize = counter
                    .values
                    .iter()
                    .enumerate()
                    .map(|(d, &v)| v as isize * self.strides[d * n + k])
                    .sum();
                *p = self.base[k].0.wrapping_offset(offset);
            }
            let head = self.line_head(corner[0]);
            // the operands' pointers at element (i, j) of the current 2-D block
            let place = |ptrs: &mut PerOperand<*mut u8>, i: usize, j: usize| {
                for (k, p) in ptrs.iter_mut().enumerate() {
                    let offset = i as isize * strides0[k] + j as isize * strides1[k];
                    *p = corner[k].wrapping_offset(offset);
                }
            };
            let mut j = 0;
            while j < size1 {
                let tile1 = self.edges.1.min(size1 - j);
                if let Some((width, stream)) = self.direct {
                    // a column of tiles, cut along dim 0 by the transposing copy itself (which
                    // joins neighbouring tiles' output lines)
                    place(&mut ptrs, 0, j);
                    // SAFETY: elements `(0.., j..)` of the current 2-D block, which the
                    // DimCounter keeps inside the walk's shape: valid by the contract of
                    // `from_parts`.
                    let column = unsafe { Block::new(&ptrs, strides0, strides1, size0, tile1) };
                    transpose::copy_tiles(&column, width, stream, |i| {
                        self.tile_edge0(i, size0, head)
                    });
                    j += tile1;
                    continue;
                }
                let mut i = 0;
                while i < size0 {
                    let tile0 = self.tile_edge0(i, size0, head);
                    place(&mut ptrs, i, j);
                    // SAFETY: elements `(i.., j..)` of the current 2-D block, which the
                    // DimCounter keeps inside the walk's shape: valid by the contract of
                    // `from_parts`.
                    let tile = unsafe { Block::new(&ptrs, strides0, strides1, tile0, tile1) }
                        .streaming_output(self.stream_out);
                    if self.scratch_lines == 0 {
                        f(&tile);
                    } else {
                        self.run_packed(&tile, &mut scratch, f);
                    }
                    i += tile0;
                }
                j += tile1;
            }
            counter.increment((size0, size1));
        }
        if matches!(self.direct, Some((_, true))) {
            transpose::fence();
        }
    }

    /// For a streamed direct walk whose output steps by its element along dim 0 and by whole
    /// lines along dim 1: the elements of a block's output rows before their first line
    /// boundary (the block's corner being `out`); `None` for other walks. Its tiles then end on
    /// line boundaries ([`Walk::tile_edge0`]), so that every output run of a tile but the
    /// first one is whole lines, streamed directly rather than staged through scratch (and no
    /// line is written in two visits). Into numpy arrays (whose data starts 16 bytes past a
    /// line), on the 2-core Xeon, 1 thread, alternating processes: a 4096² float32 transpose
    /// 6-8 -> 8-15 GB/s, 2048 × 8192 5-10 -> 10-14, NHWC -> NCHW (16, 56, 56, 64) 11-12 ->
    /// 14 (into line-aligned arrays, unchanged: 10-13, 10-12, 20-24).
    fn line_head(&self, out: *mut u8) -> Option<usize> {
        match self.direct {
            Some((width, true))
                if LINE.is_multiple_of(width)
                    && self.strides[0] == width as isize
                    && self.strides[self.nops] % LINE as isize == 0 =>
            {
                Some((out as usize).wrapping_neg() % LINE / width)
            }
            _ => None,
        }
    }

    /// The edge along dim 0 of the tile at `i` of a block of `size0`: `edges.0`, or with a
    /// line head ([`Walk::line_head`]) and more than one tile along dim 0, as much of it as
    /// ends on a line boundary (the whole edge when it holds no boundary); never past the
    /// block. (A block of one tile along dim 0 is left whole: cutting it would only add a
    /// sliver of a tile, and where its columns are adjacent in the output the staged stores
    /// already write them as one run: NCHW → NHWC into a numpy array lost a fifth so.)
    fn tile_edge0(&self, i: usize, size0: usize, head: Option<usize>) -> usize {
        let edge = self.edges.0.min(size0 - i);
        let Some(head) = head.filter(|_| size0 > self.edges.0) else {
            return edge;
        };
        let per_line = LINE / self.direct.map_or(LINE, |(width, _)| width);
        let end = i.saturating_add(self.edges.0);
        match end.checked_sub(head) {
            Some(past) if head + past / per_line * per_line > i => {
                (head + past / per_line * per_line - i).min(size0 - i)
            }
            _ => edge,
        }
    }

    /// Runs `f` on one tile with the packed operands copied into `scratch`, dim 0 contiguous
    /// (outputs too, so that a kernel reading its output sees the right values), and the
    /// packed outputs copied back afterwards.
    fn run_packed(&self, tile: &Block, scratch: &mut [Line], f: &impl Fn(&Block)) {
        let ld = self.edges.0;
        for (k, p) in self.packed.iter().enumerate() {
            if let Some(p) = p {
                pack::pack(tile, k, p.width, &mut scratch[p.lines.clone()], ld);
            }
        }
        let base = scratch.as_mut_ptr();
        let ptrs: PerOperand<*mut u8> = (0..self.nops)
            .map(|k| match &self.packed[k] {
                Some(p) => base.wrapping_add(p.lines.start) as *mut u8,
                None => tile.ptrs[k],
            })
            .collect();
        // A tile whose operands all continue from one row to the next (the packed ones with
        // a full edge 0, the others contiguous across the tile's rows, or broadcast) is one
        // row for the kernel: one vector loop with no per-row turns (64-element rows of an
        // NHWC + NCHW add cost about a sixth of its time).
        let (s0, s1) = (&self.packed_strides.0, &self.packed_strides.1);
        let one_row = (0..self.nops).all(|k| s1[k] == tile.size0 as isize * s0[k]);
        let (size0, size1) = if one_row {
            (tile.size0 * tile.size1, 1)
        } else {
            (tile.size0, tile.size1)
        };
        // SAFETY: a packed operand's `(i, j)` is at byte `(j·ld + i)·width` of its own lines of
        // `scratch` (which `packed_bytes` sized for a whole tile, `ld` = edge 0 >= size0, and
        // which outlive the call), with strides `(width, ld·width)`; the others are the
        // tile's own, valid as `tile` is. As one row, element `i` of it is the tile's
        // `(i mod size0, i / size0)`: `i·s0 = (i mod size0)·s0 + (i / size0)·s1` where
        // `s1 = size0·s0`.
        let packed = unsafe { Block::new(&ptrs, s0, s1, size0, size1) };
        f(&packed);
        for (k, p) in self.packed.iter().enumerate() {
            if let Some(p) = p.as_ref().filter(|p| p.output) {
                pack::unpack(tile, k, p.width, &scratch[p.lines.clone()], ld);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::exec::chunks::Chunks;
    use crate::exec::raw::{copy_bytes, map2};
    use crate::exec::tiled::tests::geometry;
    use proptest::prelude::*;
    use std::sync::Mutex;

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(256))]

        /// Every element is visited exactly once, with every operand's pointer at its offset,
        /// for any tile dim and edges, split at a random point and among random chunks.
        #[test]
        fn tiled_walk_visits_each_element_once(
            (shape, ops) in geometry(),
            dim_pick in 0usize..8,
            edge0 in 1usize..5,
            edge1 in 1usize..5,
            untiled in any::<bool>(),
            split in 0.0f64..1.0,
            grain in 1usize..40,
            threads in 1usize..5,
        ) {
            let numel: usize = shape.iter().product();
            let tiling = Tiling { dim: 1 + dim_pick % (shape.len() - 1), operand: 1, edge0, edge1, direct: false, stream: false, input_rows: 0, fold: false };
            let base = 1usize << 20;
            let bases: Vec<*mut u8> = (0..ops.len())
                .map(|k| std::ptr::null_mut::<u8>().wrapping_add(base * (k + 1)))
                .collect();
            // SAFETY: the addresses are made up, but nothing reads or writes them: nothing is
            // packed (no `operands`), and `check` only compares addresses.
            let walk = unsafe {
                Walk::from_parts(
                    &shape,
                    bases,
                    |d, k| ops[k][d],
                    (!untiled).then_some(tiling),
                    None,
                )
            };
            let visits = Mutex::new(vec![0u32; numel]);
            let errors = Mutex::new(Vec::<String>::new());
            let check = |b: &Block| {
                for j in 0..b.size1() {
                    for i in 0..b.size0() {
                        let at = |k: usize| b.at(k, i, j) as usize as isize;
                        let linear = (at(0) - base as isize) as usize;
                        let mut rest = linear;
                        let mut want: Vec<isize> = (0..ops.len()).map(|k| (base * (k + 1)) as isize).collect();
                        for (d, &n) in shape.iter().enumerate() {
                            let idx = (rest % n) as isize;
                            rest /= n;
                            for (k, w) in want.iter_mut().enumerate() {
                                *w += idx * ops[k][d];
                            }
                        }
                        for (k, &w) in want.iter().enumerate() {
                            if at(k) != w {
                                errors.lock().unwrap().push(format!("element {linear}: operand {k} at {} not {w}", at(k)));
                            }
                        }
                        if linear < numel {
                            visits.lock().unwrap()[linear] += 1;
                        } else {
                            errors.lock().unwrap().push(format!("probe {linear} out of range"));
                        }
                    }
                }
            };
            // a random split into two ranges, each walked serially
            let cut = ((numel as f64) * split) as usize;
            walk.run(0, cut, &check);
            walk.run(cut, numel, &check);
            // and the thread split for_each would use
            let chunks = Chunks::new(numel, grain, threads);
            for t in 0..chunks.count {
                let (b, e) = chunks.range(t);
                walk.run(b, e, &check);
            }
            let errors = errors.into_inner().unwrap();
            prop_assert!(errors.is_empty(), "{:?}", &errors[..errors.len().min(5)]);
            let visits = visits.into_inner().unwrap();
            prop_assert!(visits.iter().all(|&v| v == 2), "visit counts {:?}", visits);
        }
    }

    /// One operand of a packed-walk test: a buffer of `T` laid out over `shape` in dim order
    /// `order` (fastest first), dims flagged 1 reversed and (inputs only) 0 broadcast.
    struct Operand<T> {
        buf: Vec<T>,
        /// Element strides per dim, and the element offset of index (0, 0, …).
        strides: Vec<isize>,
        origin: isize,
    }

    impl<T: Copy> Operand<T> {
        fn new(shape: &[usize], order: &[usize], flags: &[u8], fill: impl Fn(usize) -> T) -> Self {
            let mut strides = vec![0isize; shape.len()];
            let (mut acc, mut origin) = (1isize, 0isize);
            for &d in order {
                if flags[d] == 0 {
                    continue;
                }
                let reach = (shape[d] as isize - 1) * acc;
                strides[d] = if flags[d] == 1 { -acc } else { acc };
                if flags[d] == 1 {
                    origin += reach;
                }
                acc *= shape[d] as isize;
            }
            Operand {
                buf: (0..acc as usize).map(fill).collect(),
                strides,
                origin,
            }
        }
        fn at(&self, index: &[usize]) -> T {
            let off: isize = index
                .iter()
                .zip(&self.strides)
                .map(|(&i, &s)| i as isize * s)
                .sum();
            self.buf[(self.origin + off) as usize]
        }
        fn base(&mut self) -> *mut u8 {
            self.buf.as_mut_ptr().wrapping_offset(self.origin) as *mut u8
        }
    }

    /// A random case for the packed walks: shape, tile, and per operand (out, a, b) a dim
    /// order and flags (0 broadcast — inputs only —, 1 reversed, else forward).
    type PackCase = (
        Vec<usize>,
        (usize, usize, usize),
        Vec<(Vec<usize>, Vec<u8>)>,
    );

    fn pack_case() -> impl Strategy<Value = PackCase> {
        prop::collection::vec(1usize..18, 2..5)
            .prop_filter("small", |s| s.iter().product::<usize>() <= 6000)
            .prop_flat_map(|shape| {
                let n = shape.len();
                let layout = |lo: u8| {
                    (
                        Just((0..n).collect::<Vec<_>>()).prop_shuffle(),
                        prop::collection::vec(lo..5, n),
                    )
                };
                (
                    Just(shape),
                    (0..n - 1, 1usize..21, 1usize..21),
                    (layout(1), layout(0), layout(0)).prop_map(|(o, a, b)| vec![o, a, b]),
                )
            })
    }

    /// Runs a copy (out = a) and a binary op (out = a + b, wrapping) of `T` through a packed
    /// tiled walk and checks every element against a naive loop over the indices.
    fn check_packed<T: Copy + PartialEq + std::fmt::Debug>(
        (shape, (dim, edge0, edge1), layouts): &PackCase,
        make: fn(u64) -> T,
        add: fn(T, T) -> T,
        cut: f64,
    ) -> Result<(), TestCaseError> {
        let width = std::mem::size_of::<T>();
        let numel: usize = shape.iter().product();
        let tiling = Tiling {
            dim: 1 + dim,
            operand: 1,
            edge0: *edge0,
            edge1: *edge1,
            direct: false,
            stream: false,
            input_rows: 0,
            fold: false,
        };
        let mut ops: Vec<Operand<T>> = layouts
            .iter()
            .enumerate()
            .map(|(k, (order, flags))| {
                let seed = 0x9E37_79B9_7F4A_7C15u64.wrapping_mul(k as u64 + 1);
                Operand::new(shape, order, flags, |i| {
                    make((i as u64 ^ seed).wrapping_mul(0xD134_2543_DE82_EF95))
                })
            })
            .collect();
        let byte_strides: Vec<Vec<isize>> = ops
            .iter()
            .map(|o| o.strides.iter().map(|&s| s * width as isize).collect())
            .collect();
        let cut = (numel as f64 * cut) as usize;
        let walk_over = |ops: &mut [Operand<T>], which: &[usize]| {
            // SAFETY: each operand's buffer holds every element its strides reach from its
            // base (`Operand::new`), elements of `width` bytes; the buffers outlive the walk.
            unsafe {
                Walk::from_parts(
                    shape,
                    which.iter().map(|&k| ops[k].base()).collect::<Vec<_>>(),
                    |d, k| byte_strides[which[k]][d],
                    Some(tiling),
                    Some((&vec![width; which.len()], 1)),
                )
            }
        };
        // every multi-index of the shape, fastest first
        let indices: Vec<Vec<usize>> = (0..numel)
            .map(|mut l| {
                shape
                    .iter()
                    .map(|&n| {
                        let i = l % n;
                        l /= n;
                        i
                    })
                    .collect()
            })
            .collect();

        let walk = walk_over(&mut ops, &[0, 1]);
        let kernel = |b: &Block| copy_bytes(b, width);
        walk.run(0, cut, &kernel);
        walk.run(cut, numel, &kernel);
        for idx in &indices {
            prop_assert_eq!(ops[0].at(idx), ops[1].at(idx), "copy at {:?}", idx);
        }

        let walk = walk_over(&mut ops, &[0, 1, 2]);
        let kernel = |b: &Block| map2::<T, T, T>(b, add);
        walk.run(0, cut, &kernel);
        walk.run(cut, numel, &kernel);
        for idx in &indices {
            let want = add(ops[1].at(idx), ops[2].at(idx));
            prop_assert_eq!(ops[0].at(idx), want, "add at {:?}", idx);
        }
        Ok(())
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(160))]

        /// Copies and binary ops through packed tiles (any operand transposed, reversed or
        /// broadcast, the output too) give the naive loop's values, for 1- to 16-byte elements.
        #[test]
        fn packed_tiles_compute_the_right_values(case in pack_case(), width in 0usize..5, cut in 0.0f64..1.0) {
            match width {
                0 => check_packed(&case, |x| (x >> 56) as u8, u8::wrapping_add, cut)?,
                1 => check_packed(&case, |x| (x >> 48) as u16, u16::wrapping_add, cut)?,
                2 => check_packed(&case, |x| (x >> 32) as u32, u32::wrapping_add, cut)?,
                3 => check_packed(&case, |x| x, u64::wrapping_add, cut)?,
                _ => check_packed(&case, |x| (x as u128) << 64 | x.rotate_left(7) as u128, u128::wrapping_add, cut)?,
            }
        }
    }

    /// A streamed direct walk into an output that starts `head` elements before a line
    /// boundary cuts each block's dim 0 into tiles that partition it, none longer than the
    /// edge, and (with more than one tile and room for a line past the head) starts every
    /// tile but the first on a line boundary; with one tile along dim 0 it stays whole.
    #[test]
    fn direct_tiles_start_on_the_output_lines() {
        for offset in 0..16usize {
            for (size0, edge0) in [(100, 32), (4096, 176), (64, 64), (40, 64), (37, 20), (5, 3)] {
                let tiling = Tiling {
                    dim: 1,
                    operand: 1,
                    edge0,
                    edge1: 8,
                    direct: true,
                    stream: true,
                    input_rows: edge0,
                    fold: false,
                };
                let out = std::ptr::null_mut::<u8>().wrapping_add((1 << 20) + 4 * offset);
                let input = std::ptr::null_mut::<u8>().wrapping_add(1 << 24);
                let strides = [[4, 64 * 64], [4 * 8, 4]];
                // SAFETY: made-up addresses that nothing dereferences: only the tile edges are
                // asked for.
                let walk = unsafe {
                    Walk::from_parts(
                        &[size0, 8],
                        [out, input],
                        |d, k| strides[k][d],
                        Some(tiling),
                        Some((&[4, 4], 1)),
                    )
                };
                let head = walk.line_head(out);
                assert_eq!(head, Some((16 - offset) % 16));
                let mut i = 0;
                while i < size0 {
                    let tile = walk.tile_edge0(i, size0, head);
                    assert!(
                        tile >= 1 && tile <= edge0 && i + tile <= size0,
                        "{offset} {size0} {edge0}: {i} + {tile}"
                    );
                    if i > 0 && size0 > edge0 && edge0 >= 16 + 16 {
                        assert_eq!(
                            (out as usize + 4 * i) % LINE,
                            0,
                            "{offset} {size0} {edge0}: tile at {i}"
                        );
                    }
                    if size0 <= edge0 {
                        assert_eq!(tile, size0);
                    }
                    i += tile;
                }
                assert_eq!(i, size0);
            }
        }
    }

    /// The row a direct plan's operands run as ([`run_row`]) is the block [`run_flat`] hands
    /// over for the plan they make: the same pointers, strides and sizes — for two arrays,
    /// an array and a number on either side, one array, with a new output or in place.
    #[test]
    fn a_direct_row_is_the_block_of_the_plan_it_stands_for() {
        use crate::plan::direct_operands;
        use crate::{Array, DType, MemoryFormat, Scalar};
        type Seen = (Vec<usize>, Vec<isize>, Vec<isize>, usize, usize);
        let seen = |blk: &Block| -> Seen {
            let ptrs = blk.ptrs.iter().map(|&p| p as usize).collect();
            let strides = (blk.strides0.to_vec(), blk.strides1.to_vec());
            (ptrs, strides.0, strides.1, blk.size0, blk.size1)
        };
        let mut rows = 0;
        for shape in [&[1][..], &[7], &[3, 4], &[2, 1, 3]] {
            for dtype in [DType::F32, DType::F64, DType::I64, DType::U8] {
                let make = || Array::empty(shape, dtype, MemoryFormat::Contiguous).unwrap();
                let (a, b) = (make(), make());
                let number = Array::full(&[], Scalar::Int(2), dtype, MemoryFormat::Contiguous);
                let number = number.unwrap();
                let calls: [&[&Array]; 4] = [&[&a, &b], &[&a, &number], &[&number, &a], &[&a]];
                for inputs in calls {
                    for out in [None, Some(&a)] {
                        let direct = direct_operands(inputs, None, false, out).unwrap().unwrap();
                        assert!(direct.one_row());
                        let row = Mutex::new(None);
                        run_row(&direct, &|blk| *row.lock().unwrap() = Some(seen(blk)));
                        let plan = direct.into_plan();
                        let flat = Mutex::new(None);
                        run_flat(&plan, &|blk| *flat.lock().unwrap() = Some(seen(blk)));
                        let row = row.into_inner().unwrap();
                        assert!(row.is_some());
                        assert_eq!(row, flat.into_inner().unwrap(), "{shape:?} {dtype}");
                        rows += 1;
                    }
                }
            }
        }
        assert_eq!(rows, 4 * 4 * 4 * 2);
    }
}
