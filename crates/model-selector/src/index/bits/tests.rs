//! Unit tests of chunk bitmaps: shifts and the live mask, against a model of plain booleans.

use proptest::prelude::*;

use super::*;
use crate::index::CHUNK_CAPACITY;

fn to_bits(model: &[bool]) -> Bits {
    let mut bits = NO_BITS;
    for (i, &on) in model.iter().enumerate() {
        set_bit(&mut bits, i, on);
    }
    bits
}

proptest! {
    #[test]
    fn shift_up_inserts_a_zero(model in prop::collection::vec(any::<bool>(), 0..CHUNK_CAPACITY), at in 0..CHUNK_CAPACITY) {
        let at = at.min(model.len());
        let mut bits = to_bits(&model);
        shift_up(&mut bits, at);
        let mut want = model.clone();
        want.insert(at, false);
        want.truncate(CHUNK_CAPACITY);
        prop_assert_eq!(bits, to_bits(&want));
    }

    #[test]
    fn shift_down_removes_a_bit(model in prop::collection::vec(any::<bool>(), 1..=CHUNK_CAPACITY), at in 0..CHUNK_CAPACITY) {
        let at = at % model.len();
        let mut bits = to_bits(&model);
        shift_down(&mut bits, at);
        let mut want = model.clone();
        want.remove(at);
        prop_assert_eq!(bits, to_bits(&want));
    }
}

#[test]
fn shifts_at_word_edges() {
    let check = |len: usize, at: usize| {
        let model: Vec<bool> = (0..len).map(|i| i % 3 != 1).collect();
        let mut up = to_bits(&model);
        shift_up(&mut up, at);
        let mut want = model.clone();
        want.insert(at, false);
        want.truncate(CHUNK_CAPACITY);
        assert_eq!(up, to_bits(&want), "up {len} {at}");
        if at < len {
            let mut down = to_bits(&model);
            shift_down(&mut down, at);
            let mut want = model.clone();
            want.remove(at);
            assert_eq!(down, to_bits(&want), "down {len} {at}");
        }
    };
    for at in [
        0,
        1,
        62,
        63,
        64,
        65,
        127,
        128,
        CHUNK_CAPACITY - 2,
        CHUNK_CAPACITY - 1,
    ] {
        check(CHUNK_CAPACITY, at);
        check(CHUNK_CAPACITY - 1, at);
        check(130, at.min(130));
    }
}

#[test]
fn live_mask_sets_exactly_len_bits() {
    for len in [0, 1, 63, 64, 65, CHUNK_CAPACITY - 1, CHUNK_CAPACITY] {
        let mask = live_mask(len);
        let ones: u32 = mask.iter().map(|w| w.count_ones()).sum();
        assert_eq!(ones as usize, len);
        assert_eq!(mask, to_bits(&vec![true; len]));
    }
}
