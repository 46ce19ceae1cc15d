//! Deterministic reductions over a reduction plan (output 0 at stride 0 along the reduced
//! dims, input 1 in its own layout). Raw memory: see the invariants in [`super`].
//!
//! **One summation tree, fixed by the input's size.** The `N` elements reduced into one output
//! are taken in the plan's order (the reduced dims, fastest first) and combined as:
//!
//! - chunks of [`CHUNK`] elements, each cut into blocks of [`BLOCK`];
//! - in a block, element `n` goes to lane `n mod 16` ([`LANES`]), each lane accumulating in
//!   order; the 16 lanes are combined by a fixed pairwise tree;
//! - the blocks of a chunk, and then the chunks, are combined by a binary counter (a pairwise
//!   tree over aligned powers of two), the last partial one folded in on top.
//!
//! (One exception to the tree: a float16/bfloat16 product, rounded to the dtype at each step
//! as torch's is, takes torch's own order within each chunk, see [`torch_order_range`]; the
//! chunks still meet in the counter.)
//!
//! Nothing there depends on the thread count, the grain size or the CPU: threads only take
//! whole units (an output × a chunk, or a tile of outputs × an aligned power-of-two group of
//! a chunk's blocks, one of the counter's own subtrees), and the AVX2 copies of
//! the loops do the same per-lane operations as the baseline ones. Every path below computes
//! this same tree: a reduction along the fastest dim feeds the lanes from contiguous rows; a
//! reduction along an outer dim streams input rows in memory order into 16 rows of lanes, one
//! column per output, vectorized across the outputs. Plain float32/float64 sums do the same
//! additions in explicit AVX2 registers ([`super::add_lanes`]): the same block of four units
//! side by side (chunks of one run, or rows a whole number of cache lines apart: four streams
//! of memory), else consecutive whole blocks several at a time when the input fits the
//! last-level cache, and the outer path's 4-row groups; rows of at most a block go 16 blocks
//! a call, each block's lanes in registers and the lane tree across the blocks
//! ([`super::add_rows`]); on an
//! AVX-512 CPU, the outer path's whole float32 blocks on narrow tiles (rows up to 1 KB apart,
//! such as a channels_last image's channels) of an input the cache holds keep the 16 lanes in
//! registers.

use super::add_lanes::{self, Spacing, F32_BLOCKS, F64_BLOCKS};
#[cfg(target_arch = "x86_64")]
use super::add_rows;
use super::add_rows::ROWS;
#[cfg(target_arch = "x86_64")]
use super::extremum_lanes;
use super::isa::{in_copy, Isa};
use super::{get, put, wide, SendPtr};
use crate::error::Result;
use crate::exec::tasks::{piece_count, piece_range, run_pieces, task_count, task_count_on};
use crate::plan::TensorIterator;
use smallvec::SmallVec;
use std::any::Any;
use std::mem::size_of;

/// Lanes of the innermost accumulation, on every CPU path.
pub(crate) const LANES: usize = 16;
/// Elements per block: each lane accumulates `BLOCK / LANES` (64) of them in a row. Large
/// enough that closing a block (the lane tree, a counter push, and on the outer-dim path a
/// pass over the tile's lane rows) costs little beside streaming its elements; small enough
/// that a lane's running sum stays as accurate as a cascade's.
pub(crate) const BLOCK: usize = 1024;
/// Elements per chunk, the unit of work a thread takes along the reduction.
pub(crate) const CHUNK: usize = 32768;
/// Accumulator bytes of one tile of the outer-dim path (its 16 lane rows): the widest tile
/// that keeps them in L2 beside the input streaming through. The tile is as wide as that
/// allows (4096 float32 columns) so that each input row is read whole, in memory order, as
/// one stream: narrower tiles read each row in pieces, a new stream every few KB, which the
/// prefetchers follow poorly. Each column's tree does not depend on the tile's width, so the
/// width may follow the thread count.
const TILE_BYTES: usize = 256 << 10;
/// The narrowest tile worth a task of its own when tiles are cut to occupy the threads.
const MIN_TILE: usize = 256;
/// From this tile width on, rows go 64 at a time, 4 per lane row in one pass: each lane row's
/// accumulators are loaded and stored once per 4 input rows instead of once per row (measured
/// faster both for wide tiles, whose lane rows live in L2, and for the 64 channels of a
/// channels_last image); narrower tiles go 16 rows at a time.
const QUAD_WIDTH: usize = 32;
/// Pieces of work per task: the units are cut into this many ranges per thread, claimed in
/// turn, so that a thread slowed by another process (or woken late) takes fewer of them.
const PIECES_PER_TASK: usize = 4;
/// Depth of a chunk's block counter (`CHUNK / BLOCK` = 2^5 blocks).
const BLOCK_DEPTH: usize = 6;

/// What a reduction computes: an accumulator per lane, the element lifted into it (with its
/// position along the reduced dims, for `argmax`) and an associative combination.
pub(crate) trait Reducer: Sync {
    type In: Copy + 'static;
    type Acc: Copy + Send + Sync + 'static;
    fn identity(&self) -> Self::Acc;
    fn lift(&self, x: Self::In, index: usize) -> Self::Acc;
    fn combine(&self, a: Self::Acc, b: Self::Acc) -> Self::Acc;
    /// For a reduction whose result does not depend on the order of combination (argmax and
    /// argmin: a total order on (value, index) pairs), the reduction of the contiguous `xs`
    /// (positions from `n`) by a faster loop of its own; `None` (the default) feeds the lanes.
    #[inline(always)]
    fn contiguous(&self, _xs: &[Self::In], _n: usize) -> Option<Self::Acc> {
        None
    }
    /// Whether this is a plain float sum: `lift` converts to `Acc` (nothing to do when `In` is
    /// `Acc`) and `combine` is IEEE addition. With `In` and `Acc` both `f32` or both `f64`,
    /// whole blocks then take the explicit-vector loop of [`super::add_lanes`].
    #[inline(always)]
    fn is_float_sum(&self) -> bool {
        false
    }
    /// Whether `combine` is associative on the exact bits (amax/amin's select: the first NaN,
    /// else the first of the largest; not a float sum). A lane's run may then be combined as
    /// a tree in its order, which gives the same bits with a shorter dependency chain.
    #[inline(always)]
    fn is_exactly_associative(&self) -> bool {
        false
    }
    /// Whether [`Reducer::select_without_nan`] applies (amax/amin).
    #[inline(always)]
    fn has_select_without_nan(&self) -> bool {
        false
    }
    /// amax/amin's select without its NaN test: it must give `combine`'s bits whenever
    /// neither operand is NaN ([`Reducer::is_nan`]); one vector max (min) where `combine`
    /// takes two compares and a blend. The contiguous lane loop combines by it and goes back
    /// to `combine` only for a run that holds a NaN.
    #[inline(always)]
    fn select_without_nan(&self, a: Self::Acc, b: Self::Acc) -> Self::Acc {
        self.combine(a, b)
    }
    /// amax (`Some(true)`) or amin (`Some(false)`), whose select without NaN is then one
    /// vector max (min) with the operands swapped: where `In` and `Acc` are both `f32` or
    /// both `f64`, whole blocks side by side may take [`extremum_lanes`]' explicit loops.
    #[inline(always)]
    fn float_extremum(&self) -> Option<bool> {
        None
    }
    /// Whether an accumulator is NaN (for [`Reducer::select_without_nan`]).
    #[inline(always)]
    fn is_nan(&self, _a: Self::Acc) -> bool {
        false
    }
    /// Whether each chunk of an output's elements is combined in the order of torch's
    /// vectorized reduce loop ([`torch_order_range`]) instead of by the lanes: a
    /// float16/bfloat16 product, each product rounded to the dtype as torch's, where the order
    /// decides what overflows. The chunks are still combined by the counter, so the bits stay
    /// fixed by the input's size.
    #[inline(always)]
    fn in_torch_order(&self) -> bool {
        false
    }
}

/// The 16 lanes combined by a fixed pairwise tree (lane i with lane i + 8, then + 4, …).
#[inline(always)]
fn lane_tree<R: Reducer>(r: &R, lanes: &[R::Acc; LANES]) -> R::Acc {
    let mut v = *lanes;
    let mut w = LANES / 2;
    while w >= 1 {
        for i in 0..w {
            v[i] = r.combine(v[i], v[i + w]);
        }
        w /= 2;
    }
    v[0]
}

/// A binary counter of partial results: the k-th push merges the complete subtrees of equal
/// size below it, so that the pushed items are combined by a pairwise tree fixed by their
/// number alone.
struct Counter<A: Copy, const D: usize> {
    stack: [A; D],
    depth: usize,
    count: usize,
}

impl<A: Copy, const D: usize> Counter<A, D> {
    fn new(identity: A) -> Self {
        Counter {
            stack: [identity; D],
            depth: 0,
            count: 0,
        }
    }

    #[inline]
    fn push<R: Reducer<Acc = A>>(&mut self, r: &R, mut v: A) {
        let mut c = self.count;
        while c & 1 == 1 {
            self.depth -= 1;
            v = r.combine(self.stack[self.depth], v);
            c >>= 1;
        }
        self.stack[self.depth] = v;
        self.depth += 1;
        self.count += 1;
    }

    /// Everything pushed, and `last` on top, folded from the top down.
    fn fold_with<R: Reducer<Acc = A>>(&self, r: &R, last: A) -> A {
        let mut acc = last;
        for i in (0..self.depth).rev() {
            acc = r.combine(self.stack[i], acc);
        }
        acc
    }

    /// Everything pushed, folded from the top down (the identity when nothing was).
    fn fold<R: Reducer<Acc = A>>(&self, r: &R) -> A {
        if self.depth == 0 {
            return r.identity();
        }
        let mut acc = self.stack[self.depth - 1];
        for i in (0..self.depth - 1).rev() {
            acc = r.combine(self.stack[i], acc);
        }
        acc
    }
}

/// A kept dim: size, input and output byte strides.
type KeptDim = (usize, isize, isize);
type KeptDims = SmallVec<[KeptDim; 6]>;

/// The reduction geometry read off the plan: the kept dims (size, input and output byte
/// strides) and the reduced dims (size, input byte stride), each fastest first, size-1 dims
/// dropped.
#[derive(Debug, Clone)]
struct Geometry {
    kept: SmallVec<[(usize, isize, isize); 6]>,
    reduced: SmallVec<[(usize, isize); 6]>,
}

impl Geometry {
    fn of(plan: &TensorIterator) -> Geometry {
        let (mut kept, mut reduced) = (SmallVec::new(), SmallVec::new());
        let out = &plan.operands()[0].stride_bytes;
        let inp = &plan.operands()[1].stride_bytes;
        for (d, &size) in plan.shape().iter().enumerate() {
            if size == 1 {
                continue;
            }
            if out[d] == 0 {
                reduced.push((size, inp[d]));
            } else {
                kept.push((size, inp[d], out[d]));
            }
        }
        if reduced.is_empty() {
            reduced.push((1, 0));
        }
        Geometry { kept, reduced }
    }
    fn outputs(&self) -> usize {
        self.kept.iter().map(|k| k.0).product()
    }
    fn reduced_numel(&self) -> usize {
        self.reduced.iter().map(|r| r.0).product()
    }
}

/// Input and output byte offsets of kept index `m` (over `dims`, fastest first); scans use it
/// for the start of line `m`.
pub(super) fn kept_offsets(dims: &[(usize, isize, isize)], mut m: usize) -> (isize, isize) {
    let (mut i, mut o) = (0isize, 0isize);
    for &(size, si, so) in dims {
        let k = (m % size) as isize;
        m /= size;
        i += k * si;
        o += k * so;
    }
    (i, o)
}

/// Kept indices in order from one on, with their input and output byte offsets
/// ([`kept_offsets`]'s), a step at a time: no division per output.
struct KeptWalk<'a> {
    dims: &'a [KeptDim],
    digits: SmallVec<[usize; 6]>,
    at: (isize, isize),
}

impl<'a> KeptWalk<'a> {
    /// From kept index `m`.
    fn new(dims: &'a [KeptDim], m: usize) -> Self {
        let mut rest = m;
        let digits = dims
            .iter()
            .map(|&(size, ..)| {
                let d = rest % size;
                rest /= size;
                d
            })
            .collect();
        KeptWalk {
            dims,
            digits,
            at: kept_offsets(dims, m),
        }
    }

