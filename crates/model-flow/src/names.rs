//! `JobNames`: a list of job names (a job's `dependsOn`) kept back to back in one buffer.

use std::fmt;

use model_ids::{JOB_NAME_MAX_LEN, JobName};
use serde::{Serialize, Serializer};

// A name's length is one ASCII byte in front of it, and a job name is ASCII.
const _: () = assert!(JOB_NAME_MAX_LEN < 0x80);

/// A list of job names, such as the jobs a [`FlowJob`](crate::FlowJob) depends on, kept in
/// one buffer: each name's length (one byte) and then its bytes, back to back.
///
/// A list of a handful of names is one allocation, read front to back, where a
/// `Vec<JobName>` is one allocation for the list and one per name. Reading a flow builds
/// each job's list as it reads the names, and [`FlowGraph`](crate::FlowGraph) resolves
/// them in that order. On the wire a list of strings (`["extract", "transform"]`).
///
/// ```
/// use model_flow::JobNames;
/// use model_ids::JobName;
///
/// let extract = JobName::new("extract")?;
/// let mut names = JobNames::new();
/// names.push(&extract);
/// names.push(&JobName::new("transform")?);
/// assert_eq!(names.len(), 2);
/// assert_eq!(names.iter().collect::<Vec<_>>(), ["extract", "transform"]);
/// assert_eq!(names.get(1), Some("transform"));
/// assert_eq!(serde_json::to_string(&names)?, r#"["extract","transform"]"#);
/// assert_eq!(names, [extract, JobName::new("transform")?].into_iter().collect());
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Clone, Default, PartialEq, Eq, Hash)]
pub struct JobNames {
    /// Each entry's length as one byte, then its bytes: ASCII throughout. An entry read from
    /// the wire that is no job name is kept empty (see [`JobNames::push_text`]).
    text: String,
    len: usize,
}

impl JobNames {
    /// An empty list.
    pub const fn new() -> Self {
        Self {
            text: String::new(),
            len: 0,
        }
    }

    /// An empty list with room for `bytes` bytes of names (each name takes its length and
    /// one more).
    pub fn with_capacity(bytes: usize) -> Self {
        Self {
            text: String::with_capacity(bytes),
            len: 0,
        }
    }

    /// Appends `name`.
    pub fn push(&mut self, name: &JobName) {
        self.push_entry(name.as_str());
    }

    /// Appends `text` if it is a valid job name and returns `true`; else appends an empty
    /// entry, which no job is named, and returns `false` (the reader keeps the text aside
    /// for its error).
    pub(crate) fn push_text(&mut self, text: &str) -> bool {
        let valid = JobName::validate(text).is_ok();
        self.push_entry(if valid { text } else { "" });
        valid
    }

    /// Appends an entry: a job name's text (at most `JOB_NAME_MAX_LEN` ASCII bytes), or
    /// the empty entry for anything else.
    fn push_entry(&mut self, name: &str) {
        let fits = name.len() <= JOB_NAME_MAX_LEN && name.is_ascii();
        let name = if fits { name } else { "" };
        // At most JOB_NAME_MAX_LEN, below 0x80: one ASCII byte.
        self.text
            .push(char::from(u8::try_from(name.len()).unwrap_or_default()));
        self.text.push_str(name);
        self.len += 1;
    }

    /// The number of names.
    pub fn len(&self) -> usize {
        self.len
    }

    /// Whether the list has no names.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// The names, in order.
    pub fn iter(&self) -> impl ExactSizeIterator<Item = &str> + Clone + fmt::Debug + '_ {
        Entries {
            rest: &self.text,
            left: self.len,
        }
    }

    /// The name at `index`, counting from 0 (it walks the list up to it).
    pub fn get(&self, index: usize) -> Option<&str> {
        self.iter().nth(index)
    }
}

impl JobNames {
    /// The entries as stored, for [`entries`].
    pub(crate) fn as_encoded(&self) -> &str {
        &self.text
    }
}

/// The entries of a list stored as `encoded` ([`JobNames::as_encoded`]), as bytes.
pub(crate) fn entries(encoded: &str) -> impl Iterator<Item = &[u8]> {
    let mut rest = encoded.as_bytes();
    std::iter::from_fn(move || {
        let (&len, after) = rest.split_first()?;
        let (name, next) = after.split_at_checked(usize::from(len))?;
        rest = next;
        Some(name)
    })
}

impl fmt::Debug for JobNames {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_list().entries(self.iter()).finish()
    }
}

impl Serialize for JobNames {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.collect_seq(self.iter())
    }
}

impl<'a> FromIterator<&'a JobName> for JobNames {
    fn from_iter<I: IntoIterator<Item = &'a JobName>>(names: I) -> Self {
        let mut list = Self::new();
        list.extend(names);
        list
    }
}

impl FromIterator<JobName> for JobNames {
    fn from_iter<I: IntoIterator<Item = JobName>>(names: I) -> Self {
        let mut list = Self::new();
        list.extend(names);
        list
    }
}

impl<'a> Extend<&'a JobName> for JobNames {
    fn extend<I: IntoIterator<Item = &'a JobName>>(&mut self, names: I) {
        for name in names {
            self.push(name);
        }
    }
}

impl Extend<JobName> for JobNames {
    fn extend<I: IntoIterator<Item = JobName>>(&mut self, names: I) {
        for name in names {
            self.push(&name);
        }
    }
}

/// The names of a [`JobNames`], in order: each entry's length byte, then its text.
#[derive(Debug, Clone)]
struct Entries<'a> {
    rest: &'a str,
    left: usize,
}

impl<'a> Iterator for Entries<'a> {
    type Item = &'a str;

    #[inline]
    fn next(&mut self) -> Option<&'a str> {
        let len = usize::from(*self.rest.as_bytes().first()?);
        let name = self.rest.get(1..=len)?;
        self.rest = self.rest.get(len + 1..).unwrap_or_default();
        self.left = self.left.saturating_sub(1);
        Some(name)
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        (self.left, Some(self.left))
    }
}

impl ExactSizeIterator for Entries<'_> {}

#[cfg(test)]
mod tests;
