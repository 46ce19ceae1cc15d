//! `for_each`: run a loop over a plan, serially or split into fixed chunks among threads, in
//! torch's 2-D blocks or in tiles of them ([`super::tiled`]).

use super::chunks::Chunks;
use super::dim_counter::{DimCounter, INLINE_DIMS};
use super::pool;
use super::raw::{self, Block, Line, SendPtr};
use super::tiled::{self, Tiling};
use crate::error::Result;
use crate::plan::TensorIterator;
use smallvec::{smallvec, SmallVec};
use std::sync::atomic::{AtomicBool, Ordering};

/// Operands kept inline (no heap allocation) by a walk: a ternary op's out + 3 inputs.
pub const INLINE_OPERANDS: usize = 4;

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

/// Everything a walk needs, taken from the plan once and kept inline for small plans (the
/// serial path allocates nothing): the shape in walk order (at least 2-D, padded with 1), each
/// operand's base pointer and byte strides, the tile edges when the walk is tiled, and the
/// operands packed in each tile.
pub(crate) struct Walk {
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
}

impl Walk {
    fn new(plan: &TensorIterator, tiling: Option<Tiling>) -> Walk {
        let ops = plan.operands();
        let bases = ops.iter().map(|op| {
            op.array
                .as_ref()
                .map_or(std::ptr::null_mut(), |a| a.data_ptr() as *mut u8)
        });
        let widths: PerOperand<usize> = ops.iter().map(|op| op.itemsize()).collect();
        Walk::from_parts(
            plan.shape(),
            bases,
            |d, k| ops[k].stride_bytes.get(d).copied().unwrap_or(0),
            tiling,
            Some((&widths, plan.noutputs())),
        )
    }

