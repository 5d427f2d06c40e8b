//! Repairs: what canon changed in a call, and where.

use std::borrow::Cow;

use serde::Serialize;

/// The rule a [`Repair`] applied.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
#[non_exhaustive]
pub enum RepairRule {
    /// A lone string where the schema says array of strings was bound as a
    /// one-element array.
    ScalarToArray,
    /// Arguments sent as the text `null` or as empty text were read as `{}`
    /// (what OpenAI-compatible servers send for a call without arguments).
    EmptyArguments,
    /// Opt-in: a string holding JSON array or object text, where the schema
    /// says array or object, was parsed.
    JsonText,
    /// Opt-in: a string holding exactly a JSON number, where the schema says
    /// number or integer, was read as that number.
    NumberText,
    /// Opt-in: the string `"true"` or `"false"`, where the schema says
    /// boolean, was read as that boolean.
    BoolText,
    /// Opt-in: `null` for an optional property whose schema does not admit
    /// `null` was read as the property being absent.
    NullAsAbsent,
}

impl RepairRule {
    /// The rule's stable name, as used in telemetry: `scalar_to_array`.
    pub fn as_str(self) -> &'static str {
        match self {
            RepairRule::ScalarToArray => "scalar_to_array",
            RepairRule::EmptyArguments => "empty_arguments",
            RepairRule::JsonText => "json_text",
            RepairRule::NumberText => "number_text",
            RepairRule::BoolText => "bool_text",
            RepairRule::NullAsAbsent => "null_as_absent",
        }
    }

    /// Every rule, in declaration order.
    pub const ALL: [RepairRule; 6] = [
        RepairRule::ScalarToArray,
        RepairRule::EmptyArguments,
        RepairRule::JsonText,
        RepairRule::NumberText,
        RepairRule::BoolText,
        RepairRule::NullAsAbsent,
    ];

    /// The rule named `name` (its [`as_str`](Self::as_str) form).
    pub fn from_name(name: &str) -> Option<RepairRule> {
        RepairRule::ALL.into_iter().find(|r| r.as_str() == name)
    }
}

impl std::fmt::Display for RepairRule {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// One change canon made to a call before binding it.
///
/// Holds where and which rule, never the argument value, so it is safe to
/// log.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize)]
#[non_exhaustive]
pub struct Repair {
    /// RFC 6901 JSON Pointer of the repaired position, such as
    /// `/data_source_names`. Borrowed when the position is a parameter of a
    /// `#[tool]` function (its pointer is known at compile time), so the
    /// common repair allocates no pointer.
    pub pointer: Cow<'static, str>,
    /// The rule applied there.
    pub rule: RepairRule,
}

impl Repair {
    /// A repair of `rule` at `pointer`.
    pub fn new(pointer: impl Into<Cow<'static, str>>, rule: RepairRule) -> Self {
        Repair {
            pointer: pointer.into(),
            rule,
        }
    }
}

/// Arguments bound for a tool, with the repairs that made them bindable.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub struct Bound<A> {
    /// The bound arguments.
    pub args: A,
    /// The repairs applied, in the order of the input; empty for a call that
    /// was valid as sent.
    pub repairs: Vec<Repair>,
}

impl<A> Bound<A> {
    /// Bound arguments with their repairs.
    pub fn new(args: A, repairs: Vec<Repair>) -> Self {
        Bound { args, repairs }
    }

    /// True when the call bound without any repair.
    pub fn is_exact(&self) -> bool {
        self.repairs.is_empty()
    }
}
