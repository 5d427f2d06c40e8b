//! A reader of JSON text for the single binding pass: a serde
//! `Deserializer` that calls each visitor exactly as `serde_json`'s reader
//! of a `&str` does, for text that reader accepts, and that fails on
//! anything it does not read the same way.
//!
//! It exists for speed: the plan's walk costs instructions at every guarded
//! position, and a reader that scans short strings and keys in fewer steps
//! than `serde_json`'s pays for them. It is never the authority on what is
//! JSON: whenever it fails ([`Reader::failed`]), for any reason, the pass is
//! run again over `serde_json`'s own reader, so that a call binds, is
//! repaired or is refused exactly as it would be without it. What it reads
//! the same way is held to `serde_json` by a differential property test and
//! a fuzz target. Rare forms are left to that second pass on purpose:
//! numeric and `bool` map keys, `RawValue`, lone surrogates in byte strings.

use std::sync::OnceLock;

use serde::de::{self, DeserializeSeed, Deserializer, EnumAccess, MapAccess, SeqAccess, Visitor};

type Error = serde_json::Error;
type Result<T> = std::result::Result<T, Error>;

/// The name by which `serde_json` asks for a `RawValue`.
const RAW_VALUE: &str = "$serde_json::private::RawValue";

/// `serde_json`'s limit on nested arrays and objects (its
/// `remaining_depth`): text nested deeper is refused by it.
const DEPTH: u8 = 128;

/// True when `serde_json` reads numbers as this reader does: not when a
/// crate in the build enables its `arbitrary_precision` feature, under which
/// `deserialize_any` hands numbers over as maps.
pub(crate) fn usable() -> bool {
    static USABLE: OnceLock<bool> = OnceLock::new();
    *USABLE.get_or_init(|| {
        serde_json::from_str::<serde_json::Number>("1.10").is_ok_and(|n| n.to_string() == "1.1")
    })
}

/// JSON text being read. See the module documentation.
pub(crate) struct Reader<'de> {
    text: &'de str,
    pos: usize,
    /// Arrays and objects that may still be opened (`serde_json`'s count).
    depth: u8,
    /// An error was made here: the result, even a success, is not used.
    failed: bool,
    /// The unescaped text of the last string that held an escape.
    scratch: String,
}

/// A string read: borrowed from the text, or unescaped into the scratch.
enum Str<'de, 's> {
    Borrowed(&'de str),
    Copied(&'s str),
}

impl<'de> Reader<'de> {
    /// A reader of `text`.
    pub(crate) fn new(text: &'de str) -> Self {
        Reader {
            text,
            pos: 0,
            depth: DEPTH,
            failed: false,
            scratch: String::new(),
        }
    }

    /// True when the reader made an error anywhere, caught or not: its
    /// result is then to be read again by `serde_json`.
    pub(crate) fn failed(&self) -> bool {
        self.failed
    }

    /// Checks that only whitespace is left, as `serde_json`'s `end`.
    pub(crate) fn end(&mut self) -> Result<()> {
        match self.peek() {
            None => Ok(()),
            Some(_) => Err(self.fail()),
        }
    }

    /// Marks the reader failed and makes the error that says so; the error
    /// itself is never shown (the second pass makes its own).
    #[cold]
    #[inline(never)]
    fn fail(&mut self) -> Error {
        self.failed = true;
        de::Error::custom("canon: the text is read again")
    }

    #[cfg_attr(not(debug_assertions), inline(always))]
    fn bytes(&self) -> &'de [u8] {
        self.text.as_bytes()
    }

    /// Skips whitespace; the byte after it.
    #[cfg_attr(not(debug_assertions), inline(always))]
    fn peek(&mut self) -> Option<u8> {
        let bytes = self.bytes();
        while let Some(&b) = bytes.get(self.pos) {
            if !matches!(b, b' ' | b'\n' | b'\t' | b'\r') {
                return Some(b);
            }
            self.pos += 1;
        }
        None
    }

    /// The text from `start` to `end`, both just before or after an ASCII
    /// byte; an error otherwise (which the reader never makes).
    #[cfg_attr(not(debug_assertions), inline(always))]
    fn slice(&mut self, start: usize, end: usize) -> Result<&'de str> {
        match self.text.get(start..end) {
            Some(s) => Ok(s),
            None => Err(self.fail()),
        }
    }

