//! Reductions and scans with torch's rules: `sum`, `prod`, `mean`, `amax`, `amin`, `argmax`,
//! `argmin`, `all`, `any`, `var`, `std`, `count_nonzero`, `cumsum`, `cumprod` — their result
//! dtypes, empty reductions, NaN propagation, `dtype=` and `out=` policies and error texts.
//! The plan is `plan::reduction`'s (the input reduced in place, in any layout); the loops are
//! `exec::raw::reduce`'s deterministic tree and `exec::raw::scan`'s in-order lines.

use super::copy::{converted_copy, copy_into};
use super::element::{Bool, Element, C128, C64};
use super::run::grain_size;
use crate::dtype::{Category, DType};
use crate::error::{Error, Result};
use crate::exec::raw::reduce::{reduce, Reducer};
use crate::exec::raw::scan::{scan, Scanner};
use crate::plan::reduction::{reduced_dims, reduction_plan, scan_plan, wrap_dim};
use crate::plan::resize_output;
use crate::{Array, MemoryFormat};
use half::{bf16, f16};
use std::marker::PhantomData;

// ---- element arithmetic ----

/// The arithmetic of an accumulator type: wrapping for integers.
pub trait Arith: Element {
    /// 0: where a sum starts.
    const ZERO: Self;
    /// 1: where a product starts.
    const ONE: Self;
    /// Sum (integers wrap).
    fn add(self, o: Self) -> Self;
    /// Product (integers wrap).
    fn mul(self, o: Self) -> Self;
}
macro_rules! arith_float {
    ($t:ty, $z:expr, $o:expr) => {
        impl Arith for $t {
            const ZERO: Self = $z;
            const ONE: Self = $o;
            #[inline(always)]
            fn add(self, o: Self) -> Self {
                self + o
            }
            #[inline(always)]
            fn mul(self, o: Self) -> Self {
                self * o
            }
        }
    };
}
arith_float!(f32, 0.0, 1.0);
arith_float!(f64, 0.0, 1.0);
arith_float!(C64, C64::new(0.0, 0.0), C64::new(1.0, 0.0));
arith_float!(C128, C128::new(0.0, 0.0), C128::new(1.0, 0.0));
impl Arith for i64 {
    const ZERO: Self = 0;
    const ONE: Self = 1;
    #[inline(always)]
    fn add(self, o: Self) -> Self {
        self.wrapping_add(o)
    }
    #[inline(always)]
    fn mul(self, o: Self) -> Self {
        self.wrapping_mul(o)
    }
}

/// torch's accumulation types per element type: `Acc` for sum/prod (float16/bfloat16 in
/// float32, integers and bool in int64), `ScanAcc` for cumsum/cumprod (float32 in float64,
/// complex64 in complex128), `Out` the natural result (integers and bool give int64).
pub trait Accumulate: Element {
    /// The type sum and prod accumulate in.
    type Acc: Arith;
    /// The type cumsum and cumprod accumulate in.
    type ScanAcc: Arith;
    /// The natural result type of sum and prod (int64 for integers and bool).
    type Out: Element;
    /// Non-zero (all/any/count_nonzero).
    fn nonzero(self) -> bool;
    /// Real and imaginary parts as f64 (var/std).
    fn parts(self) -> (f64, f64);
}
macro_rules! accumulate {
    ($t:ty, $acc:ty, $scan:ty, $out:ty, |$x:ident| $nz:expr, $parts:expr) => {
        impl Accumulate for $t {
            type Acc = $acc;
            type ScanAcc = $scan;
            type Out = $out;
            #[inline(always)]
            fn nonzero(self) -> bool {
                let $x = self;
                $nz
            }
            #[inline(always)]
            fn parts(self) -> (f64, f64) {
                let $x = self;
                $parts
            }
        }
    };
}
accumulate!(
    Bool,
    i64,
    i64,
    i64,
    |x| x.get(),
    (x.get() as u8 as f64, 0.0)
);
accumulate!(u8, i64, i64, i64, |x| x != 0, (x as f64, 0.0));
accumulate!(u16, i64, i64, i64, |x| x != 0, (x as f64, 0.0));
accumulate!(u32, i64, i64, i64, |x| x != 0, (x as f64, 0.0));
accumulate!(u64, i64, i64, i64, |x| x != 0, (x as f64, 0.0));
accumulate!(i8, i64, i64, i64, |x| x != 0, (x as f64, 0.0));
accumulate!(i16, i64, i64, i64, |x| x != 0, (x as f64, 0.0));
accumulate!(i32, i64, i64, i64, |x| x != 0, (x as f64, 0.0));
accumulate!(i64, i64, i64, i64, |x| x != 0, (x as f64, 0.0));
accumulate!(
    f16,
    f32,
    f32,
    f16,
    |x| f32::from(x) != 0.0,
    (f64::from(x), 0.0)
);
accumulate!(
    bf16,
    f32,
    f32,
    bf16,
    |x| f32::from(x) != 0.0,
    (f64::from(x), 0.0)
);
accumulate!(f32, f32, f64, f32, |x| x != 0.0, (x as f64, 0.0));
accumulate!(f64, f64, f64, f64, |x| x != 0.0, (x, 0.0));
accumulate!(
    C64,
    C64,
    C128,
    C64,
    |x| x.re != 0.0 || x.im != 0.0,
    (x.re as f64, x.im as f64)
);
accumulate!(
    C128,
    C128,
    C128,
    C128,
    |x| x.re != 0.0 || x.im != 0.0,
    (x.re, x.im)
);

