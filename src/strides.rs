//! Stride arithmetic shared by views and the iterator: the ambiguity-aware insertion sort,
//! torch's `computeStride` for `view`, and the span of element offsets a layout reaches.
#![forbid(unsafe_code)]

/// torch's insertion sort with ambiguous comparisons, over dims `0..n`. `perm` starts as
/// `[n-1, …, 0]`; `should_swap(a, b)` returns +1 (swap), -1 (stop) or 0 (ambiguous: keep
/// scanning left *without* moving), which can swap non-adjacent entries. Returns the perm,
/// fastest dim first, in torch's convention.
pub fn ambiguity_aware_sort(
    n: usize,
    mut should_swap: impl FnMut(usize, usize) -> i32,
) -> Vec<usize> {
    let mut perm: Vec<usize> = (0..n).rev().collect();
    for i in 1..n {
        let mut dim1 = i;
        for dim0 in (0..i).rev() {
            let comparison = should_swap(perm[dim0], perm[dim1]);
            if comparison > 0 {
                perm.swap(dim0, dim1);
                dim1 = dim0;
            } else if comparison < 0 {
                break;
            }
        }
    }
    perm
}

/// torch's `computeStride`: the strides of `new_shape` viewing memory laid out as
/// (`old_shape`, `old_strides`) without a copy, or `None` when a new dim would span two
/// non-contiguous chunks. `numel` must match (checked by the caller).
pub fn view_strides(
    old_shape: &[usize],
    old_strides: &[isize],
    new_shape: &[usize],
) -> Option<Vec<isize>> {
    let numel: usize = old_shape.iter().product();
    if numel == 0 {
        // Any shape of zero elements is a valid view; torch uses contiguous strides when the
        // shapes differ, and the old ones when they are the same.
        return Some(if old_shape == new_shape {
            old_strides.to_vec()
        } else {
            crate::dims::contiguous_strides(new_shape).to_vec()
        });
    }
    let mut new_strides = vec![0isize; new_shape.len()];
    if new_shape.is_empty() {
        return Some(new_strides);
    }
    if old_shape.is_empty() {
        // A 0-d tensor (one element) viewed as all-ones: stride 1 everywhere.
        return Some(vec![1; new_shape.len()]);
    }
    // Walk old dims from the back, grouping them into contiguous chunks; each chunk must be
    // exactly covered by a run of new dims.
    let mut view_d = new_shape.len() as isize - 1;
    let mut chunk_base_stride = *old_strides.last().unwrap();
    let mut tensor_numel: usize = 1;
    let mut view_numel: usize = 1;
    for tensor_d in (0..old_shape.len()).rev() {
        tensor_numel *= old_shape[tensor_d];
        let chunk_ends = tensor_d == 0
            || (old_shape[tensor_d - 1] != 1
                && old_strides[tensor_d - 1] != tensor_numel as isize * chunk_base_stride);
        if chunk_ends {
            while view_d >= 0 && (view_numel < tensor_numel || new_shape[view_d as usize] == 1) {
                new_strides[view_d as usize] = view_numel as isize * chunk_base_stride;
                view_numel *= new_shape[view_d as usize];
                view_d -= 1;
            }
            if view_numel != tensor_numel {
                return None;
            }
            if tensor_d > 0 {
                chunk_base_stride = old_strides[tensor_d - 1];
                tensor_numel = 1;
                view_numel = 1;
            }
        }
    }
    if view_d != -1 {
        return None;
    }
    Some(new_strides)
}

/// The lowest and highest element offset (relative to the storage offset) that a layout
/// reaches, or `None` when it has no elements.
pub fn offset_span(shape: &[usize], strides: &[isize]) -> Option<(isize, isize)> {
    if shape.contains(&0) {
        return None;
    }
    let (mut lo, mut hi) = (0isize, 0isize);
    for (&n, &s) in shape.iter().zip(strides) {
        // saturating: a reach beyond isize fails every bounds check instead of wrapping
        let reach = (n as isize - 1).saturating_mul(s);
        if reach < 0 {
            lo = lo.saturating_add(reach);
        } else {
            hi = hi.saturating_add(reach);
        }
    }
    Some((lo, hi))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn view_of_contiguous() {
        assert_eq!(
            view_strides(&[2, 3, 4], &[12, 4, 1], &[6, 4]),
            Some(vec![4, 1])
        );
        assert_eq!(view_strides(&[2, 3, 4], &[12, 4, 1], &[24]), Some(vec![1]));
        assert_eq!(view_strides(&[2, 3], &[1, 2], &[6]), None);
        assert_eq!(
            view_strides(&[2, 3], &[1, 2], &[2, 3, 1]),
            Some(vec![1, 2, 2])
        );
    }

    #[test]
    fn span() {
        assert_eq!(offset_span(&[3, 4], &[-4, 1]), Some((-8, 3)));
        assert_eq!(offset_span(&[0, 4], &[4, 1]), None);
    }
}
