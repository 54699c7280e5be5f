//! Dates for `--since`/`--until` and YABLoCo's `dd.mm.YYYY` rendering, on top of `jiff`
//! (no calendar arithmetic of our own).
//!
//! A date is either a calendar day `YYYY-MM-DD` or an RFC 3339 instant
//! (`2021-06-30T12:00:00Z`, `2021-06-30T14:00:00+02:00`). A day covers all of its seconds,
//! so `--since 2021-01-01` starts at its midnight and `--until 2021-12-31` takes in the
//! whole of that last day. Days are days of the [`DateZone`] (`--date-timezone`, UTC by
//! default), the zone the `dd.mm.YYYY` strings are written in, so that a function written
//! `31.12.2021` passes `--until 2021-12-31`.
//!
//! ```
//! use codemine_filters::{DateSpec, DateZone};
//! let moscow: DateZone = "Europe/Moscow".parse().unwrap();
//! // 2024-01-15 23:30 UTC is already the 16th in Moscow (UTC+3).
//! assert_eq!(moscow.format_ddmmyyyy(1_705_361_400).as_deref(), Some("16.01.2024"));
//! let day: DateSpec = "2024-01-16".parse().unwrap();
//! assert_eq!(day.in_zone(&moscow).unwrap().first_second(), 1_705_352_400);
//! ```

use std::fmt;
use std::str::FromStr;

use jiff::civil::{Date, Time};
use jiff::tz::{Offset, TimeZone, TimeZoneDatabase};
use jiff::Timestamp;
use serde::de::{self, Deserializer, MapAccess, Visitor};

/// A date bound as the user wrote it, with the first and last second it covers.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DateSpec {
    text: String,
    /// The calendar day of a `YYYY-MM-DD` bound, whose seconds depend on the zone.
    day: Option<Date>,
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

    /// This bound with a `YYYY-MM-DD` day taken in `zone` (from its first second to the
    /// last before the next day starts; a day can be 23 or 25 hours long). An instant
    /// carries its own offset and is unchanged.
    pub fn in_zone(&self, zone: &DateZone) -> Result<DateSpec, DateError> {
        let Some(day) = self.day else {
            return Ok(self.clone());
        };
        let error = |e: jiff::Error| DateError {
            text: self.text.clone(),
            detail: reason(&e),
        };
        let start = |d: Date| -> Result<i64, jiff::Error> {
            Ok(d.to_zoned(zone.tz.clone())?
                .start_of_day()?
                .timestamp()
                .as_second())
        };
        let first = start(day).map_err(error)?;
        let next = day.tomorrow().and_then(start).map_err(error)?;
        Ok(DateSpec {
            text: self.text.clone(),
            day: Some(day),
            first,
            last: next - 1,
        })
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
                day: Some(day),
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
            day: None,
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

/// The time zone of the dates codemine writes as strings (YABLoCo's `dd.mm.YYYY`) and of
/// `YYYY-MM-DD` filter bounds: `--date-timezone`, UTC by default. An IANA name is looked up
/// in the tz database compiled into codemine (jiff's bundled copy), never the machine's, so
/// the same run gives the same dates everywhere.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DateZone {
    /// As the user wrote it (the IANA name as the database spells it), or `UTC`.
    name: String,
    tz: TimeZone,
}

/// Why a string is not a time zone.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("unknown time zone '{0}' (an IANA name such as Europe/Moscow, UTC, or a fixed offset such as +03:00)")]
pub struct ZoneError(String);

impl Default for DateZone {
    fn default() -> Self {
        DateZone {
            name: "UTC".into(),
            tz: TimeZone::UTC,
        }
    }
}

impl DateZone {
    /// The zone's name: the IANA name, the offset as written (`+03:00`), or `UTC`.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// A unix timestamp as YABLoCo writes `last_commit`, `dd.mm.YYYY` of its day in this
    /// zone (YABLoCo's `datetime.fromtimestamp(t).strftime('%d.%m.%Y')` on a machine set to
    /// it). `None` outside the years -9999..=9999, where no git date is.
    pub fn format_ddmmyyyy(&self, ts: i64) -> Option<String> {
        let t = Timestamp::from_second(ts).ok()?;
        Some(self.tz.to_datetime(t).strftime("%d.%m.%Y").to_string())
    }
}

impl fmt::Display for DateZone {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.name)
    }
}

impl FromStr for DateZone {
    type Err = ZoneError;