/// An ordered element (amax/amin/argmax/argmin): compared as `Key` (float16/bfloat16 as
/// float32), NaN (a key unequal to itself) propagating.
pub trait Ordered: Element {
    /// The type elements compare as.
    type Key: Copy + PartialOrd + Send + Sync + 'static;
    /// The lowest key (where amax starts: -∞ for floats, the minimum for integers).
    const LOWEST: Self::Key;
    /// The highest key (where amin starts: +∞ for floats, the maximum for integers).
    const HIGHEST: Self::Key;
    /// The element as its key.
    fn key(self) -> Self::Key;
    /// The element a key stands for.
    fn unkey(k: Self::Key) -> Self;
}
macro_rules! ordered {
    ($t:ty, $k:ty, $lo:expr, $hi:expr, |$x:ident| $key:expr, |$y:ident| $unkey:expr) => {
        impl Ordered for $t {
            type Key = $k;
            const LOWEST: $k = $lo;
            const HIGHEST: $k = $hi;
            #[inline(always)]
            fn key(self) -> $k {
                let $x = self;
                $key
            }
            #[inline(always)]
            fn unkey($y: $k) -> Self {
                $unkey
            }
        }
    };
}
ordered!(Bool, u8, 0, 1, |x| x.get() as u8, |y| Bool::new(y != 0));
ordered!(u8, u8, u8::MIN, u8::MAX, |x| x, |y| y);
ordered!(u16, u16, u16::MIN, u16::MAX, |x| x, |y| y);
ordered!(u32, u32, u32::MIN, u32::MAX, |x| x, |y| y);
ordered!(u64, u64, u64::MIN, u64::MAX, |x| x, |y| y);
ordered!(i8, i8, i8::MIN, i8::MAX, |x| x, |y| y);
ordered!(i16, i16, i16::MIN, i16::MAX, |x| x, |y| y);
ordered!(i32, i32, i32::MIN, i32::MAX, |x| x, |y| y);
ordered!(i64, i64, i64::MIN, i64::MAX, |x| x, |y| y);
ordered!(
    f16,
    f32,
    f32::NEG_INFINITY,
    f32::INFINITY,
    |x| f32::from(x),
    |y| f16::from_f32(y)
);
ordered!(
    bf16,
    f32,
    f32::NEG_INFINITY,
    f32::INFINITY,
    |x| f32::from(x),
    |y| bf16::from_f32(y)
);
ordered!(f32, f32, f32::NEG_INFINITY, f32::INFINITY, |x| x, |y| y);
ordered!(f64, f64, f64::NEG_INFINITY, f64::INFINITY, |x| x, |y| y);

// ---- reducers from closures ----

/// A [`Reducer`] made of closures.
struct Fold<I, A, L, C> {
    identity: A,
    lift: L,
    combine: C,
    /// Made by [`float_sum`]: `lift` converts, `combine` adds.
    float_sum: bool,
    /// Each chunk combined in torch's order ([`Fold::in_torch_order`]).
    in_torch_order: bool,
    input: PhantomData<fn(I)>,
}
impl<I: Copy + 'static, A: Copy + Send + Sync + 'static, L, C> Reducer for Fold<I, A, L, C>
where
    L: Fn(I, usize) -> A + Sync,
    C: Fn(A, A) -> A + Sync,
{
    type In = I;
    type Acc = A;
    #[inline(always)]
    fn identity(&self) -> A {
        self.identity
    }
    #[inline(always)]
    fn lift(&self, x: I, index: usize) -> A {
        (self.lift)(x, index)
    }
    #[inline(always)]
    fn combine(&self, a: A, b: A) -> A {
        (self.combine)(a, b)
    }
    #[inline(always)]
    fn is_float_sum(&self) -> bool {
        self.float_sum
    }
    #[inline(always)]
    fn in_torch_order(&self) -> bool {
        self.in_torch_order
    }
}
impl<I, A, L, C> Fold<I, A, L, C> {
    /// Combines each chunk's elements in the order of torch's vectorized reduce loop
    /// ([`Reducer::in_torch_order`]).
    fn in_torch_order(self) -> Self {
        Fold {
            in_torch_order: true,
            ..self
        }
    }
}
fn fold<I, A, L, C>(identity: A, lift: L, combine: C) -> Fold<I, A, L, C> {
    Fold {
        identity,
        lift,
        combine,
        float_sum: false,
        in_torch_order: false,
        input: PhantomData,
    }
}

/// The sum of `T`s in their accumulation type `A`, from zero. Marked as a plain sum
/// ([`Reducer::is_float_sum`]: it converts and adds), which lets float32 and float64 sums of
/// whole blocks take the explicit-vector loop; other types ignore the mark.
fn sum_fold<T: Element, A: Arith>() -> impl Reducer<In = T, Acc = A> {
    Fold {
        identity: A::ZERO,
        lift: |x: T, _| Element::cast::<A>(x),
        combine: |a: A, b: A| a.add(b),
        float_sum: true,
        in_torch_order: false,
        input: PhantomData,
    }
}

/// A [`Scanner`] made of closures.
struct ScanFold<I, A, O, S, F> {
    identity: A,
    step: S,
    finish: F,
    types: PhantomData<fn(I) -> O>,
}
impl<I: Copy, A: Copy + Send + Sync, O: Copy, S, F> Scanner for ScanFold<I, A, O, S, F>
where
    S: Fn(A, I) -> A + Sync,
    F: Fn(A) -> O + Sync,
{
    type In = I;
    type Acc = A;
    type Out = O;
    #[inline(always)]
    fn identity(&self) -> A {
        self.identity
    }
    #[inline(always)]
    fn step(&self, acc: A, x: I) -> A {
        (self.step)(acc, x)
    }
    #[inline(always)]
    fn finish(&self, acc: A) -> O {
        (self.finish)(acc)
    }
}

// ---- the operations ----

/// Which reduction.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ReduceOp {
    /// `sum`
    Sum,
    /// `prod`
    Prod,
    /// `mean`
    Mean,
    /// `amax`
    Amax,
    /// `amin`
    Amin,
    /// `argmax`
    Argmax,
    /// `argmin`
    Argmin,
    /// `all`
    All,
    /// `any`
    Any,
    /// `count_nonzero`
    CountNonzero,
}

impl ReduceOp {
    /// The function's name, for messages.
    pub fn name(self) -> &'static str {
        match self {
            ReduceOp::Sum => "sum",
            ReduceOp::Prod => "prod",
            ReduceOp::Mean => "mean",
            ReduceOp::Amax => "amax",
            ReduceOp::Amin => "amin",
            ReduceOp::Argmax => "argmax",
            ReduceOp::Argmin => "argmin",
            ReduceOp::All => "all",
            ReduceOp::Any => "any",
            ReduceOp::CountNonzero => "count_nonzero",
        }
    }
}

fn is_int_like(d: DType) -> bool {
    matches!(d.category(), Category::Bool | Category::Integral)
}

/// The dtype sum/prod/cumsum give without `dtype=`: int64 for bool and integers.
fn natural_dtype(d: DType) -> DType {
    if is_int_like(d) {
        DType::I64
    } else {
        d
    }
}

fn unsupported(op: &str, d: DType) -> Error {
    Error::type_(format!("\"{op}\" not implemented for '{}'", d.torch_name()))
}

/// torch's `out=` policy for a computed result: `out` resized (with its warning) and filled.
pub(crate) fn into_out(result: Array, out: Option<&Array>) -> Result<Array> {
    match out {
        None => Ok(result),
        Some(o) => {
            let target = resize_output(o, result.shape())?;
            copy_into(&target, &result)?;
            Ok(target)
        }
    }
}

