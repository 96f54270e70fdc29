//! A flow's jobs as rows of `flow_jobs`, read on first use and written back when changed:
//! model-flow's step (`end_job`, `cancel_jobs`) runs over them, so a job's end reads and
//! writes its dependents' rows, never the whole flow.

use std::collections::BTreeMap;

use taskmodel::flow::{
    FlowJobs, JobCounts, JobRow, JobState, SkipReason, TriggerRule, UpstreamTally,
};
use taskmodel::ids::{FlowId, JobName, TenantId};

use super::corrupt;
use crate::columns::int;
use crate::error::StoreError;
use crate::tx::{Row, Sql, Tx, Value};

/// The most positions one `IN (...)` reads at once.
const READ_ROWS: usize = 100;

/// The columns a job's row is read with, in [`read_job`]'s order.
pub(super) const JOB_COLUMNS: &str = "position, job, state, skip_reason, rule, dependencies, \
     up_succeeded, up_failed, up_skipped, dependents";

/// One job's row as read.
pub(super) struct StoredJob {
    pub(super) name: JobName,
    pub(super) row: JobRow,
    pub(super) dependents: Vec<u32>,
    changed: bool,
}

/// The rows of one flow's jobs that a step read, by position.
pub(super) struct JobRows<'a> {
    tx: &'a mut dyn Tx,
    tenant: &'a TenantId,
    flow: &'a FlowId,
    jobs: BTreeMap<u32, StoredJob>,
}

impl<'a> JobRows<'a> {
    pub(super) fn new(tx: &'a mut dyn Tx, tenant: &'a TenantId, flow: &'a FlowId) -> Self {
        Self {
            tx,
            tenant,
            flow,
            jobs: BTreeMap::new(),
        }
    }

    /// The job at `position`, read if it was not.
    pub(super) fn job(&mut self, position: u32) -> Result<&mut StoredJob, StoreError> {
        if !self.jobs.contains_key(&position) {
            self.read(&[position])?;
        }
        let (tenant, flow) = (self.tenant, self.flow);
        self.jobs.get_mut(&position).ok_or_else(|| {
            corrupt(
                tenant,
                flow,
                &format!("it has no job at position {position}"),
            )
        })
    }

    /// Reads the rows at `positions` not read yet, [`READ_ROWS`] at a time.
    fn read(&mut self, positions: &[u32]) -> Result<(), StoreError> {
        let missing: Vec<u32> = positions
            .iter()
            .copied()
            .filter(|p| !self.jobs.contains_key(p))
            .collect();
        for chunk in missing.chunks(READ_ROWS) {
            let marks: Vec<String> = (3..3 + chunk.len()).map(|n| format!("?{n}")).collect();
            let sql = format!(
                "SELECT {JOB_COLUMNS} FROM flow_jobs WHERE tenant = ?1 AND flow = ?2 \
                 AND position IN ({})",
                marks.join(", ")
            );
            let mut params: Vec<Value> =
                vec![self.tenant.as_str().into(), self.flow.as_str().into()];
            params.extend(chunk.iter().map(|&p| Value::Int(i64::from(p))));
            for row in self.tx.query(&Sql::built(sql), &params)? {
                let (position, job) = read_job(self.tenant, self.flow, &row)?;
                self.jobs.insert(position, job);
            }
        }
        Ok(())
    }

    /// Writes back every row the step changed.
    pub(super) fn write(self) -> Result<(), StoreError> {
        const UPDATE: Sql = Sql::new(
            "UPDATE flow_jobs SET state = ?4, skip_reason = ?5, up_succeeded = ?6, \
             up_failed = ?7, up_skipped = ?8 WHERE tenant = ?1 AND flow = ?2 AND position = ?3",
        );
        for (position, job) in &self.jobs {
            if !job.changed {
                continue;
            }
            let row = job.row;
            self.tx.execute(
                &UPDATE,
                &[
                    self.tenant.as_str().into(),
                    self.flow.as_str().into(),
                    Value::Int(i64::from(*position)),
                    row.state.as_str().into(),
                    row.state
                        .skip_reason()
                        .map_or(Value::Null, |r| r.as_str().into()),
                    Value::Int(i64::from(row.tally.succeeded())),
                    Value::Int(i64::from(row.tally.failed())),
                    Value::Int(i64::from(row.tally.skipped())),
                ],
            )?;
        }
        Ok(())
    }

    /// The tenant the flow belongs to.
    pub(super) fn tenant(&self) -> &TenantId {
        self.tenant
    }

    /// The transaction the rows are read in.
    pub(super) fn tx(&mut self) -> &mut dyn Tx {
        &mut *self.tx
    }
}

