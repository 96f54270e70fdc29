//! Shared fixtures for the taskmodel criterion benchmarks (the bench files live in `benches/`).

/// A seeded splitmix64 generator, so every run builds the same fleet and batches.
#[derive(Debug, Clone)]
pub struct Rng(pub u64);

impl Rng {
    /// The next number of the sequence.
    pub fn next_u64(&mut self) -> u64 {
        let out = model_ids::hash::splitmix64(self.0);
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        out
    }

    /// A number below `n` (`n` at least 1).
    pub fn below(&mut self, n: usize) -> usize {
        (self.next_u64() % n as u64) as usize
    }

    /// One of `from` (not empty).
    pub fn pick<'a>(&mut self, from: &[&'a str]) -> &'a str {
        from.get(self.below(from.len()))
            .copied()
            .unwrap_or_default()
    }
}
