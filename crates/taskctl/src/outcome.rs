//! `Outcome`: what a command concluded, and the exit code that says it.

/// What a command concluded about its input.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub(crate) enum Outcome {
    /// Every input is valid, or the command only reports (exit code 0).
    Valid,
    /// At least one input is invalid (exit code 1).
    Invalid,
    /// The command could not do its job: bad arguments, or an input that cannot be read (exit code 2).
    Usage,
}

impl Outcome {
    /// [`Outcome::Valid`] when `valid`, else [`Outcome::Invalid`].
    pub(crate) const fn valid_if(valid: bool) -> Self {
        if valid { Self::Valid } else { Self::Invalid }
    }

    /// The process exit code.
    pub(crate) const fn code(self) -> u8 {
        match self {
            Self::Valid => 0,
            Self::Invalid => 1,
            Self::Usage => 2,
        }
    }
}
