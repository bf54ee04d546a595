//! The framed file: one container for tengu's self-describing binary files (replay shards,
//! opening books). A [`Format`] names the kind of file (its magic bytes, the version this
//! build writes and reads, what its payload is); the frame is the same for every kind.
//!
//! Layout (integers little-endian):
//! ```text
//! magic                  8 bytes (Format::magic)
//! u32                    format version (Format::version)
//! u32                    header length H
//! H bytes                header (bincode, DefaultOptions)
//! u64                    payload length L
//! L bytes                payload (bincode, DefaultOptions)
//! u32                    CRC-32 of every byte before it
//! ```
//! Readers check the whole frame (magic, version, lengths, checksum, no trailing bytes)
//! before decoding anything; the header can then be decoded without the payload.

use bincode::Options;
use serde::de::DeserializeOwned;
use serde::Serialize;

/// A kind of framed file.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Format {
    /// What the file is, for messages (`shard`, `book`): "not a tengu shard".
    pub kind: &'static str,
    pub magic: &'static [u8; 8],
    /// The version this build writes and the only one it reads.
    pub version: u32,
    /// What the payload holds, for messages (`rows`, `nodes`).
    pub payload: &'static str,
}

/// Why bytes are not a valid frame of a [`Format`] (the caller adds which file).
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum FrameError {
    #[error("not a tengu {kind} (bad magic bytes)")]
    BadMagic { kind: &'static str },
    #[error("{kind} format version {found}, this build reads version {expected}")]
    Version {
        kind: &'static str,
        found: u32,
        expected: u32,
    },
    #[error("truncated: {problem}")]
    Truncated { problem: String },
    #[error("corrupt: checksum {found:08x} does not match the stored {stored:08x}")]
    Checksum { found: u32, stored: u32 },
    #[error("corrupt: {bytes} bytes after the checksum")]
    Trailing { bytes: usize },
    /// The frame is sound but its header or payload does not decode (`part`: `header`, or
    /// the format's payload name).
    #[error("corrupt: {part}: {problem}")]
    Decode { part: &'static str, problem: String },
}

/// The bincode options of headers and payloads; `limit` bounds what decoding allocates.
fn codec(limit: u64) -> impl Options {
    bincode::DefaultOptions::new().with_limit(limit)
}

impl Format {
    /// The file's bytes: frame, header and payload.
    pub fn encode<H: Serialize, P: Serialize + ?Sized>(&self, header: &H, payload: &P) -> Vec<u8> {
        let head = codec(u64::MAX)
            .serialize(header)
            .expect("header serialises");
        let body = codec(u64::MAX)
            .serialize(payload)
            .expect("payload serialises");
        let mut out = Vec::with_capacity(28 + head.len() + body.len());
        out.extend_from_slice(self.magic);
        out.extend_from_slice(&self.version.to_le_bytes());
        out.extend_from_slice(&(head.len() as u32).to_le_bytes());
        out.extend_from_slice(&head);
        out.extend_from_slice(&(body.len() as u64).to_le_bytes());
        out.extend_from_slice(&body);
        let crc = crc32fast::hash(&out);
        out.extend_from_slice(&crc.to_le_bytes());
        out
    }

    /// Checks the frame of `bytes` (magic, version, lengths, checksum, nothing after it) and
    /// returns its two parts, not yet decoded.
    pub fn open<'a>(&self, bytes: &'a [u8]) -> Result<Frame<'a>, FrameError> {
        if bytes.len() < 8 || &bytes[..8] != self.magic {
            if bytes.len() < 8 && self.magic.starts_with(bytes) {
                return Err(FrameError::Truncated {
                    problem: "shorter than the magic bytes".into(),
                });
            }
            return Err(FrameError::BadMagic { kind: self.kind });
        }
        let mut c = Cursor { bytes, at: 8 };
        let version = c.u32("the format version")?;
        if version != self.version {
            return Err(FrameError::Version {
                kind: self.kind,
                found: version,
                expected: self.version,
            });
        }
        let head_len = c.u32("the header length")?;
        let header = c.take(head_len as u64, "the header")?;
        let payload_len = c.u64("the payload length")?;
        let payload = c.take(payload_len, self.payload)?;
        let body_end = c.at;
        let stored = c.u32("the checksum")?;
        if c.at != bytes.len() {
            return Err(FrameError::Trailing {
                bytes: bytes.len() - c.at,
            });
        }
        let found = crc32fast::hash(&bytes[..body_end]);
        if found != stored {
            return Err(FrameError::Checksum { found, stored });
        }
        Ok(Frame {
            format: *self,
            header,
            payload,
        })
    }
}

