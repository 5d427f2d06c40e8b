//! canon's JSON Lines read a line at a time, none held past a bound: a
//! longer line is read through to its newline in the reader's own buffer
//! and dropped, so that the lines after it are read as usual.

use std::io::{self, BufRead};

/// The UTF-8 byte order mark, dropped from the start of the first line.
const BOM: &[u8] = b"\xef\xbb\xbf";

/// What [`read_line`] found.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Next {
    /// The end of the input.
    End,
    /// A line: the bytes consumed for it (its newline and anything dropped
    /// included), and whether it was longer than the bound (then nothing
    /// of it is kept).
    Line { bytes: u64, over: bool },
}

/// Reads the next line of `input` onto the end of `buf`, its newline
/// included, keeping at most `max` bytes besides the newline. A longer
/// line leaves `buf` as it was: once `max + 1` bytes show it is too long,
/// the rest is consumed up to its newline without being copied anywhere.
/// When `first`, a byte order mark at the start of the line is dropped.
pub(crate) fn read_line(
    input: &mut impl BufRead,
    buf: &mut Vec<u8>,
    max: usize,
    first: bool,
) -> io::Result<Next> {
    let start = buf.len();
    let limit = u64::try_from(max).unwrap_or(u64::MAX).saturating_add(1);
    // As `input.take(limit).read_until(b'\n', buf)`, the newline found by
    // a SIMD search.
    let mut read = 0u64;
    while read < limit {
        let chunk = match input.fill_buf() {
            Ok(chunk) => chunk,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(e),
        };
        let room = usize::try_from(limit - read).map_or(chunk.len(), |room| room.min(chunk.len()));
        let chunk = &chunk[..room];
        let (used, end) = match memchr::memchr(b'\n', chunk) {
            Some(i) => (i + 1, true),
            None => (chunk.len(), chunk.is_empty()),
        };
        buf.extend_from_slice(&chunk[..used]);
        input.consume(used);
        read += used as u64;
        if end {
            break;
        }
    }
    if read == 0 {
        return Ok(Next::End);
    }
    if read == limit && buf.last() != Some(&b'\n') {
        buf.truncate(start);
        let bytes = read.saturating_add(skip_line(input)?);
        return Ok(Next::Line { bytes, over: true });
    }
    if first && buf[start..].starts_with(BOM) {
        buf.drain(start..start + BOM.len());
    }
    Ok(Next::Line {
        bytes: read,
        over: false,
    })
}

/// Consumes `input` up to and including its next newline (or to its end),
/// in the pieces its buffer holds: the bytes consumed.
fn skip_line(input: &mut impl BufRead) -> io::Result<u64> {
    let mut skipped = 0u64;
    loop {
        let chunk = match input.fill_buf() {
            Ok(chunk) => chunk,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(e),
        };
        if chunk.is_empty() {
            return Ok(skipped);
        }
        let (used, end) = match memchr::memchr(b'\n', chunk) {
            Some(i) => (i + 1, true),
            None => (chunk.len(), false),
        };
        input.consume(used);
        skipped = skipped.saturating_add(used as u64);
        if end {
            return Ok(skipped);
        }
    }
}

/// Why a line over `max` bytes is not replayed.
pub(crate) fn over(max: usize) -> String {
    if max >= 1 << 20 && max % (1 << 20) == 0 {
        format!("line over {} MiB, the most a line may hold", max >> 20)
    } else {
        format!("line over {max} bytes, the most a line may hold")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn lines(text: &[u8], max: usize) -> Vec<(Vec<u8>, Next)> {
        let mut input = io::BufReader::with_capacity(4, text);
        let mut found = Vec::new();
        let mut first = true;
        loop {
            let mut buf = Vec::new();
            let next = read_line(&mut input, &mut buf, max, first).unwrap();
            first = false;
            if next == Next::End {
                return found;
            }
            found.push((buf, next));
        }
    }

    #[test]
    fn a_line_over_the_bound_is_dropped_and_the_next_read() {
        let found = lines(b"\xef\xbb\xbfab\n0123456789\nxy\n12345\n123456", 5);
        let line =
            |text: &[u8], bytes: u64, over: bool| (text.to_vec(), Next::Line { bytes, over });
        assert_eq!(
            found,
            [
                line(b"ab\n", 6, false),
                line(b"", 11, true),
                line(b"xy\n", 3, false),
                line(b"12345\n", 6, false),
                line(b"", 6, true),
            ]
        );
    }

    #[test]
    fn a_bom_is_dropped_from_the_first_line_only() {
        let found = lines(b"\xef\xbb\xbfa\n\xef\xbb\xbfb", 64);
        assert_eq!(found[0].0, b"a\n");
        assert_eq!(found[1].0, b"\xef\xbb\xbfb");
    }

    #[test]
    fn the_limit_is_named() {
        assert_eq!(over(64 << 20), "line over 64 MiB, the most a line may hold");
        assert_eq!(over(100), "line over 100 bytes, the most a line may hold");
    }
}
