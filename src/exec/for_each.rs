//! `for_each`: run a loop over a plan, serially or split into fixed chunks among threads, in
//! torch's 2-D blocks or in tiles of them ([`super::tiled`]).

use super::chunks::Chunks;
use super::dim_counter::{DimCounter, INLINE_DIMS};
use super::pool;
use super::raw::{Block, SendPtr};
use super::tiled::{self, Tiling};
use crate::error::Result;
use crate::plan::TensorIterator;
use rayon::prelude::*;
use smallvec::{smallvec, SmallVec};

/// Operands kept inline (no heap allocation) by a walk: a ternary op's out + 3 inputs.
pub const INLINE_OPERANDS: usize = 4;

type Dims<T> = SmallVec<[T; INLINE_DIMS]>;
type PerOperand<T> = SmallVec<[T; INLINE_OPERANDS]>;

/// Everything a walk needs, taken from the plan once and kept inline for small plans (the
/// serial path allocates nothing): the shape in walk order (at least 2-D, padded with 1), each
/// operand's base pointer and byte strides, and the tile edges when the walk is tiled.
pub(crate) struct Walk {
    shape: Dims<usize>,
    base: PerOperand<SendPtr>,
    /// `strides[d * nops + k]`: operand k's byte stride along walk dim d, so that the strides
    /// of one dim across operands form the slice a [`Block`] wants.
    strides: SmallVec<[isize; INLINE_DIMS * INLINE_OPERANDS]>,
    nops: usize,
    /// Tile edges along walk dims 0 and 1 (`usize::MAX`: untiled, blocks are whole).
    edges: (usize, usize),
}

impl Walk {
    fn new(plan: &TensorIterator, tiling: Option<Tiling>) -> Walk {
        let ops = plan.operands();
        let bases = ops.iter().map(|op| {
            op.array
                .as_ref()
                .map_or(std::ptr::null_mut(), |a| a.data_ptr() as *mut u8)
        });
        Walk::from_parts(
            plan.shape(),
            bases,
            |d, k| ops[k].stride_bytes.get(d).copied().unwrap_or(0),
            tiling,
        )
    }

    /// A walk over `shape` (fastest first) for operands at `bases` with byte strides
    /// `stride(d, k)`. A tiling reorders the dims to `[0, tiling.dim, the others]`, so that the
    /// blocks a DimCounter hands out span the tile's two dims; the linear ranges given to
    /// [`Walk::run`] (and the thread split) are then ranges of that order.
    pub(crate) fn from_parts(
        shape: &[usize],
        bases: impl IntoIterator<Item = *mut u8>,
        stride: impl Fn(usize, usize) -> isize,
        tiling: Option<Tiling>,
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
        Walk {
            shape: order.iter().map(|&d| size(d)).collect(),
            base,
            strides,
            nops,
            edges: tiling.map_or((usize::MAX, usize::MAX), |t| (t.edge0, t.edge1)),
        }
    }

    /// torch's `serial_for_each` over `[begin, end)` of the walk order: a DimCounter hands out
    /// 2-D blocks, and a tiled walk cuts each into tiles (rows of tiles along dim 0 first).
    pub(crate) fn run(&self, begin: usize, end: usize, f: &impl Fn(&Block)) {
        let n = self.nops;
        let (strides0, strides1) = (&self.strides[..n], &self.strides[n..2 * n]);
        let mut corner: PerOperand<*mut u8> = smallvec![std::ptr::null_mut(); n];
        let mut ptrs = corner.clone();
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
                    f(&Block {
                        ptrs: &ptrs,
                        strides0,
                        strides1,
                        size0: tile0,
                        size1: tile1,
                    });
                    i += tile0;
                }
                j += tile1;
            }
            counter.increment((size0, size1));
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
    pool::pool()?.install(|| {
        (0..chunks.count).into_par_iter().for_each(|t| {
            let (begin, end) = chunks.range(t);
            walk.run(begin, end, &f)
        })
    });
    Ok(())
}
