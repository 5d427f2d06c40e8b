//! Bounds on what a call may cost: input that a model produced, perhaps from
//! content an attacker wrote, must not make canon's work grow without end.

/// Configurable bounds, with safe defaults. Each is enforced before work
/// grows, and each is reported to the model as a violation it can read.
///
/// ```
/// use canon::Limits;
///
/// let limits = Limits { max_text_bytes: 64 * 1024, ..Limits::default() };
/// assert_eq!(limits.max_listed, 20);
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Limits {
    /// The longest arguments text read (default 1 MiB); longer text is
    /// refused before it is parsed.
    pub max_text_bytes: usize,
    /// How many violations the model-facing text lists (default 20); the
    /// rest are counted.
    pub max_listed: usize,
}

impl Default for Limits {
    fn default() -> Self {
        Limits {
            max_text_bytes: 1 << 20,
            max_listed: crate::error::BindError::LISTED,
        }
    }
}

impl Limits {
    /// The violation for arguments text of `len` bytes, over the limit.
    pub(crate) fn too_large(&self, len: usize) -> crate::error::Violation {
        crate::error::Violation::new(
            "",
            crate::error::ViolationKind::TooLarge,
            format!("at most {} bytes of arguments", self.max_text_bytes),
            None,
            format!(
                "the arguments are {len} bytes, over the limit of {}; send shorter values",
                self.max_text_bytes
            ),
        )
    }
}