    /// After the first letter of `null`, `true` or `false`: the rest.
    #[cfg_attr(not(debug_assertions), inline(always))]
    fn ident(&mut self, rest: &[u8]) -> Result<()> {
        let end = self.pos + rest.len();
        if self.bytes().get(self.pos..end) == Some(rest) {
            self.pos = end;
            Ok(())
        } else {
            Err(self.fail())
        }
    }

    /// After an opening quote: the string, to its closing quote. A string
    /// whose closing quote is in its first eight bytes (most keys, most
    /// values) is read here; any other out of line, so that each place a
    /// string is read stays small.
    #[cfg_attr(not(debug_assertions), inline(always))]
    fn string(&mut self) -> Result<Str<'de, '_>> {
        let start = self.pos;
        if let Some(Ok(word)) = self.bytes().get(start..start + 8).map(<[u8; 8]>::try_from) {
            let v = u64::from_le_bytes(word);
            let found = stops(v);
            if found != 0 {
                let bit = found.trailing_zeros();
                if (v >> (bit & !7)) as u8 == b'"' {
                    let stop = start + (bit / 8) as usize;
                    self.pos = stop + 1;
                    return self.slice(start, stop).map(Str::Borrowed);
                }
            }
        }
        self.long_string()
    }

    /// [`Reader::string`], for a string with an escape or past eight bytes.
    #[inline(never)]
    fn long_string(&mut self) -> Result<Str<'de, '_>> {
        let bytes = self.bytes();
        let mut start = self.pos;
        let mut copied = false;
        loop {
            let (stop, byte) = scan(bytes, self.pos);
            match byte {
                Some(b'"') => {
                    self.pos = stop + 1;
                    let s = self.slice(start, stop)?;
                    if !copied {
                        return Ok(Str::Borrowed(s));
                    }
                    self.scratch.push_str(s);
                    return Ok(Str::Copied(&self.scratch));
                }
                Some(b'\\') => {
                    let s = self.slice(start, stop)?;
                    if !copied {
                        self.scratch.clear();
                        copied = true;
                    }
                    self.scratch.push_str(s);
                    self.pos = stop + 1;
                    self.escape()?;
                    start = self.pos;
                }
                // A control character, or the end of the text.
                _ => return Err(self.fail()),
            }
        }
    }

    /// After a backslash: the escape, unescaped into the scratch. Lone
    /// surrogates are refused, as `serde_json` refuses them in strings.
    fn escape(&mut self) -> Result<()> {
        let Some(&b) = self.bytes().get(self.pos) else {
            return Err(self.fail());
        };
        self.pos += 1;
        let c = match b {
            b'"' => '"',
            b'\\' => '\\',
            b'/' => '/',
            b'b' => '\x08',
            b'f' => '\x0c',
            b'n' => '\n',
            b'r' => '\r',
            b't' => '\t',
            b'u' => {
                let n = u32::from(self.hex()?);
                let code = match n {
                    0xD800..=0xDBFF => {
                        if self.bytes().get(self.pos..self.pos + 2) != Some(b"\\u") {
                            return Err(self.fail());
                        }
                        self.pos += 2;
                        let low = u32::from(self.hex()?);
                        if !(0xDC00..=0xDFFF).contains(&low) {
                            return Err(self.fail());
                        }
                        0x1_0000 + ((n - 0xD800) << 10) + (low - 0xDC00)
                    }
                    0xDC00..=0xDFFF => return Err(self.fail()),
                    n => n,
                };
                match char::from_u32(code) {
                    Some(c) => c,
                    None => return Err(self.fail()),
                }
            }
            _ => return Err(self.fail()),
        };
        self.scratch.push(c);
        Ok(())
    }

