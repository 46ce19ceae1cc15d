//! Tile packing for the tiled walk ([`crate::exec::tiled`]): an operand's tile copied into
//! dim-0-contiguous scratch and back, through AVX2 register transposes where they apply.
//! Raw memory: see the invariants in [`super`].

#[cfg(target_arch = "x86_64")]
use super::wide;
use super::Block;
use std::mem::size_of_val;

/// One cache line of scratch memory: the scratch tiles of a packed walk are vectors of these,
/// so that every packed row starts on a line (and the AVX2 stores never split one needlessly).
#[derive(Debug, Clone, Copy)]
#[repr(C, align(64))]
pub(crate) struct Line([u8; 64]);

impl Line {
    pub(crate) const ZERO: Line = Line([0; 64]);
}

/// The bytes a packed `size0 × size1` tile of `width`-byte elements takes with rows of `ld`
/// elements: what [`pack`] and [`unpack`] require of their scratch.
pub(crate) fn packed_bytes(ld: usize, size1: usize, width: usize) -> usize {
    ld * size1 * width
}

/// Copies operand `k` of a tile into `scratch`, dim 0 contiguous: element `(i, j)` goes to
/// byte `(j·ld + i)·width`. The kernel then sees the operand with strides `(width,
/// ld·width)` and runs its contiguous loop. `ld >= size0`.
pub(crate) fn pack(blk: &Block, k: usize, width: usize, scratch: &mut [Line], ld: usize) {
    assert!(ld >= blk.size0 && packed_bytes(ld, blk.size1, width) <= size_of_val(scratch));
    let dst = scratch.as_mut_ptr() as *mut u8;
    let w = width as isize;
    // SAFETY: the source is operand k's tile, inside its storage by the module invariants
    // (`i < size0`, `j < size1`); the destination is `(j·ld + i)·width` bytes into `scratch`,
    // below `packed_bytes`, checked above.
    unsafe {
        copy_tile(
            blk.ptrs[k],
            (blk.strides0[k], blk.strides1[k]),
            dst,
            (w, ld as isize * w),
            (blk.size0, blk.size1),
            width,
        )
    }
}

/// The inverse of [`pack`]: writes the scratch tile back into operand `k` (an output the
/// kernel computed in scratch).
pub(crate) fn unpack(blk: &Block, k: usize, width: usize, scratch: &[Line], ld: usize) {
    assert!(ld >= blk.size0 && packed_bytes(ld, blk.size1, width) <= size_of_val(scratch));
    let src = scratch.as_ptr() as *const u8;
    let w = width as isize;
    // SAFETY: as for `pack`, with source and destination swapped; operand k is an output, so
    // writable.
    unsafe {
        copy_tile(
            src,
            (w, ld as isize * w),
            blk.ptrs[k],
            (blk.strides0[k], blk.strides1[k]),
            (blk.size0, blk.size1),
            width,
        )
    }
}

