//! Broadcasting and dimension arithmetic (§3), with torch's error texts.
#![forbid(unsafe_code)]

use crate::error::{Error, Result};

/// Formats a shape as torch prints it in messages: `[2, 3]`.
pub fn fmt_shape<T: std::fmt::Display>(shape: &[T]) -> String {
    let parts: Vec<String> = shape.iter().map(|s| s.to_string()).collect();
    format!("[{}]", parts.join(", "))
}

/// torch's `infer_size(a, b)`: right-aligned, scanned from the last dim so that the
/// highest-index mismatch is the one reported; size 1 maps to the other size, 0 included.
pub fn infer_size(a: &[usize], b: &[usize]) -> Result<Vec<usize>> {
    let n = a.len().max(b.len());
    let mut out = vec![0usize; n];
    for i in (0..n).rev() {
        let offset = n - 1 - i;
        let size_a = if offset < a.len() {
            a[a.len() - 1 - offset]
        } else {
            1
        };
        let size_b = if offset < b.len() {
            b[b.len() - 1 - offset]
        } else {
            1
        };
        if size_a != size_b && size_a != 1 && size_b != 1 {
            return Err(Error::value(format!(
                "The size of tensor a ({size_a}) must match the size of tensor b ({size_b}) at non-singleton dimension {i}"
            )));
        }
        out[i] = if size_a == 1 { size_b } else { size_a };
    }
    Ok(out)
}

/// The broadcast of any number of shapes: a left fold of `infer_size`, so "tensor a" is the
/// shape accumulated so far, as in torch.
pub fn broadcast_shapes<S: AsRef<[usize]>>(shapes: &[S]) -> Result<Vec<usize>> {
    let mut acc: Vec<usize> = Vec::new();
    for s in shapes {
        acc = infer_size(&acc, s.as_ref())?;
    }
    Ok(acc)
}

/// Why `broadcast_shapes_like_torch` refused, in the terms of torch's Python
/// `torch.broadcast_shapes` (whose texts differ from `infer_size`'s).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ShapesMismatch {
    /// A negative size met a slot still at 1.
    Negative,
    /// Size `size` of shape number `arg`, at `idx` (negative: counted from the end), does not
    /// broadcast to `common`, the result as far as it was computed.
    Mismatch {
        /// Which shape (its position among the arguments).
        arg: usize,
        /// Which dim of it, counted from the end (-1 is the last).
        idx: i64,
        /// Its size there.
        size: i64,
        /// The result as far as it was computed.
        common: Vec<i64>,
    },
}

/// `torch.broadcast_shapes`: the result starts as all ones and each shape in turn is matched
/// against it from the last dim; a slot at 1 takes the shape's size, a size 1 always fits.
pub fn broadcast_shapes_like_torch(
    shapes: &[Vec<i64>],
) -> std::result::Result<Vec<i64>, ShapesMismatch> {
    let ndim = shapes.iter().map(Vec::len).max().unwrap_or(0);
    let mut common = vec![1i64; ndim];
    for (arg, shape) in shapes.iter().enumerate() {
        for back in 1..=shape.len() {
            let (size, slot) = (shape[shape.len() - back], ndim - back);
            if size == common[slot] {
                continue;
            }
            if common[slot] == 1 {
                if size < 0 {
                    return Err(ShapesMismatch::Negative);
                }
                common[slot] = size;
            }
            if size != 1 && common[slot] != size {
                return Err(ShapesMismatch::Mismatch {
                    arg,
                    idx: -(back as i64),
                    size,
                    common,
                });
            }
        }
    }
    Ok(common)
}

/// torch's `inferExpandGeometry`: the strides of `shape`/`strides` expanded to `target`.
/// Expanded size-1 dims get stride 0; `-1` in `target` keeps a size. A new leading dim of size 1
/// gets the stride that would step over the dims after it, any other new leading dim stride 0.
/// A 0-d source gets stride 0 everywhere.
pub fn expand_strides(
    shape: &[usize],
    strides: &[isize],
    target: &[i64],
    type_name: &str,
) -> Result<(Vec<usize>, Vec<isize>)> {
    let ndim = shape.len();
    let tdim = target.len();
    if tdim < ndim {
        return Err(Error::value(format!(
            "expand({type_name}{{{}}}, size={}): the number of sizes provided ({tdim}) must be greater or equal to the number of dimensions in the tensor ({ndim})",
            fmt_shape(shape),
            fmt_shape(target),
        )));
    }
    let mut out_shape = vec![0i64; tdim];
    let mut out_strides = vec![0isize; tdim];
    if ndim == 0 {
        // torch expands a 0-d tensor without looking at the sizes: every stride is 0 and a -1
        // stays -1 (a negative size, refused below).
        out_shape.copy_from_slice(target);
    }
    for i in (0..tdim).rev().filter(|_| ndim > 0) {
        let offset = tdim - 1 - i;
        let existing = offset < ndim;
        let (size, stride) = if existing {
            let dim = ndim - 1 - offset;
            (shape[dim] as i64, strides[dim])
        } else {
            // (ndim > 0, so a leading dim is never the last one)
            (1, out_shape[i + 1] as isize * out_strides[i + 1])
        };
        let mut target_size = target[i];
        if target_size == -1 {
            if !existing {
                return Err(Error::value(format!(
                    "The expanded size of the tensor (-1) isn't allowed in a leading, non-existing dimension {i}"
                )));
            }
            target_size = size;
        }
        if size != target_size {
            if size != 1 {
                return Err(Error::value(format!(
                    "The expanded size of the tensor ({target_size}) must match the existing size ({size}) at non-singleton dimension {i}.  Target sizes: {}.  Tensor sizes: {}",
                    fmt_shape(target),
                    fmt_shape(shape),
                )));
            }
            out_shape[i] = target_size;
            out_strides[i] = 0;
        } else {
            out_shape[i] = size;
            out_strides[i] = stride;
        }
    }
    if out_shape.iter().any(|&s| s < 0) {
        // torch goes on to count the elements and fails there (it even makes tensors of negative
        // size when another size is 0; ferroiter always refuses).
        return Err(Error::value("numel: integer multiplication overflow"));
    }
    Ok((out_shape.iter().map(|&s| s as usize).collect(), out_strides))
}

