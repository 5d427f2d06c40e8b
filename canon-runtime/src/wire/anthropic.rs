//! The anthropic wire format.
