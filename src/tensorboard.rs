//! TensorBoard event files: scalars in the record format TensorBoard reads
//! (`events.out.tfevents.*`), written by hand so that no protobuf or TensorFlow crate is
//! needed.
//!
//! A file is a sequence of records, each `length: u64 LE`, `masked CRC-32C of the length:
//! u32 LE`, `data: length bytes`, `masked CRC-32C of the data: u32 LE`. Each record's data
//! is a serialized `Event` protocol buffer: `wall_time` (field 1, double, seconds since
//! 1970), `step` (field 2, int64), then either `file_version` (field 3, string; the first
//! record, "brain.Event:2") or `summary` (field 5) holding one `Summary.Value` (field 1)
//! with `tag` (field 1, string) and `simple_value` (field 2, float).

/// One scalar at one step.
#[derive(Clone, Debug, PartialEq)]
pub struct Scalar {
    /// The chart's name, e.g. `loss/value_heldout` (TensorBoard groups by the part before `/`).
    pub tag: String,
    /// The training step it belongs to (the chart's x axis).
    pub step: i64,
    /// Seconds since 1970 (TensorBoard's relative and wall-time axes).
    pub wall_time: f64,
    pub value: f32,
}

/// The bytes of a new event file: its version record followed by one record per scalar.
/// `wall_time`: the version record's time (seconds since 1970).
pub fn file_bytes(wall_time: f64, scalars: &[Scalar]) -> Vec<u8> {
    let mut out = Vec::new();
    let mut event = Vec::new();
    put_double(&mut event, 1, wall_time);
    put_varint_field(&mut event, 2, 0);
    put_bytes(&mut event, 3, b"brain.Event:2");
    put_record(&mut out, &event);
    append_scalars(&mut out, scalars);
    out
}

/// Appends one record per scalar to `out` (the tail of an event file).
pub fn append_scalars(out: &mut Vec<u8>, scalars: &[Scalar]) {
    for s in scalars {
        put_record(out, &scalar_event(s));
    }
}

/// The serialized `Event` of one scalar.
fn scalar_event(s: &Scalar) -> Vec<u8> {
    let mut value = Vec::new();
    put_bytes(&mut value, 1, s.tag.as_bytes());
    put_tag(&mut value, 2, WIRE_FIXED32);
    value.extend_from_slice(&s.value.to_le_bytes());
    let mut summary = Vec::new();
    put_bytes(&mut summary, 1, &value);
    let mut event = Vec::new();
    put_double(&mut event, 1, s.wall_time);
    // int64 is encoded as a plain varint; negative steps take ten bytes, as protobuf does.
    put_varint_field(&mut event, 2, s.step as u64);
    put_bytes(&mut event, 5, &summary);
    event
}

const WIRE_VARINT: u8 = 0;
const WIRE_FIXED64: u8 = 1;
const WIRE_BYTES: u8 = 2;
const WIRE_FIXED32: u8 = 5;

fn put_varint(out: &mut Vec<u8>, mut v: u64) {
    while v >= 0x80 {
        out.push((v as u8) | 0x80);
        v >>= 7;
    }
    out.push(v as u8);
}

fn put_tag(out: &mut Vec<u8>, field: u32, wire: u8) {
    put_varint(out, u64::from(field) << 3 | u64::from(wire));
}

fn put_varint_field(out: &mut Vec<u8>, field: u32, v: u64) {
    put_tag(out, field, WIRE_VARINT);
    put_varint(out, v);
}

fn put_double(out: &mut Vec<u8>, field: u32, v: f64) {
    put_tag(out, field, WIRE_FIXED64);
    out.extend_from_slice(&v.to_le_bytes());
}

fn put_bytes(out: &mut Vec<u8>, field: u32, bytes: &[u8]) {
    put_tag(out, field, WIRE_BYTES);
    put_varint(out, bytes.len() as u64);
    out.extend_from_slice(bytes);
}

fn put_record(out: &mut Vec<u8>, data: &[u8]) {
    let length = (data.len() as u64).to_le_bytes();
    out.extend_from_slice(&length);
    out.extend_from_slice(&masked_crc32c(&length).to_le_bytes());
    out.extend_from_slice(data);
    out.extend_from_slice(&masked_crc32c(data).to_le_bytes());
}

/// CRC-32C (Castagnoli, reflected polynomial 0x82F63B78), as TFRecord framing uses.
pub fn crc32c(bytes: &[u8]) -> u32 {
    static TABLE: std::sync::OnceLock<[u32; 256]> = std::sync::OnceLock::new();
    let table = TABLE.get_or_init(|| {
        let mut t = [0u32; 256];
        for (i, entry) in t.iter_mut().enumerate() {
            let mut c = i as u32;
            for _ in 0..8 {
                c = if c & 1 != 0 {
                    0x82F6_3B78 ^ (c >> 1)
                } else {
                    c >> 1
                };
            }
            *entry = c;
        }
        t
    });
    let mut crc = !0u32;
    for &b in bytes {
        crc = table[((crc ^ u32::from(b)) & 0xFF) as usize] ^ (crc >> 8);
    }
    !crc
}

/// TFRecord's masked CRC: rotated right by 15 bits plus a constant, so that a CRC stored
/// inside checksummed data does not checksum to a fixed value.
pub fn masked_crc32c(bytes: &[u8]) -> u32 {
    let crc = crc32c(bytes);
    crc.rotate_right(15).wrapping_add(0xA282_EAD8)
}

