//! Unit tests for `BoundedReader`: the exact boundary, a stop at the first byte past it,
//! small buffers, and an endless input.

use std::io::{self, Read};

use super::BoundedReader;

fn read_all(input: &[u8], limit: usize) -> (io::Result<Vec<u8>>, bool) {
    let mut reader = BoundedReader::new(input, limit);
    let mut out = Vec::new();
    let result = reader.read_to_end(&mut out).map(|_| out);
    (result, reader.exceeded())
}

#[test]
fn the_limit_reads_whole_and_one_byte_more_fails() {
    for (len, limit, ok) in [
        (0, 0, true),
        (0, 4, true),
        (4, 4, true),
        (3, 4, true),
        (5, 4, false),
        (1, 0, false),
    ] {
        let input = vec![b'x'; len];
        let (result, exceeded) = read_all(&input, limit);
        assert_eq!(result.is_ok(), ok, "{len} bytes, limit {limit}");
        assert_eq!(exceeded, !ok, "{len} bytes, limit {limit}");
        if let Ok(out) = result {
            assert_eq!(out, input);
        } else if let Err(err) = result {
            assert_eq!(err.kind(), io::ErrorKind::InvalidData);
            assert_eq!(
                err.to_string(),
                format!("the input is longer than {limit} bytes")
            );
        }
    }
}

#[test]
fn small_buffers_and_an_endless_input_stop_at_the_limit() {
    let mut reader = BoundedReader::new(io::repeat(b'y'), 10);
    let mut buf = [0u8; 3];
    let mut total = 0;
    let err = loop {
        match reader.read(&mut buf) {
            Ok(0) => panic!("an endless input never ends"),
            Ok(n) => total += n,
            Err(err) => break err,
        }
    };
    assert_eq!(total, 10);
    assert_eq!(err.kind(), io::ErrorKind::InvalidData);
    assert!(reader.exceeded());
    // Once past the limit, every read fails.
    assert!(reader.read(&mut buf).is_err());
    assert_eq!(reader.read(&mut []).unwrap(), 0);
    assert_eq!(reader.limit(), 10);
}