/// torch's `maybe_wrap_dim`: a possibly negative dim made absolute, or torch's `IndexError`.
/// A 0-d tensor accepts dims -1 and 0.
pub fn wrap_dim(dim: i64, ndim: usize) -> Result<usize> {
    let rank = ndim.max(1) as i64;
    if dim < -rank || dim >= rank {
        return Err(Error::index(format!(
            "Dimension out of range (expected to be in range of [{}, {}], but got {dim})",
            -rank,
            rank - 1
        )));
    }
    Ok(if dim < 0 {
        (dim + rank) as usize
    } else {
        dim as usize
    })
}

/// `maybe_wrap_dim` with `wrap_scalar=false` (as `stride(dim)` uses it): a 0-d tensor has no
/// dim at all.
pub fn wrap_dim_no_scalar(dim: i64, ndim: usize) -> Result<usize> {
    if ndim == 0 {
        return Err(Error::index(format!(
            "Dimension specified as {dim} but tensor has no dimensions"
        )));
    }
    wrap_dim(dim, ndim)
}

/// Checks sizes given by a user (`empty(shape)`): none may be negative.
pub fn check_sizes(shape: &[i64]) -> Result<Vec<usize>> {
    if let Some(&bad) = shape.iter().find(|&&s| s < 0) {
        return Err(Error::value(format!(
            "Trying to create tensor with negative dimension {bad}: {}",
            fmt_shape(shape)
        )));
    }
    Ok(shape.iter().map(|&s| s as usize).collect())
}

/// The number of elements, or a `ValueError` when it does not fit an `isize` of bytes.
pub fn checked_numel(shape: &[usize]) -> Result<usize> {
    shape
        .iter()
        .try_fold(1usize, |acc, &s| acc.checked_mul(s))
        .filter(|&n| n <= isize::MAX as usize / 16)
        .ok_or_else(|| Error::value(format!("shape {} has too many elements", fmt_shape(shape))))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn broadcast_examples() {
        assert_eq!(infer_size(&[1], &[0]).unwrap(), vec![0]);
        assert_eq!(infer_size(&[4, 1, 3], &[2, 1]).unwrap(), vec![4, 2, 3]);
        let err = broadcast_shapes(&[vec![2, 3], vec![3], vec![2, 1, 4]]).unwrap_err();
        assert_eq!(
            err.to_string(),
            "The size of tensor a (3) must match the size of tensor b (4) at non-singleton dimension 2"
        );
    }

    #[test]
    fn broadcast_shapes_like_torch_reports_its_progress() {
        let shapes = [vec![2, 3], vec![3], vec![2, 1, 4]];
        assert_eq!(
            broadcast_shapes_like_torch(&shapes),
            Err(ShapesMismatch::Mismatch {
                arg: 2,
                idx: -1,
                size: 4,
                common: vec![1, 2, 3]
            })
        );
        assert_eq!(
            broadcast_shapes_like_torch(&[vec![1], vec![0]]),
            Ok(vec![0])
        );
        assert_eq!(
            broadcast_shapes_like_torch(&[vec![-1]]),
            Err(ShapesMismatch::Negative)
        );
    }

    #[test]
    fn expand_error_text() {
        let err = expand_strides(&[2, 3], &[3, 1], &[2, 4], "torch.FloatTensor").unwrap_err();
        assert_eq!(
            err.to_string(),
            "The expanded size of the tensor (4) must match the existing size (3) at non-singleton dimension 1.  Target sizes: [2, 4].  Tensor sizes: [2, 3]"
        );
    }

    #[test]
    fn wrap() {
        assert_eq!(wrap_dim(-1, 3).unwrap(), 2);
        assert_eq!(wrap_dim(0, 0).unwrap(), 0);
        assert!(wrap_dim(3, 3).is_err());
    }
}
