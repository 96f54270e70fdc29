//! Log lines: stored under their `(attempt, sequence)` key, so a repeated batch stores
//! nothing twice, and read back after a cursor.

use chrono::{DateTime, SecondsFormat, Utc};
use taskmodel::fleet::{LogLine, LogStream, MAX_LOG_BATCH_LINES};
use taskmodel::ids::{TaskId, TenantId};
use taskmodel::task::attempt::LogKey;

use crate::attempts::check_page;
use crate::columns::int;
use crate::error::StoreError;
use crate::pair::{load, refused};
use crate::tx::{Lock, Sql, Tx, Value};
use crate::values::StoredLogLine;

/// [`Store::append_logs`](crate::Store::append_logs).
pub(crate) fn append(
    tx: &mut dyn Tx,
    tenant: &TenantId,
    id: &TaskId,
    lease: taskmodel::task::LeaseId,
    lines: &[LogLine],
    now: DateTime<Utc>,
) -> Result<usize, StoreError> {
    const INSERT: Sql = Sql::new(
        "INSERT INTO log_lines (tenant, task_id, attempt, sequence, stream, line, logged_at) \
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7) ON CONFLICT DO NOTHING",
    );
    if lines.len() > MAX_LOG_BATCH_LINES {
        return Err(StoreError::OutOfRange {
            field: "lines",
            value: format!("{} lines, at most {MAX_LOG_BATCH_LINES}", lines.len()),
        });
    }
    // Each line's length was checked when it was made (`LogLine::new`, or read from JSON).
    let pair = load(tx, tenant, id, Lock::None)?;
    let Some(run) = &pair.attempt else {
        let error = taskmodel::task::TaskError::Gone {
            attempt: 0,
            reason: taskmodel::task::attempt::GoneReason::NotCurrentLease,
        };
        return Err(refused(tenant, id, error));
    };
    pair.task
        .check_lease(run, lease, now)
        .map_err(|error| refused(tenant, id, error))?;
    let mut stored = 0;
    for line in lines {
        let params = [
            tenant.as_str().into(),
            id.as_str().into(),
            Value::Int(i64::from(run.attempt())),
            Value::Int(int("lines[].sequence", line.sequence())?),
            line.stream().as_str().into(),
            line.line().into(),
            line.logged_at()
                .to_rfc3339_opts(SecondsFormat::AutoSi, true)
                .into(),
        ];
        stored += usize::from(tx.execute(&INSERT, &params)? == 1);
    }
    Ok(stored)
}

/// [`Store::logs`](crate::Store::logs).
pub(crate) fn read(
    tx: &mut dyn Tx,
    tenant: &TenantId,
    id: &TaskId,
    after: Option<LogKey>,
    limit: u32,
) -> Result<Vec<StoredLogLine>, StoreError> {
    const AFTER: Sql = Sql::new(
        "SELECT attempt, sequence, stream, line, logged_at FROM log_lines \
         WHERE tenant = ?1 AND task_id = ?2 AND (attempt, sequence) > (?3, ?4) \
         ORDER BY attempt, sequence LIMIT ?5",
    );
    let limit = check_page(limit)?;
    // Attempts count from 1, so (0, 0) is before every line.
    let after = after.unwrap_or_default();
    let rows = tx.query(
        &AFTER,
        &[
            tenant.as_str().into(),
            id.as_str().into(),
            Value::Int(i64::from(after.attempt())),
            Value::Int(int("after.sequence", after.sequence())?),
            Value::Int(i64::from(limit)),
        ],
    )?;
    rows.iter()
        .map(|row| {
            let corrupt = |reason: String| StoreError::Corrupt {
                what: format!("a log line of task \"{id}\" of tenant \"{tenant}\""),
                reason,
            };
            let attempt = u32::try_from(row.int(0)?).map_err(|e| corrupt(e.to_string()))?;
            let sequence = u64::try_from(row.int(1)?).map_err(|e| corrupt(e.to_string()))?;
            let stream = LogStream::from_name(row.text(2)?)
                .ok_or_else(|| corrupt(format!("unknown stream {:?}", row.0.get(2))))?;
            let at = DateTime::parse_from_rfc3339(row.text(4)?)
                .map_err(|e| corrupt(e.to_string()))?
                .with_timezone(&Utc);
            Ok(StoredLogLine {
                key: LogKey::new(attempt, sequence),
                stream,
                text: row.text(3)?.to_owned(),
                at,
            })
        })
        .collect()
}
