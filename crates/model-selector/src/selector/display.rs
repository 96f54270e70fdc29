//! The canonical string syntax a selector prints.

use std::fmt;

use super::{
    LabelSelector,
    compiled::{Kind, Req},
};

impl LabelSelector {
    /// The canonical rendering of one requirement, whose strings are in `arena` (the
    /// selector's arena as a `str`, checked once for a whole selector, not per string).
    pub(crate) fn fmt_req_in(&self, arena: &str, req: &Req, f: &mut dyn fmt::Write) -> fmt::Result {
        let key = req.key.get(arena);
        let list = |f: &mut dyn fmt::Write| -> fmt::Result {
            f.write_str(" (")?;
            for (i, v) in self.req_values(req).iter().enumerate() {
                if i > 0 {
                    f.write_str(",")?;
                }
                write_value(f, v.get(arena))?;
            }
            f.write_str(")")
        };
        match req.kind {
            Kind::Label => {
                write!(f, "{key}=")?;
                let value = self.req_values(req).first().map_or("", |v| v.get(arena));
                write_value(f, value)
            }
            Kind::In => {
                write!(f, "{key} in")?;
                list(f)
            }
            Kind::NotIn => match self.req_values(req) {
                // One excluded value is written as kubectl writes it.
                [value] => {
                    write!(f, "{key}!=")?;
                    write_value(f, value.get(arena))
                }
                _ => {
                    write!(f, "{key} notin")?;
                    list(f)
                }
            },
            Kind::Exists => f.write_str(key),
            Kind::DoesNotExist => write!(f, "!{key}"),
            Kind::Gt => write!(f, "{key}>{}", req.bound()),
            Kind::Lt => write!(f, "{key}<{}", req.bound()),
        }
    }
}

/// The canonical string syntax (see [`LabelSelector`]); the empty selector prints nothing.
impl fmt::Display for LabelSelector {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let arena: &str = &self.arena;
        for (i, req) in self.ordered().enumerate() {
            if i > 0 {
                f.write_str(",")?;
            }
            self.fmt_req_in(arena, req, f)?;
        }
        Ok(())
    }
}

/// A value as Kubernetes writes it: the empty value is written as nothing (`x=`,
/// `x in (,a)`, `x in ()`).
fn write_value(f: &mut dyn fmt::Write, value: &str) -> fmt::Result {
    f.write_str(value)
}
