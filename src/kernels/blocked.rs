//! The kernels' side of the blocked formats (`crate::blocked`): conversions to and from them as
//! one or two strided copies (the full channel blocks, then the partial last one), and the
//! routing of elementwise ops.
//!
//! An elementwise op whose array operands are all in one blocked format (same block, same
//! logical shape; 0-d arrays and Python numbers broadcast anyway) runs over the physical
//! views, padding lanes included, and then writes zero to the padding again (so `exp`, `+ 1`
//! or `clamp(min=1)` leave it zero). Any other mix converts its blocked operands to dense
//! NC(D)HW copies and computes as usual; a blocked `out=` then receives the dense result.

use super::args::Arg;
use super::copy;
use crate::blocked::{physical_part, split_channels, Blocking};
use crate::error::{Error, Result};
use crate::{Array, MemoryFormat};

/// A dense NC(D)HW copy of a blocked array (the array itself when it is strided). The copy
/// is allocated unzeroed where it writes every element (`Array::empty_like_for_copy`).
pub fn dense(a: &Array) -> Result<Array> {
    if a.blocking().is_none() {
        return Ok(a.clone());
    }
    let out = a.empty_like_for_copy(None, MemoryFormat::Contiguous)?;
    copy_into(&out, a)?;
    Ok(out)
}

/// Dense copies of the blocked arrays among `arrays` (the others as they are): for the
/// functions that compute on logical elements through strides (sorting, gathering, matrix
/// products), whose results then are dense too.
pub fn dense_all(arrays: &[Array]) -> Result<Vec<Array>> {
    arrays.iter().map(dense).collect()
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
    // A blocked out= with operands in other formats: computed into a dense copy of the out
    // (an operand that is the out itself reads that same copy, so torch's in-place rules
    // still see one operand), then copied back into the logical lanes.
    let dense_out = match out {
        Some(o) if o.blocking().is_some() => Some(dense(o)?),
        _ => out.cloned(),
    };
    let is_out = |x: &Array| {
        out.is_some_and(|o| {
            o.blocking().is_some()
                && x.blocking() == o.blocking()
                && x.shares_storage(o)
                && x.layout() == o.layout()
        })
    };
    let dense_args = args
        .iter()
        .map(|a| match a {
            Arg::Array(x) if is_out(x) => Ok(Arg::Array(dense_out.clone().expect("out is given"))),
            Arg::Array(x) => dense(x).map(Arg::Array),
            Arg::Scalar(s) => Ok(Arg::Scalar(*s)),
        })
        .collect::<Result<Vec<_>>>()?;
    let result = f(&dense_args, dense_out.clone())?;
    match (out, dense_out) {
        (Some(o), Some(d)) if o.blocking().is_some() => {
            if !(result.shares_storage(&d) && result.layout() == d.layout()) {
                return Err(Error::value(format!(
                    "an out= in the blocked format {} cannot be resized: the result has shape {}, the out {}",
                    blocking.format().name(),
                    crate::shape::fmt_shape(result.shape()),
                    crate::shape::fmt_shape(o.shape())
                )));
            }
            copy_into(o, &result)?;
            Ok(o.clone())
        }
        _ => Ok(result),
    }
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{DType, Scalar};

    fn counting(shape: &[usize]) -> Array {
        let n: usize = shape.iter().product();
        let a = Array::arange(
            Scalar::Int(1),
            Scalar::Int(n as i64 + 1),
            Scalar::Int(1),
            DType::F32,
        )
        .unwrap();
        let dims: Vec<i64> = shape.iter().map(|&d| d as i64).collect();
        a.view(&dims).unwrap()
    }

    #[test]
    fn round_trip_and_padding() {
        let x = counting(&[2, 11, 3, 2]);
        let b = Array::empty(x.shape(), DType::F32, MemoryFormat::NChw8c).unwrap();
        copy_into(&b, &x).unwrap();
        let back = dense(&b).unwrap();
        assert_eq!(back.to_scalars().unwrap(), x.to_scalars().unwrap());
        // storage: every logical element at the formula's offset, zeros elsewhere
        let blocking = b.blocking().unwrap().clone();
        let storage = b.physical().to_scalars().unwrap();
        let mut expected = vec![Scalar::Float(0.0); storage.len()];
        let mut i = 0;
        for n in 0..2 {
            for c in 0..11 {
                for h in 0..3 {
                    for w in 0..2 {
                        i += 1;
                        expected[blocking.offset(&[n, c, h, w])] = Scalar::Float(i as f64);
                    }
                }
            }
        }
        assert_eq!(storage, expected);
        let e = crate::kernels::unary(crate::kernels::UnaryOp::Exp, &b, None).unwrap();
        assert_eq!(e.blocking(), b.blocking());
        let pad = crate::blocked::padding_part(&blocking, e.layout()).unwrap();
        let pad = e.physical().with_layout(pad).unwrap();
        assert!(pad.to_scalars().unwrap().iter().all(|s| s.as_f64() == 0.0));
    }

    #[test]
    fn plain_iterators_refuse_blocked_operands() {
        let b = Array::empty(&[1, 3, 2, 2], DType::F32, MemoryFormat::NChw16c).unwrap();
        let err = crate::TensorIteratorConfig::unary_op(None, b)
            .build()
            .unwrap_err();
        assert!(err
            .to_string()
            .starts_with("iterator operands of an array in the blocked format nChw16c"));
    }
}
