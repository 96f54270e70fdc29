//! Tenancy and access: a tenant's [`Context`] lists its admins, readers and executors, and
//! [`authorize`] answers whether an [`Actor`] may perform an [`Operation`] in it, and why.

use std::fmt;

use model_ids::{AgentId, BoundedVec, TenantId};
use serde::{Deserialize, Serialize};

use crate::error::FleetError;

/// Most actors in each list of a [`Context`] (admins, readers, executors).
pub const MAX_CONTEXT_MEMBERS: usize = 1_000;

/// Who asks: a person or a service, named by an [`AgentId`]. On the wire, the id as a
/// string.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(transparent)]
pub struct Actor(AgentId);

impl Actor {
    /// The actor named `id`.
    pub const fn new(id: AgentId) -> Self {
        Self(id)
    }

    /// The actor's id.
    pub const fn id(&self) -> &AgentId {
        &self.0
    }
}

impl From<AgentId> for Actor {
    fn from(id: AgentId) -> Self {
        Self(id)
    }
}

impl fmt::Display for Actor {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.0.fmt(f)
    }
}

/// What an actor asks to do with a task, flow or schedule of a tenant.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
#[non_exhaustive]
pub enum Operation {
    /// Submit a new task, flow or schedule.
    Create,
    /// Read one, list them, read attempts and logs.
    Read,
    /// Change the desired state: apply a changed manifest, cancel, pause.
    Update,
    /// Delete one.
    Delete,
    /// Run work: claim and lease attempts, start, heartbeat, report results and logs (the
    /// runner protocol, which moves a task's status).
    Execute,
    /// Manage the context itself: its admins, readers and executors.
    Administer,
}

impl Operation {
    /// Every operation, in declaration order.
    pub const ALL: [Operation; 6] = [
        Operation::Create,
        Operation::Read,
        Operation::Update,
        Operation::Delete,
        Operation::Execute,
        Operation::Administer,
    ];

    /// The operation's name: `create`, `read`, `update`, `delete`, `execute`, `administer`.
    pub const fn as_str(self) -> &'static str {
        match self {
            Operation::Create => "create",
            Operation::Read => "read",
            Operation::Update => "update",
            Operation::Delete => "delete",
            Operation::Execute => "execute",
            Operation::Administer => "administer",
        }
    }
}

impl fmt::Display for Operation {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// A role in a [`Context`], and what it allows.
///
/// | role | allows |
/// | --- | --- |
/// | admin | every operation |
/// | executor | read, execute |
/// | reader | read |
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
#[non_exhaustive]
pub enum Role {
    /// Listed in `readers`.
    Reader,
    /// Listed in `executors`.
    Executor,
    /// Listed in `admins`.
    Admin,
}

impl Role {
    /// Every role, from the least allowed to the most.
    pub const ALL: [Role; 3] = [Role::Reader, Role::Executor, Role::Admin];

    /// Whether the role allows `operation`.
    pub const fn allows(self, operation: Operation) -> bool {
        match self {
            Role::Admin => true,
            Role::Executor => matches!(operation, Operation::Read | Operation::Execute),
            Role::Reader => matches!(operation, Operation::Read),
        }
    }

    /// `a` or `an`, as the role's name needs.
    const fn article(self) -> &'static str {
        match self {
            Role::Reader => "a",
            Role::Executor | Role::Admin => "an",
        }
    }

    /// The role's name: `reader`, `executor`, `admin`.
    pub const fn as_str(self) -> &'static str {
        match self {
            Role::Reader => "reader",
            Role::Executor => "executor",
            Role::Admin => "admin",
        }
    }
}

impl fmt::Display for Role {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// A tenant's permission lists: who administers it, who reads its tasks, flows and
/// schedules, and who runs their work. Every task, flow and schedule belongs to one tenant,
/// and an operation on it is authorized against that tenant's context.
///
/// Each list holds at most [`MAX_CONTEXT_MEMBERS`] actors, each once; an actor may be in
/// several lists. The lists are kept sorted. On the wire (lists may be left out):
/// `{"tenant": "acme", "admins": ["alice"], "readers": ["bob"], "executors": ["ci-runner"]}`.
///
/// ```
/// use model_fleet::{Actor, Context, Operation, Role, authorize};
/// use model_ids::{AgentId, TenantId};
///
/// let actor = |id: &str| AgentId::new(id).map(Actor::new);
/// let acme = Context::builder(TenantId::new("acme")?)
///     .admin(actor("alice")?)
///     .reader(actor("bob")?)
///     .build()?;
/// assert!(authorize(&actor("alice")?, Operation::Delete, &acme).is_allowed());
/// let denied = authorize(&actor("bob")?, Operation::Update, &acme);
/// assert_eq!(
///     denied.to_string(),
///     r#"denied: actor "bob" is a reader of tenant "acme", and a reader may not update"#
/// );
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(try_from = "ContextRaw", rename_all = "camelCase")]
pub struct Context {
    tenant: TenantId,
    admins: Vec<Actor>,
    readers: Vec<Actor>,
    executors: Vec<Actor>,
}