    /// Four hex digits.
    fn hex(&mut self) -> Result<u16> {
        let mut n = 0u16;
        for _ in 0..4 {
            let digit = match self.bytes().get(self.pos) {
                Some(&b @ b'0'..=b'9') => b - b'0',
                Some(&b @ b'a'..=b'f') => b - b'a' + 10,
                Some(&b @ b'A'..=b'F') => b - b'A' + 10,
                _ => return Err(self.fail()),
            };
            n = (n << 4) | u16::from(digit);
            self.pos += 1;
        }
        Ok(n)
    }

    /// The number at the reader (its first byte a digit or `-`), visited
    /// as `serde_json` visits it: a `u64`, an `i64`, or (a fraction, an
    /// exponent, an integer past 64 bits, or `-0`) what `serde_json`'s own
    /// reader makes of the number's text, through `read`.
    #[cfg_attr(not(debug_assertions), inline(always))]
    fn number<V: Visitor<'de>>(&mut self, visitor: V, read: Read) -> Result<V::Value> {
        let bytes = self.bytes();
        let start = self.pos;
        let negative = bytes.get(start) == Some(&b'-');
        let digits = start + usize::from(negative);
        let mut i = digits;
        let mut n = 0u64;
        while let Some(&b @ b'0'..=b'9') = bytes.get(i) {
            match n
                .checked_mul(10)
                .and_then(|n| n.checked_add(u64::from(b - b'0')))
            {
                Some(next) => n = next,
                None => return self.number_text(start, visitor, read),
            }
            i += 1;
        }
        if i == digits || (i - digits > 1 && bytes[digits] == b'0') {
            return Err(self.fail());
        }
        if matches!(bytes.get(i), Some(b'.' | b'e' | b'E')) {
            return self.number_text(start, visitor, read);
        }
        self.pos = i;
        if !negative {
            return visitor.visit_u64(n);
        }
        // As `serde_json`: `-0` and integers below `i64::MIN` are doubles.
        let value = (n as i64).wrapping_neg();
        if value >= 0 {
            return self.number_text(start, visitor, read);
        }
        visitor.visit_i64(value)
    }

    /// The number from `start`, read by `serde_json` from its text alone.
    #[cold]
    #[inline(never)]
    fn number_text<V: Visitor<'de>>(
        &mut self,
        start: usize,
        visitor: V,
        read: Read,
    ) -> Result<V::Value> {
        let bytes = self.bytes();
        let mut end = start;
        while let Some(b'0'..=b'9' | b'-' | b'+' | b'.' | b'e' | b'E') = bytes.get(end) {
            end += 1;
        }
        self.pos = end;
        let text = self.slice(start, end)?;
        let mut de = serde_json::Deserializer::from_str(text);
        let value = match read {
            Read::Any => (&mut de).deserialize_any(visitor),
            Read::F32 => (&mut de).deserialize_f32(visitor),
            Read::I128 => (&mut de).deserialize_i128(visitor),
            Read::U128 => (&mut de).deserialize_u128(visitor),
        };
        match (value, de.end()) {
            (Ok(value), Ok(())) => Ok(value),
            _ => Err(self.fail()),
        }
    }

    /// A number wanted by the target: anything else is refused.
    #[cfg_attr(not(debug_assertions), inline(always))]
    fn wanted_number<V: Visitor<'de>>(&mut self, visitor: V, read: Read) -> Result<V::Value> {
        match self.peek() {
            Some(b'-' | b'0'..=b'9') => self.number(visitor, read),
            _ => Err(self.fail()),
        }
    }

    /// Enters an array or object, as `serde_json` counts them.
    #[cfg_attr(not(debug_assertions), inline(always))]
    fn enter(&mut self) -> Result<()> {
        if self.depth <= 1 {
            return Err(self.fail());
        }
        self.depth -= 1;
        self.pos += 1;
        Ok(())
    }

    /// An array, object or enum, at its opening bracket: `read` reads its
    /// content, and `bracket` closes it.
    #[cfg_attr(not(debug_assertions), inline(always))]
    fn nested<T>(&mut self, bracket: u8, read: impl FnOnce(&mut Self) -> Result<T>) -> Result<T> {
        self.enter()?;
        let value = read(self);
        self.depth += 1;
        self.close_after(&value, bracket)?;
        value
    }

    #[cfg_attr(not(debug_assertions), inline(always))]
    fn seq<V: Visitor<'de>>(&mut self, visitor: V) -> Result<V::Value> {
        self.nested(b']', |reader| {
            visitor.visit_seq(Seq {
                reader,
                first: true,
            })
        })
    }

    /// After an array's, object's or enum's content: its closing bracket.
    /// The value is handed back as it came, not taken out and wrapped
    /// again (copying a struct just written stalls). After an error inside
    /// it, serde_json would still try to close it: where its reader stands
    /// then is not followed here, so the reader fails.
    #[cfg_attr(not(debug_assertions), inline(always))]
    fn close_after<T>(&mut self, value: &Result<T>, bracket: u8) -> Result<()> {
        if value.is_ok() {
            self.close(bracket)
        } else {
            self.failed = true;
            Ok(())
        }
    }

    /// After an array's or object's last member: its closing bracket.
    #[cfg_attr(not(debug_assertions), inline(always))]
    fn close(&mut self, bracket: u8) -> Result<()> {
        if self.peek() == Some(bracket) {
            self.pos += 1;
            Ok(())
        } else {
            Err(self.fail())
        }
    }

    #[cfg_attr(not(debug_assertions), inline(always))]
    fn map<V: Visitor<'de>>(&mut self, visitor: V) -> Result<V::Value> {
        self.nested(b'}', |reader| {
            visitor.visit_map(Map {
                reader,
                first: true,
            })
        })
    }

    /// A string wanted by the target.
    #[cfg_attr(not(debug_assertions), inline(always))]
    fn str<V: Visitor<'de>>(&mut self, visitor: V) -> Result<V::Value> {
        match self.peek() {
            Some(b'"') => {
                self.pos += 1;
                match self.string()? {
                    Str::Borrowed(s) => visitor.visit_borrowed_str(s),
                    Str::Copied(s) => visitor.visit_str(s),
                }
            }
            _ => Err(self.fail()),
        }
    }

    /// Skips a value the target ignores, checking it is JSON. Nested
    /// deeper than `serde_json`'s depth, it fails (`serde_json` skips any
    /// depth): the second pass reads it.
    fn skip(&mut self, depth: u8) -> Result<()> {
        if depth == 0 {
            return Err(self.fail());
        }
        match self.peek() {
            Some(b'n') => {
                self.pos += 1;
                self.ident(b"ull")
            }
            Some(b't') => {
                self.pos += 1;
                self.ident(b"rue")
            }
            Some(b'f') => {
                self.pos += 1;
                self.ident(b"alse")
            }
            Some(b'-' | b'0'..=b'9') => self.skip_number(),
            Some(b'"') => {
                self.pos += 1;
                self.string().map(drop)
            }
            Some(b'[') => {
                self.pos += 1;
                if self.peek() == Some(b']') {
                    self.pos += 1;
                    return Ok(());
                }
                loop {
                    self.skip(depth - 1)?;
                    match self.peek() {
                        Some(b',') => self.pos += 1,
                        Some(b']') => {
                            self.pos += 1;
                            return Ok(());
                        }
                        _ => return Err(self.fail()),
                    }
                }
            }
            Some(b'{') => {
                self.pos += 1;
                if self.peek() == Some(b'}') {
                    self.pos += 1;
                    return Ok(());
                }
                loop {
                    if self.peek() != Some(b'"') {
                        return Err(self.fail());
                    }
                    self.pos += 1;
                    self.string()?;
                    if self.peek() != Some(b':') {
                        return Err(self.fail());
                    }
                    self.pos += 1;
                    self.skip(depth - 1)?;
                    match self.peek() {
                        Some(b',') => self.pos += 1,
                        Some(b'}') => {
                            self.pos += 1;
                            return Ok(());
                        }
                        _ => return Err(self.fail()),
                    }
                }
            }
            _ => Err(self.fail()),
        }
    }

    /// Skips a number, checking JSON's grammar for one.
    fn skip_number(&mut self) -> Result<()> {
        let bytes = self.bytes();
        let mut i = self.pos;
        let digits = |i: &mut usize| {
            let start = *i;
            while let Some(b'0'..=b'9') = bytes.get(*i) {
                *i += 1;
            }
            *i - start
        };
        if bytes.get(i) == Some(&b'-') {
            i += 1;
        }
        let first = bytes.get(i).copied();
        let n = digits(&mut i);
        if n == 0 || (n > 1 && first == Some(b'0')) {
            return Err(self.fail());
        }
        if bytes.get(i) == Some(&b'.') {
            i += 1;
            if digits(&mut i) == 0 {
                return Err(self.fail());
            }
        }
        if let Some(b'e' | b'E') = bytes.get(i) {
            i += 1;
            if let Some(b'+' | b'-') = bytes.get(i) {
                i += 1;
            }
            if digits(&mut i) == 0 {
                return Err(self.fail());
            }
        }
        self.pos = i;
        Ok(())
    }
}

