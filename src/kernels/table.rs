//! The op table: every elementwise function of the API, written once.
//!
//! `unary_ops!` and `binary_ops!` hand their rows to a macro of the caller's choice (the
//! "X-macro" pattern), so that one list generates the core's `UnaryOp`/`BinaryOp` enums (here),
//! the Python functions, their registration, the Array operators and the module's `__all__`
//! (`src/py/ops.rs`), and the list the tests derive their cases from (`_op_table()`).
//! Adding a unary function is one row here, its kernel (a match arm in `unary.rs`), its stub
//! line and one test-case row.
//!
//! A unary row: `(Variant, python_name, "torch kernel name", preset, [operator])` where preset
//! is `Same` (torch's `unary_op`: the result has the input's dtype), `Float` (its
//! `unary_float_op`: integers promote to float32) or `Predicate` (a bool result), and the
//! operator is the Array dunder that computes the function (or nothing).
//!
//! A binary row: `(Variant, python_name, "torch kernel name", preset, alpha, kind,
//! [operators])` where preset is `Binary` (`binary_op`), `Float` (`binary_float_op`: true
//! division) or `Comparison` (`comparison_op`: a bool result), alpha is `alpha` when the
//! function takes torch's `alpha=` multiplier (else `plain`), kind is `structured` when torch
//! implements it as a structured kernel (which resizes an `out=` itself before its iterator
//! does: see `TensorIteratorConfig::structured`) or `legacy`, and the operators are `forward reflected how
//! inplace`: `how` says what `number ⊙ array` computes — `Commuted` (`array ⊙ number`, for
//! commutative ops, as torch), `Swapped` (`number ⊙ array`) or `Reciprocal` (`number / array`
//! is torch's `reciprocal(array) * number`).

/// The unary functions: `unary_ops!(callback)` calls `callback! { rows }`.
#[macro_export]
macro_rules! unary_ops {
    ($then:path) => {
        $then! {
            (Neg, neg, "neg_cpu", Same, [__neg__]),
            (Abs, abs, "abs_cpu", Same, [__abs__]),
            (Exp, exp, "exp_vml_cpu", Float, []),
            (Expm1, expm1, "expm1_vml_cpu", Float, []),
            (Log, log, "log_vml_cpu", Float, []),
            (Log1p, log1p, "log1p_vml_cpu", Float, []),
            (Sqrt, sqrt, "sqrt_vml_cpu", Float, []),
            (Sin, sin, "sin_vml_cpu", Float, []),
            (Cos, cos, "cos_vml_cpu", Float, []),
            (Tanh, tanh, "tanh_vml_cpu", Float, []),
            (Sigmoid, sigmoid, "sigmoid_cpu", Float, []),
            (Reciprocal, reciprocal, "reciprocal_cpu", Float, []),
            (Floor, floor, "floor_vml_cpu", Same, []),
            (Ceil, ceil, "ceil_vml_cpu", Same, []),
            (Round, round, "round_vml_cpu", Same, []),
            (Sign, sign, "sign_cpu", Same, []),
            (BitwiseNot, bitwise_not, "bitwise_not_cpu", Same, []),
            (LogicalNot, logical_not, "logical_not_cpu", Same, []),
            (Acos, acos, "acos_vml_cpu", Float, []),
            (Asin, asin, "asin_vml_cpu", Float, []),
            (Atan, atan, "atan_vml_cpu", Float, []),
            (Acosh, acosh, "acosh_cpu", Float, []),
            (Asinh, asinh, "asinh_cpu", Float, []),
            (Atanh, atanh, "atanh_cpu", Float, []),
            (Tan, tan, "tan_vml_cpu", Float, []),
            (Sinh, sinh, "sinh_cpu", Float, []),
            (Cosh, cosh, "cosh_cpu", Float, []),
            (Log2, log2, "log2_vml_cpu", Float, []),
            (Log10, log10, "log10_vml_cpu", Float, []),
            (Trunc, trunc, "trunc_vml_cpu", Same, []),
            (Square, square, "pow", Same, []),
            (Isnan, isnan, "isnan", Predicate, []),
            (Isinf, isinf, "isinf", Predicate, []),
            (Isfinite, isfinite, "isfinite", Predicate, []),
            (Signbit, signbit, "signbit_cpu", Predicate, []),
        }
    };
}

