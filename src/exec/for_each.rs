//! `for_each`: run a loop over a plan, serially or split into fixed chunks among threads.

use super::chunks::chunk_ranges;
use super::dim_counter::DimCounter;
use super::pool;
use super::raw::{Block, SendPtr};
use crate::error::Result;
use crate::plan::TensorIterator;
use rayon::prelude::*;

/// Everything a walk needs, taken from the plan once: the shape (at least 2-D, padded with 1),
/// each operand's base pointer and its byte strides per dim.
struct Walk {
    shape: Vec<usize>,
    base: Vec<SendPtr>,
    /// `strides[d][k]`: operand k's byte stride along dim d (torch's layout of the array).
    strides: Vec<Vec<isize>>,
}

impl Walk {
    fn new(plan: &TensorIterator) -> Walk {
        let ndim = plan.ndim().max(2);
        let mut shape = plan.shape().to_vec();
        shape.resize(ndim, 1);
        let ops = plan.operands();
        let strides = (0..ndim)
            .map(|d| {
                ops.iter()
                    .map(|op| op.stride_bytes.get(d).copied().unwrap_or(0))
                    .collect()
            })
            .collect();
        let base = ops
            .iter()
            .map(|op| {
                SendPtr(
                    op.array
                        .as_ref()
                        .map_or(std::ptr::null_mut(), |a| a.data_ptr() as *mut u8),
                )
            })
            .collect();
        Walk {
            shape,
            base,
            strides,
        }
    }

    /// torch's `serial_for_each` over `[begin, end)`: a DimCounter hands out 2-D blocks.
    fn serial(&self, begin: usize, end: usize, f: &(impl Fn(&Block) + Sync)) {
        let n = self.base.len();
        let mut ptrs = vec![std::ptr::null_mut(); n];
        let mut counter = DimCounter::new(&self.shape, begin, end);
        while !counter.is_done() {
            let (size0, size1) = counter.max_2d_step();
            for (k, p) in ptrs.iter_mut().enumerate() {
                let offset: isize = counter
                    .values
                    .iter()
                    .enumerate()
                    .map(|(d, &v)| v as isize * self.strides[d][k])
                    .sum();
                *p = self.base[k].0.wrapping_offset(offset);
            }
            f(&Block {
                ptrs: &ptrs,
                strides0: &self.strides[0],
                strides1: &self.strides[1],
                size0,
                size1,
            });
            counter.increment((size0, size1));
        }
    }
}

/// Runs `f` over every 2-D block of the plan. Ranges of more than `grain` elements are cut
/// into `min(threads, ceil(numel / grain))` equal chunks run on ferroiter's pool, so that the
/// chunking — and any result that depends on it — never depends on scheduling.
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
    let walk = Walk::new(plan);
    let threads = pool::get_num_threads();
    let chunks = if plan.parallel_safe() && rayon::current_thread_index().is_none() {
        chunk_ranges(numel, grain, threads)
    } else {
        vec![(0, numel)]
    };
    if chunks.len() <= 1 {
        walk.serial(0, numel, &f);
        return Ok(());
    }
    pool::pool()?.install(|| chunks.par_iter().for_each(|&(b, e)| walk.serial(b, e, &f)));
    Ok(())
}