/// How `serde_json` is asked to read a number's text.
#[derive(Clone, Copy)]
enum Read {
    Any,
    F32,
    I128,
    U128,
}

/// The first index at or after `i` of a byte that ends a run of plain
/// string bytes (a quote, a backslash or a control character), and that
/// byte (`None` at the end of the text). Eight bytes at a time, as
/// `serde_json` scans; the lowest match in a word is exact, and the byte is
/// taken from the word rather than loaded again.
#[cfg_attr(not(debug_assertions), inline(always))]
fn scan(bytes: &[u8], mut i: usize) -> (usize, Option<u8>) {
    while let Some(chunk) = bytes.get(i..i + 8) {
        let Ok(word) = <[u8; 8]>::try_from(chunk) else {
            break;
        };
        let v = u64::from_le_bytes(word);
        let found = stops(v);
        if found != 0 {
            let bit = found.trailing_zeros();
            return (i + (bit / 8) as usize, Some((v >> (bit & !7)) as u8));
        }
        i += 8;
    }
    while let Some(&b) = bytes.get(i) {
        if b == b'"' || b == b'\\' || b < 0x20 {
            return (i, Some(b));
        }
        i += 1;
    }
    (i, None)
}

/// The high bit of each byte of `v` (little-endian) that is a quote, a
/// backslash or a control character; exact for the lowest such byte,
/// which is all a reader looks at.
#[cfg_attr(not(debug_assertions), inline(always))]
fn stops(v: u64) -> u64 {
    const ONES: u64 = u64::MAX / 255;
    const HIGH: u64 = ONES << 7;
    let control = v.wrapping_sub(ONES * 0x20) & !v;
    let quote = v ^ (ONES * u64::from(b'"'));
    let quote = quote.wrapping_sub(ONES) & !quote;
    let backslash = v ^ (ONES * u64::from(b'\\'));
    let backslash = backslash.wrapping_sub(ONES) & !backslash;
    (control | quote | backslash) & HIGH
}

