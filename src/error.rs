//! One error type for the whole core. Each variant is a *kind* of failure with torch's text as
//! its `Display` (so a user comparing with torch sees the same words); the Python layer maps
//! each variant to one exception class in a single `From` impl (`py/mod.rs`), and Rust callers
//! can match on the variant instead of searching the message.

#![forbid(unsafe_code)]

use crate::dtype::DType;

/// Everything that can go wrong in the core. New variants may be added: match with a `_` arm.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// torch's "result type X can't be cast to the desired output type Y": an output of a
    /// dtype the result cannot be cast to safely.
    #[error(
        "result type {} can't be cast to the desired output type {}",
        .from.torch_name(),
        .to.torch_name()
    )]
    UnsafeCast {
        /// The result (common) dtype.
        from: DType,
        /// The output's dtype.
        to: DType,
    },
    /// torch's "Found dtype X but expected Y": operands that must share one dtype.
    #[error("Found dtype {} but expected {}", .found.torch_name(), .expected.torch_name())]
    DTypeMismatch {
        /// The dtype of the operand that differs.
        found: DType,
        /// The dtype the operands were expected to share.
        expected: DType,
    },
    /// torch's `"kernel" not implemented for 'Dtype'`: no kernel for this dtype.
    #[error("\"{kernel}\" not implemented for '{}'", .dtype.torch_name())]
    NotImplemented {
        /// torch's kernel name (`add_cpu`).
        kernel: &'static str,
        /// The dtype it has no kernel for.
        dtype: DType,
    },
    /// c10's checked scalar conversion: a Python number that `type_name` (C++'s name, e.g.
    /// `uint8_t`, `c10::Half`) cannot hold.
    #[error("value cannot be converted to type {type_name} without overflow")]
    Overflow {
        /// C++'s name of the target type.
        type_name: &'static str,
    },
    /// torch's two overlap texts: an output that writes one location twice (`internal`) or
    /// partially overlaps an input.
    #[error(
        "unsupported operation: {}. Please clone() the tensor before performing the operation.",
        if *.internal {
            "more than one element of the written-to tensor refers to a single memory location"
        } else {
            "some elements of the input tensor and the written-to tensor refer to a single memory location"
        }
    )]
    Overlap {
        /// The output overlaps itself (rather than an input).
        internal: bool,
    },
    /// A write into memory borrowed read-only (a read-only numpy array or DLPack capsule).
    #[error("cannot write into a read-only array (it views read-only memory)")]
    ReadOnly,
    /// An integer division or remainder by zero (torch raises RuntimeError "ZeroDivisionError").
    #[error("ZeroDivisionError")]
    ZeroDivision,
    /// An allocation the system refused.
    #[error("out of memory: cannot allocate {bytes} bytes")]
    OutOfMemory {
        /// The size asked for.
        bytes: usize,
    },
    /// Any other bad value: shapes that do not broadcast, bad strides or offsets, wrong ranks
    /// (Python `ValueError`; torch's RuntimeError or ValueError).
    #[error("{0}")]
    Value(String),
    /// Any other dtype problem or argument of the wrong kind (Python `TypeError`).
    #[error("{0}")]
    Type(String),
    /// A dimension or index out of range (Python `IndexError`).
    #[error("{0}")]
    Index(String),
}

/// The core's result type.
pub type Result<T> = std::result::Result<T, Error>;

/// The Python exception kind a variant maps to (used by the binding's one `From` impl, and by
/// Rust callers who want torch-vs-ferroiter kinds without Python).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ErrorKind {
    /// `ValueError`
    Value,
    /// `TypeError`
    Type,
    /// `IndexError`
    Index,
    /// `MemoryError`
    Memory,
}

impl Error {
    /// Shorthand constructors, so call sites read like the message they raise.
    pub fn value(msg: impl Into<String>) -> Self {
        Error::Value(msg.into())
    }
    /// An [`Error::Type`] with this message.
    pub fn type_(msg: impl Into<String>) -> Self {
        Error::Type(msg.into())
    }
    /// An [`Error::Index`] with this message.
    pub fn index(msg: impl Into<String>) -> Self {
        Error::Index(msg.into())
    }

    /// Which Python exception this error becomes (api.md, "Errors"): dtype problems are
    /// `TypeError`, dims and indices `IndexError`, a refused allocation `MemoryError`, every
    /// other bad input `ValueError`.
    pub fn kind(&self) -> ErrorKind {
        match self {
            Error::UnsafeCast { .. }
            | Error::DTypeMismatch { .. }
            | Error::NotImplemented { .. }
            | Error::Type(_) => ErrorKind::Type,
            Error::Index(_) => ErrorKind::Index,
            Error::OutOfMemory { .. } => ErrorKind::Memory,
            Error::Overflow { .. }
            | Error::Overlap { .. }
            | Error::ReadOnly
            | Error::ZeroDivision
            | Error::Value(_) => ErrorKind::Value,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn variants_print_torch_texts() {
        let cast = Error::UnsafeCast {
            from: DType::F32,
            to: DType::I64,
        };
        assert_eq!(
            cast.to_string(),
            "result type Float can't be cast to the desired output type Long"
        );
        assert_eq!(cast.kind(), ErrorKind::Type);
        assert_eq!(
            Error::NotImplemented {
                kernel: "add_cpu",
                dtype: DType::Bool
            }
            .to_string(),
            "\"add_cpu\" not implemented for 'Bool'"
        );
        assert_eq!(
            Error::Overlap { internal: true }.to_string(),
            "unsupported operation: more than one element of the written-to tensor refers to a single memory location. Please clone() the tensor before performing the operation."
        );
        assert_eq!(
            Error::Overlap { internal: false }.to_string(),
            "unsupported operation: some elements of the input tensor and the written-to tensor refer to a single memory location. Please clone() the tensor before performing the operation."
        );
        assert_eq!(Error::OutOfMemory { bytes: 8 }.kind(), ErrorKind::Memory);
    }
}
