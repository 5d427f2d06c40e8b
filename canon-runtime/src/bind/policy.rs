//! Which repair rules apply: the core rule by default, opt-in rules by name.

use std::fmt;
use std::str::FromStr;

use crate::export::Dialect;
use crate::repair::RepairRule;

/// The set of repair rules canon applies when binding a call.
///
/// The default policy is the core rule alone
/// ([`ScalarToArray`](RepairRule::ScalarToArray): a lone string where the
/// schema says array of strings is bound as a one-element array). Each
/// opt-in rule ([`JsonText`](RepairRule::JsonText),
/// [`NumberText`](RepairRule::NumberText),
/// [`BoolText`](RepairRule::BoolText),
/// [`NullAsAbsent`](RepairRule::NullAsAbsent)) is enabled by name, applies
/// only where the schema says so, and is kept only when the repaired call
/// then validates.
///
/// [`EmptyArguments`](RepairRule::EmptyArguments) is not part of a policy:
/// a [`Toolbox`](crate::Toolbox) always reads `null` arguments as `{}`.
///
/// ```
/// use canon::{Policy, RepairRule};
///
/// let policy: Policy = "number_text,bool_text".parse().unwrap();
/// assert!(policy.contains(RepairRule::ScalarToArray));
/// assert!(policy.contains(RepairRule::NumberText));
/// assert!(!policy.contains(RepairRule::JsonText));
/// assert_eq!(policy, Policy::default().with(RepairRule::NumberText).with(RepairRule::BoolText));
/// assert_eq!("all".parse::<Policy>().unwrap(), Policy::all());
/// assert!("comma_split".parse::<Policy>().is_err());
/// ```
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
pub struct Policy {
    bits: u8,
}

/// Not a rule: the tools were declared in a dialect that makes optional
/// properties required and nullable, so `null` there means "absent".
const DECLARED_NULLABLE: u8 = 128;

impl Policy {
    /// The core rule alone.
    pub const DEFAULT: Policy = Policy {
        bits: bit(RepairRule::ScalarToArray),
    };

    /// No rule at all: a call binds only if it is valid as sent.
    pub const STRICT: Policy = Policy { bits: 0 };

    /// The rules a policy can hold, in the order they are listed.
    pub const RULES: [RepairRule; 5] = [
        RepairRule::ScalarToArray,
        RepairRule::JsonText,
        RepairRule::NumberText,
        RepairRule::BoolText,
        RepairRule::NullAsAbsent,
    ];

    /// Every rule: the core rule and all opt-in rules.
    pub const fn all() -> Policy {
        let mut bits = 0;
        let mut i = 0;
        while i < Policy::RULES.len() {
            bits |= bit(Policy::RULES[i]);
            i += 1;
        }
        Policy { bits }
    }

    /// This policy with `rule` enabled (no effect for
    /// [`EmptyArguments`](RepairRule::EmptyArguments)).
    #[must_use]
    pub const fn with(self, rule: RepairRule) -> Policy {
        Policy {
            bits: self.bits | bit(rule),
        }
    }

    /// This policy with `rule` disabled.
    #[must_use]
    pub const fn without(self, rule: RepairRule) -> Policy {
        Policy {
            bits: self.bits & !bit(rule),
        }
    }

    /// Every rule enabled in either policy.
    #[must_use]
    pub const fn union(self, other: Policy) -> Policy {
        Policy {
            bits: self.bits | other.bits,
        }
    }

    /// True when `rule` is enabled.
    pub const fn contains(self, rule: RepairRule) -> bool {
        let b = bit(rule);
        b != 0 && self.bits & b == b
    }

    /// True when an opt-in rule (anything beyond the core rule) is enabled,
    /// or the policy binds calls made against a strict declaration.
    pub const fn has_opt_in(self) -> bool {
        self.bits & !bit(RepairRule::ScalarToArray) != 0
    }

    /// This policy for calls made against tools declared in `dialect`.
    ///
    /// A strict OpenAI declaration (`Dialect::OpenAi { strict: true }`,
    /// `Dialect::OpenAiResponses { strict: true }`) makes every optional
    /// property required and nullable, so a model following it sends `null`
    /// for a parameter it leaves at its default. Under the returned policy
    /// such a `null` binds as the property being absent (the default, or
    /// `None`), with no repair recorded: the declaration allowed it. Other
    /// dialects publish optional properties as optional, and change nothing.
    ///
    /// A [`Toolbox`](crate::Toolbox) does this by itself for the dialects it
    /// exports; use [`Toolbox::declared_in`](crate::Toolbox::declared_in)
    /// when you declare the tools to the model some other way.
    ///
    /// ```
    /// use canon::Policy;
    /// use canon::export::Dialect;
    /// use canon::toolbox::ToolSpec;
    /// use serde_json::json;
    ///
    /// #[derive(serde::Deserialize, schemars::JsonSchema)]
    /// struct Args {
    ///     #[serde(default)]
    ///     days: u32,
    /// }
    ///
    /// let spec = ToolSpec::of::<Args>("forecast", "Forecast the weather.");
    /// let call = json!({"days": null});
    /// assert!(spec.bind::<Args>(&call).is_err());
    /// let strict = Policy::DEFAULT.declared_in(Dialect::OpenAi { strict: true });
    /// let bound = spec.bind_with::<Args>(&call, strict).unwrap();
    /// assert_eq!(bound.args.days, 0);
    /// assert!(bound.repairs.is_empty());
    /// ```
    #[must_use]
    pub const fn declared_in(self, dialect: Dialect) -> Policy {
        match dialect {
            Dialect::OpenAi { strict: true } | Dialect::OpenAiResponses { strict: true } => {
                Policy {
                    bits: self.bits | DECLARED_NULLABLE,
                }
            }
            _ => self,
        }
    }

