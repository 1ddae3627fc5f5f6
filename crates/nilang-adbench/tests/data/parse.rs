//! Malformed inputs give positioned errors, never panics.

use nilang_adbench::ba::BaInput;
use nilang_adbench::gmm::{gmm_generate, GmmInput};
use nilang_adbench::oracle::{data_dir, try_data_dir};
use nilang_adbench::AdbenchError;

const GMM_OK: &str = "2 3 1\n-0.649014\n1.181166\n-0.758453\n0.092339 0.186260\n0.345561 0.396767\n0.538817 0.419195\n0.586443 -0.851887 0.800321\n-1.509405 0.875874 -0.242790\n0.166813 -1.965419 -1.270071\n1.175171 2.029160\n1.000000 0\n";
const BA_OK: &str = "2 10 10\n1.797201 0.590697 -0.635786 90.859550 29.361415 28.777534 211.628116 -0.284531 -14.762924 0.058931 0.069976\n4.173048 5.586898 1.403869\n0.417022\n-525.672849 161.811929\n";

fn gmm_err(src: &str) -> String {
    let e = GmmInput::parse(src).expect_err("must fail");
    e.to_string()
}

fn ba_err(src: &str) -> String {
    BaInput::parse(src).expect_err("must fail").to_string()
}

#[test]
fn good_inputs_parse_with_arbitrary_line_breaks() {
    let a = GmmInput::parse(GMM_OK).unwrap();
    let b = GmmInput::parse(&GMM_OK.replace('\n', " ")).unwrap();
    assert_eq!(a, b);
    assert_eq!(
        a,
        GmmInput::from_file(data_dir().join("adbench/gmm/test.txt")).unwrap()
    );
    assert_eq!(
        BaInput::parse(BA_OK).unwrap(),
        BaInput::from_file(data_dir().join("adbench/ba/test.txt")).unwrap()
    );
}

#[test]
fn gmm_truncated_file() {
    let cut = &GMM_OK[..GMM_OK.find("1.175171").unwrap()];
    let msg = gmm_err(cut);
    assert!(
        msg.contains("truncated") && msg.contains("x[0][0]"),
        "{msg}"
    );
    assert!(msg.contains(":11"), "line number: {msg}");
    let e = GmmInput::parse(cut).unwrap_err();
    assert!(
        matches!(
            e,
            AdbenchError::UnexpectedEof {
                line: 11,
                token: 22,
                ..
            }
        ),
        "{e:?}"
    );
    // Missing the Wishart parameters.
    let msg = gmm_err(GMM_OK.trim_end().trim_end_matches("1.000000 0"));
    assert!(msg.contains("gamma"), "{msg}");
    let msg = gmm_err("");
    assert!(msg.contains("expected d"), "{msg}");
}

#[test]
fn gmm_nan_and_inf_are_rejected_with_position() {
    let msg = gmm_err(&GMM_OK.replace("0.345561", "NaN"));
    assert!(
        msg.contains("mean[1][0]") && msg.contains("finite") && msg.contains("`NaN`"),
        "{msg}"
    );
    assert!(msg.contains("<string>:6:1"), "{msg}");
    let msg = gmm_err(&GMM_OK.replace("2.029160", "inf"));
    assert!(msg.contains("x[0][1]") && msg.contains("`inf`"), "{msg}");
    let msg = gmm_err(&GMM_OK.replace("-0.242790", "-1e999"));
    assert!(msg.contains("icf[1][2]"), "{msg}");
}

#[test]
fn gmm_bad_header_and_counts() {
    let msg = gmm_err(&GMM_OK.replacen("2 3 1", "2 x 1", 1));
    assert!(
        msg.contains("K (the number of components") && msg.contains("`x`"),
        "{msg}"
    );
    let msg = gmm_err(&GMM_OK.replacen("2 3 1", "2 3 -1", 1));
    assert!(
        msg.contains("n (the number of points") && msg.contains("positive integer"),
        "{msg}"
    );
    let msg = gmm_err(&GMM_OK.replacen("2 3 1", "0 3 1", 1));
    assert!(msg.contains("positive integer"), "{msg}");
    // Header claims fewer points than present: the last point is read as `gamma m`.
    let two = GMM_OK
        .replacen("2 3 1", "2 3 2", 1)
        .replace("1.175171 2.029160\n", "1.175171 2.029160\n0.5 0.5\n");
    assert!(GmmInput::parse(&two).is_ok());
    let msg = gmm_err(&two.replacen("2 3 2", "2 3 1", 1));
    assert!(msg.contains("m (Wishart") && msg.contains(":12:5"), "{msg}");
    // Trailing data is an error.
    let msg = gmm_err(&format!("{GMM_OK}\n0.5\n"));
    assert!(
        msg.contains("end of file") && msg.contains(":14:1"),
        "{msg}"
    );
    // Header claims more points than present.
    let msg = gmm_err(&GMM_OK.replacen("2 3 1", "2 3 2", 1));
    assert!(msg.contains("x[1][") || msg.contains("truncated"), "{msg}");
    // A huge header on a tiny file fails cleanly instead of allocating.
    let msg = gmm_err("99999999999 99999999999 99999999999\n1\n");
    assert!(msg.contains("announces an instance of"), "{msg}");
    let msg = gmm_err("3000000 3000000 1\n1\n");
    assert!(msg.contains("more than the limit"), "{msg}");
    let msg = gmm_err("30 30 1\n1\n");
    assert!(msg.contains("truncated"), "{msg}");
    let msg = gmm_err(&GMM_OK.replace("1.000000 0", "1.000000 0.5"));
    assert!(
        msg.contains("m (Wishart") && msg.contains("integer"),
        "{msg}"
    );
    let msg = gmm_err(&GMM_OK.replace("1.000000 0", "-1 0"));
    assert!(msg.contains("gamma"), "{msg}");
}

