//! Staged tiles of a permuting copy ([`super::permute`]): a tile whose output columns are
//! short runs, apart from each other and not line-aligned, is transposed into an *image* in
//! scratch — its columns side by side in the order of their output offsets — and the image
//! is then streamed out run by run, columns adjacent in the output (within the tile and
//! across the tiles that follow) as one run.
//!
//! Written straight to the output, such a tile leaves partial lines at both ends of every
//! column: plain stores read each line first, streamed ones would write it in pieces. In the
//! image the columns that meet in the output meet in scratch too, so nearly every output line
//! is streamed whole. This replaced staging 16 columns at a time (a strip), which left the
//! partial lines wherever output neighbours fell in different strips: on the 2-core Xeon
//! (1 thread, 8M float32) the (92, 10, 20, 5, 16, 6) by (0, 3, 1, 5, 4, 2) copy (20-row
//! columns 1280 bytes apart, adjacent by sixes) went from 26-29% to 44-53% of the copy
//! limit, (78, 80, 85, 16) by (1, 3, 2, 0) from 27-36% to 50%; with the AVX2 kernels, which
//! had no staging, 2-3x. Raw memory: see the invariants in [`super`].

use super::kept::Kept;
use std::cell::Cell;

/// A tile's columns in the order of their output offsets (its image's layout), found once per
/// table of column offsets, as the tile's other tables are.
#[derive(Debug, Default)]
pub(super) struct ImageLayout {
    /// Column `c`'s byte offset in the image: its rank among the output offsets times a
    /// column's bytes.
    pub(super) cols: Vec<isize>,
    /// The image's runs: (first rank, columns, output offset of the first), each a set of
    /// columns that follow each other in the output.
    runs: Vec<(usize, usize, isize)>,
    /// Bytes per column (the tile's rows times the element).
    run: usize,
    order: Vec<usize>,
}

impl ImageLayout {
    /// For output columns at offsets `out_cols` (relative to the tile's corner, distinct, not
    /// overlapping) of `run` bytes each.
    pub(super) fn set(&mut self, out_cols: &[isize], run: usize) {
        self.order.clear();
        self.order.extend(0..out_cols.len());
        self.order.sort_unstable_by_key(|&c| out_cols[c]);
        self.cols.clear();
        self.cols.resize(out_cols.len(), 0);
        self.runs.clear();
        self.run = run;
        for (rank, &c) in self.order.iter().enumerate() {
            self.cols[c] = (rank * run) as isize;
            match self.runs.last_mut() {
                Some((_, count, at)) if *at + (*count * run) as isize == out_cols[c] => *count += 1,
                _ => self.runs.push((rank, 1, out_cols[c])),
            }
        }
    }

    /// Bytes of the image.
    pub(super) fn bytes(&self) -> usize {
        self.cols.len() * self.run
    }

    /// Runs the image is streamed out in (before merging with other tiles').
    pub(super) fn runs(&self) -> usize {
        self.runs.len()
    }
}

thread_local! {
    /// Each thread's image buffer, kept between calls ([`Kept`]): a fresh one (256 KiB on a
    /// 2 MiB L2) is a mapped allocation whose pages would fault in again at every call.
    static BUFFER: Cell<Vec<u8>> = const { Cell::new(Vec::new()) };
}

/// Images waiting to be streamed out, in one scratch buffer: consecutive tiles whose runs
/// continue each other in the output (the outer indices of a batch of small transposes, the
/// row tiles of one column) are streamed as one run, whole lines across the tiles' seams.
pub(super) struct Images {
    /// The thread's buffer (given back on drop); at least `room` bytes.
    buf: Kept<u8>,
    /// Bytes of `buf` used for images (the size asked for, so that they stay in L2).
    room: usize,
    /// Bytes of `buf` in use.
    used: usize,
    /// Runs to stream: (output address, offset in `buf`, bytes).
    pending: Vec<(*mut u8, usize, usize)>,
}

impl Images {
    /// Room for `bytes` of images (at least one tile's), in the thread's buffer.
    pub(super) fn new(bytes: usize) -> Images {
        Images {
            buf: Kept::take(&BUFFER, bytes, 0),
            room: bytes,
            used: 0,
            pending: Vec::new(),
        }
    }

