//! One attempt of a task under a lease: its record ([`TaskRun`]), its state machine
//! ([`AttemptState`]), the lease a runner names ([`LeaseId`]), log dedupe ([`LogCursor`]),
//! and the task methods that change a task and its current attempt together, so the pair
//! always agrees. The rules are in `docs/attempts.md`.
//!
//! Built only on `Task`'s public lifecycle methods (`begin_attempt`, `end_attempt`,
//! `cancel`), so the phase table, the restart decision and the version rules are the ones
//! the task already has.

use chrono::{DateTime, SecondsFormat, Utc};
use model_ids::RunnerId;
use model_policy::RandomSource;

use crate::error::{InvalidReason, TaskError};
use crate::lifecycle::{AttemptOutcome, AttemptResult, RestartDecision, TaskPhase};
use crate::task::{Precondition, Task};

mod lease;
mod log;
mod record;
mod state;

pub(crate) use self::record::TaskRunRaw;
use self::record::stored_result;
pub use self::{
    lease::LeaseId,
    log::{LogCursor, LogKey},
    record::TaskRun,
    state::{AttemptState, GoneReason},
};

/// Whether a call changed anything, so an API can answer an idempotent repeat (the same
/// start, heartbeat or result again) as a success without writing.
///
/// `Changed` carries what the change decided, where there is something to say (the restart
/// decision after a result or an expiry); `Unchanged` means the call was a repeat and the
/// stored values stand.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[must_use]
pub enum Applied<T = ()> {
    /// The call changed the attempt, the task or both; store them.
    Changed(T),
    /// The call repeated what is already recorded; nothing to store.
    Unchanged,
}

impl<T> Applied<T> {
    /// Whether the call changed anything.
    pub const fn is_changed(&self) -> bool {
        matches!(self, Self::Changed(_))
    }

    /// What the change decided, if the call changed anything.
    pub fn changed(self) -> Option<T> {
        match self {
            Self::Changed(value) => Some(value),
            Self::Unchanged => None,
        }
    }
}

