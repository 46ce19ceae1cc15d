//! Linear algebra with torch's rules: [`matmul`](matmul::matmul) (1-D promotion, batch
//! broadcasting, the fold of a batch into rows, and each path's error texts),
//! [`tensordot`](tensordot::tensordot) and [`vecdot`](vecdot::vecdot). Float and complex
//! products run on a GEMM (`exec::raw::gemm`: the `gemm` crate's, ferroiter's own or
//! `matrixmultiply`'s) over the operands in place;
//! float16/bfloat16 compute in float32 and round once; integers use a plain wrapping loop.
#![forbid(unsafe_code)]

pub mod matmul;
pub mod tensordot;
pub mod vecdot;
