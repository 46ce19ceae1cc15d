//! Contiguous copies and float conversions for rows that are mostly memory traffic: large
//! copies write whole cache lines with non-temporal stores (a plain store first reads the
//! line it writes, a third of a copy's traffic, and evicts cached data the copy never reads
//! again), and float32 → float16 converts eight lanes per F16C instruction instead of the
//! dozen integer operations of the portable conversion. The typed loops' long output rows
//! stream too ([`staged_rows`]), computed by their own loops into a scratch first, and the
//! vector math rows a block of one line at a time ([`stream_line`]).
//!
//! Each function handles a block only when its rows are contiguous (torch's vectorized path)
//! and answers `false` otherwise; the caller then runs the generic loop. Results are the
//! same bits as the generic loops': moving bytes is exact, F16C rounds to nearest even and
//! quiets NaNs keeping sign and payload top as [`f32_to_f16_bits`] does, and `cvtps2pd` is
//! the instruction `as f64` compiles to. Raw memory: see the invariants in [`super`].
//!
//! Streamed stores bypass the ordering of ordinary stores, so every block that streamed ends
//! with `sfence` before its function returns (once, after the block's last row: [`fence_if`]
//! for the typed loops' rows): the pool's release of a finished chunk then publishes them
//! like any other store.

#[cfg(target_arch = "x86_64")]
use super::isa::in_copy;
use super::isa::Isa;
#[cfg(target_arch = "x86_64")]
use super::pack::Line;
use super::Block;
use crate::exec::stores::MIN_STREAMED_ROW;
use crate::exec::InnerLoop;
#[cfg(target_arch = "x86_64")]
use crate::kernels::halfconv::f32_to_f16_bits;
use std::mem::size_of;

/// A cache line: streamed stores fill whole lines.
pub(super) const LINE: usize = 64;

/// Elements of `O` from `o` to the first line boundary at or after it (at most `n`): the
/// head of a streamed row, stored plainly. `o` is aligned to `O`, whose size divides a line.
#[inline(always)]
pub(super) fn before_first_line<O>(o: *const O, n: usize) -> usize {
    ((o as usize).wrapping_neg() % LINE / size_of::<O>()).min(n)
}

/// Whether every operand of the block (out, src) steps by its element size along dim 0.
fn contiguous(blk: &Block, out_width: usize, src_width: usize) -> bool {
    InnerLoop::of(blk.strides0, &[out_width, src_width], 1) == InnerLoop::Vectorized
}

/// Whether the byte ranges `[a, a + len_a)` and `[b, b + len_b)` overlap.
#[cfg(target_arch = "x86_64")]
fn overlap(a: *const u8, len_a: usize, b: *const u8, len_b: usize) -> bool {
    let (a, b) = (a as usize, b as usize);
    a < b + len_b && b < a + len_a
}

/// Copies the block's rows of `width`-byte elements with non-temporal stores of whole
/// cache lines (SSE2, which every x86-64 has); `false` (nothing done) when the rows are not
/// contiguous, the operands overlap, or the CPU is not x86-64.
pub(crate) fn copy_streamed(blk: &Block, width: usize) -> bool {
    if !contiguous(blk, width, width) {
        return false;
    }
    #[cfg(target_arch = "x86_64")]
    {
        let len = blk.size0 * width;
        let rows = (0..blk.size1).map(|j| (blk.row(0, j), blk.row(1, j) as *const u8));
        if rows.clone().any(|(d, s)| overlap(d, len, s, len)) {
            return false;
        }
        let ahead = super::loops::rows_ahead(len, blk.strides1[1], blk.size1);
        for (j, (dst, src)) in rows.enumerate() {
            super::loops::prefetch_row_ahead(blk, 1, ahead, j, len);
            // SAFETY: module invariants: both rows hold `size0` contiguous elements of
            // `width` bytes (checked above), which do not overlap (checked above).
            unsafe { stream_bytes(dst, src, len) };
        }
        super::transpose::fence();
        true
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        false
    }
}

