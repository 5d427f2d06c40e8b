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

/// The repairs of one binding, in the order of the input: a list, held
/// without allocating while it holds one repair (a near miss has one).
///
/// Read it as a slice of [`Repair`] (it derefs to one); compare it with a
/// `Vec`, an array or a slice of repairs; turn it into a `Vec` with
/// [`into_vec`](Self::into_vec).
///
/// ```
/// use canon::{Repair, RepairRule, Repairs};
///
/// let mut repairs = Repairs::new();
/// assert!(repairs.is_empty());
/// repairs.push(Repair::new("/tags", RepairRule::ScalarToArray));
/// assert_eq!(repairs.len(), 1);
/// assert_eq!(repairs[0].pointer, "/tags");
/// assert_eq!(repairs, vec![Repair::new("/tags", RepairRule::ScalarToArray)]);
/// ```
#[derive(Clone)]
pub struct Repairs(Held);

/// How [`Repairs`] holds its list: one repair in place, or a `Vec` (empty
/// or of two and more).
#[derive(Clone)]
enum Held {
    One(Repair),
    Many(Vec<Repair>),
}

impl Repairs {
    /// No repairs; allocates nothing.
    pub const fn new() -> Self {
        Repairs(Held::Many(Vec::new()))
    }

    /// The repairs, as a slice.
    pub fn as_slice(&self) -> &[Repair] {
        match &self.0 {
            Held::One(repair) => std::slice::from_ref(repair),
            Held::Many(list) => list,
        }
    }

    /// Appends `repair`. The first is held in place; a second moves both
    /// into one allocation.
    // Always inlined: called, it takes the repair through memory its
    // caller has just written field by field, and reads it back wider
    // than it was written, which the CPU cannot forward (a stall of about
    // as long as the rest of the repair).
    #[cfg_attr(not(debug_assertions), inline(always))]
    pub fn push(&mut self, repair: Repair) {
        if let Held::Many(list) = &self.0 {
            if list.capacity() == 0 {
                self.0 = Held::One(repair);
                return;
            }
        }
        self.push_more(repair);
    }

    /// [`push`](Self::push) onto a list that holds a repair or has room.
    fn push_more(&mut self, repair: Repair) {
        self.0 = match std::mem::replace(&mut self.0, Held::Many(Vec::new())) {
            Held::Many(mut list) if !list.is_empty() => {
                list.push(repair);
                Held::Many(list)
            }
            Held::Many(_) => Held::One(repair),
            Held::One(first) => Held::Many(vec![first, repair]),
        };
    }

    /// The repairs, as a `Vec` (which allocates for a single repair).
    pub fn into_vec(self) -> Vec<Repair> {
        match self.0 {
            Held::One(repair) => vec![repair],
            Held::Many(list) => list,
        }
    }
}

impl Default for Repairs {
    fn default() -> Self {
        Repairs::new()
    }
}

impl std::ops::Deref for Repairs {
    type Target = [Repair];

    fn deref(&self) -> &[Repair] {
        self.as_slice()
    }
}

impl AsRef<[Repair]> for Repairs {
    fn as_ref(&self) -> &[Repair] {
        self.as_slice()
    }
}

impl std::borrow::Borrow<[Repair]> for Repairs {
    fn borrow(&self) -> &[Repair] {
        self.as_slice()
    }
}

impl std::fmt::Debug for Repairs {
    /// As the list it is: `[Repair { .. }]`.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        self.as_slice().fmt(f)
    }
}

impl PartialEq for Repairs {
    fn eq(&self, other: &Repairs) -> bool {
        self.as_slice() == other.as_slice()
    }
}

impl Eq for Repairs {}

impl std::hash::Hash for Repairs {
    fn hash<H: std::hash::Hasher>(&self, state: &mut H) {
        self.as_slice().hash(state);
    }
}

impl PartialEq<[Repair]> for Repairs {
    fn eq(&self, other: &[Repair]) -> bool {
        self.as_slice() == other
    }
}

impl PartialEq<&[Repair]> for Repairs {
    fn eq(&self, other: &&[Repair]) -> bool {
        self.as_slice() == *other
    }
}

impl PartialEq<Vec<Repair>> for Repairs {
    fn eq(&self, other: &Vec<Repair>) -> bool {
        self.as_slice() == other.as_slice()
    }
}

impl<const N: usize> PartialEq<[Repair; N]> for Repairs {
    fn eq(&self, other: &[Repair; N]) -> bool {
        self.as_slice() == other.as_slice()
    }
}

impl PartialEq<Repairs> for Vec<Repair> {
    fn eq(&self, other: &Repairs) -> bool {
        self.as_slice() == other.as_slice()
    }
}

impl Serialize for Repairs {
    /// As a sequence of repairs.
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        self.as_slice().serialize(serializer)
    }
}

