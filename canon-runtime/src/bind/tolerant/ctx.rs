//! The state of one pass through the plan ([`Ctx`]): the repairs made,
//! the depth entered, what is checked. Below everything else in the pass:
//! the adapter, the fields of an arguments struct and the diagnosis all
//! take it.

use std::cell::{Cell, RefCell};

use serde::de;

use crate::bind::rule::{string_at_string_array, Refusal, Verdict};
use crate::repair::{Repair, RepairRule, Repairs};
use crate::schema::constraint::Assert;
use crate::schema::plan::{Node, Plan};
use crate::schema::pointer::Path;

/// What to do with a string the rule refuses to wrap.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(crate) enum Mode {
    /// Fail at once: the caller diagnoses the call afterwards.
    Fast,
    /// Record it, leave the string in place and carry on, so that every
    /// violation can be listed.
    Collect,
}

/// State shared by one binding pass.
pub(crate) struct Ctx<'p> {
    pub(super) plan: &'p Plan,
    pub(super) repairs: RefCell<Repairs>,
    /// Repairs past `max_repairs`, counted and not kept: the call is refused.
    pub(super) more_repairs: Cell<usize>,
    pub(super) max_repairs: usize,
    /// `Some` in [`Mode::Collect`]: the strings refused, and where.
    pub(super) refused: Option<RefCell<Vec<Refusal>>>,
    /// The arrays and objects entered at guarded positions, and how many
    /// may be open at once.
    pub(super) depth: Cell<usize>,
    pub(super) max_depth: usize,
    /// Objects' keys are checked for repeats (JSON text: a `Value` cannot
    /// hold a key twice).
    pub(super) check_keys: bool,
    /// The pass failed on a key whose hash was seen before in its object:
    /// the text is to be looked at exactly.
    pub(super) repeated: Cell<bool>,
    /// The schema's assertions (bounds, lengths, patterns, counts, values,
    /// closed objects) are checked: on in [`Mode::Fast`], off where the
    /// call is known to be valid or every violation is being collected.
    pub(super) checks: bool,
}

impl<'p> Ctx<'p> {
    pub(crate) fn new(plan: &'p Plan, mode: Mode) -> Self {
        Ctx {
            plan,
            repairs: RefCell::new(Repairs::new()),
            more_repairs: Cell::new(0),
            max_repairs: usize::MAX,
            refused: match mode {
                Mode::Fast => None,
                Mode::Collect => Some(RefCell::new(Vec::new())),
            },
            depth: Cell::new(0),
            max_depth: usize::MAX,
            check_keys: false,
            repeated: Cell::new(false),
            checks: mode == Mode::Fast,
        }
    }

    /// Binds a call `jsonschema` has accepted: the schema's assertions are
    /// not checked again (the range of 32-bit floats, which is what binding
    /// itself means, still holds).
    pub(crate) fn trusting(mut self) -> Self {
        self.checks = false;
        self
    }

    /// The assertions at `node`, when they are checked.
    #[cfg_attr(not(debug_assertions), inline(always))]
    pub(super) fn assert<'n>(&self, node: &'n Node) -> Option<&'n Assert> {
        match &node.assert {
            Some(assert) if self.checks => Some(assert),
            _ => None,
        }
    }

    /// Refuses arrays and objects nested deeper than `max_depth` at guarded
    /// positions.
    pub(crate) fn with_max_depth(mut self, max_depth: usize) -> Self {
        self.max_depth = max_depth;
        self
    }

    /// Refuses a key given twice in an object at a guarded position (for
    /// JSON text).
    pub(crate) fn checking_keys(mut self) -> Self {
        self.check_keys = true;
        self
    }

    /// True when the pass failed on a key that may have been given twice.
    pub(crate) fn saw_repeated_key(&self) -> bool {
        self.repeated.get()
    }

    /// Enters an array or object, failing past the depth bound.
    #[cfg_attr(not(debug_assertions), inline(always))]
    pub(super) fn enter<E: de::Error>(&self) -> Result<(), E> {
        self.room()?;
        self.depth.set(self.depth.get() + 1);
        Ok(())
    }

    /// Fails when one more array or object would pass the depth bound.
    #[cfg_attr(not(debug_assertions), inline(always))]
    pub(super) fn room<E: de::Error>(&self) -> Result<(), E> {
        if self.depth.get() >= self.max_depth {
            return Err(E::custom("canon: nested deeper than the bound"));
        }
        Ok(())
    }

    #[cfg_attr(not(debug_assertions), inline(always))]
    pub(super) fn leave(&self) {
        self.depth.set(self.depth.get() - 1);
    }

    pub(crate) fn into_parts(self) -> (Repairs, Vec<Refusal>) {
        let refused = self.refused.map(RefCell::into_inner).unwrap_or_default();
        (self.repairs.into_inner(), refused)
    }

    /// The repairs made, and how many there were (past
    /// [`with_max_repairs`](Self::with_max_repairs) they are counted, not
    /// kept).
    #[cfg_attr(not(debug_assertions), inline(always))]
    pub(crate) fn into_repairs(self) -> (Repairs, usize) {
        let more = self.more_repairs.get();
        let repairs = self.repairs.into_inner();
        let n = repairs.len() + more;
        (repairs, n)
    }

    /// Keeps at most one repair more than `max_repairs` (enough to tell
    /// the call needs too many), counting the others.
    pub(crate) fn with_max_repairs(mut self, max_repairs: usize) -> Self {
        self.max_repairs = max_repairs;
        self
    }

    /// Applies the rule to a string found at a tolerant position: true when
    /// it is to be wrapped.
    pub(super) fn accept<E: de::Error>(&self, s: &str, path: &Path<'_>) -> Result<bool, E> {
        match string_at_string_array(s) {
            Verdict::Wrap => {
                let mut repairs = self.repairs.borrow_mut();
                if repairs.len() > self.max_repairs {
                    self.more_repairs.set(self.more_repairs.get() + 1);
                    return Ok(true);
                }
                repairs.push(Repair::new(path.pointer(), RepairRule::ScalarToArray));
                Ok(true)
            }
            refused => match &self.refused {
                None => Err(E::custom("canon: string refused at an array position")),
                Some(list) => {
                    let (at, index) = path.shared();
                    list.borrow_mut().push(Refusal {
                        at,
                        index,
                        verdict: refused,
                    });
                    Ok(false)
                }
            },
        }
    }
}