    /// The offsets of the next `out.len()` indices, from the current one on. (The running
    /// offsets are kept in locals: written back field by field and read again as a pair per
    /// index, they stalled each index on a store that cannot forward, 20 cycles.)
    fn fill(&mut self, out: &mut [(isize, isize)]) {
        let (mut i, mut o) = self.at;
        if let (Some(&(size, si, so)), Some(d)) = (self.dims.first(), self.digits.first_mut()) {
            if *d + out.len() < size {
                // (the common case: all along the fastest kept dim)
                for slot in out.iter_mut() {
                    *slot = (i, o);
                    i += si;
                    o += so;
                }
                *d += out.len();
                self.at = (i, o);
                return;
            }
        }
        for slot in out {
            *slot = (i, o);
            for (d, &(size, si, so)) in self.digits.iter_mut().zip(self.dims) {
                *d += 1;
                i += si;
                o += so;
                if *d < size {
                    break;
                }
                i -= size as isize * si;
                o -= size as isize * so;
                *d = 0;
            }
        }
        self.at = (i, o);
    }
}

/// The byte offset of reduced position `n` (over the reduced dims, fastest first).
#[inline]
fn position_offset(reduced: &[(usize, isize)], mut n: usize) -> isize {
    let mut off = 0;
    for &(size, s) in reduced {
        if n == 0 {
            break;
        }
        off += (n % size) as isize * s;
        n /= size;
    }
    off
}

/// Calls `run(byte offset, len, n)` for the runs along the first reduced dim that cover the
/// reduced positions `[n0, n1)`, in order.
#[inline(always)]
fn for_runs(
    reduced: &[(usize, isize)],
    n0: usize,
    n1: usize,
    mut run: impl FnMut(isize, usize, usize),
) {
    let (r0, s0) = reduced[0];
    let outer = &reduced[1..];
    let mut idx: SmallVec<[usize; 6]> = SmallVec::new();
    let mut q = n0 / r0;
    let mut off = 0isize;
    for &(size, s) in outer {
        idx.push(q % size);
        off += (q % size) as isize * s;
        q /= size;
    }
    let mut n = n0;
    while n < n1 {
        let i0 = n % r0;
        let len = (r0 - i0).min(n1 - n);
        run(off + i0 as isize * s0, len, n);
        n += len;
        for (d, &(size, s)) in outer.iter().enumerate() {
            idx[d] += 1;
            off += s;
            if idx[d] < size {
                break;
            }
            off -= size as isize * s;
            idx[d] = 0;
        }
    }
}

/// Feeds `count` elements at `p` (byte stride `stride`, positions from `n`) into the lanes,
/// the first into lane `lane`.
///
/// # Safety
/// `p + k·stride` must address a readable, aligned `R::In` for every `k < count`.
#[inline(always)]
unsafe fn feed<R: Reducer>(
    r: &R,
    lanes: &mut [R::Acc; LANES],
    mut lane: usize,
    p: *const u8,
    stride: isize,
    count: usize,
    n: usize,
) {
    let mut k = 0;
    while lane != 0 && k < count {
        // SAFETY: k < count (the caller's guarantee).
        lanes[lane] = r.combine(lanes[lane], r.lift(unsafe { get(p, k, stride) }, n + k));
        lane = (lane + 1) % LANES;
        k += 1;
    }
    let groups = (count - k) / LANES;
    if groups > 0 {
        let q = p.wrapping_offset(k as isize * stride);
        if stride == size_of::<R::In>() as isize {
            // SAFETY: the caller's guarantee for the `groups·16` contiguous elements at q.
            unsafe { feed_contiguous(r, lanes, q as *const R::In, groups, n + k) };
        } else {
            for g in 0..groups {
                for (l, acc) in lanes.iter_mut().enumerate() {
                    let i = g * LANES + l;
                    // SAFETY: k + i < count.
                    *acc = r.combine(*acc, r.lift(unsafe { get(q, i, stride) }, n + k + i));
                }
            }
        }
        k += groups * LANES;
    }
    while k < count {
        // SAFETY: k < count.
        lanes[lane] = r.combine(lanes[lane], r.lift(unsafe { get(p, k, stride) }, n + k));
        lane += 1;
        k += 1;
    }
}

/// `groups` groups of 16 contiguous elements into the 16 lanes: the loop LLVM vectorizes
/// (the lanes are independent, so no reassociation is needed), in its AVX2 copy when the CPU
/// has it.
///
/// # Safety
/// `q` must address `groups·16` readable, aligned `R::In`s.
#[inline(always)]
unsafe fn feed_contiguous<R: Reducer>(
    r: &R,
    lanes: &mut [R::Acc; LANES],
    q: *const R::In,
    groups: usize,
    n: usize,
) {
    // SAFETY: the caller's guarantee.
    in_copy!(Isa::avx2(), unsafe { lanes_loop(r, lanes, q, groups, n) })
}

/// [`Reducer::contiguous`], in its AVX2 copy when the CPU has it.
#[inline(always)]
fn contiguous_run<R: Reducer>(r: &R, xs: &[R::In], n: usize) -> Option<R::Acc> {
    in_copy!(Isa::avx2(), r.contiguous(xs, n))
}

/// The contiguous lane loop.
///
/// # Safety
/// As for [`feed_contiguous`].
#[inline(always)]
unsafe fn lanes_loop<R: Reducer>(
    r: &R,
    lanes: &mut [R::Acc; LANES],
    q: *const R::In,
    groups: usize,
    n: usize,
) {
    if r.has_select_without_nan() {
        // SAFETY: the caller's guarantee.
        if let Some(done) = unsafe { lanes_without_nan(r, *lanes, q, groups, n) } {
            *lanes = done;
            return;
        }
    }
    let mut acc = *lanes;
    let mut g = 0;
    if r.is_exactly_associative() {
        // four groups at a time: each lane's four elements combined in order as a tree, then
        // into the lane, one combine on the lane's chain per four groups instead of four (on
        // the Zen 4 a float32 amax ran at 31 GB/s, its chain's latency, against torch's 75
        // in cache)
        while g + 4 <= groups {
            for (l, a) in acc.iter_mut().enumerate() {
                let x = |k: usize| {
                    let i = (g + k) * LANES + l;
                    // SAFETY: i < groups·16.
                    r.lift(unsafe { q.add(i).read() }, n + i)
                };
                let t = r.combine(r.combine(x(0), x(1)), r.combine(x(2), x(3)));
                *a = r.combine(*a, t);
            }
            g += 4;
        }
    }
    for g in g..groups {
        for (l, a) in acc.iter_mut().enumerate() {
            let i = g * LANES + l;
            // SAFETY: i < groups·16.
            *a = r.combine(*a, r.lift(unsafe { q.add(i).read() }, n + i));
        }
    }
    *lanes = acc;
}

/// [`lanes_loop`]'s four-group trees by [`Reducer::select_without_nan`], the same
/// combinations in the same order, so the same bits when no element is NaN (an accumulator
/// that already is stays NaN either way); `None` when one is, and the caller takes the exact
/// loop from the same lanes. The lane arrays are replaced whole, which keeps them in
/// registers (updated in place, LLVM kept amax's lanes on the stack and made the select a
/// masked store).
///
/// # Safety
/// As for [`feed_contiguous`].
#[inline(always)]
unsafe fn lanes_without_nan<R: Reducer>(
    r: &R,
    lanes: [R::Acc; LANES],
    q: *const R::In,
    groups: usize,
    n: usize,
) -> Option<[R::Acc; LANES]> {
    use std::array::from_fn;
    let c = |a: R::Acc, b: R::Acc| r.select_without_nan(a, b);
    let group = |g: usize| -> [R::Acc; LANES] {
        from_fn(|l| {
            let i = g * LANES + l;
            // SAFETY: called with g < groups only, so i < groups·16 (the caller's guarantee).
            r.lift(unsafe { q.add(i).read() }, n + i)
        })
    };
    let mut acc = lanes;
    let mut nan = [false; LANES];
    let mut g = 0;
    while g + 4 <= groups {
        let (x0, x1, x2, x3) = (group(g), group(g + 1), group(g + 2), group(g + 3));
        nan = from_fn(|l| {
            nan[l] | r.is_nan(x0[l]) | r.is_nan(x1[l]) | r.is_nan(x2[l]) | r.is_nan(x3[l])
        });
        acc = from_fn(|l| c(acc[l], c(c(x0[l], x1[l]), c(x2[l], x3[l]))));
        g += 4;
    }
    for g in g..groups {
        let x = group(g);
        nan = from_fn(|l| nan[l] | r.is_nan(x[l]));
        acc = from_fn(|l| c(acc[l], x[l]));
    }
    if nan.iter().any(|&b| b) {
        None
    } else {
        Some(acc)
    }
}

/// The sums of `K` whole blocks at `q` spaced by `at` (each block's lanes and their tree, the
/// same bits as [`feed`] and [`lane_tree`] give), through [`add_lanes`] in its AVX-512 copy
/// when `avx512`; `None` when the reducer is not the plain float sum `sum` says
/// ([`PlainSum::of`]).
///
/// # Safety
/// Each block (`q + k·at.gap` elements, `k < K`) must address `BLOCK` readable, aligned
/// `R::In`s, and `at.gap` must be a whole number of 64-byte lines.
#[inline(always)]
unsafe fn plain_block_sums<R: Reducer, const K: usize>(
    r: &R,
    sum: PlainSum,
    avx512: bool,
    q: *const R::In,
    at: Spacing,
) -> Option<[R::Acc; K]> {
    let identity = r.identity();
    let identity = &identity as &dyn Any;
    // (The downcasts cannot fail once `PlainSum::of` has checked the types; were one to,
    // the blocks would go through the generic loop.)
    #[cfg(target_arch = "x86_64")]
    match sum {
        PlainSum::F32 => {
            let &id = identity.downcast_ref::<f32>()?;
            let q = q as *const f32;
            // SAFETY: the caller's guarantee for the blocks; `In` is `f32` and the CPU has
            // AVX2 (`PlainSum::of`), and AVX-512F when `avx512`.
            let all: [f32; K] = unsafe {
                if avx512 {
                    add_lanes::f32_blocks_avx512(q, at, id)
                } else {
                    add_lanes::f32_blocks(q, at, id)
                }
            };
            return (&all as &dyn Any).downcast_ref::<[R::Acc; K]>().copied();
        }
        PlainSum::F64 => {
            let &id = identity.downcast_ref::<f64>()?;
            let q = q as *const f64;
            // SAFETY: as above, with `In` being `f64`.
            let all: [f64; K] = unsafe {
                if avx512 {
                    add_lanes::f64_blocks_avx512(q, at, id)
                } else {
                    add_lanes::f64_blocks(q, at, id)
                }
            };
            return (&all as &dyn Any).downcast_ref::<[R::Acc; K]>().copied();
        }
        PlainSum::No => {}
    }
    let _ = (sum, avx512, q, at, identity);
    None
}

/// Whole consecutive blocks of a plain float sum ([`Reducer::is_float_sum`]) through
/// [`add_lanes`], several side by side: as many of the `count` blocks at `q` as its calls
/// take, each block's sum pushed into `blocks` in order. Returns how many blocks it took
/// (none when the reducer, its types or the CPU do not qualify).
///
/// # Safety
/// `q` must address `count·BLOCK` readable, aligned `R::In`s.
#[inline(always)]
unsafe fn float_sum_blocks<R: Reducer>(
    r: &R,
    blocks: &mut Counter<R::Acc, BLOCK_DEPTH>,
    q: *const R::In,
    count: usize,
) -> usize {
    /// `K` blocks a call.
    #[inline(always)]
    unsafe fn take<R: Reducer, const K: usize>(
        r: &R,
        sum: PlainSum,
        blocks: &mut Counter<R::Acc, BLOCK_DEPTH>,
        q: *const R::In,
        count: usize,
    ) -> usize {
        let avx512 = crate::exec::cpu::avx512();
        let at = Spacing {
            gap: BLOCK as isize,
            ahead: Some((K * BLOCK) as isize),
        };
        let mut b = 0;
        while b + K <= count {
            // SAFETY: blocks b.. b + K are inside the caller's range; BLOCK elements are a
            // whole number of lines.
            let Some(all) =
                (unsafe { plain_block_sums::<R, K>(r, sum, avx512, q.add(b * BLOCK), at) })
            else {
                break;
            };
            all.iter().for_each(|&s| blocks.push(r, s));
            b += K;
        }
        b
    }
    let sum = PlainSum::of(r);
    // SAFETY: the caller's guarantee.
    unsafe {
        match sum {
            PlainSum::F32 => take::<R, F32_BLOCKS>(r, sum, blocks, q, count),
            PlainSum::F64 => take::<R, F64_BLOCKS>(r, sum, blocks, q, count),
            PlainSum::No => 0,
        }
    }
}

