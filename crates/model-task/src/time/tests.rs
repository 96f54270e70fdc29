//! The fast paths against chrono's own serde: the same text for every timestamp, the same
//! value or the same error for every text.

use chrono::{DateTime, TimeZone, Utc};
use proptest::prelude::*;
use serde::{Deserialize, Serialize};

/// A timestamp through this module.
#[derive(Serialize, Deserialize, Debug, PartialEq)]
struct Ours {
    #[serde(serialize_with = "super::write", deserialize_with = "super::read")]
    at: DateTime<Utc>,
    #[serde(
        serialize_with = "super::write_option",
        deserialize_with = "super::read_option"
    )]
    maybe: Option<DateTime<Utc>>,
}

/// The same through chrono's serde.
#[derive(Serialize, Deserialize, Debug, PartialEq)]
struct Theirs {
    at: DateTime<Utc>,
    maybe: Option<DateTime<Utc>>,
}

fn both(json: &str) -> (Result<Ours, String>, Result<Theirs, String>) {
    (
        serde_json::from_str::<Ours>(json).map_err(|error| error.to_string()),
        serde_json::from_str::<Theirs>(json).map_err(|error| error.to_string()),
    )
}

/// Reads `text` as both fields both ways: equal values or equal errors.
fn reads_as_chrono(text: &str) {
    let quoted = serde_json::to_string(text).unwrap();
    for json in [
        format!(r#"{{"at":{quoted},"maybe":null}}"#),
        format!(r#"{{"at":"2020-01-01T00:00:00Z","maybe":{quoted}}}"#),
    ] {
        let (ours, theirs) = both(&json);
        match (ours, theirs) {
            (Ok(ours), Ok(theirs)) => {
                assert_eq!(ours.at, theirs.at, "{json}");
                assert_eq!(ours.maybe, theirs.maybe, "{json}");
            }
            (Err(ours), Err(theirs)) => assert_eq!(ours, theirs, "{json}"),
            (ours, theirs) => panic!("{json}: ours {ours:?}, chrono's {theirs:?}"),
        }
    }
}

fn writes_as_chrono(at: DateTime<Utc>, maybe: Option<DateTime<Utc>>) {
    let ours = serde_json::to_string(&Ours { at, maybe }).unwrap();
    let theirs = serde_json::to_string(&Theirs { at, maybe }).unwrap();
    assert_eq!(ours, theirs);
    let back: Ours = serde_json::from_str(&ours).unwrap();
    assert_eq!(back, Ours { at, maybe });
}

#[test]
fn the_texts_of_each_fraction_width_and_the_edges_of_the_fast_path() {
    let second = Utc.with_ymd_and_hms(2025, 1, 1, 0, 0, 0).unwrap();
    for nanos in [0, 1, 999_999_999, 5_000_000, 120_000, 7, 1_000, 100_000_000] {
        let at = second + chrono::TimeDelta::nanoseconds(nanos);
        writes_as_chrono(at, Some(at));
    }
    writes_as_chrono(Utc.with_ymd_and_hms(0, 1, 1, 0, 0, 0).unwrap(), None);
    writes_as_chrono(
        Utc.with_ymd_and_hms(9999, 12, 31, 23, 59, 59).unwrap(),
        None,
    );
    // Outside the fast path: chrono writes these.
    writes_as_chrono(Utc.with_ymd_and_hms(10_000, 1, 1, 0, 0, 0).unwrap(), None);
    writes_as_chrono(Utc.with_ymd_and_hms(-1, 1, 1, 0, 0, 0).unwrap(), None);
    let leap = chrono::NaiveDate::from_ymd_opt(2016, 12, 31)
        .unwrap()
        .and_hms_nano_opt(23, 59, 59, 1_500_000_000)
        .unwrap()
        .and_utc();
    writes_as_chrono(leap, Some(leap));
    assert_eq!(
        serde_json::to_string(&Ours {
            at: second,
            maybe: None
        })
        .unwrap(),
        r#"{"at":"2025-01-01T00:00:00Z","maybe":null}"#
    );
    for text in [
        "2025-01-01T00:00:00Z",
        "2025-01-01T00:00:00.5Z",
        "2025-01-01T00:00:00.123456789Z",
        "2025-01-01T00:00:00.1234567891Z",
        "2025-01-01T00:00:00.Z",
        "2025-01-01T00:00:60Z",
        "2016-12-31T23:59:60.5Z",
        "2025-02-29T00:00:00Z",
        "2024-02-29T00:00:00Z",
        "2025-13-01T00:00:00Z",
        "2025-01-01T24:00:00Z",
        "2025-01-01t00:00:00z",
        "2025-01-01 00:00:00Z",
        "2025-01-01T00:00:00+02:00",
        "2025-01-01T00:00:00",
        "+2025-01-01T00:00:00Z",
        "2025-01-01T00:00:00ZZ",
        "",
        "Z",
        "0000-01-01T00:00:00Z",
        "２025-01-01T00:00:00Z",
    ] {
        reads_as_chrono(text);
    }
    for json in [
        r#"{"at":5,"maybe":null}"#,
        r#"{"at":"2020-01-01T00:00:00Z","maybe":[]}"#,
    ] {
        let (ours, theirs) = both(json);
        assert_eq!(ours.unwrap_err(), theirs.unwrap_err(), "{json}");
    }
}

proptest! {
    #[test]
    fn every_timestamp_is_written_as_chrono_writes_it(
        seconds in -300_000_000_000i64..300_000_000_000,
        nanos in prop_oneof![Just(0u32), 0u32..1_000, (0u32..1_000).prop_map(|n| n * 1_000_000), (0u32..1_000_000).prop_map(|n| n * 1_000), 0u32..2_000_000_000],
    ) {
        if let Some(at) = DateTime::from_timestamp(seconds, nanos) {
            writes_as_chrono(at, Some(at));
        }
    }

    #[test]
    fn every_text_near_the_form_reads_as_chrono_reads_it(
        seconds in 0i64..253_402_300_799,
        nanos in 0u32..1_000_000_000,
        edits in proptest::collection::vec((0usize..40, prop_oneof![Just(b'0'), Just(b'9'), Just(b'.'), Just(b'Z'), Just(b'-'), Just(b':'), Just(b'T'), Just(b'x'), Just(b' ')], 0..3), 0..3),
    ) {
        let at = DateTime::from_timestamp(seconds, nanos).unwrap();
        let mut text = at.to_rfc3339_opts(chrono::SecondsFormat::AutoSi, true).into_bytes();
        for (place, byte, action) in edits {
            let place = place.min(text.len());
            match action {
                0 => text.insert(place, byte),
                1 if place < text.len() => { text.remove(place); }
                _ => if let Some(slot) = text.get_mut(place) { *slot = byte },
            }
        }
        reads_as_chrono(&String::from_utf8(text).unwrap());
    }
}
