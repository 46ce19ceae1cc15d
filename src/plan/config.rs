//! `TensorIteratorConfig`: the operands and flags of one iteration, with torch's defaults and
//! torch's presets (`binary_op`, `comparison_op`, `reduce_op`, …).

use crate::dtype::DType;
use crate::error::Result;
use crate::plan::TensorIterator;
use crate::Array;
use smallvec::SmallVec;

/// One input operand.
#[derive(Debug, Clone)]
pub struct Input {
    /// The array (a 0-d one for a wrapped number).
    pub array: Array,
    /// Read-only in the kernel (torch's `add_const_input`).
    pub is_const: bool,
    /// A Python scalar wrapped as a 0-d array: it counts in the lowest promotion bucket.
    pub is_wrapped_number: bool,
}

impl Input {
    /// An array operand.
    pub fn array(array: Array) -> Input {
        Input {
            array,
            is_const: false,
            is_wrapped_number: false,
        }
    }
    /// A Python number as torch wraps it: a 0-d int64 / float64 / complex128 / bool array that
    /// promotes in the lowest bucket.
    pub fn wrapped(value: crate::Scalar) -> Result<Input> {
        let dtype = value.wrapped_dtype();
        let array = Array::full(&[], value, dtype, crate::MemoryFormat::Contiguous)?;
        Ok(Input {
            array,
            is_const: true,
            is_wrapped_number: true,
        })
    }
}

/// What to iterate and how; `build()` turns it into an immutable [`TensorIterator`].
///
/// Defaults are torch's: overlap checks, output resizing and the same-dtype check on,
/// everything else off. As in torch, asking to promote inputs or to cast to outputs turns the
/// same-dtype check off.
#[derive(Debug, Clone)]
pub struct TensorIteratorConfig {
    pub(crate) outputs: SmallVec<[Option<Array>; 2]>,
    pub(crate) inputs: SmallVec<[Input; 3]>,
    /// Refuse an output that writes one location twice or partially overlaps an input.
    pub check_mem_overlap: bool,
    /// Reallocate a given output whose shape is not the broadcast shape (unless it is also an
    /// input).
    pub resize_outputs: bool,
    /// Refuse operands of different dtypes.
    pub check_all_same_dtype: bool,
    /// torch's `check_all_same_device`. Every array is on the CPU here: it only decides, as in
    /// torch, whether `compute_types` may stop before computing a common dtype.
    pub check_all_same_device: bool,
    /// Convert inputs of another dtype to the common dtype (a temporary, copied in before the
    /// kernel).
    pub promote_inputs_to_common_dtype: bool,
    /// Compute an output of another dtype into a temporary of the common dtype, cast back after the
    /// kernel.
    pub cast_common_dtype_to_outputs: bool,
    /// Refuse an output that the common dtype cannot be cast to safely.
    pub enforce_safe_casting_to_output: bool,
    /// Make an integer or bool common dtype the default float (true division).
    pub promote_integer_inputs_to_float: bool,
    /// A reduction: outputs may keep a shape other than the broadcast one (the reduced dims size
    /// 1), and no fast setup applies.
    pub is_reduction: bool,
    /// Keep the dims in their logical order (no stride sort; a fast setup only when every operand
    /// is contiguous).
    pub enforce_linear_iteration: bool,
    /// torch's `allow_cpu_scalars` (a CPU scalar in a CUDA iteration). Kept for torch's presets;
    /// nothing reads it here, where every array is on the CPU.
    pub allow_cpu_scalars: bool,
    /// The dtype of the outputs the build allocates, when fixed
    /// ([`TensorIteratorConfig::declare_static_dtype`]); `None`: the common dtype. Per-output
    /// dtypes ([`TensorIteratorConfig::declare_output_dtypes`]) take precedence.
    pub static_dtype: Option<DType>,
    /// The iteration shape, when fixed ([`TensorIteratorConfig::declare_static_shape`]): operands
    /// are taken with their strides as they are, no broadcasting.
    pub static_shape: Option<Vec<usize>>,
    /// Which operands (outputs first, then inputs) are one object, when the caller knows: see
    /// [`TensorIteratorConfig::declare_operand_identities`].
    pub(crate) operand_ids: Option<Vec<Option<usize>>>,
    /// torch implements the operation as a structured kernel: see
    /// [`TensorIteratorConfig::structured`].
    pub(crate) structured: bool,
    /// The caller runs a kernel that writes every element of the outputs the build allocates
    /// before anything reads them, so their memory need not be zeroed (see `into_kernel_plan`).
    pub(crate) outputs_written_in_full: bool,
    /// The dtypes of the outputs the build allocates, one per output (a user's kernel with a
    /// signature: [`TensorIteratorConfig::declare_output_dtypes`]); empty: `static_dtype`.
    pub(crate) output_dtypes: SmallVec<[DType; 2]>,
}

