//! Provider wire formats, on `serde_json` values (no HTTP client): the tool
//! calls in a provider's response (or stream) as [`ToolCall`]s, and each
//! call's [`ToolMessage`] back in the shape the provider takes.
//!
//! A response is never refused as a whole because one call in it is
//! malformed: a call with unreadable arguments becomes a [`ToolCall`] whose
//! binding fails with canon's feedback, for that call only.

#[cfg(feature = "anthropic")]
pub mod anthropic;
#[cfg(feature = "gemini")]
pub mod gemini;
#[cfg(feature = "openai")]
pub mod openai;

#[allow(unused_imports)]
use crate::toolbox::{ToolCall, ToolMessage};

/// A message's content: its text as a string, or, with a note, an array of
/// parts of type `part` (`text` for Chat Completions and Anthropic,
/// `input_text` for the Responses API), the output and then the note.
#[cfg(any(feature = "openai", feature = "anthropic"))]
fn content(message: &ToolMessage, part: &str) -> serde_json::Value {
    match &message.note {
        None => message.text.clone().into(),
        Some(_) => message
            .blocks()
            .map(|text| serde_json::json!({"type": part, "text": text}))
            .collect(),
    }
}
