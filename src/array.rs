//! `Array`: a dtype, a `Layout` and a shared `Storage`. Constructors allocate with torch's
//! memory-format strides; views make new layouts over the same storage, each checked once
//! against the storage bounds so that later raw loops can trust them.

use crate::dtype::DType;
use crate::error::{Error, Result};
use crate::layout::{IndexItem, Layout};
use crate::memory_format::{self as mf, MemoryFormat};
use crate::scalar::Scalar;
use crate::shape::{checked_numel, fmt_shape};
use crate::storage::Storage;
use std::sync::Arc;

/// A strided view of typed elements in a storage.
#[derive(Clone, Debug)]
pub struct Array {
    storage: Arc<Storage>,
    layout: Layout,
    dtype: DType,
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
        Ok(Array {
            storage,
            layout,
            dtype,
        })
    }

    /// A new array with the given layout over fresh memory large enough for it.
    fn allocate(layout: Layout, dtype: DType, zeroed: bool) -> Result<Array> {
        let nbytes = required_nbytes(&layout, dtype.itemsize())?;
        Array::from_parts(Storage::alloc(nbytes, zeroed)?, layout, dtype)
    }

    /// `empty(shape, dtype, memory_format)`: uninitialised-looking (zeroed) memory laid out with
    /// the format's strides.
    pub fn empty(shape: &[usize], dtype: DType, format: MemoryFormat) -> Result<Array> {
        let strides = mf::format_strides(shape, format)?;
        Array::allocate(
            Layout {
                shape: shape.to_vec(),
                strides,
                offset: 0,
            },
            dtype,
            true,
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
        // New arrays of every format are dense from their first byte: fill `numel` elements.
        out.storage
            .fill_prefix(&value.to_bytes(dtype), out.numel())?;
        Ok(out)
    }

    /// `empty_strided(shape, strides)`: exactly these strides (non-negative), fresh memory.
    pub fn empty_strided(shape: &[usize], strides: &[isize], dtype: DType) -> Result<Array> {
        if shape.len() != strides.len() {
            return Err(Error::value("mismatch in length of strides and shape"));
        }
        check_non_negative_strides(strides)?;
        Array::allocate(
            Layout {
                shape: shape.to_vec(),
                strides: strides.to_vec(),
                offset: 0,
            },
            dtype,
            true,
        )
    }

    /// `empty_like(self, dtype, memory_format)` with torch's preserve rule: a non-overlapping
    /// and dense source gives its exact strides, any other gives dense strides in its order.
    pub fn empty_like(&self, dtype: Option<DType>, format: MemoryFormat) -> Result<Array> {
        let dtype = dtype.unwrap_or(self.dtype);
        let strides = match format {
            MemoryFormat::Preserve => preserve_strides(&self.layout),
            other => mf::format_strides(&self.layout.shape, other)?,
        };
        Array::allocate(
            Layout {
                shape: self.layout.shape.clone(),
                strides,
                offset: 0,
            },
            dtype,
            true,
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
        // empty_like's strides are dense and non-negative from offset 0: `numel` elements.
        out.storage
            .fill_prefix(&value.to_bytes(out.dtype), out.numel())?;
        Ok(out)
    }

    /// `arange(start, stop, step)`: `start + i·step` for `i < ceil((stop - start) / step)`.
    pub fn arange(start: Scalar, stop: Scalar, step: Scalar, dtype: DType) -> Result<Array> {
        let (a, b, s) = (start.as_f64(), stop.as_f64(), step.as_f64());
        if s == 0.0 {
            return Err(Error::value("step must be nonzero"));
        }
        if !(a.is_finite() && b.is_finite()) {
            return Err(Error::value(format!("unsupported range: {a} -> {b}")));
        }
        if (s > 0.0 && b < a) || (s < 0.0 && b > a) {
            return Err(Error::value(
                "upper bound and lower bound inconsistent with step sign",
            ));
        }
        let all_int = [start, stop, step]
            .iter()
            .all(|x| matches!(x, Scalar::Int(_) | Scalar::Bool(_)));
        let n = if all_int {
            let (a, b, s) = (
                start.as_i64() as i128,
                stop.as_i64() as i128,
                step.as_i64() as i128,
            );
            ((b - a + s - s.signum()) / s).max(0) as usize
        } else {
            ((b - a) / s).ceil().max(0.0) as usize
        };
        let out = Array::empty(&[n], dtype, MemoryFormat::Contiguous)?;
        let itemsize = dtype.itemsize();
        for i in 0..n {
            let value = if all_int && !dtype.is_floating() && !dtype.is_complex() {
                Scalar::Int(
                    start
                        .as_i64()
                        .wrapping_add((i as i64).wrapping_mul(step.as_i64())),
                )
            } else {
                Scalar::Float(a + i as f64 * s)
            };
            out.storage.write(i * itemsize, &value.to_bytes(dtype))?;
        }
        Ok(out)
    }

    // ---- accessors ----

    pub fn dtype(&self) -> DType {
        self.dtype
    }
    pub fn layout(&self) -> &Layout {
        &self.layout
    }
    pub fn shape(&self) -> &[usize] {
        &self.layout.shape
    }
    pub fn strides(&self) -> &[isize] {
        &self.layout.strides
    }
    pub fn storage_offset(&self) -> isize {
        self.layout.offset
    }
    pub fn storage(&self) -> &Arc<Storage> {
        &self.storage
    }
    pub fn ndim(&self) -> usize {
        self.layout.ndim()
    }
    pub fn numel(&self) -> usize {
        self.layout.numel()
    }
    pub fn itemsize(&self) -> usize {
        self.dtype.itemsize()
    }
    pub fn is_readonly(&self) -> bool {
        !self.storage.is_writable()
    }
    /// Address of element 0 (the storage offset applied).
    pub fn data_ptr(&self) -> usize {
        self.storage.base_ptr() as usize + (self.layout.offset as usize) * self.itemsize()
    }
    /// torch's tensor type name for messages: `torch.FloatTensor`.
    pub fn torch_type_name(&self) -> String {
        format!("torch.{}Tensor", self.dtype.torch_name())
    }
    /// Whether two arrays view the same storage.
    pub fn shares_storage(&self, other: &Array) -> bool {
        Arc::ptr_eq(&self.storage, &other.storage)
    }

    // ---- views ----

    /// The same storage under another layout (checked against the storage bounds).
    pub fn with_layout(&self, layout: Layout) -> Result<Array> {
        Array::from_parts(self.storage.clone(), layout, self.dtype)
    }
    pub fn permute(&self, dims: &[i64]) -> Result<Array> {
        self.with_layout(self.layout.permute(dims)?)
    }
    pub fn transpose(&self, d0: i64, d1: i64) -> Result<Array> {
        self.with_layout(self.layout.transpose(d0, d1)?)
    }
    pub fn expand(&self, sizes: &[i64]) -> Result<Array> {
        self.with_layout(self.layout.expand(sizes, &self.torch_type_name())?)
    }
    pub fn unsqueeze(&self, dim: i64) -> Result<Array> {
        self.with_layout(self.layout.unsqueeze(dim)?)
    }
    pub fn squeeze(&self, dims: Option<&[i64]>) -> Result<Array> {
        self.with_layout(self.layout.squeeze(dims)?)
    }
    pub fn view(&self, shape: &[i64]) -> Result<Array> {
        self.with_layout(self.layout.view(shape)?)
    }
    pub fn index(&self, items: &[IndexItem]) -> Result<Array> {
        self.with_layout(self.layout.index(items)?)
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
        if shape.len() != strides.len() {
            return Err(Error::value("mismatch in length of strides and shape"));
        }
        check_non_negative_strides(strides)?;
        let offset = offset.unwrap_or(self.layout.offset);
        if offset < 0 {
            return Err(Error::value(format!(
                "Tensor: invalid storage offset {offset}"
            )));
        }
        let layout = Layout {
            shape: shape.to_vec(),
            strides: strides.to_vec(),
            offset,
        };
        let itemsize = self.itemsize();
        let needed = required_nbytes(&layout, itemsize)?;
        if needed > self.storage.nbytes() {
            return Err(Error::value(format!(
                "setStorage: sizes {}, strides {}, storage offset {offset}, and itemsize {itemsize} requiring a storage size of {needed} are out of bounds for storage of size {}",
                fmt_shape(shape),
                fmt_shape(strides),
                self.storage.nbytes()
            )));
        }
        self.with_layout(layout)
    }

    // ---- element access (slow path: for tolist, item, printing) ----

    /// Every element in logical row-major order.
    pub fn to_scalars(&self) -> Result<Vec<Scalar>> {
        let itemsize = self.itemsize();
        let mut buf = [0u8; 16];
        let mut out = Vec::with_capacity(self.numel());
        for off in element_offsets(&self.layout) {
            self.storage
                .read(off as usize * itemsize, &mut buf[..itemsize])?;
            out.push(Scalar::from_bytes(self.dtype, &buf[..itemsize]));
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

/// torch's preserve-format strides: exact strides for non-overlapping-and-dense layouts, dense
/// strides in the same order otherwise.
pub fn preserve_strides(layout: &Layout) -> Vec<isize> {
    if layout.is_non_overlapping_and_dense() {
        layout.strides.clone()
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