/// `len` bytes from `src` to `dst`: the part before `dst`'s first line boundary and the
/// part after its last one with `copy_nonoverlapping`, whole lines with four 16-byte
/// streamed stores each. Inlined, so that a caller compiled for AVX gets them VEX-encoded
/// (see [`staged_rows`]).
///
/// # Safety
/// `src` readable and `dst` writable for `len` bytes, not overlapping.
#[cfg(target_arch = "x86_64")]
#[inline(always)]
pub(super) unsafe fn stream_bytes(dst: *mut u8, src: *const u8, len: usize) {
    use std::ptr::copy_nonoverlapping;
    let head = (dst as usize).wrapping_neg() % LINE;
    if len < head + LINE {
        // SAFETY: the caller's guarantee.
        unsafe { copy_nonoverlapping(src, dst, len) };
        return;
    }
    // SAFETY: `head + LINE <= len`, so every access below stays inside the `len` bytes; the
    // streamed addresses `dst + i` are line-aligned (`i` starts at `dst`'s boundary).
    unsafe {
        copy_nonoverlapping(src, dst, head);
        let mut i = head;
        while i + LINE <= len {
            stream_line128(dst.add(i), src.add(i));
            i += LINE;
        }
        copy_nonoverlapping(src.add(i), dst.add(i), len - i);
    }
}

/// [`stream_bytes`] where there are no streamed stores: a plain copy.
///
/// # Safety
/// As for the x86-64 version.
#[cfg(not(target_arch = "x86_64"))]
#[inline(always)]
pub(super) unsafe fn stream_bytes(dst: *mut u8, src: *const u8, len: usize) {
    // SAFETY: the caller's guarantee.
    unsafe { std::ptr::copy_nonoverlapping(src, dst, len) };
}

/// One cache line from `src` to `dst` (line-aligned) with non-temporal stores: one 64-byte
/// store (`S` = AVX-512), two of 32 bytes (AVX2) or four of 16 (SSE2). For the vector math
/// rows ([`super::lanes`]), whose blocks are one line each: streamed as computed, with no
/// scratch to take turns with.
///
/// # Safety
/// `src` readable and `dst` writable for 64 bytes, `dst` line-aligned; the CPU has `S`'s
/// stores (called from the copy compiled for them, where they inline).
#[cfg(target_arch = "x86_64")]
#[inline(always)]
pub(super) unsafe fn stream_line<const S: u8>(dst: *mut u8, src: *const u8) {
    use super::lanes::block_stores::{STREAM_AVX2, STREAM_AVX512};
    // SAFETY: the caller's guarantees.
    unsafe {
        match S {
            STREAM_AVX512 => stream_line512(dst, src),
            STREAM_AVX2 => stream_line256(dst, src),
            _ => stream_line128(dst, src),
        }
    }
}

/// [`stream_line`] in four SSE2 stores (every x86-64 has them; VEX-encoded where inlined into
/// an AVX copy).
///
/// # Safety
/// `src` readable and `dst` writable for 64 bytes, `dst` line-aligned.
#[cfg(target_arch = "x86_64")]
#[inline(always)]
unsafe fn stream_line128(dst: *mut u8, src: *const u8) {
    use std::arch::x86_64::*;
    let (s, d) = (src as *const __m128i, dst as *mut __m128i);
    // SAFETY: the caller's guarantees; the four loads come before the four stores, so the
    // copy is the same when the ranges meet.
    unsafe {
        let (a, b, c, e) = (
            _mm_loadu_si128(s),
            _mm_loadu_si128(s.add(1)),
            _mm_loadu_si128(s.add(2)),
            _mm_loadu_si128(s.add(3)),
        );
        _mm_stream_si128(d, a);
        _mm_stream_si128(d.add(1), b);
        _mm_stream_si128(d.add(2), c);
        _mm_stream_si128(d.add(3), e);
    }
}

/// The other targets: plain stores (nothing streams there: [`streams_row`]).
///
/// # Safety
/// `src` readable and `dst` writable for 64 bytes, not overlapping.
#[cfg(not(target_arch = "x86_64"))]
#[inline(always)]
pub(super) unsafe fn stream_line<const S: u8>(dst: *mut u8, src: *const u8) {
    // SAFETY: the caller's guarantee.
    unsafe { std::ptr::copy_nonoverlapping(src, dst, LINE) };
}

/// [`stream_line`] in one AVX-512 store.
///
/// # Safety
/// As [`stream_line`]'s; the CPU has AVX-512F.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx512f")]
#[inline]
unsafe fn stream_line512(dst: *mut u8, src: *const u8) {
    use std::arch::x86_64::*;
    // SAFETY: the caller's guarantees.
    unsafe {
        _mm512_stream_si512(
            dst as *mut __m512i,
            _mm512_loadu_si512(src as *const __m512i),
        )
    };
}

