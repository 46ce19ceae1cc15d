//! `Array`: a dtype, a `Layout` and a shared `Storage`. Constructors allocate with torch's
//! memory-format strides; views make new layouts over the same storage, each checked once
//! against the storage bounds so that later raw loops can trust them.
#![forbid(unsafe_code)]

use crate::blocked::{self, Blocking};
use crate::dtype::DType;
use crate::error::{Error, Result};
use crate::layout::{IndexItem, Layout};
use crate::memory_format::{self as mf, MemoryFormat};
use crate::scalar::{fmt_g, Scalar};
use crate::shape::{checked_numel, fmt_shape};
use crate::storage::Storage;
use std::sync::Arc;

/// A strided view of typed elements in a storage, or (with `blocking`) an array in one of
/// oneDNN's blocked formats: `layout` is then its dense physical view and `blocking` holds the
/// logical shape (`blocked.rs`).
///
/// An array never changes once made, so its clones share its parts (storage, layout, dtype,
/// blocking) behind one pointer: cloning or moving an array is a pointer's work. (Held
/// inline, the layout's two inline dim lists made an array 144 bytes, and a 1-element
/// `a + b` spent a fifth of its time copying arrays from one place to the next — more than
/// its instruction count showed: copying a value just written stalls.)
#[derive(Clone, Debug)]
pub struct Array(Arc<Parts>);

/// What an [`Array`] is made of.
#[derive(Debug)]
struct Parts {
    storage: Arc<Storage>,
    layout: Layout,
    dtype: DType,
    blocking: Option<Box<Blocking>>,
}

/// torch's `computeStorageNbytes` for a view of non-negative offset: 0 when any size is 0,
/// otherwise `(offset + 1 + Σ stride·(size−1)) · itemsize`, computed as torch does in unsigned
/// 64-bit arithmetic (so a negative stride on a dim of size ≥ 2 overflows), with torch's text.
pub fn storage_nbytes(
    shape: &[usize],
    strides: &[isize],
    itemsize: usize,
    offset: usize,
) -> Result<usize> {
    let overflowed = || {
        Error::value(format!(
            "Storage size calculation overflowed with sizes={} and strides={}",
            fmt_shape(shape),
            fmt_shape(strides)
        ))
    };
    let mut ok = true;
    let mut size = (offset as u64).checked_add(1).unwrap_or_else(|| {
        ok = false;
        0
    });
    for (&n, &stride) in shape.iter().zip(strides) {
        if n == 0 {
            return Ok(0);
        }
        match (stride as u64)
            .checked_mul(n as u64 - 1)
            .and_then(|reach| size.checked_add(reach))
        {
            Some(total) => size = total,
            None => ok = false,
        }
    }
    match size.checked_mul(itemsize as u64) {
        Some(nbytes) if ok && nbytes <= isize::MAX as u64 => Ok(nbytes as usize),
        _ => Err(overflowed()),
    }
}

/// Bytes a layout needs from the start of its storage (torch's `computeStorageNbytes`):
/// zero when empty, otherwise up to and including its last element.
fn required_nbytes(layout: &Layout, itemsize: usize) -> Result<usize> {
    match layout.element_span() {
        None => Ok(0),
        Some((_, hi)) => (hi as usize)
            .checked_add(1)
            .and_then(|n| n.checked_mul(itemsize))
            .ok_or_else(|| Error::value("array is too large")),
    }
}

/// torch's checks of a new dense array's size: the strides (products of the sizes, zeros
/// counted as 1) must fit in int64 ("Stride calculation overflowed"), and the bytes in isize
/// ("Storage size calculation overflowed with sizes=[...]").
fn check_dense_size(shape: &[usize], itemsize: usize) -> Result<()> {
    let numel = shape.iter().try_fold(1usize, |acc, &n| acc.checked_mul(n));
    if !matches!(numel.and_then(|n| n.checked_mul(itemsize)), Some(b) if b <= isize::MAX as usize) {
        return Err(Error::value(format!(
            "Storage size calculation overflowed with sizes={}",
            fmt_shape(shape)
        )));
    }
    shape
        .iter()
        .try_fold(1usize, |acc, &n| acc.checked_mul(n.max(1)))
        .filter(|&n| n <= isize::MAX as usize)
        .map(|_| ())
        .ok_or_else(|| Error::value("Stride calculation overflowed"))
}

impl Array {
    /// Joins a storage, a layout and a dtype, checking that every element lies in the storage.
    pub fn from_parts(storage: Arc<Storage>, layout: Layout, dtype: DType) -> Result<Array> {
        if !dtype.is_storable() {
            return Err(Error::type_(format!(
                "arrays of dtype {dtype} are not supported"
            )));
        }
        if layout.shape.len() != layout.strides.len() {
            return Err(Error::value(format!(
                "shape {} and strides {} have different lengths",
                fmt_shape(&layout.shape),
                fmt_shape(&layout.strides)
            )));
        }
        checked_numel(&layout.shape)?;
        if let Some((lo, hi)) = layout.element_span() {
            let limit = storage.nbytes() / dtype.itemsize();
            if lo < 0 || hi as usize >= limit {
                return Err(Error::value(format!(
                    "a view of sizes {}, strides {} and storage offset {} reaches elements {lo}..={hi}, outside its storage of {limit} elements",
                    fmt_shape(&layout.shape),
                    fmt_shape(&layout.strides),
                    layout.offset
                )));
            }
        }
        Ok(Array(Arc::new(Parts {
            storage,
            layout,
            dtype,
            blocking: None,
        })))
    }