/// The dtype an op with `dtype=` computes in when an `out=` of `out_dtype` is given: `dtype`
/// itself (which must then match the out's, torch's text), else the out's.
fn dtype_with_out(dtype: Option<DType>, out: Option<&Array>) -> Result<Option<DType>> {
    match (dtype, out) {
        (Some(d), Some(o)) if o.dtype() != d => Err(Error::value(format!(
            "Expected out tensor to have dtype {}, but got {} instead",
            c_type_name(d),
            c_type_name(o.dtype())
        ))),
        (None, Some(o)) => Ok(Some(o.dtype())),
        (d, _) => Ok(d),
    }
}

/// The C++ type names torch's dtype messages use.
pub(crate) fn c_type_name(d: DType) -> &'static str {
    match d {
        DType::Bool => "bool",
        DType::U8 => "unsigned char",
        DType::U16 => "unsigned short",
        DType::U32 => "unsigned int",
        DType::U64 => "unsigned long",
        DType::I8 => "signed char",
        DType::I16 => "short int",
        DType::I32 => "int",
        DType::I64 => "long int",
        DType::F16 => "c10::Half",
        DType::BF16 => "c10::BFloat16",
        DType::F32 => "float",
        DType::F64 => "double",
        DType::ComplexHalf => "c10::complex<c10::Half>",
        DType::C64 => "c10::complex<float>",
        DType::C128 => "c10::complex<double>",
    }
}

/// `sum`, `prod`, `mean` (with `dtype=`), `amax`, `amin`, `argmax`, `argmin`, `all`, `any`,
/// `count_nonzero` of `a` over `dims` (`None`: all; argmax/argmin take at most one dim).
pub fn reduction(
    op: ReduceOp,
    a: &Array,
    dims: Option<&[i64]>,
    keepdim: bool,
    dtype: Option<DType>,
    out: Option<&Array>,
) -> Result<Array> {
    // blocked arrays reduce as a dense copy (their padding excluded); a blocked out= is refused
    let a = &super::blocked::dense(a)?;
    if let Some(o) = out {
        o.refuse_blocked("reduction outputs")?;
    }
    // (torch checks dtypes before dims for mean and argmax/argmin, dims first for the others)
    let dims_mask = || reduced_dims(dims, a.ndim());
    match op {
        ReduceOp::Sum | ReduceOp::Prod => {
            let mask = dims_mask()?;
            let dtype = dtype_with_out(dtype, out)?;
            let (input, cast_to) = match dtype {
                None => (a.clone(), None),
                Some(d) if is_int_like(a.dtype()) && is_int_like(d) => (a.clone(), Some(d)),
                Some(d) if d == a.dtype() => (a.clone(), None),
                Some(d) => (converted_copy(a, Some(d), MemoryFormat::Preserve)?, None),
            };
            let mut result = sum_prod(op == ReduceOp::Prod, &input, &mask, keepdim)?;
            if let Some(d) = cast_to.filter(|&d| d != result.dtype()) {
                result = converted_copy(&result, Some(d), MemoryFormat::Contiguous)?;
            }
            into_out(result, out)
        }
        ReduceOp::Mean => {
            let dtype = dtype_with_out(dtype, out)?;
            let target = dtype.unwrap_or(a.dtype());
            if !matches!(target.category(), Category::Floating | Category::Complex) {
                let which = if dtype.is_some() { "Optional" } else { "Input" };
                return Err(Error::type_(format!(
                    "mean(): could not infer output dtype. {which} dtype must be either a floating point or complex dtype. Got: {}",
                    target.torch_name()
                )));
            }
            let mask = dims_mask()?;
            let input = if target == a.dtype() {
                a.clone()
            } else {
                converted_copy(a, Some(target), MemoryFormat::Preserve)?
            };
            into_out(mean(&input, &mask, keepdim)?, out)
        }
        ReduceOp::Amax | ReduceOp::Amin => {
            if let Some(o) = out.filter(|o| o.dtype() != a.dtype()) {
                return Err(Error::value(format!(
                    "Expected the dtype for input and out to match, but got {} for input's dtype and {} for out's dtype.",
                    a.dtype().torch_name(),
                    o.dtype().torch_name()
                )));
            }
            check_nonempty(op, a, dims)?;
            let mask = dims_mask()?;
            into_out(extremum(op == ReduceOp::Amax, a, &mask, keepdim)?, out)
        }
        ReduceOp::Argmax | ReduceOp::Argmin => {
            if let Some(o) = out.filter(|o| o.dtype() != DType::I64) {
                return Err(Error::value(format!(
                    "Expected out tensor to have dtype long int, but got {} instead",
                    c_type_name(o.dtype())
                )));
            }
            match a.dtype() {
                DType::Bool => {
                    return Err(Error::value(format!(
                        "{}(): does not support bool input",
                        op.name()
                    )))
                }
                d if d.category() == Category::Complex => {
                    return Err(Error::value(format!(
                        "{}(): does not support complex input",
                        op.name()
                    )))
                }
                _ => {}
            }
            check_nonempty(op, a, dims)?;
            let mask = dims_mask()?;
            // argmax over all dims is over the flattened array: the same as over every dim.
            into_out(
                arg_extremum(op == ReduceOp::Argmax, a, &mask, keepdim)?,
                out,
            )
        }
        ReduceOp::All | ReduceOp::Any => {
            // (an empty dim list reduces nothing here, unlike the other reductions)
            let mask = match dims {
                Some([]) => vec![false; a.ndim()],
                _ => dims_mask()?,
            };
            let natural = if a.dtype() == DType::U8 {
                DType::U8
            } else {
                DType::Bool
            };
            if let Some(o) = out.filter(|o| o.dtype() != natural) {
                return Err(Error::value(format!(
                    "{} only supports bool tensor for result, got: {}",
                    op.name(),
                    o.dtype().torch_name()
                )));
            }
            into_out(
                all_any(op == ReduceOp::All, a, &mask, keepdim, natural)?,
                out,
            )
        }
        ReduceOp::CountNonzero => count_nonzero(a, &dims_mask()?),
    }
}

/// amax/amin/argmax/argmin refuse to reduce nothing, with torch's IndexError texts.
fn check_nonempty(op: ReduceOp, a: &Array, dims: Option<&[i64]>) -> Result<()> {
    if a.numel() != 0 {
        return Ok(());
    }
    let all = matches!(dims, None | Some([]));
    if all {
        // (a RuntimeError for amax/amin, an IndexError for argmax/argmin, as torch has them)
        if matches!(op, ReduceOp::Amax | ReduceOp::Amin) {
            return Err(Error::value(format!(
                "{}(): Expected reduction dim to be specified for input.numel() == 0. Specify the reduction dim with the 'dim' argument.",
                op.name()
            )));
        }
        return Err(Error::index(format!(
            "{}(): Expected reduction dim to be specified for input.numel() == 0.",
            op.name()
        )));
    }
    // torch looks at the dims in the order given, before any repeated-dim check; amax/amin
    // name the dim as the user wrote it, argmax/argmin (one dim, wrapped first) as wrapped.
    for &d in dims.unwrap_or(&[]) {
        if a.ndim() == 0 {
            continue;
        }
        let wrapped = wrap_dim(d, a.ndim())?;
        if a.shape()[wrapped] == 0 {
            let shown = match op {
                ReduceOp::Argmax | ReduceOp::Argmin => wrapped as i64,
                _ => d,
            };
            return Err(Error::index(format!(
                "{}(): Expected reduction dim {shown} to have non-zero size.",
                op.name()
            )));
        }
    }
    Ok(())
}

