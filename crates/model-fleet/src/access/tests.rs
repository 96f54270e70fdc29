//! Unit tests for `access`: every role (and none) against every operation, the reasons,
//! the tenant check, the lists' bounds and the wire form.

use model_ids::ErrorKind;

use super::*;

fn actor(id: &str) -> Actor {
    Actor::new(AgentId::new(id).unwrap())
}

fn tenant(id: &str) -> TenantId {
    TenantId::new(id).unwrap()
}

/// The context of the table: one actor per role, one with two roles, and one with all.
fn context() -> Context {
    Context::builder(tenant("acme"))
        .admin(actor("alice"))
        .reader(actor("bob"))
        .executor(actor("eve"))
        .reader(actor("rex"))
        .executor(actor("rex"))
        .admin(actor("zed"))
        .reader(actor("zed"))
        .executor(actor("zed"))
        .build()
        .unwrap()
}

#[test]
fn every_role_against_every_operation() {
    use Operation::{Administer, Create, Delete, Execute, Read, Update};
    // (actor, operation, the allowing role or None for denied)
    let table: &[(&str, Operation, Option<Role>)] = &[
        ("alice", Create, Some(Role::Admin)),
        ("alice", Read, Some(Role::Admin)),
        ("alice", Update, Some(Role::Admin)),
        ("alice", Delete, Some(Role::Admin)),
        ("alice", Execute, Some(Role::Admin)),
        ("alice", Administer, Some(Role::Admin)),
        ("bob", Create, None),
        ("bob", Read, Some(Role::Reader)),
        ("bob", Update, None),
        ("bob", Delete, None),
        ("bob", Execute, None),
        ("bob", Administer, None),
        ("eve", Create, None),
        ("eve", Read, Some(Role::Executor)),
        ("eve", Update, None),
        ("eve", Delete, None),
        ("eve", Execute, Some(Role::Executor)),
        ("eve", Administer, None),
        ("rex", Create, None),
        ("rex", Read, Some(Role::Reader)),
        ("rex", Update, None),
        ("rex", Delete, None),
        ("rex", Execute, Some(Role::Executor)),
        ("rex", Administer, None),
        ("zed", Read, Some(Role::Reader)),
        ("zed", Execute, Some(Role::Executor)),
        ("zed", Delete, Some(Role::Admin)),
        ("nobody", Create, None),
        ("nobody", Read, None),
        ("nobody", Update, None),
        ("nobody", Delete, None),
        ("nobody", Execute, None),
        ("nobody", Administer, None),
    ];
    let context = context();
    for (who, operation, allowed_by) in table {
        let decision = authorize(&actor(who), *operation, &context);
        match allowed_by {
            Some(role) => assert_eq!(
                decision,
                Decision::Allow { role: *role },
                "{who} {operation}"
            ),
            None => assert!(matches!(decision, Decision::Deny(_)), "{who} {operation}"),
        }
        assert_eq!(
            decision.is_allowed(),
            allowed_by.is_some(),
            "{who} {operation}"
        );
    }
    // Each role alone allows exactly its row of the table in the docs.
    let allowed: Vec<(Role, Vec<Operation>)> = Role::ALL
        .into_iter()
        .map(|role| {
            let ops = Operation::ALL.into_iter().filter(|op| role.allows(*op));
            (role, ops.collect())
        })
        .collect();
    assert_eq!(
        allowed,
        [
            (Role::Reader, vec![Read]),
            (Role::Executor, vec![Read, Execute]),
            (Role::Admin, Operation::ALL.to_vec()),
        ]
    );
}

#[test]
fn decisions_say_why() {
    let context = context();
    let check = |who: &str, operation: Operation, text: &str| {
        assert_eq!(
            authorize(&actor(who), operation, &context).to_string(),
            text
        );
    };
    check(
        "alice",
        Operation::Administer,
        "allowed: an admin may do it",
    );
    check("eve", Operation::Read, "allowed: an executor may do it");
    check(
        "bob",
        Operation::Delete,
        r#"denied: actor "bob" is a reader of tenant "acme", and a reader may not delete"#,
    );
    check(
        "eve",
        Operation::Create,
        r#"denied: actor "eve" is an executor of tenant "acme", and an executor may not create"#,
    );
    check(
        "rex",
        Operation::Administer,
        r#"denied: actor "rex" is a reader and an executor of tenant "acme", and neither may administer"#,
    );
    check(
        "nobody",
        Operation::Read,
        r#"denied: actor "nobody" has no role in tenant "acme""#,
    );
    let err = authorize(&actor("bob"), Operation::Update, &context)
        .into_result()
        .unwrap_err();
    assert_eq!(err.kind(), ErrorKind::Forbidden);
    assert_eq!(
        err.to_string(),
        r#"forbidden: actor "bob" is a reader of tenant "acme", and a reader may not update"#
    );
    assert_eq!(
        authorize(&actor("zed"), Operation::Update, &context).into_result(),
        Ok(Role::Admin)
    );
}