/// # Attempts and leases
///
/// A task runs each attempt under a lease, and a [`TaskRun`] records it. These methods take
/// the task and its current attempt together and change both or neither; the rules they
/// keep are stated once, in `docs/attempts.md`:
///
/// - One active attempt: the attempt's number is the task's attempt counter, and the
///   attempt is active (Leased, Running, Cancelling) exactly while the task is Running. A
///   pair that does not agree is [`TaskError::AttemptMismatch`]: re-read both.
/// - [`lease_attempt`](Self::lease_attempt) claims the next attempt for a runner: the task
///   goes Pending to Running with attempt + 1 (one version bump, so two concurrent claims
///   conflict on the version) and a Leased attempt is returned.
/// - Runner calls name a lease: [`start_attempt`](Self::start_attempt),
///   [`heartbeat_attempt`](Self::heartbeat_attempt), [`check_lease`](Self::check_lease)
///   (logs, artifacts) and [`report_result`](Self::report_result). A stale lease is gone
///   ([`TaskError::Gone`]); a lease is live while `now < lease_expires_at`.
/// - Repeats are idempotent and say so with [`Applied::Unchanged`]; results are
///   first-write-wins (a different one is [`TaskError::AttemptConflict`]).
/// - Cancel intent wins: [`cancel_attempt`](Self::cancel_attempt) moves an active attempt
///   to Cancelling, which can only end Canceled.
/// - [`expire_attempt`](Self::expire_attempt) ends an attempt whose lease expired; the
///   task counts it as a Failed attempt, so the restart policy and `maxRetries` requeue the
///   task or end it (Exhausted once the budget is spent).
/// - A final attempt never changes, and a final task changes no more than its version
///   (when the attempt it left behind ends).
/// - The task and its current attempt are one aggregate: every call that answers
///   [`Applied::Changed`] bumps the task's `resourceVersion` by exactly one, whether it
///   changed the task, the attempt or both. A store writes the pair together, fenced by
///   the version it read, and so never loses an acknowledged change (a cancel) to a racing
///   write computed at the same version (`docs/attempts.md`, "The store contract").
///
/// ```
/// use chrono::{TimeDelta, TimeZone, Utc};
/// use model_ids::{RunnerId, TaskId, TenantId, Uid};
/// use model_policy::{RestartPolicy, SeededRandom};
/// use model_task::*;
/// use model_task::attempt::GoneReason;
///
/// let t0 = Utc.with_ymd_and_hms(2025, 1, 1, 0, 0, 0).unwrap();
/// let secs = |s| t0 + TimeDelta::seconds(s);
/// let kind = TaskKind::subprocess(SubprocessMode::command("/bin/true".into(), vec![])?, TaskEnv::empty(), None)?;
/// let spec = TaskSpec::builder("lane", kind, 1_000).restart(RestartPolicy::OnFailure).max_retries(0).build()?;
/// let mut task = Task::create(TaskManifest::named(TaskId::new("job")?, spec), TenantId::new("infra")?, Uid::from_u128(1), t0)?;
/// let mut rng = SeededRandom::new(1);
///
/// let lease = LeaseId::new(7);
/// let mut run = task.lease_attempt(Some(1), None, RunnerId::new("r-1")?, lease, secs(30), t0)?;
/// assert_eq!((task.phase(), run.attempt(), run.state()), (TaskPhase::Running, 1, AttemptState::Leased));
///
/// assert_eq!(task.start_attempt(&mut run, lease, secs(1))?, Applied::Changed(()));
/// assert_eq!(task.start_attempt(&mut run, lease, secs(2))?, Applied::Unchanged);
/// let stale = task.heartbeat_attempt(&mut run, LeaseId::new(6), secs(40), secs(3)).unwrap_err();
/// assert!(matches!(stale, TaskError::Gone { reason: GoneReason::NotCurrentLease, .. }));
///
/// let failed = AttemptResult::new(AttemptOutcome::Failed).with_exit_code(1);
/// let decision = task.report_result(&mut run, lease, failed.clone(), &mut rng, secs(4))?;
/// assert_eq!(decision, Applied::Changed(RestartDecision::Exhausted));
/// assert_eq!((task.phase(), run.state()), (TaskPhase::Exhausted, AttemptState::Failed));
/// // The same result again is an idempotent success; a different one is a conflict.
/// assert_eq!(task.report_result(&mut run, lease, failed, &mut rng, secs(5))?, Applied::Unchanged);
/// let other = AttemptResult::new(AttemptOutcome::Succeeded);
/// assert!(matches!(
///     task.report_result(&mut run, lease, other, &mut rng, secs(5)),
///     Err(TaskError::AttemptConflict { .. })
/// ));
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
impl Task {
    /// Claims the next attempt for `runner` under `lease` until `lease_expires_at`: the task
    /// goes Pending to Running with attempt + 1 (as [`begin_attempt`](Self::begin_attempt),
    /// so not before a scheduled restart is due) and the new attempt is returned, Leased.
    ///
    /// `previous` is the record of the task's current attempt, final, and is needed once the
    /// task has had an attempt: `lease` must differ from its lease, so that the previous
    /// holder's calls stay gone (a lease id is new within a task). Errors, in order:
    /// [`TaskError::Conflict`] (expected version), no `previous` for a task that ran
    /// ([`TaskError::Invalid`]), the previous attempt's ([`TaskError::AttemptMismatch`]),
    /// its lease id again ([`TaskError::LeaseReused`]), `leaseExpiresAt` not after `now`
    /// ([`TaskError::Invalid`]), then those of [`begin_attempt`](Self::begin_attempt).
    pub fn lease_attempt(
        &mut self,
        expected: impl Into<Precondition>,
        previous: Option<&TaskRun>,
        runner: RunnerId,
        lease: LeaseId,
        lease_expires_at: DateTime<Utc>,
        now: DateTime<Utc>,
    ) -> Result<TaskRun, TaskError> {
        self.metadata().check(&expected.into())?;
        match previous {
            None if self.status().attempt() > 0 => {
                return Err(TaskError::invalid(
                    "previous",
                    InvalidReason::Inconsistent {
                        rule: "the task's last attempt is needed to check the new lease",
                    },
                ));
            }
            None => {}
            Some(previous) => {
                self.check_pair(previous)?;
                if previous.lease == lease {
                    return Err(TaskError::LeaseReused {
                        attempt: previous.attempt,
                        lease,
                    });
                }
            }
        }
        if lease_expires_at <= now {
            return Err(TaskError::invalid(
                "leaseExpiresAt",
                InvalidReason::Inconsistent {
                    rule: "the lease must expire after now",
                },
            ));
        }
        let attempt = self.begin_attempt(None, now)?;
        Ok(TaskRun::leased(
            self.id().clone(),
            attempt,
            self.status().observed_generation(),
            runner,
            lease,
            lease_expires_at,
            now,
        ))
    }

    /// The runner starts its attempt: Leased to Running at `now`, and the task's version
    /// goes up by one. Starting a running attempt again is `Unchanged`; starting a
    /// cancelling one is [`TaskError::AttemptConflict`] (the runner should stop). Gone as
    /// [`check_lease`](Self::check_lease).
    pub fn start_attempt(
        &mut self,
        run: &mut TaskRun,
        lease: LeaseId,
        now: DateTime<Utc>,
    ) -> Result<Applied, TaskError> {
        self.check_lease(run, lease, now)?;
        match run.state {
            AttemptState::Leased => {
                self.touch(now)?;
                run.mark_started(now);
                Ok(Applied::Changed(()))
            }
            AttemptState::Running => Ok(Applied::Unchanged),
            state => Err(TaskError::AttemptConflict {
                attempt: run.attempt,
                state,
                rule: "cancel was requested, the attempt cannot start",
            }),
        }
    }