fn sum_prod(prod: bool, a: &Array, mask: &[bool], keepdim: bool) -> Result<Array> {
    let out_dtype = natural_dtype(a.dtype());
    let r = reduction_plan(a, mask, keepdim, out_dtype, false)?;
    let grain = grain_size();
    crate::dispatch_all!(a.dtype(), T => {
        type A = <T as Accumulate>::Acc;
        let finish = |acc: A| Element::cast::<<T as Accumulate>::Out>(acc);
        if prod && matches!(T::DTYPE, DType::F16 | DType::BF16) {
            // torch multiplies float16/bfloat16 in the dtype (each product, exact in float32,
            // rounded to it), in its vector loop's order: [60000, 60000, 0] overflows to inf,
            // then gives nan
            let round = |a: A, b: A| Element::cast::<A>(Element::cast::<T>(a.mul(b)));
            let f = fold(A::ONE, |x: T, _| Element::cast::<A>(x), round).in_torch_order();
            reduce(&r.plan, &f, finish, grain)?;
        } else if prod {
            let f = fold(A::ONE, |x: T, _| Element::cast::<A>(x), |a: A, b: A| a.mul(b));
            reduce(&r.plan, &f, finish, grain)?;
        } else {
            reduce(&r.plan, &sum_fold::<T, A>(), finish, grain)?;
        }
        Ok(r.result)
    }, else Err(unsupported("sum", a.dtype())))
}

/// mean = sum / n, rounded as torch's `sum(x).div_(n)` (the sum in the dtype, then divided).
fn mean(a: &Array, mask: &[bool], keepdim: bool) -> Result<Array> {
    let r = reduction_plan(a, mask, keepdim, a.dtype(), false)?;
    let n = r.reduced_numel;
    let grain = grain_size();
    crate::dispatch_inexact!(a.dtype(), T => {
        type A = <T as Accumulate>::Acc;
        reduce(&r.plan, &sum_fold::<T, A>(), |acc: A| divide::<T>(Element::cast::<T>(acc), n), grain)?;
        Ok(r.result)
    }, else Err(unsupported("mean", a.dtype())))
}

/// `s / n` in the dtype's compute type, rounded to the dtype. A complex `s` is divided as
/// torch divides a complex by a real one (Smith's method with a zero imaginary part): each
/// part times the rounded reciprocal `1/n`, after adding the other part times 0 — so a mean
/// of 105 - 112.5i over 15 complex64 values is 7.0000005 - 7.5000005i, not 7 - 7.5i, and an
/// infinite part makes the other NaN, as in torch.
fn divide<T: Element>(s: T, n: usize) -> T {
    match T::DTYPE {
        DType::F64 => T::from_f64(Element::cast::<f64>(s) / n as f64),
        DType::C64 => {
            let (s, r) = (Element::cast::<C64>(s), 1.0 / n as f32);
            T::from_c64(C64::new((s.re + s.im * 0.0) * r, (s.im - s.re * 0.0) * r))
        }
        DType::C128 => {
            let (s, r) = (Element::cast::<C128>(s), 1.0 / n as f64);
            T::from_c128(C128::new((s.re + s.im * 0.0) * r, (s.im - s.re * 0.0) * r))
        }
        _ => T::from_f32(Element::cast::<f32>(s) / n as f32),
    }
}

/// amax (`MAX`) or amin: NaN (a key unequal to itself) wins, then the larger (smaller) key —
/// the first NaN, else the first of the largest: a select associative on the exact bits. The
/// tests are joined with `|`, not `||`, so that the select vectorizes.
struct Extremum<T, const MAX: bool>(PhantomData<fn(T)>);
impl<T: Ordered, const MAX: bool> Reducer for Extremum<T, MAX> {
    type In = T;
    type Acc = T::Key;
    #[inline(always)]
    fn identity(&self) -> T::Key {
        if MAX {
            T::LOWEST
        } else {
            T::HIGHEST
        }
    }
    #[inline(always)]
    fn lift(&self, x: T, _: usize) -> T::Key {
        x.key()
    }
    #[inline(always)]
    fn combine(&self, a: T::Key, b: T::Key) -> T::Key {
        pick::<T::Key, MAX>(a, b)
    }
    #[inline(always)]
    fn is_exactly_associative(&self) -> bool {
        true
    }
    #[inline(always)]
    fn has_select_without_nan(&self) -> bool {
        true
    }
    #[inline(always)]
    fn select_without_nan(&self, a: T::Key, b: T::Key) -> T::Key {
        let wins = if MAX { b > a } else { b < a };
        if wins {
            b
        } else {
            a
        }
    }
    #[inline(always)]
    #[allow(clippy::eq_op)]
    fn is_nan(&self, a: T::Key) -> bool {
        a != a
    }
    #[inline(always)]
    fn float_extremum(&self) -> Option<bool> {
        Some(MAX)
    }
}

fn extremum(max: bool, a: &Array, mask: &[bool], keepdim: bool) -> Result<Array> {
    let r = reduction_plan(a, mask, keepdim, a.dtype(), false)?;
    if r.result.numel() == 0 {
        // torch's kernel (and its dtype check) never runs for an empty result
        return Ok(r.result);
    }
    let grain = grain_size();
    let name = if max {
        "max_values_cpu"
    } else {
        "min_values_cpu"
    };
    crate::dispatch_ordered!(a.dtype(), T => {
        type K = <T as Ordered>::Key;
        if max {
            reduce(&r.plan, &Extremum::<T, true>(PhantomData), |k: K| T::unkey(k), grain)?;
        } else {
            reduce(&r.plan, &Extremum::<T, false>(PhantomData), |k: K| T::unkey(k), grain)?;
        }
        Ok(r.result)
    }, else Err(unsupported(name, a.dtype())))
}