/// The binary functions: `binary_ops!(callback)` calls `callback! { rows }`. (`pow` and the
/// comparisons have operators with their own signatures, written in `src/py/array_methods.rs`.)
#[macro_export]
macro_rules! binary_ops {
    ($then:path) => {
        $then! {
            (Add, add, "add_cpu", Binary, alpha, structured, [__add__ __radd__ Commuted __iadd__]),
            (Sub, sub, "sub_cpu", Binary, alpha, structured, [__sub__ __rsub__ Swapped __isub__]),
            (Mul, mul, "mul_cpu", Binary, plain, structured, [__mul__ __rmul__ Commuted __imul__]),
            (Div, div, "div_true_cpu", Float, plain, structured, [__truediv__ __rtruediv__ Reciprocal __itruediv__]),
            (FloorDivide, floor_divide, "div_floor_cpu", Binary, plain, legacy, [__floordiv__ __rfloordiv__ Swapped __ifloordiv__]),
            (Remainder, remainder, "remainder_cpu", Binary, plain, structured, [__mod__ __rmod__ Swapped __imod__]),
            (Pow, pow, "pow", Binary, plain, structured, []),
            (Maximum, maximum, "maximum_cpu", Binary, plain, structured, []),
            (Minimum, minimum, "minimum_cpu", Binary, plain, structured, []),
            (BitwiseAnd, bitwise_and, "bitwise_and_cpu", Binary, plain, structured, [__and__ __rand__ Commuted __iand__]),
            (BitwiseOr, bitwise_or, "bitwise_or_cpu", Binary, plain, structured, [__or__ __ror__ Commuted __ior__]),
            (BitwiseXor, bitwise_xor, "bitwise_xor_cpu", Binary, plain, structured, [__xor__ __rxor__ Commuted __ixor__]),
            (LogicalAnd, logical_and, "logical_and_cpu", Comparison, plain, legacy, []),
            (LogicalOr, logical_or, "logical_or_cpu", Comparison, plain, legacy, []),
            (LogicalXor, logical_xor, "logical_xor_cpu", Comparison, plain, legacy, []),
            (Eq, eq, "eq_cpu", Comparison, plain, structured, []),
            (Ne, ne, "ne_cpu", Comparison, plain, structured, []),
            (Lt, lt, "lt_cpu", Comparison, plain, structured, []),
            (Le, le, "le_cpu", Comparison, plain, structured, []),
            (Gt, gt, "gt_cpu", Comparison, plain, structured, []),
            (Ge, ge, "ge_cpu", Comparison, plain, structured, []),
            (Atan2, atan2, "atan2_cpu", Float, plain, structured, []),
            (Hypot, hypot, "hypot_cpu", Binary, plain, structured, []),
            (Copysign, copysign, "copysign_cpu", Float, plain, structured, []),
            (Nextafter, nextafter, "nextafter_cpu", Binary, plain, structured, []),
            (Logaddexp, logaddexp, "logaddexp_cpu", Binary, plain, structured, []),
            (Fmod, fmod, "fmod_cpu", Binary, plain, structured, []),
            (BitwiseLeftShift, bitwise_left_shift, "lshift_cpu", Binary, plain, structured, [__lshift__ __rlshift__ Swapped __ilshift__]),
            (BitwiseRightShift, bitwise_right_shift, "rshift_cpu", Binary, plain, structured, [__rshift__ __rrshift__ Swapped __irshift__]),
        }
    };
}

/// What `number ⊙ array` computes for a binary op (its reflected operator; see the module doc).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Reflection {
    /// `array ⊙ number`: the number stays the second operand (torch's `__radd__` & co.), which
    /// matters for complex sums and half-precision products.
    Commuted,
    /// `number ⊙ array`.
    Swapped,
    /// `reciprocal(array) * number`: torch's `number / array` (two roundings).
    Reciprocal,
}

/// The preset torch builds an op's iterator with (see the module doc). `Predicate`: a unary
/// function with a bool result (`isnan` & co.: no promotion, the input read as it is).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Preset {
    /// torch's `unary_op`: the result has the input's dtype.
    Same,
    /// torch's `unary_float_op` / `binary_float_op`: integer inputs promote to float32.
    Float,
    /// torch's `binary_op`: the inputs promote to their common dtype.
    Binary,
    /// torch's `comparison_op`: a bool result.
    Comparison,
    /// A unary function with a bool result, the input read as it is.
    Predicate,
}

impl Preset {
    /// The preset's name in the op table (`unary`, `unary_float`, `binary`, …).
    pub fn name(self) -> &'static str {
        match self {
            Preset::Same => "unary",
            Preset::Float => "unary_float",
            Preset::Binary => "binary",
            Preset::Comparison => "comparison",
            Preset::Predicate => "unary_predicate",
        }
    }
}