impl Default for TensorIteratorConfig {
    fn default() -> Self {
        TensorIteratorConfig {
            outputs: SmallVec::new(),
            inputs: SmallVec::new(),
            check_mem_overlap: true,
            resize_outputs: true,
            check_all_same_dtype: true,
            check_all_same_device: true,
            promote_inputs_to_common_dtype: false,
            cast_common_dtype_to_outputs: false,
            enforce_safe_casting_to_output: false,
            promote_integer_inputs_to_float: false,
            is_reduction: false,
            enforce_linear_iteration: false,
            allow_cpu_scalars: false,
            static_dtype: None,
            static_shape: None,
            output_dtypes: SmallVec::new(),
            operand_ids: None,
            structured: false,
            outputs_written_in_full: false,
        }
    }
}

impl TensorIteratorConfig {
    /// A config with torch's defaults (see the struct doc).
    pub fn new() -> Self {
        Self::default()
    }

    /// Adds an output (`None`: allocate one). Outputs must all come before the inputs.
    pub fn add_output(&mut self, output: Option<Array>) -> &mut Self {
        self.outputs.push(output);
        self
    }
    /// `add_output` with torch's check that outputs come first: an output added after an input
    /// is refused with torch's text.
    pub fn try_add_output(&mut self, output: Option<Array>) -> Result<&mut Self> {
        if !self.inputs.is_empty() {
            return Err(crate::Error::value(
                "Keep in mind that you have to add all outputs first before adding any input.",
            ));
        }
        Ok(self.add_output(output))
    }
    /// Adds an input.
    pub fn add_input(&mut self, input: Array) -> &mut Self {
        self.inputs.push(Input {
            array: input,
            is_const: false,
            is_wrapped_number: false,
        });
        self
    }
    /// Adds an input the kernel only reads (torch's `add_const_input`).
    pub fn add_const_input(&mut self, input: Array) -> &mut Self {
        self.inputs.push(Input {
            array: input,
            is_const: true,
            is_wrapped_number: false,
        });
        self
    }
    /// Adds a Python scalar already wrapped as a 0-d array (torch's "wrapped number").
    pub fn add_wrapped_number(&mut self, scalar: Array) -> &mut Self {
        self.inputs.push(Input {
            array: scalar,
            is_const: true,
            is_wrapped_number: true,
        });
        self
    }

    /// The number of outputs added so far.
    pub fn noutputs(&self) -> usize {
        self.outputs.len()
    }
    /// The number of inputs added so far.
    pub fn ninputs(&self) -> usize {
        self.inputs.len()
    }

