//! `impl_json_schema!`: how every model crate implements `schemars::JsonSchema` for a wire
//! type whose schema it writes by hand (the type parses through a raw twin, so a derived
//! schema would describe the twin's looser shape).

/// Implements `schemars::JsonSchema` for `$ty` with the schema name `$name`, the id
/// `<calling crate>::$name`, and `$body` (which sees the generator as `$generator`) as the
/// schema. The calling crate depends on `schemars`; model-ids does not need its `schema`
/// feature for this.
///
/// ```
/// struct Zone(String);
///
/// model_ids::impl_json_schema!(Zone, "Zone", |_generator| schemars::json_schema!({
///     "type": "string",
///     "minLength": 1
/// }));
///
/// let schema = serde_json::to_value(schemars::schema_for!(Zone))?;
/// assert_eq!(schema["title"], "Zone");
/// assert_eq!(schema["minLength"], 1);
/// # Ok::<(), serde_json::Error>(())
/// ```
#[macro_export]
macro_rules! impl_json_schema {
    ($ty:ty, $name:literal, |$generator:ident| $body:expr) => {
        impl ::schemars::JsonSchema for $ty {
            fn schema_name() -> ::std::borrow::Cow<'static, str> {
                $name.into()
            }

            fn schema_id() -> ::std::borrow::Cow<'static, str> {
                concat!(env!("CARGO_CRATE_NAME"), "::", $name).into()
            }

            fn json_schema($generator: &mut ::schemars::SchemaGenerator) -> ::schemars::Schema {
                $body
            }
        }
    };
}
