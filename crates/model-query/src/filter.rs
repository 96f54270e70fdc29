//! A filter's set of accepted values (a query's phases, a run query's states): kept sorted
//! and without repeats, while counting every value given, so the bound applies to what the
//! caller sent and not to what was left after repeats were dropped.

/// The values one filter accepts, as a builder collects them.
#[derive(Debug, Clone)]
pub(crate) struct ValueSet<T> {
    /// Sorted, without repeats.
    values: Vec<T>,
    /// How many values were given, repeats included.
    given: usize,
}

impl<T: Ord + Clone> ValueSet<T> {
    /// No value: the filter accepts everything.
    pub(crate) const fn new() -> Self {
        ValueSet {
            values: Vec::new(),
            given: 0,
        }
    }

    /// The set of a built query, to build on (every value counts once).
    pub(crate) fn of(values: &[T]) -> Self {
        ValueSet {
            values: values.to_vec(),
            given: values.len(),
        }
    }

    /// Adds `value` (a repeat is counted, not stored again).
    pub(crate) fn insert(&mut self, value: T) {
        self.given = self.given.saturating_add(1);
        if let Err(at) = self.values.binary_search(&value) {
            self.values.insert(at, value);
        }
    }

    /// The sorted values, or `too_many(max)` when more than `max` were given.
    pub(crate) fn into_checked<E>(
        self,
        max: usize,
        too_many: impl FnOnce(usize) -> E,
    ) -> Result<Vec<T>, E> {
        if self.given > max {
            Err(too_many(max))
        } else {
            Ok(self.values)
        }
    }
}

#[cfg(test)]
mod tests;
