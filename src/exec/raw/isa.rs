//! The compiled copies of a loop: the crate is built for baseline x86-64 (the wheel stays
//! portable), and a hot loop runs in a copy compiled for AVX2 (with FMA and F16C) or AVX-512
//! when [`crate::exec::cpu`] finds them. One mechanism for every loop: [`in_copy!`] makes the
//! loop an `#[inline(always)]` closure, and [`Isa::run`] calls it from a function compiled
//! with the copy's features, into which it is inlined. (Without the attribute LLVM may leave a
//! large body, such as a vector math kernel's, as a function of its own compiled for the
//! baseline: float32 `exp` took 31 ns an element so, 0.33 inlined; hence the macro, which
//! cannot forget it.)
//!
//! Without a copy, a kernel's `mul_add`s compile to calls to a software FMA and its lanes to
//! SSE2's four: strided float32 `tanh` took 46 ns an element in the baseline build, against 1
//! contiguous in the AVX-512 copy (2-core Xeon). The closures are `move` closures holding
//! their pointers, strides and a clone of the kernel: captured by reference, they are reloaded
//! after every store through an output pointer (a strided float32 add took 1.04-1.10 ns an
//! element so, 0.58 as a `move` closure).

use crate::exec::cpu::{capability, Capability};

/// A copy the CPU runs: made only from what [`capability`] detected (capped by
/// `FERROITER_CPU_CAPABILITY`), so running a body in it is sound.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Isa(Capability);

impl Isa {
    /// The widest copy: AVX-512 where the CPU has it (the vector math's 16 float32 lanes).
    #[inline]
    pub(crate) fn widest() -> Isa {
        Isa(capability())
    }

    /// AVX2 at most: the typed elementwise loops, reductions and scans, whose 256-bit copies
    /// are what their speed was measured with (results are the same in any copy: each runs
    /// the same per-lane operations).
    #[inline]
    pub(crate) fn avx2() -> Isa {
        Isa(capability().min(Capability::Avx2))
    }

    /// The level this copy was compiled for.
    #[inline]
    pub(crate) fn capability(self) -> Capability {
        self.0
    }

    /// `body()`, compiled in this copy: `body` must be an `#[inline(always)]` closure (see the
    /// module doc), which [`in_copy!`] writes.
    #[inline(always)]
    pub(crate) fn run<R>(self, body: impl FnOnce() -> R) -> R {
        match self.0 {
            // SAFETY: `Isa`s are only made from the detected capability, which says the CPU
            // has these features.
            #[cfg(target_arch = "x86_64")]
            Capability::Avx512 => unsafe { in_avx512(body) },
            // SAFETY: as above.
            #[cfg(target_arch = "x86_64")]
            Capability::Avx2 => unsafe { in_avx2(body) },
            _ => body(),
        }
    }
}

/// `in_copy!(isa, body)`: the expression `body` evaluated in `isa`'s copy ([`Isa::run`]), as an
/// `#[inline(always)]` `move` closure (it captures pointers, strides and kernels by value).
macro_rules! in_copy {
    ($isa:expr, $body:expr) => {
        $isa.run(
            #[inline(always)]
            move || $body,
        )
    };
}
pub(crate) use in_copy;

/// `body()` compiled for AVX2, FMA and F16C.
///
/// # Safety
/// The CPU must have AVX2, FMA and F16C.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2,fma,f16c")]
unsafe fn in_avx2<R>(body: impl FnOnce() -> R) -> R {
    body()
}

/// `body()` compiled for AVX-512 (F), AVX2, FMA and F16C.
///
/// # Safety
/// The CPU must have AVX-512F, AVX2, FMA and F16C.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx512f,avx2,fma,f16c")]
unsafe fn in_avx512<R>(body: impl FnOnce() -> R) -> R {
    body()
}
