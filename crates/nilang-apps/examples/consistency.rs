//! Learn by consistency (Appendix C of the earlier paper): train p so that
//! e^{p+x} − e^x = 1 at x = 0.3 by running the reversible program forward, setting the output
//! to the target and running it backward. f1 cannot learn; f2, which uncomputes x, converges.
//!
//! `cargo run --release -p nilang-apps --example consistency`
use nilang_apps::consistency::*;

fn main() {
    let steps = 100;
    let (y1, p1) = train_f1(steps);
    let (y2, p2) = train_f2(steps);
    println!("target y* = 1, x* = 0.3, p starts at 1.6");
    println!("{:>5} {:>22} {:>22}", "step", "f1: y", "f2: y");
    for s in [0, 1, 2, 3, 5, 10, 20, 50, 99] {
        println!("{:>5} {:>22.16} {:>22.16}", s + 1, y1[s], y2[s]);
    }
    println!(
        "f1: p = {p1} after {steps} steps (unchanged: output parameters x, p + x determine p)"
    );
    println!(
        "f2: p = {p2:.16} after {steps} steps; exact p* = ln(1 + e^0.3) − 0.3 = {:.16}",
        (1.0 + 0.3f64.exp()).ln() - 0.3
    );
}
