//! Compressed input: gzip and zstd, told apart by their magic bytes and
//! decoded as a stream.

use std::io::{self, BufRead, BufReader, Cursor, Read};

use flate2::bufread::MultiGzDecoder;
use ruzstd::decoding::errors::{FrameDecoderError, ReadFrameHeaderError};
use ruzstd::decoding::{BlockDecodingStrategy, FrameDecoder};

/// The buffer put around each decoder.
const BUFFER: usize = 1 << 16;

/// gzip's magic bytes (RFC 1952).
const GZIP: [u8; 2] = [0x1f, 0x8b];

/// zstd's magic number, little-endian (RFC 8878).
const ZSTD: [u8; 4] = [0x28, 0xb5, 0x2f, 0xfd];

/// The first bytes of a skippable zstd frame (`0x184D2A5?`, little-endian):
/// a stream may open with one (pzstd and seekable zstd do).
const ZSTD_SKIPPABLE: [u8; 3] = [0x2a, 0x4d, 0x18];

/// An empty zstd frame (`printf '' | zstd`). Decoding it first gives the
/// decoder a state, so that every frame of the input goes through
/// ruzstd's `reset`, the path that refuses windows over 100 MiB: a frame
/// asking for a larger window (a decompression bomb, or `--long=31`) is an
/// error, not an allocation.
const EMPTY_ZSTD_FRAME: [u8; 13] = [
    0x28, 0xb5, 0x2f, 0xfd, 0x24, 0x00, 0x01, 0x00, 0x00, 0x99, 0xe9, 0xd8, 0x51,
];

/// How an input is compressed, from its first bytes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Compression {
    /// Plain text.
    None,
    /// gzip (`1f 8b`), one member or several.
    Gzip,
    /// zstd (`28 b5 2f fd`, or a skippable frame), one frame or several.
    Zstd,
}

impl Compression {
    /// The compression whose magic bytes `prefix` opens with (up to the
    /// first four bytes of the input are looked at).
    ///
    /// ```
    /// use canon_replay::formats::Compression;
    ///
    /// assert_eq!(Compression::sniff(&[0x1f, 0x8b, 8, 0]), Compression::Gzip);
    /// assert_eq!(Compression::sniff(&[0x28, 0xb5, 0x2f, 0xfd]), Compression::Zstd);
    /// assert_eq!(Compression::sniff(b"{\"to"), Compression::None);
    /// ```
    pub fn sniff(prefix: &[u8]) -> Compression {
        if prefix.starts_with(&GZIP) {
            Compression::Gzip
        } else if prefix.starts_with(&ZSTD)
            || (prefix.len() >= 4 && prefix[0] & 0xf0 == 0x50 && prefix[1..4] == ZSTD_SKIPPABLE)
        {
            Compression::Zstd
        } else {
            Compression::None
        }
    }
}

/// `reader`, decompressed when its first bytes are gzip's (`1f 8b`) or
/// zstd's (`28 b5 2f fd`, or a skippable frame), and passed through
/// otherwise; buffered either way. Nothing is read ahead but a buffer's
/// worth: the input is decoded as it is read, never held whole.
///
/// Concatenated gzip members (`cat a.gz b.gz`, or what `pigz` writes) and
/// concatenated zstd frames (`cat a.zst b.zst`, `pzstd`) are read through;
/// zstd's skippable frames are skipped. A zstd frame whose window is over
/// 100 MiB, or one that needs a dictionary, is refused with an error when
/// it is reached. Corrupt or truncated data is an [`io::Error`] from the
/// reader, never a panic.
///
/// # Errors
/// An I/O error reading the first bytes.
///
/// ```
/// use std::io::{BufRead, Write};
///
/// use canon_replay::formats::open_input;
/// use flate2::{write::GzEncoder, Compression};
///
/// let mut gz = GzEncoder::new(Vec::new(), Compression::default());
/// gz.write_all(b"{\"tool\": \"t\"}\n").unwrap();
/// let gz = gz.finish().unwrap();
///
/// let lines: Vec<String> = open_input(&gz[..]).unwrap().lines().map(Result::unwrap).collect();
/// assert_eq!(lines, ["{\"tool\": \"t\"}"]);
/// ```
pub fn open_input<'a>(reader: impl Read + 'a) -> io::Result<Box<dyn BufRead + 'a>> {
    decompress(reader).map(|(_, input)| input)
}

