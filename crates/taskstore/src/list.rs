//! Task listings as native keyset pages: the model-query order `(created_at, id)` as
//! `ORDER BY` on an index and the token's key as a row-value `WHERE`, never an offset
//! (`docs/keyset-pagination.md`).

use std::fmt::Write as _;

use taskmodel::ids::TenantId;
use taskmodel::query::{SortOrder, TaskPage, TaskQuery, TimeRange};
use taskmodel::task::Task;

use crate::columns::{clamped_nanos, exact_nanos, read_task};
use crate::error::StoreError;
use crate::tx::{Sql, Tx, Value};

/// The fewest rows one read of a listing asks for: the label selector is matched after
/// reading, so a read may keep fewer rows than it returns.
const MIN_BATCH: u32 = 32;

/// [`Store::list`](crate::Store::list).
///
/// The database narrows by tenant, slot, phases and the time ranges (a superset of the
/// query: an upper time bound is compared inclusively on the column, which saturates at
/// the ends of its range) and orders; [`TaskQuery::matches`] then decides exactly, with the
/// label selector. Reads go on after the last row read until `limit + 1` tasks matched or
/// the rows run out; the extra task only says that a next page exists.
pub(crate) fn list(tx: &mut dyn Tx, query: &TaskQuery) -> Result<TaskPage, StoreError> {
    let tenant = query.tenant();
    let want = usize::try_from(query.limit())
        .unwrap_or(usize::MAX)
        .saturating_add(1);
    let (filter, mut params) = filter(tenant, query);
    let descending = query.order() == SortOrder::Descending;
    let (direction, compare) = if descending {
        ("DESC", "<")
    } else {
        ("ASC", ">")
    };
    let mut cursor = query
        .after()
        .map(|key| {
            Ok::<_, StoreError>((
                exact_nanos("continue", key.created_at)?,
                key.id.as_str().to_owned(),
            ))
        })
        .transpose()?;
    let first = params.len() + 1;
    let limit_at = first + 2;
    let page_sql = Sql::built(format!(
        "SELECT doc FROM tasks WHERE {filter} AND (created_ns, id) {compare} (?{first}, ?{}) \
         ORDER BY created_ns {direction}, id {direction} LIMIT ?{limit_at}",
        first + 1
    ));
    let head_sql = Sql::built(format!(
        "SELECT doc FROM tasks WHERE {filter} ORDER BY created_ns {direction}, id {direction} \
         LIMIT ?{first}"
    ));
    let mut items: Vec<Task> = Vec::with_capacity(want);
    loop {
        let batch = u32::try_from(want - items.len())
            .unwrap_or(u32::MAX)
            .max(MIN_BATCH);
        let mut bound = std::mem::take(&mut params);
        let base = bound.len();
        let sql = match &cursor {
            Some((created, id)) => {
                bound.extend([Value::Int(*created), id.as_str().into()]);
                &page_sql
            }
            None => &head_sql,
        };
        bound.push(Value::Int(i64::from(batch)));
        let rows = tx.query(sql, &bound)?;
        bound.truncate(base);
        params = bound;
        for row in &rows {
            let task = read_task(row, 0, tenant, None)?;
            cursor = Some((
                exact_nanos("metadata.createdAt", task.metadata().created_at())?,
                task.id().as_str().to_owned(),
            ));
            if query.matches(&task) {
                items.push(task);
                if items.len() == want {
                    break;
                }
            }
        }
        if items.len() == want || rows.len() < usize::try_from(batch).unwrap_or(usize::MAX) {
            break;
        }
    }
    // The rows are the page plus, when there is one, the first task after it: the model's
    // own evaluation over them gives the page and issues the token, so both agree.
    Ok(query.evaluate(items))
}

/// The `WHERE` conditions of the query's filters the database can check, and their values.
fn filter(tenant: &TenantId, query: &TaskQuery) -> (String, Vec<Value>) {
    let mut sql = String::from("tenant = ?1");
    let mut params: Vec<Value> = vec![tenant.as_str().into()];
    fn bind(sql: &mut String, params: &mut Vec<Value>, condition: &str, value: Value) {
        params.push(value);
        let _ = write!(sql, " AND {condition} ?{}", params.len());
    }
    if let Some(slot) = query.slot() {
        bind(&mut sql, &mut params, "slot =", slot.as_str().into());
    }
    if !query.phases().is_empty() {
        sql.push_str(" AND phase IN (");
        for (index, phase) in query.phases().iter().enumerate() {
            params.push(phase.as_str().into());
            let _ = write!(
                sql,
                "{}?{}",
                if index == 0 { "" } else { ", " },
                params.len()
            );
        }
        sql.push(')');
    }
    for (column, range) in [
        ("created_ns", query.created()),
        ("updated_ns", query.updated()),
    ] {
        let TimeRange { since, before } = range;
        if let Some(since) = since {
            let condition = format!("{column} >=");
            bind(
                &mut sql,
                &mut params,
                &condition,
                Value::Int(clamped_nanos(since)),
            );
        }
        if let Some(before) = before {
            let condition = format!("{column} <=");
            bind(
                &mut sql,
                &mut params,
                &condition,
                Value::Int(clamped_nanos(before)),
            );
        }
    }
    (sql, params)
}
