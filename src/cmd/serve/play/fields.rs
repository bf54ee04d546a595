//! Readers of the play page's JSON fields: each refuses a wrong field by name.

use serde_json::{Map, Value};

use super::error::PlayError;

pub(super) use crate::cmd::analyze::query::type_name as kind;

/// Refuses a field not in `known` by name (a misspelt field would otherwise be ignored).
pub(super) fn known_fields(map: &Map<String, Value>, known: &[&str]) -> Result<(), PlayError> {
    match map.keys().find(|k| !known.contains(&k.as_str())) {
        Some(k) => Err(PlayError::field(
            k.clone(),
            format!("unknown field; this request reads {}", known.join(", ")),
        )),
        None => Ok(()),
    }
}

/// A whole number field in `1..=cap` (over the cap: [`PlayError::OverBudget`]).
pub(super) fn budget(
    map: &Map<String, Value>,
    field: &'static str,
    cap: u64,
    flag: &'static str,
) -> Result<Option<u64>, PlayError> {
    let Some(v) = map.get(field) else {
        return Ok(None);
    };
    match v.as_u64() {
        Some(0) | None => Err(PlayError::field(
            field,
            format!("a whole number from 1 to {cap}, found {v}"),
        )),
        Some(n) if n > cap => Err(PlayError::OverBudget {
            field,
            asked: n,
            cap,
            flag,
        }),
        Some(n) => Ok(Some(n)),
    }
}

pub(super) fn string<'a>(
    map: &'a Map<String, Value>,
    field: &'static str,
) -> Result<Option<&'a str>, PlayError> {
    match map.get(field) {
        None | Some(Value::Null) => Ok(None),
        Some(Value::String(s)) => Ok(Some(s)),
        Some(v) => Err(PlayError::field(
            field,
            format!("a string, found {}", kind(v)),
        )),
    }
}

/// A whole number field, if present.
pub(super) fn whole(
    map: &Map<String, Value>,
    field: &'static str,
) -> Result<Option<u64>, PlayError> {
    match map.get(field) {
        None | Some(Value::Null) => Ok(None),
        Some(v) => v
            .as_u64()
            .map(Some)
            .ok_or_else(|| PlayError::field(field, format!("a whole number, found {v}"))),
    }
}
