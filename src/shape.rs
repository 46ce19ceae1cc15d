//! Broadcasting and dimension arithmetic (§3), with torch's error texts.

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

/// torch's `inferExpandGeometry`: the strides of `shape`/`strides` expanded to `target`.
/// New leading dims and expanded size-1 dims get stride 0; `-1` in `target` keeps a size.
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
    let mut out_shape = vec![0usize; tdim];
    let mut out_strides = vec![0isize; tdim];
    for i in (0..tdim).rev() {
        let offset = tdim - 1 - i;
        let target_size = target[i];
        if offset >= ndim {
            if target_size < 0 {
                return Err(Error::value(format!(
                    "The expanded size of the tensor ({target_size}) isn't allowed in a leading, non-existing dimension {i}"
                )));
            }
            out_shape[i] = target_size as usize;
            out_strides[i] = 0;
            continue;
        }
        let dim = ndim - 1 - offset;
        let (size, stride) = (shape[dim], strides[dim]);
        let size_i = if target_size == -1 {
            size as i64
        } else {
            target_size
        };
        if size as i64 != size_i {
            if size != 1 {
                return Err(Error::value(format!(
                    "The expanded size of the tensor ({size_i}) must match the existing size ({size}) at non-singleton dimension {i}.  Target sizes: {}.  Tensor sizes: {}",
                    fmt_shape(target),
                    fmt_shape(shape),
                )));
            }
            if size_i < 0 {
                return Err(Error::value(format!(
                    "Trying to create tensor with negative dimension {size_i}: {}",
                    fmt_shape(target)
                )));
            }
            out_shape[i] = size_i as usize;
            out_strides[i] = 0;
        } else {
            out_shape[i] = size;
            out_strides[i] = stride;
        }
    }
    Ok((out_shape, out_strides))
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
