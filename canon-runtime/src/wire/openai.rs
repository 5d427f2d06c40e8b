//! The openai wire format.
