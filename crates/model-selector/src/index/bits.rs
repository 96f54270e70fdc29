//! Chunk bitmaps: one bit per position, and the shifts that keep positions in id order.

use super::CHUNK_CAPACITY;

/// Words in one chunk bitmap.
pub(super) const WORDS: usize = CHUNK_CAPACITY / 64;

/// One bit per position of a chunk.
pub(super) type Bits = [u64; WORDS];

pub(super) const NO_BITS: Bits = [0; WORDS];

pub(super) fn live_mask(len: usize) -> Bits {
    let mut bits = NO_BITS;
    for (i, word) in bits.iter_mut().enumerate() {
        let from = i * 64;
        if len >= from + 64 {
            *word = u64::MAX;
        } else if len > from {
            *word = (1_u64 << (len - from)) - 1;
        }
    }
    bits
}

pub(super) fn set_bit(bits: &mut Bits, pos: usize, on: bool) {
    if let Some(word) = bits.get_mut(pos / 64) {
        let mask = 1_u64 << (pos % 64);
        if on {
            *word |= mask;
        } else {
            *word &= !mask;
        }
    }
}

pub(super) fn is_zero(bits: &Bits) -> bool {
    bits.iter().all(|&w| w == 0)
}

/// Makes room at `pos`: every bit at `pos` or above moves up by one; bit `pos` becomes 0.
/// The top bit falls off (callers never insert into a full chunk).
pub(super) fn shift_up(bits: &mut Bits, pos: usize) {
    let (w, b) = (pos / 64, pos % 64);
    let low = (1_u64 << b) - 1;
    let mut carry = 0;
    for (j, word) in bits.iter_mut().enumerate().skip(w) {
        let old = *word;
        *word = if j == w {
            (old & low) | ((old & !low) << 1)
        } else {
            (old << 1) | carry
        };
        carry = old >> 63;
    }
}

/// Closes the gap at `pos`: bit `pos` is dropped and every bit above moves down by one.
pub(super) fn shift_down(bits: &mut Bits, pos: usize) {
    let (w, b) = (pos / 64, pos % 64);
    let low = (1_u64 << b) - 1;
    for j in w..WORDS {
        // The lowest bit of the next word (read before that word is shifted) comes down.
        let carry = bits.get(j + 1).map_or(0, |next| next << 63);
        if let Some(word) = bits.get_mut(j) {
            *word = if j == w {
                (*word & low) | ((*word >> 1) & !low) | carry
            } else {
                (*word >> 1) | carry
            };
        }
    }
}

#[cfg(test)]
mod tests;