    /// True when `null` at an optional property binds as absent, because
    /// the declaration the model was shown made it nullable (see
    /// [`declared_in`](Self::declared_in)).
    pub const fn nulls_declared(self) -> bool {
        self.bits & DECLARED_NULLABLE != 0
    }

    /// The enabled rules, in the order of [`RULES`](Self::RULES).
    pub fn rules(self) -> impl Iterator<Item = RepairRule> {
        Policy::RULES.into_iter().filter(move |r| self.contains(*r))
    }
}

const fn bit(rule: RepairRule) -> u8 {
    match rule {
        RepairRule::ScalarToArray => 1,
        RepairRule::JsonText => 2,
        RepairRule::NumberText => 4,
        RepairRule::BoolText => 8,
        RepairRule::NullAsAbsent => 16,
        RepairRule::EmptyArguments => 0,
    }
}

impl Default for Policy {
    fn default() -> Self {
        Policy::DEFAULT
    }
}

impl fmt::Debug for Policy {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut set = f.debug_set();
        set.entries(self.rules());
        if self.nulls_declared() {
            set.entry(&format_args!("nulls_declared"));
        }
        set.finish()
    }
}

impl fmt::Display for Policy {
    /// `strict`, `default`, `all`, or the enabled rules' names joined by
    /// commas.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match *self {
            Policy::STRICT => return f.write_str("strict"),
            Policy::DEFAULT => return f.write_str("default"),
            p if p == Policy::all() => return f.write_str("all"),
            _ => {}
        }
        let names: Vec<&str> = self.rules().map(RepairRule::as_str).collect();
        f.write_str(&names.join(","))
    }
}

/// A policy text that names no known rule.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UnknownRule {
    /// The name that is not a rule.
    pub name: String,
}

impl fmt::Display for UnknownRule {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let names: Vec<&str> = Policy::RULES.iter().map(|r| r.as_str()).collect();
        write!(
            f,
            "`{}` is not a repair rule; use `default`, `all`, `strict`, or a comma-separated list of {}",
            self.name,
            names.join(", ")
        )
    }
}

impl std::error::Error for UnknownRule {}

impl FromStr for Policy {
    type Err = UnknownRule;

    /// `default`, `all`, `strict`, or a comma-separated list of rule names,
    /// each added to the default policy (`number_text,bool_text`). Every
    /// policy that holds the core rule reads back from its `Display` text.
    fn from_str(text: &str) -> Result<Policy, UnknownRule> {
        match text.trim() {
            "default" => return Ok(Policy::DEFAULT),
            "all" => return Ok(Policy::all()),
            "strict" => return Ok(Policy::STRICT),
            _ => {}
        }
        let mut policy = Policy::DEFAULT;
        for name in text.split(',').map(str::trim) {
            // `scalar_to_array` may be listed; it is in the default anyway.
            match RepairRule::from_name(name).filter(|r| bit(*r) != 0) {
                Some(rule) => policy = policy.with(rule),
                None => {
                    return Err(UnknownRule {
                        name: name.to_owned(),
                    })
                }
            }
        }
        Ok(policy)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_round_trip() {
        let some = Policy::DEFAULT
            .with(RepairRule::NumberText)
            .with(RepairRule::NullAsAbsent);
        for policy in [Policy::DEFAULT, Policy::all(), Policy::STRICT, some] {
            let text = policy.to_string();
            assert_eq!(text.parse::<Policy>().unwrap(), policy, "{text}");
        }
        assert_eq!(
            some.to_string(),
            "scalar_to_array,number_text,null_as_absent"
        );
        assert_eq!(Policy::all().to_string(), "all");
        assert_eq!(
            "empty_arguments".parse::<Policy>().unwrap_err().name,
            "empty_arguments"
        );
        assert!(!Policy::DEFAULT.has_opt_in());
        assert!(Policy::DEFAULT.with(RepairRule::NullAsAbsent).has_opt_in());
        assert!(!Policy::all().contains(RepairRule::EmptyArguments));
    }
}