/// Builds a [`Context`]: [`Context::builder`].
#[derive(Debug, Clone)]
#[must_use]
pub struct ContextBuilder {
    tenant: TenantId,
    admins: Vec<Actor>,
    readers: Vec<Actor>,
    executors: Vec<Actor>,
}

impl ContextBuilder {
    /// Adds an admin.
    pub fn admin(mut self, actor: Actor) -> Self {
        self.admins.push(actor);
        self
    }

    /// Adds a reader.
    pub fn reader(mut self, actor: Actor) -> Self {
        self.readers.push(actor);
        self
    }

    /// Adds an executor.
    pub fn executor(mut self, actor: Actor) -> Self {
        self.executors.push(actor);
        self
    }

    /// The context.
    ///
    /// # Errors
    ///
    /// [`FleetError::TooManyEntries`] for a list of more than [`MAX_CONTEXT_MEMBERS`];
    /// [`FleetError::DuplicateMember`] for an actor listed twice in one list.
    pub fn build(self) -> Result<Context, FleetError> {
        Ok(Context {
            tenant: self.tenant,
            admins: members("admins", self.admins)?,
            readers: members("readers", self.readers)?,
            executors: members("executors", self.executors)?,
        })
    }
}

/// `actors` sorted, if there are not too many and none is listed twice.
fn members(field: &'static str, mut actors: Vec<Actor>) -> Result<Vec<Actor>, FleetError> {
    if actors.len() > MAX_CONTEXT_MEMBERS {
        return Err(FleetError::TooManyEntries {
            field,
            max: MAX_CONTEXT_MEMBERS,
        });
    }
    actors.sort();
    let twice = actors
        .windows(2)
        .find_map(|pair| pair.first().filter(|first| pair.get(1) == Some(*first)));
    if let Some(actor) = twice {
        return Err(FleetError::DuplicateMember {
            field,
            actor: actor.clone(),
        });
    }
    Ok(actors)
}

impl Context {
    /// A builder for the context of `tenant`, with empty lists.
    pub fn builder(tenant: TenantId) -> ContextBuilder {
        ContextBuilder {
            tenant,
            admins: Vec::new(),
            readers: Vec::new(),
            executors: Vec::new(),
        }
    }

    /// The tenant.
    pub const fn tenant(&self) -> &TenantId {
        &self.tenant
    }

    /// The admins, sorted.
    pub fn admins(&self) -> &[Actor] {
        &self.admins
    }

    /// The readers, sorted.
    pub fn readers(&self) -> &[Actor] {
        &self.readers
    }

    /// The executors, sorted.
    pub fn executors(&self) -> &[Actor] {
        &self.executors
    }

    /// The roles `actor` holds, from the least allowed to the most.
    pub fn roles(&self, actor: &Actor) -> impl Iterator<Item = Role> + '_ {
        let listed = |list: &[Actor]| list.binary_search(actor).is_ok();
        let held = [
            listed(&self.readers),
            listed(&self.executors),
            listed(&self.admins),
        ];
        Role::ALL
            .into_iter()
            .zip(held)
            .filter_map(|(role, held)| held.then_some(role))
    }
}

/// Whether `actor` may perform `operation` in `context`, and why: allowed by the least
/// allowed role that allows it, or denied because the actor holds no role there, or none
/// of its roles allows the operation.
///
/// The context must be the one of the tenant that owns what the operation touches; a store
/// reads it by that tenant, and [`authorize_in`] checks it.
pub fn authorize(actor: &Actor, operation: Operation, context: &Context) -> Decision {
    let mut roles = context.roles(actor).peekable();
    if roles.peek().is_none() {
        return Decision::Deny(Denial::NotMember {
            actor: actor.clone(),
            tenant: context.tenant.clone(),
        });
    }
    let mut held = Vec::with_capacity(Role::ALL.len());
    for role in roles {
        if role.allows(operation) {
            return Decision::Allow { role };
        }
        held.push(role);
    }
    Decision::Deny(Denial::NotAllowed {
        actor: actor.clone(),
        tenant: context.tenant.clone(),
        operation,
        roles: held,
    })
}

/// [`authorize`] for an operation on something owned by `tenant`: denied when `context`
/// is another tenant's, whatever the actor's roles there.
pub fn authorize_in(
    actor: &Actor,
    operation: Operation,
    context: &Context,
    tenant: &TenantId,
) -> Decision {
    if context.tenant != *tenant {
        return Decision::Deny(Denial::OtherTenant {
            context: context.tenant.clone(),
            tenant: tenant.clone(),
        });
    }
    authorize(actor, operation, context)
}

