//! Reversible Fibonacci: `rfib(out, n)` by recursion and `rfibn(n, z)` (the first Fibonacci
//! number ≥ z) with a reversible while loop, run forward and backward.
//!
//! `cargo run --release -p nilang-apps --example fib`
use nilang_apps::fib::*;

fn main() {
    let mut out = 0;
    rfib(&mut out, 10);
    println!("rfib(0, 10) = ({out}, 10)");
    rfib_inv(&mut out, 10);
    println!("(~rfib)(55, 10) = ({out}, 10)");
    let mut n = 0;
    rfibn(&mut n, 100);
    println!("rfibn(0, 100) = ({n}, 100)");
    rfibn_inv(&mut n, 100);
    println!("(~rfibn)(12, 100) = ({n}, 100)");
    println!("first n with fib(n) >= z:");
    for z in [10, 1_000, 100_000, 10_000_000] {
        let mut n = 0;
        rfibn(&mut n, z);
        let mut f = 0;
        rfib(&mut f, n);
        println!("  z = {z:>10}: n = {n:>2}, fib(n) = {f}");
    }
}
