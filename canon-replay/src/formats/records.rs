//! Records of an input: the lines of JSON Lines, or the documents of a
//! pretty-printed JSON file, read a bounded piece at a time.

use std::io::{self, BufRead};

/// The largest record [`Records`] reads by default: 64 MiB.
pub const MAX_RECORD: usize = 64 << 20;

/// One record of an input.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Record {
    /// The 1-based line the record starts on.
    pub line: u64,
    /// The bytes read for it, blank lines before it included (for a
    /// progress bar).
    pub bytes: u64,
    /// Its text, or why it cannot be read (not UTF-8, over the size
    /// limit, cut off by the end of the input).
    pub text: Result<String, String>,
}

/// How the records of an input are laid out, from its first line.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Layout {
    /// Not known before the first non-blank line.
    Unknown,
    /// JSON Lines: one record a line.
    Lines,
    /// JSON documents spanning lines (pretty-printed), one after another.
    Documents,
}

/// The records of an input, in order: each line of JSON Lines, or each
/// JSON document of a file of pretty-printed documents (an OTLP JSON
/// export saved with indentation, say), told apart by the first non-blank
/// line (a line that is `{`, or ends opening an object or array, starts a
/// document; while one is open, a line that starts with `{` starts the
/// next, the open one returned as cut off). Blank lines are skipped and a UTF-8 byte order mark is
/// dropped. No record is held past [`MAX_RECORD`] bytes (or the limit set
/// with [`max_record`](Self::max_record)): a longer one is read through
/// and returned as an error, and the records after it are read as usual.
///
/// ```
/// use canon_replay::formats::Records;
///
/// let pretty = "{\n  \"resourceSpans\": [\n  ]\n}\n{\n  \"resourceSpans\": []\n}\n";
/// let records: Vec<_> = Records::new(pretty.as_bytes()).map(Result::unwrap).collect();
/// assert_eq!(records.len(), 2);
/// assert_eq!((records[0].line, records[1].line), (1, 5));
///
/// let lines = "{\"a\": 1}\n\n{\"b\": 2}\n";
/// let texts: Vec<_> = Records::new(lines.as_bytes())
///     .map(|r| r.unwrap().text.unwrap())
///     .collect();
/// assert_eq!(texts, ["{\"a\": 1}", "{\"b\": 2}"]);
/// ```
#[derive(Debug)]
pub struct Records<R> {
    input: R,
    layout: Layout,
    /// Lines read so far.
    line: u64,
    max: usize,
    at_start: bool,
    done: bool,
}

impl<R: BufRead> Records<R> {
    /// The records of `input`.
    pub fn new(input: R) -> Records<R> {
        Records {
            input,
            layout: Layout::Unknown,
            line: 0,
            max: MAX_RECORD,
            at_start: true,
            done: false,
        }
    }

    /// Holds no record longer than `bytes`.
    #[must_use]
    pub fn max_record(mut self, bytes: usize) -> Records<R> {
        self.max = bytes;
        self
    }

    /// The input, read up to the end of the last record returned.
    pub fn into_inner(self) -> R {
        self.input
    }

    /// The input, as [`into_inner`](Self::into_inner), borrowed.
    pub fn get_ref(&self) -> &R {
        &self.input
    }

    /// The lines read so far, blank ones included (for a report's line
    /// count once the input is read).
    pub fn lines(&self) -> u64 {
        self.line
    }

    /// Reads one line (its newline dropped) into `buf`, keeping at most
    /// `room` bytes of it, and feeds all of it to `scan`: the bytes
    /// consumed, whether the line was cut short, and whether there was a
    /// line at all.
    fn read_line(
        &mut self,
        buf: &mut Vec<u8>,
        room: usize,
        scan: &mut Scan,
    ) -> io::Result<(u64, bool, bool)> {
        let mut consumed = 0u64;
        let mut overflow = false;
        let mut any = false;
        loop {
            let chunk = match self.input.fill_buf() {
                Ok(chunk) => chunk,
                Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
                Err(e) => return Err(e),
            };
            if chunk.is_empty() {
                break;
            }
            any = true;
            let (piece, used, end) = match chunk.iter().position(|&b| b == b'\n') {
                Some(i) => (&chunk[..i], i + 1, true),
                None => (chunk, chunk.len(), false),
            };
            let keep = piece.len().min(room.saturating_sub(buf.len()));
            buf.extend_from_slice(&piece[..keep]);
            scan.feed(piece);
            overflow |= keep < piece.len();
            self.input.consume(used);
            consumed += used as u64;
            if end {
                break;
            }
        }
        if any {
            self.line += 1;
        }
        if buf.last() == Some(&b'\r') {
            buf.pop();
        }
        if self.at_start && any {
            self.at_start = false;
            if buf.starts_with(b"\xef\xbb\xbf") {
                buf.drain(..3);
            }
        }
        Ok((consumed, overflow, any))
    }
}

