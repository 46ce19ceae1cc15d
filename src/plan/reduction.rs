//! Reduction and scan plans: torch's result construction for `sum(dim, keepdim)` and friends
//! (which dims, the result's shape, its contiguous allocation) and the iterator over the
//! input with that result at stride 0 along the reduced dims. Inputs are taken in their own
//! layout: nothing is copied to contiguous first.
//!
//! Phases, each a named function: [`reduced_dims`] (torch's `dim` argument: None, an int, a
//! negative int or a list, with its IndexError / repeated-dim texts), [`result_shape`]
//! (keepdim or not), [`reduction_plan`] (allocate the contiguous result with the reduced dims
//! kept as size 1, build the iterator with `is_reduction`), [`scan_plan`] (the cumsum
//! "restride": a static shape with the scanned dim squashed to 1).

use super::{TensorIterator, TensorIteratorConfig};
use crate::dtype::DType;
use crate::error::{Error, Result};
use crate::memory_format::contiguous_strides;
use crate::Array;

/// torch's `maybe_wrap_dim`: a dim in `[-ndim, ndim)` (a 0-d array takes `[-1, 0]`), else its
/// IndexError.
pub fn wrap_dim(dim: i64, ndim: usize) -> Result<usize> {
    let n = ndim.max(1) as i64;
    if dim < -n || dim >= n {
        return Err(Error::index(format!(
            "Dimension out of range (expected to be in range of [{}, {}], but got {dim})",
            -n,
            n - 1
        )));
    }
    Ok((if dim < 0 { dim + n } else { dim }) as usize)
}

/// The reduced dims as a mask over the input's dims: `None` or an empty list is every dim
/// (torch's rule); repeated dims are torch's error.
pub fn reduced_dims(dims: Option<&[i64]>, ndim: usize) -> Result<Vec<bool>> {
    let mut mask = vec![false; ndim];
    match dims {
        None | Some([]) => mask.iter_mut().for_each(|m| *m = true),
        Some(list) => {
            let wrapped = list
                .iter()
                .map(|&d| wrap_dim(d, ndim))
                .collect::<Result<Vec<_>>>()?;
            for w in wrapped {
                if ndim == 0 {
                    continue;
                }
                if mask[w] {
                    return Err(Error::value(format!(
                        "dim {w} appears multiple times in the list of dims"
                    )));
                }
                mask[w] = true;
            }
        }
    }
    Ok(mask)
}

/// The result's shape: reduced dims become 1 (`keepdim`) or disappear.
pub fn result_shape(shape: &[usize], mask: &[bool], keepdim: bool) -> Vec<usize> {
    shape
        .iter()
        .zip(mask)
        .filter_map(|(&n, &m)| match (m, keepdim) {
            (false, _) => Some(n),
            (true, true) => Some(1),
            (true, false) => None,
        })
        .collect()
}

/// A built reduction: the plan (output 0 is the result with the reduced dims kept as size 1,
/// at stride 0 in the plan; input 1 is the user's array in place) and the result as the user
/// gets it (`keepdim=False` drops the size-1 dims of the contiguous result: still contiguous).
#[derive(Debug, Clone)]
pub struct Reduction {
    /// The iteration plan (see the struct doc).
    pub plan: TensorIterator,
    /// The result as the user gets it.
    pub result: Array,
    /// Elements reduced into each output element.
    pub reduced_numel: usize,
}

/// The reduction of `input` over `mask` into a new contiguous result of `out_dtype`:
/// torch's `make_reduction` (result allocated contiguous, reduction dims first in the walk).
/// `linear` keeps the dims in their logical order instead of sorting them by stride, so that
/// the walk's position along the reduced dims is the logical (row-major) index that
/// `argmax`/`argmin` return.
pub fn reduction_plan(
    input: &Array,
    mask: &[bool],
    keepdim: bool,
    out_dtype: DType,
    linear: bool,
) -> Result<Reduction> {
    let kept_shape = result_shape(input.shape(), mask, true);
    let out =
        Array::empty_strided_unzeroed(&kept_shape, &contiguous_strides(&kept_shape), out_dtype)?;
    let reduced_numel = input
        .shape()
        .iter()
        .zip(mask)
        .filter(|(_, &m)| m)
        .map(|(&n, _)| n)
        .product();
    let result = if keepdim {
        out.clone()
    } else {
        let user_shape = result_shape(input.shape(), mask, false);
        out.with_layout(crate::layout::Layout::contiguous(&user_shape))?
    };
    let mut config = TensorIteratorConfig::new();
    config
        .check_mem_overlap(false)
        .check_all_same_dtype(false)
        .resize_outputs(false)
        .is_reduction(true)
        .enforce_linear_iteration(linear)
        .add_output(Some(out))
        .add_const_input(input.clone());
    Ok(Reduction {
        plan: config.into_plan()?,
        result,
        reduced_numel,
    })
}