/// [`stream_line`] in two AVX stores.
///
/// # Safety
/// As [`stream_line`]'s; the CPU has AVX.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx")]
#[inline]
unsafe fn stream_line256(dst: *mut u8, src: *const u8) {
    use std::arch::x86_64::*;
    let (s, d) = (src as *const __m256i, dst as *mut __m256i);
    // SAFETY: the caller's guarantees.
    unsafe {
        _mm256_stream_si256(d, _mm256_loadu_si256(s));
        _mm256_stream_si256(d.add(1), _mm256_loadu_si256(s.add(1)));
    }
}

/// Whether a row of `n` `O`s in a block that streams its output (`stream`, see
/// [`crate::exec::stores::elementwise_streams`]) is streamed ([`staged_rows`] in the typed
/// loops, [`stream_line`] in the vector math ones): at least [`MIN_STREAMED_ROW`] bytes, of
/// elements that tile a line, on x86-64.
#[inline(always)]
pub(super) fn streams_row<O>(stream: bool, n: usize) -> bool {
    let width = size_of::<O>();
    cfg!(target_arch = "x86_64")
        && stream
        && width > 0
        && LINE.is_multiple_of(width)
        && n.saturating_mul(width) >= MIN_STREAMED_ROW
}

/// Lines of scratch a streamed row is computed into at a time: the kernel's loop and the
/// streamed stores take turns, and short turns keep the memory busy with both (1 thread,
/// 16M-element float32 `out=` adds: 16 lines 1.17-1.26x the plain stores' speed, 64 lines
/// 1.10-1.14x, 256 lines 1.16x).
#[cfg(target_arch = "x86_64")]
const STAGE_LINES: usize = 16;

/// A row of `n` `O`s at `o` written by `fill(dst, start, count)`, which must write the row's
/// elements `start..start + count` to `dst[..count]`: the elements before `o`'s first line
/// boundary in place, the rest into a scratch of [`STAGE_LINES`] lines at a time and streamed
/// out from there ([`stream_bytes`]: whole lines, the last partial one plainly); the caller
/// fences after the block's last row ([`fence_if`]).
/// The kernels' own loops compute every element, so the values are theirs; only the stores
/// change.
///
/// The streamed stores run in `isa`'s copy, VEX-encoded after a kernel's AVX loop: legacy
/// SSE stores right after a loop that left the upper halves of the vector registers in use
/// cost a transition (float64 → float32 casts of 1M elements ran at 0.46x the plain stores'
/// speed so, 1.12x VEX-encoded).
///
/// # Safety
/// `o` addresses `n` writable, aligned `O`s, and `fill` is sound for every `start + count <=
/// n` with `dst` addressing `count` writable, aligned `O`s; `size_of::<O>()` divides 64
/// ([`streams_row`]).
#[inline(always)]
pub(super) unsafe fn staged_rows<O>(
    isa: Isa,
    o: *mut O,
    n: usize,
    mut fill: impl FnMut(*mut O, usize, usize),
) {
    #[cfg(target_arch = "x86_64")]
    {
        let mut stage = std::mem::MaybeUninit::<[Line; STAGE_LINES]>::uninit();
        let (scratch, width) = (stage.as_mut_ptr() as *mut O, size_of::<O>());
        let per_stage = STAGE_LINES * LINE / width;
        // elements before o's first line boundary (o is aligned to `width`, which divides a line)
        let head = before_first_line(o, n);
        fill(o, 0, head);
        let mut i = head;
        while i < n {
            let count = per_stage.min(n - i);
            fill(scratch, i, count);
            let (dst, src) = (o.wrapping_add(i) as *mut u8, scratch as *const u8);
            // SAFETY: `fill` wrote `count` elements of the scratch (which holds `per_stage`
            // of them, aligned: a line is a multiple of `width`); they go to `o[i..i +
            // count]`, inside the caller's `n`, which a local scratch cannot overlap.
            in_copy!(isa, unsafe { stream_bytes(dst, src, count * width) });
            i += count;
        }
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        let _ = isa;
        fill(o, 0, n);
    }
}

/// Orders the streamed stores of a block's rows before the block returns (see the module
/// doc): the typed loops stream row after row ([`staged_rows`], the vector math rows) and
/// fence once, after the block's last row, when `streamed`. (A fence per row stalled each
/// row's end on its last lines reaching memory: the per-channel bias add of a (16, 64, 56,
/// 56) float32 image, 1024 rows of 12.5 KiB, ran at 0.8x the speed of one long row.)
#[inline(always)]
pub(super) fn fence_if(streamed: bool) {
    // (`fence` is empty where there are no streamed stores)
    if streamed {
        super::transpose::fence();
    }
}

