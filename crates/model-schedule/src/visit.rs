//! Reading a value from its text form with serde: one visitor for every type that parses
//! from a string and reports a `ScheduleError`.

use std::{fmt, marker::PhantomData, str::FromStr};

use serde::{Deserializer, de};

use crate::error::ScheduleError;

/// Deserializes a `T` from a string through its `FromStr`, so serde validates exactly as
/// parsing does; `expecting` names what the string must be.
pub(crate) fn from_text<'de, D, T>(deserializer: D, expecting: &'static str) -> Result<T, D::Error>
where
    D: Deserializer<'de>,
    T: FromStr<Err = ScheduleError>,
{
    deserializer.deserialize_str(TextVisitor(expecting, PhantomData))
}

struct TextVisitor<T>(&'static str, PhantomData<fn() -> T>);

impl<T: FromStr<Err = ScheduleError>> de::Visitor<'_> for TextVisitor<T> {
    type Value = T;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.0)
    }

    fn visit_str<E: de::Error>(self, value: &str) -> Result<T, E> {
        value.parse().map_err(E::custom)
    }
}
