//! Unit tests for `ScheduleError`.
