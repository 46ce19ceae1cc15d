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
}

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
}
