//! The finished actions' pass: completed and failed schedule actions, a page at a time in
//! the order they finished (keyset on `actions_finished_idx`). The store holds no
//! schedules, so an action is viewed unowned: its kind's rule decides (model-retention's
//! default keeps a finished action a day); a schedule's history limits apply where the
//! schedule is stored with its actions. Every action has its kind's time to live, so once a
//! page keeps one, every later one is kept too and the pass stops.

use taskmodel::ids::{ActionId, TenantId, Uid};
use taskmodel::retention::{Lifecycle, Outcome, OwnedResource, ResourceKind, collect};
use taskmodel::schedule::{Action, ActionState};

use super::{Connection, Pass, VIEW_PAGE};
use crate::columns::clamped_nanos;
use crate::error::StoreError;
use crate::tx::{Sql, Tx, Value};

/// Decides and deletes the finished actions page by page, oldest end first.
pub(super) fn collect_actions<E: Connection>(pass: &mut Pass<'_, E>) -> Result<(), StoreError> {
    let tenant = pass.tenant;
    let mut after = (i64::MIN, String::new());
    loop {
        let actions = pass.engine.snapshot(|tx| page(tx, tenant, &after))?;
        let Some(last) = actions.last() else {
            return Ok(());
        };
        after = (clamped_nanos(last.updated_at()), last.id().to_string());
        let views = actions
            .iter()
            .map(|action| view(tenant, action))
            .collect::<Result<Vec<_>, _>>()?;
        let collection = collect(pass.now, &views);
        pass.expires(collection.next_expiry());
        let doomed: Vec<&Action> = collection
            .deletions()
            .iter()
            .filter_map(|deletion| actions.get(deletion.index()))
            .collect();
        for chunk in doomed.chunks(pass.size) {
            let deleted = pass.engine.commit(|tx| delete_actions(tx, tenant, chunk))?;
            if deleted.len() < chunk.len() {
                pass.collected.complete = false;
            }
            pass.collected.deleted_actions.extend(deleted);
        }
        let full = actions.len() == usize::try_from(VIEW_PAGE).unwrap_or(usize::MAX);
        if !full || doomed.len() < actions.len() {
            return Ok(());
        }
    }
}

/// The finished actions after `after` (`(updated_ns, id)`), in that order.
fn page(
    tx: &mut dyn Tx,
    tenant: &TenantId,
    after: &(i64, String),
) -> Result<Vec<Action>, StoreError> {
    const PAGE: Sql = Sql::new(
        "SELECT doc FROM actions WHERE tenant = ?1 AND state IN ('completed', 'failed') \
         AND (updated_ns, id) > (?2, ?3) ORDER BY updated_ns, id LIMIT ?4",
    );
    let rows = tx.query(
        &PAGE,
        &[
            tenant.as_str().into(),
            Value::Int(after.0),
            after.1.as_str().into(),
            Value::Int(VIEW_PAGE),
        ],
    )?;
    rows.iter()
        .map(|row| {
            serde_json::from_str(row.text(0)?).map_err(|error| StoreError::Corrupt {
                what: format!("an action of tenant \"{tenant}\""),
                reason: error.to_string(),
            })
        })
        .collect()
}

/// A finished action's view, unowned: sealed at its last update, succeeded when it
/// completed (model-retention's `OwnedResource::from_action` without the schedule).
fn view(tenant: &TenantId, action: &Action) -> Result<OwnedResource, StoreError> {
    let outcome = match action.state() {
        ActionState::Completed => Outcome::Succeeded,
        _ => Outcome::Failed,
    };
    let id = action.id();
    OwnedResource::builder(
        ResourceKind::Action,
        tenant.clone(),
        &id.to_string(),
        Lifecycle::sealed(action.updated_at(), outcome),
    )
    .uid(Uid::from_bytes(*id.as_bytes()))
    .build()
    .map_err(|error| StoreError::Corrupt {
        what: format!("action {id} of tenant \"{tenant}\""),
        reason: error.to_string(),
    })
}

/// Deletes the actions, each only while it is in the state and at the update it was read
/// in; returns those that went.
fn delete_actions(
    tx: &mut dyn Tx,
    tenant: &TenantId,
    actions: &[&Action],
) -> Result<Vec<ActionId>, StoreError> {
    const DELETE: Sql = Sql::new(
        "DELETE FROM actions WHERE tenant = ?1 AND id = ?2 AND state = ?3 AND updated_ns = ?4",
    );
    let mut deleted = Vec::with_capacity(actions.len());
    for action in actions {
        let changed = tx.execute(
            &DELETE,
            &[
                tenant.as_str().into(),
                action.id().to_string().into(),
                action.state().as_str().into(),
                Value::Int(clamped_nanos(action.updated_at())),
            ],
        )?;
        if changed == 1 {
            deleted.push(action.id());
        }
    }
    Ok(deleted)
}
