//! Print the expansion of `#[i]` for a function read from stdin (debugging aid).
use std::io::Read;
fn main() {
    let mut s = String::new();
    std::io::stdin().read_to_string(&mut s).unwrap();
    let item: proc_macro2::TokenStream = s.parse().unwrap();
    let out = nilang_compiler::compile_fn(quote::quote!(), item);
    println!("{out}");
}