    /// The runner extends its lease to `lease_expires_at`. A time at or before the current
    /// expiry is `Unchanged` (a lease never shrinks, so a repeated heartbeat is harmless);
    /// one at or before `now` is [`TaskError::Invalid`] at `leaseExpiresAt`. Allowed while
    /// the attempt is active, cancelling included. An extension bumps the task's version by
    /// one. Gone as [`check_lease`](Self::check_lease).
    pub fn heartbeat_attempt(
        &mut self,
        run: &mut TaskRun,
        lease: LeaseId,
        lease_expires_at: DateTime<Utc>,
        now: DateTime<Utc>,
    ) -> Result<Applied, TaskError> {
        self.check_lease(run, lease, now)?;
        if lease_expires_at <= now {
            return Err(TaskError::invalid(
                "leaseExpiresAt",
                InvalidReason::Inconsistent {
                    rule: "the lease must expire after now",
                },
            ));
        }
        if lease_expires_at <= run.lease_expires_at {
            return Ok(Applied::Unchanged);
        }
        self.touch(now)?;
        run.lease_expires_at = lease_expires_at;
        Ok(Applied::Changed(()))
    }

    /// Whether `lease` is live for `run` at `now`: what a runner call about logs or artifacts
    /// checks. [`TaskError::AttemptMismatch`] if the pair disagrees, else [`TaskError::Gone`] when
    /// the lease is not the attempt's ([`GoneReason::NotCurrentLease`]), the attempt has ended
    /// ([`GoneReason::AttemptEnded`], or [`GoneReason::LeaseExpired`] for an expired one),
    /// the task has ended ([`GoneReason::TaskEnded`]) or `now` is at or after the lease
    /// expiry ([`GoneReason::LeaseExpired`]).
    pub fn check_lease(
        &self,
        run: &TaskRun,
        lease: LeaseId,
        now: DateTime<Utc>,
    ) -> Result<(), TaskError> {
        self.check_pair(run)?;
        let gone = |reason| {
            Err(TaskError::Gone {
                attempt: run.attempt,
                reason,
            })
        };
        if lease != run.lease {
            return gone(GoneReason::NotCurrentLease);
        }
        match run.state {
            AttemptState::Expired => return gone(GoneReason::LeaseExpired),
            state if state.is_final() => return gone(GoneReason::AttemptEnded),
            _ => {}
        }
        if self.phase().is_final() {
            return gone(GoneReason::TaskEnded);
        }
        if now >= run.lease_expires_at {
            return gone(GoneReason::LeaseExpired);
        }
        Ok(())
    }

    /// Requests cancel of the task's current attempt. An active attempt goes to Cancelling
    /// (cancel intent; the task stays Running until the attempt ends Canceled, and its
    /// version goes up by one, so a result computed before the cancel loses); a cancelling
    /// attempt is `Unchanged`; when the attempt is final and the task waits for a restart, the task
    /// is canceled at once (as [`cancel`](Self::cancel)). A final task is
    /// [`TaskError::InvalidTransition`]. A task that never ran has no attempt: use
    /// [`cancel`](Self::cancel).
    pub fn cancel_attempt(
        &mut self,
        expected: impl Into<Precondition>,
        run: &mut TaskRun,
        now: DateTime<Utc>,
    ) -> Result<Applied, TaskError> {
        self.metadata().check(&expected.into())?;
        self.check_pair(run)?;
        self.phase().check_transition(TaskPhase::Canceled)?;
        match run.state {
            AttemptState::Leased | AttemptState::Running => {
                self.touch(now)?;
                run.mark_cancelling();
                Ok(Applied::Changed(()))
            }
            AttemptState::Cancelling => Ok(Applied::Unchanged),
            _ => {
                self.cancel(None, now)?;
                Ok(Applied::Changed(()))
            }
        }
    }

