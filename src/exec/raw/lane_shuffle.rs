//! The permuting copy's few-way merges (`PermuteCopy::ways`: NCHW <-> NHWC of an RGB or RGBA
//! image, a (3, N) transpose) on CPUs without AVX-512's lane permutes, by byte shuffles
//! within 16-byte lanes: AVX2's `vpshufb` (both lanes of a register at once) and NEON's
//! `tbl`, which agree on the tables used here (each output byte is the lane's byte at the
//! table's index below 16, or zero for the index 0x80). Elements of 1, 2, 4 or 8 bytes all go
//! through the same byte tables, and the algorithm is written once, over [`Lanes`].
//!
//! A step takes two lanes of 16 bytes from each of the `k` ways:
//! - **deinterleave**: the lane's `16k` input bytes (`16 / w` elements of every column) in `k`
//!   registers; each output column's 16 bytes are the OR of one shuffle of each register that
//!   holds any of them;
//! - **interleave**: 16 bytes of each of the `k` input rows; each 16 bytes of the lane's
//!   output run are the OR of one shuffle of each row that has an element there.
//!
//! At most `k²` shuffles per `16k` bytes and lane, fewer for wider elements (a table that
//! selects nothing is skipped: 8-byte elements take at most two sources per output). The
//! elements past the last whole step are copied one by one. Raw memory: see the invariants in
//! [`super`].

use crate::exec::permute::MAX_WAYS;

/// Bytes of each way a step moves: two lanes of 16.
const STEP: usize = 32;

/// The shuffles of one merge (a width, `k` ways, a direction): output register `d` (of one
/// lane) is the OR over the sources `s` in `sources[d]` of source register `s` shuffled by
/// `shuffle[d][s]` (0x80: a zero byte, as both ISAs read it).
#[derive(Clone, Copy)]
struct Table {
    shuffle: [[[u8; 16]; MAX_WAYS]; MAX_WAYS],
    sources: [u8; MAX_WAYS],
}

/// The tables of one direction: `[log2 of the width][k - 2]`.
type Tables = [[Table; MAX_WAYS - 1]; 4];

/// Makes the tables at compile time (nothing is made per tile). Within a lane, interleaving,
/// output byte `o = 16d + b` of the lane's run is byte `o % w` of element `o / w`, which is
/// column `p = o / w / k` of row `o / w % k`: byte `p·w + o % w` of that row's register;
/// deinterleaving, byte `b` of column `d` is byte `b % w` of row `p = b / w`, input byte
/// `i = (p·k + d)·w + b % w` of the lane: byte `i % 16` of register `i / 16`.
const fn tables(interleaving: bool) -> Tables {
    const NONE: Table = Table {
        shuffle: [[[0x80; 16]; MAX_WAYS]; MAX_WAYS],
        sources: [0; MAX_WAYS],
    };
    let mut all = [[NONE; MAX_WAYS - 1]; 4];
    let mut log = 0;
    while log < 4 {
        let w = 1 << log;
        let mut k = 2;
        while k <= MAX_WAYS {
            let t = &mut all[log][k - 2];
            let mut d = 0;
            while d < k {
                let mut b = 0;
                while b < 16 {
                    let (src, at) = if interleaving {
                        let o = 16 * d + b;
                        let p = o / w / k;
                        (o / w % k, p * w + o % w)
                    } else {
                        let i = (b / w * k + d) * w + b % w;
                        (i / 16, i % 16)
                    };
                    t.shuffle[d][src][b] = at as u8;
                    t.sources[d] |= 1 << src;
                    b += 1;
                }
                d += 1;
            }
            k += 1;
        }
        log += 1;
    }
    all
}

static INTERLEAVE: Tables = tables(true);
static DEINTERLEAVE: Tables = tables(false);