    /// Sets the `check_mem_overlap` field.
    pub fn check_mem_overlap(&mut self, v: bool) -> &mut Self {
        self.check_mem_overlap = v;
        self
    }
    /// Sets the `resize_outputs` field.
    pub fn resize_outputs(&mut self, v: bool) -> &mut Self {
        self.resize_outputs = v;
        self
    }
    /// Sets the `check_all_same_dtype` field.
    pub fn check_all_same_dtype(&mut self, v: bool) -> &mut Self {
        self.check_all_same_dtype = v;
        self
    }
    /// Sets the `check_all_same_device` field.
    pub fn check_all_same_device(&mut self, v: bool) -> &mut Self {
        self.check_all_same_device = v;
        self
    }
    /// Also turns the same-dtype check off when set, as torch does.
    pub fn promote_inputs_to_common_dtype(&mut self, v: bool) -> &mut Self {
        self.promote_inputs_to_common_dtype = v;
        if v {
            self.check_all_same_dtype = false;
        }
        self
    }
    /// Also turns the same-dtype check off when set, as torch does.
    pub fn cast_common_dtype_to_outputs(&mut self, v: bool) -> &mut Self {
        self.cast_common_dtype_to_outputs = v;
        if v {
            self.check_all_same_dtype = false;
        }
        self
    }
    /// Sets the `enforce_safe_casting_to_output` field.
    pub fn enforce_safe_casting_to_output(&mut self, v: bool) -> &mut Self {
        self.enforce_safe_casting_to_output = v;
        self
    }
    /// Sets the `promote_integer_inputs_to_float` field.
    pub fn promote_integer_inputs_to_float(&mut self, v: bool) -> &mut Self {
        self.promote_integer_inputs_to_float = v;
        self
    }
    /// Sets the `is_reduction` field.
    pub fn is_reduction(&mut self, v: bool) -> &mut Self {
        self.is_reduction = v;
        self
    }
    /// Sets the `enforce_linear_iteration` field.
    pub fn enforce_linear_iteration(&mut self, v: bool) -> &mut Self {
        self.enforce_linear_iteration = v;
        self
    }
    /// Sets the `allow_cpu_scalars` field.
    pub fn allow_cpu_scalars(&mut self, v: bool) -> &mut Self {
        self.allow_cpu_scalars = v;
        self
    }
    /// Marks the config as a torch *structured* kernel's. Such kernels resize a given `out=`
    /// themselves before their iterator does, so when the iterator then computes into a
    /// temporary of the common dtype (an `out=` of another dtype) and resizes that too, torch
    /// gives its resize warning twice (`plan/resize.rs`). Only the warnings differ.
    pub fn structured(&mut self, v: bool) -> &mut Self {
        self.structured = v;
        self
    }
    /// Fixes the dtype of undefined outputs (comparisons: bool); turns the same-dtype check off.
    pub fn declare_static_dtype(&mut self, dtype: DType) -> &mut Self {
        self.static_dtype = Some(dtype);
        self.check_all_same_dtype = false;
        self
    }
    /// Fixes the dtype of each undefined output, in order (a kernel with a signature, whose
    /// outputs may differ in dtype); turns the same-dtype check off.
    pub fn declare_output_dtypes(&mut self, dtypes: &[DType]) -> &mut Self {
        self.output_dtypes = dtypes.iter().copied().collect();
        self.check_all_same_dtype = false;
        self
    }
    /// The dtype the build gives output `i` when it allocates it, if declared.
    pub(crate) fn output_dtype(&self, i: usize) -> Option<DType> {
        self.output_dtypes.get(i).copied().or(self.static_dtype)
    }
    /// Bypasses shape computation: every operand is taken with its strides as they are, on this
    /// shape (torch's `declare_static_shape`, used by scans). Turns output resizing off.
    pub fn declare_static_shape(&mut self, shape: &[usize]) -> &mut Self {
        self.static_shape = Some(shape.to_vec());
        self.resize_outputs = false;
        self
    }

    /// Builds the plan from a config that is not needed afterwards (no copy of the operands).
    pub fn into_plan(self) -> Result<TensorIterator> {
        crate::plan::build::build(self, false)
    }

    /// `into_plan` for a kernel about to write every element of the outputs the build
    /// allocates: those are not zeroed first. Plans handed to users (whose outputs may be read
    /// before anything writes them) always get zeroed outputs.
    pub(crate) fn into_kernel_plan(mut self) -> Result<TensorIterator> {
        self.outputs_written_in_full = true;
        crate::plan::build::build(self, false)
    }

    /// Says which operands are one and the same object (one id per operand, outputs first, then
    /// inputs; `None`: distinct from every other). torch's `is_same` is tensor identity, so
    /// `torch.add(x, b, out=x)` is read-write but `out=x[:]` (another tensor viewing the same
    /// elements) is not: it is resized like any out. Without this declaration (or if its length
    /// is not the number of operands) two operands are taken to be the same when they are equal
    /// views of one storage. Operands with equal ids must also be equal views to count as one.
    pub fn declare_operand_identities(&mut self, ids: Vec<Option<usize>>) -> &mut Self {
        self.operand_ids = Some(ids);
        self
    }

