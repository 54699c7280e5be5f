//! Dates for `--since`/`--until` and YABLoCo's `dd.mm.YYYY` rendering, on top of `jiff`
//! (no calendar arithmetic of our own).
//!
//! A date is either a calendar day `YYYY-MM-DD`, read in UTC, or an RFC 3339 instant
//! (`2021-06-30T12:00:00Z`, `2021-06-30T14:00:00+02:00`). A day covers all of its seconds,
//! so `--since 2021-01-01` starts at its midnight and `--until 2021-12-31` takes in the
//! whole of that last day.

use std::fmt;
use std::str::FromStr;

use jiff::civil::{Date, Time};
use jiff::tz::Offset;
use jiff::Timestamp;
use serde::de::{self, Deserializer, MapAccess, Visitor};

/// A date bound as the user wrote it, with the first and last second it covers.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DateSpec {
    text: String,
    /// First unix second inside the bound (a day's midnight; an instant rounded up).
    first: i64,
    /// Last unix second inside the bound (a day's 23:59:59; an instant rounded down).
    last: i64,
}

/// Why a string is not a date.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("'{text}' is not a date (YYYY-MM-DD or RFC 3339){detail}")]
pub struct DateError {
    text: String,
    detail: String,
}

impl DateSpec {
    /// The text the user wrote.
    pub fn as_str(&self) -> &str {
        &self.text
    }

    /// The earliest unix second the bound covers: what `since` compares against.
    pub fn first_second(&self) -> i64 {
        self.first
    }

    /// The latest unix second the bound covers: what `until` compares against.
    pub fn last_second(&self) -> i64 {
        self.last
    }
}

impl fmt::Display for DateSpec {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.text)
    }
}

impl FromStr for DateSpec {
    type Err = DateError;

    fn from_str(s: &str) -> Result<Self, DateError> {
        let text = s.trim();
        let error = |detail: String| DateError {
            text: text.to_string(),
            detail,
        };
        // A bare day: exactly YYYY-MM-DD, so that jiff's looser ISO 8601 forms (20210101,
        // +002021-01-01) are not silently taken for something the user did not mean.
        if is_day_shape(text) {
            let day: Date = text.parse().map_err(|e: jiff::Error| error(reason(&e)))?;
            let midnight = Offset::UTC
                .to_timestamp(day.to_datetime(Time::midnight()))
                .map_err(|e| error(reason(&e)))?;
            let first = midnight.as_second();
            return Ok(DateSpec {
                text: text.to_string(),
                first,
                last: first + 86_399,
            });
        }
        // Needs an offset (Z or ±hh:mm), as RFC 3339 does: a local time would be ambiguous.
        let instant: Timestamp = text.parse().map_err(|_| error(String::new()))?;
        let (secs, nanos) = (instant.as_second(), instant.subsec_nanosecond());
        // Commit dates are whole seconds: round a fractional bound inwards.
        let first = if nanos > 0 { secs + 1 } else { secs };
        let last = if nanos < 0 { secs - 1 } else { secs };
        Ok(DateSpec {
            text: text.to_string(),
            first,
            last,
        })
    }
}

fn is_day_shape(s: &str) -> bool {
    let b = s.as_bytes();
    b.len() == 10
        && b[4] == b'-'
        && b[7] == b'-'
        && b.iter()
            .enumerate()
            .all(|(i, c)| i == 4 || i == 7 || c.is_ascii_digit())
}

/// jiff's reason, shortened to its last clause (the part that says what is out of range).
fn reason(e: &jiff::Error) -> String {
    let full = e.to_string();
    let last = full.rsplit(": ").next().unwrap_or(&full);
    format!(": {last}")
}

