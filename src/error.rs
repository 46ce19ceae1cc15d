//! One error type for the whole core. Each variant is a *kind* that the Python layer maps to one
//! exception class (`ValueError`, `TypeError`, `IndexError`); the message is torch's text where
//! torch has one, so a user comparing with torch sees the same words.
#![forbid(unsafe_code)]

/// Everything that can go wrong in the core, by kind.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum Error {
    /// Bad shapes, strides, offsets, formats or overlapping writes (Python `ValueError`).
    #[error("{0}")]
    Value(String),
    /// Dtypes that cannot be promoted, cast or are unsupported (Python `TypeError`).
    #[error("{0}")]
    Type(String),
    /// A dimension or index out of range (Python `IndexError`).
    #[error("{0}")]
    Index(String),
}

/// The core's result type.
pub type Result<T> = std::result::Result<T, Error>;

/// Shorthand constructors, so call sites read like the message they raise.
impl Error {
    pub fn value(msg: impl Into<String>) -> Self {
        Error::Value(msg.into())
    }
    pub fn type_(msg: impl Into<String>) -> Self {
        Error::Type(msg.into())
    }
    pub fn index(msg: impl Into<String>) -> Self {
        Error::Index(msg.into())
    }
}