#[cfg(test)]
/// Reads back the scalars of an event file's bytes (the version record is skipped), checking
/// every record's framing and checksums: what TensorBoard's reader would accept.
pub fn read_scalars(mut bytes: &[u8]) -> Result<Vec<Scalar>, String> {
    let mut out = Vec::new();
    let mut index = 0usize;
    while !bytes.is_empty() {
        let fail = |what: &str| format!("record {index}: {what}");
        if bytes.len() < 12 {
            return Err(fail("truncated header"));
        }
        let length_bytes = &bytes[..8];
        let length = u64::from_le_bytes(length_bytes.try_into().expect("8 bytes")) as usize;
        let stored = u32::from_le_bytes(bytes[8..12].try_into().expect("4 bytes"));
        if stored != masked_crc32c(length_bytes) {
            return Err(fail("length checksum"));
        }
        if bytes.len() < 12 + length + 4 {
            return Err(fail("truncated data"));
        }
        let data = &bytes[12..12 + length];
        let stored = u32::from_le_bytes(bytes[12 + length..16 + length].try_into().expect("4"));
        if stored != masked_crc32c(data) {
            return Err(fail("data checksum"));
        }
        if let Some(s) = parse_scalar_event(data).map_err(|e| fail(&e))? {
            out.push(s);
        }
        bytes = &bytes[16 + length..];
        index += 1;
    }
    Ok(out)
}

#[cfg(test)]
/// A protobuf field: its number and value.
enum Field<'a> {
    Varint(u64),
    Fixed64([u8; 8]),
    Bytes(&'a [u8]),
    Fixed32([u8; 4]),
}

#[cfg(test)]
fn fields(mut b: &[u8]) -> Result<Vec<(u64, Field<'_>)>, String> {
    fn varint(b: &mut &[u8]) -> Result<u64, String> {
        let mut v = 0u64;
        for shift in (0..70).step_by(7) {
            let (&byte, rest) = b.split_first().ok_or("truncated varint")?;
            *b = rest;
            v |= u64::from(byte & 0x7F) << shift.min(63);
            if byte & 0x80 == 0 {
                return Ok(v);
            }
        }
        Err("varint too long".into())
    }
    fn take<'a>(b: &mut &'a [u8], n: usize) -> Result<&'a [u8], String> {
        if b.len() < n {
            return Err("truncated field".into());
        }
        let (head, rest) = b.split_at(n);
        *b = rest;
        Ok(head)
    }
    let mut out = Vec::new();
    while !b.is_empty() {
        let key = varint(&mut b)?;
        let field = match (key & 7) as u8 {
            WIRE_VARINT => Field::Varint(varint(&mut b)?),
            WIRE_FIXED64 => Field::Fixed64(take(&mut b, 8)?.try_into().expect("8")),
            WIRE_BYTES => {
                let n = varint(&mut b)? as usize;
                Field::Bytes(take(&mut b, n)?)
            }
            WIRE_FIXED32 => Field::Fixed32(take(&mut b, 4)?.try_into().expect("4")),
            other => return Err(format!("wire type {other}")),
        };
        out.push((key >> 3, field));
    }
    Ok(out)
}

#[cfg(test)]
fn parse_scalar_event(data: &[u8]) -> Result<Option<Scalar>, String> {
    let (mut wall_time, mut step, mut summary) = (0.0, 0i64, None);
    for (number, field) in fields(data)? {
        match (number, field) {
            (1, Field::Fixed64(b)) => wall_time = f64::from_le_bytes(b),
            (2, Field::Varint(v)) => step = v as i64,
            (5, Field::Bytes(b)) => summary = Some(b),
            _ => {}
        }
    }
    let Some(summary) = summary else {
        return Ok(None);
    };
    for (number, field) in fields(summary)? {
        if let (1, Field::Bytes(value)) = (number, field) {
            let (mut tag, mut simple) = (None, None);
            for (number, field) in fields(value)? {
                match (number, field) {
                    (1, Field::Bytes(b)) => tag = Some(String::from_utf8_lossy(b).into_owned()),
                    (2, Field::Fixed32(b)) => simple = Some(f32::from_le_bytes(b)),
                    _ => {}
                }
            }
            if let (Some(tag), Some(value)) = (tag, simple) {
                return Ok(Some(Scalar {
                    tag,
                    step,
                    wall_time,
                    value,
                }));
            }
        }
    }
    Err("a summary without a simple value".into())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn crc32c_matches_the_standard_check_values() {
        // RFC 3720 (iSCSI) B.4 and the common "123456789" check value.
        assert_eq!(crc32c(b"123456789"), 0xE306_9283);
        assert_eq!(crc32c(&[0u8; 32]), 0x8A91_36AA);
        assert_eq!(crc32c(&[0xFFu8; 32]), 0x62A8_AB43);
        // TFRecord's masking of the CRC of nothing (crc 0): the constant alone.
        assert_eq!(masked_crc32c(b""), 0xA282_EAD8);
    }

    #[test]
    fn scalars_round_trip_and_damage_is_refused() {
        let scalars = vec![
            Scalar {
                tag: "loss/value".into(),
                step: 200,
                wall_time: 1_795_644_951.5,
                value: 0.93,
            },
            Scalar {
                tag: "elo/greedy".into(),
                step: -1,
                wall_time: 1_795_644_960.25,
                value: -147.5,
            },
        ];
        let bytes = file_bytes(1_795_644_900.0, &scalars);
        assert_eq!(read_scalars(&bytes).unwrap(), scalars);
        let mut tail = bytes.clone();
        append_scalars(&mut tail, &scalars[..1]);
        assert_eq!(read_scalars(&tail).unwrap().len(), 3);
        for i in [3, 20, bytes.len() - 2] {
            let mut damaged = bytes.clone();
            damaged[i] ^= 0x10;
            assert!(read_scalars(&damaged).is_err(), "byte {i}");
        }
        assert!(read_scalars(&bytes[..bytes.len() - 1]).is_err());
    }
}