    /// The scratch for the image of the tile whose output corner is `corner` (`layout.bytes()`
    /// bytes, writable until the next call), its runs recorded to be streamed; earlier images
    /// are streamed first if the buffer is full.
    ///
    /// # Safety
    /// Every run of `layout` relative to `corner` is writable output this thread owns, and
    /// stays so until [`Images::flush`] (the image's bytes are written there, streamed: the
    /// caller fences afterwards); the caller fills the whole image before the next call.
    pub(super) unsafe fn image(&mut self, layout: &ImageLayout, corner: *mut u8) -> *mut u8 {
        let bytes = layout.bytes();
        assert!(bytes <= self.room, "an image larger than its buffer");
        if self.used + bytes > self.room {
            // SAFETY: the caller's guarantees for the images recorded before.
            unsafe { self.flush() };
        }
        let at = self.used;
        self.used += bytes;
        for &(rank, count, offset) in &layout.runs {
            let (to, from, len) = (
                corner.wrapping_offset(offset),
                at + rank * layout.run,
                count * layout.run,
            );
            match self.pending.last_mut() {
                Some((t, f, l)) if t.wrapping_add(*l) == to && *f + *l == from => *l += len,
                _ => self.pending.push((to, from, len)),
            }
        }
        self.buf.as_mut_ptr().wrapping_add(at)
    }

    /// Streams out every pending image.
    ///
    /// # Safety
    /// As for [`Images::image`], for the images recorded since the last flush.
    pub(super) unsafe fn flush(&mut self) {
        for &(to, from, len) in &self.pending {
            // SAFETY: `from..from + len` lies in the images written since (inside `buf`, not
            // the output); `to..to + len` is output the caller owns (`image`'s guarantees).
            unsafe { super::stream::stream_bytes(to, self.buf.as_ptr().add(from), len) };
        }
        self.pending.clear();
        self.used = 0;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn layouts_rank_columns_by_output_offset_and_merge_neighbours() {
        let mut l = ImageLayout::default();
        // columns of 20 bytes: 0 and 2 adjacent in the output (40, 60), 1 and 3 apart
        l.set(&[40, 200, 60, -100], 20);
        assert_eq!(l.cols, vec![20, 60, 40, 0]);
        assert_eq!(l.runs, vec![(0, 1, -100), (1, 2, 40), (3, 1, 200)]);
        assert_eq!(l.bytes(), 80);
    }

    /// Images streamed through a buffer that holds two at a time: every output byte equals
    /// its image's and nothing else is written, with columns apart (tile `t`'s column `c` at
    /// `c·72·tiles + 24t`: each tile's runs continue the previous tile's, not its last one)
    /// and adjacent in an order of their own (each tile one run of 72 bytes, continuing the
    /// previous tile's: merged across tiles up to a flush).
    #[test]
    fn images_stream_every_run_across_tiles_and_flushes() {
        let (cols, run, tiles) = (3usize, 24usize, 7usize);
        let apart: Vec<isize> = (0..cols).map(|c| (c * 72 * tiles) as isize).collect();
        let adjacent: Vec<isize> = vec![48, 0, 24];
        for (offsets, step) in [(apart, run), (adjacent, cols * run)] {
            let mut out = vec![0u8; 2048];
            let base = out.as_mut_ptr().wrapping_add(5);
            let mut layout = ImageLayout::default();
            layout.set(&offsets, run);
            let mut images = Images::new(2 * layout.bytes() + 10);
            let mut want = vec![0u8; out.len()];
            for t in 0..tiles {
                let corner = base.wrapping_add(t * step);
                // SAFETY: tile t's columns lie inside `out` and no other tile's; the image
                // is filled before the next call; flushed below.
                unsafe {
                    let image = images.image(&layout, corner);
                    for c in 0..cols {
                        for i in 0..run {
                            let v = (t * 31 + c * 7 + i) as u8 | 1;
                            *image.offset(layout.cols[c] + i as isize) = v;
                            want[5 + t * step + offsets[c] as usize + i] = v;
                        }
                    }
                }
            }
            // SAFETY: as above.
            unsafe { images.flush() };
            super::super::transpose::fence();
            assert_eq!(out, want, "columns at {offsets:?}");
        }
    }
}
