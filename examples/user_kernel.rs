//! A kernel with declared dtypes through `kernels::user::map`: the plan an elementwise op would
//! build (broadcasting, a number as an operand, outputs in the inputs' layout), a Rust closure
//! over its blocks, and the same kernel as a C-convention loop (torch's `loop2d`, what numba or
//! a C library would hand over) through `map_loop`.
//!
//! `cargo run --example user_kernel`

use ferroiter::exec::{Block, ForeignLoop, Loop2dFn};
use ferroiter::kernels::user::{map, map_loop, Signature};
use ferroiter::kernels::Arg;
use ferroiter::{Array, Result, Scalar};

/// `out = min(max(x, lo), hi) * scale` with `lo`, `hi`, `scale` the block's operands 2-4.
fn clip_scale(blk: &Block) {
    for j in 0..blk.size1() {
        for i in 0..blk.size0() {
            let read = |k: usize| blk.at(k, i, j) as *const f64;
            // SAFETY: i < size0(), j < size1(), operands of the signature's float64 (the
            // block's contract); operand 0 is the output.
            unsafe {
                let v = (*read(1)).max(*read(2)).min(*read(3)) * *read(4);
                *(blk.at(0, i, j) as *mut f64) = v;
            }
        }
    }
}

/// The same kernel in torch's 2-D convention, callable from C.
unsafe extern "C" fn clip_scale_loop(data: *const *mut u8, strides: *const i64, n0: i64, n1: i64) {
    // SAFETY: five operands, as the signature declares; the executor's block contract.
    unsafe {
        let (d, s) = (
            std::slice::from_raw_parts(data, 5),
            std::slice::from_raw_parts(strides, 10),
        );
        for j in 0..n1 as isize {
            for i in 0..n0 as isize {
                let at = |k: usize| d[k].offset(i * s[k] as isize + j * s[5 + k] as isize);
                let v = |k: usize| *(at(k) as *const f64);
                *(at(0) as *mut f64) = v(1).max(v(2)).min(v(3)) * v(4);
            }
        }
    }
}

fn main() -> Result<()> {
    let signature = Signature::parse("float64(float64, float64, float64, float64)")?;
    let x = Array::from_values(&[-2.0f64, -0.25, 0.0, 0.75, 3.0, 9.0], &[2, 3])?;
    // a column of lower bounds broadcast along the rows; numbers for the rest
    let lo = Array::from_values(&[-1.0f64, 0.0], &[2, 1])?;
    let inputs: Vec<Arg> = vec![
        x.into(),
        lo.into(),
        Scalar::Float(2.0).into(),
        Scalar::Int(10).into(),
    ];
    let out = map(&signature, &inputs, &[None], clip_scale)?;
    let expected = [-10.0, -2.5, 0.0, 7.5, 20.0, 20.0];
    assert_eq!(out[0].shape(), &[2, 3]);
    assert_eq!(out[0].to_values::<f64>()?, expected);

    // SAFETY: `clip_scale_loop` has the loop signature and reads and writes only the elements
    // of its block, as float64, as the signature declares.
    let kernel = unsafe { ForeignLoop::from_address(clip_scale_loop as Loop2dFn as usize) }
        .expect("non-null");
    let again = map_loop(kernel, &signature, &inputs, &[None])?;
    assert_eq!(again[0].to_values::<f64>()?, expected);

    // a dtype the signature does not declare is refused before the kernel runs
    let ints = Array::from_values(&[1i64, 2], &[2])?;
    let refused = map(
        &signature,
        &[
            ints.into(),
            inputs[1].clone(),
            inputs[2].clone(),
            inputs[3].clone(),
        ],
        &[None],
        clip_scale,
    );
    println!("{}", refused.unwrap_err());
    println!("{:?}", out[0].to_values::<f64>()?);
    Ok(())
}

#[cfg(test)]
#[test]
fn runs() {
    main().unwrap();
}
