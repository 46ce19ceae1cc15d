//! Lines of arrays along one dim, for the ops that work on a whole line at a time (sort,
//! searchsorted, the integer matmul): a line is gathered into a contiguous slice, handed to
//! safe code, and the results scattered back. Raw memory: see the invariants in [`super`].
//!
//! Soundness rests on two types. [`Lines`] reads lines of any array (its layout was checked
//! against the storage when the array was made). [`LinesOut`] owns an output it allocated
//! itself, so that nothing else can read or write it while [`fill_lines`] runs; the driver
//! hands each line to exactly one task and writes it from that task's scratch, and the output's
//! layout is non-overlapping, so two lines never share an element.

use super::SendPtr;
use crate::error::{Error, Result};
use crate::exec::tasks::{run_tasks, task_count};
use crate::kernels::element::Element;
use crate::Array;
use smallvec::SmallVec;
use std::marker::PhantomData;

/// Where each line of an array along one dim starts, and how to walk it.
#[derive(Debug, Clone)]
struct LineGeometry {
    /// The other dims in row-major order: (size, byte stride).
    outer: SmallVec<[(usize, isize); 6]>,
    count: usize,
    len: usize,
    /// Byte stride along the line.
    stride: isize,
}

impl LineGeometry {
    /// Lines of `a` along `dim` (a 0-d array is one line of one element).
    fn new(a: &Array, dim: usize) -> Result<LineGeometry> {
        // A blocked array's shape is logical while its strides are its physical view's: the
        // two together would address memory outside the storage. Callers densify first.
        a.refuse_blocked("line-wise reads")?;
        let item = a.itemsize() as isize;
        if a.ndim() == 0 {
            return Ok(LineGeometry {
                outer: SmallVec::new(),
                count: 1,
                len: 1,
                stride: item,
            });
        }
        if dim >= a.ndim() {
            return Err(Error::index(format!(
                "dim {dim} is out of range for an array of {} dims",
                a.ndim()
            )));
        }
        let outer: SmallVec<[(usize, isize); 6]> = (0..a.ndim())
            .filter(|&d| d != dim)
            .map(|d| (a.shape()[d], a.strides()[d] * item))
            .collect();
        let len = a.shape()[dim];
        let count = if len == 0 {
            0
        } else {
            outer.iter().map(|o| o.0).product()
        };
        Ok(LineGeometry {
            outer,
            count,
            len,
            stride: a.strides()[dim] * item,
        })
    }

    /// Byte offset (from element 0) of line `m`'s first element, `m` in row-major order.
    #[inline]
    fn start(&self, mut m: usize) -> isize {
        let mut offset = 0;
        for &(n, s) in self.outer.iter().rev() {
            offset += (m % n) as isize * s;
            m /= n;
        }
        offset
    }
}

/// The lines of an input array along one dim, read as `T` (its dtype's element type).
#[derive(Debug)]
pub(crate) struct Lines<T> {
    geometry: LineGeometry,
    base: SendPtr,
    /// Keeps the storage alive (and the pointer valid) while the lines are read.
    _array: Array,
    _element: PhantomData<T>,
}

impl<T: Element> Lines<T> {
    /// The lines of `a` along `dim`; `a`'s dtype must be `T`'s.
    pub(crate) fn new(a: &Array, dim: usize) -> Result<Lines<T>> {
        check_dtype::<T>(a)?;
        Ok(Lines {
            geometry: LineGeometry::new(a, dim)?,
            base: SendPtr(a.data_ptr() as *mut u8),
            _array: a.clone(),
            _element: PhantomData,
        })
    }
    /// How many lines.
    pub(crate) fn count(&self) -> usize {
        self.geometry.count
    }
    /// Elements per line.
    pub(crate) fn len(&self) -> usize {
        self.geometry.len
    }
    /// Line `m` (row-major over the other dims) into `buf` (resized to the line's length).
    /// Out-of-range lines read nothing.
    pub(crate) fn read(&self, m: usize, buf: &mut Vec<T>) {
        buf.clear();
        if m >= self.geometry.count {
            return;
        }
        let g = &self.geometry;
        let start = self.base.get().wrapping_offset(g.start(m));
        buf.reserve(g.len);
        for k in 0..g.len {
            // SAFETY: line `m < count` and `k < len` address an element of the array (its
            // layout was checked against its storage when it was made, and `geometry` takes
            // its sizes and strides from that layout); the dtype is `T`'s (checked in `new`),
            // so the read is aligned; the array is kept alive by `self._array`.
            let x = unsafe { (start.wrapping_offset(k as isize * g.stride) as *const T).read() };
            buf.push(x);
        }
    }
}

/// A new output array, written line by line by [`fill_lines`]; [`LinesOut::finish`] gives it
/// out once every line is written.
#[derive(Debug)]
pub(crate) struct LinesOut<T> {
    geometry: LineGeometry,
    base: SendPtr,
    array: Array,
    _element: PhantomData<T>,
}