    fn from_str(s: &str) -> Result<Self, ZoneError> {
        let text = s.trim();
        let unknown = || ZoneError(text.to_string());
        if text.starts_with(['+', '-']) {
            let offset = parse_offset(text).ok_or_else(unknown)?;
            return Ok(DateZone {
                name: text.to_string(),
                tz: TimeZone::fixed(offset),
            });
        }
        if text.is_empty() {
            return Err(unknown());
        }
        let tz = TimeZoneDatabase::bundled()
            .get(text)
            .map_err(|_| unknown())?;
        let name = tz.iana_name().unwrap_or(text).to_string();
        Ok(DateZone { name, tz })
    }
}

impl<'de> serde::Deserialize<'de> for DateZone {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let s = String::deserialize(deserializer)?;
        s.parse().map_err(de::Error::custom)
    }
}

/// `±HH:MM` or `±HHMM` or `±HH`, hours below 24 and minutes below 60.
fn parse_offset(s: &str) -> Option<Offset> {
    let (sign, rest) = s.split_at(1);
    let digits: String = rest.chars().filter(|&c| c != ':').collect();
    let colons = rest.matches(':').count();
    let shape_ok = match (rest.len(), colons) {
        (5, 1) => rest.as_bytes()[2] == b':',
        (4 | 2, 0) => true,
        _ => false,
    };
    if !shape_ok || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    let hours: i32 = digits.get(..2)?.parse().ok()?;
    let minutes: i32 = digits
        .get(2..)
        .filter(|m| !m.is_empty())
        .map_or(Some(0), |m| m.parse().ok())?;
    if hours > 23 || minutes > 59 {
        return None;
    }
    let seconds = (hours * 60 + minutes) * 60;
    Offset::from_seconds(if sign == "-" { -seconds } else { seconds }).ok()
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

    fn format_ddmmyyyy(ts: i64) -> String {
        DateZone::default().format_ddmmyyyy(ts).unwrap_or_default()
    }

    #[test]
    fn ddmmyyyy() {
        assert_eq!(format_ddmmyyyy(0), "01.01.1970");
        assert_eq!(format_ddmmyyyy(1_711_411_200), "26.03.2024");
        // 23:59:59 UTC stays on its day whatever the local zone of the machine.
        assert_eq!(format_ddmmyyyy(1_609_459_200 - 1), "31.12.2020");
        assert_eq!(format_ddmmyyyy(-86_400), "31.12.1969");
        assert_eq!(format_ddmmyyyy(i64::MAX), "");
        assert_eq!(DateZone::default().format_ddmmyyyy(i64::MIN), None);
    }

    #[test]
    fn zones_by_name_and_offset() {
        let zone = |s: &str| s.parse::<DateZone>();
        // 2024-01-15 23:30:00 UTC: Moscow (UTC+3 all year since 2014) is on the 16th, New
        // York (UTC-5 in January) still on the 15th.
        let t = 1_705_361_400;
        let day = |z: &str| zone(z).unwrap().format_ddmmyyyy(t).unwrap();
        assert_eq!(day("UTC"), "15.01.2024");
        assert_eq!(day("Europe/Moscow"), "16.01.2024");
        assert_eq!(day("europe/moscow"), "16.01.2024");
        assert_eq!(zone("europe/moscow").unwrap().name(), "Europe/Moscow");
        assert_eq!(day("+03:00"), "16.01.2024");
        assert_eq!(day("+0030"), "16.01.2024");
        assert_eq!(day("+00:29"), "15.01.2024");
        assert_eq!(day("-05"), "15.01.2024");
        for bad in [
            "Mars/Olympus",
            "",
            "+3",
            "+24:00",
            "+03:60",
            "03:00",
            "+03:00:00",
            "+0a:00",
        ] {
            let e = zone(bad).unwrap_err().to_string();
            assert!(e.starts_with(&format!("unknown time zone '{bad}'")), "{e}");
        }
    }

    #[test]
    fn days_in_a_zone() {
        let moscow: DateZone = "Europe/Moscow".parse().unwrap();
        let d = spec("2021-01-01").in_zone(&moscow).unwrap();
        assert_eq!(d.first_second(), 1_609_459_200 - 3 * 3600);
        assert_eq!(d.last_second(), 1_609_459_200 + 86_399 - 3 * 3600);
        // A day with a DST change is 23 hours long (New York, 2021-03-14).
        let ny: DateZone = "America/New_York".parse().unwrap();
        let d = spec("2021-03-14").in_zone(&ny).unwrap();
        assert_eq!(d.last_second() + 1 - d.first_second(), 23 * 3600);
        // An instant keeps its own offset.
        let i = spec("2021-01-01T00:00:00Z");
        assert_eq!(i.in_zone(&moscow).unwrap(), i);
    }
}
