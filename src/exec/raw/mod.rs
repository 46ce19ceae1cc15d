//! The raw-pointer half of execution, and with `storage.rs` and the binding's
//! `numpy_bridge.rs` the only `unsafe` of the crate: the walk that turns a plan into 2-D
//! [`Block`]s of operand pointers ([`walk`]), the typed inner loops over a block ([`loops`])
//! in their AVX2/AVX-512 copies ([`isa`]), the vector math kernels' lane loops ([`lanes`]),
//! streamed stores and F16C conversions of large contiguous rows ([`stream`]: copies, and the
//! typed loops' outputs), and the packing of tiles into scratch ([`pack`]). Crate-private:
//! only [`Block`] is public, read-only, for the closures of
//! [`for_each`](crate::exec::for_each).
//!
//! Every `unsafe` here rests on what `build()` established once for the plan (or, for the
//! one row of a small direct call that [`walk::run_row`] runs without a plan, on the same
//! facts that `plan::direct_operands` checked):
//!
//! - each operand's byte strides and the iteration shape only address elements inside that
//!   operand's storage (arrays are bounds-checked when made; broadcasting only adds 0 strides);
//! - pointers and strides are multiples of the element size, so typed accesses are aligned;
//! - outputs are writable, and the executor only runs chunks in parallel when no output
//!   element is reached twice (so writes from different threads never meet).
//!
//! A [`Block`] carries these guarantees: only the walk makes one (its constructor is an
//! `unsafe fn`), so safe code outside this module cannot forge one. The crate's safe functions
//! that take a block (the loops, `pack`, `unpack`) also rely on a crate-internal contract:
//! the element types (or widths) they are called with are the operands' dtypes, which the
//! kernels ensure by dispatching on the plan's dtypes.
//!
//! Inputs and outputs may alias (in-place ops): the loops use raw reads and writes, never
//! references, so aliasing is allowed.

mod add_lanes;
mod add_rows;
mod extremum_lanes;
pub(crate) mod gemm;
#[cfg(target_arch = "x86_64")]
mod gemm_fma;
#[cfg(target_arch = "x86_64")]
mod interleave;
mod isa;
pub(crate) mod job;
mod kept;
mod lane_shuffle;
mod lanes;
pub(crate) mod lines;
#[cfg(target_arch = "x86_64")]
mod lines256;
#[cfg(target_arch = "x86_64")]
mod lines512;
pub(crate) mod loop2d;
mod loops;
mod pack;
mod permute;
pub(crate) mod reduce;
pub(crate) mod scan;
mod stream;
mod tile_image;
mod transpose;
mod walk;

#[cfg(feature = "python")]
pub(crate) use job::panic_message;
pub(crate) use lanes::{map1_lanes, LaneMap};
pub(crate) use loops::{copy_bytes, map1, map2, map2_widened, map3, rows_ahead};
pub(crate) use stream::{copy_streamed, f32_to_f16_rows, f32_to_f64_streamed};
pub(crate) use transpose::rows_share_cache_sets;
pub(crate) use walk::{run_flat, run_row, Walk};

/// A pointer that may be sent to another thread: the plan makes the accesses disjoint.
#[derive(Debug, Clone, Copy)]
struct SendPtr(*mut u8);
// SAFETY: the pointer is only dereferenced inside the loops of this module, under the plan's
// guarantees listed at the top of this module.
unsafe impl Send for SendPtr {}
// SAFETY: as for `Send`.
unsafe impl Sync for SendPtr {}

impl SendPtr {
    /// The pointer (a method, so that closures capture the whole `SendPtr`, not its field).
    #[inline(always)]
    fn get(self) -> *mut u8 {
        self.0
    }
}

/// One 2-D step of a walk: a base pointer per operand (outputs first, in the plan's order)
/// and each operand's byte strides along dims 0 and 1; the block is `size0 × size1` elements,
/// element `(i, j)` of operand `k` at [`Block::at`]`(k, i, j)`.
///
/// Only the executor makes blocks, so a block always describes memory the plan allows: for
/// `i < size0()` and `j < size1()`, `at(k, i, j)` is an element of operand `k`'s dtype,
/// readable, and writable when `k` is an output. The accessors are safe; dereferencing the
/// pointers is the caller's `unsafe`.
#[derive(Debug)]
pub struct Block<'a> {
    ptrs: &'a [*mut u8],
    strides0: &'a [isize],
    strides1: &'a [isize],
    size0: usize,
    size1: usize,
    /// Whether the typed loops write operand 0's long contiguous rows with streamed stores
    /// (the walk's [`crate::exec::stores::elementwise_streams`]): a choice of store, which
    /// gives the same values.
    stream_out: bool,
}

