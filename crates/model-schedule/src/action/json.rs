//! Bounded JSON for action results: read with a budget that stops the reader at the bound,
//! and measured the same way when a caller hands a value in.

use std::{cell::Cell, fmt};

use serde::{
    Deserializer,
    de::{self, DeserializeSeed, MapAccess, SeqAccess, Visitor},
};
use serde_json::{Map, Value};

/// What a value costs against the budget: one per value, plus the bytes of each string and
/// each object key. Measured with an explicit stack, so a deep value cannot overflow ours;
/// the walk stops as soon as the cost passes `max`.
pub(crate) fn cost(value: &Value, max: usize) -> usize {
    let mut total = 0usize;
    let mut stack = vec![value];
    while let Some(value) = stack.pop() {
        total = total.saturating_add(1);
        match value {
            Value::String(text) => total = total.saturating_add(text.len()),
            Value::Array(items) => stack.extend(items),
            Value::Object(map) => {
                for (key, item) in map {
                    total = total.saturating_add(key.len());
                    stack.push(item);
                }
            }
            Value::Null | Value::Bool(_) | Value::Number(_) => {}
        }
        if total > max {
            break;
        }
    }
    total
}

/// Reads a JSON value whose [`cost`] is at most `max`, failing at the first value, string or
/// key that goes past it (nothing after it is kept). The error message is `message(spent)`.
pub(crate) fn read_bounded<'de, D: Deserializer<'de>>(
    deserializer: D,
    max: usize,
    message: fn(usize) -> String,
) -> Result<Value, D::Error> {
    let left = Cell::new(max);
    Budget {
        left: &left,
        max,
        message,
    }
    .deserialize(deserializer)
}

#[derive(Clone, Copy)]
struct Budget<'a> {
    left: &'a Cell<usize>,
    max: usize,
    message: fn(usize) -> String,
}

impl Budget<'_> {
    fn spend<E: de::Error>(self, amount: usize) -> Result<(), E> {
        match self.left.get().checked_sub(amount) {
            Some(left) => {
                self.left.set(left);
                Ok(())
            }
            None => {
                let spent = (self.max - self.left.get()).saturating_add(amount);
                Err(E::custom((self.message)(spent)))
            }
        }
    }
}

impl<'de> DeserializeSeed<'de> for Budget<'_> {
    type Value = Value;

    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<Value, D::Error> {
        deserializer.deserialize_any(self)
    }
}

impl<'de> Visitor<'de> for Budget<'_> {
    type Value = Value;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "a JSON value of at most {} bytes", self.max)
    }

    fn visit_bool<E: de::Error>(self, value: bool) -> Result<Value, E> {
        self.spend(1)?;
        Ok(Value::Bool(value))
    }

    fn visit_i64<E: de::Error>(self, value: i64) -> Result<Value, E> {
        self.spend(1)?;
        Ok(Value::from(value))
    }

    fn visit_u64<E: de::Error>(self, value: u64) -> Result<Value, E> {
        self.spend(1)?;
        Ok(Value::from(value))
    }

    fn visit_f64<E: de::Error>(self, value: f64) -> Result<Value, E> {
        self.spend(1)?;
        Ok(Value::from(value))
    }

    fn visit_str<E: de::Error>(self, value: &str) -> Result<Value, E> {
        self.spend(1usize.saturating_add(value.len()))?;
        Ok(Value::String(value.to_owned()))
    }

    fn visit_string<E: de::Error>(self, value: String) -> Result<Value, E> {
        self.spend(1usize.saturating_add(value.len()))?;
        Ok(Value::String(value))
    }

    fn visit_unit<E: de::Error>(self) -> Result<Value, E> {
        self.spend(1)?;
        Ok(Value::Null)
    }

    fn visit_none<E: de::Error>(self) -> Result<Value, E> {
        self.visit_unit()
    }

    fn visit_some<D: Deserializer<'de>>(self, deserializer: D) -> Result<Value, D::Error> {
        self.deserialize(deserializer)
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Value, A::Error> {
        self.spend(1)?;
        let mut items = Vec::new();
        while let Some(item) = seq.next_element_seed(self)? {
            items.push(item);
        }
        Ok(Value::Array(items))
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Value, A::Error> {
        self.spend(1)?;
        let mut object = Map::new();
        while let Some(key) = map.next_key::<String>()? {
            self.spend(key.len())?;
            let item = map.next_value_seed(self)?;
            object.insert(key, item);
        }
        Ok(Value::Object(object))
    }
}