    /// A new array with the given layout over fresh (zeroed) memory large enough for it.
    fn allocate(layout: Layout, dtype: DType) -> Result<Array> {
        let nbytes = required_nbytes(&layout, dtype.itemsize())?;
        Array::from_parts(Storage::alloc(nbytes)?, layout, dtype)
    }

    /// `empty(shape, dtype, memory_format)`: uninitialised-looking (zeroed) memory laid out with
    /// the format's strides.
    pub fn empty(shape: &[usize], dtype: DType, format: MemoryFormat) -> Result<Array> {
        check_dense_size(shape, dtype.itemsize())?;
        if format.blocked().is_some() {
            return Array::empty_blocked(Blocking::new(shape, format)?, dtype);
        }
        let strides = mf::format_strides(shape, format)?;
        Array::allocate(
            Layout {
                shape: shape.into(),
                strides,
                offset: 0,
            },
            dtype,
        )
    }

    /// `full(shape, value)`: every element set to `value` converted to `dtype`.
    pub fn full(
        shape: &[usize],
        value: Scalar,
        dtype: DType,
        format: MemoryFormat,
    ) -> Result<Array> {
        let out = Array::empty(shape, dtype, format)?;
        let value = checked_fill_value(value, dtype, out.numel())?;
        // New arrays of every format are dense from their first byte: fill `numel` elements
        // (a blocked array's physical ones, then its padding zeroed again).
        out.0
            .storage
            .fill_prefix(&value.to_bytes(dtype), out.0.layout.numel())?;
        out.zero_padding()?;
        Ok(out)
    }

    /// `empty_strided(shape, strides)`: these strides over fresh memory. As in torch, a negative
    /// stride is only accepted where it reaches nothing (a size-1 dim, or an empty array), and
    /// is then replaced by the stride a contiguous array would have there.
    pub fn empty_strided(shape: &[usize], strides: &[isize], dtype: DType) -> Result<Array> {
        Array::empty_strided_in(shape, strides, dtype, Storage::alloc)
    }

    /// `empty_strided` for a buffer that a kernel writes in full before anything reads it: the
    /// memory is not zeroed first (as torch's `empty`), which saves a pass over mid-sized
    /// outputs. Crate-private so that no caller can read what was never written; the build
    /// calls it only for plans from `into_kernel_plan`, and the copies for the output of
    /// [`Array::empty_like_for_copy`] (see [`Storage::alloc_kernel_output`] for why that is
    /// sound).
    pub(crate) fn empty_strided_unzeroed(
        shape: &[usize],
        strides: &[isize],
        dtype: DType,
    ) -> Result<Array> {
        Array::empty_strided_in(shape, strides, dtype, Storage::alloc_kernel_output)
    }

    /// A contiguous, unzeroed output of `like`'s shape (`empty_strided_unzeroed` with
    /// contiguous strides) for a kernel that writes every element before anything reads it:
    /// the direct plan of the commonest call (`plan::direct_operands`). `like` exists,
    /// so its element count was checked when it was made, and a contiguous layout spans
    /// exactly that many elements: the general constructor's size and span checks have nothing
    /// to find here (a tenth of a 1-element add).
    pub(crate) fn contiguous_kernel_output(like: &Array, dtype: DType) -> Result<Array> {
        if !dtype.is_storable() {
            return Err(Error::type_(format!(
                "arrays of dtype {dtype} are not supported"
            )));
        }
        let shape = crate::dims::copy_dims(like.shape());
        let strides = crate::dims::contiguous_strides(&shape);
        let storage = Storage::alloc_kernel_output(like.numel() * dtype.itemsize())?;
        let layout = Layout {
            shape,
            strides,
            offset: 0,
        };
        Ok(Array(Arc::new(Parts {
            storage,
            layout,
            dtype,
            blocking: None,
        })))
    }

