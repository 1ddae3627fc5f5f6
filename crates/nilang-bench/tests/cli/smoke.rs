//! Runs the binary in `--smoke` mode and checks the table and the JSON records.

use std::process::Command;

#[test]
fn smoke_run_writes_tables_and_json() {
    let dir = std::env::temp_dir().join(format!("nilang-bench-smoke-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let json = dir.join("cells.json");
    // `--gpu` (any OpenCL device, pocl included) where CI requires one; an explicit `--gpu`
    // without a device is an error (tests/cli/faults.rs)
    let require_gpu = std::env::var("NILANG_REQUIRE_OPENCL").as_deref() == Ok("1");
    let out = Command::new(env!("CARGO_BIN_EXE_nilang-bench"))
        .args(require_gpu.then_some("--gpu"))
        .args(["--smoke", "--suite", "bessel", "embedding", "--json"])
        .arg(&json)
        .arg("--plot")
        .arg(dir.join("plots"))
        .output()
        .expect("run nilang-bench");
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        out.status.success(),
        "exit {:?}\nstdout:\n{stdout}\nstderr:\n{stderr}",
        out.status
    );
    assert!(stdout.contains("### bessel"), "{stdout}");
    assert!(
        stdout.contains("| case | rust-O | nilang-O | nilang-U | nilang-G | manual-G | num-dual-G | echidna-G |"),
        "{stdout}"
    );
    assert!(stdout.contains("### embedding"));
    let v: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap();
    let cells = v.as_array().unwrap();
    assert!(cells
        .iter()
        .any(|c| c["suite"] == "bessel" && c["tool"] == "num-dual" && c["measure"] == "G"));
    assert!(cells
        .iter()
        .any(|c| c["suite"] == "bessel" && c["tool"] == "nilang" && c["measure"] == "G"));
    assert!(cells
        .iter()
        .any(|c| c["suite"] == "embedding" && c["tool"] == "num-dual" && c["measure"] == "H"));
    // the device cells, checked like every other cell, where an OpenCL device exists (CI
    // installs pocl and sets NILANG_REQUIRE_OPENCL=1)
    let gpu_cells = cells
        .iter()
        .filter(|c| c["suite"] == "bessel" && c["tool"] == "gpu" && c["median_s"].is_number())
        .count();
    if std::env::var("NILANG_REQUIRE_OPENCL").as_deref() == Ok("1") {
        assert_eq!(gpu_cells, 2, "gpu-O and gpu-G of the batch\n{stderr}");
        assert!(stderr.contains("gpu cells: "), "{stderr}");
    }
    for c in cells {
        for k in [
            "suite",
            "case",
            "tool",
            "measure",
            "median_s",
            "min_s",
            "max_s",
            "ratio",
            "spread",
            "baseline_min_s",
            "heap_allocs",
            "peak_heap_bytes",
        ] {
            assert!(c.get(k).is_some(), "missing {k} in {c}");
        }
        if c["tool"] == "rust" {
            assert_eq!(c["ratio"], 1.0);
            assert_eq!(c["heap_allocs"], 0, "{c}");
        }
    }
    assert!(dir.join("plots/embedding.svg").exists());
    // the ratio chart of every suite that ran (issue 26)
    assert!(dir.join("plots/embedding-ratio.svg").exists());
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn help_and_bad_flags() {
    let out = Command::new(env!("CARGO_BIN_EXE_nilang-bench"))
        .arg("--help")
        .output()
        .unwrap();
    assert!(out.status.success());
    assert!(String::from_utf8_lossy(&out.stdout).contains("--suite"));
    let out = Command::new(env!("CARGO_BIN_EXE_nilang-bench"))
        .arg("--nope")
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
}

/// The MLP suite (issue 21): every gradient cell is checked against the hand-written
/// backpropagation (a failed check is a non-zero exit) and timed.
#[test]
fn mlp_smoke_run_checks_and_times_every_gradient() {
    let json = std::env::temp_dir().join(format!("nilang-bench-mlp-{}.json", std::process::id()));
    let out = Command::new(env!("CARGO_BIN_EXE_nilang-bench"))
        .args(["--smoke", "--suite", "mlp", "--json"])
        .arg(&json)
        .output()
        .expect("run nilang-bench");
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "exit {:?}\n{stdout}", out.status);
    assert!(!stdout.contains("CHECK FAILED"), "{stdout}");
    let v: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap();
    let _ = std::fs::remove_file(&json);
    let cells = v.as_array().unwrap();
    for (tool, m) in [
        ("rust", "O"),
        ("manual", "G"),
        ("nilang", "O"),
        ("nilang", "G"),
        ("nilang-x4", "G"),
    ] {
        assert!(
            cells.iter().any(|c| c["suite"] == "mlp"
                && c["tool"] == tool
                && c["measure"] == m
                && c["median_s"].is_number()),
            "{tool}-{m}\n{stdout}"
        );
    }
}

/// The ODE fit suite (issue 21): the NiLang.rs gradient is checked against the hand-written
/// RK4 adjoint (a failed check is a non-zero exit) and every cell is timed.
#[test]
fn odefit_smoke_run_checks_and_times_every_gradient() {
    let json =
        std::env::temp_dir().join(format!("nilang-bench-odefit-{}.json", std::process::id()));
    let out = Command::new(env!("CARGO_BIN_EXE_nilang-bench"))
        .args(["--smoke", "--suite", "odefit", "--json"])
        .arg(&json)
        .output()
        .expect("run nilang-bench");
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "exit {:?}\n{stdout}", out.status);
    assert!(!stdout.contains("CHECK FAILED"), "{stdout}");
    let v: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap();
    let _ = std::fs::remove_file(&json);
    let cells = v.as_array().unwrap();
    for (tool, m) in [
        ("rust", "O"),
        ("rust", "G"),
        ("nilang", "O"),
        ("nilang", "G"),
    ] {
        assert!(
            cells.iter().any(|c| c["suite"] == "odefit"
                && c["tool"] == tool
                && c["measure"] == m
                && c["median_s"].is_number()),
            "{tool}-{m}\n{stdout}"
        );
    }
}

/// The Kalman-filter suite (issue 21): the NiLang.rs gradient is checked against num-dual's
/// forward mode (a failed check is a non-zero exit) and every cell is timed.
#[test]
fn kalman_smoke_run_checks_and_times_every_gradient() {
    let json =
        std::env::temp_dir().join(format!("nilang-bench-kalman-{}.json", std::process::id()));
    let out = Command::new(env!("CARGO_BIN_EXE_nilang-bench"))
        .args(["--smoke", "--suite", "kalman", "--no-gpu", "--json"])
        .arg(&json)
        .output()
        .expect("run nilang-bench");
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "exit {:?}\n{stdout}", out.status);
    assert!(!stdout.contains("CHECK FAILED"), "{stdout}");
    let v: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap();
    let _ = std::fs::remove_file(&json);
    let cells = v.as_array().unwrap();
    for (tool, m) in [("rust", "O"), ("nilang", "O"), ("nilang", "G")] {
        assert!(
            cells.iter().any(|c| c["suite"] == "kalman"
                && c["tool"] == tool
                && c["measure"] == m
                && c["median_s"].is_number()),
            "{tool}-{m}\n{stdout}"
        );
    }
}
