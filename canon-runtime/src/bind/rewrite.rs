//! Call text with the cold path's changes written into it, every number
//! left as the model wrote it.
//!
//! The cold path finds a call's repairs on a `serde_json::Value`, which
//! holds every number that is not a 64-bit integer as a double. Binding
//! that `Value` would read an `f32` through a double and an integer past
//! 64 bits as the double nearest to it. So the changes are carried back
//! into the text instead ([`edits`]: what differs between the call as
//! read and as repaired), and the text is bound by the same single pass as
//! any call: each number is then read from its own digits.

use std::collections::BTreeMap;
use std::ops::Range;

use serde_json::Value;

use crate::bind::json::whole_double;
use crate::schema::pointer;

/// A change to the value at a pointer.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Edit {
    /// The value is replaced by this JSON text.
    Replace(String),
    /// The object member is left out.
    Remove,
}

/// Whole numbers written as doubles (`1.0`, `1e2`) and read as the
/// integers they are, as JSON Schema reads them.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Whole {
    /// Left as written.
    Kept,
    /// Written as integers, within 64 bits; `-0` is left as it is.
    Doubles,
    /// As [`Whole::Doubles`], and `-0` (an integer or a double) as `0`.
    AndNegativeZero,
}

/// What [`rewrite`] made of a call's text.
#[derive(Debug)]
pub(crate) struct Rewritten {
    /// The text, with the edits made and without white space.
    pub(crate) text: String,
    /// A whole double was written as an integer.
    pub(crate) changed: bool,
    /// A `-0` was left as it is.
    pub(crate) zeros: bool,
    /// Each integer written past 64 bits, which a `Value` holds only as
    /// a double: its pointer and its digits.
    pub(crate) wide: Vec<(String, String)>,
}

/// The edits that make `sent` (a call as read from its text) into
/// `bound` (the call as the cold path repaired it), by pointer: the first
/// place on each path where the two differ.
pub(crate) fn edits(sent: &Value, bound: &Value) -> BTreeMap<String, Edit> {
    let mut out = BTreeMap::new();
    diff(sent, bound, &mut String::new(), &mut out);
    out
}

fn diff(sent: &Value, bound: &Value, at: &mut String, out: &mut BTreeMap<String, Edit>) {
    match (sent, bound) {
        (Value::Object(sent), Value::Object(bound)) => {
            for (key, member) in sent {
                let len = at.len();
                at.push('/');
                at.push_str(&pointer::escape(key));
                match bound.get(key) {
                    None => {
                        out.insert(at.clone(), Edit::Remove);
                    }
                    Some(kept) => diff(member, kept, at, out),
                }
                at.truncate(len);
            }
        }
        (Value::Array(sent), Value::Array(bound)) if sent.len() == bound.len() => {
            for (index, (item, kept)) in sent.iter().zip(bound).enumerate() {
                let len = at.len();
                at.push('/');
                at.push_str(&index.to_string());
                diff(item, kept, at, out);
                at.truncate(len);
            }
        }
        _ if sent == bound => {}
        // JSON text sent as a string and parsed as it is: its own digits.
        (Value::String(text), parsed)
            if serde_json::from_str::<Value>(text).is_ok_and(|p| p == *parsed) =>
        {
            out.insert(at.clone(), Edit::Replace(text.clone()));
        }
        _ => {
            out.insert(at.clone(), Edit::Replace(bound.to_string()));
        }
    }
}

/// `text` (JSON, already read whole and found within the bounds) with
/// `edits` made, whole doubles written as `whole` says and every other
/// number as written; `None` if it is not JSON after all.
pub(crate) fn rewrite(
    text: &str,
    edits: &BTreeMap<String, Edit>,
    whole: Whole,
) -> Option<Rewritten> {
    let mut writer = Writer {
        bytes: text.as_bytes(),
        text,
        pos: 0,
        at: String::new(),
        edits,
        whole,
        out: String::with_capacity(text.len() + 16),
        changed: false,
        zeros: false,
        wide: Vec::new(),
    };
    writer.value(true)?;
    writer.space();
    if writer.pos != text.len() {
        return None;
    }
    Some(Rewritten {
        text: writer.out,
        changed: writer.changed,
        zeros: writer.zeros,
        wide: writer.wide,
    })
}

struct Writer<'t, 'e> {
    text: &'t str,
    bytes: &'t [u8],
    pos: usize,
    /// The pointer of the value at `pos`.
    at: String,
    edits: &'e BTreeMap<String, Edit>,
    whole: Whole,
    out: String,
    changed: bool,
    zeros: bool,
    wide: Vec<(String, String)>,
}