#[test]
fn ba_errors() {
    let msg = ba_err("2 10");
    assert!(
        msg.contains("truncated") && msg.contains("p (the number of observations"),
        "{msg}"
    );
    let msg = ba_err(&BA_OK.replace("0.417022", "nan"));
    assert!(
        msg.contains("weight") && msg.contains("`nan`") && msg.contains(":4:1"),
        "{msg}"
    );
    let msg = ba_err(&BA_OK.replace("211.628116", "abc"));
    assert!(msg.contains("camera parameter f"), "{msg}");
    let msg = ba_err(&BA_OK[..BA_OK.find("161.811929").unwrap()]);
    assert!(msg.contains("feature coordinate y"), "{msg}");
    let msg = ba_err(&format!("{BA_OK} 7"));
    assert!(msg.contains("end of file"), "{msg}");
    let msg = ba_err(&BA_OK.replacen("2 10 10", "0 10 10", 1));
    assert!(
        msg.contains("n (the number of cameras") && msg.contains("positive integer"),
        "{msg}"
    );
    let msg = ba_err(&BA_OK.replacen("2 10 10", "-2 10 10", 1));
    assert!(msg.contains("n (the number of cameras"), "{msg}");
    let msg = ba_err(&BA_OK.replacen("2 10 10", "2 10 0", 1));
    assert!(
        msg.contains("p (the number of observations") && msg.contains("`0`"),
        "{msg}"
    );
}

#[test]
fn missing_files_name_the_path() {
    let e = GmmInput::from_file("/nonexistent/gmm.txt").unwrap_err();
    assert!(e.to_string().contains("/nonexistent/gmm.txt"), "{e}");
    assert!(std::error::Error::source(&e).is_some());
    let e = BaInput::from_file("/nonexistent/ba.txt").unwrap_err();
    assert!(matches!(e, AdbenchError::Io { .. }));
}

#[test]
fn file_errors_name_the_file() {
    let path = std::env::temp_dir().join(format!("adbench_bad_{}.txt", std::process::id()));
    std::fs::write(&path, "2 3 1\n0.1\noops\n").unwrap();
    let e = GmmInput::from_file(&path).unwrap_err().to_string();
    std::fs::remove_file(&path).ok();
    assert!(
        e.contains(&path.display().to_string()) && e.contains(":3:1"),
        "{e}"
    );
    assert!(e.contains("alpha[1]"), "{e}");
}

#[test]
fn validate_catches_mismatched_dimensions() {
    let mut g = gmm_generate(2, 3, 4, 0);
    g.icf.push(0.0);
    assert!(g.validate().unwrap_err().to_string().contains("icf"));
    let mut g = gmm_generate(2, 3, 4, 0);
    g.x[1] = f64::NAN;
    assert!(g.validate().unwrap_err().to_string().contains("x[1]"));
    let mut b = BaInput::parse(BA_OK).unwrap();
    b.w.pop();
    assert!(b
        .validate()
        .unwrap_err()
        .to_string()
        .contains("w has length 9"));
}

#[test]
fn data_dir_is_found() {
    let d = try_data_dir().unwrap();
    assert!(d.join("adbench/gmm/test.txt").is_file());
    assert!(d.join("oracle-reference/ba_test.json").is_file());
}

