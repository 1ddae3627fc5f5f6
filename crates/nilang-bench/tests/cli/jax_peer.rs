//! The JAX peer (`--peers`): runs only where `python3 -c "import jax"` works (or
//! `$NILANG_PYTHON`), and skips with a message otherwise (CI has no JAX).

use std::process::Command;

fn jax_available() -> bool {
    let py = std::env::var("NILANG_PYTHON").unwrap_or_else(|_| "python3".into());
    let ok = Command::new(&py)
        .args(["-c", "import jax"])
        .output()
        .is_ok_and(|o| o.status.success());
    if !ok {
        eprintln!("skipped: JAX is not importable by {py} (pip install -r peers/requirements.txt)");
    }
    ok
}

fn bench(args: &[&str], perturb: Option<&str>) -> (std::process::ExitStatus, String, String) {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_nilang-bench"));
    cmd.args(args);
    if let Some(p) = perturb {
        cmd.env("NILANG_PEER_PERTURB", p);
    }
    let out = cmd.output().expect("run nilang-bench");
    (
        out.status,
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

#[test]
fn jax_cells_are_checked_timed_and_recorded() {
    if !jax_available() {
        return;
    }
    let json = std::env::temp_dir().join(format!("nilang-bench-jax-{}.json", std::process::id()));
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
            "mlp",
            "pairwise",
            "odefit",
            "kalman",
            "--json",
            json_s,
        ],
        None,
    );
    assert!(
        status.success(),
        "exit {status:?}\nstdout:\n{stdout}\nstderr:\n{stderr}"
    );
    assert!(stdout.contains("| jax-O | jax-G |"), "{stdout}");
    let v: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap();
    let _ = std::fs::remove_file(&json);
    let cells = v.as_array().unwrap();
    for tool in ["jax", "jax-mt"] {
        super::assert_peer_cells(
            cells,
            tool,
            &[
                ("bessel", &["O", "G"]),
                ("embedding", &["O", "G", "H"]),
                ("gmm", &["O", "G"]),
                ("ba", &["O", "J"]),
                ("mlp", &["O", "G"]),
                ("pairwise", &["O", "G"]),
                ("odefit", &["O", "G"]),
                ("kalman", &["O", "G"]),
            ],
        );
    }
}

#[test]
fn a_wrong_jax_derivative_fails_the_run() {
    if !jax_available() {
        return;
    }
    let (status, stdout, stderr) =
        bench(&["--smoke", "--peers", "--suite", "bessel"], Some("1e-3"));
    assert_eq!(
        status.code(),
        Some(1),
        "stdout:\n{stdout}\nstderr:\n{stderr}"
    );
    assert!(
        stderr.contains("CHECK FAILED: bessel/J2(1.0): jax-G vs reference"),
        "{stderr}"
    );
    assert!(stderr.contains("jax-mt-G vs reference"), "{stderr}");
    // The objective is still timed; the wrong derivative is not.
    assert!(stdout.contains("| jax-O | jax-G |"), "{stdout}");
}

/// A fake peer (a shell script standing in for Python, written by the test), run with a short
/// time limit; returns the exit status, stdout, stderr, and the script path.
fn fake_peer(tag: &str, body: &str) -> (std::process::ExitStatus, String, String, String) {
    use std::os::unix::fs::PermissionsExt;
    let path = std::env::temp_dir().join(format!("nilang-fake-peer-{tag}-{}", std::process::id()));
    std::fs::write(&path, format!("#!/bin/sh\n{body}\n")).unwrap();
    std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755)).unwrap();
    let t0 = std::time::Instant::now();
    let out = Command::new(env!("CARGO_BIN_EXE_nilang-bench"))
        .args(["--smoke", "--peers", "--suite", "bessel"])
        .env("NILANG_PYTHON", &path)
        .env("NILANG_PEER_TIMEOUT", "1")
        .output()
        .expect("run nilang-bench");
    assert!(t0.elapsed().as_secs() < 60, "took {:?}", t0.elapsed());
    let shown = path.display().to_string();
    // no peer left running: no process has the script on its command line (Linux: /proc)
    let orphans: Vec<String> = std::fs::read_dir("/proc")
        .into_iter()
        .flatten()
        .filter_map(|e| {
            let cmd = std::fs::read(e.ok()?.path().join("cmdline")).ok()?;
            let cmd = String::from_utf8_lossy(&cmd).replace('\0', " ");
            cmd.contains(&shown).then_some(cmd)
        })
        .collect();
    let _ = std::fs::remove_file(&path);
    assert!(
        orphans.is_empty(),
        "peer processes left running: {orphans:?}"
    );
    (
        out.status,
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
        shown,
    )
}

/// A peer that never answers: one line, the run goes on and exits with status 4 (a crash).
#[test]
fn a_peer_that_never_answers_does_not_block_the_run() {
    let (status, stdout, stderr, _) = fake_peer("silent", "exec sleep 1000");
    assert_eq!(status.code(), Some(4), "{stderr}");
    assert!(
        stderr.contains("CRASHED: jax peer: peer jax: no reply within 1 s"),
        "{stderr}"
    );
    assert!(stdout.contains("### bessel"), "{stdout}");
}

/// A reply announcing 10¹² numbers is rejected before allocating (no abort): the case's peer
/// cells crash, the others run, exit status 4.
#[test]
fn a_huge_peer_reply_is_rejected_before_allocating() {
    let (status, stdout, stderr, _) = fake_peer(
        "huge",
        r#"read l; echo '{"ok": true, "jax": "fake"}'
read l; echo '{"ok": true, "arrays": [["G", 1000000000000]]}'; exec sleep 1000"#,
    );
    assert_eq!(status.code(), Some(4), "{stderr}");
    assert!(
        stderr.contains("reply announces 1000000000000 numbers")
            && stderr.contains("before allocating"),
        "{stderr}"
    );
    assert!(!stderr.contains("memory allocation"), "{stderr}");
    assert!(stdout.contains("### bessel"), "{stdout}");
}
