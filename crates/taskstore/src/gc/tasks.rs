//! The standalone tasks' pass: finished tasks that name no owner and that no task names as
//! one, a page at a time in id order (keyset on the primary key). Nothing outside such a
//! task bears on its fate (its attempts all go with it once it is finished, and their rows
//! go by the foreign key), so each page is decided alone, and a tenant of any size is
//! collected in pages of [`VIEW_PAGE`].

use taskmodel::retention::collect;

use super::graph::{task_view, write_deletions};
use super::{Connection, Pass, VIEW_PAGE};
use crate::error::StoreError;
use crate::tx::{Sql, Value};

/// Decides and deletes the standalone finished tasks page by page.
pub(super) fn collect_tasks<E: Connection>(pass: &mut Pass<'_, E>) -> Result<(), StoreError> {
    const PAGE: Sql = Sql::new(
        "SELECT t.id, t.doc FROM tasks t \
         WHERE t.tenant = ?1 AND t.id > ?2 AND t.finished_ns IS NOT NULL \
         AND NOT EXISTS (SELECT 1 FROM task_owners o WHERE o.tenant = t.tenant AND o.task_id = t.id) \
         AND NOT EXISTS (SELECT 1 FROM task_owners o WHERE o.tenant = t.tenant AND o.owner_uid = t.uid) \
         ORDER BY t.id LIMIT ?3",
    );
    let mut after = String::new();
    loop {
        let tenant = pass.tenant;
        let (views, entries) = pass.engine.snapshot(|tx| {
            let rows = tx.query(
                &PAGE,
                &[
                    tenant.as_str().into(),
                    after.as_str().into(),
                    Value::Int(VIEW_PAGE),
                ],
            )?;
            let mut views = Vec::with_capacity(rows.len());
            let mut entries = Vec::with_capacity(rows.len());
            for row in &rows {
                let (view, entry) = task_view(tenant, row)?;
                views.push(view);
                entries.push(entry);
            }
            Ok((views, entries))
        })?;
        let Some(last) = views.last() else {
            return Ok(());
        };
        after = last.name().to_owned();
        let collection = collect(pass.now, &views);
        pass.expires(collection.next_expiry());
        write_deletions(pass, &entries, collection.deletions())?;
        if views.len() < usize::try_from(VIEW_PAGE).unwrap_or(usize::MAX) {
            return Ok(());
        }
    }
}