#[test]
fn another_tenants_context_never_allows() {
    let context = context();
    for operation in Operation::ALL {
        assert_eq!(
            authorize_in(&actor("alice"), operation, &context, &tenant("globex")),
            Decision::Deny(Denial::OtherTenant {
                context: tenant("acme"),
                tenant: tenant("globex"),
            })
        );
        assert_eq!(
            authorize_in(&actor("alice"), operation, &context, &tenant("acme")),
            authorize(&actor("alice"), operation, &context)
        );
    }
    assert_eq!(
        authorize_in(
            &actor("alice"),
            Operation::Read,
            &context,
            &tenant("globex")
        )
        .to_string(),
        r#"denied: the context of tenant "acme" does not govern tenant "globex""#
    );
}

#[test]
fn lists_are_bounded_sorted_and_without_repeats() {
    let many = |n: usize| (0..n).map(|i| actor(&format!("a{i:04}")));
    let build = |n: usize| {
        many(n)
            .fold(Context::builder(tenant("acme")), ContextBuilder::reader)
            .build()
    };
    assert_eq!(
        build(MAX_CONTEXT_MEMBERS).unwrap().readers().len(),
        MAX_CONTEXT_MEMBERS
    );
    assert_eq!(
        build(MAX_CONTEXT_MEMBERS + 1),
        Err(FleetError::TooManyEntries {
            field: "readers",
            max: MAX_CONTEXT_MEMBERS
        })
    );
    let twice = Context::builder(tenant("acme"))
        .executor(actor("b"))
        .executor(actor("a"))
        .executor(actor("b"))
        .build();
    assert_eq!(
        twice,
        Err(FleetError::DuplicateMember {
            field: "executors",
            actor: actor("b")
        })
    );
    assert_eq!(
        twice.unwrap_err().to_string(),
        r#"invalid executors: actor "b" is listed twice"#
    );
    let sorted = Context::builder(tenant("acme"))
        .admin(actor("b"))
        .admin(actor("a"))
        .reader(actor("a"))
        .build()
        .unwrap();
    assert_eq!(sorted.admins(), [actor("a"), actor("b")]);
    assert_eq!(sorted.readers(), [actor("a")]);
    assert!(sorted.executors().is_empty());
    assert_eq!(sorted.tenant(), &tenant("acme"));
    let roles: Vec<Role> = sorted.roles(&actor("a")).collect();
    assert_eq!(roles, [Role::Reader, Role::Admin]);
}

#[test]
fn the_wire_form_reads_back_and_checks_every_rule() {
    let json = r#"{"tenant":"acme","admins":["alice"],"readers":["bob","carol"],"executors":[]}"#;
    let context: Context = serde_json::from_str(json).unwrap();
    assert_eq!(serde_json::to_string(&context).unwrap(), json);
    let unsorted: Context =
        serde_json::from_str(r#"{"tenant":"acme","readers":["carol","bob"],"admins":null}"#)
            .unwrap();
    assert_eq!(unsorted.readers(), [actor("bob"), actor("carol")]);
    assert!(unsorted.admins().is_empty());
    let check = |json: &str, message: &str| {
        let err = serde_json::from_str::<Context>(json)
            .unwrap_err()
            .to_string();
        assert!(err.starts_with(message), "{json}: {err}");
    };
    check(r#"{"admins":[]}"#, "missing field `tenant`");
    check(r#"{"tenant":"acme","owners":[]}"#, "unknown field `owners`");
    check(r#"{"tenant":"acme","admins":["a b"]}"#, "invalid agent id");
    check(r#"{"tenant":"acme","admins":[null]}"#, "invalid type: null");
    check(
        r#"{"tenant":"acme","readers":["x","x"]}"#,
        r#"invalid readers: actor "x" is listed twice"#,
    );
    let at_bound = |n: usize| {
        let list: Vec<String> = (0..n).map(|i| format!("\"a{i}\"")).collect();
        format!(r#"{{"tenant":"acme","admins":[{}]}}"#, list.join(","))
    };
    assert!(serde_json::from_str::<Context>(&at_bound(MAX_CONTEXT_MEMBERS)).is_ok());
    check(
        &at_bound(MAX_CONTEXT_MEMBERS + 1),
        "invalid admins: more than 1000 entries",
    );
}