/// [`open_input`], telling also how the input was compressed (a progress
/// bar over a compressed file's size cannot count decompressed bytes).
///
/// # Errors
/// As [`open_input`].
///
/// ```
/// use canon_replay::formats::{decompress, Compression};
///
/// let (compression, _input) = decompress(&b"{}\n"[..]).unwrap();
/// assert_eq!(compression, Compression::None);
/// ```
pub fn decompress<'a>(
    mut reader: impl Read + 'a,
) -> io::Result<(Compression, Box<dyn BufRead + 'a>)> {
    // Up to four bytes, however the reader hands them out (a pipe may give
    // one at a time).
    let mut prefix = [0u8; 4];
    let mut have = 0;
    while have < prefix.len() {
        match reader.read(&mut prefix[have..]) {
            Ok(0) => break,
            Ok(n) => have += n,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
            Err(e) => return Err(e),
        }
    }
    let compression = Compression::sniff(&prefix[..have]);
    let whole = Cursor::new(prefix[..have].to_vec()).chain(reader);
    let input: Box<dyn BufRead + 'a> = match compression {
        Compression::None => Box::new(BufReader::with_capacity(BUFFER, whole)),
        Compression::Gzip => Box::new(BufReader::with_capacity(
            BUFFER,
            MultiGzDecoder::new(BufReader::with_capacity(BUFFER, whole)),
        )),
        Compression::Zstd => Box::new(BufReader::with_capacity(
            BUFFER,
            ZstdFrames::new(BufReader::with_capacity(BUFFER, whole)),
        )),
    };
    Ok((compression, input))
}

/// Every zstd frame of a stream, one after another, decoded with ruzstd's
/// [`FrameDecoder`] (what its `StreamingDecoder` does for one frame, for
/// each frame in turn, skipping skippable frames).
struct ZstdFrames<R> {
    source: R,
    decoder: FrameDecoder,
    /// A frame's header has been read and its blocks are being decoded.
    in_frame: bool,
    /// An error ended the stream: no more is read.
    failed: bool,
}

impl<R: BufRead> ZstdFrames<R> {
    fn new(source: R) -> ZstdFrames<R> {
        let mut decoder = FrameDecoder::new();
        // Cannot fail on these bytes; if it somehow did, the first real
        // frame would be read through `init` all the same.
        let _ = decoder.init(&EMPTY_ZSTD_FRAME[..]);
        ZstdFrames {
            source,
            decoder,
            in_frame: false,
            failed: false,
        }
    }

    /// Reads the next frame's header, skipping skippable frames: false at
    /// the end of the input.
    fn next_frame(&mut self) -> io::Result<bool> {
        loop {
            if self.source.fill_buf()?.is_empty() {
                return Ok(false);
            }
            match self.decoder.reset(&mut self.source) {
                Ok(()) => return Ok(true),
                Err(FrameDecoderError::ReadFrameHeaderError(ReadFrameHeaderError::SkipFrame {
                    length,
                    ..
                })) => {
                    let skipped = io::copy(
                        &mut (&mut self.source).take(u64::from(length)),
                        &mut io::sink(),
                    )?;
                    if skipped < u64::from(length) {
                        return Err(invalid("truncated zstd skippable frame"));
                    }
                }
                Err(e) => return Err(invalid(format!("zstd: {e}"))),
            }
        }
    }
}

impl<R: BufRead> Read for ZstdFrames<R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        if buf.is_empty() || self.failed {
            return Ok(0);
        }
        let read = self.read_frames(buf);
        if read.is_err() {
            self.failed = true;
        }
        read
    }
}

impl<R: BufRead> ZstdFrames<R> {
    fn read_frames(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        loop {
            if !self.in_frame {
                if !self.next_frame()? {
                    return Ok(0);
                }
                self.in_frame = true;
            }
            while self.decoder.can_collect() < buf.len() && !self.decoder.is_finished() {
                let wanted = buf.len() - self.decoder.can_collect();
                self.decoder
                    .decode_blocks(&mut self.source, BlockDecodingStrategy::UptoBytes(wanted))
                    .map_err(|e| invalid(format!("zstd: {e}")))?;
            }
            let n = self.decoder.read(buf)?;
            if n > 0 {
                return Ok(n);
            }
            if self.decoder.is_finished() && self.decoder.can_collect() == 0 {
                self.in_frame = false;
            }
        }
    }
}

fn invalid(message: impl Into<String>) -> io::Error {
    io::Error::new(io::ErrorKind::InvalidData, message.into())
}