impl FlowJobs for JobRows<'_> {
    type Error = StoreError;

    fn row(&mut self, job: u32) -> Result<JobRow, StoreError> {
        Ok(self.job(job)?.row)
    }

    fn set_row(&mut self, job: u32, row: JobRow) -> Result<(), StoreError> {
        let stored = self.job(job)?;
        stored.row = row;
        stored.changed = true;
        Ok(())
    }

    fn dependents(&mut self, job: u32, into: &mut Vec<u32>) -> Result<(), StoreError> {
        let dependents = self.job(job)?.dependents.clone();
        self.read(&dependents)?;
        into.extend(dependents);
        Ok(())
    }

    fn not_started(&mut self, into: &mut Vec<u32>) -> Result<(), StoreError> {
        const NOT_STARTED: Sql = Sql::new(
            "SELECT position FROM flow_jobs WHERE tenant = ?1 AND flow = ?2 \
             AND state IN ('waiting', 'ready') ORDER BY position",
        );
        let rows = self.tx.query(
            &NOT_STARTED,
            &[self.tenant.as_str().into(), self.flow.as_str().into()],
        )?;
        let mut positions = Vec::with_capacity(rows.len());
        for row in &rows {
            positions.push(position(self.tenant, self.flow, row.int(0)?)?);
        }
        self.read(&positions)?;
        into.extend(positions);
        Ok(())
    }
}

/// A job's row read with [`JOB_COLUMNS`], and its position.
fn read_job(tenant: &TenantId, flow: &FlowId, row: &Row) -> Result<(u32, StoredJob), StoreError> {
    let bad = |e: &dyn std::fmt::Display| corrupt(tenant, flow, e);
    let at = position(tenant, flow, row.int(0)?)?;
    let name = JobName::new(row.text(1)?).map_err(|e| bad(&e))?;
    let reason = match row.0.get(3) {
        Some(Value::Text(reason)) => Some(reason.as_str()),
        _ => None,
    };
    let state = state_of(row.text(2)?, reason).ok_or_else(|| bad(&"a job's state is unknown"))?;
    let rule = TriggerRule::ALL
        .into_iter()
        .find(|rule| rule.as_str() == row.text(4).unwrap_or_default())
        .ok_or_else(|| bad(&"a job's rule is unknown"))?;
    let count = |index: usize| -> Result<u32, StoreError> {
        u32::try_from(row.int(index)?).map_err(|e| bad(&e))
    };
    let tally = UpstreamTally::new(count(6)?, count(7)?, count(8)?);
    let dependents = parse_positions(row.text(9)?).ok_or_else(|| bad(&"a job's dependents"))?;
    let job = StoredJob {
        name,
        row: JobRow {
            state,
            rule,
            dependencies: count(5)?,
            tally,
        },
        dependents,
        changed: false,
    };
    Ok((at, job))
}

/// A position column as a `u32` (a flow has at most `MAX_FLOW_JOBS` jobs).
fn position(tenant: &TenantId, flow: &FlowId, value: i64) -> Result<u32, StoreError> {
    u32::try_from(value).map_err(|e| corrupt(tenant, flow, &e))
}

/// A job's state from its `state` and `skip_reason` columns.
pub(super) fn state_of(name: &str, reason: Option<&str>) -> Option<JobState> {
    let state = match (name, reason) {
        ("waiting", None) => JobState::Waiting,
        ("ready", None) => JobState::Ready,
        ("running", None) => JobState::Running,
        ("succeeded", None) => JobState::Succeeded,
        ("failed", None) => JobState::Failed,
        ("canceled", None) => JobState::Canceled,
        ("skipped", Some(reason)) => JobState::Skipped(
            [
                SkipReason::UpstreamFailed,
                SkipReason::NotTriggered,
                SkipReason::FailFast,
                SkipReason::Canceled,
            ]
            .into_iter()
            .find(|r| r.as_str() == reason)?,
        ),
        _ => return None,
    };
    Some(state)
}

/// The `dependents` column: positions separated by commas.
pub(super) fn format_positions(positions: impl Iterator<Item = usize>) -> String {
    let mut text = String::new();
    for (i, position) in positions.enumerate() {
        if i > 0 {
            text.push(',');
        }
        text.push_str(&position.to_string());
    }
    text
}

/// The positions [`format_positions`] wrote.
fn parse_positions(text: &str) -> Option<Vec<u32>> {
    if text.is_empty() {
        return Some(Vec::new());
    }
    text.split(',').map(|p| p.parse().ok()).collect()
}

/// A count as a column value.
pub(super) fn count_value(field: &'static str, value: u64) -> Result<Value, StoreError> {
    int(field, value).map(Value::Int)
}

/// A flow's five job counts as column values, in the order of [`JobCounts::parts`]
/// (`not_started`, `running`, `failed`, `canceled`, `other_final`).
pub(super) fn count_values(counts: &JobCounts) -> Result<[Value; 5], StoreError> {
    let [a, b, c, d, e] = counts.parts();
    Ok([
        count_value("flow.jobs", a)?,
        count_value("flow.jobs", b)?,
        count_value("flow.jobs", c)?,
        count_value("flow.jobs", d)?,
        count_value("flow.jobs", e)?,
    ])
}