/// The checked parts of a framed file.
#[derive(Clone, Copy, Debug)]
pub struct Frame<'a> {
    format: Format,
    pub header: &'a [u8],
    pub payload: &'a [u8],
}

impl Frame<'_> {
    /// Decodes the header.
    pub fn header<H: DeserializeOwned>(&self) -> Result<H, FrameError> {
        decode(self.header, "header")
    }

    /// Decodes the payload.
    pub fn payload<P: DeserializeOwned>(&self) -> Result<P, FrameError> {
        decode(self.payload, self.format.payload)
    }
}

fn decode<T: DeserializeOwned>(bytes: &[u8], part: &'static str) -> Result<T, FrameError> {
    codec(bytes.len() as u64)
        .deserialize(bytes)
        .map_err(|e| FrameError::Decode {
            part,
            problem: e.to_string(),
        })
}

struct Cursor<'a> {
    bytes: &'a [u8],
    at: usize,
}

impl<'a> Cursor<'a> {
    fn take(&mut self, n: u64, what: &str) -> Result<&'a [u8], FrameError> {
        let left = (self.bytes.len() - self.at) as u64;
        if n > left {
            return Err(FrameError::Truncated {
                problem: format!(
                    "{what} needs {n} bytes at offset {}, the file has {left} left",
                    self.at
                ),
            });
        }
        let s = &self.bytes[self.at..self.at + n as usize];
        self.at += n as usize;
        Ok(s)
    }

    fn u32(&mut self, what: &str) -> Result<u32, FrameError> {
        Ok(u32::from_le_bytes(self.take(4, what)?.try_into().unwrap()))
    }

    fn u64(&mut self, what: &str) -> Result<u64, FrameError> {
        Ok(u64::from_le_bytes(self.take(8, what)?.try_into().unwrap()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const TEST: Format = Format {
        kind: "test file",
        magic: b"TENGUTST",
        version: 3,
        payload: "numbers",
    };

    fn sample() -> Vec<u8> {
        TEST.encode(&("head".to_string(), 7u32), &vec![1u64, 2, 3])
    }

    #[test]
    fn the_frame_is_the_documented_layout_and_round_trips() {
        let bytes = sample();
        assert_eq!(&bytes[..8], b"TENGUTST");
        assert_eq!(bytes[8..12], 3u32.to_le_bytes());
        let head_len = u32::from_le_bytes(bytes[12..16].try_into().unwrap()) as usize;
        let payload_len =
            u64::from_le_bytes(bytes[16 + head_len..24 + head_len].try_into().unwrap()) as usize;
        assert_eq!(bytes.len(), 16 + head_len + 8 + payload_len + 4);
        let crc = crc32fast::hash(&bytes[..bytes.len() - 4]);
        assert_eq!(bytes[bytes.len() - 4..], crc.to_le_bytes());
        let frame = TEST.open(&bytes).unwrap();
        assert_eq!(
            frame.header::<(String, u32)>().unwrap(),
            ("head".to_string(), 7)
        );
        assert_eq!(frame.payload::<Vec<u64>>().unwrap(), vec![1, 2, 3]);
    }

    #[test]
    fn each_fault_is_named() {
        let bytes = sample();
        let open = |b: &[u8]| TEST.open(b).unwrap_err();
        assert_eq!(
            open(b"TENGUSHD and more"),
            FrameError::BadMagic { kind: "test file" }
        );
        assert!(matches!(open(&bytes[..5]), FrameError::Truncated { .. }));
        for cut in [10, 14, 20, bytes.len() - 1] {
            assert!(
                matches!(open(&bytes[..cut]), FrameError::Truncated { .. }),
                "cut at {cut}"
            );
        }
        let mut v = bytes.clone();
        v[8] = 9;
        let e = open(&v);
        assert_eq!(
            e,
            FrameError::Version {
                kind: "test file",
                found: 9,
                expected: 3
            }
        );
        assert_eq!(
            e.to_string(),
            "test file format version 9, this build reads version 3"
        );
        let mut flipped = bytes.clone();
        flipped[20] ^= 4;
        assert!(matches!(open(&flipped), FrameError::Checksum { .. }));
        let mut long = bytes.clone();
        long.push(0);
        assert_eq!(open(&long), FrameError::Trailing { bytes: 1 });
        // A sound frame whose payload is not what the reader expects.
        let frame = TEST.open(&bytes).unwrap();
        let e = frame.payload::<Vec<String>>().unwrap_err();
        assert!(
            matches!(
                e,
                FrameError::Decode {
                    part: "numbers",
                    ..
                }
            ),
            "{e}"
        );
    }
}