    /// The output of a copy of `self` into `empty_like(dtype, format)`, unzeroed where the
    /// copy surely writes all of it before anything reads it (see
    /// [`Storage::alloc_kernel_output`] for why that is sound): `self` dense, neither side
    /// blocked, and the output taking `self`'s strides (the copy's walk then visits both in
    /// memory order and never reads the output), a same-dtype copy of any strided `self`
    /// into a dense format ([`Array::unzeroed_for_strided_copy`]), or a same-dtype conversion
    /// to, from or between blocked formats that writes every byte
    /// ([`Array::unzeroed_for_blocked_copy`]). A large clone or conversion otherwise zeroes
    /// its output in one serial pass before the parallel copy: on the 16-core Xeon, NCHW <->
    /// nChw16c of (16, 64, 56, 56) float32 stayed near 20 GB/s at every thread count, as a
    /// single-core memset of the 12.8 MB output followed by the copy would.
    pub(crate) fn empty_like_for_copy(
        &self,
        dtype: Option<DType>,
        format: MemoryFormat,
    ) -> Result<Array> {
        let same_strides = self.0.blocking.is_none()
            && format.blocked().is_none()
            && self.0.layout.is_non_overlapping_and_dense()
            && match format {
                MemoryFormat::Preserve => {
                    preserve_strides(&self.0.layout) == self.0.layout.strides[..]
                }
                other => {
                    mf::format_strides(&self.0.layout.shape, other)?[..]
                        == self.0.layout.strides[..]
                }
            };
        if same_strides {
            return Array::empty_strided_unzeroed(
                &self.0.layout.shape,
                &self.0.layout.strides,
                dtype.unwrap_or(self.0.dtype),
            );
        }
        if dtype.is_none_or(|d| d == self.0.dtype) {
            let unzeroed = if self.0.blocking.is_none() && format.blocked().is_none() {
                self.unzeroed_for_strided_copy(format)
            } else {
                self.unzeroed_for_blocked_copy(format)
            };
            if let Some(out) = unzeroed {
                return Ok(out);
            }
        }
        self.empty_like(dtype, format)
    }

    /// The unzeroed output of a same-dtype copy of a strided `self` (a permuted view, a
    /// slice, a broadcast) into `empty_like(format)` (`format` not blocked): that output is
    /// dense, so the copy writes every element of it, and contiguous along its fastest dim,
    /// which the plan makes dim 0, so the walk never reads it (`contiguous()` of a permuted
    /// view, NCHW <-> NHWC). `None`: the zeroed `empty_like` is allocated instead (and raises
    /// its errors as before).
    fn unzeroed_for_strided_copy(&self, format: MemoryFormat) -> Option<Array> {
        let strides: crate::dims::Strides = match format {
            MemoryFormat::Preserve => preserve_strides(&self.0.layout).into(),
            other => mf::format_strides(&self.0.layout.shape, other).ok()?,
        };
        Array::empty_strided_unzeroed(&self.0.layout.shape, &strides, self.0.dtype).ok()
    }

    /// The unzeroed output of a same-dtype copy of `self` into the `format` (`kernels::blocked::
    /// copy_into`) when one side is blocked and the copy writes every byte of it: both sides in
    /// the same blocking (one copy of the whole physical view, padding included), or the
    /// channels filling whole blocks of the side written through blocks (a blocked output, or
    /// the dense output of a blocked `self`): the copy of the full blocks then covers every
    /// element, and there is no padding to zero. `None`: the zeroed `empty_like` is
    /// allocated instead (and raises its errors as before).
    fn unzeroed_for_blocked_copy(&self, format: MemoryFormat) -> Option<Array> {
        let whole_blocks = |b: &Blocking| b.channels().is_multiple_of(b.block);
        let target = match (&self.0.blocking, format) {
            (Some(b), MemoryFormat::Preserve) => Some(b.as_ref().clone()),
            (_, f) if f.blocked().is_some() => Some(Blocking::new(self.shape(), f).ok()?),
            _ => None,
        };
        match (target, self.0.blocking.as_deref()) {
            (Some(t), from) => {
                if !(from == Some(&t) || whole_blocks(&t)) {
                    return None;
                }
                let physical = t.physical_layout();
                Array::empty_strided_unzeroed(&physical.shape, &physical.strides, self.0.dtype)
                    .ok()?
                    .into_blocked(t)
                    .ok()
            }
            (None, Some(from)) if whole_blocks(from) => {
                let strides = mf::format_strides(&from.shape, format).ok()?;
                Array::empty_strided_unzeroed(&from.shape, &strides, self.0.dtype).ok()
            }
            (None, _) => None,
        }
    }

    fn empty_strided_in(
        shape: &[usize],
        strides: &[isize],
        dtype: DType,
        alloc: fn(usize) -> Result<Arc<Storage>>,
    ) -> Result<Array> {
        if shape.len() != strides.len() {
            return Err(Error::value(format!(
                "dimensionality of sizes ({}) must match dimensionality of strides ({})",
                shape.len(),
                strides.len()
            )));
        }
        let nbytes = storage_nbytes(shape, strides, dtype.itemsize(), 0)?;
        let mut strides = crate::dims::copy_dims(strides);
        for d in (0..strides.len()).rev() {
            if strides[d] < 0 {
                strides[d] = if d + 1 == strides.len() {
                    1
                } else {
                    shape[d + 1].max(1) as isize * strides[d + 1]
                };
            }
        }
        let layout = Layout {
            shape: crate::dims::copy_dims(shape),
            strides,
            offset: 0,
        };
        Array::from_parts(alloc(nbytes)?, layout, dtype)
    }

