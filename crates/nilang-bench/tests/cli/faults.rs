//! Benchmark faults: bad output paths stop the run before it starts, missing data has its own
//! exit status and says where it looked, and one failing suite does not lose the others'
//! results.

use std::path::PathBuf;
use std::process::{Command, Output};

fn scratch(tag: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("nilang-bench-faults-{tag}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

fn bench(args: &[&std::ffi::OsStr]) -> (Output, String, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_nilang-bench"))
        .args(args)
        .output()
        .expect("run nilang-bench");
    let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
    let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
    (out, stdout, stderr)
}

/// Each output-path fault exits with status 2 before any suite runs (no table printed).
#[test]
fn output_path_faults_stop_before_the_run() {
    let d = scratch("paths");
    std::fs::write(d.join("file"), "x").unwrap();
    let cases: [(&str, PathBuf, &str); 5] = [
        ("--json", d.join("missing/out.json"), "does not exist"),
        ("--json", d.clone(), "is a folder"),
        ("--json", d.join("file/out.json"), "is not a folder"),
        ("--plot", d.join("file"), "not a folder"),
        ("--plot", d.join("file/plots"), "cannot create the folder"),
    ];
    for (flag, path, msg) in cases {
        let (out, stdout, stderr) = bench(&[
            "--smoke".as_ref(),
            "--suite".as_ref(),
            "bessel".as_ref(),
            flag.as_ref(),
            path.as_os_str(),
        ]);
        assert_eq!(
            out.status.code(),
            Some(2),
            "{flag} {}: {stderr}",
            path.display()
        );
        assert!(stderr.contains(msg) && stderr.contains(flag), "{stderr}");
        assert!(
            !stdout.contains("# NiLang.rs benchmarks"),
            "the run started: {stdout}"
        );
    }
    // nothing was created next to the file, and no temporary was left
    let mut names: Vec<String> = std::fs::read_dir(&d)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    assert_eq!(names, ["file"]);
    let _ = std::fs::remove_dir_all(&d);
}

/// Missing data: status 3, the folder searched and how to point at it; the suites that do
/// not need the data still run, print, and are written to the JSON file.
#[test]
fn missing_data_is_reported_and_the_other_suites_still_written() {
    let d = scratch("data");
    let json = d.join("cells.json");
    std::fs::write(&json, "old").unwrap();
    let nowhere = d.join("no-data-here");
    let (out, stdout, stderr) = bench(&[
        "--smoke".as_ref(),
        "--suite".as_ref(),
        "bessel".as_ref(),
        "gmm".as_ref(),
        "ba".as_ref(),
        "--data".as_ref(),
        nowhere.as_os_str(),
        "--json".as_ref(),
        json.as_os_str(),
    ]);
    assert_eq!(out.status.code(), Some(3), "{stderr}");
    let shown = nowhere.display().to_string();
    for needle in [
        shown.as_str(),
        "--data DIR",
        "NILANG_DATA=DIR",
        "gmm:",
        "ba:",
    ] {
        assert!(stderr.contains(needle), "missing `{needle}` in {stderr}");
    }
    assert!(stdout.contains("### bessel"), "{stdout}");
    let v: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap();
    let cells = v.as_array().unwrap();
    assert!(cells.iter().any(|c| c["suite"] == "bessel"));
    assert!(cells.iter().all(|c| c["suite"] == "bessel"));
    let _ = std::fs::remove_dir_all(&d);
}

/// A bad instance file is a data error naming file, line and token, not a crash, and the
/// other cases run.
#[test]
fn a_bad_instance_file_is_reported_with_its_position() {
    let d = scratch("bad");
    let data = nilang_adbench::oracle::data_dir();
    // a copy of the smoke GMM files with test.txt broken at its header
    let gmm = d.join("adbench/gmm");
    std::fs::create_dir_all(gmm.join("1k")).unwrap();
    std::fs::write(gmm.join("test.txt"), "2 2.9 1\n").unwrap();
    std::fs::copy(
        data.join("adbench/gmm/1k/gmm_d2_K5.txt"),
        gmm.join("1k/gmm_d2_K5.txt"),
    )
    .unwrap();
    let (out, stdout, stderr) = bench(&[
        "--smoke".as_ref(),
        "--suite".as_ref(),
        "gmm".as_ref(),
        "--data".as_ref(),
        d.as_os_str(),
    ]);
    assert_eq!(out.status.code(), Some(3), "{stderr}");
    assert!(
        stderr.contains("test.txt:1:3 (token 2)") && stderr.contains("`2.9`"),
        "{stderr}"
    );
    assert!(stdout.contains("1k d=2 K=5"), "{stdout}");
    let _ = std::fs::remove_dir_all(&d);
}

/// `--case` applies to every suite; a name that matches nothing is exit status 2 before the
/// run, listing the cases.
#[test]
fn case_selects_in_every_suite_and_an_unknown_case_is_an_error() {
    let (out, stdout, stderr) = bench(&[
        "--smoke".as_ref(),
        "--suite".as_ref(),
        "bessel".as_ref(),
        "embedding".as_ref(),
        "--case".as_ref(),
        "J2(1.0)".as_ref(),
        "k=4".as_ref(),
    ]);
    assert!(out.status.success(), "{stderr}");
    assert!(
        stdout.contains("| J2(1.0) |") && stdout.contains("| k=4 |"),
        "{stdout}"
    );
    assert!(
        !stdout.contains("| k=2 |") && !stdout.contains("batch"),
        "{stdout}"
    );
    let (out, stdout, stderr) = bench(&[
        "--smoke".as_ref(),
        "--suite".as_ref(),
        "bessel".as_ref(),
        "schedules".as_ref(),
        "--case".as_ref(),
        "nope".as_ref(),
    ]);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert!(
        stderr.contains("`nope`") && stderr.contains("J2(1.0)") && stderr.contains("T=200"),
        "{stderr}"
    );
    assert!(!stdout.contains("# NiLang.rs benchmarks"), "{stdout}");
}

/// Empty paths and values on switches are usage errors (exit status 2) before the run.
#[test]
fn empty_paths_and_switch_values_are_usage_errors() {
    for args in [
        &["--smoke", "--suite", "bessel", "--json="][..],
        &["--smoke", "--suite", "bessel", "--plot", ""],
        &["--smoke=1", "--suite", "bessel"],
    ] {
        let args: Vec<&std::ffi::OsStr> = args.iter().map(|a| a.as_ref()).collect();
        let (out, stdout, stderr) = bench(&args);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {stderr}");
        assert!(
            stderr.contains("empty") || stderr.contains("takes no value"),
            "{stderr}"
        );
        assert!(!stdout.contains("# NiLang.rs benchmarks"), "{stdout}");
    }
}

/// An explicit `--gpu` without an OpenCL device is an error, not a line and exit 0.
#[test]
fn explicit_gpu_without_a_device_is_an_error() {
    if nilang_gpu::Device::first().is_ok() {
        eprintln!("skipped: an OpenCL device is present");
        return;
    }
    let (out, _, stderr) = bench(&[
        "--smoke".as_ref(),
        "--gpu".as_ref(),
        "--suite".as_ref(),
        "bessel".as_ref(),
    ]);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert!(
        stderr.contains("--gpu: no usable OpenCL device"),
        "{stderr}"
    );
}

/// `NILANG_DATA` naming a folder that does not exist is reported (status 3), not replaced by
/// another folder.
#[test]
fn a_missing_nilang_data_folder_is_an_error() {
    let out = Command::new(env!("CARGO_BIN_EXE_nilang-bench"))
        .args(["--smoke", "--suite", "bessel"])
        .env("NILANG_DATA", "/nonexistent/nilang-data")
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(3), "{stderr}");
    assert!(
        stderr.contains("DATA MISSING: the data folder /nonexistent/nilang-data does not exist"),
        "{stderr}"
    );
}

/// A BA header announcing 10¹² points is a data error naming the file (status 3), not a case
/// skipped for lack of memory.
#[test]
fn an_impossible_ba_header_is_a_data_error() {
    let d = scratch("baheader");
    let data = nilang_adbench::oracle::data_dir();
    std::fs::create_dir_all(d.join("adbench/ba")).unwrap();
    let test = std::fs::read_to_string(data.join("adbench/ba/test.txt")).unwrap();
    let body = test.split_once('\n').unwrap().1;
    std::fs::write(
        d.join("adbench/ba/test.txt"),
        format!("2 1000000000000 10\n{body}"),
    )
    .unwrap();
    let (out, stdout, stderr) = bench(&[
        "--smoke".as_ref(),
        "--suite".as_ref(),
        "ba".as_ref(),
        "--case".as_ref(),
        "test".as_ref(),
        "--data".as_ref(),
        d.as_os_str(),
    ]);
    assert_eq!(out.status.code(), Some(3), "{stderr}");
    assert!(
        stderr.contains("DATA ERROR: ") && stderr.contains("test.txt (header"),
        "{stderr}"
    );
    assert!(stderr.contains("m=1000000000000"), "{stderr}");
    assert!(
        !stderr.contains("DATA MISSING") && !stderr.contains("skipped"),
        "{stderr}"
    );
    assert!(!stdout.contains("| test"), "{stdout}");
    let _ = std::fs::remove_dir_all(&d);
}
