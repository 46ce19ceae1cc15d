//! `copy_` with torch's conversions: the same dtype moves bytes; another dtype converts every
//! element (`Element::cast`: float → int truncates, → bool is `!= 0`, ints wrap).

use super::run::run;
use crate::error::Result;
use crate::exec::raw::{copy_bytes, map1};
use crate::plan::TensorIteratorConfig;
use crate::{dispatch_all, Array, Error};

/// `dst.copy_(src)`: `src` broadcasts to `dst`'s shape, dtypes may differ; torch's checks
/// (shape, internal overlap of `dst`, partial overlap) come from the copy plan.
pub fn copy_into(dst: &Array, src: &Array) -> Result<()> {
    // torch returns at once when both are the same view.
    if dst.shares_storage(src) && dst.layout() == src.layout() && dst.dtype() == src.dtype() {
        return Ok(());
    }
    let plan = TensorIteratorConfig::copy_op(dst.clone(), src.clone()).into_plan()?;
    if dst.numel() == 0 {
        return Ok(());
    }
    let (to, from) = (dst.dtype(), src.dtype());
    if to == from {
        let width = to.itemsize();
        return run(&plan, |blk| copy_bytes(blk, width));
    }
    let unsupported = || Error::type_(format!("copy_ from {from} to {to} is not supported"));
    dispatch_all!(from, S => dispatch_all!(to, D => run(&plan, |blk| map1::<S, D>(blk, |x| x.cast::<D>())), else Err(unsupported())), else Err(unsupported()))
}
