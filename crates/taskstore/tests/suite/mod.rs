//! The conformance suite: every test here runs unchanged against both engines
//! (`tests/sqlite.rs` and `tests/postgres.rs` instantiate it with `conformance!`). A test
//! that needs concurrency opens one store per thread, each with its own connection.
#![allow(
    dead_code,
    unreachable_pub,
    reason = "a test module shared by each engine's test file, which uses what it needs"
)]

mod actions;
mod apply;
mod claims;
mod fields;
mod fixtures;
mod flow_reads;
mod flows;
mod gc;
mod queue_head;
mod races;
mod retention;
mod rules;
mod runners;
mod scenarios;
mod schedules;

pub use actions::*;
pub use apply::*;
pub use claims::*;
pub use fields::*;
pub use fixtures::*;
pub use flow_reads::*;
pub use flows::*;
pub use gc::*;
pub use queue_head::*;
pub use races::*;
pub use retention::*;
pub use rules::*;
pub use runners::*;
pub use scenarios::*;
pub use schedules::*;

/// Instantiates every conformance test for a backend factory
/// `fn(test_name: &str) -> Option<B>` (`None` skips, for a missing optional server).
#[macro_export]
macro_rules! conformance {
    ($backend:path) => {
        $crate::conformance!(@tests $backend;
            claims_each_task_exactly_once_with_16_workers,
            a_refused_claim_among_concurrent_ones_undoes_no_other,
            a_runner_at_capacity_claims_nothing,
            cancel_racing_result_converges_and_never_loses_the_cancel,
            expiry_racing_a_late_result_never_resurrects,
            duplicate_start_heartbeat_and_result_are_idempotent,
            a_conflicting_result_is_a_conflict,
            a_terminal_task_rejects_every_change,
            queue_order_is_deterministic,
            a_task_queued_before_the_rest_is_claimed_next_after_many_claims,
            tasks_created_while_others_claim_are_each_claimed_once,
            log_lines_deduplicate_by_attempt_and_sequence,
            keyset_pages_return_each_lasting_task_once_under_churn,
            pages_equal_the_reference_evaluation,
            another_tenant_sees_nothing,
            a_stale_lease_cannot_heartbeat_log_or_report,
            lease_expiry_requeues_then_exhausts_at_the_retry_limit,
            in_flight_cancel_goes_cancelling_then_canceled,
            a_stale_expected_version_is_a_retryable_conflict,
            one_task_runs_at_a_time_in_a_slot,
            admission_drops_queues_and_replaces,
            claims_follow_the_runner_selector_and_kinds,
            a_runner_behind_other_kinds_claims_its_task,
            a_runner_behind_selectors_it_does_not_match_claims_in_queue_order,
            a_restart_is_not_claimed_before_it_is_due,
            attempt_history_lists_every_attempt,
            delete_refuses_a_running_task_and_removes_the_rest,
            import_stores_all_tasks_or_none,
            every_task_written_reads_back_equal,
            a_uid_mismatch_is_gone,
            a_uid_is_taken_once_in_a_tenant,
            a_task_of_another_tenant_is_refused,
            owned_lists_an_owners_tasks_in_pages,
            ttl_expired_lists_finished_tasks_past_their_ttl,
            due_actions_fire_once_in_due_order,
            concurrent_tick_loops_fire_each_action_once,
            an_action_ends_once_and_a_completed_one_recurs,
            startup_recovery_fails_only_stale_running_actions,
            apply_bumps_the_generation_only_on_a_spec_change,
            apply_to_an_ended_task_changes_metadata_only,
            a_diamond_flow_runs_in_order,
            a_failed_job_skips_its_dependents_under_fail_fast,
            concurrent_job_ends_advance_the_flow_exactly_once,
            a_reaped_job_task_ends_its_job,
            canceling_a_flow_skips_waiting_jobs_and_cancels_running_tasks,
            runners_register_heartbeat_drain_and_deregister,
            claim_as_reads_labels_and_capacity_from_the_runner_row,
            gc_deletes_expired_tasks_in_batches_with_their_attempts_and_logs,
            gc_deletes_a_flow_after_its_tasks_and_releases_a_gone_owner,
            gc_trims_a_live_tasks_attempt_history_with_its_log_lines,
            gc_deletes_finished_actions_a_day_after_they_end,
            gc_collects_standalone_tasks_in_pages,
            a_job_result_is_stored_with_the_flow,
            flows_list_in_creation_order_in_keyset_pages,
            schedules_are_stored_listed_changed_and_deleted,
            a_tick_fires_each_fire_time_once_within_the_catch_up_window,
            overlap_policies_decide_ticks_while_a_run_is_active,
            concurrent_tick_loops_fire_each_schedule_tick_once,
            ticks_racing_pauses_lose_no_write,
            gc_keeps_a_schedules_tasks_by_its_history_limits
        );
    };
    (@tests $backend:path; $($name:ident),* $(,)?) => {
        $(
            #[test]
            fn $name() {
                if let Some(backend) = $backend(stringify!($name)) {
                    suite::$name(&backend);
                }
            }
        )*
    };
}