macro_rules! numbers {
    ($($method:ident => $read:expr;)*) => {$(
        #[cfg_attr(not(debug_assertions), inline(always))]
        fn $method<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value> {
            self.wanted_number(visitor, $read)
        }
    )*};
}

impl<'de> Deserializer<'de> for &mut Reader<'de> {
    type Error = Error;

    #[cfg_attr(not(debug_assertions), inline(always))]
    fn deserialize_any<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value> {
        match self.peek() {
            Some(b'"') => {
                self.pos += 1;
                match self.string()? {
                    Str::Borrowed(s) => visitor.visit_borrowed_str(s),
                    Str::Copied(s) => visitor.visit_str(s),
                }
            }
            Some(b'[') => self.seq(visitor),
            Some(b'{') => self.map(visitor),
            Some(b'-' | b'0'..=b'9') => self.number(visitor, Read::Any),
            Some(b'n') => {
                self.pos += 1;
                self.ident(b"ull")?;
                visitor.visit_unit()
            }
            Some(b't') => {
                self.pos += 1;
                self.ident(b"rue")?;
                visitor.visit_bool(true)
            }
            Some(b'f') => {
                self.pos += 1;
                self.ident(b"alse")?;
                visitor.visit_bool(false)
            }
            _ => Err(self.fail()),
        }
    }

    #[cfg_attr(not(debug_assertions), inline(always))]
    fn deserialize_bool<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value> {
        match self.peek() {
            Some(b't') => {
                self.pos += 1;
                self.ident(b"rue")?;
                visitor.visit_bool(true)
            }
            Some(b'f') => {
                self.pos += 1;
                self.ident(b"alse")?;
                visitor.visit_bool(false)
            }
            _ => Err(self.fail()),
        }
    }

    numbers! {
        deserialize_i8 => Read::Any;
        deserialize_i16 => Read::Any;
        deserialize_i32 => Read::Any;
        deserialize_i64 => Read::Any;
        deserialize_u8 => Read::Any;
        deserialize_u16 => Read::Any;
        deserialize_u32 => Read::Any;
        deserialize_u64 => Read::Any;
        deserialize_f64 => Read::Any;
        deserialize_f32 => Read::F32;
    }

    fn deserialize_i128<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value> {
        match self.peek() {
            Some(b'-' | b'0'..=b'9') => {
                let start = self.pos;
                self.number_text(start, visitor, Read::I128)
            }
            _ => Err(self.fail()),
        }
    }

    fn deserialize_u128<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value> {
        match self.peek() {
            Some(b'-' | b'0'..=b'9') => {
                let start = self.pos;
                self.number_text(start, visitor, Read::U128)
            }
            _ => Err(self.fail()),
        }
    }

    #[cfg_attr(not(debug_assertions), inline(always))]
    fn deserialize_char<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value> {
        self.str(visitor)
    }

    #[cfg_attr(not(debug_assertions), inline(always))]
    fn deserialize_str<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value> {
        self.str(visitor)
    }

    #[cfg_attr(not(debug_assertions), inline(always))]
    fn deserialize_string<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value> {
        self.str(visitor)
    }

    fn deserialize_bytes<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value> {
        match self.peek() {
            Some(b'"') => {
                self.pos += 1;
                match self.string()? {
                    Str::Borrowed(s) => visitor.visit_borrowed_bytes(s.as_bytes()),
                    Str::Copied(s) => visitor.visit_bytes(s.as_bytes()),
                }
            }
            Some(b'[') => self.seq(visitor),
            _ => Err(self.fail()),
        }
    }

    fn deserialize_byte_buf<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value> {
        self.deserialize_bytes(visitor)
    }

    #[cfg_attr(not(debug_assertions), inline(always))]
    fn deserialize_option<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value> {
        match self.peek() {
            Some(b'n') => {
                self.pos += 1;
                self.ident(b"ull")?;
                visitor.visit_none()
            }
            _ => visitor.visit_some(self),
        }
    }

    fn deserialize_unit<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value> {
        match self.peek() {
            Some(b'n') => {
                self.pos += 1;
                self.ident(b"ull")?;
                visitor.visit_unit()
            }
            _ => Err(self.fail()),
        }
    }

    fn deserialize_unit_struct<V: Visitor<'de>>(
        self,
        _: &'static str,
        visitor: V,
    ) -> Result<V::Value> {
        self.deserialize_unit(visitor)
    }

    #[cfg_attr(not(debug_assertions), inline(always))]
    fn deserialize_newtype_struct<V: Visitor<'de>>(
        self,
        name: &'static str,
        visitor: V,
    ) -> Result<V::Value> {
        if name == RAW_VALUE {
            return Err(self.fail());
        }
        visitor.visit_newtype_struct(self)
    }

    #[cfg_attr(not(debug_assertions), inline(always))]
    fn deserialize_seq<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value> {
        match self.peek() {
            Some(b'[') => self.seq(visitor),
            _ => Err(self.fail()),
        }
    }

    fn deserialize_tuple<V: Visitor<'de>>(self, _: usize, visitor: V) -> Result<V::Value> {
        self.deserialize_seq(visitor)
    }

    fn deserialize_tuple_struct<V: Visitor<'de>>(
        self,
        _: &'static str,
        _: usize,
        visitor: V,
    ) -> Result<V::Value> {
        self.deserialize_seq(visitor)
    }

    #[cfg_attr(not(debug_assertions), inline(always))]
    fn deserialize_map<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value> {
        match self.peek() {
            Some(b'{') => self.map(visitor),
            _ => Err(self.fail()),
        }
    }

    #[cfg_attr(not(debug_assertions), inline(always))]
    fn deserialize_struct<V: Visitor<'de>>(
        self,
        _: &'static str,
        _: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value> {
        match self.peek() {
            Some(b'{') => self.map(visitor),
            // A struct sent as an array of its fields' values (which serde
            // reads, and no published schema of an object accepts) is left
            // to serde_json: one reading of each struct type fewer to
            // compile.
            _ => Err(self.fail()),
        }
    }

    fn deserialize_enum<V: Visitor<'de>>(
        self,
        _: &'static str,
        _: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value> {
        match self.peek() {
            Some(b'{') => self.nested(b'}', |reader| visitor.visit_enum(Variant { reader })),
            Some(b'"') => visitor.visit_enum(UnitVariant { reader: self }),
            _ => Err(self.fail()),
        }
    }

    #[cfg_attr(not(debug_assertions), inline(always))]
    fn deserialize_identifier<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value> {
        self.str(visitor)
    }

    fn deserialize_ignored_any<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value> {
        self.skip(DEPTH)?;
        visitor.visit_unit()
    }
}