/// The blocks per row when the inner path's units are rows for [`add_rows`]: a plain float
/// sum (`sum`) of one contiguous run per output, at most a block long (1) or 2 to [`ROWS`]
/// whole blocks (a row of 4096 float32: 4), on a CPU with AVX2; `None` otherwise.
///
/// Measured on the 2-core Zen 4 (1 thread, float32, old and new builds alternating): rows of
/// 64 from memory 6.2 -> 21 GB/s, of 200 11 -> 14, a 1 MB array of rows of 64 (in L2) 172 ->
/// 46 us, of 256 in L2 57 -> 26 us. Rows of 256 to 1024 from memory first lost here to four
/// units side by side, and so did rows of whole blocks (4096² 30 vs 34 GB/s), until
/// [`add_rows`] summed each row in turn (64 MiB, 1 thread, four side by side vs here: rows of
/// 256 19.8 vs 31.9 GB/s, of 1024 26.0 vs 36.8, of 2048 30.1 vs 35.8, of 4096 26.5 vs 30.0 and
/// 33.8 vs 36.2; bits unchanged). Interleaving four rows in the kernel (8 chains of additions
/// instead of 2) lost from memory (rows of 256: 33.6 -> 10.9 GB/s) and gained nothing in cache.
fn row_blocks(sum: PlainSum, reduced: &[(usize, isize)], item: isize) -> Option<usize> {
    let (len, stride) = reduced[0];
    let blocks = len.div_ceil(BLOCK);
    let fits = len <= BLOCK || (len.is_multiple_of(BLOCK) && blocks <= ROWS);
    (sum != PlainSum::No && reduced.len() == 1 && stride == item && fits).then_some(blocks)
}

/// The block sums (lanes and their tree, as [`feed`] and [`lane_tree`] give them) of
/// [`ROWS`] runs of `len` elements (1 to `BLOCK`) at `rows` through [`add_rows`]. Where the
/// reducer is not the plain float sum `sum` says (never: `PlainSum::of` checked the types),
/// the generic loop's.
///
/// # Safety
/// Each `rows[k]` must address `len` readable, aligned, contiguous `R::In`s.
unsafe fn row_sums<R: Reducer>(
    r: &R,
    sum: PlainSum,
    rows: &[*const u8; ROWS],
    len: usize,
) -> [R::Acc; ROWS] {
    // SAFETY: the caller's guarantee.
    unsafe { row_sums_explicit(r, sum, rows, len) }.unwrap_or_else(|| {
        rows.map(|p| {
            let mut lanes = [r.identity(); LANES];
            // SAFETY: the caller's guarantee.
            unsafe { feed(r, &mut lanes, 0, p, size_of::<R::In>() as isize, len, 0) };
            lane_tree(r, &lanes)
        })
    })
}

/// [`row_sums`] through [`add_rows`]; `None` when the types are not `sum`'s.
///
/// # Safety
/// As for [`row_sums`].
unsafe fn row_sums_explicit<R: Reducer>(
    r: &R,
    sum: PlainSum,
    rows: &[*const u8; ROWS],
    len: usize,
) -> Option<[R::Acc; ROWS]> {
    let identity = r.identity();
    let identity = &identity as &dyn Any;
    #[cfg(target_arch = "x86_64")]
    {
        match sum {
            PlainSum::F32 => {
                let &id = identity.downcast_ref::<f32>()?;
                let rows = rows.map(|p| p as *const f32);
                // SAFETY: the caller's guarantee for the rows; `In` is `f32` and the CPU has
                // AVX2 (`PlainSum::of`).
                let all: [f32; ROWS] = unsafe { add_rows::f32_rows(&rows, len, id) };
                return (&all as &dyn Any).downcast_ref::<[R::Acc; ROWS]>().copied();
            }
            PlainSum::F64 => {
                let &id = identity.downcast_ref::<f64>()?;
                let rows = rows.map(|p| p as *const f64);
                // SAFETY: as above, with `In` being `f64`.
                let all: [f64; ROWS] = unsafe { add_rows::f64_rows(&rows, len, id) };
                return (&all as &dyn Any).downcast_ref::<[R::Acc; ROWS]>().copied();
            }
            PlainSum::No => {}
        }
    }
    let _ = (sum, rows, len, identity);
    None
}

/// Units a plain float sum reduces side by side ([`units_side_by_side`]): four streams of
/// memory at once.
const UNITS: usize = 4;

/// Whether [`units_side_by_side`] takes this reducer: a plain float sum (`sum`, whole blocks
/// by [`plain_block_sums`]) or a float amax/amin ([`extremum_blocks`]). On a 2-core Zen 3 (1
/// thread, same process, builds alternating), amax of 16M elements read float32 at 18.7 GB/s
/// one unit at a time (the generic lanes, one stream) and 29.9 four side by side (torch:
/// 19.0), float64 at 15.8 and 21.9 (torch: 16.9); four units side by side through the
/// generic lanes (blocks in turn, not interleaved) gained nothing, and the generic lanes
/// asked to interleave them lost their registers (12.8 GB/s).
fn side_by_side_kind<R: Reducer>(r: &R, sum: PlainSum) -> bool {
    sum != PlainSum::No || extremum_floats::<R>(r).is_some()
}

/// [`Reducer::float_extremum`] where the explicit loops apply: `In` and `Acc` both `f32`
/// (`Some((max, false))`) or both `f64` (`Some((max, true))`), and the CPU has AVX2.
fn extremum_floats<R: Reducer>(r: &R) -> Option<(bool, bool)> {
    let max = r.float_extremum()?;
    match PlainSum::float_of::<R>() {
        PlainSum::F32 => Some((max, false)),
        PlainSum::F64 => Some((max, true)),
        PlainSum::No => None,
    }
}

/// The lanes of `K` whole blocks at `q` spaced `gap` elements of a float amax or amin, each
/// block's lanes from the identity as [`lanes_without_nan`] leaves them (the same selects in
/// the same order), through [`extremum_lanes`]; `None` when one of the blocks holds a NaN or
/// the reducer is not such ([`extremum_floats`]).
///
/// # Safety
/// Each block (`q + k·gap` elements, `k < K`) must address `BLOCK` readable, aligned
/// `R::In`s.
#[inline(always)]
unsafe fn extremum_blocks<R: Reducer, const K: usize>(
    r: &R,
    q: *const R::In,
    gap: isize,
) -> Option<[[R::Acc; LANES]; K]> {
    let (max, wide64) = extremum_floats(r)?;
    let identity = r.identity();
    let identity = &identity as &dyn Any;
    #[cfg(target_arch = "x86_64")]
    {
        if wide64 {
            let (&id, q) = (identity.downcast_ref::<f64>()?, q as *const f64);
            // SAFETY: the caller's guarantee for the blocks; `In` is `f64`
            // (`extremum_floats`, the downcast) and the CPU has AVX2.
            let all = unsafe {
                if max {
                    extremum_lanes::f64_blocks::<K, true>(q, gap, id)
                } else {
                    extremum_lanes::f64_blocks::<K, false>(q, gap, id)
                }
            }?;
            return (&all as &dyn Any)
                .downcast_ref::<[[R::Acc; LANES]; K]>()
                .copied();
        }
        let (&id, q) = (identity.downcast_ref::<f32>()?, q as *const f32);
        // SAFETY: as above, with `In` being `f32`.
        let all = unsafe {
            if max {
                extremum_lanes::f32_blocks::<K, true>(q, gap, id)
            } else {
                extremum_lanes::f32_blocks::<K, false>(q, gap, id)
            }
        }?;
        (&all as &dyn Any)
            .downcast_ref::<[[R::Acc; LANES]; K]>()
            .copied()
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        let _ = (max, wide64, identity, q, gap);
        None
    }
}

/// [`UNITS`] units of a plain float sum (`sum`) or a float amax/amin ([`side_by_side_kind`])
/// reduced side by side: unit `k` the positions `[n0s[k], n1s[k])` of the reduced dims from
/// `bases[k]`. Each unit gets the bits [`reduce_range`] gives it: whole blocks through
/// [`plain_block_sums`] (amax/amin: [`extremum_blocks`], else the lanes' exact loop), block
/// `b` of every unit in one call, each into the unit's own counter, the rest as
/// `reduce_range` does.
///
/// Why: one stream read a 64 MB float32 array at 41 GB/s, four streams a chunk apart at
/// 48-57 (1 thread, an AVX-512 machine; torch's sum: 52), the memory serving several pages
/// at once; a 16 MB one (in the last-level cache) at 94-100 as consecutive blocks, 112-115 as
/// four streams. Rows of 4096 float32 (64 MB): 0.83x torch one at a time, 1.07x four (a
/// quarter of the work's piece apart, see [`reduce`]). `None` (nothing read) unless every
/// unit is one contiguous run of the same length (at least a block) and the runs are equally
/// spaced by a whole number of cache lines.
///
/// # Safety
/// As for [`reduce_range`], for each unit.
unsafe fn units_side_by_side<R: Reducer>(
    r: &R,
    sum: PlainSum,
    reduced: &[(usize, isize)],
    bases: [*const u8; UNITS],
    n0s: [usize; UNITS],
    n1s: [usize; UNITS],
) -> Option<[R::Acc; UNITS]> {
    let len = n1s[0] - n0s[0];
    let (r0, s0) = reduced[0];
    let item = size_of::<R::In>() as isize;
    if !side_by_side_kind(r, sum) || s0 != item || len < BLOCK {
        return None;
    }
    let mut starts = [std::ptr::null::<u8>(); UNITS];
    for k in 0..UNITS {
        let n0 = n0s[k];
        if n1s[k] - n0 != len || r0 - n0 % r0 < len {
            return None;
        }
        starts[k] = bases[k].wrapping_offset(position_offset(reduced, n0));
    }
    let gap = (starts[1] as isize).wrapping_sub(starts[0] as isize);
    let spaced = (0..UNITS).all(|k| {
        (starts[k] as isize).wrapping_sub(starts[0] as isize) == gap.wrapping_mul(k as isize)
    });
    if !spaced || gap % 64 != 0 {
        return None;
    }
    // No prefetching: the hardware follows four streams (a prefetch into L2 at the next
    // block slowed them: 64 MB float32 41 GB/s with it, 48 without; 16 MB 94 and 113).
    let at = Spacing {
        gap: gap / item,
        ahead: None,
    };
    let whole = len / BLOCK;
    let avx512 = crate::exec::cpu::avx512();
    let mut counters: [Counter<R::Acc, BLOCK_DEPTH>; UNITS] =
        std::array::from_fn(|_| Counter::new(r.identity()));
    for b in 0..whole {
        let q = starts[0].wrapping_add(b * BLOCK * item as usize) as *const R::In;
        if sum == PlainSum::No {
            // amax/amin: the units' blocks side by side, their lanes each unit's as
            // `finish_range` feeds a whole block from a block boundary (units are chunks, so
            // they start at one); where one holds a NaN, every block by the exact loop
            // SAFETY: block b of every unit lies inside its run (b < len / BLOCK), which the
            // caller's guarantee covers.
            let all = unsafe { extremum_blocks::<R, UNITS>(r, q, at.gap) };
            for (k, c) in counters.iter_mut().enumerate() {
                let lanes = all.map(|all| all[k]).unwrap_or_else(|| {
                    let mut lanes = [r.identity(); LANES];
                    let (q, n) = (q.wrapping_offset(k as isize * at.gap), n0s[k] + b * BLOCK);
                    // SAFETY: as above, for unit k.
                    unsafe { feed_contiguous(r, &mut lanes, q, BLOCK / LANES, n) };
                    lanes
                });
                c.push(r, lane_tree(r, &lanes));
            }
            continue;
        }
        // SAFETY: block b of every unit lies inside its run (b < len / BLOCK), which the
        // caller's guarantee covers; `at.gap` is a whole number of 64-byte lines.
        let sums = unsafe { plain_block_sums::<R, UNITS>(r, sum, avx512, q, at) }?;
        for (c, s) in counters.iter_mut().zip(sums) {
            c.push(r, s);
        }
    }
    let mut out = [r.identity(); UNITS];
    for (k, blocks) in counters.into_iter().enumerate() {
        let n0 = n0s[k] + whole * BLOCK;
        out[k] = if n0 == n1s[k] {
            // (what `finish_range` gives with nothing left to read)
            r.combine(blocks.fold(r), r.identity())
        } else {
            // SAFETY: the caller's guarantee.
            unsafe { finish_range(r, reduced, bases[k], n0, n1s[k], false, blocks) }
        };
    }
    Some(out)
}

