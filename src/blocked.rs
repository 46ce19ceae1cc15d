//! oneDNN's blocked memory formats (`nChw8c`, `nChw16c`, `nCdhw8c`, `nCdhw16c`) as pure layout
//! arithmetic. Channels are cut into blocks of `b` that become the innermost dim:
//!
//! `offset(n, c, h, w) = n·Cp·H·W + (c / b)·H·W·b + h·W·b + w·b + c % b`, `Cp = ⌈C / b⌉·b`.
//!
//! One stride per logical dim cannot say this (`c` moves by 1 inside a block and by `H·W·b`
//! across blocks), so a blocked array keeps its logical NC(D)HW shape in a [`Blocking`] and
//! its storage as the dense *physical* view `(N, Cp/b, (D,) H, W, b)`. The lanes `c ≥ C` of the
//! last block are padding: zero, and kept zero by every operation.
//!
//! The conversions need only strided views: any strided NC(D)HW layout whose channel range
//! `[c0, c0 + blocks·lanes)` is split into `(blocks, lanes)` (strides `(s_c·b, s_c)`) and moved
//! after the spatial dims addresses the same elements, in the same order, as the physical
//! view's matching part. So a conversion is one or two plain strided copies (the full blocks,
//! then the partial last one).
#![forbid(unsafe_code)]

use crate::dims::Dims;
use crate::error::{Error, Result};
use crate::layout::Layout;
use crate::memory_format::MemoryFormat;
use crate::shape::fmt_shape;

/// What makes an array blocked: its block and its logical NC(D)HW shape. The array's layout is
/// then the physical view (see the module doc).
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Blocking {
    /// Channels per block (8 or 16): the size of the innermost physical dim.
    pub block: usize,
    /// The logical NC(D)HW shape.
    pub shape: Dims,
}

impl Blocking {
    /// The blocking of `format` (a blocked format) for an array of logical `shape`, with the
    /// format's rank checked.
    pub fn new(shape: &[usize], format: MemoryFormat) -> Result<Blocking> {
        let (rank, block) = match format.blocked() {
            Some(rb) => rb,
            None => {
                return Err(Error::value(format!(
                    "{} is not a blocked memory format",
                    format.name()
                )))
            }
        };
        if shape.len() != rank {
            return Err(Error::value(format!(
                "required rank {rank} tensor to use {} format, got shape {}",
                format.name(),
                fmt_shape(shape)
            )));
        }
        Ok(Blocking {
            block,
            shape: shape.into(),
        })
    }

    /// The blocked format this blocking is.
    pub fn format(&self) -> MemoryFormat {
        MemoryFormat::blocked_format(self.shape.len(), self.block)
            .expect("a Blocking is only built for a blocked format's rank and block")
    }

    /// Logical channels `C`.
    pub fn channels(&self) -> usize {
        self.shape[1]
    }

    /// Channel blocks `⌈C / b⌉`.
    pub fn nblocks(&self) -> usize {
        self.channels().div_ceil(self.block)
    }

    /// Logical elements (the padding excluded).
    pub fn numel(&self) -> usize {
        self.shape.iter().product()
    }

    /// The physical shape `(N, ⌈C/b⌉, (D,) H, W, b)`.
    pub fn physical_shape(&self) -> Dims {
        let mut dims: Dims = Dims::new();
        dims.push(self.shape[0]);
        dims.push(self.nblocks());
        dims.extend_from_slice(&self.shape[2..]);
        dims.push(self.block);
        dims
    }

    /// The dense physical layout at offset 0, the one a blocked array's storage holds.
    pub fn physical_layout(&self) -> Layout {
        Layout::contiguous(&self.physical_shape())
    }

    /// The formula: the storage offset of logical element `index` (`n, c, (d,) h, w`).
    pub fn offset(&self, index: &[usize]) -> usize {
        let b = self.block;
        let spatial: usize = self.shape[2..].iter().product();
        let mut within = 0;
        for (i, &n) in index[2..].iter().zip(&self.shape[2..]) {
            within = within * n + i;
        }
        let c = index[1];
        index[0] * self.nblocks() * b * spatial + (c / b) * spatial * b + within * b + c % b
    }

    /// The (full blocks, lanes of the last partial block) of the channels.
    pub fn parts(&self) -> [(usize, usize, usize); 2] {
        let full = self.channels() / self.block;
        let tail = self.channels() % self.block;
        // (first block, blocks, lanes)
        [(0, full, self.block), (full, usize::from(tail > 0), tail)]
    }
}