fn arg_extremum(max: bool, a: &Array, mask: &[bool], keepdim: bool) -> Result<Array> {
    let r = reduction_plan(a, mask, keepdim, DType::I64, true)?;
    let grain = grain_size();
    crate::dispatch_ordered!(a.dtype(), T => {
        type K = <T as Ordered>::Key;
        let finish = |acc: (K, usize)| acc.1 as i64;
        if max {
            reduce(&r.plan, &ArgExtremum::<T, true>(PhantomData), finish, grain)?;
        } else {
            reduce(&r.plan, &ArgExtremum::<T, false>(PhantomData), finish, grain)?;
        }
        Ok(r.result)
    }, else Err(unsupported("argmax", a.dtype())))
}

/// argmax (`MAX`) or argmin as (key, index) pairs: NaN first, then the larger (smaller) key,
/// then the first index. That is a total order on the pairs, so the result is the same in any
/// order of combination — deterministic whatever the loop — and contiguous runs take
/// [`arg_run`]'s two-pass loop instead of the lanes.
struct ArgExtremum<T, const MAX: bool>(PhantomData<fn(T)>);

impl<T: Ordered, const MAX: bool> Reducer for ArgExtremum<T, MAX> {
    type In = T;
    type Acc = (T::Key, usize);
    #[inline(always)]
    fn identity(&self) -> Self::Acc {
        (if MAX { T::LOWEST } else { T::HIGHEST }, usize::MAX)
    }
    #[inline(always)]
    fn lift(&self, x: T, index: usize) -> Self::Acc {
        (x.key(), index)
    }
    #[inline(always)]
    fn combine(&self, a: Self::Acc, b: Self::Acc) -> Self::Acc {
        if arg_better::<T::Key, MAX>(a, b) {
            b
        } else {
            a
        }
    }
    #[inline(always)]
    fn contiguous(&self, xs: &[T], n: usize) -> Option<Self::Acc> {
        Some(arg_run::<T, MAX>(xs, n, self.identity()))
    }
}

/// Whether `b` beats `a`: NaN (the first NaN among NaNs), then the larger (smaller) key, then
/// the first index.
#[inline(always)]
fn arg_better<K: PartialOrd + Copy, const MAX: bool>(a: (K, usize), b: (K, usize)) -> bool {
    #[allow(clippy::eq_op)]
    let (an, bn) = (a.0 != a.0, b.0 != b.0);
    if an || bn {
        return bn && (!an || b.1 < a.1);
    }
    let wins = if MAX { b.0 > a.0 } else { b.0 < a.0 };
    wins || (b.0 == a.0 && b.1 < a.1)
}

/// The extreme key (NaN when there is one) of `a` and `b`: a select LLVM vectorizes.
#[inline(always)]
fn pick<K: PartialOrd + Copy, const MAX: bool>(a: K, b: K) -> K {
    #[allow(clippy::eq_op)]
    let keep = (a != a) | if MAX { b <= a } else { b >= a };
    if keep {
        a
    } else {
        b
    }
}

/// Elements per piece of [`arg_run`]: a piece stays in L1 between its two passes.
const ARG_PIECE: usize = 4096;

/// argmax/argmin of a contiguous run (positions from `n`), `best` so far: per piece, the
/// extreme key by a lane-wise pass (16 lanes, vectorized); only when it beats `best` a second
/// pass finds its first index (the first NaN, or the first key equal to it). Ties never
/// replace an earlier index, and the first NaN ends the run.
#[inline(always)]
fn arg_run<T: Ordered, const MAX: bool>(
    xs: &[T],
    n: usize,
    mut best: (T::Key, usize),
) -> (T::Key, usize) {
    const L: usize = 16;
    let init = if MAX { T::LOWEST } else { T::HIGHEST };
    for (p, piece) in xs.chunks(ARG_PIECE).enumerate() {
        let mut lanes = [init; L];
        let groups = piece.chunks_exact(L);
        let tail = groups.remainder();
        for g in groups {
            for (l, x) in lanes.iter_mut().zip(g) {
                *l = pick::<T::Key, MAX>(*l, x.key());
            }
        }
        for x in tail {
            lanes[0] = pick::<T::Key, MAX>(lanes[0], x.key());
        }
        let m = lanes
            .iter()
            .fold(init, |acc, &k| pick::<T::Key, MAX>(acc, k));
        // (every index of the piece is at or after its start, and `best`'s before it: the
        // piece wins with a strictly better key or a first NaN, or against the identity)
        if !arg_better::<T::Key, MAX>(best, (m, n + p * ARG_PIECE)) {
            continue;
        }
        #[allow(clippy::eq_op)]
        let is_nan = m != m;
        #[allow(clippy::eq_op)]
        let hit = |x: &T| {
            let k = x.key();
            if is_nan {
                k != k
            } else {
                k == m
            }
        };
        let mut first = None;
        for (g, group) in piece.chunks(L).enumerate() {
            if group.iter().fold(false, |h, x| h | hit(x)) {
                first = group.iter().position(hit).map(|i| g * L + i);
                break;
            }
        }
        if let Some(i) = first {
            best = (m, n + p * ARG_PIECE + i);
        }
        if is_nan {
            break;
        }
    }
    best
}

fn all_any(all: bool, a: &Array, mask: &[bool], keepdim: bool, out: DType) -> Result<Array> {
    let r = reduction_plan(a, mask, keepdim, out, false)?;
    let grain = grain_size();
    crate::dispatch_all!(a.dtype(), T => {
        let f = fold(all, |x: T, _| x.nonzero(), move |a: bool, b: bool| if all { a & b } else { a | b });
        // (bool and uint8 results are the same bytes: one loop writes both)
        reduce(&r.plan, &f, |v: bool| v as u8, grain)?;
        Ok(r.result)
    }, else Err(unsupported("all", a.dtype())))
}

fn count_nonzero(a: &Array, mask: &[bool]) -> Result<Array> {
    let r = reduction_plan(a, mask, false, DType::I64, false)?;
    let grain = grain_size();
    crate::dispatch_all!(a.dtype(), T => {
        let f = fold(0i64, |x: T, _| x.nonzero() as i64, |a: i64, b: i64| a.wrapping_add(b));
        reduce(&r.plan, &f, |v: i64| v, grain)?;
        Ok(r.result)
    }, else Err(unsupported("count_nonzero", a.dtype())))
}

/// Welford's running (count, mean, sum of squared deviations), real and imaginary parts, in
/// f64; two partial results combine by Chan's formula.
#[derive(Debug, Clone, Copy)]
struct Moments {
    n: f64,
    re: f64,
    im: f64,
    m2: f64,
}

#[inline(always)]
fn merge(a: Moments, b: Moments) -> Moments {
    if a.n == 0.0 {
        return b;
    }
    if b.n == 0.0 {
        return a;
    }
    let n = a.n + b.n;
    let (dr, di) = (b.re - a.re, b.im - a.im);
    let f = b.n / n;
    Moments {
        n,
        re: a.re + dr * f,
        im: a.im + di * f,
        m2: a.m2 + b.m2 + (dr * dr + di * di) * a.n * f,
    }
}

