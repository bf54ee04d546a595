include!("../scripts/torch_link.rs");

fn main() {
    torch_link();
}
