//! Memory formats and torch's contiguity predicates (§1-2 of torch-semantics.md): pure functions
//! of (sizes, strides), written to give torch's answers on the ambiguous NC11 / N1HW / N111 cases.
#![forbid(unsafe_code)]

use crate::dims::Strides;
use crate::error::{Error, Result};

pub use crate::dims::contiguous_strides;

/// torch's `MemoryFormat`. `Preserve` is only meaningful for `empty_like`, `clone` and `to`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum MemoryFormat {
    /// `contiguous_format`: row-major.
    Contiguous,
    /// `channels_last`: NHWC order for a 4-d NCHW array.
    ChannelsLast,
    /// `channels_last_3d`: NDHWC order for a 5-d NCDHW array.
    ChannelsLast3d,
    /// `preserve_format`: the source's layout, by torch's rule (`empty_like`, `clone` and `to`).
    Preserve,
    /// oneDNN's blocked formats (`blocked.rs`): channels in blocks of 8 or 16 innermost.
    NChw8c,
    /// `nChw16c`: 4-d, channels in blocks of 16.
    NChw16c,
    /// `nCdhw8c`: 5-d, channels in blocks of 8.
    NCdhw8c,
    /// `nCdhw16c`: 5-d, channels in blocks of 16.
    NCdhw16c,
}

impl MemoryFormat {
    /// The name torch prints (`torch.channels_last`), without the module.
    pub fn name(self) -> &'static str {
        match self {
            MemoryFormat::Contiguous => "contiguous_format",
            MemoryFormat::ChannelsLast => "channels_last",
            MemoryFormat::ChannelsLast3d => "channels_last_3d",
            MemoryFormat::Preserve => "preserve_format",
            MemoryFormat::NChw8c => "nChw8c",
            MemoryFormat::NChw16c => "nChw16c",
            MemoryFormat::NCdhw8c => "nCdhw8c",
            MemoryFormat::NCdhw16c => "nCdhw16c",
        }
    }

    /// `(rank, block)` of a blocked format; `None` for the strided ones.
    pub fn blocked(self) -> Option<(usize, usize)> {
        match self {
            MemoryFormat::NChw8c => Some((4, 8)),
            MemoryFormat::NChw16c => Some((4, 16)),
            MemoryFormat::NCdhw8c => Some((5, 8)),
            MemoryFormat::NCdhw16c => Some((5, 16)),
            _ => None,
        }
    }

    /// The blocked format of this rank and block, if there is one.
    pub fn blocked_format(rank: usize, block: usize) -> Option<MemoryFormat> {
        match (rank, block) {
            (4, 8) => Some(MemoryFormat::NChw8c),
            (4, 16) => Some(MemoryFormat::NChw16c),
            (5, 8) => Some(MemoryFormat::NCdhw8c),
            (5, 16) => Some(MemoryFormat::NCdhw16c),
            _ => None,
        }
    }

    /// The order in which the format lays dims out, fastest first, for a rank-4/5 tensor.
    fn dim_order(self) -> &'static [usize] {
        match self {
            MemoryFormat::ChannelsLast => &[1, 3, 2, 0],
            MemoryFormat::ChannelsLast3d => &[1, 4, 3, 2, 0],
            _ => &[],
        }
    }

    fn required_rank(self) -> Option<usize> {
        match self {
            MemoryFormat::ChannelsLast => Some(4),
            MemoryFormat::ChannelsLast3d => Some(5),
            _ => None,
        }
    }
}

/// The strides torch gives a new tensor of this format. Channels-last formulas have no
/// `max(·, 1)`, so zero sizes propagate: `(2,0,4,5)` CL → `(0,1,0,0)`.
pub fn format_strides(shape: &[usize], format: MemoryFormat) -> Result<Strides> {
    match format {
        MemoryFormat::Contiguous => Ok(contiguous_strides(shape)),
        MemoryFormat::Preserve => Err(Error::value("unsupported memory format Preserve")),
        blocked if blocked.blocked().is_some() => Err(Error::value(format!(
            "{} has no strides per dim: a blocked array's storage is its physical view",
            blocked.name()
        ))),
        cl => {
            let rank = cl.required_rank().unwrap_or(0);
            if shape.len() != rank {
                return Err(wrong_rank(cl));
            }
            let mut strides: Strides = smallvec::smallvec![0; rank];
            let mut acc: isize = 1;
            for &d in cl.dim_order() {
                strides[d] = acc;
                acc *= shape[d] as isize;
            }
            Ok(strides)
        }
    }
}

/// torch's text for a channels-last format used on a tensor of the wrong rank.
pub fn wrong_rank(format: MemoryFormat) -> Error {
    match format {
        MemoryFormat::ChannelsLast3d => {
            Error::value("required rank 5 tensor to use channels_last_3d format")
        }
        _ => Error::value("required rank 4 tensor to use channels_last format"),
    }
}

/// Walks `order` (fastest first) expecting dense strides, skipping size-1 dims.
fn dense_in_order(shape: &[usize], strides: &[isize], order: &[usize]) -> bool {
    dense_in(shape, strides, order.iter().copied())
}