/// `var`/`std` with torch's `correction` (default 1): the sum of squared deviations over
/// `max(0, n − correction)`, with torch's warning when that is not positive. Complex inputs
/// give real results.
pub fn var_std(
    std: bool,
    a: &Array,
    dims: Option<&[i64]>,
    correction: Option<f64>,
    keepdim: bool,
    out: Option<&Array>,
) -> Result<Array> {
    // blocked arrays reduce as a dense copy (their padding excluded); a blocked out= is refused
    let a = &super::blocked::dense(a)?;
    if let Some(o) = out {
        o.refuse_blocked("reduction outputs")?;
    }
    let name = if std { "std" } else { "var" };
    if !matches!(a.dtype().category(), Category::Floating | Category::Complex) {
        return Err(Error::type_(
            "std and var only support floating point and complex dtypes",
        ));
    }
    let mask = reduced_dims(dims, a.ndim())?;
    let real = match a.dtype() {
        DType::C64 => DType::F32,
        DType::C128 => DType::F64,
        d => d,
    };
    let r = reduction_plan(a, &mask, keepdim, real, false)?;
    let correction = correction.unwrap_or(1.0);
    let n = r.reduced_numel as f64;
    let divisor = (n - correction).max(0.0);
    if divisor <= 0.0 {
        crate::warnings::warn(format!(
            "{name}(): degrees of freedom is <= 0. Correction should be strictly less than the reduction factor (input numel divided by output numel)."
        ));
    }
    let grain = grain_size();
    crate::dispatch_inexact!(a.dtype(), T => {
        let f = fold(
            Moments { n: 0.0, re: 0.0, im: 0.0, m2: 0.0 },
            |x: T, _| {
                let (re, im) = x.parts();
                // 0 for a finite element, NaN for an infinite or NaN one: torch's deviation
                // from an infinite mean is inf − inf, so its var/std is NaN, not 0 or inf
                let m2 = if re.is_finite() && im.is_finite() { 0.0 } else { f64::NAN };
                Moments { n: 1.0, re, im, m2 }
            },
            merge,
        );
        let finish = |m: Moments| {
            let v = m.m2 / divisor;
            if std { v.sqrt() } else { v }
        };
        match real {
            DType::F16 => reduce(&r.plan, &f, |m| f16::from_f64(finish(m)), grain)?,
            DType::BF16 => reduce(&r.plan, &f, |m| bf16::from_f64(finish(m)), grain)?,
            DType::F32 => reduce(&r.plan, &f, |m| finish(m) as f32, grain)?,
            _ => reduce(&r.plan, &f, finish, grain)?,
        }
        into_out(r.result, out)
    }, else Err(unsupported(name, a.dtype())))
}

