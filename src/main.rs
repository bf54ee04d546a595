//! The `tengu` binary: everything is in the library (`lib.rs`).

fn main() {
    tengu::main()
}
