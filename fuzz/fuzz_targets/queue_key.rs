//! Queue keys from bytes: the whole input as one key, and the input split in two as a pair.
//!
//! Bytes that read as a key are its encoding (writing the key gives them back), and the
//! encoding stays within `MAX_QUEUE_KEY_LEN`. For two keys that read, the byte order of
//! their encodings is the queue order of the keys.
#![no_main]

use libfuzzer_sys::fuzz_target;
use taskmodel::fleet::{MAX_QUEUE_KEY_LEN, QueueKey};

fuzz_target!(|data: &[u8]| {
    if let Ok(key) = QueueKey::from_bytes(data) {
        let bytes = key.to_bytes();
        assert_eq!(bytes, data, "{key} writes other bytes than it was read from");
        assert!(bytes.len() <= MAX_QUEUE_KEY_LEN);
    }
    let (a, b) = data.split_at(data.len() / 2);
    if let (Ok(x), Ok(y)) = (QueueKey::from_bytes(a), QueueKey::from_bytes(b)) {
        assert_eq!(a.cmp(b), x.cmp(&y), "byte order and queue order differ: {x} and {y}");
    }
});
