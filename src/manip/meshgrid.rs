//! `meshgrid(*arrays, indexing)`: views. Input `i` (0-d or 1-D) is viewed along dim `i` of the
//! grid and expanded over the others; "xy" swaps the roles of the first two inputs (the grid's
//! first two dims), as torch does.
#![forbid(unsafe_code)]

use crate::array::Array;
use crate::error::{Error, Result};

/// `meshgrid(arrays, indexing)` with `indexing` "ij" or "xy".
pub fn meshgrid(arrays: &[Array], indexing: &str) -> Result<Vec<Array>> {
    if arrays.is_empty() {
        return Err(Error::value("meshgrid expects a non-empty TensorList"));
    }
    if let Some(bad) = arrays.iter().find(|a| a.ndim() > 1) {
        return Err(Error::value(format!(
            "torch.meshgrid: Expected 0D or 1D tensor in the tensor list but got: {}",
            crate::shape::fmt_shape(bad.shape())
        )));
    }
    let dtype = arrays[0].dtype();
    if arrays.iter().any(|a| a.dtype() != dtype) {
        return Err(Error::value(
            "meshgrid expects all tensors to have the same dtype",
        ));
    }
    let swap = match indexing {
        "ij" => false,
        "xy" => true,
        other => {
            return Err(Error::value(format!(
                "torch.meshgrid: indexing must be one of \"xy\" or \"ij\", but received: {other}"
            )))
        }
    };
    let mut inputs: Vec<&Array> = arrays.iter().collect();
    if swap && inputs.len() >= 2 {
        inputs.swap(0, 1);
    }
    let grid: Vec<i64> = inputs.iter().map(|a| a.numel() as i64).collect();
    let mut grids = inputs
        .iter()
        .enumerate()
        .map(|(i, a)| {
            let mut shape = vec![1i64; inputs.len()];
            shape[i] = -1;
            a.view(&shape)?.expand(&grid)
        })
        .collect::<Result<Vec<_>>>()?;
    if swap && grids.len() >= 2 {
        grids.swap(0, 1);
    }
    Ok(grids)
}
