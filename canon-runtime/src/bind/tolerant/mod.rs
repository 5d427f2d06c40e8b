//! The tolerant deserializer: any serde `Deserializer` (JSON text, a
//! `&Value`), walked once and guided by a [`Plan`](crate::schema::plan::Plan).
//!
//! Only the parts of the input that lead to a tolerant position or a guard
//! (an array or object position of a binding plan) are wrapped; everything
//! else, scalars above all, is handed to the target type untouched, so a
//! valid call costs what plain serde costs. At a tolerant position, a string
//! the target wanted as a sequence is presented as a one-element sequence,
//! and a [`Repair`](crate::repair::Repair) is recorded. At a guard, the
//! array or object counts against the depth bound and, in JSON text, an
//! object's keys are remembered as hashes (in a closed object of at most 64
//! names, as the bit of each name): a key given twice (or two keys whose
//! hashes collide) stops the pass, and the caller reads the text exactly.
//! Pointers are built only when a repair or a rejection needs one, from
//! keys borrowed from the input where it lends them.
//!
//! The files read one way: `ctx` (the pass's state) and `keys` at the
//! bottom, the `adapter` over them, `fields` (an arguments struct routed
//! through the adapter), then the look (`value`) and the plain read of a
//! `Value` (`plain`). This file only declares them and names what the rest
//! of the crate uses.

#[macro_use]
mod macros;
mod adapter;
mod ctx;
mod fields;
mod keys;
mod plain;
#[cfg(test)]
pub(crate) mod tests;
mod value;
mod vouch;

pub(crate) use ctx::{Ctx, Mode};
pub use fields::{BindArgs, Fields, ProbeError};
pub(crate) use plain::{read_object, Object, Params, Wraps, MAX_SEARCHES};
pub(crate) use value::read as read_value;
#[cfg(test)]
use value::vouches;
pub(crate) use value::vouches_wrapping;
pub(crate) use vouch::{vouch, ReadPlain};