/// Copies an `n0 × n1` tile of `width`-byte elements: `(i, j)` from `src + i·s0 + j·s1` to
/// `dst + i·d0 + j·d1`. When one side is contiguous along i and the other along j (a
/// transpose) and the elements are 4 or 8 bytes, AVX2 transposes 8 × 8 / 4 × 4 blocks in
/// registers ([`super::lines256`], plain stores); otherwise a scalar loop reads the source
/// along its faster dim.
///
/// # Safety
/// Every `(i, j)` with `i < n0`, `j < n1` must address a valid, aligned element of `width`
/// bytes on both sides, writable in `dst`, and the two tiles must not overlap.
pub(super) unsafe fn copy_tile(
    src: *const u8,
    (s0, s1): (isize, isize),
    dst: *mut u8,
    (d0, d1): (isize, isize),
    (n0, n1): (usize, usize),
    width: usize,
) {
    #[cfg(target_arch = "x86_64")]
    let w = width as isize;
    // Name the dims so that the source is contiguous along `c` ("columns"): then a transpose
    // is `d_r == w`.
    let ((sr, sc), (dr, dc), (nr, nc)) = if s0.unsigned_abs() < s1.unsigned_abs() {
        ((s1, s0), (d1, d0), (n1, n0))
    } else {
        ((s0, s1), (d0, d1), (n0, n1))
    };
    #[cfg(target_arch = "x86_64")]
    if sc == w && dr == w && (width == 4 || width == 8) && wide() {
        let (in_row, out_col) = (
            |r: usize| src.wrapping_offset(r as isize * sr),
            |c: usize| dst.wrapping_offset(c as isize * dc),
        );
        // SAFETY: the caller's guarantees (the same tile, dims renamed: element (r, c) at
        // `in_row(r) + c·width` and `out_col(c) + r·width`), which are `copy_tile`'s; AVX2
        // checked; plain stores.
        unsafe {
            match width {
                4 => super::lines256::copy_tile::<8>(in_row, out_col, (nr, nc), false, false),
                _ => super::lines256::copy_tile::<4>(in_row, out_col, (nr, nc), false, false),
            }
        };
        return;
    }
    // SAFETY: the caller's guarantees, dims renamed.
    unsafe {
        match width {
            1 => copy_elements::<u8>(src, (sr, sc), dst, (dr, dc), (nr, nc)),
            2 => copy_elements::<u16>(src, (sr, sc), dst, (dr, dc), (nr, nc)),
            4 => copy_elements::<u32>(src, (sr, sc), dst, (dr, dc), (nr, nc)),
            8 => copy_elements::<u64>(src, (sr, sc), dst, (dr, dc), (nr, nc)),
            _ => copy_elements::<u128>(src, (sr, sc), dst, (dr, dc), (nr, nc)),
        }
    }
}

/// [`copy_tile`] one element at a time, the source's contiguous dim (`c`) innermost, for
/// elements of type `T` at any alignment (so also for `[u8; N]` runs of a folded walk, which
/// the transposing copy sends here).
///
/// # Safety
/// Every `(r, c)` with `r < nr`, `c < nc` addresses a `T` (not necessarily aligned) at
/// `src + r·sr + c·sc`, readable, and at `dst + r·dr + c·dc`, writable; the two tiles do not
/// overlap.
#[inline(always)]
pub(super) unsafe fn copy_elements<T: Copy>(
    src: *const u8,
    (sr, sc): (isize, isize),
    dst: *mut u8,
    (dr, dc): (isize, isize),
    (nr, nc): (usize, usize),
) {
    for r in 0..nr {
        let (s, d) = (
            src.wrapping_offset(r as isize * sr),
            dst.wrapping_offset(r as isize * dr),
        );
        for c in 0..nc {
            // SAFETY: `r < nr`, `c < nc`: the caller's guarantees; unaligned accesses.
            unsafe {
                let v = (s.wrapping_offset(c as isize * sc) as *const T).read_unaligned();
                (d.wrapping_offset(c as isize * dc) as *mut T).write_unaligned(v);
            }
        }
    }
}

/// The `L × L` block transpose of `L`-lane rows: [`transpose8`] for `L = 8` (4-byte lanes),
/// [`transpose4`] for `L = 4` (8-byte lanes).
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
#[inline]
pub(super) fn transpose_lanes<const L: usize>(
    x: [std::arch::x86_64::__m256; 8],
) -> [std::arch::x86_64::__m256; 8] {
    if L == 8 {
        transpose8(x)
    } else {
        transpose4(x)
    }
}

