//! The gemini wire format.