/// `cumsum`/`cumprod` along `dim` (with `dtype=`): torch's accumulation types (float32 in
/// float64, float16/bfloat16 in float32, integers and bool in int64, giving int64).
pub fn scan_op(
    prod: bool,
    a: &Array,
    dim: i64,
    dtype: Option<DType>,
    out: Option<&Array>,
) -> Result<Array> {
    // blocked arrays reduce as a dense copy (their padding excluded); a blocked out= is refused
    let a = &super::blocked::dense(a)?;
    if let Some(o) = out {
        o.refuse_blocked("reduction outputs")?;
    }
    let dim = wrap_dim(dim, a.ndim())?;
    let dtype = dtype.or(out.map(|o| o.dtype()));
    let (input, cast_to) = match dtype {
        None => (a.clone(), None),
        Some(d) if is_int_like(a.dtype()) && is_int_like(d) => (a.clone(), Some(d)),
        Some(d) if d == a.dtype() => (a.clone(), None),
        Some(d) => (converted_copy(a, Some(d), MemoryFormat::Preserve)?, None),
    };
    let out_dtype = natural_dtype(input.dtype());
    let (plan, result, line) = scan_plan(&input, dim, out_dtype)?;
    let grain = grain_size();
    crate::dispatch_all!(input.dtype(), T => {
        type S = <T as Accumulate>::ScanAcc;
        type O = <T as Accumulate>::Out;
        let finish = |s: S| Element::cast::<O>(s);
        if prod {
            let s = ScanFold { identity: S::ONE, step: |acc: S, x: T| acc.mul(Element::cast::<S>(x)), finish, types: PhantomData };
            scan(&plan, line, &s, grain)?;
        } else {
            let s = ScanFold { identity: S::ZERO, step: |acc: S, x: T| acc.add(Element::cast::<S>(x)), finish, types: PhantomData };
            scan(&plan, line, &s, grain)?;
        }
    }, else return Err(unsupported("cumsum", input.dtype())));
    let mut result = result;
    if let Some(d) = cast_to.filter(|&d| d != result.dtype()) {
        result = converted_copy(&result, Some(d), MemoryFormat::Contiguous)?;
    }
    into_out(result, out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Scalar;

    fn floats(a: &Array) -> Vec<f64> {
        a.to_scalars()
            .unwrap()
            .into_iter()
            .map(|s| match s {
                Scalar::Float(f) => f,
                Scalar::Int(i) => i as f64,
                Scalar::Bool(b) => b as u8 as f64,
                other => panic!("{other:?}"),
            })
            .collect()
    }

    #[test]
    fn float32_sum_of_three_times_two_to_the_24_ones_is_exact() {
        let n = 3 << 24;
        let a = Array::full(
            &[n],
            Scalar::Float(1.0),
            DType::F32,
            MemoryFormat::Contiguous,
        )
        .unwrap();
        let s = reduction(ReduceOp::Sum, &a, None, false, None, None).unwrap();
        assert_eq!(floats(&s), vec![n as f64]);
    }

    #[test]
    fn sums_along_inner_and_outer_dims() {
        let a = Array::arange(Scalar::Int(0), Scalar::Int(12), Scalar::Int(1), DType::F32)
            .unwrap()
            .view(&[3, 4])
            .unwrap();
        let s0 = reduction(ReduceOp::Sum, &a, Some(&[0]), false, None, None).unwrap();
        assert_eq!(floats(&s0), vec![12.0, 15.0, 18.0, 21.0]);
        let s1 = reduction(ReduceOp::Sum, &a, Some(&[1]), true, None, None).unwrap();
        assert_eq!(s1.shape(), &[3, 1]);
        assert_eq!(floats(&s1), vec![6.0, 22.0, 38.0]);
        let am = reduction(
            ReduceOp::Argmax,
            &a.transpose(0, 1).unwrap(),
            None,
            false,
            None,
            None,
        )
        .unwrap();
        assert_eq!(floats(&am), vec![11.0]);
        let c = scan_op(false, &a, 0, None, None).unwrap();
        assert_eq!(floats(&c)[8..], [12.0, 15.0, 18.0, 21.0]);
    }

    /// float16/bfloat16 products are rounded to the dtype in the order of torch's vector loop
    /// (a contiguous row's groups of 64 in 64 lanes, four registers of 16 joined pairwise,
    /// their lanes left to right, then the rest in turn; other runs in turn): 60000 · 60000
    /// overflows float16 before the 0 comes. Along an inner dim, an outer dim (which takes no
    /// outer-dim path) and over more than a chunk.
    #[test]
    fn half_products_are_rounded_in_torch_order() {
        use crate::exec::raw::lines::from_slice;
        use crate::exec::raw::reduce::CHUNK;
        let nan = from_slice(&[60000.0f32, 60000.0, 0.0].map(f16::from_f32), &[3]).unwrap();
        let p = reduction(ReduceOp::Prod, &nan, None, false, None, None).unwrap();
        assert!(floats(&p)[0].is_nan());
        fn check<T: Element + Accumulate>(to: fn(f32) -> T, back: fn(T) -> f32) {
            let mul = |a: T, b: T| to(back(a) * back(b));
            // torch's vectorized_inner_reduction on a contiguous row, into `acc`
            let row = |acc: T, xs: &[T]| {
                let whole = xs.len() / 64 * 64;
                let mut acc = acc;
                if whole > 0 {
                    let mut regs: Vec<Vec<T>> =
                        (0..4).map(|j| xs[16 * j..][..16].to_vec()).collect();
                    for g in (64..whole).step_by(64) {
                        for (j, reg) in regs.iter_mut().enumerate() {
                            for (l, v) in reg.iter_mut().enumerate() {
                                *v = mul(*v, xs[g + 16 * j + l]);
                            }
                        }
                    }
                    let v: Vec<T> = (0..16)
                        .map(|l| mul(mul(regs[0][l], regs[1][l]), mul(regs[2][l], regs[3][l])))
                        .collect();
                    acc = mul(acc, v[1..].iter().fold(v[0], |b, &x| mul(b, x)));
                }
                xs[whole..].iter().fold(acc, |a, &x| mul(a, x))
            };
            // factors around 1 (no early overflow), a 37 x 900 matrix
            let xs: Vec<T> = (0..37 * 900)
                .map(|i| to(0.93 + 0.15 * ((i * 7919 % 1000) as f32 / 1000.0)))
                .collect();
            let m = from_slice(&xs, &[37, 900]).unwrap();
            let p = reduction(ReduceOp::Prod, &m, Some(&[1]), false, None, None).unwrap();
            let want: Vec<f64> = xs
                .chunks(900)
                .map(|r| back(row(to(1.0), r)) as f64)
                .collect();
            assert_eq!(floats(&p), want, "{:?} rows", T::DTYPE);
            let p = reduction(ReduceOp::Prod, &m, Some(&[0]), false, None, None).unwrap();
            let column = |j: usize| (0..37).fold(to(1.0), |a, k| mul(a, xs[k * 900 + j]));
            let want: Vec<f64> = (0..900).map(|j| back(column(j)) as f64).collect();
            assert_eq!(floats(&p), want, "{:?} columns", T::DTYPE);
            // rows of 900 of a wider array, all reduced: one row after another into one result
            let wide = from_slice(&xs, &[30, 1110]).unwrap();
            let rows = crate::manip::narrow(&wide, 1, 0, 900).unwrap();
            let p = reduction(ReduceOp::Prod, &rows, None, false, None, None).unwrap();
            let want = xs.chunks(1110).fold(to(1.0), |a, r| row(a, &r[..900]));
            assert_eq!(
                floats(&p),
                vec![back(want) as f64],
                "{:?} all rows",
                T::DTYPE
            );
            // beyond a chunk: each chunk a row of its own, the chunks by the counter (two);
            // groups of 64 factors 1.1 and 1/1.1 in turn, so that each lane's rounded product
            // drifts but stays in range
            let n = CHUNK + 69;
            let xs: Vec<T> = (0..n)
                .map(|k| to(if k / 64 % 2 == 0 { 1.1 } else { 1.0 / 1.1 }))
                .collect();
            let finite = |v: T| back(v).is_finite() && back(v) != 0.0;
            assert!(finite(row(to(1.0), &xs[..CHUNK])) && finite(row(to(1.0), &xs[CHUNK..])));
            let long = from_slice(&xs, &[n]).unwrap();
            let p = reduction(ReduceOp::Prod, &long, None, false, None, None).unwrap();
            let (first, second) = (row(to(1.0), &xs[..CHUNK]), row(to(1.0), &xs[CHUNK..]));
            assert_eq!(floats(&p), vec![back(mul(first, second)) as f64]);
        }
        check::<f16>(f16::from_f32, f32::from);
        check::<bf16>(bf16::from_f32, f32::from);
    }

    /// Plain float sums take an explicit-vector loop for whole blocks (exec/raw/add_lanes.rs):
    /// its bits must be the generic lane loop's, at any start, length and dim.
    #[test]
    fn float_sums_match_the_generic_lane_loop_bit_for_bit() {
        use crate::kernels::table::UnaryOp;
        let generic = |a: &Array, mask: &[bool]| -> Array {
            let r = reduction_plan(a, mask, false, a.dtype(), false).unwrap();
            match a.dtype() {
                DType::F32 => reduce(
                    &r.plan,
                    &fold(0f32, |x: f32, _| x, |a, b| a + b),
                    |v| v,
                    1000,
                ),
                _ => reduce(
                    &r.plan,
                    &fold(0f64, |x: f64, _| x, |a, b| a + b),
                    |v| v,
                    1000,
                ),
            }
            .unwrap();
            r.result
        };
        for dtype in [DType::F32, DType::F64] {
            let n = 1_100_000;
            let ramp =
                Array::arange(Scalar::Int(0), Scalar::Int(n), Scalar::Int(1), dtype).unwrap();
            let base = crate::kernels::unary(UnaryOp::Sin, &ramp, None).unwrap();
            // every alignment of a block's start to a cache line (the AVX-512 loop reads
            // aligned lines and rotates its lanes back)
            for start in 0..16 {
                let a = crate::manip::narrow(&base, 0, start, 5 * 4096 + 3).unwrap();
                let fast = reduction(ReduceOp::Sum, &a, None, false, None, None).unwrap();
                assert_eq!(
                    floats(&fast),
                    floats(&generic(&a, &[true])),
                    "{dtype:?} {start}"
                );
            }
            // four units side by side (exec/raw/reduce.rs): whole chunks of one long run, rows
            // a whole number of lines apart (a block each, or blocks and a tail), four rows
            // of two chunks each; and rows not a whole number of lines apart (one at a time)
            // (at least 4 units a piece: 16 units or more at one thread)
            for (start, rows, cols) in [
                (0, 1, 17 * 32768 + 1000),
                (5, 64, 1024),
                (3, 40, 2064),
                (1, 4, 8 * 32768),
                (2, 24, 4104),
            ] {
                let m = crate::manip::narrow(&base, 0, start, rows * cols).unwrap();
                let m = m.view(&[rows as i64, cols as i64]).unwrap();
                let fast = reduction(ReduceOp::Sum, &m, Some(&[1]), false, None, None).unwrap();
                let want = generic(&m, &[false, true]);
                assert_eq!(floats(&fast), floats(&want), "{dtype:?} {rows}x{cols}");
            }
            for (start, len) in [
                (0, 1024),
                (0, 4096),
                (1, 3 * 4096 + 5),
                (3, 100_000),
                (7, 66_770),
            ] {
                let a = crate::manip::narrow(&base, 0, start, len).unwrap();
                let fast = reduction(ReduceOp::Sum, &a, None, false, None, None).unwrap();
                assert_eq!(
                    floats(&fast),
                    floats(&generic(&a, &[true])),
                    "{dtype:?} {start} {len}"
                );
                let rows = crate::manip::narrow(&base, 0, start, 7 * 9000).unwrap();
                let rows = rows.view(&[7, 9000]).unwrap();
                let fast = reduction(ReduceOp::Sum, &rows, Some(&[1]), false, None, None).unwrap();
                assert_eq!(floats(&fast), floats(&generic(&rows, &[false, true])));
                // the outer-dim path: columns of a tile (64 as a channels_last image's
                // channels, 37 for a vector tail)
                // (and 2600 rows, two whole blocks and a part, for the register-lane loop of
                // whole blocks on narrow tiles: 16, 48 and 64 columns)
                let shapes = [(250, 64), (250, 37), (250, 1000), (2600, 16), (2600, 48)];
                for (rows, cols) in shapes.into_iter().chain([(2600, 64), (2600, 37)]) {
                    let m = crate::manip::narrow(&base, 0, start, cols as usize * rows).unwrap();
                    let m = m.view(&[rows as i64, cols]).unwrap();
                    let fast = reduction(ReduceOp::Sum, &m, Some(&[0]), false, None, None);
                    let want = generic(&m, &[true, false]);
                    assert_eq!(floats(&fast.unwrap()), floats(&want), "{dtype:?} {cols}");
                }
                // and runs of rows that are not a multiple of 16 (7 images of 297 rows, not
                // coalesced): blocks that span runs, the panel loop of narrow rows and the
                // 4-row loop taking turns with single rows (16 to 64 columns)
                for cols in [16, 24, 32, 64] {
                    let m = crate::manip::narrow(&base, 0, start, 7 * 300 * cols).unwrap();
                    let m = m.view(&[7, 300, cols as i64]).unwrap();
                    let m = crate::manip::narrow(&m, 1, 0, 297).unwrap();
                    let fast = reduction(ReduceOp::Sum, &m, Some(&[0, 1]), false, None, None);
                    let want = generic(&m, &[true, true, false]);
                    assert_eq!(
                        floats(&fast.unwrap()),
                        floats(&want),
                        "{dtype:?} runs {cols}"
                    );
                }
            }
        }
    }

    /// amax/amin (`Extremum`: four-group trees, the NaN-free select for runs without NaN)
    /// give the bits of the lanes taken one element at a time: ties of -0.0 and 0.0 (the
    /// first one wins) and NaNs, along the fastest dim, over all dims and along an outer dim.
    #[test]
    fn extremum_trees_match_the_sequential_lanes_bit_for_bit() {
        use crate::kernels::table::{BinaryOp, UnaryOp};
        use crate::kernels::{binary, unary, Arg};
        let bits = |a: &Array| -> Vec<u64> {
            a.to_scalars()
                .unwrap()
                .into_iter()
                .map(|s| match s {
                    Scalar::Float(f) => f.to_bits(),
                    other => panic!("{other:?}"),
                })
                .collect()
        };
        for dtype in [DType::F32, DType::F64] {
            let n = 200_000;
            let ramp =
                Array::arange(Scalar::Int(0), Scalar::Int(n), Scalar::Int(1), dtype).unwrap();
            // round(sin(i) / 2): -0.0, 0.0 and ±1 in every block, so that ties decide the bits;
            // log of it: NaN where it is -1, -inf at zeros
            let half = Arg::Scalar(Scalar::Float(0.5));
            let sin = unary(UnaryOp::Sin, &ramp, None).unwrap();
            let scaled = binary(BinaryOp::Mul, &Arg::Array(sin), &half, None, None).unwrap();
            let ties = unary(UnaryOp::Round, &scaled, None).unwrap();
            let with_nan = unary(UnaryOp::Log, &ties, None).unwrap();
            for base in [&ties, &with_nan] {
                for (max, start, len) in [(true, 0, 4096), (false, 3, 100_000), (true, 7, 66_770)] {
                    let a = crate::manip::narrow(base, 0, start, len).unwrap();
                    let rows = a.view(&[len as i64 / 10, 10]).unwrap_or(a.clone());
                    for (x, mask) in [
                        (&a, vec![true]),
                        (&rows, vec![false, true]),
                        (&rows, vec![true, false]),
                    ] {
                        if x.ndim() != mask.len() {
                            continue;
                        }
                        // the select one element at a time into each lane (a reducer not
                        // marked exactly associative, so no trees and no NaN-free select)
                        let r = reduction_plan(x, &mask, false, x.dtype(), false).unwrap();
                        crate::dispatch_ordered!(x.dtype(), T => {
                            type K = <T as Ordered>::Key;
                            let id = if max { T::LOWEST } else { T::HIGHEST };
                            let pick = if max { pick::<K, true> } else { pick::<K, false> };
                            let f = fold(id, |v: T, _| v.key(), pick);
                            reduce(&r.plan, &f, |k: K| T::unkey(k), 1000).unwrap();
                        }, else panic!("not ordered"));
                        let dims: Vec<i64> = (0..mask.len() as i64)
                            .filter(|&d| mask[d as usize])
                            .collect();
                        let op = if max { ReduceOp::Amax } else { ReduceOp::Amin };
                        let got = reduction(op, x, Some(&dims), false, None, None).unwrap();
                        assert_eq!(
                            bits(&got),
                            bits(&r.result),
                            "{dtype:?} {max} {len} {mask:?}"
                        );
                    }
                }
            }
        }
    }
}