/// One output's reduction over the positions `[n0, n1)` (whole blocks but for the last):
/// blocks of lanes into a counter, folded. With `side_by_side` (an input the cache holds),
/// whole contiguous blocks of a plain float sum go through [`float_sum_blocks`].
///
/// # Safety
/// `base` plus the reduced dims' offsets must address readable, aligned `R::In`s.
unsafe fn reduce_range<R: Reducer>(
    r: &R,
    reduced: &[(usize, isize)],
    base: *const u8,
    n0: usize,
    n1: usize,
    side_by_side: bool,
) -> R::Acc {
    if r.in_torch_order() {
        // SAFETY: the caller's guarantee.
        return unsafe { torch_order_range(r, reduced, base, n0, n1) };
    }
    let blocks = Counter::new(r.identity());
    // SAFETY: the caller's guarantee.
    unsafe { finish_range(r, reduced, base, n0, n1, side_by_side, blocks) }
}

/// Registers of torch's vector loop over a contiguous row (`reduction128`) and the
/// half-precision lanes of each: 16 at each of torch's levels (default, AVX2, AVX-512: the
/// products of float16 and bfloat16 rows of 64 to 4096 elements equal torch 2.13's at each,
/// `ATEN_CPU_CAPABILITY` set in turn).
const TORCH_REGISTERS: usize = 4;
const TORCH_VEC: usize = 16;

/// One output's positions `[n0, n1)` combined in the order of torch's `binary_kernel_reduce_vec`
/// ([`Reducer::in_torch_order`]), run after run along the first reduced dim. A contiguous
/// run's whole groups of 64 go to 64 lanes (element i to lane i mod 64, in order), which
/// meet as four registers — (0 with 1) with (2 with 3), lane by lane — then the 16 lanes
/// left to right; that joins the result, and the rest of the run follows one element at a
/// time. Any other run (strided, an outer dim: torch's column loop) is taken one element at
/// a time.
///
/// # Safety
/// As for [`reduce_range`].
unsafe fn torch_order_range<R: Reducer>(
    r: &R,
    reduced: &[(usize, isize)],
    base: *const u8,
    n0: usize,
    n1: usize,
) -> R::Acc {
    const ROW: usize = TORCH_REGISTERS * TORCH_VEC;
    let mut acc = r.identity();
    let s0 = reduced[0].1;
    let contiguous = s0 == size_of::<R::In>() as isize;
    for_runs(reduced, n0, n1, |off, len, n| {
        let p = base.wrapping_offset(off);
        let x = |k: usize| {
            // SAFETY: called with k < len only, and the run's elements are inside the input
            // (the caller's guarantee).
            r.lift(unsafe { get(p, k, s0) }, n + k)
        };
        let whole = if contiguous { len / ROW * ROW } else { 0 };
        if whole > 0 {
            let mut lanes = [r.identity(); ROW];
            for g in (0..whole).step_by(ROW) {
                for (l, lane) in lanes.iter_mut().enumerate() {
                    *lane = r.combine(*lane, x(g + l));
                }
            }
            let reg = |j: usize, l: usize| lanes[j * TORCH_VEC + l];
            let joined = |l: usize| {
                r.combine(
                    r.combine(reg(0, l), reg(1, l)),
                    r.combine(reg(2, l), reg(3, l)),
                )
            };
            let row = (1..TORCH_VEC).fold(joined(0), |row, l| r.combine(row, joined(l)));
            acc = r.combine(acc, row);
        }
        for k in whole..len {
            acc = r.combine(acc, x(k));
        }
    });
    acc
}

/// [`reduce_range`] from position `n0` on, the whole blocks before it (from the start of the
/// range) already pushed into `blocks`.
///
/// # Safety
/// As for [`reduce_range`].
unsafe fn finish_range<R: Reducer>(
    r: &R,
    reduced: &[(usize, isize)],
    base: *const u8,
    n0: usize,
    n1: usize,
    side_by_side: bool,
    mut blocks: Counter<R::Acc, BLOCK_DEPTH>,
) -> R::Acc {
    let mut lanes = [r.identity(); LANES];
    let mut fill = 0usize;
    let s0 = reduced[0].1;
    // What the order-free loop returned, combined in run order.
    let mut free = r.identity();
    let contiguous = s0 == size_of::<R::In>() as isize;
    for_runs(reduced, n0, n1, |off, len, n| {
        let p = base.wrapping_offset(off);
        if contiguous {
            // SAFETY: the run's `len` contiguous elements are inside the input and aligned
            // (the caller's guarantee), and nothing writes the input during the reduction.
            let xs = unsafe { std::slice::from_raw_parts(p as *const R::In, len) };
            if let Some(a) = contiguous_run(r, xs, n) {
                free = r.combine(free, a);
                return;
            }
        }
        let mut i = 0;
        while i < len {
            if side_by_side && contiguous && fill == 0 && len - i >= BLOCK {
                let q = p.wrapping_offset(i as isize * s0) as *const R::In;
                // SAFETY: the run's elements are inside the input (the caller's guarantee).
                let took = unsafe { float_sum_blocks(r, &mut blocks, q, (len - i) / BLOCK) };
                i += took * BLOCK;
                if took > 0 {
                    continue;
                }
            }
            let take = (len - i).min(BLOCK - fill);
            let q = p.wrapping_offset(i as isize * s0);
            // SAFETY: the run's elements are inside the input (the caller's guarantee).
            unsafe { feed(r, &mut lanes, fill % LANES, q, s0, take, n + i) };
            fill += take;
            i += take;
            if fill == BLOCK {
                blocks.push(r, lane_tree(r, &lanes));
                lanes = [r.identity(); LANES];
                fill = 0;
            }
        }
    });
    if fill > 0 {
        blocks.push(r, lane_tree(r, &lanes));
    }
    r.combine(blocks.fold(r), free)
}

/// Accumulators of one tile of the outer-dim path: 16 lane rows and a block counter, one
/// column per output, each row the tile's width (on the heap: a tile of `(f64, index)` pairs is
/// several hundred KB).
struct TileAcc<A: Copy> {
    /// Columns per lane row (the tile's width, the last tile's maybe narrower).
    width: usize,
    lanes: Vec<A>,
    stack: Vec<A>,
    scratch: Vec<A>,
    depth: usize,
    count: usize,
    /// The input fits half the last-level cache ([`within_half_l3`]): only then may whole
    /// float32 blocks take the register lanes (from memory, whose passes read one line of each
    /// row at a time, they ran at half the speed of the 4-row loop: (64,64,56,56)
    /// channels_last, 51 MB, summed over H,W, 1 thread); otherwise the 4-row loop prefetches
    /// short rows ([`PREFETCH_MAX_STRIDE`]).
    in_cache: bool,
}

impl<A: Copy> TileAcc<A> {
    fn new(identity: A, width: usize, in_cache: bool) -> Self {
        TileAcc {
            width,
            in_cache,
            lanes: vec![identity; LANES * width],
            stack: vec![identity; BLOCK_DEPTH * width],
            scratch: vec![identity; width],
            depth: 0,
            count: 0,
        }
    }

    /// Starts a new unit: empty lanes and counter.
    fn reset(&mut self, identity: A) {
        self.lanes.fill(identity);
        self.depth = 0;
        self.count = 0;
    }

    /// Lane row `l`.
    #[inline(always)]
    fn lane_row(&mut self, l: usize) -> &mut [A] {
        &mut self.lanes[l * self.width..(l + 1) * self.width]
    }

    /// Closes a block: per column, the 16 lanes by the lane tree (done a lane row at a time,
    /// lane i with lane i + 8, then + 4, …: each column's tree is [`lane_tree`]'s, and the
    /// loops run along the rows, vectorized), pushed into the counter.
    fn close_block<R: Reducer<Acc = A>>(&mut self, r: &R, w: usize) {
        let tw = self.width;
        let mut half = LANES / 2;
        while half >= 1 {
            for i in 0..half {
                let (low, high) = self.lanes.split_at_mut((i + half) * tw);
                let (dst, src) = (&mut low[i * tw..i * tw + w], &high[..w]);
                for (d, &s) in dst.iter_mut().zip(src) {
                    *d = r.combine(*d, s);
                }
            }
            half /= 2;
        }
        let lanes = &self.lanes[..w];
        self.scratch[..w].copy_from_slice(lanes);
        self.push_scratch(r, w);
        self.lanes.fill(r.identity());
    }

    /// Pushes the block sums in `scratch[..w]` into the counter.
    fn push_scratch<R: Reducer<Acc = A>>(&mut self, r: &R, w: usize) {
        let tw = self.width;
        let mut v = std::mem::take(&mut self.scratch);
        let mut c = self.count;
        while c & 1 == 1 {
            self.depth -= 1;
            let below = &self.stack[self.depth * tw..self.depth * tw + w];
            for (vj, &sj) in v.iter_mut().zip(below) {
                *vj = r.combine(sj, *vj);
            }
            c >>= 1;
        }
        self.stack[self.depth * tw..self.depth * tw + w].copy_from_slice(&v[..w]);
        self.depth += 1;
        self.count += 1;
        self.scratch = v;
    }
    fn fold<R: Reducer<Acc = A>>(&self, r: &R, j: usize) -> A {
        if self.depth == 0 {
            return r.identity();
        }
        let tw = self.width;
        let mut acc = self.stack[(self.depth - 1) * tw + j];
        for i in (0..self.depth - 1).rev() {
            acc = r.combine(self.stack[i * tw + j], acc);
        }
        acc
    }
}

/// Adds one input row of `w` contiguous elements into lane row `lane` (all at position `n`).
///
/// # Safety
/// `row` must address `w ≤ acc.len()` readable, aligned `R::In`s.
#[inline(always)]
unsafe fn row_into<R: Reducer>(r: &R, acc: &mut [R::Acc], row: *const R::In, w: usize, n: usize) {
    for (j, a) in acc[..w].iter_mut().enumerate() {
        // SAFETY: j < w.
        *a = r.combine(*a, r.lift(unsafe { row.add(j).read() }, n));
    }
}

/// Adds 4 input rows of `w` contiguous elements, at positions `n`, `n + 16`, `n + 32` and
/// `n + 48`, into lane row `acc`, in that order.
///
/// # Safety
/// Each of `rows` must address `w ≤ acc.len()` readable, aligned `R::In`s.
#[inline(always)]
unsafe fn rows4_into<R: Reducer>(
    r: &R,
    acc: &mut [R::Acc],
    rows: [*const R::In; 4],
    w: usize,
    n: usize,
) {
    for (j, a) in acc[..w].iter_mut().enumerate() {
        let mut v = *a;
        for (k, row) in rows.iter().enumerate() {
            // SAFETY: j < w.
            v = r.combine(v, r.lift(unsafe { row.add(j).read() }, n + k * LANES));
        }
        *a = v;
    }
}

/// Which explicit-vector loop of [`add_lanes`] a reducer may take: a plain float sum
/// ([`Reducer::is_float_sum`]) reading and accumulating `f32` or `f64`, on a CPU with AVX2.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum PlainSum {
    No,
    F32,
    F64,
}