/// float32 → float16 over the block with F16C, streamed when `stream`; `false` (nothing
/// done) when the rows are not contiguous or the CPU lacks AVX2/FMA/F16C.
pub(crate) fn f32_to_f16_rows(blk: &Block, stream: bool) -> bool {
    #[cfg(target_arch = "x86_64")]
    if super::wide() && contiguous(blk, 2, 4) {
        for j in 0..blk.size1 {
            let (dst, src) = (blk.row(0, j) as *mut u16, blk.row(1, j) as *const f32);
            // SAFETY: module invariants: `size0` contiguous elements per row (checked
            // above); `wide()` says the CPU has F16C and AVX2.
            unsafe { f16_row_f16c(dst, src, blk.size0, stream) };
        }
        if stream {
            super::transpose::fence();
        }
        return true;
    }
    let _ = (blk, stream);
    false
}

/// One row of float32 → float16, sixteen lanes (32 output bytes) per step; the elements
/// before the first 32-byte boundary of `dst` (when streaming) and after the last full step
/// convert one at a time. Inputs and outputs may alias exactly (reads precede writes).
///
/// # Safety
/// `src` readable and `dst` writable for `n` elements; the CPU has AVX2 and F16C.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2,fma,f16c")]
unsafe fn f16_row_f16c(dst: *mut u16, src: *const f32, n: usize, stream: bool) {
    use std::arch::x86_64::*;
    let head = if stream {
        ((dst as usize).wrapping_neg() % 32 / 2).min(n)
    } else {
        0
    };
    // SAFETY: every index below is `< n` (the caller's guarantee covers it); streamed stores
    // start at `dst + head`, which is 32-byte aligned, and step by 32 bytes.
    unsafe {
        for i in 0..head {
            dst.add(i).write(f32_to_f16_bits(src.add(i).read()));
        }
        let mut i = head;
        while i + 16 <= n {
            let lo = _mm256_cvtps_ph::<_MM_FROUND_TO_NEAREST_INT>(_mm256_loadu_ps(src.add(i)));
            let hi = _mm256_cvtps_ph::<_MM_FROUND_TO_NEAREST_INT>(_mm256_loadu_ps(src.add(i + 8)));
            let both = _mm256_set_m128i(hi, lo);
            let d = dst.add(i) as *mut __m256i;
            if stream {
                _mm256_stream_si256(d, both);
            } else {
                _mm256_storeu_si256(d, both);
            }
            i += 16;
        }
        for k in i..n {
            dst.add(k).write(f32_to_f16_bits(src.add(k).read()));
        }
    }
}

/// float32 → float64 over the block with streamed stores (SSE2); `false` (nothing done) when
/// the rows are not contiguous, the operands overlap, or the CPU is not x86-64. (Without
/// streaming the generic loop is as fast: the compiler vectorizes it.)
pub(crate) fn f32_to_f64_streamed(blk: &Block) -> bool {
    if !contiguous(blk, 8, 4) {
        return false;
    }
    #[cfg(target_arch = "x86_64")]
    {
        let n = blk.size0;
        let rows = (0..blk.size1).map(|j| (blk.row(0, j), blk.row(1, j) as *const u8));
        if rows.clone().any(|(d, s)| overlap(d, n * 8, s, n * 4)) {
            return false;
        }
        for (dst, src) in rows {
            // SAFETY: module invariants: `size0` contiguous elements per row (checked above),
            // not overlapping (checked above).
            unsafe { f64_row_streamed(dst as *mut f64, src as *const f32, n) };
        }
        super::transpose::fence();
        true
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        false
    }
}

