//! `Fnv64`: fields fed to [`model_ids::hash`]'s FNV-1a in an unambiguous encoding, for query
//! fingerprints and token checksums.

use model_ids::hash::{FNV1A64_OFFSET_BASIS, fnv1a64_from};

/// An incremental FNV-1a 64 hasher with helpers for an unambiguous encoding.
#[derive(Debug, Clone)]
pub(crate) struct Fnv64(u64);

impl Fnv64 {
    /// A hasher that has already absorbed `domain`, so hashes made for different purposes
    /// over the same bytes differ.
    pub(crate) fn with_domain(domain: &[u8]) -> Self {
        let mut hasher = Fnv64(FNV1A64_OFFSET_BASIS);
        hasher.bytes(domain);
        hasher
    }

    /// Absorbs raw bytes.
    pub(crate) fn bytes(&mut self, bytes: &[u8]) {
        self.0 = fnv1a64_from(self.0, bytes);
    }

    /// Absorbs one byte (used as a tag before each field).
    pub(crate) fn u8(&mut self, value: u8) {
        self.bytes(&[value]);
    }

    /// Absorbs a `u32`, big-endian.
    pub(crate) fn u32(&mut self, value: u32) {
        self.bytes(&value.to_be_bytes());
    }

    /// Absorbs an `i64`, big-endian.
    pub(crate) fn i64(&mut self, value: i64) {
        self.bytes(&value.to_be_bytes());
    }

    /// Absorbs a string with its length in front, so `("ab", "c")` and `("a", "bc")` differ.
    pub(crate) fn str(&mut self, value: &str) {
        self.bytes(&(value.len() as u64).to_be_bytes());
        self.bytes(value.as_bytes());
    }

    /// The hash of everything absorbed so far.
    pub(crate) fn finish(&self) -> u64 {
        self.0
    }
}

#[cfg(test)]
mod tests {
    use super::Fnv64;

    fn fnv(bytes: &[u8]) -> u64 {
        let mut h = Fnv64::with_domain(b"");
        h.bytes(bytes);
        h.finish()
    }

    #[test]
    fn matches_published_fnv1a_64_vectors() {
        // Test vectors from the FNV reference (Fowler, Noll, Vo), not computed here.
        assert_eq!(fnv(b""), 0xcbf2_9ce4_8422_2325);
        assert_eq!(fnv(b"a"), 0xaf63_dc4c_8601_ec8c);
        assert_eq!(fnv(b"foobar"), 0x8594_4171_f739_67e8);
    }

    #[test]
    fn length_prefix_separates_fields() {
        let mut a = Fnv64::with_domain(b"d");
        a.str("ab");
        a.str("c");
        let mut b = Fnv64::with_domain(b"d");
        b.str("a");
        b.str("bc");
        assert_ne!(a.finish(), b.finish());
    }

    #[test]
    fn domain_separates_purposes() {
        let mut a = Fnv64::with_domain(b"one");
        a.u8(1);
        let mut b = Fnv64::with_domain(b"two");
        b.u8(1);
        assert_ne!(a.finish(), b.finish());
    }

    proptest::proptest! {
        #[test]
        fn any_single_byte_change_changes_the_hash(
            bytes in proptest::collection::vec(proptest::prelude::any::<u8>(), 1..64),
            index in proptest::prelude::any::<proptest::sample::Index>(),
            flip in 1u8..=255,
        ) {
            let mut edited = bytes.clone();
            let i = index.index(edited.len());
            edited[i] ^= flip;
            proptest::prop_assert_ne!(fnv(&bytes), fnv(&edited));
        }
    }
}