/// The part `blocks × lanes` (from block `first`, lanes from `lane0`) of a physical layout.
pub fn physical_part(
    physical: &Layout,
    first: usize,
    blocks: usize,
    lane0: usize,
    lanes: usize,
) -> Layout {
    let mut out = physical.clone();
    let last = out.shape.len() - 1;
    out.offset += first as isize * physical.strides[1] + lane0 as isize * physical.strides[last];
    out.shape[1] = blocks;
    out.shape[last] = lanes;
    out
}

/// A strided logical NC(D)HW layout with the channels `[first·b, first·b + blocks·lanes)`
/// split into `(blocks, lanes)` and `lanes` moved last: the same shape as, and element by
/// element the counterpart of, [`physical_part`] of the blocked array.
pub fn split_channels(
    logical: &Layout,
    block: usize,
    first: usize,
    blocks: usize,
    lanes: usize,
) -> Layout {
    let sc = logical.strides[1];
    let mut shape = Dims::new();
    let mut strides = crate::dims::Strides::new();
    shape.push(logical.shape[0]);
    strides.push(logical.strides[0]);
    shape.push(blocks);
    strides.push(sc * block as isize);
    shape.extend_from_slice(&logical.shape[2..]);
    strides.extend_from_slice(&logical.strides[2..]);
    shape.push(lanes);
    strides.push(sc);
    Layout {
        shape,
        strides,
        offset: logical.offset + (first * block) as isize * sc,
    }
}

/// The padding lanes of the last block as a part of the physical layout (`None`: C is a
/// multiple of the block, no padding).
pub fn padding_part(blocking: &Blocking, physical: &Layout) -> Option<Layout> {
    let tail = blocking.channels() % blocking.block;
    (tail > 0).then(|| {
        physical_part(
            physical,
            blocking.nblocks() - 1,
            1,
            tail,
            blocking.block - tail,
        )
    })
}

/// The picture the article draws: the physical order of the first `2·b` channels of pixel
/// `(0, 0)` of image 0, as `(position in storage, channel)` pairs with the elements in
/// between (the rest of the pixel row of the first block) elided.
pub fn first_channels_order(blocking: &Blocking) -> Vec<(usize, usize)> {
    let channels = (2 * blocking.block).min(blocking.nblocks() * blocking.block);
    let mut index: Dims = smallvec::smallvec![0; blocking.shape.len()];
    let mut out: Vec<(usize, usize)> = (0..channels)
        .map(|c| {
            index[1] = c;
            (blocking.offset(&index), c)
        })
        .collect();
    out.sort_unstable();
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::array::element_offsets;

    fn every_index(shape: &[usize]) -> Vec<Vec<usize>> {
        let mut out = vec![vec![]];
        for &n in shape {
            out = out
                .into_iter()
                .flat_map(|p| {
                    (0..n).map(move |i| {
                        let mut q = p.clone();
                        q.push(i);
                        q
                    })
                })
                .collect();
        }
        out
    }

    #[test]
    fn the_parts_address_the_formula() {
        for (shape, format) in [
            (vec![2, 19, 3, 2], MemoryFormat::NChw8c),
            (vec![1, 32, 2, 3], MemoryFormat::NChw16c),
            (vec![2, 5, 2, 1, 3], MemoryFormat::NCdhw16c),
        ] {
            let blocking = Blocking::new(&shape, format).unwrap();
            let physical = blocking.physical_layout();
            let logical = Layout::contiguous(&shape);
            let mut seen = 0;
            for (first, blocks, lanes) in blocking.parts() {
                if blocks == 0 {
                    continue;
                }
                let p = physical_part(&physical, first, blocks, 0, lanes);
                let l = split_channels(&logical, blocking.block, first, blocks, lanes);
                assert_eq!(p.shape, l.shape);
                for (po, lo) in element_offsets(&p).zip(element_offsets(&l)) {
                    // lo is the row-major index of a logical element: unravel it
                    let mut rest = lo as usize;
                    let mut idx = vec![0; shape.len()];
                    for d in (0..shape.len()).rev() {
                        idx[d] = rest % shape[d];
                        rest /= shape[d];
                    }
                    assert_eq!(po as usize, blocking.offset(&idx));
                    seen += 1;
                }
            }
            assert_eq!(seen, every_index(&shape).len());
        }
    }

    #[test]
    fn wrong_rank_is_refused() {
        let err = Blocking::new(&[2, 3, 4], MemoryFormat::NChw8c).unwrap_err();
        assert_eq!(
            err.to_string(),
            "required rank 4 tensor to use nChw8c format, got shape [2, 3, 4]"
        );
    }

    #[test]
    fn picture_of_nchw8c() {
        let b = Blocking::new(&[1, 16, 1, 2], MemoryFormat::NChw8c).unwrap();
        let order = first_channels_order(&b);
        assert_eq!(order[..2], [(0, 0), (1, 1)]);
        assert_eq!(order[8], (16, 8));
    }
}
