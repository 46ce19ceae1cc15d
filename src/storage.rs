//! Raw memory: an aligned allocation ferroiter owns, or a buffer borrowed from another library
//! (numpy, a DLPack producer) that the storage keeps alive. One of the few modules with `unsafe`
//! (see the README): everything it exposes is bounds-checked, and the two ways to get memory
//! that is not initialised yet ([`Storage::alloc_uninit`], [`Storage::from_external`]) are
//! `unsafe fn`s.
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

/// Buffers up to this size are aligned to 16 bytes only (the allocator's own alignment, so a
/// zeroed one is a plain `calloc`): a tiny array gains nothing from a cache-line boundary,
/// and `posix_memalign` plus a memset is a visible part of a 1-element op.
const SMALL: usize = 64;

/// Size (and alignment) of a transparent huge page; buffers at least this large are mapped.
#[cfg(target_os = "linux")]
const HUGE_PAGE: usize = 2 << 20;

enum Owner {
    /// Allocated here with this layout; freed on drop.
    Aligned(AllocLayout),
    /// A large buffer mapped here (Linux): `len` bytes from `base`, unmapped on drop.
    #[cfg(target_os = "linux")]
    Mapped { base: *mut u8, len: usize },
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
    /// A new owned buffer of `nbytes` zero bytes, 64-byte aligned. Large buffers are mapped
    /// directly (already zero, no memset) on 2 MiB boundaries and marked for transparent huge
    /// pages, so that first writes fault 512 times less often.
    pub fn alloc(nbytes: usize) -> Result<Arc<Storage>> {
        Storage::alloc_in(nbytes, true)
    }

    /// [`Storage::alloc`] without zeroing: the bytes hold whatever the allocator left there
    /// (torch's `empty`), which saves a pass over a buffer that is about to be overwritten.
    ///
    /// # Safety
    /// Every byte must be written before anything reads it: reading an uninitialised byte —
    /// through [`Storage::read`], an array made over the storage, or a kernel — is undefined
    /// behaviour. The caller keeps the storage (and any array over it) from every reader until
    /// it has written all of it.
    pub unsafe fn alloc_uninit(nbytes: usize) -> Result<Arc<Storage>> {
        Storage::alloc_in(nbytes, false)
    }

    /// A storage for an output that a kernel writes in full before anything can read it: not
    /// zeroed ([`Storage::alloc_uninit`]). Crate-private, and used on three paths only
    /// (through `Array::empty_strided_unzeroed`, or `Array::contiguous_kernel_output` for the
    /// first): the outputs the build allocates for a plan from
    /// `TensorIteratorConfig::into_kernel_plan` or that `plan::direct_operands` makes
    /// (the same plan, made without a config); the output of a copy from a dense
    /// array with the same strides, or of a same-dtype copy of any strided array into a
    /// dense format (`Array::empty_like_for_copy`, then `copy_into` at once: not blocked, so
    /// no padding to zero; the output dense, so the copy writes all of it, and contiguous
    /// along its fastest dim like a kernel output); and the output of a
    /// same-dtype conversion to, from or between blocked formats (`Array::empty_like_for_copy`
    /// again, then `kernels::blocked::copy_into` at once) that writes every byte: the same
    /// blocking on both sides (one copy of the whole dense physical view), or channels that
    /// fill whole blocks (the strided copy of the full blocks reaches every element of the
    /// output, and there are no padding lanes). That is sound because
    ///
    /// - `into_kernel_plan` and `direct_operands` are crate-private and each of their
    ///   callers (the kernels) runs the plan (or the direct operands' one row) at once with a
    ///   loop that writes every element of every output;
    /// - the walk never reads an output before its kernel writes it: an output the build
    ///   allocates is dense in the walk's order, so it is contiguous along dim 0 and never
    ///   packed (the only place a walk copies an output's old contents), and so is the dense
    ///   output of a copy (the plan orders its dims by the output's strides first); a conversion's
    ///   output view (the physical part of a blocked output, or a dense output with its
    ///   channels split into blocks and lanes) has a dim of size > 1 with a stride of one
    ///   element, its smallest, which the plan (ordered by the output's strides first) makes
    ///   its dim 0: a same-dtype copy then takes the permuting copy, the direct walk (which
    ///   writes the output and never reads it) or the untiled walk with a plain byte copy,
    ///   and never packs the output;
    /// - the outputs reach the caller only after the loop has run (on an error they are
    ///   dropped unread).
    pub(crate) fn alloc_kernel_output(nbytes: usize) -> Result<Arc<Storage>> {
        // SAFETY: every byte is written before it is read, for the reasons above.
        unsafe { Storage::alloc_uninit(nbytes) }
    }