    /// A walk over `shape` (fastest first) for operands at `bases` with byte strides
    /// `stride(d, k)`. A tiling reorders the dims to `[0, tiling.dim, the others]`, so that the
    /// blocks a DimCounter hands out span the tile's two dims; the linear ranges given to
    /// [`Walk::run`] (and the thread split) are then ranges of that order.
    ///
    /// `operands` gives each operand's element width and the number of outputs: a tiled walk
    /// then packs the operands that are not contiguous along dim 0 ([`tiled::is_packed`]).
    /// Without it nothing is packed (a walk over pointers that are never dereferenced).
    pub(crate) fn from_parts(
        shape: &[usize],
        bases: impl IntoIterator<Item = *mut u8>,
        stride: impl Fn(usize, usize) -> isize,
        tiling: Option<Tiling>,
        operands: Option<(&[usize], usize)>,
    ) -> Walk {
        let base: PerOperand<SendPtr> = bases.into_iter().map(SendPtr).collect();
        let nops = base.len();
        let ndim = shape.len().max(2);
        let mut order: Dims<usize> = (0..ndim).collect();
        if let Some(t) = tiling {
            order.remove(t.dim);
            order.insert(1, t.dim);
        }
        let size = |d: usize| shape.get(d).copied().unwrap_or(1);
        let stride_or_0 = |d: usize, k: usize| if d < shape.len() { stride(d, k) } else { 0 };
        let mut strides = SmallVec::with_capacity(ndim * nops);
        for &d in &order {
            strides.extend((0..nops).map(|k| stride_or_0(d, k)));
        }
        let edges = tiling.map_or((usize::MAX, usize::MAX), |t| (t.edge0, t.edge1));
        let mut packed: PerOperand<Option<Packed>> = smallvec![None; nops];
        let mut scratch_lines = 0;
        if let (Some(_), Some((widths, noutputs))) = (tiling, operands) {
            for (k, p) in packed.iter_mut().enumerate() {
                if tiled::is_packed(strides[k], widths[k]) {
                    let bytes = raw::packed_bytes(edges.0, edges.1, widths[k]);
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
        }
    }

    /// torch's `serial_for_each` over `[begin, end)` of the walk order: a DimCounter hands out
    /// 2-D blocks, and a tiled walk cuts each into tiles (rows of tiles along dim 0 first).
    pub(crate) fn run(&self, begin: usize, end: usize, f: &impl Fn(&Block)) {
        let n = self.nops;
        let (strides0, strides1) = (&self.strides[..n], &self.strides[n..2 * n]);
        let mut corner: PerOperand<*mut u8> = smallvec![std::ptr::null_mut(); n];
        let mut ptrs = corner.clone();
        let mut next = corner.clone();
        let mut scratch = vec![Line::ZERO; self.scratch_lines];
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
            let mut j = 0;
            while j < size1 {
                let tile1 = self.edges.1.min(size1 - j);
                let mut i = 0;
                while i < size0 {
                    let tile0 = self.edges.0.min(size0 - i);
                    for (k, p) in ptrs.iter_mut().enumerate() {
                        let offset = i as isize * strides0[k] + j as isize * strides1[k];
                        *p = corner[k].wrapping_offset(offset);
                    }
                    // The next tile of this block: along dim 0, else the next row of tiles.
                    let (next_i, next_j) = if i + tile0 < size0 {
                        (i + tile0, j)
                    } else {
                        (0, j + tile1)
                    };
                    if self.scratch_lines > 0 && next_j < size1 {
                        for (k, p) in next.iter_mut().enumerate() {
                            let offset =
                                next_i as isize * strides0[k] + next_j as isize * strides1[k];
                            *p = corner[k].wrapping_offset(offset);
                        }
                        raw::prefetch(&Block {
                            ptrs: &next,
                            strides0,
                            strides1,
                            size0: self.edges.0.min(size0 - next_i),
                            size1: self.edges.1.min(size1 - next_j),
                        });
                    }
                    let tile = Block {
                        ptrs: &ptrs,
                        strides0,
                        strides1,
                        size0: tile0,
                        size1: tile1,
                    };
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
    }

    /// Runs `f` on one tile with the packed operands copied into `scratch`, dim 0 contiguous
    /// (outputs too, so that a kernel reading its output sees the right values), and the
    /// packed outputs copied back afterwards.
    fn run_packed(&self, tile: &Block, scratch: &mut [Line], f: &impl Fn(&Block)) {
        let ld = self.edges.0;
        for (k, p) in self.packed.iter().enumerate() {
            if let Some(p) = p {
                raw::pack(tile, k, p.width, &mut scratch[p.lines.clone()], ld);
            }
        }
        let base = scratch.as_mut_ptr();
        let ptrs: PerOperand<*mut u8> = (0..self.nops)
            .map(|k| match &self.packed[k] {
                Some(p) => base.wrapping_add(p.lines.start) as *mut u8,
                None => tile.ptrs[k],
            })
            .collect();
        f(&Block {
            ptrs: &ptrs,
            strides0: &self.packed_strides.0,
            strides1: &self.packed_strides.1,
            size0: tile.size0,
            size1: tile.size1,
        });
        for (k, p) in self.packed.iter().enumerate() {
            if let Some(p) = p.as_ref().filter(|p| p.output) {
                raw::unpack(tile, k, p.width, &scratch[p.lines.clone()], ld);
            }
        }
    }
}

/// Runs `f` over the plan in 2-D blocks: torch's blocks, or tiles of them when
/// [`tiled::decide`] finds operands that disagree about the fastest dim (then the walk order is
/// `[0, tile dim, the others]`). Ranges of more than `grain` elements are cut into
/// `min(threads, ceil(numel / grain))` equal chunks of the walk order run on ferroiter's pool,
/// so that the chunking — and any result that depends on it — never depends on scheduling.
/// Plans whose outputs may reach an element twice run serially.
///
/// `f` receives raw pointers: reading or writing through them is `unsafe`, and is sound for
/// indices `i < size0`, `j < size1` at `ptrs[k] + i·strides0[k] + j·strides1[k]`.
///
/// ```
/// use ferroiter::{Array, DType, MemoryFormat, TensorIteratorConfig};
/// use ferroiter::exec::{for_each, Block};
///
/// // out = 2·a over a transposed input, with a user kernel.
/// let a = Array::full(&[3, 4], ferroiter::Scalar::Float(1.5), DType::F32, MemoryFormat::Contiguous).unwrap();
/// let mut config = TensorIteratorConfig::new();
/// config.add_output(None).add_input(a.transpose(0, 1).unwrap());
/// let plan = config.build().unwrap();
/// for_each(&plan, ferroiter::exec::GRAIN_SIZE, |b: &Block| {
///     for j in 0..b.size1 {
///         for i in 0..b.size0 {
///             let at = |k: usize| b.ptrs[k].wrapping_offset(i as isize * b.strides0[k] + j as isize * b.strides1[k]);
///             // SAFETY: i < size0 and j < size1, as for_each promises.
///             unsafe { *(at(0) as *mut f32) = 2.0 * *(at(1) as *const f32) };
///         }
///     }
/// })
/// .unwrap();
/// let out = plan.output(0).unwrap();
/// assert_eq!(out.shape(), &[4, 3]);
/// assert_eq!(out.to_scalars().unwrap()[3 * 3 + 2], ferroiter::Scalar::Float(3.0));
/// ```
pub fn for_each(plan: &TensorIterator, grain: usize, f: impl Fn(&Block) + Sync) -> Result<()> {
    let numel = plan.numel();
    if numel == 0 {
        return Ok(());
    }
    let walk = Walk::new(plan, tiled::decide(plan).tiling());
    let chunks = Chunks::new(numel, grain, pool::get_num_threads());
    // `parallel_safe` is asked last: it costs more, and small plans never get there.
    if chunks.count <= 1 || rayon::current_thread_index().is_some() || !plan.parallel_safe() {
        walk.run(0, numel, &f);
        return Ok(());
    }
    // Each chunk runs once, on whichever thread claims it first: the workers are asked to
    // take chunks 1.., while the calling thread runs chunk 0 and then every chunk no worker
    // has started yet. A loop is never slower than serial when the workers are slow to wake
    // (a sleeping pool costs tens of microseconds), and the fixed chunk boundaries keep the
    // results independent of who ran what.
    let claimed: SmallVec<[AtomicBool; 8]> =
        (0..chunks.count).map(|_| AtomicBool::new(false)).collect();
    let run_chunk = |t: usize| {
        if !claimed[t].swap(true, Ordering::AcqRel) {
            let (begin, end) = chunks.range(t);
            walk.run(begin, end, &f);
        }
    };
    pool::pool()?.in_place_scope(|scope| {
        for t in 1..chunks.count {
            let run_chunk = &run_chunk;
            scope.spawn(move |_| run_chunk(t));
        }
        (0..chunks.count).for_each(run_chunk);
    });
    Ok(())
}
