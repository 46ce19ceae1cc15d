//! Users' own kernels through the iterator: a [`Signature`] declares a kernel's dtypes, [`map`]
//! builds the plan an elementwise op would (broadcasting, outputs allocated in the inputs'
//! layout, `out=` resized by torch's rules, overlap checks, coalescing, tiles for transposed
//! operands) and runs the kernel on its 2-D blocks in parallel, [`select`] picks one kernel of
//! several by the operands' dtypes (a registered op's dispatch).
//!
//! A kernel's dtypes are declared, not inferred: an operand of another dtype is refused (the
//! caller converts it, or [`select`] does when it promotes), so the kernel always reads what it
//! was compiled for.

use super::args::{converted, result_type, Arg};
use super::run::run;
use crate::dtype::{can_cast, DType};
use crate::error::{Error, Result};
use crate::exec::{Block, ForeignLoop, MAX_OPERANDS};
use crate::plan::TensorIteratorConfig;
use crate::Array;
use smallvec::SmallVec;
use std::fmt;

/// The dtypes a kernel writes and reads, in its operands' order (outputs, then inputs).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Signature {
    outputs: SmallVec<[DType; 2]>,
    inputs: SmallVec<[DType; 4]>,
}

impl Signature {
    /// A signature of at least one output and at most [`MAX_OPERANDS`] operands.
    pub fn new(outputs: &[DType], inputs: &[DType]) -> Result<Signature> {
        if outputs.is_empty() {
            return Err(Error::value(
                "a kernel's signature names at least one output",
            ));
        }
        if outputs.len() + inputs.len() > MAX_OPERANDS {
            return Err(Error::value(format!(
                "a kernel takes at most {MAX_OPERANDS} operands (outputs and inputs); this \
                 signature has {}",
                outputs.len() + inputs.len()
            )));
        }
        Ok(Signature {
            outputs: outputs.into(),
            inputs: inputs.into(),
        })
    }

    /// Parses `"float32(float32, float32)"` (one output) or `"(float32, int64)(float32)"`
    /// (several): numpy's dtype names, numba's style.
    pub fn parse(text: &str) -> Result<Signature> {
        let invalid = || {
            Error::value(format!(
                "invalid kernel signature {text:?}: expected outputs(inputs) such as \
                 'float32(float32, float32)', or '(float32, int64)(float32)' for two outputs"
            ))
        };
        let compact: String = text.chars().filter(|c| !c.is_whitespace()).collect();
        // the outputs: one name before '(', or a parenthesized list
        let split = match compact.strip_prefix('(') {
            Some(tuple) => tuple.split_once(')'),
            None => compact.find('(').map(|at| compact.split_at(at)),
        };
        let (outputs, rest) = split.ok_or_else(invalid)?;
        let inputs = rest
            .strip_prefix('(')
            .and_then(|r| r.strip_suffix(')'))
            .ok_or_else(invalid)?;
        let names = |list: &str| -> Result<SmallVec<[DType; 4]>> {
            if list.is_empty() {
                return Ok(SmallVec::new());
            }
            list.split(',').map(dtype_named).collect()
        };
        if inputs.contains(['(', ')']) || outputs.contains(['(', ')']) {
            return Err(invalid());
        }
        let (outputs, inputs) = (names(outputs)?, names(inputs)?);
        Signature::new(&outputs, &inputs)
    }

    /// The outputs' dtypes, in order.
    pub fn outputs(&self) -> &[DType] {
        &self.outputs
    }
    /// The inputs' dtypes, in order.
    pub fn inputs(&self) -> &[DType] {
        &self.inputs
    }
}

/// A dtype by numpy's name (numba's `boolean` too).
fn dtype_named(name: &str) -> Result<DType> {
    match name {
        "boolean" => Ok(DType::Bool),
        "" => Err(Error::value("a kernel's signature has an empty dtype name")),
        _ => DType::from_name(name),
    }
}

impl fmt::Display for Signature {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let list = |dtypes: &[DType]| {
            dtypes
                .iter()
                .map(|d| d.name())
                .collect::<Vec<_>>()
                .join(", ")
        };
        match self.outputs.as_slice() {
            [one] => write!(f, "{one}({})", list(&self.inputs)),
            many => write!(f, "({})({})", list(many), list(&self.inputs)),
        }
    }
}

/// How an operand is named in errors: its dtype, or the kind of a Python number.
fn describe(arg: &Arg) -> String {
    match arg {
        Arg::Array(a) => a.dtype().name().to_string(),
        Arg::Scalar(s) => format!("a Python {}", python_kind(*s)),
    }
}

fn python_kind(s: crate::Scalar) -> &'static str {
    match s {
        crate::Scalar::Bool(_) => "bool",
        crate::Scalar::Int(_) | crate::Scalar::UInt(_) => "int",
        crate::Scalar::Float(_) => "float",
        crate::Scalar::Complex(..) => "complex",
    }
}