    /// `empty_like(self, dtype, memory_format)` with torch's preserve rule: a non-overlapping
    /// and dense source gives its exact strides, any other gives dense strides in its order.
    pub fn empty_like(&self, dtype: Option<DType>, format: MemoryFormat) -> Result<Array> {
        let dtype = dtype.unwrap_or(self.0.dtype);
        if let Some(b) = &self.0.blocking {
            let format = match format {
                MemoryFormat::Preserve => b.format(),
                other => other,
            };
            return Array::empty(&b.shape, dtype, format);
        }
        if format.blocked().is_some() {
            return Array::empty(self.shape(), dtype, format);
        }
        let strides = match format {
            MemoryFormat::Preserve => preserve_strides(&self.0.layout).into(),
            other => mf::format_strides(&self.0.layout.shape, other)?,
        };
        Array::allocate(
            Layout {
                shape: self.0.layout.shape.clone(),
                strides,
                offset: 0,
            },
            dtype,
        )
    }

    /// `full_like(self, value)`: `empty_like` filled with `value`.
    pub fn full_like(
        &self,
        value: Scalar,
        dtype: Option<DType>,
        format: MemoryFormat,
    ) -> Result<Array> {
        let out = self.empty_like(dtype, format)?;
        let value = checked_fill_value(value, out.0.dtype, out.numel())?;
        // empty_like's strides are dense and non-negative from offset 0: the layout's elements
        // (a blocked array's physical ones, then its padding zeroed again).
        out.0
            .storage
            .fill_prefix(&value.to_bytes(out.0.dtype), out.0.layout.numel())?;
        out.zero_padding()?;
        Ok(out)
    }

    /// torch's default dtype of `arange(start, stop, step)`: int64 when every bound is an
    /// integer (or bool), else the default float (float32).
    pub fn arange_default_dtype(start: Scalar, stop: Scalar, step: Scalar) -> DType {
        let integral = |s: Scalar| matches!(s, Scalar::Int(_) | Scalar::UInt(_) | Scalar::Bool(_));
        if integral(start) && integral(stop) && integral(step) {
            DType::I64
        } else {
            crate::dtype::DEFAULT_FLOAT
        }
    }

    /// `arange(start, stop, step)` computed as torch's CPU kernel does. The bounds are checked as
    /// doubles, then converted to the dtype's accumulate type (int64 for integers, double for
    /// float32/float64, float for float16/bfloat16). The length is `ceil((stop − start) / step)`
    /// in doubles (for int64, in int64 arithmetic on the converted bounds); the elements are as
    /// `ArangeAcc` computes them.
    pub fn arange(start: Scalar, stop: Scalar, step: Scalar, dtype: DType) -> Result<Array> {
        if dtype == DType::Bool || dtype.is_complex() {
            return Err(Error::type_(format!(
                "\"arange_cpu\" not implemented for '{}'",
                dtype.torch_name()
            )));
        }
        let as_double = |x: Scalar| x.checked_for(DType::F64).map(Scalar::as_f64);
        let (a, b, s) = (as_double(start)?, as_double(stop)?, as_double(step)?);
        if s == 0.0 || s.is_nan() {
            return Err(Error::value("step must be nonzero"));
        }
        if !(a.is_finite() && b.is_finite()) {
            return Err(Error::value(format!(
                "unsupported range: {} -> {}",
                fmt_g(a),
                fmt_g(b)
            )));
        }
        if !((s > 0.0 && b >= a) || (s < 0.0 && b <= a)) {
            return Err(Error::value(
                "upper bound and lower bound inconsistent with step sign",
            ));
        }
        let mut len = ((b - a) / s).ceil();
        let acc = if dtype.is_integral(false) {
            let to_acc = |x: Scalar| x.checked_for(DType::I64).map(Scalar::as_i64);
            let (xa, xb, xs) = (to_acc(start)?, to_acc(stop)?, to_acc(step)?);
            if dtype == DType::I64 {
                if xs == 0 {
                    return Err(Error::value("step must be nonzero"));
                }
                // torch's int64 formula, wrapping where C++ would overflow
                let span = xb
                    .wrapping_sub(xa)
                    .wrapping_add(xs)
                    .wrapping_sub(xs.signum());
                len = span.wrapping_div(xs) as f64;
            }
            ArangeAcc::Int(xa, xs)
        } else if matches!(dtype, DType::F16 | DType::BF16) {
            let to_acc = |x: Scalar| x.checked_for(DType::F32).map(|v| v.as_f64() as f32);
            let (xa, _, xs) = (to_acc(start)?, to_acc(stop)?, to_acc(step)?);
            ArangeAcc::Float(xa, xs)
        } else {
            ArangeAcc::Double(a, s)
        };
        if !(len >= 0.0 && len <= i64::MAX as f64) {
            return Err(Error::value("invalid size, possible overflow?"));
        }
        let n = len as usize;
        let out = Array::empty(&[n], dtype, MemoryFormat::Contiguous)?;
        let itemsize = dtype.itemsize();
        // torch's vectorized loop fills whole pairs of vectors; the rest is the scalar loop
        let lanes = ARANGE_VECTOR_BYTES / itemsize;
        let vectorized = n / (2 * lanes) * (2 * lanes);
        for i in 0..n {
            let value = if i < vectorized {
                acc.vector_element(i, i % lanes, dtype)
            } else {
                acc.element(i)
            };
            out.0.storage.write(i * itemsize, &value.to_bytes(dtype))?;
        }
        Ok(out)
    }

    // ---- accessors ----

