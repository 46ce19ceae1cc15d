//! Scans (cumsum, cumprod) over a scan plan: torch's restride trick, where each step of the
//! plan is the start of one line along the scanned dim, walked with each operand's own stride.
//! Each line is accumulated in order, so results never depend on threads. When the lines are
//! strided but neighbouring lines are contiguous (a scan along an outer dim), a tile of lines
//! advances together, one input row at a time, vectorized across the lines.
//! Raw memory: see the invariants in [`super`].

use super::isa::{in_copy, Isa};
use super::reduce::kept_offsets;
use super::{get, put, SendPtr};
use crate::error::Result;
use crate::exec::tasks::{run_tasks, task_count};
use crate::plan::reduction::Line;
use crate::plan::TensorIterator;
use smallvec::SmallVec;
use std::mem::size_of;

/// Lines per tile of the outer-dim path.
const TILE: usize = 256;

/// How a scan accumulates: `step(acc, x)` in order along the line, `finish(acc)` written out
/// after every step.
pub(crate) trait Scanner: Sync {
    type In: Copy;
    type Acc: Copy;
    type Out: Copy;
    fn identity(&self) -> Self::Acc;
    fn step(&self, acc: Self::Acc, x: Self::In) -> Self::Acc;
    fn finish(&self, acc: Self::Acc) -> Self::Out;
}

/// One line, in order.
///
/// # Safety
/// `src + k·line.in_stride` and `dst + k·line.out_stride` must address a readable `In` and a
/// writable `Out` for `k < line.len`.
unsafe fn scan_line<S: Scanner>(s: &S, line: Line, src: *const u8, dst: *mut u8) {
    let mut acc = s.identity();
    for k in 0..line.len {
        // SAFETY: guaranteed by the caller.
        unsafe {
            acc = s.step(acc, get(src, k, line.in_stride));
            put(dst, k, line.out_stride, s.finish(acc));
        }
    }
}

/// `w` contiguous lines advanced together, row by row.
///
/// # Safety
/// For `k < line.len` and `j < w`: `src + k·line.in_stride + j·size_of::<In>()` and the same
/// for `dst` with `Out` address readable / writable elements.
#[inline(always)]
unsafe fn scan_tile<S: Scanner>(s: &S, line: Line, src: *const u8, dst: *mut u8, w: usize) {
    let mut acc = [s.identity(); TILE];
    for k in 0..line.len {
        let x = src.wrapping_offset(k as isize * line.in_stride) as *const S::In;
        let y = dst.wrapping_offset(k as isize * line.out_stride) as *mut S::Out;
        for (j, a) in acc.iter_mut().enumerate().take(w) {
            // SAFETY: j < w and k < line.len (the caller's guarantee).
            unsafe {
                *a = s.step(*a, x.add(j).read());
                y.add(j).write(s.finish(*a));
            }
        }
    }
}

/// Runs the scan over a scan plan (output 0, input 1; see `plan::reduction::scan_plan`).
pub(crate) fn scan<S: Scanner>(
    plan: &TensorIterator,
    line: Line,
    s: &S,
    grain: usize,
) -> Result<()> {
    let numel: usize = plan.numel();
    if numel == 0 || line.len == 0 {
        return Ok(());
    }
    let ptr = |k: usize| {
        SendPtr(
            plan.operands()[k]
                .array
                .as_ref()
                .map_or(std::ptr::null_mut(), |a| a.data_ptr() as *mut u8),
        )
    };
    let (out_base, in_base) = (ptr(0), ptr(1));
    let out_s = &plan.operands()[0].stride_bytes;
    let in_s = &plan.operands()[1].stride_bytes;
    let dims: SmallVec<[(usize, isize, isize); 6]> = plan
        .shape()
        .iter()
        .enumerate()
        .filter(|(_, &n)| n != 1)
        .map(|(d, &n)| (n, in_s[d], out_s[d]))
        .collect();
    let (isz, osz) = (size_of::<S::In>() as isize, size_of::<S::Out>() as isize);
    let column = if line.in_stride != isz || line.len < 2 {
        dims.iter()
            .position(|d| d.1 == isz && d.2 == osz && d.0 >= 8)
    } else {
        None
    };
    let elements = numel * line.len;
    let isa = Isa::avx2();
    match column {
        None => {
            let tasks = task_count(numel, elements, grain);
            run_tasks(numel, tasks, |b, e| {
                for m in b..e {
                    let (i, o) = kept_offsets(&dims, m);
                    // SAFETY: the plan's guarantee: each step and the line's strides address
                    // elements of the operands.
                    unsafe {
                        scan_line(
                            s,
                            line,
                            in_base.get().wrapping_offset(i),
                            out_base.get().wrapping_offset(o),
                        )
                    };
                }
            })
        }
        Some(c) => {
            let mut others = dims.clone();
            let (cols, _, _) = others.remove(c);
            let tiles = cols.div_ceil(TILE);
            let units = numel / cols * tiles;
            let tasks = task_count(units, elements, grain);
            run_tasks(units, tasks, |b, e| {
                for u in b..e {
                    let (m, t) = (u / tiles, u % tiles);
                    let (i, o) = kept_offsets(&others, m);
                    let j0 = t * TILE;
                    let w = TILE.min(cols - j0);
                    let src = in_base.get().wrapping_offset(i + j0 as isize * isz);
                    let dst = out_base.get().wrapping_offset(o + j0 as isize * osz);
                    // SAFETY: the plan's guarantee: the tile's lines (a contiguous dim of both
                    // operands) and the line strides address elements. (The AVX2 copy runs
                    // the same operations per line: the same bits.)
                    in_copy!(isa, unsafe { scan_tile(s, line, src, dst, w) });
                }
            })
        }
    }
}
