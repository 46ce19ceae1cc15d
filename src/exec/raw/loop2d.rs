//! A user's compiled loop in torch's 2-D convention (`loop(char** data, const int64_t*
//! strides, int64_t size0, int64_t size1)`), called on the executor's blocks: the one place
//! ferroiter calls code it did not compile.

use super::Block;

/// The most operands (outputs and inputs) a loop kernel takes: its pointers and strides are
/// passed from fixed arrays on the stack.
pub const MAX_OPERANDS: usize = 32;

/// torch's 2-D loop: `data[k]` is operand `k`'s element `(0, 0)` (outputs first), `strides[k]`
/// its byte stride along dim 0 (the inner loop) and `strides[n + k]` along dim 1, for `n`
/// operands; the block is `size0 × size1` elements.
pub type Loop2dFn =
    unsafe extern "C" fn(data: *const *mut u8, strides: *const i64, size0: i64, size1: i64);

/// A loop kernel the caller vouches for (see [`ForeignLoop::from_address`]).
#[derive(Debug, Clone, Copy)]
pub struct ForeignLoop(Loop2dFn);

impl ForeignLoop {
    /// The loop at a machine address (a numba `cfunc`, a ctypes or cffi function pointer);
    /// `None` for the null address.
    ///
    /// # Safety
    /// `address` is a function with [`Loop2dFn`]'s signature and C calling convention, which
    /// stays loaded while the returned value is used, may run on several threads at once, and
    /// for every `k`, `i < size0`, `j < size1` reads (and, for outputs, writes) only element
    /// `data[k] + i·strides[k] + j·strides[n + k]`, as the operand's dtype in the signature it
    /// was declared with.
    pub unsafe fn from_address(address: usize) -> Option<ForeignLoop> {
        if address == 0 {
            return None;
        }
        // the address as a pointer with the provenance its owner exposed (casting a function
        // pointer to an integer exposes it; Miri refused the bare integer as a dangling
        // pointer)
        let function = std::ptr::with_exposed_provenance::<()>(address);
        // SAFETY: a non-null address of a function of this signature (the caller's promise);
        // function pointers and data pointers have one size on every target the crate builds
        // for.
        Some(ForeignLoop(unsafe {
            std::mem::transmute::<*const (), Loop2dFn>(function)
        }))
    }

    /// The loop as a function pointer.
    pub fn as_fn(self) -> Loop2dFn {
        self.0
    }

    /// Runs the loop on one block of at most [`MAX_OPERANDS`] operands (the caller's plan has
    /// been checked for that; more are refused here with a panic, which the executor turns
    /// into an error).
    pub fn call(self, b: &Block) {
        let n = b.noperands();
        assert!(
            n <= MAX_OPERANDS,
            "a loop kernel takes at most {MAX_OPERANDS} operands"
        );
        let mut data = [std::ptr::null_mut::<u8>(); MAX_OPERANDS];
        let mut strides = [0i64; 2 * MAX_OPERANDS];
        for k in 0..n {
            data[k] = b.ptr(k);
            strides[k] = b.stride0(k) as i64;
            strides[n + k] = b.stride1(k) as i64;
        }
        // SAFETY: the block's pointers and strides address, for `i < size0` and `j < size1`,
        // elements of each operand's dtype inside its allocation, writable for outputs (the
        // `Block` contract, established when the plan was built); the kernel touches only
        // those (the promise made at `from_address`, with the dtypes the plan was built for).
        unsafe {
            (self.0)(
                data.as_ptr(),
                strides.as_ptr(),
                b.size0() as i64,
                b.size1() as i64,
            )
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::exec::for_each;
    use crate::{Array, DType, MemoryFormat, Scalar, TensorIteratorConfig};

    /// `out = a · 2 + b` over float32, in the 2-D convention.
    unsafe extern "C" fn twice_plus(data: *const *mut u8, strides: *const i64, n0: i64, n1: i64) {
        // SAFETY: three operands, as the test's plan has; the executor's block contract.
        unsafe {
            let d = std::slice::from_raw_parts(data, 3);
            let s = std::slice::from_raw_parts(strides, 6);
            for j in 0..n1 as isize {
                for i in 0..n0 as isize {
                    let at = |k: usize| d[k].offset(i * s[k] as isize + j * s[3 + k] as isize);
                    let (a, b) = (*(at(1) as *const f32), *(at(2) as *const f32));
                    *(at(0) as *mut f32) = a * 2.0 + b;
                }
            }
        }
    }

    #[test]
    fn a_foreign_loop_sees_torch_2d_blocks() {
        let (start, stop, step) = (Scalar::Int(0), Scalar::Int(12), Scalar::Int(1));
        let a = Array::arange(start, stop, step, DType::F32).unwrap();
        let a = a.view(&[3, 4]).unwrap().transpose(0, 1).unwrap();
        let b = Array::full(
            &[4, 3],
            Scalar::Float(0.5),
            DType::F32,
            MemoryFormat::Contiguous,
        )
        .unwrap();
        let mut config = TensorIteratorConfig::new();
        config.add_output(None).add_input(a.clone()).add_input(b);
        let plan = config.build().unwrap();
        // SAFETY: `twice_plus` has the loop signature and reads/writes only the block.
        let kernel = unsafe { ForeignLoop::from_address(twice_plus as Loop2dFn as usize) }.unwrap();
        for_each(&plan, 1, |b| kernel.call(b)).unwrap();
        let out = plan.output(0).unwrap().to_scalars().unwrap();
        let a = a.to_scalars().unwrap();
        for (o, x) in out.iter().zip(&a) {
            let (Scalar::Float(o), Scalar::Float(x)) = (o, x) else {
                panic!("float32 values")
            };
            assert_eq!(*o, x * 2.0 + 0.5);
        }
        // SAFETY: the null address is refused before any use.
        assert!(unsafe { ForeignLoop::from_address(0) }.is_none());
    }
}