    /// The element type.
    pub fn dtype(&self) -> DType {
        self.0.dtype
    }
    /// The layout: sizes, element strides and storage offset (a blocked array's physical view).
    pub fn layout(&self) -> &Layout {
        &self.0.layout
    }
    /// The logical shape (a blocked array's NC(D)HW, not its physical view's).
    pub fn shape(&self) -> &[usize] {
        match &self.0.blocking {
            Some(b) => &b.shape,
            None => &self.0.layout.shape,
        }
    }
    /// The strides, in elements (of the layout: a blocked array's physical view).
    pub fn strides(&self) -> &[isize] {
        &self.0.layout.strides
    }
    /// The offset of element 0 in the storage, in elements (torch's `storage_offset()`).
    pub fn storage_offset(&self) -> isize {
        self.0.layout.offset
    }
    /// The storage the array views (shared with every other view of it).
    pub fn storage(&self) -> &Arc<Storage> {
        &self.0.storage
    }
    /// The number of logical dims.
    pub fn ndim(&self) -> usize {
        self.shape().len()
    }
    /// Logical elements (a blocked array's padding excluded).
    pub fn numel(&self) -> usize {
        match &self.0.blocking {
            Some(b) => b.numel(),
            None => self.0.layout.numel(),
        }
    }
    /// The blocking of an array in a blocked format; `None` for a strided array.
    pub fn blocking(&self) -> Option<&Blocking> {
        self.0.blocking.as_deref()
    }
    /// Bytes per element.
    pub fn itemsize(&self) -> usize {
        self.0.dtype.itemsize()
    }
    /// Whether the array views memory that refuses writes (a read-only numpy array or DLPack
    /// capsule).
    pub fn is_readonly(&self) -> bool {
        !self.0.storage.is_writable()
    }
    /// Address of element 0 (the storage offset applied).
    pub fn data_ptr(&self) -> usize {
        self.0.storage.base_ptr() as usize + (self.0.layout.offset as usize) * self.itemsize()
    }
    /// torch's tensor type name for messages: `torch.FloatTensor`, or the legacy `CPUBoolType`
    /// for the dtypes that have no `torch.*Tensor` class (bool, bfloat16, complex).
    pub fn torch_type_name(&self) -> String {
        match self.0.dtype {
            DType::Bool | DType::BF16 | DType::ComplexHalf | DType::C64 | DType::C128 => {
                format!("CPU{}Type", self.0.dtype.torch_name())
            }
            _ => format!("torch.{}Tensor", self.0.dtype.torch_name()),
        }
    }
    /// Whether two arrays view the same storage.
    pub fn shares_storage(&self, other: &Array) -> bool {
        Arc::ptr_eq(&self.0.storage, &other.0.storage)
    }

    // ---- views ----

    /// The layout views start from; refused for a blocked array (see `with_layout`).
    fn view_layout(&self) -> Result<&Layout> {
        self.refuse_blocked("views")?;
        Ok(&self.0.layout)
    }

    /// The same storage under another layout (checked against the storage bounds). Views of
    /// a blocked array are refused: no strided view can address its logical elements.
    pub fn with_layout(&self, layout: Layout) -> Result<Array> {
        self.refuse_blocked("views")?;
        Array::from_parts(self.0.storage.clone(), layout, self.0.dtype)
    }
    /// `permute(*dims)`: a view whose dim i is this array's dim `dims[i]`.
    pub fn permute(&self, dims: &[i64]) -> Result<Array> {
        self.with_layout(self.view_layout()?.permute(dims)?)
    }
    /// `transpose(d0, d1)`: a view with two dims swapped.
    pub fn transpose(&self, d0: i64, d1: i64) -> Result<Array> {
        self.with_layout(self.view_layout()?.transpose(d0, d1)?)
    }
    /// `expand(*sizes)`: a view broadcast to `sizes` (`-1` keeps a size) with stride-0 dims.
    pub fn expand(&self, sizes: &[i64]) -> Result<Array> {
        self.with_layout(self.view_layout()?.expand(sizes, &self.torch_type_name())?)
    }
    /// `unsqueeze(dim)`: a view with a size-1 dim inserted at `dim`.
    pub fn unsqueeze(&self, dim: i64) -> Result<Array> {
        self.with_layout(self.view_layout()?.unsqueeze(dim)?)
    }
    /// `squeeze(dims)`: a view without the listed size-1 dims, or every size-1 dim when `None`.
    pub fn squeeze(&self, dims: Option<&[i64]>) -> Result<Array> {
        self.with_layout(self.view_layout()?.squeeze(dims)?)
    }
    /// `view(*shape)`: the same memory under a new shape (one `-1` inferred), where the strides
    /// allow it without a copy.
    pub fn view(&self, shape: &[i64]) -> Result<Array> {
        self.with_layout(self.view_layout()?.view(shape)?)
    }
    /// `__getitem__` with a tuple key of ints, slices, `None` and `...` (see [`Layout::index`]): a
    /// view.
    pub fn index(&self, items: &[IndexItem]) -> Result<Array> {
        self.with_layout(self.view_layout()?.index(items)?)
    }
    /// `a[i, j, ...] = value` with one int per dim: the value converted and range-checked as
    /// [`Array::full`] does, its bytes written in place — no view and no plan, so that an element
    /// write costs what numpy's does (scikit-learn fills diagonals one element at a time).
    pub fn set_element(&self, index: &[i64], value: Scalar) -> Result<()> {
        // torch converts the value before it reads the key: its range error comes first
        let value = checked_fill_value(value, self.0.dtype, 1)?;
        let offset = self.view_layout()?.element_offset(index)?;
        let bytes = value.to_bytes(self.0.dtype);
        self.0.storage.write(offset * bytes.len(), &bytes)
    }
    /// `a[i, j, ...] = v` for a one-element `v` of `a`'s dtype: its bytes, as
    /// [`Array::set_element`] writes a number.
    pub fn set_element_from(&self, index: &[i64], v: &Array) -> Result<()> {
        if v.numel() != 1 || v.0.dtype != self.0.dtype {
            return Err(Error::value(
                "set_element_from takes one element of the array's dtype",
            ));
        }
        v.view_layout()?;
        let offset = self.view_layout()?.element_offset(index)?;
        self.0.storage.copy_runs(
            std::iter::once(offset as isize),
            v.storage(),
            std::iter::once(v.storage_offset()),
            self.itemsize(),
            1,
        )
    }
    /// `__getitem__` with one entry that is not in a tuple (torch's messages differ on 0-d).
    pub fn index_bare(&self, item: IndexItem) -> Result<Array> {
        self.with_layout(self.view_layout()?.index_bare(item)?)
    }
    /// `broadcast_to(shape)`: `expand` with numpy's name.
    pub fn broadcast_to(&self, shape: &[usize]) -> Result<Array> {
        let target: Vec<i64> = shape.iter().map(|&s| s as i64).collect();
        self.expand(&target)
    }

