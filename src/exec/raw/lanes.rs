//! `out = f(a)` over a block, computed `N` lanes at a time by a [`LaneMap`] (the vector math
//! kernels), in the widest copy the CPU runs ([`Isa::widest`]: AVX-512, AVX2+FMA or the
//! baseline build, chosen at run time; the wheel stays portable). Every path — contiguous
//! rows, their tails, a broadcast scalar, strided rows — feeds the same lane function, so a
//! value's result never depends on where it sits (nor on whether its line was streamed).
//! Raw memory: see the invariants in [`super`].

use super::isa::{in_copy, Isa};
use super::stream::{before_first_line, fence_if, stream_line, streams_row, LINE};
use super::{get, prefetch_line, put, Block};
use crate::exec::cpu::Capability;
use crate::exec::InnerLoop;
use std::mem::{size_of, MaybeUninit};

/// A function of `N` lanes at a time: branch-free per-lane code over arrays, which LLVM
/// compiles to vector instructions of whatever width the copy it is inlined into allows.
pub(crate) trait LaneMap<const N: usize>: Copy + Send + Sync {
    type In: Copy;
    type Out: Copy;
    /// The function on `N` lanes. Implementations are `#[inline(always)]` so that they
    /// compile into each copy of [`lanes_row`] with that copy's CPU features.
    fn block(&self, x: [Self::In; N]) -> [Self::Out; N];
}

/// How far ahead of its reads (bytes) [`lanes_row`] asks for the input's lines. The hardware
/// prefetchers fall behind a loop this slow per line: on the 2-core Intel Xeon (4M elements,
/// 1 thread, ns an element) float64 sin went from 1.44 to 1.09-1.16 with it (1 or 2 KiB
/// ahead), tanh 2.2-2.35 -> 1.5-1.6, float32 sin 0.54 -> 0.43; exp, at the copy limit
/// already, stayed. Prefetching the output's lines for writing (`prefetchw`) lost.
const PREFETCH_AHEAD: usize = 2048;

/// How [`lanes_row`] stores a row's whole blocks: plainly, or (a block's output being one
/// cache line) streamed a line at a time with the copy's widest stores ([`stream_line`]).
pub(super) mod block_stores {
    pub const PLAIN: u8 = 0;
    pub const STREAM_SSE2: u8 = 1;
    pub const STREAM_AVX2: u8 = 2;
    pub const STREAM_AVX512: u8 = 3;
}

/// `o[i] = k(a[i])` for `i < n`, `N` lanes at a time; partial blocks (the tail, and with
/// streamed stores the elements before `o`'s first line boundary) are padded with copies of
/// their first element and stored plainly. Reads before writes within a block, so `o` may be `a` (in place).
/// Streamed rows are not fenced here: [`map1_lanes`] fences once after the block's last row.
///
/// # Safety
/// `a` addresses `n` readable `In`s and `o` `n` writable `Out`s, both aligned; they either
/// coincide or do not overlap. With `S` other than [`block_stores::PLAIN`], a block's output
/// is one line (`N·size_of::<Out>() = LINE`), the CPU has `S`'s stores, and the target is
/// x86-64.
#[inline(always)]
unsafe fn lanes_row<const N: usize, const S: u8, K: LaneMap<N>>(
    k: K,
    o: *mut K::Out,
    a: *const K::In,
    n: usize,
) {
    let mut i = 0;
    if S != block_stores::PLAIN {
        i = before_first_line(o, n);
        // SAFETY: `i <= n`.
        unsafe { partial_block(k, o, a, i) };
    }
    while i + N <= n {
        prefetch_line((a.wrapping_add(i) as *const u8).wrapping_add(PREFETCH_AHEAD));
        // SAFETY: `i + N <= n`; `[T; N]` has `T`'s alignment; streamed, `o + i` is
        // line-aligned (`i` counts whole blocks of one line from the boundary) and `y` is one
        // line (the caller's guarantee).
        unsafe {
            let x = (a.add(i) as *const [K::In; N]).read();
            let y = k.block(x);
            if S == block_stores::PLAIN {
                (o.add(i) as *mut [K::Out; N]).write(y);
            } else {
                stream_line::<S>(o.add(i) as *mut u8, &y as *const [K::Out; N] as *const u8);
            }
        }
        i += N;
    }
    // SAFETY: `i <= n`.
    unsafe { partial_block(k, o.add(i), a.add(i), n - i) };
}