impl PlainSum {
    fn of<R: Reducer>(r: &R) -> PlainSum {
        if r.is_float_sum() {
            PlainSum::float_of::<R>()
        } else {
            PlainSum::No
        }
    }

    /// The float that `In` and `Acc` both are, where the CPU has AVX2 (the explicit loops'
    /// condition on the types, for sums and for amax/amin's [`extremum_floats`]).
    fn float_of<R: Reducer>() -> PlainSum {
        use std::any::TypeId;
        let (i, a) = (TypeId::of::<R::In>(), TypeId::of::<R::Acc>());
        if !wide() || i != a {
            PlainSum::No
        } else if i == TypeId::of::<f32>() {
            PlainSum::F32
        } else if i == TypeId::of::<f64>() {
            PlainSum::F64
        } else {
            PlainSum::No
        }
    }
}

/// [`rows4_into`] through [`add_lanes`] when `sum` allows it (then `true`: done).
///
/// # Safety
/// As for [`rows4_into`], with `acc` addressing the `w` accumulators, which the rows do not
/// overlap.
#[inline(always)]
unsafe fn plain_rows4<I, A>(
    sum: PlainSum,
    acc: *mut A,
    rows: [*const I; 4],
    w: usize,
    ahead: Option<isize>,
) -> bool {
    #[cfg(target_arch = "x86_64")]
    match sum {
        // SAFETY: `PlainSum::of` checked that `I` and `A` are `f32` (or `f64` below) and that
        // the CPU has AVX2; the caller's guarantee covers the addresses.
        PlainSum::F32 => unsafe {
            add_lanes::f32_rows4(acc as *mut f32, rows.map(|p| p as *const f32), w, ahead);
            return true;
        },
        // SAFETY: as above.
        PlainSum::F64 => unsafe {
            add_lanes::f64_rows4(acc as *mut f64, rows.map(|p| p as *const f64), w, ahead);
            return true;
        },
        PlainSum::No => {}
    }
    #[cfg(not(target_arch = "x86_64"))]
    let _ = (sum, acc, rows, w, ahead);
    false
}

/// Rows of at most this many bytes apart take [`add_lanes::f32_block_columns`]: its passes
/// read one line of each of a block's rows, so farther rows would spread a pass over more
/// pages than the TLB holds (wide tiles keep the row-streaming loop).
const REGISTER_COLUMNS_MAX_STRIDE: isize = 1024;

/// The identity, when whole blocks of this tile may take the register-lane loop
/// ([`add_lanes::f32_block_columns`]): a plain `f32` sum (`sum`, [`PlainSum::of`] the
/// reducer), `w` a multiple of its column group,
/// rows at most [`REGISTER_COLUMNS_MAX_STRIDE`] apart, an AVX-512 CPU.
fn register_columns<R: Reducer>(r: &R, sum: PlainSum, s0: isize, w: usize) -> Option<f32> {
    if !register_columns_fit(sum, s0, w) {
        return None;
    }
    (&r.identity() as &dyn Any).downcast_ref::<f32>().copied()
}

/// [`register_columns`]'s condition on the sum, the rows' stride `s0` and the tile width `w`.
fn register_columns_fit(sum: PlainSum, s0: isize, w: usize) -> bool {
    cfg!(target_arch = "x86_64")
        && sum == PlainSum::F32
        && crate::exec::cpu::avx512()
        && w > 0
        && w.is_multiple_of(add_lanes::COLUMN_GROUP)
        && s0.unsigned_abs() <= REGISTER_COLUMNS_MAX_STRIDE as usize
}

/// Whether an outer-dim input of `bytes` takes the register lanes ([`register_columns`])
/// rather than the 4-row loop with its prefetch: within half the last-level cache, which is
/// shared (a sum over H,W of (32, 64, 56, 56) channels_last float32, 25.7 MB, ran at 14-27
/// GB/s through the register lanes and 38-45 through the 4-row loop on the 2-core Zen 4 at 1
/// thread, the same process alternating; (24, 64, 56, 56) 15-36 and 36-46).
fn within_half_l3(bytes: usize) -> bool {
    bytes <= crate::exec::cache::sizes().l3 / 2
}

/// Bytes of input rows per panel of [`add_lanes::panel_columns`]: its column groups read
/// a panel's rows in turn, from L1 after the first.
const PANEL_BYTES: usize = 16 << 10;

/// Rows at most this many bytes apart, of an input larger than half the last-level cache,
/// have the 4-row loop prefetch its next step's rows (`add_lanes::f32_rows4`). 2-core Zen 3
/// (L3 32 MiB), sums over H,W of channels_last images, the same process alternating builds:
/// (32, 64, 56, 56) float32 (256-byte rows, 25.7 MB) 1.11-1.23x at 1 thread, 1.32-1.38x at
/// 2; rows of 1 KiB 0.87-0.91x, of 512 bytes 0.94-1.13x. Smaller inputs gained 10-19% at 1
/// thread ((16, 64, 56, 56) float32, (16, 32, 56, 56) float64: 12.8 MB) but lost 10-25% at 2.
const PREFETCH_MAX_STRIDE: usize = 256;

/// The fewest rows a panel of [`add_lanes::panel_columns`] is worth (8 a lane): its
/// lanes' loads and stores per group then cost an eighth of its rows' loads. Shorter panels
/// (rows longer than 128 bytes) ran slower than the 4-row loop (2-core Zen 3, 1 thread, sums
/// over H,W of channels_last (16, C, 56, 56): C = 16 3.1-3.5x, C = 32 1.4x, C = 64 (panels of
/// 64 rows) 0.96x, C = 128 (32 rows) 0.45x).
const MIN_PANEL_ROWS: usize = 8 * LANES;

/// Rows per panel of [`add_lanes::panel_columns`] for this tile (a multiple of 16), when
/// it takes them: a plain `f32` or `f64` sum (`sum`) of `w` columns (a multiple of a
/// register's lanes) whose rows are at most 128 bytes apart (panels of at least
/// [`MIN_PANEL_ROWS`]), on a CPU without AVX-512 (whose whole-block loop
/// [`register_columns`] takes them).
fn panel_rows(sum: PlainSum, s0: isize, w: usize) -> Option<usize> {
    let group = match sum {
        PlainSum::F32 => add_lanes::PANEL_COLUMN_GROUP,
        PlainSum::F64 => add_lanes::PANEL_COLUMN_GROUP / 2,
        PlainSum::No => return None,
    };
    let fits = cfg!(target_arch = "x86_64")
        && !crate::exec::cpu::avx512()
        && w > 0
        && w.is_multiple_of(group)
        && s0.unsigned_abs() <= REGISTER_COLUMNS_MAX_STRIDE as usize;
    let rows = (PANEL_BYTES / s0.unsigned_abs().max(1) / LANES * LANES).min(BLOCK);
    (fits && rows >= MIN_PANEL_ROWS).then_some(rows)
}

/// One tile's reduction over `[n0, n1)` on the outer-dim path.
///
/// # Safety
/// `base` plus the reduced dims' offsets plus `j·size_of::<In>()` for `j < w` must address
/// readable, aligned `R::In`s.
#[inline(always)]
unsafe fn tile_loop<R: Reducer>(
    r: &R,
    t: &mut TileAcc<R::Acc>,
    reduced: &[(usize, isize)],
    base: *const u8,
    w: usize,
    n0: usize,
    n1: usize,
) {
    let s0 = reduced[0].1;
    let tw = t.width;
    let mut fill = 0usize;
    let sum = PlainSum::of(r);
    let columns = register_columns(r, sum, s0, w).filter(|_| t.in_cache);
    let panel = panel_rows(sum, s0, w);
    // short rows close together, from memory: the 4-row loop prefetches the next step's rows
    let ahead = (s0.unsigned_abs() <= PREFETCH_MAX_STRIDE && !t.in_cache)
        .then_some(4 * LANES as isize * s0);
    for_runs(reduced, n0, n1, |off, len, n| {
        let mut i = 0;
        while i < len {
            let row = base.wrapping_offset(off + i as isize * s0);
            if let Some(identity) = columns.filter(|_| fill == 0 && len - i >= BLOCK) {
                // a whole block with the lanes in registers, its sums pushed as a closed
                // block's are (the same bits: see `add_lanes::f32_block_columns`)
                #[cfg(target_arch = "x86_64")]
                // SAFETY: the block's rows are inside the run (len - i >= BLOCK), each with w
                // readable elements (the caller's guarantee); `register_columns` checked that
                // `In` and `Acc` are `f32`, w is a multiple of 16 and the CPU has AVX-512F;
                // the scratch row (the tile's own memory) holds w >= w accumulators.
                unsafe {
                    add_lanes::f32_block_columns(
                        row,
                        s0,
                        w,
                        identity,
                        t.scratch.as_mut_ptr() as *mut f32,
                    );
                }
                #[cfg(not(target_arch = "x86_64"))]
                let _ = identity;
                t.push_scratch(r, w);
                i += BLOCK;
                continue;
            }
            let aligned = fill.is_multiple_of(LANES);
            let panel = panel.map_or(0, |p| p.min(BLOCK - fill).min((len - i) / LANES * LANES));
            if aligned && panel > 0 {
                #[cfg(target_arch = "x86_64")]
                // SAFETY: the panel's rows are inside the run (panel <= len - i), each with w
                // readable elements (the caller's guarantee); `panel_rows` checked that `In`
                // and `Acc` are both `f32` or both `f64` (`PlainSum`: the CPU has AVX2) and
                // that w is a multiple of a register's lanes; the lane rows (the tile's own
                // memory, `tw >= w` apart) hold w accumulators each.
                unsafe {
                    let lanes = t.lanes.as_mut_ptr();
                    if sum == PlainSum::F32 {
                        add_lanes::panel_columns::<f32>(row, s0, panel, w, lanes as _, tw)
                    } else {
                        add_lanes::panel_columns::<f64>(row, s0, panel, w, lanes as _, tw)
                    }
                };
                fill += panel;
                i += panel;
            } else if aligned
                && w >= QUAD_WIDTH
                && len - i >= 4 * LANES
                && BLOCK - fill >= 4 * LANES
            {
                // 64 rows: each lane row takes its 4 rows (l, l + 16, l + 32, l + 48) in that
                // order in one pass, so that its accumulators are loaded and stored once per 4
                // input rows (the same additions in the same order as row by row).
                for l in 0..LANES {
                    let rl = |k: usize| {
                        row.wrapping_offset((l + k * LANES) as isize * s0) as *const R::In
                    };
                    let acc = &mut t.lanes[l * tw..l * tw + w];
                    let rows = [rl(0), rl(1), rl(2), rl(3)];
                    // SAFETY: the 4 rows' w elements are inside the input (the caller's
                    // guarantee), which the lane row (the tile's own memory) does not overlap.
                    unsafe {
                        if !plain_rows4(sum, acc.as_mut_ptr(), rows, w, ahead) {
                            rows4_into(r, acc, rows, w, n + i + l);
                        }
                    }
                }
                fill += 4 * LANES;
                i += 4 * LANES;
            } else if aligned && len - i >= LANES && BLOCK - fill >= LANES {
                // 16 rows into the 16 lane rows in one go: the same additions as row by row,
                // without the per-row bookkeeping (which dominates on narrow tiles).
                for l in 0..LANES {
                    let rl = row.wrapping_offset(l as isize * s0) as *const R::In;
                    let acc = &mut t.lanes[l * tw..l * tw + w];
                    // SAFETY: the row's w elements are inside the input (the caller's guarantee).
                    unsafe { row_into(r, acc, rl, w, n + i + l) };
                }
                fill += LANES;
                i += LANES;
            } else {
                // SAFETY: the row's w elements are inside the input (the caller's guarantee).
                unsafe { row_into(r, t.lane_row(fill % LANES), row as *const R::In, w, n + i) };
                fill += 1;
                i += 1;
            }
            if fill == BLOCK {
                t.close_block(r, w);
                fill = 0;
            }
        }
    });
    if fill > 0 {
        t.close_block(r, w);
    }
}

