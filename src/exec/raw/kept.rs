//! Buffers each thread keeps from one call to the next (the packed walk's tiles, staged
//! permutation images, the GEMM's packed panels): a fresh buffer per call is a fresh
//! allocation whose pages fault in again, and for large ones a mapping whose unmapping stops
//! every thread of the pool (measured: a third of mid-sized NHWC + NCHW adds at 2 threads,
//! more than the packing of 256² products).

use std::cell::Cell;
use std::ops::{Deref, DerefMut};
use std::thread::LocalKey;

/// A thread-local slot holding the kept buffer.
pub(super) type Slot<T> = LocalKey<Cell<Vec<T>>>;

/// The thread's buffer from `slot`, taken out for one call (a nested call meanwhile finds the
/// slot empty and makes its own) and given back when dropped, the larger of it and what the
/// slot holds then being kept. While the thread exits, a fresh one, not kept.
pub(super) struct Kept<T: 'static> {
    buf: Vec<T>,
    slot: &'static Slot<T>,
}

impl<T: Clone> Kept<T> {
    /// At least `len` elements: the kept buffer, or a new one of `len` copies of `fill` when
    /// it is shorter (a kept buffer's contents are what its last user left).
    pub(super) fn take(slot: &'static Slot<T>, len: usize, fill: T) -> Kept<T> {
        let mut buf = slot.try_with(Cell::take).unwrap_or_default();
        if buf.len() < len {
            buf = vec![fill; len];
        }
        Kept { buf, slot }
    }
}

impl<T> Deref for Kept<T> {
    type Target = Vec<T>;
    fn deref(&self) -> &Vec<T> {
        &self.buf
    }
}

impl<T> DerefMut for Kept<T> {
    fn deref_mut(&mut self) -> &mut Vec<T> {
        &mut self.buf
    }
}

impl<T> Drop for Kept<T> {
    fn drop(&mut self) {
        let buf = std::mem::take(&mut self.buf);
        let _ = self.slot.try_with(|s| {
            let kept = s.take();
            s.set(if kept.len() > buf.len() { kept } else { buf });
        });
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    thread_local! {
        static SLOT: Cell<Vec<u32>> = const { Cell::new(Vec::new()) };
    }

    /// Taken, grown when short, given back on drop; a nested take finds the slot empty, and
    /// the larger of two given back is kept.
    #[test]
    fn buffers_are_kept_taken_out_and_the_larger_returns() {
        let mut a = Kept::take(&SLOT, 4, 7);
        assert_eq!(*a, vec![7; 4]);
        a[0] = 1;
        {
            let b = Kept::take(&SLOT, 2, 9);
            assert_eq!(*b, vec![9; 2]);
        }
        drop(a);
        // the kept buffer is `a` (4 elements, longer than `b`'s 2), with what `a` left
        assert_eq!(*Kept::take(&SLOT, 3, 0), vec![1, 7, 7, 7]);
        assert_eq!(*Kept::take(&SLOT, 5, 0), vec![0; 5]);
    }
}