impl<'a> Block<'a> {
    /// A block over these pointers and byte strides.
    ///
    /// # Safety
    /// `ptrs`, `strides0` and `strides1` have one entry per operand, and for every operand
    /// `k`, `i < size0` and `j < size1`, `ptrs[k] + i·strides0[k] + j·strides1[k]` addresses
    /// an element of operand `k` inside one live allocation, aligned for its element type,
    /// readable, and writable when `k` is an output, for as long as the block is used: whoever
    /// receives the block (a `for_each` closure, the loops, `pack`) reads and writes there.
    #[inline(always)]
    pub(crate) unsafe fn new(
        ptrs: &'a [*mut u8],
        strides0: &'a [isize],
        strides1: &'a [isize],
        size0: usize,
        size1: usize,
    ) -> Block<'a> {
        debug_assert!(ptrs.len() == strides0.len() && ptrs.len() == strides1.len());
        Block {
            ptrs,
            strides0,
            strides1,
            size0,
            size1,
            stream_out: false,
        }
    }

    /// The block with its output rows streamed when `yes` (see `stream_out`).
    #[inline(always)]
    pub(crate) fn streaming_output(mut self, yes: bool) -> Block<'a> {
        self.stream_out = yes;
        self
    }

    /// Number of operands (outputs first, then inputs).
    pub fn noperands(&self) -> usize {
        self.ptrs.len()
    }
    /// Operand `k`'s pointer at element `(0, 0)` of the block.
    pub fn ptr(&self, k: usize) -> *mut u8 {
        self.ptrs[k]
    }
    /// Operand `k`'s byte stride along dim 0 (the inner loop).
    pub fn stride0(&self, k: usize) -> isize {
        self.strides0[k]
    }
    /// Operand `k`'s byte stride along dim 1.
    pub fn stride1(&self, k: usize) -> isize {
        self.strides1[k]
    }
    /// Elements along dim 0.
    pub fn size0(&self) -> usize {
        self.size0
    }
    /// Elements along dim 1.
    pub fn size1(&self) -> usize {
        self.size1
    }
    /// Operand `k`'s pointer at element `(i, j)`: valid to dereference (as the operand's
    /// dtype) for `i < size0()` and `j < size1()`.
    #[inline(always)]
    pub fn at(&self, k: usize, i: usize, j: usize) -> *mut u8 {
        self.ptrs[k].wrapping_offset(i as isize * self.strides0[k] + j as isize * self.strides1[k])
    }

    /// Operand `k`'s pointer at row `j` of the block.
    #[inline(always)]
    fn row(&self, k: usize, j: usize) -> *mut u8 {
        self.ptrs[k].wrapping_offset(j as isize * self.strides1[k])
    }
}

/// Asks the CPU to start loading the line at `p` into L1 (a hint: it never faults, whatever
/// `p`).
#[inline(always)]
fn prefetch_line(p: *const u8) {
    #[cfg(target_arch = "x86_64")]
    // SAFETY: a prefetch is a hint that never faults or changes memory; SSE is part of
    // x86-64.
    unsafe {
        std::arch::x86_64::_mm_prefetch::<{ std::arch::x86_64::_MM_HINT_T0 }>(p as *const i8)
    };
    #[cfg(not(target_arch = "x86_64"))]
    let _ = p;
}

/// Reads element `i` of a row with byte stride `s`.
///
/// # Safety
/// `p + i·s` must address a valid, aligned `T` inside the operand (the plan guarantees it for
/// `i < size0`).
#[inline(always)]
unsafe fn get<T: Copy>(p: *const u8, i: usize, s: isize) -> T {
    // SAFETY: guaranteed by the caller.
    unsafe { (p.wrapping_offset(i as isize * s) as *const T).read() }
}

/// Writes element `i` of a row with byte stride `s`.
///
/// # Safety
/// As for [`get`], and the operand must be writable (an output).
#[inline(always)]
unsafe fn put<T: Copy>(p: *mut u8, i: usize, s: isize, v: T) {
    // SAFETY: guaranteed by the caller.
    unsafe { (p.wrapping_offset(i as isize * s) as *mut T).write(v) }
}

/// Whether the AVX2 copies of the loops ([`isa::Isa::avx2`]) and the explicit AVX2 kernels run:
/// the CPU has AVX2, FMA and F16C and `FERROITER_CPU_CAPABILITY` allows them
/// ([`crate::exec::cpu`]). A cached load, made once per block.
#[inline]
pub(crate) fn wide() -> bool {
    crate::exec::cpu::avx2()
}