    /// `as_strided(size, stride, storage_offset)`: any layout within the storage, with torch's
    /// checks (no negative strides or offset; the storage must hold every element).
    pub fn as_strided(
        &self,
        shape: &[usize],
        strides: &[isize],
        offset: Option<isize>,
    ) -> Result<Array> {
        self.refuse_blocked("views")?;
        if shape.len() != strides.len() {
            return Err(Error::value("mismatch in length of strides and shape"));
        }
        check_non_negative_strides(strides)?;
        let offset = offset.unwrap_or(self.0.layout.offset);
        if offset < 0 {
            return Err(Error::value(format!(
                "Tensor: invalid storage offset {offset}"
            )));
        }
        let layout = Layout {
            shape: shape.into(),
            strides: strides.into(),
            offset,
        };
        let itemsize = self.itemsize();
        let needed = storage_nbytes(shape, strides, itemsize, offset as usize)?;
        if needed > self.0.storage.nbytes() {
            return Err(Error::value(format!(
                "setStorage: sizes {}, strides {}, storage offset {offset}, and itemsize {itemsize} requiring a storage size of {needed} are out of bounds for storage of size {}",
                fmt_shape(shape),
                fmt_shape(strides),
                self.0.storage.nbytes()
            )));
        }
        self.with_layout(layout)
    }

    // ---- blocked formats (blocked.rs) ----

    /// A new zeroed array in a blocked format: its storage is the dense physical view.
    pub fn empty_blocked(blocking: Blocking, dtype: DType) -> Result<Array> {
        checked_numel(&blocking.shape)?;
        let physical = Array::allocate(blocking.physical_layout(), dtype)?;
        Ok(physical.with_blocking(Some(Box::new(blocking))))
    }

    /// A plain array (its dense physical view, offset 0) taken as the storage of a blocked
    /// array of `blocking` (the physical shapes must agree).
    pub fn into_blocked(self, blocking: Blocking) -> Result<Array> {
        if self.0.blocking.is_some() || self.0.layout != blocking.physical_layout() {
            return Err(Error::value(format!(
                "a blocked array of shape {} needs its dense physical view {} at offset 0, got sizes {}, strides {}",
                fmt_shape(&blocking.shape),
                fmt_shape(&blocking.physical_shape()),
                fmt_shape(&self.0.layout.shape),
                fmt_shape(&self.0.layout.strides)
            )));
        }
        Ok(self.with_blocking(Some(Box::new(blocking))))
    }

    /// The physical view of a blocked array as a plain strided array over the same storage
    /// (`blocked_view()`); a strided array itself.
    pub fn physical(&self) -> Array {
        match self.0.blocking {
            None => self.clone(),
            Some(_) => self.with_blocking(None),
        }
    }

    /// The same storage, layout and dtype with another blocking.
    fn with_blocking(&self, blocking: Option<Box<Blocking>>) -> Array {
        Array(Arc::new(Parts {
            storage: self.0.storage.clone(),
            layout: self.0.layout.clone(),
            dtype: self.0.dtype,
            blocking,
        }))
    }

    /// Writes zero to a blocked array's padding lanes (nothing for a strided array, or when
    /// C is a multiple of the block).
    pub fn zero_padding(&self) -> Result<()> {
        let Some(b) = &self.0.blocking else {
            return Ok(());
        };
        if let Some(pad) = blocked::padding_part(b, &self.0.layout) {
            let zero = Array::full(&[], Scalar::Int(0), self.0.dtype, MemoryFormat::Contiguous)?;
            let pad = Array::from_parts(self.0.storage.clone(), pad, self.0.dtype)?;
            crate::kernels::copy::copy_into(&pad, &zero)?;
        }
        Ok(())
    }

