//! The Enzyme peer (`--peers`): its cells run only where `python3.11 -c "import enzyme_ad"`
//! works (or `$NILANG_ENZYME_PYTHON`), and skip with a message otherwise (CI has no enzyme-ad);
//! the one-line notice of a missing Python 3.11 is checked everywhere.

use std::process::Command;

fn enzyme_available() -> bool {
    let py = std::env::var("NILANG_ENZYME_PYTHON").unwrap_or_else(|_| "python3.11".into());
    let ok = Command::new(&py)
        .args(["-c", "import enzyme_ad.jax"])
        .output()
        .is_ok_and(|o| o.status.success());
    if !ok {
        eprintln!(
            "skipped: enzyme-ad is not importable by {py} \
             (python3.11 -m pip install -r peers/requirements-enzyme.txt)"
        );
    }
    ok
}

fn bench(args: &[&str], env: &[(&str, &str)]) -> (std::process::ExitStatus, String, String) {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_nilang-bench"));
    cmd.args(args);
    for (k, v) in env {
        cmd.env(k, v);
    }
    let out = cmd.output().expect("run nilang-bench");
    (
        out.status,
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

#[test]
fn a_machine_without_python_3_11_is_told_so_and_the_run_goes_on() {
    let missing = "/nonexistent/python3.11";
    let (status, stdout, stderr) = bench(
        &["--smoke", "--peers", "--suite", "bessel"],
        &[
            ("NILANG_ENZYME_PYTHON", missing),
            ("NILANG_PYTHON", missing),
        ],
    );
    assert!(
        status.success(),
        "exit {status:?}\nstdout:\n{stdout}\nstderr:\n{stderr}"
    );
    let line = stderr
        .lines()
        .find(|l| l.starts_with("enzyme peer: unavailable"))
        .unwrap_or_else(|| panic!("no enzyme notice in\n{stderr}"));
    assert!(line.contains(missing), "{line}");
    assert!(line.contains("Python 3.11"), "{line}");
    assert!(line.contains("peers/requirements-enzyme.txt"), "{line}");
    assert!(!stdout.contains("enzyme-"), "{stdout}");
}

#[test]
fn without_peers_the_run_says_how_to_enable_enzyme() {
    let (status, _, stderr) = bench(&["--smoke", "--suite", "bessel"], &[]);
    assert!(status.success(), "{stderr}");
    assert!(
        stderr.contains("enzyme peer: off (enzyme-* cells: Python 3.11 with"),
        "{stderr}"
    );
}

#[test]
fn enzyme_cells_are_checked_timed_and_recorded() {
    if !enzyme_available() {
        return;
    }
    let json =
        std::env::temp_dir().join(format!("nilang-bench-enzyme-{}.json", std::process::id()));
    let json_s = json.to_str().unwrap();
    let (status, stdout, stderr) = bench(
        &[
            "--smoke",
            "--peers",
            "--suite",
            "bessel",
            "embedding",
            "gmm",
            "ba",
            "sparse",
            "schedules",
            "mlp",
            "pairwise",
            "logistic",
            "odefit",
            "--json",
            json_s,
        ],
        &[],
    );
    assert!(
        status.success(),
        "exit {status:?}\nstdout:\n{stdout}\nstderr:\n{stderr}"
    );
    assert!(stdout.contains("| enzyme-O | enzyme-G |"), "{stdout}");
    let v: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap();
    let _ = std::fs::remove_file(&json);
    let cells = v.as_array().unwrap();
    super::assert_peer_cells(
        cells,
        "enzyme",
        &[
            ("bessel", &["O", "G"]),
            ("embedding", &["O", "G", "H"]),
            ("gmm", &["O", "G"]),
            ("ba", &["O", "J"]),
            ("sparse", &["O", "B"]),
            ("schedules", &["O", "G"]),
            ("mlp", &["O", "G"]),
            ("pairwise", &["O", "G"]),
            ("logistic", &["O", "G"]),
            ("odefit", &["O", "G"]),
        ],
    );
}

#[test]
fn a_wrong_enzyme_derivative_fails_the_run() {
    if !enzyme_available() {
        return;
    }
    let (status, stdout, stderr) = bench(
        &["--smoke", "--peers", "--suite", "bessel"],
        &[("NILANG_PEER_PERTURB", "1e-3")],
    );
    assert_eq!(
        status.code(),
        Some(1),
        "stdout:\n{stdout}\nstderr:\n{stderr}"
    );
    assert!(
        stderr.contains("CHECK FAILED: bessel/J2(1.0): enzyme-G vs reference"),
        "{stderr}"
    );
    // The objective is still timed; the wrong derivative is not ("-").
    assert!(stdout.contains("| enzyme-O | enzyme-G |"), "{stdout}");
}