/// An array's items.
struct Seq<'a, 'de> {
    reader: &'a mut Reader<'de>,
    first: bool,
}

impl<'de> SeqAccess<'de> for Seq<'_, 'de> {
    type Error = Error;

    #[cfg_attr(not(debug_assertions), inline(always))]
    fn next_element_seed<T: DeserializeSeed<'de>>(&mut self, seed: T) -> Result<Option<T::Value>> {
        let reader = &mut *self.reader;
        match reader.peek() {
            Some(b']') => return Ok(None),
            Some(_) if self.first => self.first = false,
            Some(b',') => {
                reader.pos += 1;
                match reader.peek() {
                    Some(b']') | None => return Err(reader.fail()),
                    Some(_) => {}
                }
            }
            _ => return Err(reader.fail()),
        }
        seed.deserialize(&mut *self.reader).map(Some)
    }
}

/// An object's members.
struct Map<'a, 'de> {
    reader: &'a mut Reader<'de>,
    first: bool,
}

impl<'de> MapAccess<'de> for Map<'_, 'de> {
    type Error = Error;

    #[cfg_attr(not(debug_assertions), inline(always))]
    fn next_key_seed<K: DeserializeSeed<'de>>(&mut self, seed: K) -> Result<Option<K::Value>> {
        let reader = &mut *self.reader;
        match reader.peek() {
            Some(b'}') => return Ok(None),
            Some(b'"') if self.first => self.first = false,
            Some(b',') if !self.first => {
                reader.pos += 1;
                if reader.peek() != Some(b'"') {
                    return Err(reader.fail());
                }
            }
            _ => return Err(reader.fail()),
        }
        seed.deserialize(Key {
            reader: &mut *self.reader,
        })
        .map(Some)
    }

    #[cfg_attr(not(debug_assertions), inline(always))]
    fn next_value_seed<V: DeserializeSeed<'de>>(&mut self, seed: V) -> Result<V::Value> {
        let reader = &mut *self.reader;
        if reader.peek() != Some(b':') {
            return Err(reader.fail());
        }
        reader.pos += 1;
        seed.deserialize(&mut *self.reader)
    }
}