    /// Builds the plan: torch's phases, in torch's order.
    pub fn build(&self) -> Result<TensorIterator> {
        crate::plan::build::build(self.clone(), false)
    }

    // ---- torch's presets ----

    /// `add`, `sub`, `mul`, …: promote inputs, cast to outputs, safe casting, overlap checks.
    pub fn binary_op(out: Option<Array>, a: Input, b: Input) -> Self {
        let mut c = Self::new();
        c.check_mem_overlap(true)
            .allow_cpu_scalars(true)
            .promote_inputs_to_common_dtype(true)
            .cast_common_dtype_to_outputs(true)
            .enforce_safe_casting_to_output(true)
            .add_output(out);
        c.inputs.extend([a, b]);
        c
    }
    /// True division: `binary_op` that also promotes integer inputs to the default float.
    pub fn binary_float_op(out: Option<Array>, a: Input, b: Input) -> Self {
        let mut c = Self::binary_op(out, a, b);
        c.promote_integer_inputs_to_float(true);
        c
    }
    /// Comparisons: bool output unless an `out` is given; a non-bool `out` gets a cast.
    pub fn comparison_op(out: Option<Array>, a: Input, b: Input) -> Self {
        let mut c = Self::new();
        c.check_mem_overlap(true)
            .allow_cpu_scalars(true)
            .promote_inputs_to_common_dtype(true);
        match &out {
            None => {
                c.declare_static_dtype(DType::Bool);
            }
            Some(o) if o.dtype() != DType::Bool => {
                c.cast_common_dtype_to_outputs(true);
            }
            Some(_) => {}
        }
        c.add_output(out);
        c.inputs.extend([a, b]);
        c
    }
    /// `where`, `clamp` with tensors: three inputs promoted together.
    pub fn ternary_op(out: Option<Array>, a: Input, b: Input, d: Input) -> Self {
        let mut c = Self::new();
        c.promote_inputs_to_common_dtype(true)
            .cast_common_dtype_to_outputs(true)
            .enforce_safe_casting_to_output(true)
            .add_output(out);
        c.inputs.extend([a, b, d]);
        c
    }
    /// `neg`, `abs`, …: every operand must share one dtype.
    pub fn unary_op(out: Option<Array>, a: Array) -> Self {
        let mut c = Self::new();
        c.check_mem_overlap(true)
            .cast_common_dtype_to_outputs(false)
            .enforce_safe_casting_to_output(false)
            .check_all_same_dtype(true)
            .add_output(out)
            .add_input(a);
        c
    }
    /// `exp`, `sqrt`, …: integers promote to the default float.
    pub fn unary_float_op(out: Option<Array>, a: Array) -> Self {
        let mut c = Self::new();
        c.check_mem_overlap(true)
            .promote_inputs_to_common_dtype(true)
            .cast_common_dtype_to_outputs(true)
            .enforce_safe_casting_to_output(true)
            .promote_integer_inputs_to_float(true)
            .add_output(out)
            .add_input(a);
        c
    }
    /// `fill_`, `arange` into an out: no inputs, the output is never resized.
    pub fn nullary_op(out: Array) -> Self {
        let mut c = Self::new();
        c.check_mem_overlap(true)
            .check_all_same_dtype(false)
            .resize_outputs(false)
            .add_output(Some(out));
        c
    }
    /// Reductions: the output keeps the reduced dims as size 1 (stride 0 in the iterator).
    pub fn reduce_op(out: Array, a: Array) -> Self {
        let mut c = Self::new();
        c.check_mem_overlap(false)
            .add_output(Some(out))
            .add_input(a)
            .resize_outputs(false)
            .is_reduction(true)
            .promote_inputs_to_common_dtype(true);
        c
    }
    /// `copy_`: src broadcasts into dst, dtypes may differ, no resizing. `copy_` walks it as
    /// [`CopyStrategy::of`](crate::exec::CopyStrategy::of) says (`exec::explain_copy` tells
    /// how); `for_each` over it runs its closure on every element, as over any plan.
    pub fn copy_op(dst: Array, src: Array) -> Self {
        let mut c = Self::new();
        c.add_output(Some(dst))
            .add_const_input(src)
            .resize_outputs(false)
            .check_all_same_dtype(false)
            .check_all_same_device(false);
        c
    }
}
