//! How a linear range is split among threads: torch's OpenMP formula, with fixed chunks so
//! that results never depend on scheduling.
#![forbid(unsafe_code)]

pub use crate::settings::GRAIN_SIZE;

/// The fixed split of `0..numel` among threads, computed without allocating: one chunk unless
/// `numel > grain` and there is more than one thread; otherwise `T = min(threads,
/// ceil(numel / grain))` chunks of `ceil(numel / T)` elements (the last one shorter; chunks that
/// would start past the end are dropped).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Chunks {
    numel: usize,
    /// Elements per chunk (the last one may be shorter).
    pub size: usize,
    /// Number of non-empty chunks.
    pub count: usize,
}

impl Chunks {
    /// The split of `numel` elements with grain `grain` among `threads` threads (the struct doc's
    /// formula).
    pub fn new(numel: usize, grain: usize, threads: usize) -> Chunks {
        if numel == 0 {
            return Chunks {
                numel,
                size: 0,
                count: 0,
            };
        }
        let grain = grain.max(1);
        if numel <= grain || threads <= 1 {
            return Chunks {
                numel,
                size: numel,
                count: 1,
            };
        }
        let tasks = threads.min(numel.div_ceil(grain));
        let size = numel.div_ceil(tasks);
        Chunks {
            numel,
            size,
            count: numel.div_ceil(size),
        }
    }

    /// Chunk `t` as `[begin, end)` (`t < count`).
    pub fn range(&self, t: usize) -> (usize, usize) {
        (t * self.size, ((t + 1) * self.size).min(self.numel))
    }

    /// How many pieces each chunk is cut into for an elementwise loop: one per
    /// [`PIECE_GRAINS`] grains of the chunk, at most [`MAX_PIECES`]. A thread that finishes
    /// its own chunk takes the pieces of the others that no thread has started (`for_each`),
    /// so a worker that shares its core with another busy thread (another library's spinning
    /// OpenMP worker, another process) slows the loop by a piece, not by its whole chunk. The
    /// pieces are fixed by the sizes alone: which thread runs one never changes what it
    /// computes.
    pub fn pieces(&self, grain: usize) -> usize {
        if self.count <= 1 {
            return 1;
        }
        (self.size / grain.max(1).saturating_mul(PIECE_GRAINS)).clamp(1, MAX_PIECES)
    }

    /// Piece `k` of chunk `t` cut into `pieces` (equal up to one element) as `[begin, end)`.
    pub fn piece(&self, t: usize, k: usize, pieces: usize) -> (usize, usize) {
        let (begin, end) = self.range(t);
        let at = |k: usize| begin + (end - begin) * k / pieces;
        (at(k), at(k + 1))
    }
}

/// Grains per piece of a chunk ([`Chunks::pieces`]): a grain is what torch deems worth a
/// thread, so a piece's setup (a walk over its range, a claim) is noise beside it. On the
/// 2-core Zen 3, 2 threads, in-process against pieces of 4 grains: adds of 256K, 1M and 3.2M
/// elements and a (16, 64, 56, 56) bias add 1.04-1.14x.
pub const PIECE_GRAINS: usize = 1;

/// Most pieces per chunk ([`Chunks::pieces`]).
pub const MAX_PIECES: usize = 8;

/// The chunks `[begin, end)` of `0..numel` that `for_each` hands to threads ([`Chunks`] as a
/// list).
pub fn chunk_ranges(numel: usize, grain: usize, threads: usize) -> Vec<(usize, usize)> {
    let chunks = Chunks::new(numel, grain, threads);
    (0..chunks.count).map(|t| chunks.range(t)).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn grain_edges() {
        assert_eq!(chunk_ranges(32768, GRAIN_SIZE, 2), vec![(0, 32768)]);
        assert_eq!(
            chunk_ranges(32769, GRAIN_SIZE, 2),
            vec![(0, 16385), (16385, 32769)]
        );
        assert_eq!(chunk_ranges(10, 3, 2), vec![(0, 5), (5, 10)]);
        assert_eq!(
            chunk_ranges(10, 3, 8),
            vec![(0, 3), (3, 6), (6, 9), (9, 10)]
        );
        assert_eq!(chunk_ranges(5, 1, 4), vec![(0, 2), (2, 4), (4, 5)]);
        assert!(chunk_ranges(0, 3, 2).is_empty());
    }

    /// The pieces of every chunk partition it in order, as many as the chunk holds
    /// `PIECE_GRAINS` grains (1 to `MAX_PIECES`), one piece for a serial loop.
    #[test]
    fn pieces_partition_each_chunk() {
        for (numel, grain, threads) in [(10, 3, 2), (100, 1, 3), (1000, 7, 4), (12, 1, 16)] {
            let chunks = Chunks::new(numel, grain, threads);
            let per = chunks.pieces(grain);
            assert!((1..=MAX_PIECES).contains(&per));
            for t in 0..chunks.count {
                let pieces: Vec<_> = (0..per).map(|k| chunks.piece(t, k, per)).collect();
                assert_eq!(pieces[0].0, chunks.range(t).0);
                assert_eq!(pieces[per - 1].1, chunks.range(t).1);
                assert!(pieces
                    .windows(2)
                    .all(|w| w[0].1 == w[1].0 && w[0].0 < w[0].1));
            }
        }
        assert_eq!(Chunks::new(100, 1, 3).pieces(1), MAX_PIECES);
        assert_eq!(Chunks::new(1000, 100, 4).pieces(100), 2);
        assert_eq!(
            Chunks::new(1 << 26, GRAIN_SIZE, 2).pieces(GRAIN_SIZE),
            MAX_PIECES
        );
        assert_eq!(Chunks::new(1 << 16, GRAIN_SIZE, 2).pieces(GRAIN_SIZE), 1);
        assert_eq!(Chunks::new(1 << 18, GRAIN_SIZE, 2).pieces(GRAIN_SIZE), 4);
        assert_eq!(Chunks::new(1000, 1, 1).pieces(1), 1);
    }
}
