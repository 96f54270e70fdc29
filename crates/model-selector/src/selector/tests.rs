//! Invariants of the compiled form that `matches` relies on.

use super::{
    LabelSelector,
    compiled::{Form, ONE},
};

/// Selectors of every form: one value, none, lists of two to four short or long values, long
/// lists, lists that deduplication leaves one value, keys and values over 32 bytes, `Gt`
/// and `Lt`.
fn every_form() -> Vec<LabelSelector> {
    let long = "v".repeat(40);
    let key = format!("{}/k", "p".repeat(40));
    let many: Vec<String> = (0..20).map(|i| format!("value-number-{i}")).collect();
    let texts = [
        "a=b".to_owned(),
        "a".to_owned(),
        "!a".to_owned(),
        "a!=b".to_owned(),
        "a in (x,y)".to_owned(),
        "a notin (x,y,z,w)".to_owned(),
        "a in (long-value-one,long-value-two)".to_owned(),
        format!("a in ({})", many.join(",")),
        "a in (a0,a1,a2,a3,a4,a5,a6,a7,a8,a9)".to_owned(),
        format!("a={long}"),
        format!("{key}=v"),
        format!("{key} in (x,y)"),
        "a>5,b<3".to_owned(),
        "a=b,a=c".to_owned(),
        // Lists that deduplication leaves with one value.
        "a in (x,x)".to_owned(),
        "a notin (y,y,y,y,y,y)".to_owned(),
    ];
    texts.iter().map(|t| t.parse().unwrap()).collect()
}

/// A requirement whose bit is missing would still match right (by the general test), only
/// slower; one whose bit is wrongly set would compare the wrong words.
#[test]
fn one_bit_marks_exactly_form_one() {
    let mut forms = Vec::new();
    for sel in every_form() {
        for req in &sel.reqs {
            assert_eq!(req.mask & ONE != 0, req.form == Form::One, "{sel}: {req:?}");
            forms.push(req.form);
        }
    }
    for form in [Form::Slow, Form::One, Form::Four, Form::Hashed] {
        assert!(forms.contains(&form), "no {form:?}");
    }
}