impl Writer<'_, '_> {
    fn space(&mut self) {
        while let Some(b' ' | b'\t' | b'\n' | b'\r') = self.bytes.get(self.pos) {
            self.pos += 1;
        }
    }

    fn eat(&mut self, byte: u8) -> Option<()> {
        self.space();
        (self.bytes.get(self.pos) == Some(&byte)).then(|| self.pos += 1)
    }

    fn emit(&mut self, keep: bool, text: &str) {
        if keep {
            self.out.push_str(text);
        }
    }

    /// The value at the reader, written to `out` when `keep`.
    fn value(&mut self, keep: bool) -> Option<()> {
        self.space();
        let replaced = match self.edits.get(self.at.as_str()) {
            Some(Edit::Replace(text)) if keep => Some(text),
            _ => None,
        };
        if let Some(text) = replaced {
            self.out.push_str(text);
            return self.value(false);
        }
        match *self.bytes.get(self.pos)? {
            b'{' => self.object(keep),
            b'[' => self.array(keep),
            b'"' => {
                let span = self.string()?;
                let raw = &self.text[span];
                self.emit(keep, raw);
                Some(())
            }
            b't' => self.word("true", keep),
            b'f' => self.word("false", keep),
            b'n' => self.word("null", keep),
            _ => self.number(keep),
        }
    }

    fn word(&mut self, word: &str, keep: bool) -> Option<()> {
        self.text[self.pos..].starts_with(word).then_some(())?;
        self.pos += word.len();
        self.emit(keep, word);
        Some(())
    }

    /// The span of the string at the reader, quotes included.
    fn string(&mut self) -> Option<Range<usize>> {
        let start = self.pos;
        self.pos += 1;
        loop {
            match *self.bytes.get(self.pos)? {
                b'"' => {
                    self.pos += 1;
                    return Some(start..self.pos);
                }
                b'\\' => self.pos += 2,
                _ => self.pos += 1,
            }
        }
    }

    fn object(&mut self, keep: bool) -> Option<()> {
        self.pos += 1;
        self.emit(keep, "{");
        let mut first = true;
        self.space();
        if self.eat(b'}').is_some() {
            self.emit(keep, "}");
            return Some(());
        }
        loop {
            self.space();
            let span = self.string()?;
            let raw = &self.text[span];
            let key: String = serde_json::from_str(raw).ok()?;
            self.eat(b':')?;
            let len = self.at.len();
            self.at.push('/');
            self.at.push_str(&pointer::escape(&key));
            let member = keep && self.edits.get(self.at.as_str()) != Some(&Edit::Remove);
            if member {
                if !first {
                    self.out.push(',');
                }
                first = false;
                self.out.push_str(raw);
                self.out.push(':');
            }
            self.value(member)?;
            self.at.truncate(len);
            if self.eat(b',').is_none() {
                self.eat(b'}')?;
                self.emit(keep, "}");
                return Some(());
            }
        }
    }

    fn array(&mut self, keep: bool) -> Option<()> {
        self.pos += 1;
        self.emit(keep, "[");
        if self.eat(b']').is_some() {
            self.emit(keep, "]");
            return Some(());
        }
        let mut index = 0usize;
        loop {
            if index > 0 {
                self.emit(keep, ",");
            }
            let len = self.at.len();
            self.at.push('/');
            self.at.push_str(&index.to_string());
            self.value(keep)?;
            self.at.truncate(len);
            index += 1;
            if self.eat(b',').is_none() {
                self.eat(b']')?;
                self.emit(keep, "]");
                return Some(());
            }
        }
    }