/// The table for `width`-byte elements (1, 2, 4 or 8) and `k` ways.
fn table(all: &'static Tables, width: usize, k: usize) -> &'static Table {
    &all[width.trailing_zeros() as usize][k - 2]
}

/// Two 16-byte lanes in registers: what the merges need of a vector ISA. Only made inside a
/// copy compiled for it (the entry points below), so every method may use its instructions.
trait Lanes: Copy {
    /// Zero bytes.
    fn zero() -> Self;
    /// 32 bytes at `p`.
    ///
    /// # Safety
    /// 32 readable bytes at `p`.
    unsafe fn load(p: *const u8) -> Self;
    /// The low lane from `lo`, the high one from `hi` (16 bytes each).
    ///
    /// # Safety
    /// 16 readable bytes at each.
    unsafe fn load_lanes(lo: *const u8, hi: *const u8) -> Self;
    /// The same 16 bytes at `p` in both lanes (a shuffle table).
    ///
    /// # Safety
    /// 16 readable bytes at `p`.
    unsafe fn table(p: *const u8) -> Self;
    /// `self | x` shuffled by `table` within each lane.
    fn or_shuffled(self, x: Self, table: Self) -> Self;
    /// Stores 32 bytes at `p`, streamed (non-temporal) where the ISA can.
    ///
    /// # Safety
    /// 32 writable bytes at `p`, 32-byte aligned when `stream`.
    unsafe fn store(self, p: *mut u8, stream: bool);
    /// Stores the low lane at `lo` and the high one at `hi`, streamed where the ISA can.
    ///
    /// # Safety
    /// 16 writable bytes at each, 16-byte aligned when `stream`.
    unsafe fn store_lanes(self, lo: *mut u8, hi: *mut u8, stream: bool);
}

/// Output register `d` of a step from the sources `x` ([`Table`]). With the table a constant
/// (`W` and `K` are), the test of each source and the tables' addresses fold away.
#[inline(always)]
fn merged<V: Lanes, const K: usize>(t: &Table, d: usize, x: &[V; K]) -> V {
    let mut y = V::zero();
    for (s, &source) in x.iter().enumerate() {
        if t.sources[d] & (1 << s) != 0 {
            // SAFETY: a table is 16 readable bytes.
            let shuffle = unsafe { V::table(t.shuffle[d][s].as_ptr()) };
            y = y.or_shuffled(source, shuffle);
        }
    }
    y
}

/// [`interleave`] over the ISA `V`, for `W`-byte elements and `K` ways: compiled for each,
/// so that the loops over the ways unroll and the tables are constants (with `k` and the
/// sources read at run time the registers lived on the stack, and NCHW <-> NHWC of 3
/// float32 channels ran 2.1-4.2x slower on the 2-core Zen 3).
///
/// # Safety
/// As [`interleave`]; `V`'s instructions run on this CPU.
#[inline(always)]
unsafe fn interleave_in<V: Lanes, const W: usize, const K: usize>(
    rows: &[*const u8; MAX_WAYS],
    n: usize,
    out: *mut u8,
    stream: bool,
    next: &[*const u8; MAX_WAYS],
) {
    let t = table(&INTERLEAVE, W, K);
    let per = STEP / W;
    let mut x = [V::zero(); K];
    let mut c = 0;
    while c + per <= n {
        for (r, slot) in x.iter_mut().enumerate() {
            super::prefetch_line(next[r].wrapping_add(W * c));
            // SAFETY: row r, columns c..c + per (c + per <= n).
            *slot = unsafe { V::load(rows[r].wrapping_add(W * c)) };
        }
        // the step's 2K·16 output bytes: the low lanes' K registers, then the high ones'
        let at = out.wrapping_add(W * c * K);
        for d in 0..K {
            let y = merged(t, d, &x);
            // SAFETY: output elements c·K .. (c + per)·K, columns c..c + per of the tile; 16-
            // byte aligned when streaming (`out` is 64-byte aligned then, and W·c·K a
            // multiple of 32).
            unsafe {
                y.store_lanes(
                    at.wrapping_add(16 * d),
                    at.wrapping_add(16 * (K + d)),
                    stream,
                )
            };
        }
        c += per;
    }
    for c in c..n {
        for (r, &row) in rows.iter().enumerate().take(K) {
            // SAFETY: row r's column c and output element c·K + r, inside both sides.
            unsafe {
                std::ptr::copy_nonoverlapping(
                    row.wrapping_add(W * c),
                    out.wrapping_add(W * (c * K + r)),
                    W,
                )
            };
        }
    }
}

/// [`deinterleave`] over the ISA `V`, for `W`-byte elements and `K` ways (see
/// [`interleave_in`]).
///
/// # Safety
/// As [`deinterleave`]; `V`'s instructions run on this CPU.
#[inline(always)]
unsafe fn deinterleave_in<V: Lanes, const W: usize, const K: usize>(
    inp: *const u8,
    n: usize,
    cols: &[*mut u8; MAX_WAYS],
    stream: bool,
) {
    let t = table(&DEINTERLEAVE, W, K);
    let per = STEP / W;
    let mut x = [V::zero(); K];
    let mut r = 0;
    while r + per <= n {
        // the step's input: rows r..r + per, the low lane's 16K bytes then the high one's
        let from = inp.wrapping_add(W * r * K);
        for (s, slot) in x.iter_mut().enumerate() {
            // SAFETY: input bytes of rows r..r + per (r + per <= n).
            *slot = unsafe {
                V::load_lanes(from.wrapping_add(16 * s), from.wrapping_add(16 * (K + s)))
            };
        }
        for (d, &col) in cols.iter().enumerate().take(K) {
            let y = merged(t, d, &x);
            // SAFETY: column d, rows r..r + per of the tile; 32-byte aligned when streaming
            // (`col` is 64-byte aligned then, and W·r a multiple of 32).
            unsafe { y.store(col.wrapping_add(W * r), stream) };
        }
        r += per;
    }
    for r in r..n {
        for (d, &col) in cols.iter().enumerate().take(K) {
            // SAFETY: input element r·K + d and column d's row r, inside both sides.
            unsafe {
                std::ptr::copy_nonoverlapping(
                    inp.wrapping_add(W * (r * K + d)),
                    col.wrapping_add(W * r),
                    W,
                )
            };
        }
    }
}

/// `$body` with the constants `$w` and `$k` set to `width` and `k` (elements of 1, 2, 4 or
/// 8 bytes, 2 to `permute::shuffled_ways(width)` ways): one compiled copy of the merges per
/// pair.
macro_rules! for_shape {
    ($width:expr, $ways:expr, $w:ident, $k:ident => $body:expr) => {
        for_shape!(@pairs ($width, $ways), $w, $k, $body,
            (1, 2) (1, 3) (1, 4) (1, 5) (1, 6) (1, 7) (1, 8)
            (2, 2) (2, 3) (2, 4) (2, 5) (2, 6) (2, 7)
            (4, 2) (4, 3) (4, 4) (4, 5)
            (8, 2) (8, 3) (8, 4) (8, 5))
    };
    (@pairs $shape:expr, $w:ident, $k:ident, $body:expr, $(($wv:literal, $kv:literal))*) => {
        match $shape {
            $(($wv, $kv) => {
                const $w: usize = $wv;
                const $k: usize = $kv;
                $body
            })*
            (width, ways) => unreachable!("no merge of {ways} ways of {width}-byte elements"),
        }
    };
}

/// Interleaves `k` rows (`2 <= k <= shuffled_ways(width)`) of `n` elements of `width` bytes:
/// element `(r, c)` from `rows[r] + width·c` to `out + width·(c·k + r)`; streamed where `stream`
/// and the ISA can (the caller checked `out` 64-byte aligned then, and fences afterwards). The next
/// tile's rows (`next[r] + width·c`, only prefetched) are asked for as this tile's are read (see
/// `interleave::interleave`).
///
/// # Safety
/// Those addresses are valid for `width` bytes for every `r < k`, `c < n` (readable,
/// writable), the two sides do not overlap; `cpu::byte_shuffles(width)` holds.
pub(super) unsafe fn interleave(
    width: usize,
    rows: &[*const u8; MAX_WAYS],
    k: usize,
    n: usize,
    out: *mut u8,
    stream: bool,
    next: &[*const u8; MAX_WAYS],
) {
    debug_assert!(crate::exec::cpu::byte_shuffles(width));
    // SAFETY: the caller's guarantees; `byte_shuffles` found the ISA.
    for_shape!(width, k, W, K => unsafe {
        #[cfg(target_arch = "x86_64")]
        x86::interleave::<W, K>(rows, n, out, stream, next);
        #[cfg(target_arch = "aarch64")]
        interleave_in::<arm::Neon, W, K>(rows, n, out, stream, next);
    })
}

/// Deinterleaves `n` rows of `k` elements of `width` bytes (`2 <= k <= shuffled_ways(width)`):
/// element `(r, c)` from `inp + width·(r·k + c)` to `cols[c] + width·r`; streamed where
/// `stream` and the ISA can (the caller checked every `cols[c]` 64-byte aligned then, and
/// fences afterwards).
///
/// # Safety
/// Those addresses are valid for `width` bytes for every `r < n`, `c < k` (readable,
/// writable), the two sides do not overlap; `cpu::byte_shuffles(width)` holds.
pub(super) unsafe fn deinterleave(
    width: usize,
    inp: *const u8,
    k: usize,
    n: usize,
    cols: &[*mut u8; MAX_WAYS],
    stream: bool,
) {
    debug_assert!(crate::exec::cpu::byte_shuffles(width));
    // SAFETY: the caller's guarantees; `byte_shuffles` found the ISA.
    for_shape!(width, k, W, K => unsafe {
        #[cfg(target_arch = "x86_64")]
        x86::deinterleave::<W, K>(inp, n, cols, stream);
        #[cfg(target_arch = "aarch64")]
        deinterleave_in::<arm::Neon, W, K>(inp, n, cols, stream);
    })
}

#[cfg(target_arch = "x86_64")]
mod x86 {
    use super::{Lanes, MAX_WAYS};
    use std::arch::x86_64::*;

    /// An AVX2 register: two lanes.
    #[derive(Clone, Copy)]
    pub(super) struct Avx2(__m256i);

    // SAFETY (every block below): an `Avx2` is only made inside the AVX2 copies below, which
    // run only where `cpu::avx2()` found AVX2; pointers as each method's contract states.
    impl Lanes for Avx2 {
        #[inline(always)]
        fn zero() -> Self {
            // SAFETY: see above.
            Avx2(unsafe { _mm256_setzero_si256() })
        }
        #[inline(always)]
        unsafe fn load(p: *const u8) -> Self {
            // SAFETY: see above.
            Avx2(unsafe { _mm256_loadu_si256(p as *const __m256i) })
        }
        #[inline(always)]
        unsafe fn load_lanes(lo: *const u8, hi: *const u8) -> Self {
            // SAFETY: see above.
            Avx2(unsafe { _mm256_loadu2_m128i(hi as *const __m128i, lo as *const __m128i) })
        }
        #[inline(always)]
        unsafe fn table(p: *const u8) -> Self {
            // SAFETY: see above.
            Avx2(unsafe { _mm256_broadcastsi128_si256(_mm_loadu_si128(p as *const __m128i)) })
        }
        #[inline(always)]
        fn or_shuffled(self, x: Self, table: Self) -> Self {
            // SAFETY: see above.
            Avx2(unsafe { _mm256_or_si256(self.0, _mm256_shuffle_epi8(x.0, table.0)) })
        }
        #[inline(always)]
        unsafe fn store(self, p: *mut u8, stream: bool) {
            // SAFETY: see above.
            unsafe {
                if stream {
                    _mm256_stream_si256(p as *mut __m256i, self.0)
                } else {
                    _mm256_storeu_si256(p as *mut __m256i, self.0)
                }
            }
        }
        #[inline(always)]
        unsafe fn store_lanes(self, lo: *mut u8, hi: *mut u8, stream: bool) {
            // SAFETY: see above.
            unsafe {
                let (l, h) = (
                    _mm256_castsi256_si128(self.0),
                    _mm256_extracti128_si256::<1>(self.0),
                );
                if stream {
                    _mm_stream_si128(lo as *mut __m128i, l);
                    _mm_stream_si128(hi as *mut __m128i, h);
                } else {
                    _mm_storeu_si128(lo as *mut __m128i, l);
                    _mm_storeu_si128(hi as *mut __m128i, h);
                }
            }
        }
    }

    /// [`super::interleave`] compiled for AVX2, for `W`-byte elements and `K` ways.
    ///
    /// # Safety
    /// As there.
    #[target_feature(enable = "avx2")]
    pub(super) unsafe fn interleave<const W: usize, const K: usize>(
        rows: &[*const u8; MAX_WAYS],
        n: usize,
        out: *mut u8,
        stream: bool,
        next: &[*const u8; MAX_WAYS],
    ) {
        // SAFETY: the caller's guarantees, and this copy runs AVX2.
        unsafe { super::interleave_in::<Avx2, W, K>(rows, n, out, stream, next) }
    }

    /// [`super::deinterleave`] compiled for AVX2, for `W`-byte elements and `K` ways.
    ///
    /// # Safety
    /// As there.
    #[target_feature(enable = "avx2")]
    pub(super) unsafe fn deinterleave<const W: usize, const K: usize>(
        inp: *const u8,
        n: usize,
        cols: &[*mut u8; MAX_WAYS],
        stream: bool,
    ) {
        // SAFETY: the caller's guarantees, and this copy runs AVX2.
        unsafe { super::deinterleave_in::<Avx2, W, K>(inp, n, cols, stream) }
    }
}

#[cfg(target_arch = "aarch64")]
mod arm {
    use super::Lanes;
    use std::arch::aarch64::*;

    /// Two NEON registers, one per lane (NEON is part of every aarch64 CPU).
    #[derive(Clone, Copy)]
    pub(super) struct Neon(uint8x16_t, uint8x16_t);

    // SAFETY (every block below): NEON is always present on aarch64; pointers as each
    // method's contract states. NEON has no non-temporal stores here: `stream` is ignored.
    impl Lanes for Neon {
        #[inline(always)]
        fn zero() -> Self {
            // SAFETY: see above.
            unsafe { Neon(vdupq_n_u8(0), vdupq_n_u8(0)) }
        }
        #[inline(always)]
        unsafe fn load(p: *const u8) -> Self {
            // SAFETY: see above.
            unsafe { Neon(vld1q_u8(p), vld1q_u8(p.wrapping_add(16))) }
        }
        #[inline(always)]
        unsafe fn load_lanes(lo: *const u8, hi: *const u8) -> Self {
            // SAFETY: see above.
            unsafe { Neon(vld1q_u8(lo), vld1q_u8(hi)) }
        }
        #[inline(always)]
        unsafe fn table(p: *const u8) -> Self {
            // SAFETY: see above.
            unsafe {
                let t = vld1q_u8(p);
                Neon(t, t)
            }
        }
        #[inline(always)]
        fn or_shuffled(self, x: Self, table: Self) -> Self {
            // SAFETY: see above. `tbl` gives zero for indices past 15 (0x80 included), as
            // `vpshufb` does for indices with the top bit set.
            unsafe {
                Neon(
                    vorrq_u8(self.0, vqtbl1q_u8(x.0, table.0)),
                    vorrq_u8(self.1, vqtbl1q_u8(x.1, table.1)),
                )
            }
        }
        #[inline(always)]
        unsafe fn store(self, p: *mut u8, _stream: bool) {
            // SAFETY: see above.
            unsafe {
                vst1q_u8(p, self.0);
                vst1q_u8(p.wrapping_add(16), self.1);
            }
        }
        #[inline(always)]
        unsafe fn store_lanes(self, lo: *mut u8, hi: *mut u8, _stream: bool) {
            // SAFETY: see above.
            unsafe {
                vst1q_u8(lo, self.0);
                vst1q_u8(hi, self.1);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every width and way count, lengths around the step (tails of every size), against the
    /// element-by-element definition; both directions, streamed into aligned outputs too.
    #[test]
    fn merges_match_the_element_loop() {
        let ran = crate::exec::cpu::test_runs("avx2", crate::exec::cpu::byte_shuffles(1));
        if !ran {
            return;
        }
        #[repr(align(64))]
        struct Aligned([u8; 8 * 8 * 200]);
        for width in [1, 2, 4, 8] {
            for k in 2..=crate::exec::permute::shuffled_ways(width) {
                for n in [1, 15, 31, 32, 33, 64, 100, 129, 200] {
                    let total = n * k * width;
                    let src: Vec<u8> = (0..total).map(|i| (i * 7 + 3) as u8).collect();
                    for stream in [false, true] {
                        // interleave: k rows of n elements into one run
                        let mut out = Box::new(Aligned([0; 8 * 8 * 200]));
                        let rows: [*const u8; MAX_WAYS] = std::array::from_fn(|r| {
                            src.as_ptr().wrapping_add(r.min(k - 1) * n * width)
                        });
                        // SAFETY: rows r < k of n elements inside `src`, an output of n·k
                        // elements inside `out` (64-byte aligned), apart; `byte_shuffles` holds.
                        unsafe {
                            interleave(width, &rows, k, n, out.0.as_mut_ptr(), stream, &rows)
                        };
                        if stream {
                            fence();
                        }
                        for c in 0..n {
                            for r in 0..k {
                                let (o, i) = (width * (c * k + r), (r * n + c) * width);
                                assert_eq!(
                                    out.0[o..o + width],
                                    src[i..i + width],
                                    "interleave w {width} k {k} n {n} ({r}, {c})"
                                );
                            }
                        }
                        // deinterleave: one run of n·k elements into k columns of n
                        let mut cols_out = Box::new(Aligned([0; 8 * 8 * 200]));
                        let stride = n * width;
                        let base = cols_out.0.as_mut_ptr();
                        let cols: [*mut u8; MAX_WAYS] = std::array::from_fn(|c| {
                            base.wrapping_add(c.min(k - 1) * stride.next_multiple_of(64))
                        });
                        // SAFETY: the input's n·k elements inside `src`, column c < k of n
                        // elements inside `cols_out`, each 64-byte aligned; `byte_shuffles` holds.
                        unsafe { deinterleave(width, src.as_ptr(), k, n, &cols, stream) };
                        if stream {
                            fence();
                        }
                        for r in 0..n {
                            for c in 0..k {
                                let (o, i) = (
                                    c * stride.next_multiple_of(64) + width * r,
                                    width * (r * k + c),
                                );
                                assert_eq!(
                                    cols_out.0[o..o + width],
                                    src[i..i + width],
                                    "deinterleave w {width} k {k} n {n} ({r}, {c})"
                                );
                            }
                        }
                    }
                }
            }
        }
    }

    /// Orders the streamed stores before the checks read them back.
    fn fence() {
        std::sync::atomic::fence(std::sync::atomic::Ordering::SeqCst);
    }
}
