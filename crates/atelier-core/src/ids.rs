//! Identifiers and timestamps: the one place they are made.
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
    fn timestamps_are_iso_utc_millis() {
        let t = OffsetDateTime::from_unix_timestamp_nanos(1_795_000_000_123_456_789).ok();
        let s = t.map(timestamp);
        assert_eq!(s.as_deref(), Some("2026-11-18T11:06:40.123Z"));
        assert!(now().ends_with('Z'));
    }
}