/// `o[j] = k(a[j])` for `j < count < N`, as one block padded with copies of `a[0]` (each lane's
/// value depends on that lane only).
///
/// # Safety
/// As [`lanes_row`]'s, for `count` elements from `a` and `o`.
#[inline(always)]
unsafe fn partial_block<const N: usize, K: LaneMap<N>>(
    k: K,
    o: *mut K::Out,
    a: *const K::In,
    count: usize,
) {
    if count == 0 {
        return;
    }
    // SAFETY: every index read or written is `< count` (the caller's guarantee).
    unsafe {
        let mut x = [a.read(); N];
        for (j, v) in x.iter_mut().enumerate().take(count) {
            *v = a.add(j).read();
        }
        let y = k.block(x);
        for (j, v) in y.iter().enumerate().take(count) {
            o.add(j).write(*v);
        }
    }
}

/// Elements a strided row is staged through at a time (a few KiB of stack).
const STAGE: usize = 256;

/// `o[i·so] = k(a[i·sa])` for `i < n`: a strided row (or one element, `n = 1`), gathered
/// [`STAGE`] elements at a time into a contiguous buffer and run through [`lanes_row`], into
/// the output directly where it is contiguous (streamed as `S` says, its chunks starting on
/// line boundaries), else into a second buffer scattered back; a row of at most `N` elements
/// is one block. Each chunk asks for the next one's input lines before it computes. (Gathered
/// one block of `N` lanes at a time, strided float32 `tanh` took 4.2 ns an element on a
/// 2-core Xeon; staged, 2.1-2.4, against 1.0 contiguous.)
///
/// # Safety
/// `pa + i·sa` addresses a readable `In` and `po + i·so` a writable `Out` for every `i < n`,
/// both aligned; a chunk's elements are all read before any is written, so the two rows may
/// coincide. With `S` other than [`block_stores::PLAIN`], the output is contiguous
/// (`so = size_of::<Out>()`) and `S` meets [`lanes_row`]'s conditions.
#[inline(always)]
unsafe fn lanes_strided<const N: usize, const S: u8, K: LaneMap<N>>(
    k: K,
    po: *mut u8,
    so: isize,
    pa: *const u8,
    sa: isize,
    n: usize,
) {
    if n == 0 {
        return;
    }
    if n <= N {
        // one block (a broadcast row's value, a short row): no staging buffers to fill
        // SAFETY: indices `< n` (the caller's guarantees); all are read before any is written.
        unsafe {
            let mut x = [get::<K::In>(pa, 0, sa); N];
            for (l, v) in x.iter_mut().enumerate().take(n) {
                *v = get::<K::In>(pa, l, sa);
            }
            for (l, v) in k.block(x).iter().enumerate().take(n) {
                put(po, l, so, *v);
            }
        }
        return;
    }
    let direct = so == size_of::<K::Out>() as isize;
    // streamed, a first chunk up to the output's first line boundary, so that the others
    // (whole blocks) start on one
    let head = if S == block_stores::PLAIN {
        0
    } else {
        before_first_line(po as *const K::Out, n)
    };
    // every `step`-th element of a chunk starts another input line
    let step = (LINE / sa.unsigned_abs().max(1)).max(1);
    // SAFETY: `n > 0`, so element 0 is readable.
    let mut xs = [unsafe { get::<K::In>(pa, 0, sa) }; STAGE];
    let mut ys = [MaybeUninit::<K::Out>::uninit(); STAGE];
    let mut i = 0;
    while i < n {
        let m = if i == 0 && head > 0 {
            head
        } else {
            STAGE.min(n - i)
        };
        for l in (i + m..(i + m + STAGE).min(n)).step_by(step) {
            prefetch_line(pa.wrapping_offset(l as isize * sa));
        }
        // SAFETY: indices `i..i + m` are `< n` (the caller's guarantees); `lanes_row` writes
        // the output's elements `i..i + m` (contiguous when `direct`; a chunk past `head`
        // starts on a line when streamed) or `ys[..m]`, from `xs[..m]` (distinct memory), and
        // only those are read back.
        unsafe {
            for (l, v) in xs.iter_mut().enumerate().take(m) {
                *v = get::<K::In>(pa, i + l, sa);
            }
            if direct {
                let o = (po as *mut K::Out).add(i);
                lanes_row::<N, S, K>(k, o, xs.as_ptr(), m);
            } else {
                let ys = ys.as_mut_ptr() as *mut K::Out;
                lanes_row::<N, { block_stores::PLAIN }, K>(k, ys, xs.as_ptr(), m);
                for l in 0..m {
                    put(po, i + l, so, ys.add(l).read());
                }
            }
        }
        i += m;
    }
}