impl<T: Element> LinesOut<T> {
    /// A new (zeroed) array of `shape` and `strides` (which must not overlap), written along
    /// `dim`.
    pub(crate) fn new(shape: &[usize], strides: &[isize], dim: usize) -> Result<LinesOut<T>> {
        let array = Array::empty_strided(shape, strides, T::DTYPE)?;
        if !array.layout().is_non_overlapping_and_dense() {
            return Err(Error::value(
                "a line-wise output must be non-overlapping and dense",
            ));
        }
        Ok(LinesOut {
            geometry: LineGeometry::new(&array, dim)?,
            base: SendPtr(array.data_ptr() as *mut u8),
            array,
            _element: PhantomData,
        })
    }
    /// How many lines.
    pub(crate) fn count(&self) -> usize {
        self.geometry.count
    }
    /// Elements per line.
    pub(crate) fn len(&self) -> usize {
        self.geometry.len
    }
    /// The written array.
    pub(crate) fn finish(self) -> Array {
        self.array
    }

    /// Writes `values` (at most a line's length) to line `m`.
    ///
    /// # Safety
    /// No other thread reads or writes line `m` of this output meanwhile.
    unsafe fn write(&self, m: usize, values: &[T]) {
        let g = &self.geometry;
        if m >= g.count {
            return;
        }
        let start = self.base.get().wrapping_offset(g.start(m));
        for (k, &v) in values.iter().take(g.len).enumerate() {
            // SAFETY: as in `Lines::read` (the array was allocated here with this layout and is
            // writable); the caller makes the access exclusive.
            unsafe { (start.wrapping_offset(k as isize * g.stride) as *mut T).write(v) };
        }
    }
}

fn check_dtype<T: Element>(a: &Array) -> Result<()> {
    if a.dtype() != T::DTYPE {
        return Err(Error::DTypeMismatch {
            found: a.dtype(),
            expected: T::DTYPE,
        });
    }
    Ok(())
}

/// Fills two outputs with the same number of lines: `f(state, m, first, second)` computes
/// line `m` of each into scratch slices of the lines' lengths (holding `Default` values on
/// entry), which are then written out. Lines run in parallel on the pool, each once; each task
/// makes its own `state` (scratch buffers) with `init`; `work` is the elements of work in all
/// (for the task count).
pub(crate) fn fill_lines<A: Element, B: Element, S>(
    first: &mut LinesOut<A>,
    second: &mut LinesOut<B>,
    work: usize,
    grain: usize,
    init: impl Fn() -> S + Sync,
    f: impl Fn(&mut S, usize, &mut [A], &mut [B]) + Sync,
) -> Result<()> {
    let count = first.count();
    if count != second.count() {
        return Err(Error::value("line-wise outputs with different line counts"));
    }
    if count == 0 {
        return Ok(());
    }
    let (first, second) = (&*first, &*second);
    let tasks = task_count(count, work.max(1), grain);
    run_tasks(count, tasks, |begin, end| {
        let mut a = vec![A::default(); first.len()];
        let mut b = vec![B::default(); second.len()];
        let mut state = init();
        for m in begin..end {
            a.fill(A::default());
            b.fill(B::default());
            f(&mut state, m, &mut a, &mut b);
            // SAFETY: `run_tasks` hands each `m` in `0..count` to exactly one task, and both
            // outputs are owned by their `LinesOut` (borrowed here for the whole run), so no
            // one else touches line `m`.
            unsafe {
                first.write(m, &a);
                second.write(m, &b);
            }
        }
    })
}

/// [`fill_lines`] for one output.
pub(crate) fn fill_lines1<A: Element, S>(
    out: &mut LinesOut<A>,
    work: usize,
    grain: usize,
    init: impl Fn() -> S + Sync,
    f: impl Fn(&mut S, usize, &mut [A]) + Sync,
) -> Result<()> {
    let count = out.count();
    if count == 0 {
        return Ok(());
    }
    let out = &*out;
    let tasks = task_count(count, work.max(1), grain);
    run_tasks(count, tasks, |begin, end| {
        let mut a = vec![A::default(); out.len()];
        let mut state = init();
        for m in begin..end {
            a.fill(A::default());
            f(&mut state, m, &mut a);
            // SAFETY: as in `fill_lines`.
            unsafe { out.write(m, &a) };
        }
    })
}

/// Every element of `a` in row-major order, as `T` (`a`'s dtype's element type).
pub(crate) fn to_vec<T: Element>(a: &Array) -> Result<Vec<T>> {
    let lines = Lines::<T>::new(a, a.ndim().saturating_sub(1))?;
    let mut all = Vec::with_capacity(a.numel());
    let mut buf = Vec::new();
    for m in 0..lines.count() {
        lines.read(m, &mut buf);
        all.extend_from_slice(&buf);
    }
    Ok(all)
}

/// A new contiguous array of `shape` holding `values` in row-major order (as many as fit;
/// missing ones are zero).
pub(crate) fn from_slice<T: Element>(values: &[T], shape: &[usize]) -> Result<Array> {
    let strides = crate::dims::contiguous_strides(shape);
    let mut out = LinesOut::<T>::new(shape, &strides, shape.len().saturating_sub(1))?;
    let len = out.len();
    fill_lines1(
        &mut out,
        values.len(),
        usize::MAX,
        || (),
        |_, m, line| {
            let start = (m * len).min(values.len());
            let end = (start + len).min(values.len());
            line[..end - start].copy_from_slice(&values[start..end]);
        },
    )?;
    Ok(out.finish())
}