/// Whether a Python number may be an input of `dtype`: torch's `can_cast` from the number's
/// kind (a bool into anything, an int into ints and floats, a float into floats and
/// complexes), its value checked against the dtype's range when converted.
fn number_fits(arg: &Arg, dtype: DType) -> bool {
    match arg {
        Arg::Array(a) => a.dtype() == dtype,
        Arg::Scalar(s) => can_cast(s.participant().dtype(), dtype),
    }
}

/// The inputs as the iterator takes them: arrays of the signature's dtypes as they are,
/// numbers as 0-d arrays of it (range-checked); anything else refused.
fn checked_inputs(signature: &Signature, inputs: &[Arg]) -> Result<Vec<Array>> {
    if inputs.len() != signature.inputs.len() {
        return Err(Error::type_(format!(
            "the kernel {signature} takes {} inputs but was given {}",
            signature.inputs.len(),
            inputs.len()
        )));
    }
    inputs
        .iter()
        .zip(&signature.inputs)
        .enumerate()
        .map(|(k, (arg, &dtype))| match arg {
            _ if !number_fits(arg, dtype) => Err(Error::type_(format!(
                "input {k} is {} but the kernel {signature} takes {dtype} there",
                describe(arg)
            ))),
            Arg::Array(a) => Ok(a.clone()),
            Arg::Scalar(s) => {
                s.checked_for(dtype)?;
                converted(arg, dtype)
            }
        })
        .collect()
}

/// Runs `body` as a kernel of `signature` over `inputs` into `outs` (one entry per output:
/// `None` allocates it in the inputs' layout, not zeroed unless bool: `body` must write every
/// element, an array is written in place, resized by
/// torch's `out=` rules when its shape differs). `body` receives the executor's [`Block`]s,
/// operands in the signature's order (outputs first), in parallel with the grain and thread
/// settings of every other loop. Returns the outputs.
///
/// ```
/// use ferroiter::kernels::user::{map, Signature};
/// use ferroiter::{Array, DType, MemoryFormat, Scalar};
///
/// let x = Array::full(&[2, 3], Scalar::Float(1.5), DType::F32, MemoryFormat::Contiguous)?;
/// let signature = Signature::parse("float32(float32, float32)")?;
/// let inputs = [x.clone().into(), Scalar::Float(2.0).into()];
/// let out = map(&signature, &inputs, &[None], |b| {
///     for j in 0..b.size1() {
///         for i in 0..b.size0() {
///             let (o, x, y) = (b.at(0, i, j) as *mut f32, b.at(1, i, j), b.at(2, i, j));
///             // SAFETY: i < size0(), j < size1(), operands of the signature's dtypes (the
///             // block's contract), operand 0 the output.
///             unsafe { *o = *(x as *const f32) * *(y as *const f32) };
///         }
///     }
/// })?;
/// assert_eq!(out[0].to_scalars()?, vec![Scalar::Float(3.0); 6]);
/// # Ok::<(), ferroiter::Error>(())
/// ```
pub fn map(
    signature: &Signature,
    inputs: &[Arg],
    outs: &[Option<Array>],
    body: impl Fn(&Block) + Sync,
) -> Result<Vec<Array>> {
    if outs.len() != signature.outputs.len() {
        return Err(Error::value(format!(
            "the kernel {signature} writes {} outputs but out= gives {}",
            signature.outputs.len(),
            outs.len()
        )));
    }
    for (k, (out, &dtype)) in outs.iter().zip(&signature.outputs).enumerate() {
        if let Some(o) = out.as_ref().filter(|o| o.dtype() != dtype) {
            return Err(Error::type_(format!(
                "out {k} is {} but the kernel {signature} writes {dtype} there",
                o.dtype()
            )));
        }
    }
    let blocked = |a: &Array| a.blocking().is_some();
    let any_blocked = outs.iter().flatten().any(blocked)
        || inputs
            .iter()
            .any(|a| matches!(a, Arg::Array(x) if blocked(x)));
    if any_blocked {
        if let [out] = outs {
            // (the kernel runs on the zero padding lanes too, which are zeroed again after: a
            // compiled loop cannot raise there, as an integer division would)
            let single = super::blocked::elementwise(inputs, out.as_ref(), true, |args, out| {
                Ok(map_plain(signature, args, &[out], &body)?.remove(0))
            })?;
            return Ok(vec![single]);
        }
        return Err(Error::value(
            "a kernel with several outputs takes no blocked arrays; convert them with \
             to_dense() first",
        ));
    }
    map_plain(signature, inputs, outs, &body)
}

