//! taskctl: the taskmodel command line.
fn main() {}