    /// The allocation behind [`Storage::alloc`] (`zeroed`) and [`Storage::alloc_uninit`].
    fn alloc_in(nbytes: usize, zeroed: bool) -> Result<Arc<Storage>> {
        #[cfg(target_os = "linux")]
        if nbytes >= HUGE_PAGE {
            return Storage::map(nbytes, zeroed);
        }
        let align = if nbytes <= SMALL { 16 } else { ALIGNMENT };
        let layout = AllocLayout::from_size_align(nbytes.max(1), align)
            .map_err(|_| Error::OutOfMemory { bytes: nbytes })?;
        // SAFETY: `layout` has a non-zero size.
        let raw = unsafe {
            if zeroed {
                alloc_zeroed(layout)
            } else {
                alloc(layout)
            }
        };
        let ptr = NonNull::new(raw).ok_or(Error::OutOfMemory { bytes: nbytes })?;
        Ok(Arc::new(Storage {
            ptr,
            nbytes,
            writable: true,
            owner: Owner::Aligned(layout),
        }))
    }

    /// An anonymous mapping of at least `nbytes`, its start rounded up to a huge page: a
    /// recently freed one when one of a fitting size is cached (zeroed again if asked), else a
    /// fresh one (already zero).
    #[cfg(target_os = "linux")]
    fn map(nbytes: usize, zeroed: bool) -> Result<Arc<Storage>> {
        let len = nbytes + HUGE_PAGE;
        if let Some((base, len)) = map_cache::take(len) {
            let base = base as *mut u8;
            let start = base.wrapping_add(base.align_offset(HUGE_PAGE));
            if zeroed {
                // SAFETY: `start..start + nbytes` lies inside the cached mapping (its length is
                // at least `nbytes + HUGE_PAGE`), which nothing else references any more.
                unsafe { start.write_bytes(0, nbytes) };
            }
            let ptr = NonNull::new(start)
                .ok_or_else(|| Error::value("a cached mapping has a null pointer"))?;
            return Ok(Arc::new(Storage {
                ptr,
                nbytes,
                writable: true,
                owner: Owner::Mapped { base, len },
            }));
        }
        // SAFETY: an anonymous private mapping at an address of the kernel's choosing touches no
        // existing memory; the result is checked against MAP_FAILED.
        let base = unsafe {
            libc::mmap(
                std::ptr::null_mut(),
                len,
                libc::PROT_READ | libc::PROT_WRITE,
                libc::MAP_PRIVATE | libc::MAP_ANONYMOUS,
                -1,
                0,
            )
        };
        if base == libc::MAP_FAILED {
            return Err(Error::OutOfMemory { bytes: nbytes });
        }
        let base = base as *mut u8;
        let start = base.wrapping_add(base.align_offset(HUGE_PAGE));
        // The whole usable part is marked, so that a later, larger reuse gets huge pages too.
        let usable = len - (start as usize - base as usize);
        // SAFETY: `start..start + usable` is the mapping from `start` on. madvise is only a
        // hint; its failure is harmless. (Miri does not model this advice: left out there.)
        #[cfg(not(miri))]
        unsafe {
            libc::madvise(start as *mut libc::c_void, usable, libc::MADV_HUGEPAGE)
        };
        #[cfg(miri)]
        let _ = usable;
        let ptr =
            NonNull::new(start).ok_or_else(|| Error::value("mmap returned a null pointer"))?;
        Ok(Arc::new(Storage {
            ptr,
            nbytes,
            writable: true,
            owner: Owner::Mapped { base, len },
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

    /// The buffer's size in bytes.
    pub fn nbytes(&self) -> usize {
        self.nbytes
    }
    /// Whether the storage accepts writes (memory borrowed read-only does not).
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

    /// Copies the bytes of `values` into the buffer at `byte_offset`.
    pub fn write_elements<T: crate::kernels::element::Element>(
        &self,
        byte_offset: usize,
        values: &[T],
    ) -> Result<()> {
        let nbytes = std::mem::size_of_val(values);
        // SAFETY: element types are plain numbers (a bool byte, integers, floats, complex pairs
        // of floats) without padding, so each of the slice's `nbytes` bytes is initialized and
        // readable; the slice outlives this borrow.
        let bytes = unsafe { std::slice::from_raw_parts(values.as_ptr() as *const u8, nbytes) };
        self.write(byte_offset, bytes)
    }

    /// Copies the run of `run` elements starting at element `from[i]` of `src` to the one at
    /// element `to[i]` of `self`, for each `i` in turn; elements of `itemsize` bytes (1, 2, 4,
    /// 8 or 16) counted from each storage's start. The element moves of advanced indexing:
    /// one bounds check per run instead of a checked byte copy per element. Stops with an
    /// error at the first run outside its storage (the moves before it are done); a later
    /// move to the same elements wins.
    pub fn copy_runs(
        &self,
        to: impl Iterator<Item = isize>,
        src: &Storage,
        from: impl Iterator<Item = isize>,
        itemsize: usize,
        run: usize,
    ) -> Result<()> {
        self.check_writable()?;
        match (itemsize, run) {
            (1, 1) => self.copy_sized::<1>(to, src, from),
            (2, 1) => self.copy_sized::<2>(to, src, from),
            (4, 1) => self.copy_sized::<4>(to, src, from),
            (8, 1) => self.copy_sized::<8>(to, src, from),
            (16, 1) => self.copy_sized::<16>(to, src, from),
            (1 | 2 | 4 | 8 | 16, _) => self.copy_spans(to, src, from, itemsize, run),
            (other, _) => Err(Error::value(format!(
                "copy_runs: elements of {other} bytes"
            ))),
        }
    }

    /// Where a run of `len` units (elements or runs) starting at unit `offset` lies in a
    /// storage of `count` units: its first unit, when it lies inside.
    fn unit_inside(offset: isize, len: usize, count: usize) -> Result<usize> {
        usize::try_from(offset)
            .ok()
            .filter(|&i| i.checked_add(len).is_some_and(|end| end <= count))
            .ok_or_else(|| {
                Error::index(format!(
                    "elements {offset}..{offset}+{len} are outside a storage of {count} elements"
                ))
            })
    }

    fn copy_sized<const S: usize>(
        &self,
        to: impl Iterator<Item = isize>,
        src: &Storage,
        from: impl Iterator<Item = isize>,
    ) -> Result<()> {
        let (dst_count, src_count) = (self.nbytes / S, src.nbytes / S);
        for (t, f) in to.zip(from) {
            let ti = Self::unit_inside(t, 1, dst_count)?;
            let fi = Self::unit_inside(f, 1, src_count)?;
            // SAFETY: element `fi` ends at byte (fi+1)·S ≤ src.nbytes and `ti` at
            // (ti+1)·S ≤ self.nbytes (checked just above); `self` is writable (checked in
            // `copy_runs`); unaligned accesses make no claim on the buffers' alignment, and
            // the element is read into a register before it is written, so `src` and `self`
            // may be the same storage.
            unsafe {
                let x = (src.ptr.as_ptr().add(fi * S) as *const [u8; S]).read_unaligned();
                (self.ptr.as_ptr().add(ti * S) as *mut [u8; S]).write_unaligned(x);
            }
        }
        Ok(())
    }

    fn copy_spans(
        &self,
        to: impl Iterator<Item = isize>,
        src: &Storage,
        from: impl Iterator<Item = isize>,
        itemsize: usize,
        run: usize,
    ) -> Result<()> {
        let (dst_count, src_count) = (self.nbytes / itemsize, src.nbytes / itemsize);
        let bytes = run * itemsize; // ≤ nbytes once a run is found inside a storage
        for (t, f) in to.zip(from) {
            let ti = Self::unit_inside(t, run, dst_count)?;
            let fi = Self::unit_inside(f, run, src_count)?;
            // SAFETY: the runs end at (ti+run)·itemsize ≤ self.nbytes and
            // (fi+run)·itemsize ≤ src.nbytes (checked just above); `self` is writable
            // (checked in `copy_runs`); `copy` allows the two runs to overlap (one storage).
            unsafe {
                std::ptr::copy(
                    src.ptr.as_ptr().add(fi * itemsize),
                    self.ptr.as_ptr().add(ti * itemsize),
                    bytes,
                )
            };
        }
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

    /// Refuses with [`Error::ReadOnly`] unless the storage accepts writes.
    pub fn check_writable(&self) -> Result<()> {
        if self.writable {
            Ok(())
        } else {
            Err(Error::ReadOnly)
        }
    }
}

/// The cache of freed large buffers, as `show_config` reports it and `empty_cache` clears it.
pub mod buffer_cache {
    /// Whether freed large buffers are kept for reuse (off with `FERROITER_CACHE=0`).
    pub fn enabled() -> bool {
        #[cfg(target_os = "linux")]
        {
            super::map_cache::enabled()
        }
        #[cfg(not(target_os = "linux"))]
        {
            false
        }
    }

    /// Bytes the cache holds now (mapped, not in use by any array).
    pub fn held_bytes() -> usize {
        #[cfg(target_os = "linux")]
        {
            super::map_cache::held_bytes()
        }
        #[cfg(not(target_os = "linux"))]
        {
            0
        }
    }

    /// Returns every kept buffer to the system; the bytes released.
    pub fn empty() -> usize {
        #[cfg(target_os = "linux")]
        {
            let mut released = 0;
            for (base, len) in super::map_cache::drain() {
                // SAFETY: each drained entry is a whole mapping that `Storage::map` made and a
                // dropped `Storage` handed to the cache; no array references it, and draining
                // removed it from the cache, so it is unmapped once, here.
                unsafe { libc::munmap(base as *mut libc::c_void, len) };
                released += len;
            }
            released
        }
        #[cfg(not(target_os = "linux"))]
        {
            0
        }
    }
}

impl Drop for Storage {
    fn drop(&mut self) {
        match self.owner {
            // SAFETY: `ptr` came from `alloc`/`alloc_zeroed` with exactly this layout, and is
            // freed once, here.
            Owner::Aligned(layout) => unsafe { dealloc(self.ptr.as_ptr(), layout) },
            #[cfg(target_os = "linux")]
            Owner::Mapped { base, len } => {
                if !map_cache::keep(base as usize, len) {
                    // SAFETY: `base, len` is exactly the mapping `map` made (or took from the
                    // cache), unmapped once, here; the cache did not keep it.
                    unsafe { libc::munmap(base as *mut libc::c_void, len) };
                }
            }
            Owner::External(_) => {}
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

/// Freed large mappings kept for reuse. Every page of a fresh mapping faults on its first
/// write, and a huge-page fault may stall in the kernel's memory compaction (two threads
/// faulting at once measured 3-9x slower than writing into a reused buffer); a reused mapping
/// is already backed. Bounded: at most `COUNT` mappings and `BYTES` bytes are kept, and only
/// reused for a request at least half their size.
#[cfg(target_os = "linux")]
mod map_cache {
    use std::sync::{Mutex, OnceLock};

    const COUNT: usize = 8;
    const BYTES: usize = 256 << 20;

    /// (base address, length) of each kept mapping.
    static KEPT: Mutex<Vec<(usize, usize)>> = Mutex::new(Vec::new());

    /// A kept mapping of at least `len` bytes (the smallest that fits, if not over twice it).
    pub fn take(len: usize) -> Option<(usize, usize)> {
        let mut kept = KEPT.lock().unwrap_or_else(|p| p.into_inner());
        let best = (0..kept.len())
            .filter(|&i| kept[i].1 >= len && kept[i].1 / 2 <= len)
            .min_by_key(|&i| kept[i].1)?;
        Some(kept.swap_remove(best))
    }

    /// Whether freed mappings are kept at all: `FERROITER_CACHE=0` (or `off`, `false`) in the
    /// environment turns the cache off, read once, on the first free of a large buffer.
    pub fn enabled() -> bool {
        static ENABLED: OnceLock<bool> = OnceLock::new();
        *ENABLED.get_or_init(|| match std::env::var("FERROITER_CACHE") {
            Ok(value) => !matches!(
                value.trim().to_ascii_lowercase().as_str(),
                "0" | "off" | "false" | "no"
            ),
            Err(_) => true,
        })
    }

    /// Bytes held by the kept mappings.
    pub fn held_bytes() -> usize {
        let kept = KEPT.lock().unwrap_or_else(|p| p.into_inner());
        kept.iter().map(|&(_, l)| l).sum()
    }

    /// Removes every kept mapping from the cache; the caller unmaps them.
    pub fn drain() -> Vec<(usize, usize)> {
        let mut kept = KEPT.lock().unwrap_or_else(|p| p.into_inner());
        std::mem::take(&mut *kept)
    }

    /// Keeps a freed mapping if the cache is on and its bounds allow; `false`: the caller
    /// unmaps it.
    pub fn keep(base: usize, len: usize) -> bool {
        if !enabled() {
            return false;
        }
        let mut kept = KEPT.lock().unwrap_or_else(|p| p.into_inner());
        let total: usize = kept.iter().map(|&(_, l)| l).sum();
        if kept.len() >= COUNT || total + len > BYTES {
            return false;
        }
        kept.push((base, len));
        true
    }
}

#[cfg(test)]
mod tests {
    use super::Storage;

    /// Element moves land where asked, the last of two moves to one element wins, and an
    /// offset past either end (or negative) is refused at that element.
    #[test]
    fn copy_runs_moves_and_checks_each_offset() {
        let src = Storage::alloc(32).unwrap();
        src.write_elements(0, &[10i64, 11, 12, 13]).unwrap();
        let dst = Storage::alloc(24).unwrap();
        dst.copy_runs([2, 0, 0].into_iter(), &src, [3, 1, 2].into_iter(), 8, 1)
            .unwrap();
        let mut bytes = [0u8; 24];
        dst.read(0, &mut bytes).unwrap();
        let got: Vec<i64> = bytes
            .chunks_exact(8)
            .map(|c| i64::from_ne_bytes(c.try_into().unwrap()))
            .collect();
        assert_eq!(got, [12, 0, 13]);
        for (to, from) in [(3, 0), (0, 4), (-1, 0), (0, -1)] {
            let err = dst
                .copy_runs([to].into_iter(), &src, [from].into_iter(), 8, 1)
                .unwrap_err();
            assert!(err.to_string().contains("outside a storage"), "{err}");
        }
        assert!(dst
            .copy_runs([0].into_iter(), &src, [0].into_iter(), 3, 1)
            .is_err());
        // runs: two elements from 2 into 1, then a run that would end past the source
        dst.copy_runs([1].into_iter(), &src, [2].into_iter(), 8, 2)
            .unwrap();
        dst.read(0, &mut bytes).unwrap();
        assert_eq!(&bytes[8..16], &12i64.to_ne_bytes());
        assert_eq!(&bytes[16..24], &13i64.to_ne_bytes());
        assert!(dst
            .copy_runs([0].into_iter(), &src, [3].into_iter(), 8, 2)
            .is_err());
    }

    /// A large buffer freed and asked for again comes back zeroed when zeroed is asked, even
    /// when the mapping is reused.
    /// After `empty` hands the kept buffers back, large allocations still work and are zeroed
    /// (other tests allocate concurrently, so the byte counts are not compared here).
    #[test]
    fn large_buffers_work_after_the_cache_is_emptied() {
        drop(Storage::alloc(3 << 20).unwrap());
        super::buffer_cache::empty();
        let again = Storage::alloc(3 << 20).unwrap();
        let mut probe = [1u8; 64];
        again.read((3 << 20) - 64, &mut probe).unwrap();
        assert_eq!(probe, [0u8; 64]);
    }

    #[test]
    fn reused_large_buffers_are_zeroed_when_asked() {
        let n = 3 << 20;
        for _ in 0..3 {
            let s = Storage::alloc(n).unwrap();
            let mut probe = [1u8; 64];
            for at in [0, n / 2, n - 64] {
                s.read(at, &mut probe).unwrap();
                assert_eq!(probe, [0u8; 64]);
            }
            s.fill_prefix(&[7], n).unwrap();
            // SAFETY: written in full before the next round reads anything.
            let t = unsafe { Storage::alloc_uninit(n) }.unwrap();
            t.fill_prefix(&[9], n).unwrap();
        }
    }
}