/// The outer-dim path's tile width for `cols` columns of `acc_bytes` accumulators: the
/// widest whose lane rows fit [`TILE_BYTES`], cut further (down to [`MIN_TILE`], in whole
/// 16-column steps) when the other units (`units_per_tile`: kept × chunks) would leave some
/// of the `threads` tasks idle. Only who computes which column depends on it, never a
/// column's bits.
fn tile_width(cols: usize, acc_bytes: usize, units_per_tile: usize, threads: usize) -> usize {
    let widest = (TILE_BYTES / (LANES * acc_bytes.max(1))).max(LANES);
    let mut tiles = cols.div_ceil(widest);
    if units_per_tile * tiles < threads {
        let wanted = threads.div_ceil(units_per_tile.max(1));
        tiles = tiles.max(wanted.min(cols / MIN_TILE).max(1));
    }
    cols.div_ceil(tiles).next_multiple_of(LANES).min(cols)
}

/// How the outer-dim path cuts its work for `threads` tasks: the tile width, and the aligned
/// groups of blocks (`group_blocks`, a power of two) each chunk's rows are cut into
/// (`groups` per chunk). A group's blocks are combined by the counter, exactly as the
/// chunk's counter would combine them (aligned power-of-two groups are its subtrees, and a
/// last partial group is what it folds on top), so the cut changes who reads which rows,
/// never the bits. Groups come first (each task then still streams whole rows); tiles are
/// narrowed only when there are still too few units.
#[derive(Debug, Clone, Copy)]
struct OuterSplit {
    tile: usize,
    group_blocks: usize,
    groups: usize,
}

fn outer_split(
    cols: usize,
    acc_bytes: usize,
    others: usize,
    nchunks: usize,
    n: usize,
    threads: usize,
) -> OuterSplit {
    let widest = (TILE_BYTES / (LANES * acc_bytes.max(1)))
        .max(LANES)
        .min(cols);
    let chunk_blocks = n.min(CHUNK).div_ceil(BLOCK).max(1);
    let units = others * nchunks * cols.div_ceil(widest);
    // enough units for every thread's pieces (aligned groups of at least one block)
    let pieces = if threads > 1 {
        threads * PIECES_PER_TASK
    } else {
        1
    };
    let wanted = pieces.div_ceil(units.max(1));
    let group_blocks = if wanted > 1 {
        let g = (chunk_blocks / wanted).max(1);
        1 << g.ilog2()
    } else {
        chunk_blocks.next_power_of_two()
    };
    let groups = chunk_blocks.div_ceil(group_blocks);
    let tile = tile_width(cols, acc_bytes, others * nchunks * groups, threads);
    OuterSplit {
        tile,
        group_blocks,
        groups,
    }
}

/// The contiguous kept dim the outer-dim path runs its tiles along: when the first reduced
/// dim is strided and some kept dim of at least 8 outputs is contiguous.
fn outer_column(geo: &Geometry, item: isize) -> Option<usize> {
    if geo.reduced[0].1 == item {
        return None;
    }
    geo.kept.iter().position(|k| k.1 == item && k.0 >= 8)
}

/// What [`reduce`] would run on `threads` threads with this grain, as `explain()`'s three
/// lines: the inner loop (path, tree), the walk (what one unit of work reads, in which order)
/// and the split (units, tasks and their ranges, how partial results are combined).
/// Accumulators are taken at the output's item size.
pub(crate) struct Description {
    pub inner: String,
    pub walk: String,
    pub parallel: String,
}

/// [`Description`] of the reduction plan `plan` on `threads` threads with `grain`.
pub(crate) fn describe(plan: &TensorIterator, threads: usize, grain: usize) -> Description {
    if plan.ntensors() != 2 {
        let none = "not a one-input reduction (no loop of ferroiter's runs it)";
        return Description {
            inner: format!("reduction: {none}"),
            walk: format!("walk: {none}"),
            parallel: format!("parallel: {none}"),
        };
    }
    let geo = Geometry::of(plan);
    let item = plan.operands()[1].itemsize() as isize;
    // (a float32 or float64 input accumulated in its own type, as a plain sum's is)
    let float = matches!(
        plan.dtype(1),
        Ok(crate::dtype::DType::F32 | crate::dtype::DType::F64)
    ) && plan.dtype(0).ok() == plan.dtype(1).ok();
    let acc = plan.operands()[0].itemsize();
    let (outputs, n) = (geo.outputs(), geo.reduced_numel());
    let elements = outputs * n;
    let nchunks = n.div_ceil(CHUNK).max(1);
    let tree = format!(
        "element k of an output's {n} goes to lane k mod {LANES}, blocks of {BLOCK} by a pairwise \
         lane tree, chunks of {CHUNK} ({nchunks} per output) by a binary counter: the same bits \
         at any thread count"
    );
    // the split among threads, as `run_pieces` makes it, and how the partials meet
    let parallel = |units: usize, unit: &str, slots: usize| {
        let t = task_count_on(threads, units, elements, grain);
        let p = piece_count(units, t, t * PIECES_PER_TASK);
        let ranges: Vec<String> = (0..p)
            .map(|k| piece_range(units, p, k))
            .map(|(b, e)| format!("[{b}, {e})"))
            .collect();
        let combine = if slots > 1 {
            format!(
                "each unit writes a partial result ({slots} per output), combined after the \
                 tasks by the counters in unit order"
            )
        } else {
            "each unit writes its outputs' results".to_string()
        };
        format!(
            "parallel: {units} unit(s) ({unit}), {elements} elements, grain {grain}, {threads} \
             thread(s) -> {t} task(s) claiming {p} piece(s) of consecutive units in turn {}; \
             {combine}",
            ranges.join(" ")
        )
    };
    match outer_column(&geo, item) {
        None => {
            let (len, stride) = geo.reduced[0];
            let feed = if stride == item {
                format!("contiguous runs of {len}")
            } else {
                format!("strided runs of {len} (stride {stride} B)")
            };
            let units = outputs * nchunks;
            Description {
                inner: format!(
                    "reduction, inner path: {outputs} output(s) each reduced from {feed}; {tree}"
                ),
                walk: format!(
                    "walk: reduction units in order, each one output's chunk of up to {CHUNK} \
                     reduced elements ({outputs} output(s) x {nchunks} chunk(s)), read as runs \
                     along the reduced dims (fastest first, sizes {:?}) into the {LANES} lanes{}",
                    geo.reduced.iter().map(|r| r.0).collect::<Vec<_>>(),
                    if let Some(blocks) =
                        row_blocks(PlainSum::F32, &geo.reduced, item).filter(|_| float && wide())
                    {
                        format!(
                            "; a sum (float32, float64) of rows {} takes {ROWS} blocks a \
                             call, each in turn: its lanes in vector registers, then their \
                             lane tree (the same additions), each row's blocks then through \
                             its counter",
                            if blocks == 1 {
                                "this short (at most a block)".to_string()
                            } else {
                                format!("of {blocks} whole blocks")
                            }
                        )
                    } else if float && stride == item {
                        format!(
                            "; a sum (float32, float64) takes {UNITS} units at a time, a quarter \
                             of a piece apart, when they are runs of one length, at least a \
                             block, a whole number of cache lines apart: block by block, four \
                             streams side by side"
                        )
                    } else {
                        String::new()
                    }
                ),
                parallel: parallel(units, "output x chunk", nchunks),
            }
        }
        Some(c) => {
            let cols = geo.kept[c].0;
            let others: usize = outputs / cols;
            let busy = task_count_on(threads, usize::MAX, elements, grain);
            let split = outer_split(cols, acc, others, nchunks, n, busy);
            let tiles = cols.div_ceil(split.tile);
            let units = others * tiles * nchunks * split.groups;
            let tile_bytes = (LANES + BLOCK_DEPTH + 1) * split.tile * acc;
            let rows_at_once = if split.tile >= QUAD_WIDTH { 64 } else { 16 };
            // a float sum's panels (`panel_rows`), for the tile width that most units have
            let sum = match plan.dtype(1) {
                Ok(crate::dtype::DType::F32) if float && wide() => PlainSum::F32,
                Ok(crate::dtype::DType::F64) if float && wide() => PlainSum::F64,
                _ => PlainSum::No,
            };
            let half_l3 = crate::exec::cache::sizes().l3 / 2;
            let columns = register_columns_fit(sum, geo.reduced[0].1, split.tile);
            let panels = match panel_rows(sum, geo.reduced[0].1, split.tile) {
                Some(p) => format!(
                    " (a sum: in panels of {p} rows, a register of columns at a time with its \
                     {LANES} lanes in registers)"
                ),
                None if columns
                    && within_half_l3(elements * item as usize)
                    && split.tile == 2 * add_lanes::COLUMN_GROUP =>
                {
                    format!(
                        " (a float32 sum whose input fits half the last-level cache, {} KiB: \
                         whole blocks with both {} column groups' {LANES} lanes in registers, \
                         each row read once)",
                        half_l3 >> 10,
                        add_lanes::COLUMN_GROUP
                    )
                }
                None if columns && within_half_l3(elements * item as usize) => format!(
                    " (a float32 sum whose input fits half the last-level cache, {} KiB: whole \
                     blocks in panels of {} rows, {} columns at a time with their {LANES} lanes \
                     in registers)",
                    half_l3 >> 10,
                    add_lanes::block_panel_rows(geo.reduced[0].1),
                    add_lanes::COLUMN_GROUP
                ),
                None if columns => format!(
                    " (a float32 sum larger than half the last-level cache, {} KiB: the lanes \
                     stay in memory{})",
                    half_l3 >> 10,
                    if geo.reduced[0].1.unsigned_abs() <= PREFETCH_MAX_STRIDE {
                        ", the next rows prefetched"
                    } else {
                        ""
                    }
                ),
                None => String::new(),
            };
            Description {
                inner: format!(
                    "reduction, outer-dim path: input rows of contiguous outputs added \
                     {rows_at_once} at a time into {LANES} lane rows (row k into lane row k mod \
                     {LANES}){panels}, vectorized across the outputs; {tree}"
                ),
                walk: format!(
                    "walk: {others} x {n} input rows of {cols} contiguous outputs (row stride {} \
                     B) streamed in memory order; a unit is a tile of {} outputs ({tiles} per \
                     row; {} KiB of accumulators: {LANES} lane rows and the block counter) over \
                     a group of {} block(s) of {BLOCK} rows ({} group(s) per chunk of {CHUNK} \
                     rows)",
                    geo.reduced[0].1,
                    split.tile,
                    tile_bytes.div_ceil(1024),
                    split.group_blocks,
                    split.groups
                ),
                parallel: parallel(units, "rows x tile x chunk x group", nchunks * split.groups),
            }
        }
    }
}

