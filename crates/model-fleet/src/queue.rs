//! The queue: the order queued tasks are claimed in ([`QueueKey`]).

mod key;

pub use self::key::{MAX_QUEUE_KEY_LEN, QUEUE_KEY_PREFIX_LEN, QueueKey};

#[cfg(test)]
mod tests;