/// The block's rows in one copy, its whole output blocks stored as `S` says: contiguous rows
/// directly, a broadcast input computed once per row, strided rows staged ([`lanes_strided`]).
///
/// # Safety
/// The module invariants for `blk`; with `S` other than [`block_stores::PLAIN`], the output's
/// rows are contiguous and `S` meets [`lanes_row`]'s conditions.
#[inline(always)]
unsafe fn lanes_rows<const N: usize, const S: u8, K: LaneMap<N>>(blk: &Block, k: K) {
    let (so, sa) = (blk.strides0[0], blk.strides0[1]);
    let sizes = [size_of::<K::Out>(), size_of::<K::In>()];
    let path = InnerLoop::of(blk.strides0, &sizes, 1);
    let n = blk.size0;
    for j in 0..blk.size1 {
        let (po, pa) = (blk.row(0, j), blk.row(1, j) as *const u8);
        // SAFETY: module invariants, every index `< size0`; the caller's guarantees for `S`.
        unsafe {
            match path {
                InnerLoop::Vectorized => {
                    lanes_row::<N, S, K>(k, po as *mut K::Out, pa as *const K::In, n)
                }
                _ if sa == 0 && n > 0 => {
                    // the one value, then copies of it
                    lanes_strided::<N, { block_stores::PLAIN }, K>(k, po, so, pa, 0, 1);
                    let v = get::<K::Out>(po, 0, so);
                    for i in 1..n {
                        put(po, i, so, v);
                    }
                }
                _ => lanes_strided::<N, S, K>(k, po, so, pa, sa, n),
            }
        }
    }
}

