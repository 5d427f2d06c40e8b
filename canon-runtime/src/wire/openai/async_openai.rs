//! Conversions between `canon::openai` and async-openai's request and
//! response types (feature `async-openai`).
