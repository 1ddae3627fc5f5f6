use nilang::ad::{hessian_fwd_rev, hessian_rev_rev};
use nilang_apps::adbench::oracle::data_dir;
use nilang_apps::bessel::*;

#[test]
fn j2_gradient_and_hessians_match_the_paper() {
    let (mut out, mut z) = (0.0_f64, 1.0_f64);
    let (gout, _, gz) = nilang::gradient(&Ibesselj, (&mut out, 2usize, &mut z), 0);
    assert_eq!(gout.g, 1.0);
    assert!((gz.g - 0.210243615881133).abs() < 1e-9, "J2'(1) = {}", gz.g);
    assert_eq!((out, z), (0.0, 1.0));
    let hf = hessian_fwd_rev(&Ibesselj, (&mut out, 2usize, &mut z), 0, 2);
    let hr = hessian_rev_rev(&Ibesselj, (&mut out, 2usize, &mut z), 0, 2);
    assert!(
        (hf[0][0] - 0.134466838914569).abs() < 1e-9,
        "fwd-rev J2''(1) = {}",
        hf[0][0]
    );
    assert!(
        (hr[0][0] - 0.134466838914569).abs() < 1e-9,
        "rev-rev J2''(1) = {}",
        hr[0][0]
    );
}

#[test]
fn bessel_table_matches_the_oracle() {
    let path = data_dir().join("oracle-reference/bessel_table.json");
    let table: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
    for row in table["rows"].as_array().unwrap() {
        let nu = row["nu"].as_u64().unwrap() as usize;
        let z = row["z"].as_f64().unwrap();
        let (mut out, mut zz) = (0.0, z);
        ibesselj(&mut out, nu, &mut zz);
        let close = |a: f64, b: f64| (a - b).abs() / 1f64.max(a.abs() + b.abs()) < 1e-8;
        let _ = out;
        let (mut out, mut zz) = (0.0, z);
        ibesselj_log(&mut out, nu, &mut zz);
        assert!(
            close(out, row["objective"].as_f64().unwrap()),
            "J_{nu}({z}) = {out}"
        );
        assert!(
            (out - besselj_plain(nu, z)).abs() < 1e-12,
            "J_{nu}({z}): {out} vs plain"
        );
        if nu == 2 {
            let (mut o2, mut z2) = (0.0, z);
            ibesselj_n::<f64, 2>(&mut o2, &mut z2);
            assert!(
                close(o2, row["objective"].as_f64().unwrap()),
                "array J_2({z}) = {o2}"
            );
            let (v, g) = besselj_n_value_grad::<2>(z);
            assert!(close(v, o2) && close(g, row["gradient"].as_f64().unwrap()));
            let h = hessian_rev_rev(&IbesseljN::<2>, (&mut 0.0, &mut z2), 0, 1)[0][0];
            assert!(close(h, row["second_derivative"].as_f64().unwrap()));
            ibesselj_n_inv::<f64, 2>(&mut o2, &mut z2);
            assert_eq!((o2, z2), (0.0, z));
        }
        let (_, _, gz) = nilang::gradient(&IbesseljLog, (&mut 0.0, nu, &mut zz.clone()), 0);
        let g = gz.g;
        assert!(
            close(g, row["gradient"].as_f64().unwrap()),
            "J_{nu}'({z}) = {g}"
        );
        let h = hessian_fwd_rev(&IbesseljLog, (&mut 0.0, nu, &mut zz.clone()), 0, 2)[0][0];
        let hr = hessian_rev_rev(&IbesseljLog, (&mut 0.0, nu, &mut zz.clone()), 0, 2)[0][0];
        let h2 = row["second_derivative"].as_f64().unwrap();
        assert!(close(h, h2), "J_{nu}''({z}) = {h} vs {h2}");
        assert!(close(hr, h2), "J_{nu}''({z}) = {hr} (rev-rev) vs {h2}");
        // the inverse restores the inputs
        ibesselj_log_inv(&mut out, nu, &mut zz);
        assert!(out.abs() < 1e-12 && zz == z);
    }
}