    /// The runner reports how its attempt ended. Running ends in the outcome's state and the
    /// task applies the restart decision ([`end_attempt`](Self::end_attempt)), which is
    /// returned. First write wins: on a final attempt the same result (error text compared after
    /// cutting to size) is `Unchanged` and a different one is [`TaskError::AttemptConflict`]; an
    /// expired attempt is gone. A cancelling attempt accepts only Canceled (else
    /// [`TaskError::AttemptConflict`]); a leased attempt must start first
    /// ([`TaskError::InvalidAttemptTransition`]). Gone as [`check_lease`](Self::check_lease),
    /// except that a repeat on a final attempt is answered as above. Random numbers are drawn
    /// only for a scheduled restart.
    pub fn report_result<R: RandomSource + ?Sized>(
        &mut self,
        run: &mut TaskRun,
        lease: LeaseId,
        result: AttemptResult,
        rng: &mut R,
        now: DateTime<Utc>,
    ) -> Result<Applied<RestartDecision>, TaskError> {
        let result = stored_result(result);
        if run.is_final() && run.state != AttemptState::Expired {
            self.check_pair(run)?;
            if lease != run.lease {
                return Err(TaskError::Gone {
                    attempt: run.attempt,
                    reason: GoneReason::NotCurrentLease,
                });
            }
            if run.records(&result) {
                return Ok(Applied::Unchanged);
            }
            return Err(TaskError::AttemptConflict {
                attempt: run.attempt,
                state: run.state,
                rule: "a different result is already recorded",
            });
        }
        self.check_lease(run, lease, now)?;
        let to = AttemptState::of_outcome(result.outcome);
        match run.state {
            AttemptState::Leased => Err(TaskError::InvalidAttemptTransition {
                from: AttemptState::Leased,
                to,
            }),
            AttemptState::Cancelling if to != AttemptState::Canceled => {
                Err(TaskError::AttemptConflict {
                    attempt: run.attempt,
                    state: AttemptState::Cancelling,
                    rule: "cancel was requested, the attempt can only end canceled",
                })
            }
            _ => {
                let (exit_code, error) = (result.exit_code, result.error.clone());
                let decision = self.end_attempt(None, result, rng, now)?;
                run.mark_final(to, exit_code, error, now);
                Ok(Applied::Changed(decision))
            }
        }
    }

    /// Ends an active attempt whose lease expired (`now` at or after its expiry, else
    /// [`TaskError::LeaseNotExpired`]): a cancelling attempt ends Canceled and the task is
    /// Canceled; any other ends Expired and the task counts the attempt as Failed with the
    /// error "lease expired at ...", so the restart policy requeues it or ends it (Exhausted
    /// when the budget is spent). The decision is returned. A final attempt is `Unchanged`: a
    /// result that won the race stands, and nothing is resurrected. If the task has already
    /// ended (canceled at once with [`cancel`](Self::cancel)) only the attempt ends, Canceled
    /// for a canceled task and Expired otherwise, the task's version goes up by one, and the
    /// decision is the task's final phase.
    pub fn expire_attempt<R: RandomSource + ?Sized>(
        &mut self,
        run: &mut TaskRun,
        rng: &mut R,
        now: DateTime<Utc>,
    ) -> Result<Applied<RestartDecision>, TaskError> {
        self.check_pair(run)?;
        if run.is_final() {
            return Ok(Applied::Unchanged);
        }
        if now < run.lease_expires_at {
            return Err(TaskError::LeaseNotExpired {
                expires_at: run.lease_expires_at,
                now,
            });
        }
        let phase = self.phase();
        if phase.is_final() {
            let state = if phase == TaskPhase::Canceled {
                AttemptState::Canceled
            } else {
                AttemptState::Expired
            };
            self.touch(now)?;
            run.mark_final(state, None, None, now);
            return Ok(Applied::Changed(RestartDecision::Final(phase)));
        }
        let (state, result) = if run.state == AttemptState::Cancelling {
            (
                AttemptState::Canceled,
                AttemptResult::new(AttemptOutcome::Canceled),
            )
        } else {
            let at = run
                .lease_expires_at
                .to_rfc3339_opts(SecondsFormat::AutoSi, true);
            (
                AttemptState::Expired,
                AttemptResult::new(AttemptOutcome::Failed)
                    .with_error(format!("lease expired at {at}")),
            )
        };
        let decision = self.end_attempt(None, result, rng, now)?;
        run.mark_final(state, None, None, now);
        Ok(Applied::Changed(decision))
    }

    /// Checks that `run` is this task's current attempt (its number and the generation it
    /// runs) and agrees with its phase.
    fn check_pair(&self, run: &TaskRun) -> Result<(), TaskError> {
        if run.task_id != *self.id() {
            return Err(TaskError::invalid_input(
                "taskId",
                run.task_id.as_str(),
                InvalidReason::Inconsistent {
                    rule: "the attempt belongs to another task",
                },
            ));
        }
        let phase = self.phase();
        let agrees = run.attempt == self.status().attempt()
            && run.generation == self.status().observed_generation()
            && match phase {
                TaskPhase::Running => run.is_active(),
                TaskPhase::Pending => run.is_final(),
                // A final task may leave an active attempt behind only when it was canceled at
                // once; expire_attempt ends that attempt.
                _ => true,
            };
        if agrees {
            Ok(())
        } else {
            Err(TaskError::AttemptMismatch {
                task_attempt: self.status().attempt(),
                task_phase: phase,
                attempt: run.attempt,
                state: run.state,
            })
        }
    }
}

#[cfg(test)]
mod tests;
