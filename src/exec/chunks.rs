//! How a linear range is split among threads: torch's OpenMP formula, with fixed chunks so
//! that results never depend on scheduling.

/// torch's grain size: ranges of at most this many elements run on one thread.
pub const GRAIN_SIZE: usize = 32768;

/// The chunks `[begin, end)` of `0..numel` that `for_each` hands to threads: one chunk unless
/// `numel > grain` and there is more than one thread; otherwise `T = min(threads,
/// ceil(numel / grain))` chunks of `ceil(numel / T)` elements (the last one shorter).
pub fn chunk_ranges(numel: usize, grain: usize, threads: usize) -> Vec<(usize, usize)> {
    if numel == 0 {
        return vec![];
    }
    let grain = grain.max(1);
    if numel <= grain || threads <= 1 || numel == 1 {
        return vec![(0, numel)];
    }
    let tasks = threads.min(numel.div_ceil(grain));
    let chunk = numel.div_ceil(tasks);
    (0..tasks)
        .map(|t| (t * chunk, ((t + 1) * chunk).min(numel)))
        .filter(|(b, e)| b < e)
        .collect()
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
        assert!(chunk_ranges(0, 3, 2).is_empty());
    }
}
