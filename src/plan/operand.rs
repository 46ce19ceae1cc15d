//! `Operand`: one array taking part in an iteration, with what the build learned about it.

use super::config::Input;
use crate::dims::Strides;
use crate::dtype::DType;
use crate::Array;

/// The operands of a plan, inline up to 4 (three inputs and an output need no allocation;
/// measured on a 1-element `a + b`, this beats a `Vec` despite the larger moves).
pub type Operands = smallvec::SmallVec<[Operand; 4]>;

/// torch's `OperandInfo`.
#[derive(Debug, Clone)]
pub struct Operand {
    /// The array the kernel reads or writes: the user's, or a temporary standing in for it.
    /// `None` for an output still to be allocated.
    pub array: Option<Array>,
    /// The user's array when `array` is a temporary: an input converted to the common dtype
    /// (copy in before running), or an output of another dtype (cast back after running).
    /// Boxed: it is rare, and inline it would grow every plan that a tiny op moves around.
    pub original: Option<Box<Array>>,
    /// The dtype the operand has in the kernel.
    pub target_dtype: Option<DType>,
    /// An output (the kernel writes it) rather than an input.
    pub is_output: bool,
    /// The output is also one of the inputs (same array): never resized.
    pub is_read_write: bool,
    /// A given output of the wrong shape that the build reallocates.
    pub will_resize: bool,
    /// An input the kernel only reads (torch's `is_const`).
    pub is_const: bool,
    /// A Python number wrapped as a 0-d array: it promotes in the lowest bucket.
    pub is_wrapped_number: bool,
    /// Byte strides in iterator order (dim 0 fastest) once strides are computed.
    pub stride_bytes: Strides,
}

impl Operand {
    pub(crate) fn new(array: Option<Array>, is_output: bool) -> Operand {
        Operand {
            target_dtype: array.as_ref().map(|a| a.dtype()),
            array,
            original: None,
            is_output,
            is_read_write: false,
            will_resize: false,
            is_const: false,
            is_wrapped_number: false,
            stride_bytes: Strides::new(),
        }
    }

    /// An input operand as the config describes it.
    pub(crate) fn input(input: &Input) -> Operand {
        let mut op = Operand::new(Some(input.array.clone()), false);
        op.is_const = input.is_const;
        op.is_wrapped_number = input.is_wrapped_number;
        op
    }

    /// Element size of the dtype the kernel sees.
    pub fn itemsize(&self) -> usize {
        self.target_dtype.map_or(1, |d| d.itemsize())
    }

    /// Whether the build replaced this input by a converted copy that must be filled first.
    pub fn needs_copy_in(&self) -> bool {
        !self.is_output && self.original.is_some()
    }
    /// Whether this output is a temporary that must be cast back into the user's array.
    pub fn needs_cast_back(&self) -> bool {
        self.is_output && self.original.is_some()
    }
}