macro_rules! define_unary_ops {
    ($(($variant:ident, $name:ident, $kernel:literal, $preset:ident, [$($dunder:ident)?])),* $(,)?) => {
        /// A unary function of the API (rows of [`unary_ops!`](crate::unary_ops)).
        #[derive(Debug, Clone, Copy, PartialEq, Eq)]
        pub enum UnaryOp {
            $(#[doc = concat!("`", stringify!($name), "`")] $variant),*
        }

        impl UnaryOp {
            /// Every unary function, in table order.
            pub const ALL: &'static [UnaryOp] = &[$(UnaryOp::$variant),*];

            /// The Python function's name.
            pub fn name(self) -> &'static str {
                match self { $(UnaryOp::$variant => stringify!($name)),* }
            }
            /// torch's kernel name, for its "not implemented" messages.
            pub fn kernel_name(self) -> &'static str {
                match self { $(UnaryOp::$variant => $kernel),* }
            }
            /// `Same` (torch's unary_op) or `Float` (unary_float_op: integers promote).
            pub fn preset(self) -> Preset {
                match self { $(UnaryOp::$variant => Preset::$preset),* }
            }
            /// The Array operator that computes this function, if any.
            pub fn operator(self) -> Option<&'static str> {
                match self { $(UnaryOp::$variant => [$(stringify!($dunder))?].first().copied()),* }
            }
        }
    };
}
unary_ops!(define_unary_ops);

macro_rules! define_binary_ops {
    ($(($variant:ident, $name:ident, $kernel:literal, $preset:ident, $alpha:ident, $kind:ident,
        [$($fwd:ident $rev:ident $how:ident $inplace:ident)?])),* $(,)?) => {
        /// A binary function of the API (rows of [`binary_ops!`](crate::binary_ops)).
        #[derive(Debug, Clone, Copy, PartialEq, Eq)]
        pub enum BinaryOp {
            $(#[doc = concat!("`", stringify!($name), "`")] $variant),*
        }

        impl BinaryOp {
            /// Every binary function, in table order.
            pub const ALL: &'static [BinaryOp] = &[$(BinaryOp::$variant),*];

            /// The Python function's name.
            pub fn name(self) -> &'static str {
                match self { $(BinaryOp::$variant => stringify!($name)),* }
            }
            /// torch's kernel name, for its "not implemented" messages.
            pub fn kernel_name(self) -> &'static str {
                match self { $(BinaryOp::$variant => $kernel),* }
            }
            /// The iterator preset: `Binary`, `Float` (true division) or `Comparison`.
            pub fn preset(self) -> Preset {
                match self { $(BinaryOp::$variant => Preset::$preset),* }
            }
            /// Whether the function takes torch's `alpha=` multiplier of its second operand.
            pub fn has_alpha(self) -> bool {
                match self { $(BinaryOp::$variant => stringify!($alpha) == "alpha"),* }
            }
            /// Whether torch implements it as a structured kernel.
            pub fn is_structured(self) -> bool {
                match self { $(BinaryOp::$variant => stringify!($kind) == "structured"),* }
            }
            /// The Array operators (forward, reflected, in-place) that compute this function.
            pub fn operators(self) -> &'static [&'static str] {
                match self {
                    $(BinaryOp::$variant => &[$(stringify!($fwd), stringify!($rev), stringify!($inplace))?]),*
                }
            }
            /// What `number ⊙ array` computes: the table's choice, else `Swapped`.
            pub fn reflection(self) -> Reflection {
                match self {
                    $(BinaryOp::$variant => [$(Reflection::$how)?].first().copied().unwrap_or(Reflection::Swapped)),*
                }
            }
            /// Ops whose result is bool (unless an `out=` of another dtype is given).
            pub fn is_predicate(self) -> bool {
                self.preset() == Preset::Comparison
            }
        }
    };
}
binary_ops!(define_binary_ops);

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rows_are_read_once() {
        assert_eq!(UnaryOp::Exp.name(), "exp");
        assert_eq!(UnaryOp::Exp.preset(), Preset::Float);
        assert_eq!(UnaryOp::Neg.operator(), Some("__neg__"));
        assert_eq!(UnaryOp::Sin.operator(), None);
        assert_eq!(BinaryOp::Div.kernel_name(), "div_true_cpu");
        assert!(BinaryOp::Sub.has_alpha() && !BinaryOp::Mul.has_alpha());
        assert!(BinaryOp::Add.is_structured() && !BinaryOp::FloorDivide.is_structured());
        assert_eq!(
            BinaryOp::Add.operators(),
            &["__add__", "__radd__", "__iadd__"]
        );
        assert!(BinaryOp::Lt.is_predicate() && !BinaryOp::Add.is_predicate());
        assert_eq!(BinaryOp::Div.reflection(), Reflection::Reciprocal);
        assert_eq!(BinaryOp::Pow.reflection(), Reflection::Swapped);
        let names: std::collections::HashSet<_> = UnaryOp::ALL
            .iter()
            .map(|o| o.name())
            .chain(BinaryOp::ALL.iter().map(|o| o.name()))
            .collect();
        assert_eq!(names.len(), UnaryOp::ALL.len() + BinaryOp::ALL.len());
    }
}