/// An object's key, at its opening quote.
struct Key<'a, 'de> {
    reader: &'a mut Reader<'de>,
}

macro_rules! refused_keys {
    ($($method:ident)*) => {$(
        fn $method<V: Visitor<'de>>(self, _: V) -> Result<V::Value> {
            Err(self.reader.fail())
        }
    )*};
}

impl<'de> Deserializer<'de> for Key<'_, 'de> {
    type Error = Error;

    #[cfg_attr(not(debug_assertions), inline(always))]
    fn deserialize_any<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value> {
        self.reader.str(visitor)
    }

    // Keys read as numbers or booleans: left to `serde_json`.
    refused_keys! {
        deserialize_bool deserialize_i8 deserialize_i16 deserialize_i32 deserialize_i64
        deserialize_i128 deserialize_u8 deserialize_u16 deserialize_u32 deserialize_u64
        deserialize_u128 deserialize_f32 deserialize_f64
    }

    fn deserialize_option<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value> {
        visitor.visit_some(self)
    }

    fn deserialize_newtype_struct<V: Visitor<'de>>(
        self,
        name: &'static str,
        visitor: V,
    ) -> Result<V::Value> {
        if name == RAW_VALUE {
            return Err(self.reader.fail());
        }
        visitor.visit_newtype_struct(self)
    }

    fn deserialize_enum<V: Visitor<'de>>(
        self,
        name: &'static str,
        variants: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value> {
        self.reader.deserialize_enum(name, variants, visitor)
    }

    fn deserialize_bytes<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value> {
        self.reader.deserialize_bytes(visitor)
    }

    fn deserialize_byte_buf<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value> {
        self.reader.deserialize_bytes(visitor)
    }

    serde::forward_to_deserialize_any! {
        char str string unit unit_struct seq tuple tuple_struct map struct
        identifier ignored_any
    }
}