/// Transposes the 8 × 8 block of 32-bit lanes in `x` (row q in `x[q]`). Lanes are only moved,
/// never interpreted: any bit pattern survives.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
pub(super) fn transpose8(x: [std::arch::x86_64::__m256; 8]) -> [std::arch::x86_64::__m256; 8] {
    use std::arch::x86_64::*;
    // Rows a..h. Pairs interleaved: t0 = (a0 b0 a1 b1 | a4 b4 a5 b5), t1 = (a2 b2 a3 b3 | a6 ..).
    let (t0, t1) = (
        _mm256_unpacklo_ps(x[0], x[1]),
        _mm256_unpackhi_ps(x[0], x[1]),
    );
    let (t2, t3) = (
        _mm256_unpacklo_ps(x[2], x[3]),
        _mm256_unpackhi_ps(x[2], x[3]),
    );
    let (t4, t5) = (
        _mm256_unpacklo_ps(x[4], x[5]),
        _mm256_unpackhi_ps(x[4], x[5]),
    );
    let (t6, t7) = (
        _mm256_unpacklo_ps(x[6], x[7]),
        _mm256_unpackhi_ps(x[6], x[7]),
    );
    // Quads: u0 = (a0 b0 c0 d0 | a4 b4 c4 d4), u1 = (a1 .. d1 | a5 .. d5), u2, u3; u4..u7: e..h.
    let u0 = _mm256_shuffle_ps::<0x44>(t0, t2);
    let u1 = _mm256_shuffle_ps::<0xEE>(t0, t2);
    let u2 = _mm256_shuffle_ps::<0x44>(t1, t3);
    let u3 = _mm256_shuffle_ps::<0xEE>(t1, t3);
    let u4 = _mm256_shuffle_ps::<0x44>(t4, t6);
    let u5 = _mm256_shuffle_ps::<0xEE>(t4, t6);
    let u6 = _mm256_shuffle_ps::<0x44>(t5, t7);
    let u7 = _mm256_shuffle_ps::<0xEE>(t5, t7);
    // Column c: the low halves of u_c and u_{c+4} for c < 4, the high halves for c >= 4.
    [
        _mm256_permute2f128_ps::<0x20>(u0, u4),
        _mm256_permute2f128_ps::<0x20>(u1, u5),
        _mm256_permute2f128_ps::<0x20>(u2, u6),
        _mm256_permute2f128_ps::<0x20>(u3, u7),
        _mm256_permute2f128_ps::<0x31>(u0, u4),
        _mm256_permute2f128_ps::<0x31>(u1, u5),
        _mm256_permute2f128_ps::<0x31>(u2, u6),
        _mm256_permute2f128_ps::<0x31>(u3, u7),
    ]
}

/// Transposes the 4 × 4 block of 64-bit lanes in `x[0..4]` (row q in `x[q]`); `x[4..]` is
/// ignored. Lanes are only moved.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
pub(super) fn transpose4(x: [std::arch::x86_64::__m256; 8]) -> [std::arch::x86_64::__m256; 8] {
    use std::arch::x86_64::*;
    let (a, b) = (_mm256_castps_pd(x[0]), _mm256_castps_pd(x[1]));
    let (c, d) = (_mm256_castps_pd(x[2]), _mm256_castps_pd(x[3]));
    // t0 = (a0 b0 | a2 b2), t1 = (a1 b1 | a3 b3), t2 = (c0 d0 | c2 d2), t3 = (c1 d1 | c3 d3)
    let (t0, t1) = (_mm256_unpacklo_pd(a, b), _mm256_unpackhi_pd(a, b));
    let (t2, t3) = (_mm256_unpacklo_pd(c, d), _mm256_unpackhi_pd(c, d));
    let z = _mm256_setzero_ps();
    [
        _mm256_castpd_ps(_mm256_permute2f128_pd::<0x20>(t0, t2)),
        _mm256_castpd_ps(_mm256_permute2f128_pd::<0x20>(t1, t3)),
        _mm256_castpd_ps(_mm256_permute2f128_pd::<0x31>(t0, t2)),
        _mm256_castpd_ps(_mm256_permute2f128_pd::<0x31>(t1, t3)),
        z,
        z,
        z,
        z,
    ]
}
