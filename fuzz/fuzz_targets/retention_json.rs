//! A view of resources (a JSON array of `OwnedResource`) or a `RetentionPolicy`, from JSON.
//!
//! Whatever parses reads back equal and serializes to a fixpoint. `check` and `collect`
//! (at the ends of time and at each resource's finish time) never panic, and a collection
//! deletes only finished resources, each once, never an owner before something it owns and
//! deletes too, and releases only resources it keeps.
#![no_main]

use chrono::{DateTime, Utc};
use libfuzzer_sys::fuzz_target;
use taskmodel::retention::{OwnedResource, ResourceKind, RetentionPolicy, check, collect};

fn round_trip<T>(value: &T)
where
    T: serde::Serialize + serde::de::DeserializeOwned + PartialEq + std::fmt::Debug,
{
    let json = serde_json::to_string(value).expect("serializes");
    let back: T = serde_json::from_str(&json)
        .unwrap_or_else(|err| panic!("JSON {json} does not parse back: {err}"));
    assert_eq!(&back, value, "JSON round trip differs: {json}");
    assert_eq!(serde_json::to_string(&back).expect("serializes"), json);
}

/// Whether `dependent` names `owner` as an owner (by uid, kind and name, in its tenant).
fn owns(owner: &OwnedResource, dependent: &OwnedResource) -> bool {
    owner.tenant() == dependent.tenant()
        && dependent.owner_references().iter().any(|r| {
            owner.uid() == Some(r.uid())
                && ResourceKind::of_owner(r.kind()) == Some(owner.kind())
                && owner.name() == r.name()
        })
}

fn laws(now: DateTime<Utc>, resources: &[OwnedResource]) {
    let collection = collect(now, resources);
    let mut deleted = vec![false; resources.len()];
    for deletion in collection.deletions() {
        let index = deletion.index();
        assert!(!deleted[index], "{} deleted twice", deletion.resource());
        assert!(!deletion.resource().lifecycle().is_draft(), "{} is running", deletion.resource());
        deleted[index] = true;
    }
    for (k, earlier) in collection.deletions().iter().enumerate() {
        for later in &collection.deletions()[k + 1..] {
            assert!(
                !owns(earlier.resource(), later.resource()),
                "{} deleted before {}, which it owns",
                earlier.resource(),
                later.resource()
            );
        }
    }
    for release in collection.releases() {
        assert!(!deleted[release.index()], "{} released and deleted", release.resource());
    }
    if let Some(next) = collection.next_expiry() {
        assert!(next > now);
    }
}

fuzz_target!(|data: &[u8]| {
    if let Ok(policy) = serde_json::from_slice::<RetentionPolicy>(data) {
        round_trip(&policy);
    }
    let Ok(resources) = serde_json::from_slice::<Vec<OwnedResource>>(data) else {
        return;
    };
    for resource in &resources {
        round_trip(resource);
    }
    let _ = check(&resources);
    let mut times = vec![DateTime::<Utc>::MIN_UTC, DateTime::<Utc>::MAX_UTC];
    times.extend(resources.iter().filter_map(|r| r.lifecycle().sealed_at()).take(4));
    for now in times {
        laws(now, &resources);
    }
});