    fn number(&mut self, keep: bool) -> Option<()> {
        let start = self.pos;
        while let Some(b'0'..=b'9' | b'-' | b'+' | b'.' | b'e' | b'E') = self.bytes.get(self.pos) {
            self.pos += 1;
        }
        let literal = &self.text[start..self.pos];
        if literal.is_empty() {
            return None;
        }
        let double = literal.contains(['.', 'e', 'E']);
        let negative_zero = literal.starts_with('-') && literal.parse::<f64>().ok() == Some(0.0);
        if !double && !negative_zero {
            // An integer: as serde_json reads it, within 64 bits, else a
            // double that a `Value` cannot hold exactly.
            if literal.parse::<i64>().is_err() && literal.parse::<u64>().is_err() {
                self.wide.push((self.at.clone(), literal.to_owned()));
            }
            self.emit(keep, literal);
            return Some(());
        }
        if negative_zero {
            if self.whole == Whole::AndNegativeZero {
                self.changed = true;
                self.emit(keep, "0");
            } else {
                self.zeros = true;
                self.emit(keep, literal);
            }
            return Some(());
        }
        let integer = match self.whole {
            Whole::Kept => None,
            Whole::Doubles | Whole::AndNegativeZero => {
                literal.parse::<f64>().ok().and_then(whole_double)
            }
        };
        match integer {
            Some(integer) => {
                self.changed = true;
                self.emit(keep, &integer.to_string());
            }
            None => self.emit(keep, literal),
        }
        Some(())
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::{edits, rewrite, Edit, Whole};

    fn none() -> std::collections::BTreeMap<String, Edit> {
        Default::default()
    }

    #[test]
    fn numbers_stay_as_written_and_white_space_goes() {
        let text =
            r#" { "a" : [ 1.0 , -0 , 0.1 , -9223372036854775809 , 1e2 ] , "b\/" : "x\"y" } "#;
        let kept = rewrite(text, &none(), Whole::Kept).unwrap();
        assert_eq!(
            kept.text,
            r#"{"a":[1.0,-0,0.1,-9223372036854775809,1e2],"b\/":"x\"y"}"#
        );
        assert!(!kept.changed);
        assert!(kept.zeros);
        assert_eq!(
            kept.wide,
            [("/a/3".to_owned(), "-9223372036854775809".to_owned())]
        );
        let whole = rewrite(text, &none(), Whole::Doubles).unwrap();
        assert_eq!(
            whole.text,
            r#"{"a":[1,-0,0.1,-9223372036854775809,100],"b\/":"x\"y"}"#
        );
        assert!(whole.changed && whole.zeros);
        let all = rewrite(text, &none(), Whole::AndNegativeZero).unwrap();
        assert_eq!(
            all.text,
            r#"{"a":[1,0,0.1,-9223372036854775809,100],"b\/":"x\"y"}"#
        );
    }

    #[test]
    fn the_differences_of_a_repaired_call_are_written_into_its_text() {
        let text = r#"{"names": "a", "drop": null, "json": "[1.5, 2]", "n": 0.30000000000000004, "deep": {"x": "b", "y": 1e400}}"#;
        // `1e400` is not JSON serde_json reads; the writer only copies it.
        let sent = json!({"names": "a", "drop": null, "json": "[1.5, 2]", "n": 0.30000000000000004, "deep": {"x": "b"}});
        let bound = json!({"names": ["a"], "json": [1.5, 2], "n": 0.30000000000000004, "deep": {"x": ["b"]}});
        let edits = edits(&sent, &bound);
        assert_eq!(
            edits.into_iter().collect::<Vec<_>>(),
            [
                ("/deep/x".to_owned(), Edit::Replace(r#"["b"]"#.to_owned())),
                ("/drop".to_owned(), Edit::Remove),
                ("/json".to_owned(), Edit::Replace("[1.5, 2]".to_owned())),
                ("/names".to_owned(), Edit::Replace(r#"["a"]"#.to_owned())),
            ]
        );
        let edits = super::edits(&sent, &bound);
        let out = rewrite(text, &edits, Whole::Kept).unwrap();
        assert_eq!(
            out.text,
            r#"{"names":["a"],"json":[1.5, 2],"n":0.30000000000000004,"deep":{"x":["b"],"y":1e400}}"#
        );
    }

    #[test]
    fn members_left_out_leave_no_stray_comma() {
        let remove = |keys: &[&str]| {
            keys.iter()
                .map(|k| (format!("/{k}"), Edit::Remove))
                .collect::<std::collections::BTreeMap<_, _>>()
        };
        let text = r#"{"a": null, "b": 1, "c": null}"#;
        assert_eq!(
            rewrite(text, &remove(&["a"]), Whole::Kept).unwrap().text,
            r#"{"b":1,"c":null}"#
        );
        assert_eq!(
            rewrite(text, &remove(&["c"]), Whole::Kept).unwrap().text,
            r#"{"a":null,"b":1}"#
        );
        assert_eq!(
            rewrite(text, &remove(&["a", "c"]), Whole::Kept)
                .unwrap()
                .text,
            r#"{"b":1}"#
        );
        assert_eq!(
            rewrite(text, &remove(&["a", "b", "c"]), Whole::Kept)
                .unwrap()
                .text,
            "{}"
        );
    }

    #[test]
    fn text_that_is_not_json_is_none() {
        for text in ["", "{", r#"{"a" 1}"#, "[1,", "tru", "1 2", r#""open"#] {
            assert!(rewrite(text, &none(), Whole::Kept).is_none(), "{text}");
        }
    }
}
