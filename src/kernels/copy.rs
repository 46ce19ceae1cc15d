//! `copy_` with torch's conversions (the same dtype moves bytes; another dtype converts every
//! element: `Element::cast`, float → int truncates, → bool is `!= 0`, ints wrap), and the
//! copies built on it with torch's aliasing rules: `contiguous`, `to`, `clone`, `reshape`.

use super::element::f16_from_f32;
use super::run::{run, run_copy};
use crate::error::Result;
use crate::exec::raw::{copy_bytes, copy_streamed, f32_to_f16_rows, f32_to_f64_streamed, map1};
use crate::exec::{Block, CopyStrategy};
use crate::plan::TensorIteratorConfig;
use crate::{dispatch_all, Array, DType, Error, MemoryFormat};

/// `dst.copy_(src)`: `src` broadcasts to `dst`'s shape, dtypes may differ; torch's checks
/// (shape, internal overlap of `dst`, partial overlap) come from the copy plan.
pub fn copy_into(dst: &Array, src: &Array) -> Result<()> {
    if dst.blocking().is_some() || src.blocking().is_some() {
        return super::blocked::copy_into(dst, src);
    }
    // torch returns at once when both are the same view.
    if dst.shares_storage(src) && dst.layout() == src.layout() && dst.dtype() == src.dtype() {
        return Ok(());
    }
    let (to, from) = (dst.dtype(), src.dtype());
    if dst.numel() == 1 && src.numel() == 1 && to == from && src.ndim() <= dst.ndim() {
        // one element of the same dtype (`a[i, j] = x`): its bytes, without a plan
        return dst.storage().copy_runs(
            std::iter::once(dst.storage_offset()),
            src.storage(),
            std::iter::once(src.storage_offset()),
            to.itemsize(),
            1,
        );
    }
    let plan = TensorIteratorConfig::copy_op(dst.clone(), src.clone()).into_plan()?;
    if dst.numel() == 0 {
        return Ok(());
    }
    let stream = crate::exec::stores::copy_streams(plan.numel(), from.itemsize(), to.itemsize());
    if to == from {
        // the walk may move the bytes itself (direct tiles, the permuting copy): the executor
        // runs this kernel on the blocks of the walks that do not
        let width = to.itemsize();
        return run_copy(&plan, |strategy: &CopyStrategy| {
            let min_row = strategy.min_streamed_row();
            move |blk: &Block| {
                let long_rows = blk.size0() * width >= min_row;
                if !(stream && long_rows && copy_streamed(blk, width)) {
                    copy_bytes(blk, width)
                }
            }
        });
    }
    match (from, to) {
        (DType::F32, DType::F16) => {
            return run(&plan, |blk| {
                if !f32_to_f16_rows(blk, stream) {
                    map1::<f32, half::f16>(blk, f16_from_f32)
                }
            })
        }
        (DType::F32, DType::F64) => {
            return run(&plan, |blk| {
                if !(stream && f32_to_f64_streamed(blk)) {
                    map1::<f32, f64>(blk, |x| x as f64)
                }
            })
        }
        _ => {}
    }
    let unsupported = || Error::type_(format!("copy_ from {from} to {to} is not supported"));
    dispatch_all!(from, S => dispatch_all!(to, D => run(&plan, |blk| map1::<S, D>(blk, Element::cast::<D>)), else Err(unsupported())), else Err(unsupported()))
}

/// What a conversion gives: the array itself (torch returns `self`: the same tensor object)
/// or a new array.
#[derive(Debug, Clone)]
pub enum Converted {
    /// The array itself: nothing to convert.
    Same,
    /// A new array holding the converted values.
    New(Array),
}

/// A new array like `a` in `format` (preserve: torch's rule) holding `a`'s values as `dtype`
/// (`clone`, and `to`/`contiguous` when they copy).
pub fn converted_copy(a: &Array, dtype: Option<DType>, format: MemoryFormat) -> Result<Array> {
    // unzeroed where the copy writes all of it first (a dense source, the same strides)
    let out = a.empty_like_for_copy(dtype, format)?;
    copy_into(&out, a)?;
    Ok(out)
}

/// `a.contiguous(format)`: `a` itself when it is already contiguous in `format`, else a copy
/// laid out so. (`preserve_format` is refused, as torch refuses it.)
pub fn contiguous(a: &Array, format: MemoryFormat) -> Result<Converted> {
    if format == MemoryFormat::Preserve {
        return Err(Error::value("contiguous() does not take preserve_format"));
    }
    if a.is_contiguous_as(format)? {
        return Ok(Converted::Same);
    }
    Ok(Converted::New(converted_copy(a, None, format)?))
}

/// `a.to(dtype, memory_format, copy)`: `a` itself when nothing changes (same dtype, and the
/// format `preserve_format` or the one `a` suggests) unless `copy`, else a converted copy.
pub fn to(a: &Array, dtype: Option<DType>, format: MemoryFormat, copy: bool) -> Result<Converted> {
    let dtype = dtype.unwrap_or(a.dtype());
    let aliases = dtype == a.dtype()
        && (format == MemoryFormat::Preserve || a.suggest_memory_format(false) == format);
    if aliases && !copy {
        return Ok(Converted::Same);
    }
    Ok(Converted::New(converted_copy(a, Some(dtype), format)?))
}

/// `a.reshape(shape)`: a view when the strides allow it, else a contiguous copy viewed.
pub fn reshape(a: &Array, shape: &[i64]) -> Result<Array> {
    if a.blocking().is_some() {
        return converted_copy(a, None, MemoryFormat::Contiguous)?.view(shape);
    }
    match a.view(shape) {
        Ok(v) => Ok(v),
        Err(_) => converted_copy(a, None, MemoryFormat::Contiguous)?.view(shape),
    }
}
