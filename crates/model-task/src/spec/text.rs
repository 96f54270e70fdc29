//! Checks shared by every text field that reaches `execve`, a path or the environment.

use crate::error::{InvalidReason, TaskError};

/// Checks that `value` has no NUL byte and at most `max` bytes; `path` names the field.
pub(crate) fn check_text(path: &str, value: &str, max: usize) -> Result<(), TaskError> {
    if value.len() > max {
        return Err(TaskError::invalid_input(
            path,
            value,
            InvalidReason::TooLong {
                len: value.len(),
                max,
            },
        ));
    }
    if let Some(index) = value.bytes().position(|b| b == 0) {
        return Err(TaskError::invalid_input(
            path,
            value,
            InvalidReason::NulByte { index },
        ));
    }
    Ok(())
}

/// Like [`check_text`], and the value must not be empty.
pub(crate) fn check_nonempty_text(path: &str, value: &str, max: usize) -> Result<(), TaskError> {
    if value.is_empty() {
        return Err(TaskError::invalid(path, InvalidReason::Empty));
    }
    check_text(path, value, max)
}

/// Checks an argument list: at most `MAX_ARGS` entries, each a valid argument.
/// Paths are relative to the list (`[3]`).
pub(crate) fn check_args(args: &[String]) -> Result<(), TaskError> {
    use super::limits::{MAX_ARG_BYTES, MAX_ARGS};
    if args.len() > MAX_ARGS {
        return Err(TaskError::invalid(
            "",
            InvalidReason::TooMany {
                len: args.len(),
                max: MAX_ARGS,
            },
        ));
    }
    for (i, arg) in args.iter().enumerate() {
        if arg.len() > MAX_ARG_BYTES || arg.as_bytes().contains(&0) {
            return check_text(&format!("[{i}]"), arg, MAX_ARG_BYTES);
        }
    }
    Ok(())
}