/// One row of float32 → float64: elements before `dst`'s first line boundary and after the
/// last whole line one at a time, each line (eight results) with four streamed stores.
///
/// # Safety
/// `src` readable and `dst` writable for `n` elements, not overlapping.
#[cfg(target_arch = "x86_64")]
unsafe fn f64_row_streamed(dst: *mut f64, src: *const f32, n: usize) {
    use std::arch::x86_64::*;
    let head = ((dst as usize).wrapping_neg() % LINE / 8).min(n);
    // SAFETY: every index below is `< n`; streamed stores start at a line boundary of `dst`
    // (`head` elements in) and fill whole lines.
    unsafe {
        for i in 0..head {
            dst.add(i).write(src.add(i).read() as f64);
        }
        let mut i = head;
        while i + 8 <= n {
            let (lo, hi) = (_mm_loadu_ps(src.add(i)), _mm_loadu_ps(src.add(i + 4)));
            let d = dst.add(i);
            _mm_stream_pd(d, _mm_cvtps_pd(lo));
            _mm_stream_pd(d.add(2), _mm_cvtps_pd(_mm_movehl_ps(lo, lo)));
            _mm_stream_pd(d.add(4), _mm_cvtps_pd(hi));
            _mm_stream_pd(d.add(6), _mm_cvtps_pd(_mm_movehl_ps(hi, hi)));
            i += 8;
        }
        for k in i..n {
            dst.add(k).write(src.add(k).read() as f64);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::kernels::halfconv::probe_patterns;

    /// The float16 conversion probes (rounding halfway points of every exponent, NaNs,
    /// subnormals, zeros) and a pseudo-random sweep.
    fn patterns() -> Vec<f32> {
        probe_patterns(20_000)
            .into_iter()
            .map(f32::from_bits)
            .collect()
    }

    /// A one-row block over `out` and `src` starting `skip` elements in.
    fn with_block<O, S>(out: &mut [O], src: &[S], skip: usize, n: usize, f: impl Fn(&Block)) {
        let ptrs = [
            out[skip..].as_mut_ptr() as *mut u8,
            src[skip..].as_ptr() as *mut u8,
        ];
        let strides0 = [size_of::<O>() as isize, size_of::<S>() as isize];
        // SAFETY: both slices hold at least `skip + n` elements (callers' sizes).
        let blk = unsafe { Block::new(&ptrs, &strides0, &[0, 0], n, 1) };
        f(&blk);
    }

    // (F16C is x86-64's: elsewhere there is nothing to compare)
    #[cfg(target_arch = "x86_64")]
    #[test]
    fn f16c_rows_give_the_portable_bits() {
        let src = patterns();
        for stream in [false, true] {
            // lengths around the 16-lane step and offsets that misalign the output
            for (skip, n) in [
                (0, src.len() - 3),
                (1, 15),
                (3, 16),
                (5, 17),
                (7, 33),
                (0, 0),
            ] {
                let mut out = vec![0u16; src.len()];
                with_block(&mut out, &src, skip, n, |b| {
                    if !f32_to_f16_rows(b, stream) {
                        // no F16C here: nothing to compare
                        assert!(!super::super::wide());
                    }
                });
                if !crate::exec::cpu::test_runs("avx2", super::super::wide()) {
                    return;
                }
                for i in skip..skip + n {
                    assert_eq!(
                        out[i],
                        f32_to_f16_bits(src[i]),
                        "{:#010x}",
                        src[i].to_bits()
                    );
                }
            }
        }
    }

    #[test]
    fn streamed_copies_and_conversions_move_every_element() {
        let src: Vec<f32> = patterns();
        let x86 = cfg!(target_arch = "x86_64");
        // lengths around a line (64 bytes) and offsets that misalign the output
        for (skip, n) in [
            (0, 20_000),
            (1, 63),
            (3, 64),
            (2, 65),
            (5, 7),
            (0, 0),
            (9, 1000),
        ] {
            macro_rules! case {
                ($t:ty) => {{
                    let from: Vec<$t> = src.iter().map(|x| x.to_bits() as $t).collect();
                    let mut out: Vec<$t> = vec![0; from.len()];
                    let width = size_of::<$t>();
                    with_block(&mut out, &from, skip, n, |b| {
                        assert!(!x86 || copy_streamed(b, width))
                    });
                    if x86 {
                        assert_eq!(&out[skip..skip + n], &from[skip..skip + n], "{width}");
                        assert!(out[..skip].iter().chain(&out[skip + n..]).all(|&x| x == 0));
                    }
                }};
            }
            case!(u8);
            case!(u16);
            case!(u32);
            case!(u64);
            case!(u128);
            let mut out = vec![0f64; src.len()];
            with_block(&mut out, &src, skip, n, |b| {
                assert!(!x86 || f32_to_f64_streamed(b));
            });
            if x86 {
                for i in skip..skip + n {
                    assert_eq!(out[i].to_bits(), (src[i] as f64).to_bits());
                }
            }
        }
    }
}
