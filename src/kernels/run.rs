//! Running a kernel on a plan: fill the inputs the build converted to the common dtype, run
//! the loop, cast outputs computed in a temporary back into the user's arrays — or on the one
//! row of a small direct call (`Target`).

use crate::error::Result;
use crate::exec::{for_each, for_each_copy, for_each_row, runs_as_row, Block, CopyStrategy};
use crate::plan::{DirectOperands, TensorIterator};
use crate::{Array, DType, MemoryFormat, Scalar};

pub use crate::settings::grain_size;

/// Sets the grain size kernels run with (at least 1; [`crate::settings::set_grain_size`]
/// refuses 0 instead of raising it).
pub fn set_grain_size(grain: usize) {
    let _ = crate::settings::set_grain_size(grain.max(1));
}

/// Runs `body` over the plan's blocks with the copy-in and cast-back torch does around it.
pub fn run(plan: &TensorIterator, body: impl Fn(&Block) + Sync) -> Result<()> {
    around(plan, || for_each(plan, grain_size(), body))
}

/// What a kernel runs on: a plan, or the operands of a direct plan that `for_each` would run
/// as one serial row ([`runs_as_row`]: a small contiguous call), run as that row without
/// making the plan — which cost a 1-element `a + b` more than the rest of its call.
pub(crate) enum Target<'a> {
    /// Boxed: a plan is a few hundred bytes, which every move of the target would copy.
    Plan(Box<TensorIterator>),
    Row(DirectOperands<'a>),
}

impl<'a> Target<'a> {
    /// The target of a built plan.
    pub(crate) fn plan(plan: TensorIterator) -> Target<'a> {
        Target::Plan(Box::new(plan))
    }

    /// The target of a direct plan's operands: their row, or the plan they make.
    pub(crate) fn direct(operands: DirectOperands<'a>) -> Target<'a> {
        if runs_as_row(&operands, grain_size()) {
            Target::Row(operands)
        } else {
            Target::plan(operands.into_plan())
        }
    }

    /// [`run`] on the plan, or `body` on the row.
    pub(crate) fn run(&self, body: impl Fn(&Block) + Sync) -> Result<()> {
        match self {
            Target::Plan(plan) => run(plan, body),
            Target::Row(row) => for_each_row(row, body),
        }
    }

    /// The dtype the kernel computes in.
    pub(crate) fn common_dtype(&self) -> Result<DType> {
        match self {
            Target::Plan(plan) => super::args::common_dtype(plan),
            Target::Row(row) => Ok(row.common_dtype()),
        }
    }

    /// The output's dtype.
    pub(crate) fn output_dtype(&self) -> Result<DType> {
        match self {
            Target::Plan(plan) => plan.dtype(0),
            Target::Row(row) => Ok(row.output().dtype()),
        }
    }

    /// The plan, when there is one.
    pub(crate) fn built(&self) -> Option<&TensorIterator> {
        match self {
            Target::Plan(plan) => Some(plan),
            Target::Row(_) => None,
        }
    }

    /// The output, once the kernel has run.
    pub(crate) fn into_output(self) -> Result<Array> {
        match self {
            Target::Plan(plan) => Ok(plan.output(0)?.clone()),
            Target::Row(row) => Ok(row.into_output()),
        }
    }
}

/// [`run`] for `copy_`'s same-dtype kernel, walked as the plan's [`CopyStrategy`] says:
/// `body_for(&strategy)` runs on the blocks of the walks that hand out blocks.
pub(crate) fn run_copy<B: Fn(&Block) + Sync>(
    plan: &TensorIterator,
    body_for: impl FnOnce(&CopyStrategy) -> B,
) -> Result<()> {
    around(plan, || for_each_copy(plan, grain_size(), body_for))
}

/// Runs `walk` with the copy-in and cast-back torch does around a kernel.
fn around(plan: &TensorIterator, walk: impl FnOnce() -> Result<()>) -> Result<()> {
    for op in plan.operands().iter().filter(|op| op.needs_copy_in()) {
        if let (Some(converted), Some(original)) = (&op.array, &op.original) {
            if !(op.is_wrapped_number && convert_one(converted, original)?) {
                super::copy::copy_into(converted, original)?;
            }
        }
    }
    walk()?;
    for op in plan.operands().iter().filter(|op| op.needs_cast_back()) {
        if let (Some(temp), Some(original)) = (&op.array, &op.original) {
            super::copy::copy_into(original, temp)?;
        }
    }
    Ok(())
}

