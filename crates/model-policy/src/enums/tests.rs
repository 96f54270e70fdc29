//! Unit tests for the policy enums: spellings, wire form, errors (restart's own are in
//! `restart/tests.rs`).

use super::*;

fn check<T>(input: &str, expected: Option<T>)
where
    T: FromStr<Err = PolicyError> + PartialEq + fmt::Debug,
{
    assert_eq!(input.parse::<T>().ok(), expected, "parse {input:?}");
}

#[test]
fn jitter_spellings() {
    use JitterPolicy::*;
    check("none", Some(None));
    check("None", Some(None));
    check("full", Some(Full));
    check("FULL", Some(Full));
    check("equal", Some(Equal));
    check("Equal", Some(Equal));
    check("decorrelated", Some(Decorrelated));
    check("DeCorrelated", Some(Decorrelated));
    check::<JitterPolicy>("de-correlated", Option::None);
    check::<JitterPolicy>("random", Option::None);
    check::<JitterPolicy>("ful", Option::None);
}

#[test]
fn admission_spellings() {
    use AdmissionPolicy::*;
    check("dropIfRunning", Some(DropIfRunning));
    check("DropIfRunning", Some(DropIfRunning));
    check("dropifrunning", Some(DropIfRunning));
    check("drop-if-running", Some(DropIfRunning));
    check("DROP_IF_RUNNING", Some(DropIfRunning));
    check("replace", Some(Replace));
    check("Queue", Some(Queue));
    check::<AdmissionPolicy>("drop-if_running", None);
    check::<AdmissionPolicy>("drop-ifrunning", None);
    check::<AdmissionPolicy>("drop", None);
    check::<AdmissionPolicy>("dropIfRunning!", None);
}

#[test]
fn unknown_strings_name_the_policy() {
    assert_eq!(
        "x".parse::<JitterPolicy>(),
        Err(PolicyError::UnknownJitter { input: "x".into() })
    );
    assert_eq!(
        "x".parse::<AdmissionPolicy>(),
        Err(PolicyError::UnknownAdmission { input: "x".into() })
    );
}

#[test]
fn wire_forms_and_all() {
    let jitter: Vec<_> = JitterPolicy::ALL.iter().map(|p| p.as_str()).collect();
    let admission: Vec<_> = AdmissionPolicy::ALL.iter().map(|p| p.as_str()).collect();
    assert_eq!(jitter, ["none", "full", "equal", "decorrelated"]);
    assert_eq!(admission, ["dropIfRunning", "replace", "queue"]);
}

#[test]
fn defaults() {
    assert_eq!(JitterPolicy::default(), JitterPolicy::Full);
    assert_eq!(AdmissionPolicy::default(), AdmissionPolicy::DropIfRunning);
}

#[test]
fn display_honours_width() {
    assert_eq!(format!("[{:<6}]", JitterPolicy::Full), "[full  ]");
}

#[test]
fn from_wire_is_exact() {
    assert_eq!(JitterPolicy::from_wire("none"), Some(JitterPolicy::None));
    assert_eq!(JitterPolicy::from_wire("None"), None);
}