/// Runs the reduction `r` over a reduction plan, writing `finish(acc)` as an `O` into each
/// output element. `grain`: the fewest elements worth a task.
pub(crate) fn reduce<R: Reducer, O: Copy>(
    plan: &TensorIterator,
    r: &R,
    finish: impl Fn(R::Acc) -> O + Sync,
    grain: usize,
) -> Result<()> {
    debug_assert_eq!(plan.ntensors(), 2);
    let geo = Geometry::of(plan);
    let outputs = geo.outputs();
    let n = geo.reduced_numel();
    let out_base = SendPtr(plan_ptr(plan, 0));
    let in_base = SendPtr(plan_ptr(plan, 1));
    if outputs == 0 {
        return Ok(());
    }
    if n == 0 {
        let v = finish(r.identity());
        for m in 0..outputs {
            let (_, o) = kept_offsets(&geo.kept, m);
            // SAFETY: the plan's guarantee: each kept index addresses an output element.
            unsafe { put(out_base.get().wrapping_offset(o), 0, 0, v) };
        }
        return Ok(());
    }
    let nchunks = n.div_ceil(CHUNK);
    let item = size_of::<R::In>() as isize;
    // The outer-dim path: the reduced dims are strided and some kept dim is contiguous (not
    // for one in torch's order, which walks each output's elements in turn).
    let column = if r.in_torch_order() {
        None
    } else {
        outer_column(&geo, item)
    };
    let threads = task_count(usize::MAX, outputs * n, grain);
    let split = column.map(|c| {
        let cols = geo.kept[c].0;
        let acc = size_of::<R::Acc>();
        outer_split(cols, acc, outputs / cols, nchunks, n, threads)
    });
    // Slots per output: a partial result per (chunk, group of blocks).
    let groups = split.map_or(1, |s| s.groups);
    let group_blocks = split.map_or(CHUNK / BLOCK, |s| s.group_blocks);
    let slots = nchunks * groups;
    let mut partials: Vec<R::Acc> = if slots > 1 {
        vec![r.identity(); outputs * slots]
    } else {
        Vec::new()
    };
    let partial_base = SendPtr(partials.as_mut_ptr() as *mut u8);
    let isa = Isa::avx2();
    // Output id → (input byte offset of its kept index, output byte offset); ids are the kept
    // index (inner path) or other kept index · columns + column (outer path).
    let (others, col_dim): (KeptDims, Option<KeptDim>) = match column {
        Some(c) => {
            let mut o = geo.kept.clone();
            let cd = o.remove(c);
            (o, Some(cd))
        }
        None => (geo.kept.clone(), None),
    };
    let id_offsets = |id: usize| -> (isize, isize) {
        match col_dim {
            Some((cols, si, so)) => {
                let (i, o) = kept_offsets(&others, id / cols);
                let j = (id % cols) as isize;
                (i + j * si, o + j * so)
            }
            None => kept_offsets(&others, id),
        }
    };
    // A unit's result: the output (at byte offset `out()`) when it is the only slot, else
    // its slot of `partials`.
    let emit = |id: usize, slot: usize, out: &dyn Fn() -> isize, acc: R::Acc| {
        if slots == 1 {
            let o = out();
            // SAFETY: the plan's guarantee: every output id addresses an output element, and
            // each id is written by one unit only.
            unsafe { put(out_base.get().wrapping_offset(o), 0, 0, finish(acc)) };
        } else {
            // SAFETY: `partials` has `outputs · slots` slots, each written by one unit only.
            unsafe {
                put(
                    partial_base.get(),
                    id * slots + slot,
                    size_of::<R::Acc>() as isize,
                    acc,
                )
            };
        }
    };
    let reduced = &geo.reduced;
    let input_bytes = outputs * n * size_of::<R::In>();
    let l3 = crate::exec::cache::sizes().l3;
    // whole blocks side by side (add_lanes) only for an input the last-level cache holds
    let side_by_side = input_bytes <= l3;
    match col_dim {
        None => {
            let units = outputs * nchunks;
            let tasks = task_count(units, outputs * n, grain);
            // a plain float sum's (or amax/amin's) units four at a time where they line up
            let sum = PlainSum::of(r);
            // unit → (output id, chunk, input base, its positions, output offset)
            let unit = |u: usize| {
                let (id, c) = (u / nchunks, u % nchunks);
                let (i, o) = id_offsets(id);
                let base = in_base.get().wrapping_offset(i) as *const u8;
                (id, c, base, c * CHUNK, ((c + 1) * CHUNK).min(n), o)
            };
            let single = |u: usize| {
                let (id, c, base, n0, n1, o) = unit(u);
                // SAFETY: the plan's guarantee: the kept index and the reduced dims address
                // input elements.
                let acc = unsafe { reduce_range(r, reduced, base, n0, n1, side_by_side) };
                emit(id, c, &|| o, acc);
            };
            let per_row = row_blocks(sum, reduced, item);
            if per_row == Some(1) {
                // rows of at most a block, [`ROWS`] a call: each row's block sum plus the
                // identity, as `finish_range` ends a single block (its counter folds to it).
                // (Apart from the rows of whole blocks below: the same loop for both lost a
                // twentieth of the speed of rows of 64.)
                let len = reduced[0].0;
                run_pieces(units, tasks, tasks * PIECES_PER_TASK, |b, e| {
                    let mut walk = KeptWalk::new(&others, b);
                    let mut u = b;
                    while u < e {
                        // the last call of a piece repeats its last row (results not kept)
                        let m = (e - u).min(ROWS);
                        let mut at = [(0isize, 0isize); ROWS];
                        walk.fill(&mut at[..m]);
                        let last = at[m - 1];
                        at[m..].fill(last);
                        let rows = at.map(|(i, _)| in_base.get().wrapping_offset(i) as *const u8);
                        // SAFETY: the plan's guarantee: each unit's kept index and its reduced
                        // run (one contiguous dim of `len`) address input elements.
                        let sums = unsafe { row_sums(r, sum, &rows, len) };
                        for k in 0..m {
                            let acc = r.combine(sums[k], r.identity());
                            emit(u + k, 0, &|| at[k].1, acc);
                        }
                        u += m;
                    }
                })?;
                return Ok(());
            }
            if let Some(per_row) = per_row {
                // rows of 2 to 16 whole blocks, [`ROWS`] blocks a call: each row's block sums
                // through its counter, folded, plus the identity, as `finish_range` ends a row
                let block_bytes = (BLOCK * item as usize) as isize;
                let rows_per_call = ROWS / per_row;
                run_pieces(units, tasks, tasks * PIECES_PER_TASK, |b, e| {
                    let mut walk = KeptWalk::new(&others, b);
                    let mut u = b;
                    while u < e {
                        let m = (e - u).min(rows_per_call);
                        let mut at = [(0isize, 0isize); ROWS];
                        walk.fill(&mut at[..m]);
                        // slot k: row k / per_row's block k % per_row; the slots past the last
                        // row's blocks repeat its blocks (results not kept)
                        let offsets: [isize; ROWS] = std::array::from_fn(|k| {
                            let (row, j) = ((k / per_row).min(m - 1), k % per_row);
                            at[row].0 + j as isize * block_bytes
                        });
                        let blocks = offsets.map(|i| in_base.get().wrapping_offset(i) as *const u8);
                        // SAFETY: the plan's guarantee: each unit's kept index and its reduced
                        // run (one contiguous dim of `per_row` whole blocks) address input
                        // elements.
                        let sums = unsafe { row_sums(r, sum, &blocks, BLOCK) };
                        for (k, row) in sums.chunks_exact(per_row).take(m).enumerate() {
                            let mut counter: Counter<R::Acc, BLOCK_DEPTH> =
                                Counter::new(r.identity());
                            row.iter().for_each(|&s| counter.push(r, s));
                            let acc = r.combine(counter.fold(r), r.identity());
                            emit(u + k, 0, &|| at[k].1, acc);
                        }
                        u += m;
                    }
                })?;
                return Ok(());
            }
            run_pieces(units, tasks, tasks * PIECES_PER_TASK, |b, e| {
                // groups of four units a quarter of the piece apart: four streams far apart in
                // memory (four consecutive rows of 4096 float32 are 64 KB of one stream: 4096²
                // summed along rows, 1 thread, 41 GB/s as consecutive units, 46 as quarters;
                // rows of 1024, 16 MB, 70 and 80)
                let quarter = if side_by_side_kind(r, sum) {
                    (e - b) / UNITS
                } else {
                    0
                };
                let group = |j: usize| std::array::from_fn(|k| b + j + k * quarter);
                for j in 0..quarter {
                    let members: [usize; UNITS] = group(j);
                    let four = members.map(unit);
                    // SAFETY: the plan's guarantee: each unit's kept index and reduced dims
                    // address input elements.
                    let accs = unsafe {
                        units_side_by_side(
                            r,
                            sum,
                            reduced,
                            four.map(|t| t.2),
                            four.map(|t| t.3),
                            four.map(|t| t.4),
                        )
                    };
                    match accs {
                        Some(accs) => {
                            for ((id, c, .., o), acc) in four.into_iter().zip(accs) {
                                emit(id, c, &|| o, acc);
                            }
                        }
                        None => members.into_iter().for_each(single),
                    }
                }
                (b + UNITS * quarter..e).for_each(single);
            })?;
        }
        Some((cols, _, _)) => {
            let others_n: usize = others.iter().map(|k| k.0).product();
            let tile = split.map_or(cols, |s| s.tile);
            let tiles = cols.div_ceil(tile);
            let group_rows = group_blocks * BLOCK;
            let units = others_n * tiles * slots;
            let tasks = task_count(units, outputs * n, grain);
            run_pieces(units, tasks, tasks * PIECES_PER_TASK, |b, e| {
                let mut t = TileAcc::new(r.identity(), tile, within_half_l3(input_bytes));
                for u in b..e {
                    let slot = u % slots;
                    let (c, g) = (slot / groups, slot % groups);
                    let k = (u / slots) % tiles;
                    let m = u / slots / tiles;
                    let j0 = k * tile;
                    let w = tile.min(cols - j0);
                    let id0 = m * cols + j0;
                    let (i, _) = id_offsets(id0);
                    let chunk_end = ((c + 1) * CHUNK).min(n);
                    let n0 = c * CHUNK + g * group_rows;
                    if n0 >= chunk_end {
                        // (a group past the end of a shorter last chunk: never read)
                        continue;
                    }
                    let n1 = (n0 + group_rows).min(chunk_end);
                    t.reset(r.identity());
                    let base = in_base.get().wrapping_offset(i) as *const u8;
                    let tile = &mut t;
                    // SAFETY: the plan's guarantee: the tile's columns (a contiguous kept dim)
                    // and the reduced dims address input elements.
                    in_copy!(isa, unsafe { tile_loop(r, tile, reduced, base, w, n0, n1) });
                    for j in 0..w {
                        emit(id0 + j, slot, &|| id_offsets(id0 + j).1, t.fold(r, j));
                    }
                }
            })?;
        }
    }
    if slots > 1 {
        // A chunk's value from its groups: the full groups pushed, a last partial group (fewer
        // than `group_blocks` blocks) folded on top, as the chunk's own counter would.
        let chunk_value = |id: usize, c: usize| -> R::Acc {
            let parts = &partials[(id * nchunks + c) * groups..][..groups];
            if groups == 1 {
                return parts[0];
            }
            let blocks = (((c + 1) * CHUNK).min(n) - c * CHUNK).div_ceil(BLOCK);
            let used = blocks.div_ceil(group_blocks);
            let mut counter: Counter<R::Acc, 64> = Counter::new(r.identity());
            if blocks.is_multiple_of(group_blocks) {
                for &p in &parts[..used] {
                    counter.push(r, p);
                }
                counter.fold(r)
            } else {
                for &p in &parts[..used - 1] {
                    counter.push(r, p);
                }
                counter.fold_with(r, parts[used - 1])
            }
        };
        for id in 0..outputs {
            let mut counter: Counter<R::Acc, 64> = Counter::new(r.identity());
            for c in 0..nchunks - 1 {
                counter.push(r, chunk_value(id, c));
            }
            let acc = counter.fold_with(r, chunk_value(id, nchunks - 1));
            let (_, o) = id_offsets(id);
            // SAFETY: the plan's guarantee: every output id addresses an output element.
            unsafe { put(out_base.get().wrapping_offset(o), 0, 0, finish(acc)) };
        }
    }
    Ok(())
}