impl<R: BufRead> Iterator for Records<R> {
    type Item = io::Result<Record>;

    fn next(&mut self) -> Option<io::Result<Record>> {
        if self.done {
            return None;
        }
        match self.next_record() {
            Ok(Some(record)) => Some(Ok(record)),
            Ok(None) => {
                self.done = true;
                None
            }
            Err(e) => {
                self.done = true;
                Some(Err(e))
            }
        }
    }
}

impl<R: BufRead> Records<R> {
    fn next_record(&mut self) -> io::Result<Option<Record>> {
        let mut buf = Vec::new();
        let mut bytes = 0u64;
        // Blank lines hold no bracket: one scan sees the whole record.
        let mut scan = Scan::default();
        // The first non-blank line.
        let (start, mut overflow) = loop {
            buf.clear();
            let (consumed, overflow, any) = self.read_line(&mut buf, self.max, &mut scan)?;
            bytes += consumed;
            if !any {
                return Ok(None);
            }
            if !buf.iter().all(u8::is_ascii_whitespace) {
                break (self.line, overflow);
            }
        };
        if self.layout == Layout::Unknown {
            self.layout = if opens_document(&buf) {
                Layout::Documents
            } else {
                Layout::Lines
            };
        }
        if self.layout == Layout::Documents {
            let mut line = Vec::new();
            while scan.open() {
                // A `{` at the start of a line opens the next document: this
                // one was cut off (a pretty-printer indents what is inside).
                if self.next_opens()? {
                    return Ok(Some(Record {
                        line: start,
                        bytes,
                        text: Err(format!(
                            "this JSON document is cut off: line {} opens the next before it closes",
                            self.line + 1
                        )),
                    }));
                }
                line.clear();
                let room = self.max.saturating_sub(buf.len() + 1);
                let (consumed, cut, any) = self.read_line(&mut line, room, &mut scan)?;
                bytes += consumed;
                if !any {
                    return Ok(Some(Record {
                        line: start,
                        bytes,
                        text: Err("the input ends inside this JSON document".into()),
                    }));
                }
                overflow |= cut || buf.len() + 1 + line.len() > self.max;
                if !overflow {
                    buf.push(b'\n');
                    buf.extend_from_slice(&line);
                }
            }
        }
        let text = if overflow {
            Err(format!("record over {} bytes", self.max))
        } else {
            String::from_utf8(buf).map_err(|_| "not UTF-8".to_owned())
        };
        Ok(Some(Record {
            line: start,
            bytes,
            text,
        }))
    }
}

impl<R: BufRead> Records<R> {
    /// Whether the next line starts with `{` (read without consuming it).
    fn next_opens(&mut self) -> io::Result<bool> {
        loop {
            match self.input.fill_buf() {
                Ok(chunk) => return Ok(chunk.first() == Some(&b'{')),
                Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
                Err(e) => return Err(e),
            }
        }
    }
}

/// Whether a first line opens a pretty-printed document rather than
/// holding a whole record: it is `{` or `[`, or ends opening an object or
/// array, and leaves it open.
fn opens_document(line: &[u8]) -> bool {
    let trimmed = line.trim_ascii();
    let mut scan = Scan::default();
    scan.feed(trimmed);
    scan.open() && matches!(trimmed.last(), Some(b'{' | b'['))
}

/// Where a JSON text stands: how deep in objects and arrays, and whether
/// inside a string.
#[derive(Debug, Default)]
struct Scan {
    depth: u64,
    in_string: bool,
    escaped: bool,
}

impl Scan {
    fn feed(&mut self, bytes: &[u8]) {
        for &b in bytes {
            if self.in_string {
                if self.escaped {
                    self.escaped = false;
                } else if b == b'\\' {
                    self.escaped = true;
                } else if b == b'"' {
                    self.in_string = false;
                }
                continue;
            }
            match b {
                b'"' => self.in_string = true,
                b'{' | b'[' => self.depth += 1,
                b'}' | b']' => self.depth = self.depth.saturating_sub(1),
                _ => {}
            }
        }
    }

    /// Inside an object or array still.
    fn open(&self) -> bool {
        self.depth > 0
    }
}