/// A scan along `dim` (cumsum, cumprod): torch's restride trick. The result is allocated
/// contiguous with the input's shape; the iterator walks both over the input's shape with
/// `dim` squashed to 1 (a static shape), so each step is the start of one line along `dim`,
/// which the kernel walks with each operand's own stride along `dim` (returned, in bytes, with
/// the line length).
pub fn scan_plan(
    input: &Array,
    dim: usize,
    out_dtype: DType,
) -> Result<(TensorIterator, Array, Line)> {
    let shape = input.shape().to_vec();
    let out = Array::empty_strided_unzeroed(&shape, &contiguous_strides(&shape), out_dtype)?;
    let mut squashed = shape.clone();
    let line = if input.numel() == 0 {
        // Nothing to scan: an empty walk (torch returns at once).
        squashed.iter_mut().for_each(|n| *n = 0);
        Line {
            len: 0,
            out_stride: 0,
            in_stride: 0,
        }
    } else if shape.is_empty() {
        Line {
            len: 1,
            out_stride: 0,
            in_stride: 0,
        }
    } else {
        squashed[dim] = 1;
        Line {
            len: shape[dim],
            out_stride: out.strides()[dim] * out_dtype.itemsize() as isize,
            in_stride: input.strides()[dim] * input.itemsize() as isize,
        }
    };
    let mut config = TensorIteratorConfig::new();
    config
        .check_mem_overlap(false)
        .check_all_same_dtype(false)
        .declare_static_shape(&squashed)
        .add_output(Some(out.clone()))
        .add_const_input(input.clone());
    Ok((config.into_plan()?, out, line))
}

/// One line of a scan: its length and each operand's byte stride along it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Line {
    /// Elements along the line.
    pub len: usize,
    /// The output's byte stride along the line.
    pub out_stride: isize,
    /// The input's byte stride along the line.
    pub in_stride: isize,
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{MemoryFormat, Scalar};

    #[test]
    fn dims_and_shapes() {
        assert_eq!(reduced_dims(None, 3).unwrap(), vec![true; 3]);
        assert_eq!(
            reduced_dims(Some(&[-1]), 3).unwrap(),
            vec![false, false, true]
        );
        assert_eq!(
            reduced_dims(Some(&[3]), 3).unwrap_err().to_string(),
            "Dimension out of range (expected to be in range of [-3, 2], but got 3)"
        );
        assert_eq!(
            reduced_dims(Some(&[0, -3]), 3).unwrap_err().to_string(),
            "dim 0 appears multiple times in the list of dims"
        );
        assert_eq!(reduced_dims(Some(&[-1]), 0).unwrap(), Vec::<bool>::new());
        assert_eq!(
            result_shape(&[2, 3, 4], &[false, true, false], false),
            vec![2, 4]
        );
        assert_eq!(
            result_shape(&[2, 3, 4], &[false, true, false], true),
            vec![2, 1, 4]
        );
    }

    #[test]
    fn channels_last_input_is_reduced_in_place_with_reduced_dims_first() {
        let a = Array::full(
            &[2, 3, 4, 5],
            Scalar::Float(1.0),
            DType::F32,
            MemoryFormat::ChannelsLast,
        )
        .unwrap();
        let r = reduction_plan(&a, &[false, false, true, true], true, DType::F32, false).unwrap();
        assert_eq!(r.result.shape(), &[2, 3, 1, 1]);
        assert_eq!(r.result.strides(), &[3, 1, 1, 1]);
        assert_eq!(r.reduced_numel, 20);
        // Reduced H, W (coalesced, input stride 3 elements) first, then C, then N.
        assert_eq!(r.plan.shape(), &[20, 3, 2]);
        assert_eq!(r.plan.strides(0).unwrap(), &[0, 4, 12]);
        assert_eq!(r.plan.strides(1).unwrap(), &[12, 4, 240]);
        assert!(r.plan.operands()[1]
            .array
            .as_ref()
            .unwrap()
            .shares_storage(&a));
    }
}
