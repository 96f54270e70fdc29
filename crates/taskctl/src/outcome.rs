//! [`Outcome`]: what a run concluded, and the exit code that says it.

/// What a run of taskctl concluded about its input; [`Outcome::code`] is the exit code.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Outcome {
    /// Every input is valid, or the command only reports (exit code 0).
    Valid,
    /// At least one input is invalid (exit code 1).
    Invalid,
    /// The run could not do its job: bad arguments, an input that cannot be read, or a
    /// result that cannot be written (exit code 2).
    Usage,
}

impl Outcome {
    /// [`Outcome::Valid`] when `valid`, else [`Outcome::Invalid`].
    pub(crate) const fn valid_if(valid: bool) -> Self {
        if valid { Self::Valid } else { Self::Invalid }
    }

    /// The process exit code: 0, 1 or 2.
    pub const fn code(self) -> u8 {
        match self {
            Self::Valid => 0,
            Self::Invalid => 1,
            Self::Usage => 2,
        }
    }
}
