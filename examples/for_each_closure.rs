//! A loop of your own over ferroiter's plan: `out = a * b + c` with `b` a transposed view, so
//! the operands disagree about their fastest dim and the walk tiles them; `for_each` hands the
//! closure torch's 2-D blocks on ferroiter's threads. `explain` shows each decision.
//!
//! `cargo run --example for_each_closure`

use ferroiter::exec::{explain, for_each, Block, GRAIN_SIZE};
use ferroiter::{Array, Result, TensorIteratorConfig};

fn main() -> Result<()> {
    let n = 512;
    let values: Vec<f32> = (0..n * n).map(|i| (i % 97) as f32).collect();
    let a = Array::from_values(&values, &[n, n])?;
    let b = Array::from_values(&values, &[n, n])?.transpose(0, 1)?;
    let c = Array::from_values(&vec![0.5f32; n * n], &[n, n])?;

    let mut config = TensorIteratorConfig::new();
    config
        .add_output(None)
        .add_input(a.clone())
        .add_input(b.clone())
        .add_input(c);
    let plan = config.build()?;
    println!("{}", explain(&plan, 2, GRAIN_SIZE)?);

    for_each(&plan, GRAIN_SIZE, |blk: &Block| {
        for j in 0..blk.size1() {
            for i in 0..blk.size0() {
                let out = blk.at(0, i, j) as *mut f32;
                let (x, y, z) = (blk.at(1, i, j), blk.at(2, i, j), blk.at(3, i, j));
                // SAFETY: i < size0() and j < size1(); every operand is float32 and operand 0
                // is the output, as the block promises.
                unsafe { *out = *(x as *const f32) * *(y as *const f32) + *(z as *const f32) };
            }
        }
    })?;

    let out = plan.output(0)?.to_values::<f32>()?;
    let (a, b) = (a.to_values::<f32>()?, b.to_values::<f32>()?);
    for k in [0, 1, n + 3, n * n - 1] {
        assert_eq!(out[k], a[k] * b[k] + 0.5);
    }
    println!("out[{}] = {}", n + 3, out[n + 3]);
    Ok(())
}

#[cfg(test)]
#[test]
fn runs() {
    main().unwrap();
}
