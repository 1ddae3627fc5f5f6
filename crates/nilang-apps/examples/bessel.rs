//! The first-kind Bessel function J_ν(z), reversibly: values, derivatives by reverse mode,
//! second derivatives by forward-over-reverse and reverse-over-reverse, for the paper's three
//! formulations. `cargo run --release -p nilang-apps --example bessel`
use nilang::ad::{hessian_fwd_rev, hessian_rev_rev};
use nilang_apps::bessel::*;

fn main() {
    let z = 1.0;
    println!("J_2({z}) and its derivatives (exact: J2 = 0.114903484931900, J2' = 0.210243615881133, J2'' = 0.134466838914569)\n");
    println!(
        "{:<40} {:>18} {:>18} {:>18} {:>18}",
        "formulation", "J2", "J2' (reverse)", "J2'' (fwd-rev)", "J2'' (rev-rev)"
    );
    let (mut o, mut zz) = (0.0_f64, z);
    ibesselj(&mut o, 2, &mut zz);
    let (_, _, g) = nilang::gradient(&Ibesselj, (&mut 0.0, 2usize, &mut zz), 0);
    let hf = hessian_fwd_rev(&Ibesselj, (&mut 0.0, 2usize, &mut zz), 0, 2)[0][0];
    let hr = hessian_rev_rev(&Ibesselj, (&mut 0.0, 2usize, &mut zz), 0, 2)[0][0];
    println!(
        "{:<40} {o:>18.15} {:>18.15} {hf:>18.15} {hr:>18.15}",
        "paper (approximate multiplier imul)", g.g
    );
    let mut o = 0.0_f64;
    ibesselj_log(&mut o, 2, &mut zz);
    let (_, _, g) = nilang::gradient(&IbesseljLog, (&mut 0.0, 2usize, &mut zz), 0);
    let hf = hessian_fwd_rev(&IbesseljLog, (&mut 0.0, 2usize, &mut zz), 0, 2)[0][0];
    let hr = hessian_rev_rev(&IbesseljLog, (&mut 0.0, 2usize, &mut zz), 0, 2)[0][0];
    println!(
        "{:<40} {o:>18.15} {:>18.15} {hf:>18.15} {hr:>18.15}",
        "log-number accumulator (ULog)", g.g
    );
    let (v, g) = besselj_n_value_grad::<2>(z);
    let hf = hessian_fwd_rev(&IbesseljN::<2>, (&mut 0.0, &mut zz), 0, 1)[0][0];
    let hr = hessian_rev_rev(&IbesseljN::<2>, (&mut 0.0, &mut zz), 0, 1)[0][0];
    println!(
        "{:<40} {v:>18.15} {g:>18.15} {hf:>18.15} {hr:>18.15}",
        "term array (exact uncompute, fastest)"
    );

    println!(
        "\nJ_ν(z) for ν = 0..3 by the log-number version, and the inverse restoring the output:"
    );
    for nu in 0..4 {
        let row: Vec<String> = [0.5, 2.5, 5.0, 10.0]
            .iter()
            .map(|&z| {
                let (mut out, mut zz) = (0.0_f64, z);
                ibesselj_log(&mut out, nu, &mut zz);
                let v = out;
                ibesselj_log_inv(&mut out, nu, &mut zz);
                assert!(out.abs() < 1e-12);
                format!("J_{nu}({z:>4}) = {v:>10.6}")
            })
            .collect();
        println!("  {}", row.join("   "));
    }
}
