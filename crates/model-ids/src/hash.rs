//! Stable 64-bit hashing: FNV-1a and the splitmix64 finalizer, as `const fn`s.
//!
//! Stable means the same bytes give the same value on every platform, build and release,
//! which `std::hash` does not promise, so these values may be stored, sent, or computed by
//! another party (routing weights, query fingerprints, token checksums, index terms). They
//! are not cryptographic: FNV-1a detects accidental edits (each step is a bijection of the
//! state, so changing any one byte changes the value), not a forger who recomputes it.
//!
//! ```
//! use model_ids::hash::{fnv1a64, fnv1a64_from, splitmix64};
//!
//! assert_eq!(fnv1a64(b"a"), 0xaf63_dc4c_8601_ec8c);
//! // Hashing in parts gives the same value as hashing at once.
//! assert_eq!(fnv1a64_from(fnv1a64(b"foo"), b"bar"), fnv1a64(b"foobar"));
//! // splitmix64 spreads every input bit over every output bit.
//! assert_ne!(splitmix64(1) >> 32, splitmix64(2) >> 32);
//! ```

/// The FNV-1a 64-bit offset basis: the value of [`fnv1a64`] over no bytes.
pub const FNV1A64_OFFSET_BASIS: u64 = 0xcbf2_9ce4_8422_2325;

/// The FNV-1a 64-bit prime.
const FNV1A64_PRIME: u64 = 0x0000_0100_0000_01b3;

/// The increment splitmix64 adds before mixing (2^64 divided by the golden ratio, odd).
const GOLDEN_GAMMA: u64 = 0x9e37_79b9_7f4a_7c15;

/// 64-bit FNV-1a of `bytes`: from [`FNV1A64_OFFSET_BASIS`], each byte is XORed in and the
/// state multiplied by the prime `0x100000001b3` (wrapping).
#[must_use]
pub const fn fnv1a64(bytes: &[u8]) -> u64 {
    fnv1a64_from(FNV1A64_OFFSET_BASIS, bytes)
}

/// Continues 64-bit FNV-1a from `state` over `bytes`:
/// `fnv1a64_from(fnv1a64(a), b) == fnv1a64(a ++ b)`.
#[must_use]
pub const fn fnv1a64_from(state: u64, bytes: &[u8]) -> u64 {
    let mut h = state;
    let mut rest = bytes;
    while let [byte, tail @ ..] = rest {
        h ^= *byte as u64;
        h = h.wrapping_mul(FNV1A64_PRIME);
        rest = tail;
    }
    h
}

/// splitmix64 (Steele, Lea and Flood, 2014) of `z`: adds `0x9e3779b97f4a7c15`, then mixes
/// (`z ^= z >> 30; z *= 0xbf58476d1ce4e5b9; z ^= z >> 27; z *= 0x94d049bb133111eb;
/// z ^= z >> 31`, wrapping). A bijection that spreads every input bit over the output.
///
/// Applied to a counter that grows by `0x9e3779b97f4a7c15` per call, starting at a seed,
/// it is the splitmix64 random generator.
#[must_use]
pub const fn splitmix64(z: u64) -> u64 {
    let mut z = z.wrapping_add(GOLDEN_GAMMA);
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}

#[cfg(test)]
mod tests;