/// An enum sent as a one-member object, inside its braces.
struct Variant<'a, 'de> {
    reader: &'a mut Reader<'de>,
}

impl<'de> EnumAccess<'de> for Variant<'_, 'de> {
    type Error = Error;
    type Variant = Self;

    fn variant_seed<V: DeserializeSeed<'de>>(self, seed: V) -> Result<(V::Value, Self)> {
        if self.reader.peek() != Some(b'"') {
            return Err(self.reader.fail());
        }
        let value = seed.deserialize(Key {
            reader: &mut *self.reader,
        })?;
        if self.reader.peek() != Some(b':') {
            return Err(self.reader.fail());
        }
        self.reader.pos += 1;
        Ok((value, self))
    }
}

impl<'de> de::VariantAccess<'de> for Variant<'_, 'de> {
    type Error = Error;

    fn unit_variant(self) -> Result<()> {
        de::Deserialize::deserialize(self.reader)
    }

    fn newtype_variant_seed<T: DeserializeSeed<'de>>(self, seed: T) -> Result<T::Value> {
        seed.deserialize(self.reader)
    }

    fn tuple_variant<V: Visitor<'de>>(self, _: usize, visitor: V) -> Result<V::Value> {
        self.reader.deserialize_seq(visitor)
    }

    fn struct_variant<V: Visitor<'de>>(
        self,
        fields: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value> {
        self.reader.deserialize_struct("", fields, visitor)
    }
}

/// An enum sent as its variant's name.
struct UnitVariant<'a, 'de> {
    reader: &'a mut Reader<'de>,
}

impl<'de> EnumAccess<'de> for UnitVariant<'_, 'de> {
    type Error = Error;
    type Variant = Self;

    fn variant_seed<V: DeserializeSeed<'de>>(self, seed: V) -> Result<(V::Value, Self)> {
        let value = seed.deserialize(&mut *self.reader)?;
        Ok((value, self))
    }
}

impl<'de> de::VariantAccess<'de> for UnitVariant<'_, 'de> {
    type Error = Error;

    fn unit_variant(self) -> Result<()> {
        Ok(())
    }

    fn newtype_variant_seed<T: DeserializeSeed<'de>>(self, _: T) -> Result<T::Value> {
        Err(self.reader.fail())
    }

    fn tuple_variant<V: Visitor<'de>>(self, _: usize, _: V) -> Result<V::Value> {
        Err(self.reader.fail())
    }

    fn struct_variant<V: Visitor<'de>>(self, _: &'static [&'static str], _: V) -> Result<V::Value> {
        Err(self.reader.fail())
    }
}

#[cfg(test)]
mod tests;
