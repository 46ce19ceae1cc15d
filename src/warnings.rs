//! Warnings the core gives while it works (torch's `TORCH_WARN`), kept per thread until the
//! caller collects them: the Python binding turns each into a Python `UserWarning` after the
//! call returns; Rust callers read them with [`take`].

#![forbid(unsafe_code)]

use std::cell::RefCell;

thread_local! {
    static PENDING: RefCell<Vec<String>> = const { RefCell::new(Vec::new()) };
}

/// Records a warning for the caller of the current operation.
pub fn warn(message: String) {
    PENDING.with(|p| p.borrow_mut().push(message));
}

/// The warnings recorded on this thread since the last call, oldest first.
pub fn take() -> Vec<String> {
    PENDING.with(|p| std::mem::take(&mut *p.borrow_mut()))
}

#[cfg(test)]
mod tests {
    #[test]
    fn warnings_are_taken_once() {
        super::warn("a".into());
        super::warn("b".into());
        assert_eq!(super::take(), vec!["a".to_string(), "b".to_string()]);
        assert!(super::take().is_empty());
    }
}
