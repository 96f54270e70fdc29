//! The update texts a write looks up by the keys it changes.

use super::{Changed, KeptTexts, update_task, update_text as expected};
use crate::columns::TASK_KEYS;

#[test]
fn an_update_text_names_the_changed_keys_in_order_and_is_kept() {
    assert_eq!(
        update_task(0).text,
        "UPDATE tasks SET doc = ?3 WHERE tenant = ?1 AND id = ?2 AND resource_version = ?4"
    );
    assert_eq!(
        update_task(0b101).text,
        "UPDATE tasks SET uid = ?3, phase = ?4, doc = ?5 WHERE tenant = ?1 AND id = ?2 \
         AND resource_version = ?6"
    );
    let all: Changed = (1 << TASK_KEYS) - 1;
    for changed in [0b1, 0b100_0000_0100, 0b110_0001_1000_0100, all] {
        let first = update_task(changed);
        assert_eq!(first.text, expected(changed), "{changed:b}");
        // Looked up the second time: the same text, not built again.
        let again = update_task(changed);
        assert!(
            std::ptr::eq(first.text.as_ref(), again.text.as_ref()),
            "{changed:b}"
        );
    }
}

#[test]
fn sets_past_the_kept_slots_are_built_each_time_and_kept_ones_stay() {
    static FOUR: KeptTexts<4> = KeptTexts::new();
    let texts = |changed: Changed| FOUR.get(changed, || expected(changed));
    // Four sets fill the four slots, whatever slots their hashes pick first.
    let kept: Vec<_> = (1..=4).map(texts).collect();
    for (changed, first) in (1..=4).zip(&kept) {
        assert_eq!(first.text, expected(changed));
        assert!(std::ptr::eq(
            first.text.as_ref(),
            texts(changed).text.as_ref()
        ));
    }
    // A fifth set finds no slot: its text is right, and built again at every call.
    let (fifth, again) = (texts(0b1_0000_0000), texts(0b1_0000_0000));
    assert_eq!(fifth.text, expected(0b1_0000_0000));
    assert!(!std::ptr::eq(fifth.text.as_ref(), again.text.as_ref()));
}
