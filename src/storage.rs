//! Raw memory: an aligned allocation ferroiter owns, or a buffer borrowed from another library
//! (numpy, a DLPack producer) that the storage keeps alive. This is one of the two modules with
//! `unsafe`; everything it exposes is bounds-checked.
//!
//! Storages are shared (`Arc`) between views, and writes go through `&self`, as in numpy and
//! torch: two views of one storage see each other's writes.

use crate::error::{Error, Result};
use std::alloc::{alloc, alloc_zeroed, dealloc, Layout as AllocLayout};
use std::any::Any;
use std::ptr::NonNull;
use std::sync::Arc;

/// Alignment of owned buffers: a cache line, enough for any SIMD load.
pub const ALIGNMENT: usize = 64;

enum Owner {
    /// Allocated here with this layout; freed on drop.
    Aligned(AllocLayout),
    /// Someone else's memory; dropping the box releases our hold on it.
    External(#[allow(dead_code)] Box<dyn Any + Send + Sync>),
}

/// A contiguous byte buffer that arrays view.
pub struct Storage {
    ptr: NonNull<u8>,
    nbytes: usize,
    writable: bool,
    owner: Owner,
}

// SAFETY: the storage is a plain byte buffer with no thread-affine state; the external owner is
// itself `Send + Sync`. Concurrent writes through views are the caller's business, as in numpy.
unsafe impl Send for Storage {}
// SAFETY: see `Send`; shared access only reads the pointer and length.
unsafe impl Sync for Storage {}

impl Storage {
    /// A new owned buffer of `nbytes` bytes, 64-byte aligned, zero-filled if asked.
    pub fn alloc(nbytes: usize, zeroed: bool) -> Result<Arc<Storage>> {
        let layout = AllocLayout::from_size_align(nbytes.max(1), ALIGNMENT)
            .map_err(|_| Error::value(format!("cannot allocate {nbytes} bytes")))?;
        // SAFETY: `layout` has a non-zero size.
        let raw = unsafe {
            if zeroed {
                alloc_zeroed(layout)
            } else {
                alloc(layout)
            }
        };
        let ptr = NonNull::new(raw).ok_or_else(|| {
            Error::value(format!("out of memory: cannot allocate {nbytes} bytes"))
        })?;
        Ok(Arc::new(Storage {
            ptr,
            nbytes,
            writable: true,
            owner: Owner::Aligned(layout),
        }))
    }

    /// Wraps memory owned by someone else.
    ///
    /// # Safety
    /// `ptr..ptr + nbytes` must be valid for reads (and for writes if `writable`) for as long as
    /// `keep_alive` lives, and must not be freed or moved before it is dropped.
    pub unsafe fn from_external(
        ptr: NonNull<u8>,
        nbytes: usize,
        writable: bool,
        keep_alive: Box<dyn Any + Send + Sync>,
    ) -> Arc<Storage> {
        Arc::new(Storage {
            ptr,
            nbytes,
            writable,
            owner: Owner::External(keep_alive),
        })
    }

    pub fn nbytes(&self) -> usize {
        self.nbytes
    }
    pub fn is_writable(&self) -> bool {
        self.writable
    }
    /// The first byte, for `data_ptr()` and the executor (which checks its bounds at plan build).
    pub fn base_ptr(&self) -> *mut u8 {
        self.ptr.as_ptr()
    }

    fn check_range(&self, byte_offset: usize, len: usize) -> Result<()> {
        match byte_offset.checked_add(len) {
            Some(end) if end <= self.nbytes => Ok(()),
            _ => Err(Error::index(format!(
                "bytes {byte_offset}..{} are outside a storage of {} bytes",
                byte_offset.saturating_add(len),
                self.nbytes
            ))),
        }
    }

    /// Copies `out.len()` bytes starting at `byte_offset` into `out`.
    pub fn read(&self, byte_offset: usize, out: &mut [u8]) -> Result<()> {
        self.check_range(byte_offset, out.len())?;
        // SAFETY: the range was checked to lie inside the buffer, which is valid for reads;
        // `out` is a distinct Rust allocation, so the two do not overlap.
        unsafe {
            std::ptr::copy_nonoverlapping(
                self.ptr.as_ptr().add(byte_offset),
                out.as_mut_ptr(),
                out.len(),
            )
        };
        Ok(())
    }

    /// Copies `bytes` into the buffer at `byte_offset`; a read-only storage refuses.
    pub fn write(&self, byte_offset: usize, bytes: &[u8]) -> Result<()> {
        self.check_writable()?;
        self.check_range(byte_offset, bytes.len())?;
        // SAFETY: the range is inside the buffer, which is valid for writes because the storage
        // is writable; `bytes` is a Rust slice that cannot alias our buffer mutably.
        unsafe {
            std::ptr::copy_nonoverlapping(
                bytes.as_ptr(),
                self.ptr.as_ptr().add(byte_offset),
                bytes.len(),
            )
        };
        Ok(())
    }

    /// Fills `count` consecutive elements starting at byte 0 with `element` repeated.
    pub fn fill_prefix(&self, element: &[u8], count: usize) -> Result<()> {
        self.check_writable()?;
        self.check_range(0, element.len().saturating_mul(count))?;
        for i in 0..count {
            // SAFETY: element i ends at (i+1)·len ≤ count·len, checked above.
            unsafe {
                std::ptr::copy_nonoverlapping(
                    element.as_ptr(),
                    self.ptr.as_ptr().add(i * element.len()),
                    element.len(),
                )
            };
        }
        Ok(())
    }

    pub fn check_writable(&self) -> Result<()> {
        if self.writable {
            Ok(())
        } else {
            Err(Error::value(
                "cannot write into a read-only array (it views read-only memory)",
            ))
        }
    }
}

impl Drop for Storage {
    fn drop(&mut self) {
        if let Owner::Aligned(layout) = self.owner {
            // SAFETY: `ptr` came from `alloc`/`alloc_zeroed` with exactly this layout, and is
            // freed once, here.
            unsafe { dealloc(self.ptr.as_ptr(), layout) };
        }
    }
}

impl std::fmt::Debug for Storage {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Storage")
            .field("ptr", &self.ptr)
            .field("nbytes", &self.nbytes)
            .field("writable", &self.writable)
            .finish()
    }
}