/// `dense_in_order` over any sequence of dims (no list to build for the default order).
fn dense_in(shape: &[usize], strides: &[isize], order: impl Iterator<Item = usize>) -> bool {
    let mut expected: isize = 1;
    for d in order {
        if shape[d] == 1 {
            continue;
        }
        if strides[d] != expected {
            return false;
        }
        expected *= shape[d] as isize;
    }
    true
}

/// torch's default `is_contiguous`: any zero-numel tensor is contiguous.
pub fn is_contiguous(shape: &[usize], strides: &[isize]) -> bool {
    if shape.contains(&0) {
        return true;
    }
    dense_in(shape, strides, (0..shape.len()).rev())
}

/// `is_contiguous(memory_format=format)`. Channels-last formats have no zero-numel shortcut
/// and are false at any other rank. `Preserve` asks the default question, as in torch.
pub fn is_contiguous_as(shape: &[usize], strides: &[isize], format: MemoryFormat) -> Result<bool> {
    Ok(match format {
        MemoryFormat::Contiguous | MemoryFormat::Preserve => is_contiguous(shape, strides),
        cl => {
            shape.len() == cl.required_rank().unwrap_or(usize::MAX)
                && dense_in_order(shape, strides, cl.dim_order())
        }
    })
}

/// torch's `is_channels_last_strides_{2,3}d_s{4,5}`: the "like" heuristic behind
/// `suggest_memory_format`, with the N111 rule.
fn strides_like(shape: &[usize], strides: &[isize], format: MemoryFormat) -> bool {
    if shape.len() != format.required_rank().unwrap_or(usize::MAX) || strides[1] == 0 {
        return false;
    }
    let mut min: isize = 0;
    for &d in format.dim_order() {
        if shape[d] == 0 || strides[d] < min {
            return false;
        }
        // N111 rule: [N,1,1,1]@[X,X,X,X] stays contiguous.
        if d == 0 && min == strides[1] {
            return false;
        }
        min = strides[d];
        if shape[d] > 1 {
            min *= shape[d] as isize;
        }
    }
    true
}

/// `suggest_memory_format(exact_match)`: channels-last when the strides look like it (and, with
/// `exact_match`, are exactly its formula's).
pub fn suggest_memory_format(
    shape: &[usize],
    strides: &[isize],
    exact_match: bool,
) -> MemoryFormat {
    for format in [MemoryFormat::ChannelsLast, MemoryFormat::ChannelsLast3d] {
        if strides_like(shape, strides, format) {
            let exact = format_strides(shape, format).is_ok_and(|s| s.as_slice() == strides);
            return if !exact_match || exact {
                format
            } else {
                MemoryFormat::Contiguous
            };
        }
    }
    MemoryFormat::Contiguous
}

/// torch's `is_non_overlapping_and_dense`: every element of a dense block addressed once.
pub fn is_non_overlapping_and_dense(shape: &[usize], strides: &[isize]) -> bool {
    let n = shape.len();
    if is_contiguous(shape, strides)
        || (n == 4 && dense_in_order(shape, strides, MemoryFormat::ChannelsLast.dim_order()))
        || (n == 5 && dense_in_order(shape, strides, MemoryFormat::ChannelsLast3d.dim_order()))
    {
        return true;
    }
    if n == 1 {
        return shape[0] < 2 || strides[0] == 1;
    }
    let mut perm: crate::dims::Dims = (0..n).collect();
    // Size < 2 dims go last; the rest ascend by stride (a stable sort, as torch's).
    perm.sort_by(|&a, &b| {
        let (sa, sb) = (shape[a] < 2, shape[b] < 2);
        sa.cmp(&sb).then(if sa && sb {
            std::cmp::Ordering::Equal
        } else {
            strides[a].cmp(&strides[b])
        })
    });
    let mut required: isize = 1;
    for &d in &perm {
        if shape[d] < 2 {
            return true;
        }
        if strides[d] != required {
            return false;
        }
        required *= shape[d] as isize;
    }
    true
}

/// torch's `infer_dense_strides`: dense strides in the order the given strides suggest, using
/// the ambiguity-aware insertion sort of `reorder_dimensions` with a single operand.
pub fn infer_dense_strides(shape: &[usize], strides: &[isize]) -> Vec<isize> {
    let n = shape.len();
    match n {
        0 => return vec![],
        1 => return vec![1],
        _ => {}
    }
    let should_swap = |d0: usize, d1: usize| -> i32 {
        let (s0, s1) = (strides[d0], strides[d1]);
        if s0 == 0 || s1 == 0 {
            0
        } else if s0 < s1 {
            -1
        } else if s0 > s1 || shape[d0] > shape[d1] {
            1
        } else {
            0
        }
    };
    let perm = crate::strides::ambiguity_aware_sort(n, should_swap);
    let mut out = vec![0isize; n];
    let mut cur: isize = 1;
    for &d in &perm {
        out[d] = cur;
        if shape[d] > 1 {
            cur *= shape[d] as isize;
        }
    }
    out
}