/// TOML accepts both `since = "2021-01-01"` and the native `since = 2021-01-01`.
impl<'de> serde::Deserialize<'de> for DateSpec {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct DateVisitor;
        impl<'de> Visitor<'de> for DateVisitor {
            type Value = DateSpec;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("a date (YYYY-MM-DD or RFC 3339)")
            }
            fn visit_str<E: de::Error>(self, v: &str) -> Result<DateSpec, E> {
                v.parse().map_err(E::custom)
            }
            // A native TOML date or datetime arrives as toml's private one-key map.
            fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<DateSpec, A::Error> {
                let native = <toml::value::Datetime as serde::Deserialize>::deserialize(
                    de::value::MapAccessDeserializer::new(map),
                )?;
                native.to_string().parse().map_err(de::Error::custom)
            }
        }
        deserializer.deserialize_any(DateVisitor)
    }
}

/// A unix timestamp as YABLoCo writes `last_commit`: `dd.mm.YYYY` in UTC. `None` outside
/// the years -9999..=9999.
pub fn try_format_ddmmyyyy(ts: i64) -> Option<String> {
    let t = Timestamp::from_second(ts).ok()?;
    Some(t.strftime("%d.%m.%Y").to_string())
}

/// A unix timestamp as YABLoCo writes `last_commit`: `dd.mm.YYYY` in UTC (`26.03.2024`).
/// Outside the years -9999..=9999 (no git date is) the result is empty rather than a wrong
/// date; use [`try_format_ddmmyyyy`] to tell.
pub fn format_ddmmyyyy(ts: i64) -> String {
    try_format_ddmmyyyy(ts).unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn spec(s: &str) -> DateSpec {
        s.parse().unwrap()
    }

    #[test]
    fn day_covers_its_whole_utc_day() {
        let d = spec("2021-01-01");
        assert_eq!(d.first_second(), 1_609_459_200);
        assert_eq!(d.last_second(), 1_609_459_200 + 86_399);
        assert_eq!(d.as_str(), "2021-01-01");
        // Leap day exists in 2024, not in 2023.
        assert!("2024-02-29".parse::<DateSpec>().is_ok());
        assert!("2023-02-29".parse::<DateSpec>().is_err());
    }

    #[test]
    fn instants_with_offsets_and_fractions() {
        assert_eq!(spec("2021-01-01T00:00:00Z").first_second(), 1_609_459_200);
        let paris = spec("2021-01-01T02:00:00+02:00");
        assert_eq!(paris.first_second(), 1_609_459_200);
        assert_eq!(paris.last_second(), 1_609_459_200);
        let frac = spec("2021-01-01T00:00:00.5Z");
        assert_eq!(frac.first_second(), 1_609_459_201);
        assert_eq!(frac.last_second(), 1_609_459_200);
        let before_epoch = spec("1969-12-31T23:59:59.5Z");
        assert_eq!(before_epoch.first_second(), 0);
        assert_eq!(before_epoch.last_second(), -1);
    }

    #[test]
    fn bad_dates_say_why() {
        let e = "2021-13-01".parse::<DateSpec>().unwrap_err().to_string();
        assert!(
            e.starts_with("'2021-13-01' is not a date (YYYY-MM-DD or RFC 3339)"),
            "{e}"
        );
        for bad in [
            "yesterday",
            "2021-1-1",
            "20210101",
            "2021-01-01T00:00:00",
            "",
        ] {
            assert!(bad.parse::<DateSpec>().is_err(), "{bad}");
        }
    }

    #[test]
    fn ddmmyyyy() {
        assert_eq!(format_ddmmyyyy(0), "01.01.1970");
        assert_eq!(format_ddmmyyyy(1_711_411_200), "26.03.2024");
        // 23:59:59 UTC stays on its day whatever the local zone of the machine.
        assert_eq!(format_ddmmyyyy(1_609_459_200 - 1), "31.12.2020");
        assert_eq!(format_ddmmyyyy(-86_400), "31.12.1969");
        assert_eq!(format_ddmmyyyy(i64::MAX), "");
        assert_eq!(try_format_ddmmyyyy(i64::MIN), None);
    }
}