impl From<Vec<Repair>> for Repairs {
    fn from(list: Vec<Repair>) -> Self {
        Repairs(Held::Many(list))
    }
}

impl From<Repair> for Repairs {
    fn from(repair: Repair) -> Self {
        Repairs(Held::One(repair))
    }
}

impl From<Repairs> for Vec<Repair> {
    fn from(repairs: Repairs) -> Self {
        repairs.into_vec()
    }
}

impl FromIterator<Repair> for Repairs {
    fn from_iter<I: IntoIterator<Item = Repair>>(iter: I) -> Self {
        let mut repairs = Repairs::new();
        repairs.extend(iter);
        repairs
    }
}

impl Extend<Repair> for Repairs {
    fn extend<I: IntoIterator<Item = Repair>>(&mut self, iter: I) {
        for repair in iter {
            self.push(repair);
        }
    }
}

impl<'a> IntoIterator for &'a Repairs {
    type Item = &'a Repair;
    type IntoIter = std::slice::Iter<'a, Repair>;

    fn into_iter(self) -> Self::IntoIter {
        self.as_slice().iter()
    }
}

impl IntoIterator for Repairs {
    type Item = Repair;
    type IntoIter = RepairsIntoIter;

    fn into_iter(self) -> RepairsIntoIter {
        RepairsIntoIter(match self.0 {
            Held::One(repair) => Iter::One(Some(repair).into_iter()),
            Held::Many(list) => Iter::Many(list.into_iter()),
        })
    }
}

/// The repairs of a [`Repairs`](crate::Repairs), by value, in order.
#[derive(Debug, Clone)]
pub struct RepairsIntoIter(Iter);

#[derive(Debug, Clone)]
enum Iter {
    One(std::option::IntoIter<Repair>),
    Many(std::vec::IntoIter<Repair>),
}

impl Iterator for RepairsIntoIter {
    type Item = Repair;

    fn next(&mut self) -> Option<Repair> {
        match &mut self.0 {
            Iter::One(one) => one.next(),
            Iter::Many(many) => many.next(),
        }
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        match &self.0 {
            Iter::One(one) => one.size_hint(),
            Iter::Many(many) => many.size_hint(),
        }
    }
}

impl DoubleEndedIterator for RepairsIntoIter {
    fn next_back(&mut self) -> Option<Repair> {
        match &mut self.0 {
            Iter::One(one) => one.next_back(),
            Iter::Many(many) => many.next_back(),
        }
    }
}

impl ExactSizeIterator for RepairsIntoIter {}

impl std::iter::FusedIterator for RepairsIntoIter {}

/// Arguments bound for a tool, with the repairs that made them bindable.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub struct Bound<A> {
    /// The bound arguments.
    pub args: A,
    /// The repairs applied, in the order of the input; empty for a call that
    /// was valid as sent.
    pub repairs: Repairs,
}

impl<A> Bound<A> {
    /// Bound arguments with their repairs (a `Vec<Repair>` or [`Repairs`]).
    #[inline]
    pub fn new(args: A, repairs: impl Into<Repairs>) -> Self {
        Bound {
            args,
            repairs: repairs.into(),
        }
    }

    /// True when the call bound without any repair.
    pub fn is_exact(&self) -> bool {
        self.repairs.is_empty()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn at(pointer: &'static str) -> Repair {
        Repair::new(pointer, RepairRule::ScalarToArray)
    }

    #[test]
    fn repairs_hold_one_in_place_and_read_as_the_list_they_are() {
        // One repair beside a list's tag: no bigger than a repair.
        assert_eq!(
            std::mem::size_of::<Repairs>(),
            std::mem::size_of::<Repair>()
        );
        let mut repairs = Repairs::new();
        assert_eq!(repairs, [] as [Repair; 0]);
        repairs.push(at("/a"));
        assert!(matches!(repairs.0, Held::One(_)));
        repairs.push(at("/b"));
        repairs.push(at("/c"));
        let list = vec![at("/a"), at("/b"), at("/c")];
        assert_eq!(repairs, list);
        assert_eq!(format!("{repairs:?}"), format!("{list:?}"));
        assert_eq!(
            serde_json::to_value(&repairs).unwrap(),
            serde_json::to_value(&list).unwrap()
        );
        assert_eq!(repairs.clone().into_iter().rev().collect::<Vec<_>>(), {
            let mut reversed = list.clone();
            reversed.reverse();
            reversed
        });
        let one = Repairs::from(at("/a"));
        assert_eq!(one.clone().into_iter().len(), 1);
        assert_eq!(one.into_vec(), vec![at("/a")]);
        assert_eq!(repairs.into_vec(), list);
        assert_eq!(
            [at("/x")].into_iter().collect::<Repairs>(),
            Repairs::from(at("/x"))
        );
    }
}
