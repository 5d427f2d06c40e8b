//! The violations whose words do not depend on the schema: text that is
//! not JSON, members given twice, numbers out of range, unknown names (with
//! the closest known one), serde's reasons retold, a call too large to
//! count. The schema-dependent words (what a schema accepts) are built in
//! the diagnosis and end up in the same [`Violation`] fields.

use super::{JsonType, Received, Violation, ViolationKind};

/// The longest unknown name, in bytes, for which the closest declared name
/// is looked for.
pub(crate) const MAX_SUGGESTED_NAME_BYTES: usize = 128;

/// Said of a call too large to count every violation in.
pub(crate) fn uncounted() -> Violation {
    Violation::new(
        "",
        ViolationKind::Invalid,
        "arguments that match the schema",
        None,
        "the call is too large to count every violation in; fix those listed \
         and the items like them",
    )
}

/// The violations for members the JSON text gives twice, at `pointers`.
pub(crate) fn duplicates(pointers: Vec<String>) -> Vec<Violation> {
    pointers
        .into_iter()
        .map(|at| {
            let what = if at.matches('/').count() == 1 {
                "parameter"
            } else {
                "property"
            };
            Violation::new(
                at,
                ViolationKind::Duplicate,
                format!("the {what} once"),
                None,
                format!("this {what} is given more than once; send it once"),
            )
        })
        .collect()
}

/// The violation for JSON text that is not even JSON.
pub(crate) fn malformed(error: &serde_json::Error) -> Violation {
    let cause = strip_position(&error.to_string());
    Violation::new(
        "",
        ViolationKind::Malformed,
        "a JSON object",
        None,
        format!("the arguments are not valid JSON ({cause}); send one JSON object"),
    )
}

pub(crate) fn list_text_message(expected: &str) -> String {
    format!(
        "expected {expected}, got a string holding the text of a list; send the array itself, not a string"
    )
}

/// The violation for a number in the JSON text that is beyond what a JSON
/// number can carry here (`1e400`: serde_json's "number out of range"), at
/// `at`, with its text when known.
pub(crate) fn number_out_of_range(at: String, text: Option<&str>) -> Violation {
    let expected = format!("a number from {:e} to {:e}", f64::MIN, f64::MAX);
    let received = text.map(|t| Received {
        json_type: JsonType::Number,
        preview: super::preview(t),
    });
    let got = match &received {
        Some(r) => format!("got {}, which is out of range", r.phrase()),
        None => "got a number out of that range".to_owned(),
    };
    let message = format!("expected {expected}, {got}");
    Violation::new(at, ViolationKind::Constraint, expected, received, message)
}

/// The candidate most like `name`, if one is close enough to be what was
/// meant (Jaro-Winkler similarity of at least 0.75).
pub(crate) fn closest<'c>(
    name: &str,
    candidates: impl Iterator<Item = &'c str>,
) -> Option<&'c str> {
    candidates
        .map(|c| (strsim::jaro_winkler(name, c), c))
        .filter(|(score, _)| *score >= 0.75)
        .max_by(|a, b| a.0.total_cmp(&b.0))
        .map(|(_, c)| c)
}

/// `what` is the word for a member, singular and plural.
pub(crate) fn unknown_message(what: (&str, &str), name: &str, known: &[&str]) -> String {
    let (one, many) = what;
    // A long name is no near miss, and comparing it would cost its length.
    let near = if name.len() <= MAX_SUGGESTED_NAME_BYTES {
        closest(name, known.iter().copied())
    } else {
        None
    };
    match (near, known) {
        (Some(k), _) => format!("unknown {one}; did you mean `{k}`?"),
        (None, []) if one == "parameter" => {
            "unknown parameter; this tool takes no parameters".into()
        }
        (None, []) => format!("unknown {one}; this object takes no {many}"),
        (None, known) => {
            let list: Vec<String> = known.iter().map(|k| format!("`{k}`")).collect();
            format!("unknown {one}; the {many} are {}", list.join(", "))
        }
    }
}

/// serde's reason, retold without quoting the value in full: `invalid
/// value: integer `5000000000`, expected u32` becomes `invalid value: got
/// the number 5000000000, expected u32` (the value as its 64-character
/// preview). A reason of another form is cut to 160 characters.
pub(crate) fn serde_message(raw: &str, received: Option<&Received>) -> String {
    let raw = strip_position(raw);
    if let (Some((cause, _)), Some((_, hint)), Some(received)) = (
        raw.split_once(": "),
        raw.rsplit_once(", expected "),
        received,
    ) {
        if cause.len() <= 32 && !cause.contains('`') {
            return format!("{cause}: got {}, expected {hint}", received.phrase());
        }
    }
    const MAX: usize = 160;
    if raw.chars().count() <= MAX {
        return raw;
    }
    let mut cut: String = raw.chars().take(MAX - 1).collect();
    cut.push('…');
    cut
}

/// Drops serde_json's ` at line 1 column 37`: noise to a model.
pub(crate) fn strip_position(message: &str) -> String {
    match message.rfind(" at line ") {
        Some(cut) if message[cut..].contains(" column ") => message[..cut].to_owned(),
        _ => message.to_owned(),
    }
}