/// Random token mutations and truncations of valid files: every outcome is `Ok` or
/// a positioned `Err`, never a panic.
#[test]
fn mutated_inputs_never_panic() {
    use rand::{Rng, SeedableRng};
    let mut rng = rand::rngs::StdRng::seed_from_u64(99);
    let replacements = [
        "", "nan", "x", "-1", "1e400", "0", "3", "0.5", "--", "-inf", "1 2",
    ];
    for base in [GMM_OK, BA_OK] {
        let tokens: Vec<&str> = base.split_whitespace().collect();
        for _ in 0..400 {
            let mut t: Vec<String> = tokens.iter().map(|s| s.to_string()).collect();
            let i = rng.gen_range(0..t.len());
            t[i] = replacements[rng.gen_range(0..replacements.len())].to_string();
            let mut src = t.join(" ");
            if rng.gen_bool(0.3) {
                src.truncate(rng.gen_range(0..=src.len()));
            }
            for result in [
                GmmInput::parse(&src).map(|_| ()),
                BaInput::parse(&src).map(|_| ()),
            ] {
                if let Err(e) = result {
                    assert!(!e.to_string().is_empty());
                }
            }
        }
    }
}

/// Every bad header value, in every position of both formats: an error naming the file,
/// line, column and token, and the value found.
#[test]
fn header_values_must_be_positive_integers() {
    let gmm_names = [
        "d (the dimension",
        "K (the number",
        "n (the number of points",
    ];
    let ba_names = [
        "n (the number of cameras",
        "m (the number of points",
        "p (the number",
    ];
    for bad in [
        "2.9",
        "-2",
        "NaN",
        "0",
        "1e9",
        "+-1",
        "0x10",
        "18446744073709551616",
    ] {
        for pos in 0..3 {
            for (base, names, is_gmm) in [(GMM_OK, gmm_names, true), (BA_OK, ba_names, false)] {
                let mut header: Vec<&str> = base.lines().next().unwrap().split(' ').collect();
                header[pos] = bad;
                let src = format!("{}\n{}", header.join(" "), base.split_once('\n').unwrap().1);
                let e = if is_gmm {
                    GmmInput::parse_named(&src, "bad.txt", false).unwrap_err()
                } else {
                    BaInput::parse_named(&src, "bad.txt").unwrap_err()
                };
                let want_col = header[..pos].iter().map(|h| h.len() + 1).sum::<usize>() + 1;
                // every field is in the message: file, line, column, token, expected, found
                assert!(
                    matches!(e, AdbenchError::Parse { .. }),
                    "{bad} at {pos}: {e}"
                );
                let msg = e.to_string();
                let head = format!("bad.txt:1:{want_col} (token {}): expected ", pos + 1);
                assert!(msg.starts_with(&(head + names[pos])), "{e}");
                assert!(msg.contains("positive integer"), "{e}");
                assert!(msg.ends_with(&format!(", found `{bad}`")), "{e}");
            }
        }
    }
}

/// A 20-byte header edit claiming 10^12 of something is refused before allocating.
#[test]
fn huge_headers_are_refused_before_allocating() {
    let ba = BA_OK.replacen("2 10 10", "2 10 1000000000000", 1);
    let e = BaInput::parse_named(&ba, "ba.txt").unwrap_err();
    assert!(
        matches!(&e, AdbenchError::TooLarge { file, bytes, limit, .. }
            if file == "ba.txt" && *bytes > 10u128.pow(13) && *limit == nilang_adbench::MAX_INSTANCE_BYTES),
        "{e}"
    );
    assert!(e.to_string().contains("n=2 m=10 p=1000000000000"), "{e}");
    let ba = BA_OK.replacen("2 10 10", "1000000000000 10 10", 1);
    assert!(matches!(
        BaInput::parse(&ba),
        Err(AdbenchError::TooLarge { .. })
    ));
    let gmm = GMM_OK.replacen("2 3 1", "2 3 1000000000000", 1);
    assert!(matches!(
        GmmInput::parse_named(&gmm, "g", true),
        Err(AdbenchError::TooLarge { .. })
    ));
    // the limit is the caller's: the same header passes a larger one (a small instance)
    let ba = BA_OK.replacen("2 10 10", "2 10 1000", 1);
    assert!(BaInput::parse_named_limited(&ba, "b", 1000).is_err());
    assert_eq!(
        BaInput::parse_named_limited(&ba, "b", 1 << 20).unwrap().p,
        1000
    );
}

#[test]
fn trailing_data_and_non_finite_values_are_rejected() {
    for tail in ["0", "x", "nan", "1e5"] {
        let msg = ba_err(&format!("{BA_OK}{tail}\n"));
        assert!(msg.contains("end of file") && msg.contains(":6:1"), "{msg}");
        let msg = gmm_err(&format!("{GMM_OK}{tail}\n"));
        assert!(
            msg.contains("end of file") && msg.contains(":13:1"),
            "{msg}"
        );
    }
    for bad in ["nan", "NaN", "inf", "-inf", "1e309", "-1e400"] {
        let msg = ba_err(&BA_OK.replace("4.173048", bad));
        assert!(
            msg.contains("point coordinate X1") && msg.contains("finite"),
            "{msg}"
        );
        let msg = gmm_err(&GMM_OK.replace("1.000000 0", &format!("{bad} 0")));
        assert!(msg.contains("gamma") && msg.contains("finite"), "{msg}");
    }
}
