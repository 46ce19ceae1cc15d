//! The kernels' side of the blocked formats (`crate::blocked`): conversions to and from them as
//! one or two strided copies (the full channel blocks, then the partial last one), and the
//! routing of elementwise ops.
//!
//! An elementwise op whose array operands are all in one blocked format (same block, same
//! logical shape; 0-d arrays and Python numbers broadcast anyway) runs over the physical
//! views, padding lanes included, and then writes zero to the padding again (so `exp`, `+ 1`
//! or `clamp(min=1)` leave it zero). Any other mix converts its blocked operands to dense
//! NC(D)HW copies and computes as usual; a blocked `out=` then is refused.

use super::args::Arg;
use super::copy;
use crate::blocked::{physical_part, split_channels, Blocking};
use crate::error::{Error, Result};
use crate::{Array, MemoryFormat};

/// A dense NC(D)HW copy of a blocked array (the array itself when it is strided).
pub fn dense(a: &Array) -> Result<Array> {
    if a.blocking().is_none() {
        return Ok(a.clone());
    }
    let out = Array::empty(a.shape(), a.dtype(), MemoryFormat::Contiguous)?;
    copy_into(&out, a)?;
    Ok(out)
}

/// `dst.copy_(src)` where either is blocked: the conversion walks the strided parts with the
/// ordinary (tiled, transposing) copy, converting dtypes on the way. Zero converts to zero in
/// every dtype, so a blocked-to-blocked copy of the whole physical view keeps the padding zero.
pub fn copy_into(dst: &Array, src: &Array) -> Result<()> {
    match (dst.blocking(), src.blocking()) {
        (Some(d), Some(s)) if d == s => copy::copy_into(&dst.physical(), &src.physical()),
        (Some(d), _) => {
            let src = dense(src)?;
            let target: Vec<i64> = d.shape.iter().map(|&n| n as i64).collect();
            // torch's copy_ broadcasting (and its error) to the logical shape
            let src = src.expand(&target)?;
            let physical = dst.physical();
            for (first, blocks, lanes) in d.parts() {
                if blocks == 0 {
                    continue;
                }
                let to = physical.with_layout(physical_part(
                    physical.layout(),
                    first,
                    blocks,
                    0,
                    lanes,
                ))?;
                let from =
                    src.with_layout(split_channels(src.layout(), d.block, first, blocks, lanes))?;
                copy::copy_into(&to, &from)?;
            }
            Ok(())
        }
        (None, Some(s)) => {
            if dst.shape() != s.shape.as_slice() {
                return copy::copy_into(dst, &dense(src)?);
            }
            let physical = src.physical();
            for (first, blocks, lanes) in s.parts() {
                if blocks == 0 {
                    continue;
                }
                let from = physical.with_layout(physical_part(
                    physical.layout(),
                    first,
                    blocks,
                    0,
                    lanes,
                ))?;
                let to =
                    dst.with_layout(split_channels(dst.layout(), s.block, first, blocks, lanes))?;
                copy::copy_into(&to, &from)?;
            }
            Ok(())
        }
        (None, None) => copy::copy_into(dst, src),
    }
}

/// Whether any operand (or the out) of an elementwise op is blocked.
pub fn involved(args: &[&Arg], out: Option<&Array>) -> bool {
    out.is_some_and(|o| o.blocking().is_some())
        || args
            .iter()
            .any(|a| matches!(a, Arg::Array(x) if x.blocking().is_some()))
}

/// Runs the elementwise op `f` on operands of which some are blocked (see the module doc).
/// `padding_safe`: whether `f` may run on the zero padding lanes (an integer division by
/// zero there would raise, so divisions take the dense route when there is padding).
pub fn elementwise(
    args: &[Arg],
    out: Option<&Array>,
    padding_safe: bool,
    f: impl FnOnce(&[Arg], Option<Array>) -> Result<Array>,
) -> Result<Array> {
    let first = args
        .iter()
        .filter_map(|a| match a {
            Arg::Array(x) => x.blocking(),
            Arg::Scalar(_) => None,
        })
        .chain(out.and_then(Array::blocking))
        .next()
        .cloned();
    let Some(blocking) = first else {
        return f(args, out.cloned());
    };
    let fits = |x: &Array| match x.blocking() {
        Some(b) => *b == blocking,
        None => x.ndim() == 0,
    };
    let same_format = args.iter().all(|a| match a {
        Arg::Array(x) => fits(x),
        Arg::Scalar(_) => true,
    }) && out.is_none_or(|o| o.blocking() == Some(&blocking));
    let has_padding = !blocking.channels().is_multiple_of(blocking.block);
    if same_format && (padding_safe || !has_padding) {
        return physical_op(args, out, &blocking, f);
    }
    if let Some(o) = out.filter(|o| o.blocking().is_some()) {
        return Err(Error::value(format!(
            "an out= in the blocked format {} needs every array operand in that format with its shape {} (got another format or shape); convert the operands first",
            blocking.format().name(),
            crate::shape::fmt_shape(o.shape())
        )));
    }
    let dense_args = args
        .iter()
        .map(|a| match a {
            Arg::Array(x) => dense(x).map(Arg::Array),
            Arg::Scalar(s) => Ok(Arg::Scalar(*s)),
        })
        .collect::<Result<Vec<_>>>()?;
    f(&dense_args, None)
}

/// `f` over the physical views of operands in one blocked format, the padding zeroed after.
fn physical_op(
    args: &[Arg],
    out: Option<&Array>,
    blocking: &Blocking,
    f: impl FnOnce(&[Arg], Option<Array>) -> Result<Array>,
) -> Result<Array> {
    let physical_args: Vec<Arg> = args
        .iter()
        .map(|a| match a {
            Arg::Array(x) => Arg::Array(x.physical()),
            Arg::Scalar(s) => Arg::Scalar(*s),
        })
        .collect();
    let result = f(&physical_args, out.map(Array::physical))?;
    if let Some(o) = out {
        // The shapes agree, so the out is never resized: the result is its physical view.
        if !(result.shares_storage(o) && result.layout() == o.layout()) {
            return Err(Error::value(
                "a blocked out= would have been replaced by the operation",
            ));
        }
        o.zero_padding()?;
        return Ok(o.clone());
    }
    let result = if result.layout() == &blocking.physical_layout() {
        result
    } else {
        copy::converted_copy(&result, None, MemoryFormat::Contiguous)?
    };
    let result = result.into_blocked(blocking.clone())?;
    result.zero_padding()?;
    Ok(result)
}
