//! Identifiers and timestamps: the one place they are made, and the one
//! rule of the ids people and bundles choose that share a namespace.
//!
//! Row ids are UUIDv7 (time-ordered, so ids sort roughly by creation and
//! B-tree inserts stay local); timestamps are ISO-8601 UTC with milliseconds,
//! which sort lexically in time order.

use time::{OffsetDateTime, format_description::FormatItem, macros::format_description};

const ISO_MILLIS: &[FormatItem<'static>] =
    format_description!("[year]-[month]-[day]T[hour]:[minute]:[second].[subsecond digits:3]Z");

/// A new time-ordered unique id.
pub fn new_id() -> String {
    uuid::Uuid::now_v7().to_string()
}

/// Now, as an ISO-8601 UTC timestamp (`2026-11-22T23:57:10.123Z`).
pub fn now() -> String {
    timestamp(OffsetDateTime::now_utc())
}

/// Formats a UTC time the way the database stores it.
pub fn timestamp(t: OffsetDateTime) -> String {
    t.to_offset(time::UtcOffset::UTC)
        .format(ISO_MILLIS)
        .unwrap_or_else(|_| unreachable_format())
}

/// The rule of ids that share one namespace: a toolset's id, its `prefix`
/// and the ids of the MCP servers a toolset declares — 1-64 of `a-z`,
/// `0-9`, `-` and `_`, starting with a letter or digit. Lower-case only, so
/// two ids that differ only in case never name two toolsets (or two data-dir
/// folders on a case-insensitive disk).
pub fn is_namespace_id(s: &str) -> bool {
    let b = s.as_bytes();
    !b.is_empty()
        && b.len() <= 64
        && (b[0].is_ascii_lowercase() || b[0].is_ascii_digit())
        && b.iter()
            .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || matches!(c, b'-' | b'_'))
}

/// What to do about `id`, which is not an [`is_namespace_id`]: the
/// lower-cased id when capitals are all that is wrong, else the rule.
pub fn namespace_id_advice(id: &str) -> String {
    let lower = id.to_ascii_lowercase();
    if lower != id && is_namespace_id(&lower) {
        format!("ids are lower-case: use {lower:?}")
    } else {
        "use 1-64 of a-z, 0-9, `-` and `_`, starting with a letter or digit".to_owned()
    }
}

// Formatting a valid UTC date with a fixed description only fails for years
// outside 0..=9999, which `now_utc` never gives.
#[cold]
fn unreachable_format() -> String {
    "1970-01-01T00:00:00.000Z".to_owned()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids_are_unique_and_time_ordered() {
        let a = new_id();
        let b = new_id();
        assert_ne!(a, b);
        assert!(a < b, "{a} should sort before {b}");
        assert_eq!(uuid::Uuid::parse_str(&a).map(|u| u.get_version_num()).ok(), Some(7));
    }

    #[test]
    fn namespace_ids_take_underscores_but_not_capitals() {
        for ok in ["my_tools", "my-tools", "a", "0x", "my__x", &"a".repeat(64)] {
            assert!(is_namespace_id(ok), "{ok}");
        }
        for bad in ["", "_x", "-x", "My_Tools", "a.b", "a:b", "a b", "é", &"a".repeat(65)] {
            assert!(!is_namespace_id(bad), "{bad}");
        }
        assert_eq!(namespace_id_advice("My_Tools"), "ids are lower-case: use \"my_tools\"");
        assert!(namespace_id_advice("a.b").contains("1-64 of a-z, 0-9, `-` and `_`"));
    }

    #[test]
    fn timestamps_are_iso_utc_millis() {
        let t = OffsetDateTime::from_unix_timestamp_nanos(1_795_000_000_123_456_789).ok();
        let s = t.map(timestamp);
        assert_eq!(s.as_deref(), Some("2026-11-18T11:06:40.123Z"));
        assert!(now().ends_with('Z'));
    }
}