/// The answer of [`authorize`].
#[derive(Debug, Clone, PartialEq, Eq)]
#[must_use]
#[non_exhaustive]
pub enum Decision {
    /// Allowed, by this role.
    Allow {
        /// The least allowed of the actor's roles that allows the operation.
        role: Role,
    },
    /// Denied, and why.
    Deny(Denial),
}

impl Decision {
    /// Whether the operation is allowed.
    pub const fn is_allowed(&self) -> bool {
        matches!(self, Decision::Allow { .. })
    }

    /// The allowing role, or the denial as an error (its kind is
    /// [`Forbidden`](model_ids::ErrorKind::Forbidden)).
    ///
    /// # Errors
    ///
    /// [`FleetError::Forbidden`] with the denial.
    pub fn into_result(self) -> Result<Role, FleetError> {
        match self {
            Decision::Allow { role } => Ok(role),
            Decision::Deny(denial) => Err(FleetError::Forbidden(denial)),
        }
    }
}

/// `allowed: ...` or `denied: ...`.
impl fmt::Display for Decision {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Decision::Allow { role } => write!(f, "allowed: {} {role} may do it", role.article()),
            Decision::Deny(denial) => write!(f, "denied: {denial}"),
        }
    }
}

/// Why [`authorize`] denied an operation.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum Denial {
    /// The actor is in none of the context's lists.
    NotMember {
        /// The actor.
        actor: Actor,
        /// The context's tenant.
        tenant: TenantId,
    },
    /// The actor's roles do not allow the operation.
    NotAllowed {
        /// The actor.
        actor: Actor,
        /// The context's tenant.
        tenant: TenantId,
        /// The operation.
        operation: Operation,
        /// The roles the actor holds, from the least allowed to the most.
        roles: Vec<Role>,
    },
    /// The context is not the one of the tenant that owns what the operation touches.
    OtherTenant {
        /// The context's tenant.
        context: TenantId,
        /// The owning tenant.
        tenant: TenantId,
    },
}

impl fmt::Display for Denial {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Denial::NotMember { actor, tenant } => {
                write!(f, "actor \"{actor}\" has no role in tenant \"{tenant}\"")
            }
            Denial::NotAllowed {
                actor,
                tenant,
                operation,
                roles,
            } => {
                write!(f, "actor \"{actor}\" is ")?;
                for (i, role) in roles.iter().enumerate() {
                    let sep = match i {
                        0 => "",
                        _ if i + 1 == roles.len() => " and ",
                        _ => ", ",
                    };
                    write!(f, "{sep}{} {role}", role.article())?;
                }
                write!(f, " of tenant \"{tenant}\", and ")?;
                match roles.as_slice() {
                    [role] => write!(f, "{} {role} may not {operation}", role.article()),
                    _ => write!(f, "neither may {operation}"),
                }
            }
            Denial::OtherTenant { context, tenant } => write!(
                f,
                "the context of tenant \"{context}\" does not govern tenant \"{tenant}\""
            ),
        }
    }
}

model_ids::limits! {
    /// The bound of `admins` ([`MAX_CONTEXT_MEMBERS`]).
    Admins = "admins", MAX_CONTEXT_MEMBERS;
    /// The bound of `readers` ([`MAX_CONTEXT_MEMBERS`]).
    Readers = "readers", MAX_CONTEXT_MEMBERS;
    /// The bound of `executors` ([`MAX_CONTEXT_MEMBERS`]).
    Executors = "executors", MAX_CONTEXT_MEMBERS;
}

/// A context as read, before its rules are checked. `null` in a list reads as empty.
#[derive(Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
struct ContextRaw {
    tenant: TenantId,
    #[serde(default)]
    admins: Option<BoundedVec<Actor, Admins>>,
    #[serde(default)]
    readers: Option<BoundedVec<Actor, Readers>>,
    #[serde(default)]
    executors: Option<BoundedVec<Actor, Executors>>,
}

/// The actors of a list as read, or none for a list left out.
fn list<L>(list: Option<BoundedVec<Actor, L>>) -> Vec<Actor> {
    list.map(BoundedVec::into_inner).unwrap_or_default()
}

impl TryFrom<ContextRaw> for Context {
    type Error = FleetError;

    fn try_from(raw: ContextRaw) -> Result<Self, FleetError> {
        Ok(Context {
            tenant: raw.tenant,
            admins: members("admins", list(raw.admins))?,
            readers: members("readers", list(raw.readers))?,
            executors: members("executors", list(raw.executors))?,
        })
    }
}

#[cfg(test)]
mod tests;
