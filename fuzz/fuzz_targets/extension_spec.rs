//! An extension workload's spec from JSON: read under its bounds while reading.
//!
//! A spec that parses must write JSON that parses back equal and writes the same bytes, and
//! the check of a built value (`ExtensionSpec::new`) must agree with the reader on any JSON
//! value serde_json reads.
#![no_main]

use libfuzzer_sys::fuzz_target;
use serde_json::Value;
use taskmodel::task::spec::ExtensionSpec;

fuzz_target!(|data: &[u8]| {
    let read = serde_json::from_slice::<ExtensionSpec>(data);
    if let Ok(spec) = &read {
        let json = serde_json::to_string(spec).expect("a spec serializes");
        let back: ExtensionSpec = serde_json::from_str(&json)
            .unwrap_or_else(|err| panic!("{json} does not parse back: {err}"));
        assert_eq!(&back, spec);
        assert_eq!(serde_json::to_string(&back).expect("serializes"), json);
    }
    // serde_json keeps the last of two equal keys where the spec refuses them, so compare
    // only documents serde_json writes back the same.
    if let Ok(value) = serde_json::from_slice::<Value>(data)
        && serde_json::to_vec(&value).ok().as_deref() == Some(data)
    {
        let built = ExtensionSpec::new(value);
        assert_eq!(built.is_ok(), read.is_ok(), "reader and value check disagree");
        if let (Ok(built), Ok(read)) = (built, read) {
            assert_eq!(built, read);
        }
    }
});