fn map_plain(
    signature: &Signature,
    inputs: &[Arg],
    outs: &[Option<Array>],
    body: &(impl Fn(&Block) + Sync),
) -> Result<Vec<Array>> {
    let arrays = checked_inputs(signature, inputs)?;
    let mut config = TensorIteratorConfig::new();
    for out in outs {
        config.add_output(out.clone());
    }
    for a in arrays {
        config.add_input(a);
    }
    config.declare_output_dtypes(&signature.outputs);
    // A kernel writes every element of its outputs (numpy's and torch's `empty` make the same
    // demand), so new outputs are not zeroed first: a pass over the output that cost the
    // 1M-element a*b+c row a fifth of its time. Bool outputs are zeroed all the same: a byte
    // a kernel skipped must still read as false or true.
    let plan = if signature.outputs.contains(&DType::Bool) {
        config.into_plan()?
    } else {
        config.into_kernel_plan()?
    };
    run(&plan, body)?;
    (0..outs.len()).map(|i| plan.output(i).cloned()).collect()
}

/// [`map`] with a compiled loop in torch's 2-D convention (see [`ForeignLoop`]).
pub fn map_loop(
    kernel: ForeignLoop,
    signature: &Signature,
    inputs: &[Arg],
    outs: &[Option<Array>],
) -> Result<Vec<Array>> {
    map(signature, inputs, outs, |b| kernel.call(b))
}

