//! The reader of a `jobs` list, shared by the wire forms of a flow and of a flow run: at
//! most [`MAX_FLOW_JOBS`] jobs and [`MAX_FLOW_DEPENDENCIES`] dependencies in all, both
//! checked while reading, so a hostile document stops at the first entry past a bound.

use std::fmt;
use std::marker::PhantomData;

use model_ids::Limit;
use serde::de::{self, Deserialize, DeserializeSeed, Deserializer, IgnoredAny, SeqAccess, Visitor};

use crate::bounded::{DependsOn, Jobs};
use crate::limits::{MAX_FLOW_DEPENDENCIES, MAX_FLOW_JOBS};
use crate::names::JobNames;

/// A job as read from the wire, which knows how many dependencies it lists.
pub(crate) trait RawJob {
    /// The number of the job's `dependsOn` entries.
    fn dependencies(&self) -> usize;
}

/// A raw job's `dependsOn`, read straight into one [`JobNames`] buffer (no allocation per
/// name): `null` or a list of at most [`MAX_JOB_DEPENDENCIES`](crate::MAX_JOB_DEPENDENCIES)
/// strings (with `#[serde(default)]` for an absent field). An entry that is no job name
/// names no job; the first such is kept as written, for the error that quotes it.
#[derive(Default)]
pub(crate) struct DependsOnRaw {
    pub(crate) names: JobNames,
    /// The first entry that is no job name: its index and text.
    invalid: Option<(usize, String)>,
}

impl DependsOnRaw {
    /// The list a reader builds of `texts`.
    #[cfg(test)]
    pub(crate) fn of<S: AsRef<str>>(texts: impl IntoIterator<Item = S>) -> Self {
        let mut list = Self::default();
        for text in texts {
            list.push(text.as_ref());
        }
        list
    }

    /// Appends entry `text`, keeping it aside if it is the first that is no job name.
    fn push(&mut self, text: &str) {
        let at = self.names.len();
        if !self.names.push_text(text) && self.invalid.is_none() {
            self.invalid = Some((at, text.to_owned()));
        }
    }

    /// Entry `j` as written.
    pub(crate) fn written(&self, j: usize) -> Option<&str> {
        match &self.invalid {
            Some((at, text)) if *at == j => Some(text),
            _ => self.names.get(j),
        }
    }
}

impl<'de> Deserialize<'de> for DependsOnRaw {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct ListVisitor;

        impl<'de> Visitor<'de> for ListVisitor {
            type Value = DependsOnRaw;

            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                write!(f, "a list of at most {} entries", DependsOn::MAX)
            }

            fn visit_none<E: de::Error>(self) -> Result<Self::Value, E> {
                Ok(DependsOnRaw::default())
            }

            fn visit_unit<E: de::Error>(self) -> Result<Self::Value, E> {
                Ok(DependsOnRaw::default())
            }

            fn visit_some<D: Deserializer<'de>>(self, inner: D) -> Result<Self::Value, D::Error> {
                inner.deserialize_seq(self)
            }

            fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Self::Value, A::Error> {
                let mut list = DependsOnRaw::default();
                while list.names.len() < DependsOn::MAX {
                    if seq.next_element_seed(Entry(&mut list))?.is_none() {
                        return Ok(list);
                    }
                }
                // At the limit: one more entry, read without storing it, is one too many.
                match seq.next_element::<IgnoredAny>()? {
                    Some(_) => Err(DependsOn::too_many()),
                    None => Ok(list),
                }
            }
        }

        deserializer.deserialize_option(ListVisitor)
    }
}

/// One `dependsOn` entry, appended to the list as it is read.
struct Entry<'a>(&'a mut DependsOnRaw);

impl<'de> DeserializeSeed<'de> for Entry<'_> {
    type Value = ();

    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<(), D::Error> {
        deserializer.deserialize_str(self)
    }
}

impl<'de> Visitor<'de> for Entry<'_> {
    type Value = ();

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a string")
    }

    fn visit_str<E: de::Error>(self, text: &str) -> Result<(), E> {
        self.0.push(text);
        Ok(())
    }
}

/// A `jobs` list read within the bounds.
pub(crate) struct JobList<J>(pub(crate) Vec<J>);

impl<'de, J: RawJob + Deserialize<'de>> Deserialize<'de> for JobList<J> {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct JobsVisitor<J>(PhantomData<fn() -> J>);

        impl<'de, J: RawJob + Deserialize<'de>> Visitor<'de> for JobsVisitor<J> {
            type Value = JobList<J>;

            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                write!(f, "a list of at most {MAX_FLOW_JOBS} jobs")
            }

            fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Self::Value, A::Error> {
                let mut jobs = Vec::new();
                let mut dependencies = 0usize;
                while jobs.len() < MAX_FLOW_JOBS {
                    let Some(job) = seq.next_element::<J>()? else {
                        return Ok(JobList(jobs));
                    };
                    dependencies += job.dependencies();
                    if dependencies > MAX_FLOW_DEPENDENCIES {
                        return Err(de::Error::custom(format_args!(
                            "invalid jobs: more than {MAX_FLOW_DEPENDENCIES} dependencies in all"
                        )));
                    }
                    jobs.push(job);
                }
                match seq.next_element::<IgnoredAny>()? {
                    Some(_) => Err(Jobs::too_many()),
                    None => Ok(JobList(jobs)),
                }
            }
        }

        deserializer.deserialize_seq(JobsVisitor(PhantomData))
    }
}

#[cfg(test)]
mod tests;
