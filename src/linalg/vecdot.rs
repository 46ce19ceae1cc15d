//! `vecdot(x, y, dim)` (torch's `linalg.vecdot`): `Σ conj(x)·y` along `dim` after
//! broadcasting, for floating and complex arrays of one dtype; the result drops `dim` and is
//! contiguous (two vectors: torch's `vdot`, whatever `dim`). Each line is one output element,
//! summed in order in a wider type (float16 and bfloat16 in float32, float32 in float64),
//! lines in parallel.
#![forbid(unsafe_code)]

use crate::dtype::DType;
use crate::error::{Error, Result};
use crate::exec::raw::lines::{fill_lines1, Lines, LinesOut};
use crate::kernels::element::{Element, C128, C64};
use crate::kernels::run::grain_size;
use crate::plan::reduction::wrap_dim;
use crate::shape::infer_size;
use crate::Array;
use half::{bf16, f16};

/// An element with a conjugate and a wider type to sum in.
trait Dot: Element {
    type Acc: Copy + Default + std::ops::Add<Output = Self::Acc> + std::ops::Mul<Output = Self::Acc>;
    fn widen_conj(self) -> Self::Acc;
    fn widen(self) -> Self::Acc;
    fn narrow(acc: Self::Acc) -> Self;
}
macro_rules! real_dot {
    ($t:ty, $acc:ty, |$x:ident| $w:expr, |$y:ident| $n:expr) => {
        impl Dot for $t {
            type Acc = $acc;
            fn widen_conj(self) -> $acc {
                self.widen()
            }
            fn widen(self) -> $acc {
                let $x = self;
                $w
            }
            fn narrow($y: $acc) -> Self {
                $n
            }
        }
    };
}
real_dot!(f16, f32, |x| f32::from(x), |y| f16::from_f32(y));
real_dot!(bf16, f32, |x| f32::from(x), |y| bf16::from_f32(y));
real_dot!(f32, f64, |x| x as f64, |y| y as f32);
real_dot!(f64, f64, |x| x, |y| y);
real_dot!(C64, C64, |x| x, |y| y);
real_dot!(C128, C128, |x| x, |y| y);

/// `conj` is only meaningful for complex: the real impls above widen as is, so complex
/// conjugates separately.
fn conj_widen<T: Dot>(x: T) -> T::Acc {
    x.widen_conj()
}

/// `vecdot(x, y, dim)`.
pub fn vecdot(x: &Array, y: &Array, dim: i64) -> Result<Array> {
    let (x, y) = (
        &crate::kernels::blocked::dense(x)?,
        &crate::kernels::blocked::dense(y)?,
    );
    let dtype = x.dtype();
    if !(dtype.is_complex() || matches!(dtype, DType::F16 | DType::BF16 | DType::F32 | DType::F64))
    {
        return Err(Error::value(format!(
            "linalg.vecdot: Expected a floating point or complex tensor as input. Got {}",
            dtype.torch_name()
        )));
    }
    if y.dtype() != dtype {
        return Err(Error::value(format!(
            "linalg.vecdot: Expected x and y to have the same dtype, but found x of type {} and y of type {} instead",
            dtype.torch_name(),
            y.dtype().torch_name()
        )));
    }
    // torch answers two vectors with `vdot`: sizes must be equal, `dim` is not looked at
    let (shape, d) = if x.ndim() == 1 && y.ndim() == 1 {
        let (k, k2) = (x.numel(), y.numel());
        if k != k2 {
            return Err(Error::value(format!(
                "inconsistent tensor size, expected tensor [{k}] and src [{k2}] to have the same number of elements, but got {k} and {k2} elements respectively"
            )));
        }
        (vec![k], 0)
    } else {
        let shape = infer_size(x.shape(), y.shape())?;
        let d = wrap_dim(dim, shape.len())?;
        (shape, d)
    };
    let target: Vec<i64> = shape.iter().map(|&s| s as i64).collect();
    let (xb, yb) = (x.expand(&target)?, y.expand(&target)?);
    let mut out_shape = shape.clone();
    if !out_shape.is_empty() {
        out_shape.remove(d);
    }
    let count: usize = out_shape.iter().product();
    match dtype {
        DType::F16 => lines_dot::<f16>(&xb, &yb, d, count, &out_shape, false),
        DType::BF16 => lines_dot::<bf16>(&xb, &yb, d, count, &out_shape, false),
        DType::F32 => lines_dot::<f32>(&xb, &yb, d, count, &out_shape, false),
        DType::F64 => lines_dot::<f64>(&xb, &yb, d, count, &out_shape, false),
        DType::C64 => lines_dot::<C64>(&xb, &yb, d, count, &out_shape, true),
        DType::C128 => lines_dot::<C128>(&xb, &yb, d, count, &out_shape, true),
        other => Err(Error::NotImplemented {
            kernel: "vecdot",
            dtype: other,
        }),
    }
}

/// One output element per line of the broadcast operands along `d`.
fn lines_dot<T: Dot + Conj>(
    x: &Array,
    y: &Array,
    d: usize,
    count: usize,
    out_shape: &[usize],
    complex: bool,
) -> Result<Array> {
    let (lx, ly) = (Lines::<T>::new(x, d)?, Lines::<T>::new(y, d)?);
    let mut out = LinesOut::<T>::new(&[count, 1], &[1, 1], 1)?;
    let work = count * lx.len().max(1);
    let init = || (Vec::<T>::new(), Vec::<T>::new());
    fill_lines1(&mut out, work, grain_size(), init, |(bx, by), m, slot| {
        lx.read(m, bx);
        ly.read(m, by);
        let mut acc = T::Acc::default();
        for (&a, &b) in bx.iter().zip(by.iter()) {
            let a = if complex { a.conj() } else { a };
            acc = acc + conj_widen(a) * b.widen();
        }
        slot[0] = T::narrow(acc);
    })?;
    let shape: Vec<i64> = out_shape.iter().map(|&s| s as i64).collect();
    out.finish().view(&shape)
}

/// Complex conjugation (the identity for reals).
trait Conj: Sized {
    fn conj(self) -> Self;
}
macro_rules! real_conj {
    ($($t:ty),*) => {$(impl Conj for $t { fn conj(self) -> Self { self } })*};
}
real_conj!(f16, bf16, f32, f64);
impl Conj for C64 {
    fn conj(self) -> Self {
        num_complex::Complex::conj(&self)
    }
}
impl Conj for C128 {
    fn conj(self) -> Self {
        num_complex::Complex::conj(&self)
    }
}
