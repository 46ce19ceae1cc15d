//! The build trace behind `explain()`: a list of lines written only when asked for, so that
//! the normal build formats nothing.

/// Collects explanation lines when enabled; a no-op otherwise.
#[derive(Debug, Default)]
pub struct Trace {
    enabled: bool,
    lines: Vec<String>,
}

impl Trace {
    pub fn new(enabled: bool) -> Self {
        Trace {
            enabled,
            lines: vec![],
        }
    }
    pub fn enabled(&self) -> bool {
        self.enabled
    }
    /// Adds the line `f()` builds, if tracing.
    pub fn line(&mut self, f: impl FnOnce() -> String) {
        if self.enabled {
            self.lines.push(f());
        }
    }
    pub fn into_text(self) -> String {
        if self.lines.is_empty() {
            return String::new();
        }
        self.lines.join("\n")
    }
}

/// `[a, b, c]` for any list of numbers.
pub fn list<T: std::fmt::Display>(xs: &[T]) -> String {
    crate::shape::fmt_shape(xs)
}