    /// The memory format an array is in for `suggest_memory_format`: a blocked array's own
    /// format, else torch's guess from the strides (never a blocked format).
    pub fn suggest_memory_format(&self, exact_match: bool) -> MemoryFormat {
        match &self.0.blocking {
            Some(b) => b.format(),
            None => self.0.layout.suggest_memory_format(exact_match),
        }
    }

    /// `is_contiguous(memory_format=format)`: a blocked array is contiguous in its own format
    /// only; a strided array never is in a blocked one.
    pub fn is_contiguous_as(&self, format: MemoryFormat) -> Result<bool> {
        match &self.0.blocking {
            Some(b) => Ok(format == b.format()),
            None => self.0.layout.is_contiguous(format),
        }
    }

    /// A clear error for an operation that cannot take a blocked array yet.
    pub fn refuse_blocked(&self, what: &str) -> Result<()> {
        match &self.0.blocking {
            Some(b) => Err(Error::value(format!(
                "{what} of an array in the blocked format {} are not supported; convert it with .contiguous() or .to(memory_format=...) first",
                b.format().name()
            ))),
            None => Ok(()),
        }
    }

    /// A contiguous array of `shape` holding `values` in row-major order (as many as the shape
    /// has), of `T`'s dtype: how a Rust caller hands its data to the iterator.
    ///
    /// ```
    /// use ferroiter::Array;
    /// let a = Array::from_values(&[1.0f32, 2.0, 3.0, 4.0, 5.0, 6.0], &[2, 3])?;
    /// assert_eq!(a.transpose(0, 1)?.to_values::<f32>()?, [1.0, 4.0, 2.0, 5.0, 3.0, 6.0]);
    /// # Ok::<(), ferroiter::Error>(())
    /// ```
    pub fn from_values<T: crate::kernels::element::Element>(
        values: &[T],
        shape: &[usize],
    ) -> Result<Array> {
        let numel: usize = shape.iter().product();
        if values.len() != numel {
            return Err(Error::value(format!(
                "from_values: {} values for shape {} ({numel} elements)",
                values.len(),
                crate::shape::fmt_shape(shape)
            )));
        }
        let array = Array::empty(shape, T::DTYPE, MemoryFormat::Contiguous)?;
        array.0.storage.write_elements(0, values)?;
        Ok(array)
    }

    /// Every element in logical row-major order as `T`, which must be the array's dtype.
    pub fn to_values<T: crate::kernels::element::Element>(&self) -> Result<Vec<T>> {
        if self.0.dtype != T::DTYPE {
            return Err(Error::type_(format!(
                "to_values: the array is {}, not {}",
                self.0.dtype,
                T::DTYPE
            )));
        }
        crate::exec::raw::lines::to_vec::<T>(&crate::kernels::blocked::dense(self)?)
    }

    // ---- element access (slow path: for tolist, item, printing) ----

    /// Every element in logical row-major order.
    pub fn to_scalars(&self) -> Result<Vec<Scalar>> {
        if self.0.blocking.is_some() {
            return crate::kernels::blocked::dense(self)?.to_scalars();
        }
        let itemsize = self.itemsize();
        let mut buf = [0u8; 16];
        let mut out = Vec::with_capacity(self.numel());
        for off in element_offsets(&self.0.layout) {
            self.0
                .storage
                .read(off as usize * itemsize, &mut buf[..itemsize])?;
            out.push(Scalar::from_bytes(self.0.dtype, &buf[..itemsize]));
        }
        Ok(out)
    }

    /// `item()`: the single element of a one-element array.
    pub fn item(&self) -> Result<Scalar> {
        if self.numel() != 1 {
            return Err(Error::value(format!(
                "a Tensor with {} elements cannot be converted to Scalar",
                self.numel()
            )));
        }
        Ok(self.to_scalars()?[0])
    }
}

/// The vector width (bytes) of torch's CPU arange kernel: 32, i.e. AVX2's, even on AVX512
/// machines (measured on torch 2.13), so 4 doubles, 8 floats or 16 halves per vector.
const ARANGE_VECTOR_BYTES: usize = 32;

/// The start and step of an arange in the accumulate type torch's kernel computes in, and how
/// it rounds: torch's compiled kernel fuses `start + step·i` into one FMA, and so does every
/// vector lane except bfloat16's (measured against torch 2.13 on x86-64).
#[derive(Clone, Copy)]
enum ArangeAcc {
    /// integers: int64, wrapping
    Int(i64, i64),
    /// float32 and float64: double
    Double(f64, f64),
    /// float16 and bfloat16: float
    Float(f32, f32),
}

impl ArangeAcc {
    /// Element `i` from the scalar loop: `start + step·i` in the accumulate type.
    fn element(self, i: usize) -> Scalar {
        match self {
            ArangeAcc::Int(start, step) => {
                Scalar::Int(start.wrapping_add(step.wrapping_mul(i as i64)))
            }
            ArangeAcc::Double(start, step) => Scalar::Float(step.mul_add(i as f64, start)),
            ArangeAcc::Float(start, step) => Scalar::Float(step.mul_add(i as f32, start) as f64),
        }
    }

