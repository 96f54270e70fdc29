//! A tenant's context from JSON, then every access check against it.
//!
//! A context that parses must serialize to a fixpoint that parses back equal, with each
//! list sorted, without repeats and within its bound. For every actor it lists (and one it
//! does not) and every operation, `authorize` allows exactly when one of the actor's roles
//! allows the operation, and another tenant's check never allows.
#![no_main]

use libfuzzer_sys::fuzz_target;
use taskmodel::fleet::{
    Actor, Context, MAX_CONTEXT_MEMBERS, Operation, authorize, authorize_in,
};
use taskmodel::ids::{AgentId, TenantId};

fn round_trip(context: &Context) {
    let json = serde_json::to_string(context).expect("a context serializes");
    let back: Context = serde_json::from_str(&json)
        .unwrap_or_else(|err| panic!("JSON {json} does not parse back: {err}"));
    assert_eq!(&back, context, "JSON round trip differs: {json}");
    assert_eq!(serde_json::to_string(&back).expect("serializes"), json);
}

fuzz_target!(|data: &[u8]| {
    let Ok(context) = serde_json::from_slice::<Context>(data) else {
        return;
    };
    round_trip(&context);
    let lists = [context.admins(), context.readers(), context.executors()];
    for list in lists {
        assert!(list.len() <= MAX_CONTEXT_MEMBERS);
        assert!(list.windows(2).all(|pair| pair[0] < pair[1]), "{list:?}");
    }
    let stranger = Actor::new(AgentId::new("no-such-actor-in-any-list").expect("an id"));
    let other = TenantId::new(format!("{}x", context.tenant()).get(..64).unwrap_or("x"))
        .expect("a tenant id");
    let actors = lists.iter().flat_map(|list| list.iter()).chain([&stranger]);
    for actor in actors {
        let roles: Vec<_> = context.roles(actor).collect();
        for operation in Operation::ALL {
            let allowed = authorize(actor, operation, &context).is_allowed();
            assert_eq!(allowed, roles.iter().any(|role| role.allows(operation)));
            if other != *context.tenant() {
                assert!(!authorize_in(actor, operation, &context, &other).is_allowed());
            }
        }
    }
});
