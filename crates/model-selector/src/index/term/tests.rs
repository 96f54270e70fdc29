//! Unit tests of term fingerprints.

use super::*;

#[test]
fn fingerprints_separate_key_value_boundaries() {
    // The separator keeps `ab=c` and `a=bc` apart, and a key term apart from a pair.
    assert_ne!(fingerprint("ab", Some("c")), fingerprint("a", Some("bc")));
    assert_ne!(fingerprint("a", Some("")), fingerprint("a", None));
    assert_eq!(
        fingerprint("zone", Some("eu")),
        fingerprint("zone", Some("eu"))
    );
}