/// Which of several kernels runs for these inputs, and the inputs it takes:
///
/// 1. with `dtype`, the first kernel whose inputs are all `dtype`, every array converted to it;
/// 2. else the first kernel whose inputs are the arrays' dtypes (a number fits any dtype its
///    kind casts to);
/// 3. else the first kernel whose inputs are all the operands' promoted dtype (torch's
///    `result_type`), the arrays converted to it.
///
/// `name` names the op in the error when none fits.
pub fn select(
    name: &str,
    signatures: &[&Signature],
    inputs: &[Arg],
    dtype: Option<DType>,
) -> Result<(usize, Vec<Arg>)> {
    let arity = |s: &&Signature| s.inputs.len() == inputs.len();
    if !signatures.iter().any(arity) {
        let mut counts: Vec<usize> = signatures.iter().map(|s| s.inputs.len()).collect();
        counts.sort_unstable();
        counts.dedup();
        let counts: Vec<String> = counts.iter().map(|c| c.to_string()).collect();
        return Err(Error::type_(format!(
            "{name} takes {} inputs but was given {}",
            counts.join(" or "),
            inputs.len()
        )));
    }
    let all_of = |d: DType| move |s: &&Signature| arity(s) && s.inputs.iter().all(|&t| t == d);
    let converted_to = |d: DType| -> Result<Vec<Arg>> {
        inputs
            .iter()
            .map(|a| match a {
                Arg::Array(x) if x.dtype() != d => Ok(Arg::Array(converted(a, d)?)),
                _ => Ok(a.clone()),
            })
            .collect()
    };
    if let Some(d) = dtype {
        if let Some(i) = signatures.iter().position(all_of(d)) {
            return Ok((i, converted_to(d)?));
        }
    } else {
        let exact = |s: &&Signature| {
            arity(s)
                && inputs
                    .iter()
                    .zip(&s.inputs)
                    .all(|(a, &t)| number_fits(a, t))
        };
        if let Some(i) = signatures.iter().position(exact) {
            return Ok((i, inputs.to_vec()));
        }
        let promoted = result_type(&inputs.iter().collect::<Vec<_>>())?;
        if let Some(i) = signatures.iter().position(all_of(promoted)) {
            return Ok((i, converted_to(promoted)?));
        }
    }
    let given: Vec<String> = inputs.iter().map(describe).collect();
    let known: Vec<String> = signatures.iter().map(|s| s.to_string()).collect();
    let asked = dtype.map_or(String::new(), |d| format!(" with dtype={d}"));
    Err(Error::type_(format!(
        "{name} has no kernel for inputs ({}){asked}; its kernels: {}",
        given.join(", "),
        known.join(", ")
    )))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{MemoryFormat, Scalar};

    fn sig(text: &str) -> Signature {
        Signature::parse(text).unwrap()
    }

    #[test]
    fn signatures_parse_and_print_back() {
        let s = sig(" float32 ( float32,int64 ) ");
        assert_eq!(s.outputs(), &[DType::F32]);
        assert_eq!(s.inputs(), &[DType::F32, DType::I64]);
        assert_eq!(s.to_string(), "float32(float32, int64)");
        let two = sig("(float64, boolean)(float64)");
        assert_eq!(two.outputs(), &[DType::F64, DType::Bool]);
        assert_eq!(two.to_string(), "(float64, bool)(float64)");
        assert_eq!(sig("uint8()").inputs(), &[]);
        for bad in [
            "float32",
            "float32(float32",
            "(float32(float32)",
            "()(float32)",
            "float32(float32,)",
            "float32(float33)",
            "float32((float32))",
        ] {
            assert!(Signature::parse(bad).is_err(), "{bad}");
        }
        let many = format!("float32({})", vec!["float32"; 32].join(","));
        let err = Signature::parse(&many).unwrap_err().to_string();
        assert!(err.contains("at most 32 operands"), "{err}");
    }

    /// `1, 2, …` in float32, of this shape.
    fn counting(shape: &[i64]) -> Array {
        let n: i64 = shape.iter().product();
        let (start, stop, step) = (Scalar::Int(1), Scalar::Int(n + 1), Scalar::Int(1));
        let flat = Array::arange(start, stop, step, DType::F32).unwrap();
        flat.view(shape).unwrap()
    }

    /// out = x + y in float32 through `map` (the crate's typed loop).
    fn add_f32(b: &Block) {
        crate::exec::raw::map2::<f32, f32, f32>(b, |x, y| x + y)
    }

    #[test]
    fn map_broadcasts_and_refuses_other_dtypes() {
        let s = sig("float32(float32, float32)");
        let x = counting(&[2, 3]).transpose(0, 1).unwrap();
        let out = map(&s, &[x.into(), Scalar::Int(10).into()], &[None], add_f32).unwrap();
        assert_eq!(out[0].shape(), &[3, 2]);
        let values: Vec<Scalar> = [11.0, 14.0, 12.0, 15.0, 13.0, 16.0]
            .iter()
            .map(|&v| Scalar::Float(v))
            .collect();
        assert_eq!(out[0].to_scalars().unwrap(), values);
        let x64 = Array::full(
            &[2],
            Scalar::Float(1.0),
            DType::F64,
            MemoryFormat::Contiguous,
        )
        .unwrap();
        let err = map(&s, &[x64.into(), Scalar::Int(1).into()], &[None], add_f32).unwrap_err();
        assert_eq!(
            err.to_string(),
            "input 0 is float64 but the kernel float32(float32, float32) takes float32 there"
        );
        let i = sig("int32(int32, int32)");
        let x = Array::full(&[2], Scalar::Int(1), DType::I32, MemoryFormat::Contiguous).unwrap();
        let err = map(
            &i,
            &[x.clone().into(), Scalar::Float(0.5).into()],
            &[None],
            add_f32,
        )
        .unwrap_err();
        assert!(
            err.to_string().contains("input 1 is a Python float"),
            "{err}"
        );
        let err = map(&i, &[x.clone().into()], &[None], add_f32).unwrap_err();
        assert!(
            err.to_string().contains("takes 2 inputs but was given 1"),
            "{err}"
        );
        let out = Array::full(&[2], Scalar::Int(0), DType::I64, MemoryFormat::Contiguous).unwrap();
        let err = map(&i, &[x.clone().into(), x.into()], &[Some(out)], add_f32).unwrap_err();
        assert!(err.to_string().contains("out 0 is int64"), "{err}");
    }

    #[test]
    fn select_takes_exact_then_promoted_then_asked_dtypes() {
        let (a, b) = (
            sig("float32(float32, float32)"),
            sig("float64(float64, float64)"),
        );
        let sigs = [&a, &b];
        let full = |d| Array::full(&[2], Scalar::Int(1), d, MemoryFormat::Contiguous).unwrap();
        let (x32, x64, i32_) = (full(DType::F32), full(DType::F64), full(DType::I32));
        let pick = |inputs: &[Arg], dtype| select("op", &sigs, inputs, dtype).map(|r| r.0);
        assert_eq!(
            pick(&[x32.clone().into(), x32.clone().into()], None).unwrap(),
            0
        );
        assert_eq!(
            pick(&[x64.clone().into(), Scalar::Float(2.0).into()], None).unwrap(),
            1
        );
        // float32 with float64 promotes to float64; int32 with a float to float32
        assert_eq!(pick(&[x32.clone().into(), x64.into()], None).unwrap(), 1);
        let (i, args) = select(
            "op",
            &sigs,
            &[i32_.clone().into(), Scalar::Float(0.5).into()],
            None,
        )
        .unwrap();
        assert_eq!(i, 0);
        assert!(matches!(&args[0], Arg::Array(x) if x.dtype() == DType::F32));
        assert_eq!(
            pick(&[x32.clone().into(), x32.clone().into()], Some(DType::F64)).unwrap(),
            1
        );
        let err = pick(&[i32_.clone().into(), i32_.into()], None).unwrap_err();
        assert_eq!(
            err.to_string(),
            "op has no kernel for inputs (int32, int32); its kernels: \
             float32(float32, float32), float64(float64, float64)"
        );
        let err = pick(&[x32.into()], None).unwrap_err();
        assert_eq!(err.to_string(), "op takes 2 inputs but was given 1");
    }
}