/// Converts a wrapped Python number (0-d) into the 0-d temporary of the common dtype as the copy
/// kernel would (`Element`'s conversion from the number's int64, uint64, float64, complex128
/// or bool), without building a copy's plan: that plan took half the time of `a + 1` on
/// 1000 float64 elements (5.4 µs against 2.5, 1 thread, a loaded 2-core machine).
/// `false`: a case left to the copy kernel (a half type, which it rounds through float32).
fn convert_one(converted: &Array, original: &Array) -> Result<bool> {
    // (a complex number into a real dtype never comes from promotion; the copy kernel warns)
    let to_real = original.dtype().is_complex() && !converted.dtype().is_complex();
    if converted.ndim() != 0 || original.ndim() != 0 || to_real {
        return Ok(false);
    }
    write_number(converted, original.item()?)
}

/// A Python number as a 0-d array of `dtype`, converted as the build's temporary of a wrapped
/// number is ([`convert_one`]): what a kernel's direct plan reads (`binary::direct_number`).
/// `None` for a dtype `convert_one` leaves to the copy kernel (the half types).
pub(crate) fn number_array(value: Scalar, dtype: DType) -> Result<Option<Array>> {
    let array = Array::empty(&[], dtype, MemoryFormat::Contiguous)?;
    Ok(write_number(&array, value)?.then_some(array))
}

/// Writes `value` into the 0-d `array` with `Element`'s conversion from the number;
/// `false` (nothing written) for the half types, which the copy kernel rounds through float32.
fn write_number(array: &Array, value: Scalar) -> Result<bool> {
    let offset = array.storage_offset() as usize * array.itemsize();
    let storage = array.storage();
    crate::dispatch_in!(array.dtype(), T in [Bool, U8, U16, U32, U64, I8, I16, I32, I64, F32, F64, C64, C128] => {
        storage.write_elements(offset, &[super::args::scalar_as::<T>(value)])?;
        Ok(true)
    }, else Ok(false))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The direct conversion of a wrapped number gives the copy kernel's bits, for every
    /// number kind into every dtype it handles.
    #[test]
    fn a_wrapped_number_converts_as_the_copy_kernel_does() {
        let numbers = [
            Scalar::Bool(true),
            Scalar::Int(-3),
            Scalar::Int(1000),
            Scalar::Int(i64::MAX),
            Scalar::Int((1 << 53) + 1),
            Scalar::UInt(u64::MAX),
            Scalar::Float(0.1),
            Scalar::Float(-2.5e9),
            Scalar::Float(1e300),
            Scalar::Float(f64::NAN),
            Scalar::Float(-0.0),
            Scalar::Complex(1.5, -2.0),
        ];
        // every storable dtype but the half types (left to the copy kernel)
        let targets = DType::ALL
            .into_iter()
            .filter(|d| d.is_storable() && !matches!(d, DType::F16 | DType::BF16))
            .collect::<Vec<_>>();
        for number in numbers {
            let original = Array::full(
                &[],
                number,
                number.wrapped_dtype(),
                MemoryFormat::Contiguous,
            )
            .unwrap();
            for &dtype in &targets {
                let fast = Array::empty(&[], dtype, MemoryFormat::Contiguous).unwrap();
                let slow = Array::empty(&[], dtype, MemoryFormat::Contiguous).unwrap();
                if original.dtype().is_complex() && !dtype.is_complex() {
                    assert!(!convert_one(&fast, &original).unwrap());
                    continue;
                }
                assert!(convert_one(&fast, &original).unwrap());
                super::super::copy::copy_into(&slow, &original).unwrap();
                let bytes = |a: &Array| {
                    let mut out = vec![0u8; dtype.itemsize()];
                    a.storage().read(0, &mut out).unwrap();
                    out
                };
                assert_eq!(bytes(&fast), bytes(&slow), "{number:?} into {dtype}");
            }
        }
    }
}