    /// Element `i`, lane `lane` of its vector, from the vectorized loop: the vector's first
    /// element is computed as above and rounded to `dtype`, then lane `j` adds `j·step` to it in
    /// the accumulate type. (Integers give the same values both ways.)
    fn vector_element(self, i: usize, lane: usize, dtype: DType) -> Scalar {
        let rounded =
            |x: f64| Scalar::from_bytes(dtype, &Scalar::Float(x).to_bytes(dtype)).as_f64();
        let base = rounded(self.element(i - lane).as_f64());
        match self {
            ArangeAcc::Int(..) => self.element(i),
            ArangeAcc::Double(_, step) => Scalar::Float((lane as f64).mul_add(step, base)),
            ArangeAcc::Float(_, step) if dtype == DType::BF16 => {
                Scalar::Float((base as f32 + lane as f32 * step) as f64)
            }
            ArangeAcc::Float(_, step) => {
                Scalar::Float((lane as f32).mul_add(step, base as f32) as f64)
            }
        }
    }
}

/// The value `fill_` stores, or torch's overflow error. torch fills a one-element array on a
/// fast path that takes float16 and bfloat16 values through an unchecked double (1e10 becomes
/// inf; only a complex value fails, naming `double`); every other size checks the half type's
/// range.
fn checked_fill_value(value: Scalar, dtype: DType, numel: usize) -> Result<Scalar> {
    if numel == 1 && matches!(dtype, DType::F16 | DType::BF16) {
        value.checked_for(DType::F64)
    } else {
        value.checked_for(dtype)
    }
}

/// torch's preserve-format strides: exact strides for non-overlapping-and-dense layouts, dense
/// strides in the same order otherwise.
pub fn preserve_strides(layout: &Layout) -> Vec<isize> {
    if layout.is_non_overlapping_and_dense() {
        layout.strides.to_vec()
    } else {
        mf::infer_dense_strides(&layout.shape, &layout.strides)
    }
}

fn check_non_negative_strides(strides: &[isize]) -> Result<()> {
    if strides.iter().any(|&s| s < 0) {
        return Err(Error::value(format!(
            "as_strided: Negative strides are not supported at the moment, got strides: {}",
            fmt_shape(strides)
        )));
    }
    Ok(())
}

/// The element offsets of a layout in logical row-major order (an odometer over the shape).
pub fn element_offsets(layout: &Layout) -> impl Iterator<Item = isize> + '_ {
    let numel = layout.numel();
    let mut index = vec![0usize; layout.ndim()];
    let mut offset = layout.offset;
    (0..numel).map(move |i| {
        if i > 0 {
            for d in (0..index.len()).rev() {
                index[d] += 1;
                offset += layout.strides[d];
                if index[d] < layout.shape[d] {
                    break;
                }
                offset -= layout.strides[d] * layout.shape[d] as isize;
                index[d] = 0;
            }
        }
        offset
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn formats_and_preserve() {
        let a = Array::empty(&[2, 3, 4, 5], DType::F32, MemoryFormat::ChannelsLast).unwrap();
        assert_eq!(a.strides(), &[60, 1, 15, 3]);
        let z = Array::empty(&[2, 0, 4, 5], DType::F32, MemoryFormat::ChannelsLast).unwrap();
        assert_eq!(z.strides(), &[0, 1, 0, 0]);
        let t = Array::empty(&[2, 3, 4], DType::F32, MemoryFormat::Contiguous).unwrap();
        let p = t.permute(&[2, 0, 1]).unwrap().index(&[
            IndexItem::Ellipsis,
            IndexItem::Slice {
                start: None,
                stop: None,
                step: Some(2),
            },
        ]);
        let like = p.unwrap().empty_like(None, MemoryFormat::Preserve).unwrap();
        assert_eq!(like.strides(), &[1, 8, 4]);
    }

    #[test]
    fn full_and_read_back() {
        let a = Array::full(
            &[2, 2],
            Scalar::Float(1.5),
            DType::F64,
            MemoryFormat::Contiguous,
        )
        .unwrap();
        let t = a.transpose(0, 1).unwrap();
        assert_eq!(t.to_scalars().unwrap(), vec![Scalar::Float(1.5); 4]);
        let r = Array::arange(Scalar::Int(0), Scalar::Int(10), Scalar::Int(3), DType::I64).unwrap();
        assert_eq!(
            r.to_scalars().unwrap(),
            [0, 3, 6, 9].map(Scalar::Int).to_vec()
        );
    }

    #[test]
    fn as_strided_is_bounds_checked() {
        let a = Array::empty(&[4], DType::F32, MemoryFormat::Contiguous).unwrap();
        let err = a.as_strided(&[10], &[1], Some(0)).unwrap_err();
        assert_eq!(
            err.to_string(),
            "setStorage: sizes [10], strides [1], storage offset 0, and itemsize 4 requiring a storage size of 40 are out of bounds for storage of size 16"
        );
    }
}