/// Operand `k`'s base pointer in the plan.
fn plan_ptr(plan: &TensorIterator, k: usize) -> *mut u8 {
    plan.operands()[k]
        .array
        .as_ref()
        .map_or(std::ptr::null_mut(), |a| a.data_ptr() as *mut u8)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A plain float sum of `T` (flagged for the explicit-vector loop).
    struct PlainAdd<T>(std::marker::PhantomData<T>);
    impl<T: Copy + Send + Sync + Default + std::ops::Add<Output = T> + 'static> Reducer
        for PlainAdd<T>
    {
        type In = T;
        type Acc = T;
        fn identity(&self) -> T {
            T::default()
        }
        fn lift(&self, x: T, _: usize) -> T {
            x
        }
        fn combine(&self, a: T, b: T) -> T {
            a + b
        }
        fn is_float_sum(&self) -> bool {
            true
        }
    }

    /// One block's sum by the generic loop's rule: lane `i mod 16`, then the lane tree.
    fn block_sum<T: Copy + Default + std::ops::Add<Output = T>>(xs: &[T]) -> T {
        let mut lanes = [T::default(); LANES];
        for (i, &x) in xs.iter().enumerate() {
            lanes[i % LANES] = lanes[i % LANES] + x;
        }
        let mut w = LANES / 2;
        while w >= 1 {
            for i in 0..w {
                lanes[i] = lanes[i] + lanes[i + w];
            }
            w /= 2;
        }
        lanes[0]
    }

    /// Four blocks' sums through [`float_sum_blocks`], folded by the counter.
    fn four_blocks<T>(xs: &[T]) -> (usize, T)
    where
        T: Copy + Send + Sync + Default + std::ops::Add<Output = T> + 'static,
    {
        let r = PlainAdd::<T>(std::marker::PhantomData);
        let mut c: Counter<T, BLOCK_DEPTH> = Counter::new(T::default());
        // SAFETY: `xs` holds 5 whole blocks.
        let took = unsafe { float_sum_blocks(&r, &mut c, xs.as_ptr(), 5) };
        (took, c.fold(&r))
    }

    /// The explicit-vector loop takes every whole group of blocks when the CPU has AVX2 (the
    /// kernels' bit-for-bit test would also pass on the generic loop alone, so it is checked
    /// here that the fast path runs), and its block sums are the generic loop's.
    #[test]
    fn plain_float_sums_take_the_explicit_loop() {
        let xs: Vec<f32> = (0..5 * BLOCK)
            .map(|i| (i as f32 * 0.37).sin() * 1e3)
            .collect();
        let ys: Vec<f64> = xs.iter().map(|&x| x as f64 * 1.1).collect();
        let (t32, s32) = four_blocks(&xs);
        let (t64, s64) = four_blocks(&ys);
        let want = if wide() { 4 } else { 0 };
        assert_eq!((t32, t64), (want, want));
        if wide() {
            let pairwise = |b: &dyn Fn(usize) -> f64| (b(0) + b(1)) + (b(2) + b(3));
            let b64 = |k: usize| block_sum(&ys[k * BLOCK..(k + 1) * BLOCK]);
            assert_eq!(s64, pairwise(&b64));
            let b32 = |k: usize| block_sum(&xs[k * BLOCK..(k + 1) * BLOCK]);
            assert_eq!(s32, (b32(0) + b32(1)) + (b32(2) + b32(3)));
        }
    }

    /// Sixteen short rows at a time (the AVX2 kernels, where the CPU has them) give each row
    /// [`reduce_range`]'s bits, for lengths around the lane groups and up to a block, with
    /// signed zeros, infinities and NaNs among the values. (A NaN's sign and payload are not
    /// compared: where two NaNs meet in an addition, which one comes out depends on the
    /// operand order of an instruction the compiler may commute, in either loop.)
    // (the kernels are x86-64's: elsewhere there is nothing to compare)
    #[cfg(target_arch = "x86_64")]
    #[test]
    fn short_rows_match_one_row_at_a_time() {
        fn check<T>(xs: &[T], kernels: &[(&str, RowKernel<T>)])
        where
            T: Copy + Send + Sync + Default + std::ops::Add<Output = T> + 'static,
            T: std::fmt::Debug + Bits,
        {
            let r = PlainAdd::<T>(std::marker::PhantomData);
            for len in [1, 2, 7, 8, 9, 15, 16, 17, 31, 33, 64, 100, 1000, 1023, 1024] {
                for start in [0, 1, 3] {
                    let rows: [*const T; ROWS] =
                        std::array::from_fn(|k| xs[start + k * (len + 5)..].as_ptr());
                    let reduced = [(len, size_of::<T>() as isize)];
                    // SAFETY: every row lies inside `xs`.
                    let one = rows.map(|p| unsafe {
                        reduce_range(&r, &reduced, p as *const u8, 0, len, false).bits()
                    });
                    for (name, kernel) in kernels {
                        // SAFETY: as above; the kernels are listed only where the CPU has them.
                        let got = unsafe { kernel(&rows, len, T::default()) };
                        // (plus the identity, as the row's result is)
                        let got = got.map(|x| (x + T::default()).bits());
                        assert_eq!(got, one, "{name}, rows of {len} from {start}");
                    }
                }
            }
        }
        trait Bits {
            fn bits(self) -> u64;
        }
        impl Bits for f32 {
            fn bits(self) -> u64 {
                if self.is_nan() {
                    u64::MAX
                } else {
                    self.to_bits() as u64
                }
            }
        }
        impl Bits for f64 {
            fn bits(self) -> u64 {
                if self.is_nan() {
                    u64::MAX
                } else {
                    self.to_bits()
                }
            }
        }
        type RowKernel<T> = unsafe fn(&[*const T; ROWS], usize, T) -> [T; ROWS];
        let special = |i: usize, x: f64| match i % 997 {
            5 => -0.0,
            300 => f64::INFINITY,
            301 => f64::NEG_INFINITY,
            700 => f64::NAN,
            _ => x,
        };
        let ys: Vec<f64> = (0..20_000)
            .map(|i| special(i, (i as f64 * 0.37).sin() * 1e3 * (1.0 + (i % 7) as f64)))
            .collect();
        let mut xs: Vec<f32> = ys.iter().map(|&y| y as f32).collect();
        // a row of negative zeros only (rows of 9 from 0: the first row)
        xs[..9].fill(-0.0);
        let mut k32: Vec<(&str, RowKernel<f32>)> = vec![];
        let mut k64: Vec<(&str, RowKernel<f64>)> = vec![];
        #[cfg(target_arch = "x86_64")]
        {
            if crate::exec::cpu::avx2() {
                k32.push(("avx2", add_rows::f32_rows));
                k64.push(("avx2", add_rows::f64_rows));
            }
        }
        check(&xs, &k32);
        check(&ys, &k64);
    }

    /// The kept-index walk steps through [`kept_offsets`]' offsets from any start.
    #[test]
    fn kept_walk_follows_kept_offsets() {
        let dims: [KeptDim; 3] = [(3, 4, 100), (1, 7, 7), (5, -12, 1000)];
        for start in [0, 2, 3, 14] {
            let mut walk = KeptWalk::new(&dims, start);
            let mut got = vec![(0, 0); 15 - start];
            let (first, rest) = got.split_at_mut((15 - start) / 2);
            walk.fill(first);
            walk.fill(rest);
            let want: Vec<_> = (start..15).map(|m| kept_offsets(&dims, m)).collect();
            assert_eq!(got, want, "from {start}");
        }
    }

    /// Four units side by side give each unit [`reduce_range`]'s bits, and are refused (nothing
    /// read) unless the units are runs of one length a whole number of lines apart.
    #[test]
    fn units_side_by_side_match_one_unit_at_a_time() {
        let xs: Vec<f32> = (0..40_000).map(|i| (i as f32 * 0.37).sin() * 1e3).collect();
        let r = PlainAdd::<f32>(std::marker::PhantomData);
        let sum = PlainSum::of(&r);
        // rows of `cols` elements `gap` apart, from element `start`: reduced dim (cols, 4 bytes)
        let run = |start: usize, cols: usize, gap: usize| {
            let reduced = [(cols, 4isize)];
            let bases: [*const u8; UNITS] =
                std::array::from_fn(|k| xs[start + k * gap..].as_ptr() as *const u8);
            // SAFETY: every row lies inside `xs`.
            let four =
                unsafe { units_side_by_side(&r, sum, &reduced, bases, [0; UNITS], [cols; UNITS]) };
            // SAFETY: as above.
            let one = bases.map(|b| unsafe { reduce_range(&r, &reduced, b, 0, cols, false) });
            (four, one)
        };
        for (start, cols, gap) in [
            (0, 1024, 1024),
            (3, 2064, 2064),
            (5, 5000, 9008),
            (1, 1024 * 9, 1024 * 9),
        ] {
            let (four, one) = run(start, cols, gap);
            if sum == PlainSum::No {
                assert_eq!(four, None);
                continue;
            }
            let four = four.expect("taken side by side");
            assert_eq!(
                four.map(f32::to_bits),
                one.map(f32::to_bits),
                "{cols} {gap}"
            );
        }
        // rows 4104 elements apart (not a whole number of lines), and runs under a block
        assert_eq!(run(0, 4104, 4104).0, None);
        assert_eq!(run(0, 1000, 1024).0, None);
    }

    /// amax's (`MAX`) or amin's select on f32 as the kernels have it: the first NaN, else the
    /// first of the largest (smallest), so -0.0 before 0.0 stays.
    struct FirstOf<const MAX: bool>;
    impl<const MAX: bool> Reducer for FirstOf<MAX> {
        type In = f32;
        type Acc = f32;
        fn identity(&self) -> f32 {
            if MAX {
                f32::NEG_INFINITY
            } else {
                f32::INFINITY
            }
        }
        fn lift(&self, x: f32, _: usize) -> f32 {
            x
        }
        fn combine(&self, a: f32, b: f32) -> f32 {
            let wins = if MAX { b > a } else { b < a };
            if a.is_nan() || (!b.is_nan() && !wins) {
                a
            } else {
                b
            }
        }
        fn is_exactly_associative(&self) -> bool {
            true
        }
        fn has_select_without_nan(&self) -> bool {
            true
        }
        fn select_without_nan(&self, a: f32, b: f32) -> f32 {
            let wins = if MAX { b > a } else { b < a };
            if wins {
                b
            } else {
                a
            }
        }
        fn float_extremum(&self) -> Option<bool> {
            Some(MAX)
        }
        fn is_nan(&self, a: f32) -> bool {
            a.is_nan()
        }
    }

    /// amax's and amin's units side by side (the explicit loops where the CPU has AVX2) give
    /// each unit the bits of one at a time: signed zeros as the extreme in either order, a NaN
    /// with its payload in one unit of four (every block then by the exact loop).
    #[test]
    fn extremum_units_side_by_side_match_one_unit_at_a_time() {
        fn check<const MAX: bool>(sign: f32, nan: bool) {
            let r = FirstOf::<MAX>;
            let (cols, gap) = (1024 * 5 + 37, 1024 * 6);
            let mut xs: Vec<f32> = (0..gap * UNITS)
                .map(|i| sign * ((i as f32 * 0.37).sin().abs() + 1.0))
                .collect();
            // unit 0: its extreme a -0.0 before a 0.0; unit 1: 0.0 before -0.0 (in another
            // block); unit 2: a NaN with a payload where asked; unit 3 plain
            xs[100] = -0.0;
            xs[3000] = 0.0;
            xs[gap + 5] = 0.0;
            xs[gap + 2000] = -0.0;
            if nan {
                xs[2 * gap + 4000] = f32::from_bits(0x7fc0_1234);
            }
            let reduced = [(cols, 4isize)];
            let bases: [*const u8; UNITS] =
                std::array::from_fn(|k| xs[k * gap..].as_ptr() as *const u8);
            // SAFETY: every unit's `cols` elements lie inside `xs`.
            let four = unsafe {
                units_side_by_side(&r, PlainSum::No, &reduced, bases, [0; UNITS], [cols; UNITS])
            };
            // SAFETY: as above.
            let one = bases.map(|b| unsafe { reduce_range(&r, &reduced, b, 0, cols, false) });
            if !crate::exec::cpu::test_runs("avx2", wide()) {
                assert_eq!(four, None);
                return;
            }
            // the explicit loops themselves: block b of the four units against the lanes'
            // own loop, and `None` for the block with the NaN (block 3 of unit 2)
            for b in 0..5 {
                let q = xs[b * BLOCK..].as_ptr();
                // SAFETY: block b of each unit lies inside `xs`.
                let all = unsafe { extremum_blocks::<_, UNITS>(&r, q, gap as isize) };
                if nan && b == 3 {
                    assert!(all.is_none());
                    continue;
                }
                let all = all.expect("no NaN in these blocks");
                for (k, lanes) in all.iter().enumerate() {
                    let mut want = [r.identity(); LANES];
                    let q = q.wrapping_add(k * gap);
                    // SAFETY: as above.
                    unsafe { feed_contiguous(&r, &mut want, q, BLOCK / LANES, 0) };
                    assert_eq!(lanes.map(f32::to_bits), want.map(f32::to_bits));
                }
            }
            let four = four.expect("taken side by side").map(f32::to_bits);
            assert_eq!(four, one.map(f32::to_bits), "max {MAX}, NaN {nan}");
            assert_eq!(four[..2], [(-0.0f32).to_bits(), 0], "max {MAX}, NaN {nan}");
            if nan {
                assert_eq!(four[2], 0x7fc0_1234);
            }
        }
        for nan in [false, true] {
            check::<true>(-1.0, nan);
            check::<false>(1.0, nan);
        }
    }
}
