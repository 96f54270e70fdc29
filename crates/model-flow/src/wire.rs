//! The reader of a `jobs` list, shared by the wire forms of a flow and of a flow run: at
//! most [`MAX_FLOW_JOBS`] jobs and [`MAX_FLOW_DEPENDENCIES`] dependencies in all, both
//! checked while reading, so a hostile document stops at the first entry past a bound.

use std::fmt;
use std::marker::PhantomData;

use model_ids::{BoundedVec, Limit};
use serde::de::{self, Deserialize, Deserializer, IgnoredAny, SeqAccess, Visitor};

use crate::bounded::{DependsOn, Jobs};
use crate::limits::{MAX_FLOW_DEPENDENCIES, MAX_FLOW_JOBS};

/// A job as read from the wire, which knows how many dependencies it lists.
pub(crate) trait RawJob {
    /// The job's `dependsOn` entries.
    fn depends_on(&self) -> &[String];
}

/// Reads a raw job's `dependsOn`: `null` or a list of at most
/// [`MAX_JOB_DEPENDENCIES`](crate::MAX_JOB_DEPENDENCIES) names (with `#[serde(default)]`
/// for an absent field).
pub(crate) fn depends_on<'de, D: Deserializer<'de>>(
    deserializer: D,
) -> Result<Vec<String>, D::Error> {
    let list = Option::<BoundedVec<String, DependsOn>>::deserialize(deserializer)?;
    Ok(list.map(BoundedVec::into_inner).unwrap_or_default())
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
                    dependencies += job.depends_on().len();
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
