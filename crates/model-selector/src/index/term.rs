//! Terms: what a posting bitmap is keyed by, looked up without allocating.

use std::{
    borrow::Borrow,
    collections::HashMap,
    hash::{BuildHasherDefault, Hash, Hasher},
    sync::Arc,
};

use model_ids::hash::{fnv1a64, fnv1a64_from, splitmix64};

use super::bits::Bits;

/// A 64-bit fingerprint of a term: FNV-1a over the key, a separator byte that no key or
/// value contains (0 before a value, 1 for a key-only term), the value, then splitmix64 so
/// the low bits a hash table uses are well mixed.
fn fingerprint(key: &str, value: Option<&str>) -> u64 {
    let h = fnv1a64(key.as_bytes());
    let h = match value {
        Some(value) => fnv1a64_from(fnv1a64_from(h, &[0]), value.as_bytes()),
        None => fnv1a64_from(h, &[1]),
    };
    splitmix64(h)
}

/// A term as a hash-map key, owned ([`TermKey`]) or borrowed ([`Probe`]), so lookups need
/// no allocation. Hashing writes only the fingerprint; equality compares the strings too.
pub(super) trait Term {
    fn fp(&self) -> u64;
    fn key(&self) -> &str;
    fn value(&self) -> Option<&str>;
}

impl Hash for dyn Term + '_ {
    fn hash<H: Hasher>(&self, state: &mut H) {
        state.write_u64(self.fp());
    }
}

impl PartialEq for dyn Term + '_ {
    fn eq(&self, other: &Self) -> bool {
        self.fp() == other.fp() && self.key() == other.key() && self.value() == other.value()
    }
}

impl Eq for dyn Term + '_ {}

/// An owned term; the strings are shared with the chunk's copies.
#[derive(Clone)]
pub(super) struct TermKey {
    pub(super) fp: u64,
    pub(super) key: Arc<str>,
    pub(super) value: Option<Arc<str>>,
}

impl Term for TermKey {
    fn fp(&self) -> u64 {
        self.fp
    }
    fn key(&self) -> &str {
        &self.key
    }
    fn value(&self) -> Option<&str> {
        self.value.as_deref()
    }
}

impl Hash for TermKey {
    fn hash<H: Hasher>(&self, state: &mut H) {
        state.write_u64(self.fp);
    }
}

impl PartialEq for TermKey {
    fn eq(&self, other: &Self) -> bool {
        (self as &dyn Term) == (other as &dyn Term)
    }
}

impl Eq for TermKey {}

impl<'a> Borrow<dyn Term + 'a> for TermKey {
    fn borrow(&self) -> &(dyn Term + 'a) {
        self
    }
}

/// A borrowed term to look up.
#[derive(Clone, Copy)]
pub(super) struct Probe<'q> {
    pub(super) fp: u64,
    pub(super) key: &'q str,
    pub(super) value: Option<&'q str>,
}

impl<'q> Probe<'q> {
    pub(super) fn new(key: &'q str, value: Option<&'q str>) -> Self {
        Self {
            fp: fingerprint(key, value),
            key,
            value,
        }
    }
}

impl Term for Probe<'_> {
    fn fp(&self) -> u64 {
        self.fp
    }
    fn key(&self) -> &str {
        self.key
    }
    fn value(&self) -> Option<&str> {
        self.value
    }
}

/// A hasher for keys that are already fingerprints: it passes the `u64` through.
#[derive(Default)]
pub(super) struct PassThrough(u64);

impl Hasher for PassThrough {
    fn finish(&self) -> u64 {
        self.0
    }
    fn write(&mut self, bytes: &[u8]) {
        // Only `write_u64` is used by the term keys; fold anything else in anyway.
        for &b in bytes {
            self.0 = (self.0.rotate_left(8) ^ u64::from(b)).wrapping_mul(0x0000_0100_0000_01b3);
        }
    }
    fn write_u64(&mut self, n: u64) {
        self.0 = n;
    }
}

pub(super) type Postings = HashMap<TermKey, Arc<Bits>, BuildHasherDefault<PassThrough>>;

#[cfg(test)]
mod tests;