/// `out = k(a)` over a block (operands: out, a), every path in the widest vector copy
/// ([`lanes_rows`]). A contiguous output's whole lines are streamed when the walk streams the
/// block's output, a block's output is one line and the row is long ([`streams_row`]).
pub(crate) fn map1_lanes<const N: usize, K: LaneMap<N>>(blk: &Block, k: K) {
    let isa = Isa::widest();
    let streamed = N * size_of::<K::Out>() == LINE
        && blk.strides0[0] == size_of::<K::Out>() as isize
        && blk.strides0[1] != 0
        && streams_row::<K::Out>(blk.stream_out, blk.size0);
    if !streamed {
        // SAFETY: module invariants; plain stores.
        return in_copy!(isa, unsafe {
            lanes_rows::<N, { block_stores::PLAIN }, K>(blk, k)
        });
    }
    match isa.capability() {
        // SAFETY: module invariants; the output's rows are contiguous and a block's output
        // is one line on x86-64 (`streamed`), and this copy has AVX-512's stores.
        Capability::Avx512 => in_copy!(isa, unsafe {
            lanes_rows::<N, { block_stores::STREAM_AVX512 }, K>(blk, k)
        }),
        // SAFETY: as above, AVX2's stores.
        Capability::Avx2 => in_copy!(isa, unsafe {
            lanes_rows::<N, { block_stores::STREAM_AVX2 }, K>(blk, k)
        }),
        // SAFETY: as above, SSE2's stores (part of x86-64).
        Capability::Default => in_copy!(isa, unsafe {
            lanes_rows::<N, { block_stores::STREAM_SSE2 }, K>(blk, k)
        }),
    }
    fence_if(streamed);
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::exec::stores::MIN_STREAMED_ROW;

    /// `x·3 + 1` a lane at a time, on `N` lanes of `T`.
    #[derive(Clone, Copy)]
    struct Affine<T>(std::marker::PhantomData<T>);

    macro_rules! affine {
        ($t:ty, $n:expr) => {
            impl LaneMap<$n> for Affine<$t> {
                type In = $t;
                type Out = $t;
                #[inline(always)]
                fn block(&self, x: [$t; $n]) -> [$t; $n] {
                    x.map(|v| v * 3.0 + 1.0)
                }
            }
        };
    }
    affine!(f32, 16);
    affine!(f64, 8);

    /// Two rows of `n` elements from `skew` elements past a line boundary, streamed or not,
    /// from every `step`-th input element (1: contiguous rows; more: staged ones): every
    /// element `x·3 + 1`, the guards around the rows untouched.
    fn check<T, const N: usize>(n: usize, skew: usize, streamed: bool, step: usize)
    where
        T: Copy + PartialEq + std::fmt::Debug + From<u16>,
        Affine<T>: LaneMap<N, In = T, Out = T>,
    {
        const PAD: usize = 64; // elements of guard around the rows
        let w = size_of::<T>();
        let pitch = n + 2 * PAD;
        let guard = T::from(7777);
        // the output in u128s, aligned to 16 bytes; lines start every 64 / w elements
        let mut out = vec![0u128; (2 * pitch + 2 * PAD + 64) * w / 16 + 1];
        let line = (out.as_ptr() as usize).wrapping_neg() % 64 / w;
        let base = (out.as_mut_ptr() as *mut T).wrapping_add(line + PAD + skew);
        let first = base.wrapping_sub(PAD);
        for k in 0..2 * pitch {
            // SAFETY: inside `out`, which holds `line + 2·PAD + 64 + 2·pitch` Ts and more.
            unsafe { first.add(k).write(guard) };
        }
        let a: Vec<T> = (0..2 * pitch * step)
            .map(|i| T::from((i % 1000) as u16))
            .collect();
        let ptrs = [base as *mut u8, a.as_ptr() as *mut u8];
        let (row, row_a) = ((pitch * w) as isize, (pitch * step * w) as isize);
        let (strides0, strides1) = ([w as isize, (w * step) as isize], [row, row_a]);
        // SAFETY: two rows of `n` Ts `pitch` apart in both buffers; operand 0 the output.
        let blk =
            unsafe { Block::new(&ptrs, &strides0, &strides1, n, 2) }.streaming_output(streamed);
        map1_lanes::<N, _>(&blk, Affine::<T>(std::marker::PhantomData));
        let lane = |v: T| Affine::<T>(std::marker::PhantomData).block([v; N])[0];
        for k in 0..2 * pitch {
            // SAFETY: inside `out`, as above.
            let got = unsafe { first.add(k).read() };
            let at = k as isize - PAD as isize; // from row 0's first element
            let (j, i) = (
                at.div_euclid(pitch as isize),
                at.rem_euclid(pitch as isize) as usize,
            );
            let want = if at >= 0 && j < 2 && i < n {
                lane(a[(j as usize * pitch + i) * step])
            } else {
                guard
            };
            assert_eq!(
                got, want,
                "n {n} skew {skew} streamed {streamed} step {step} at {k}"
            );
        }
    }

    #[test]
    fn streamed_rows_give_the_plain_values() {
        for n_bytes in [
            64,
            MIN_STREAMED_ROW - 16,
            MIN_STREAMED_ROW,
            MIN_STREAMED_ROW + 48,
            13_000,
        ] {
            for skew in [0, 1, 5, 13] {
                for (streamed, step) in [(false, 1), (true, 1), (false, 3), (true, 2)] {
                    check::<f32, 16>(n_bytes / 4, skew, streamed, step);
                    check::<f64, 8>(n_bytes / 8, skew % 8, streamed, step);
                }
            }
        }
    }
}
