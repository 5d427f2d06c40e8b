//! RFC 6901 JSON Pointers, built only when a repair or a violation needs one.

use std::borrow::Cow;

/// Escapes one reference token: `~` becomes `~0`, `/` becomes `~1`.
pub(crate) fn escape(token: &str) -> std::borrow::Cow<'_, str> {
    if needs_escape(token) {
        token.replace('~', "~0").replace('/', "~1").into()
    } else {
        token.into()
    }
}

#[inline]
fn needs_escape(token: &str) -> bool {
    token.bytes().any(|b| b == b'~' || b == b'/')
}

/// Splits a JSON Pointer into its unescaped reference tokens.
pub(crate) fn tokens(pointer: &str) -> impl Iterator<Item = String> + '_ {
    pointer
        .split('/')
        .skip(1)
        .map(|t| t.replace("~1", "/").replace("~0", "~"))
}

/// True when the position `inner` is `outer` or lies under it.
pub(crate) fn is_within(inner: &str, outer: &str) -> bool {
    match inner.strip_prefix(outer) {
        Some(rest) => rest.is_empty() || rest.starts_with('/'),
        None => false,
    }
}

/// Appends one token to a pointer.
pub(crate) fn push(pointer: &str, token: &str) -> String {
    format!("{pointer}/{}", escape(token))
}

/// The position being bound, as a chain of borrowed segments on the stack.
/// Walking it costs nothing until a pointer is asked for.
#[derive(Clone, Copy)]
pub(crate) enum Path<'a> {
    Root,
    /// A position whose whole pointer is known at compile time (a
    /// parameter of a `#[tool]` function): a repair there allocates nothing.
    Static {
        pointer: &'static str,
    },
    /// A member whose `token` is already escaped.
    Token {
        parent: &'a Path<'a>,
        token: &'a str,
    },
    /// A member by its raw name.
    Key {
        parent: &'a Path<'a>,
        key: &'a str,
    },
    Index {
        parent: &'a Path<'a>,
        index: usize,
        /// The parent's pointer, built once for all the items of its array
        /// that need it (`None`: built each time).
        shared: Option<&'a Shared>,
    },
}

/// A pointer built at most once and shared, for the items of one array.
pub(crate) type Shared = std::cell::OnceCell<std::rc::Rc<str>>;

impl Path<'_> {
    /// The pointer of the array holding this item and the item's index, the
    /// array's pointer built once per array; or this position's pointer.
    pub(crate) fn shared(&self) -> (std::rc::Rc<str>, Option<usize>) {
        match self {
            Path::Index {
                parent,
                index,
                shared: Some(shared),
            } => (
                shared.get_or_init(|| parent.pointer().into()).clone(),
                Some(*index),
            ),
            _ => (self.pointer().into(), None),
        }
    }
}

impl Path<'_> {
    /// The RFC 6901 pointer of this position.
    pub(crate) fn pointer(&self) -> Cow<'static, str> {
        if let Path::Static { pointer } = self {
            return Cow::Borrowed(pointer);
        }
        let mut out = String::with_capacity(self.len());
        self.write(&mut out);
        Cow::Owned(out)
    }

    /// An upper bound of the pointer's length, so it is built in one
    /// allocation.
    fn len(&self) -> usize {
        match self {
            Path::Root => 0,
            Path::Static { pointer } => pointer.len(),
            Path::Token { parent, token } => parent.len() + 1 + token.len(),
            Path::Key { parent, key } => parent.len() + 1 + 2 * key.len(),
            Path::Index { parent, .. } => parent.len() + 21,
        }
    }

    fn write(&self, out: &mut String) {
        match self {
            Path::Root => {}
            Path::Static { pointer } => out.push_str(pointer),
            Path::Token { parent, token } => {
                parent.write(out);
                out.push('/');
                out.push_str(token);
            }
            Path::Key { parent, key } => {
                parent.write(out);
                out.push('/');
                if needs_escape(key) {
                    out.push_str(&escape(key));
                } else {
                    out.push_str(key);
                }
            }
            Path::Index { parent, index, .. } => {
                parent.write(out);
                out.push('/');
                push_index(out, *index);
            }
        }
    }
}

/// Appends `index` in decimal, without the formatting machinery (a repair
/// under an array builds one of these per call).
#[inline]
pub(crate) fn push_index(out: &mut String, mut index: usize) {
    // Most indices a model sends are one digit.
    if index < 10 {
        out.push(char::from(b'0' + index as u8));
        return;
    }
    let mut digits = [0u8; 20];
    let mut at = digits.len();
    loop {
        at -= 1;
        digits[at] = b'0' + (index % 10) as u8;
        index /= 10;
        if index == 0 {
            break;
        }
    }
    out.extend(digits[at..].iter().map(|&d| char::from(d)));
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn escapes_tilde_before_slash() {
        assert_eq!(escape("a/b~c"), "a~1b~0c");
        assert_eq!(escape("~1"), "~01");
        let root = Path::Root;
        let key = Path::Key {
            parent: &root,
            key: "a/b",
        };
        let index = Path::Index {
            parent: &key,
            index: 3,
            shared: None,
        };
        let tilde = Path::Key {
            parent: &index,
            key: "~",
        };
        assert_eq!(tilde.pointer(), "/a~1b/3/~0");
        for index in [0, 7, 10, 99, 100, 4_096, usize::MAX] {
            let item = Path::Index {
                parent: &root,
                index,
                shared: None,
            };
            assert_eq!(item.pointer(), format!("/{index}"));
        }
        assert_eq!(Path::Root.pointer(), "");
        let tokens: Vec<String> = tokens("/a~1b/3/~0/~01").collect();
        assert_eq!(tokens, ["a/b", "3", "~", "~1"]);
    }
}
