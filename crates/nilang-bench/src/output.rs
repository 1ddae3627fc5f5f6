//! Output paths: validated before the run, and files replaced atomically.
//!
//! A run can take many minutes; a `--json` or `--plot` path that cannot be written must fail
//! at once, not after the run. The JSON file is written to a temporary file in the same
//! folder and renamed over the target, so a full disk or an interrupted run never leaves a
//! truncated file in place of a good one.

use std::fs;
use std::io::Write;
use std::path::{Path, PathBuf};

/// The folder a file path lives in (`.` for a bare file name).
fn parent_of(path: &Path) -> PathBuf {
    match path.parent() {
        Some(p) if !p.as_os_str().is_empty() => p.to_path_buf(),
        _ => PathBuf::from("."),
    }
}

/// Create and remove a probe file in `dir`: whether files can be created there.
fn probe_writable(dir: &Path) -> std::io::Result<()> {
    let probe = dir.join(format!(".nilang-bench-probe-{}", std::process::id()));
    fs::File::create(&probe)?;
    fs::remove_file(&probe)
}

/// Check that `--json FILE` can be written: not a folder, its folder exists and accepts new
/// files (the temporary file of [`write_atomic`]).
///
/// ```
/// use nilang_bench::output::check_json_path;
/// let dir = std::env::temp_dir();
/// assert!(check_json_path(&dir.join("results.json")).is_ok());
/// let e = check_json_path(&dir).unwrap_err();
/// assert!(e.contains("is a folder"), "{e}");
/// let e = check_json_path(&dir.join("no-such-folder-4711/results.json")).unwrap_err();
/// assert!(e.contains("does not exist"), "{e}");
/// ```
pub fn check_json_path(path: &Path) -> Result<(), String> {
    let shown = path.display();
    if path.is_dir() {
        return Err(format!("--json {shown}: is a folder, not a file"));
    }
    let dir = parent_of(path);
    if !dir.exists() {
        return Err(format!(
            "--json {shown}: the folder {} does not exist (create it first)",
            dir.display()
        ));
    }
    if !dir.is_dir() {
        return Err(format!("--json {shown}: {} is not a folder", dir.display()));
    }
    probe_writable(&dir).map_err(|e| {
        format!(
            "--json {shown}: cannot create files in {}: {e}",
            dir.display()
        )
    })
}

/// Check that `--plot DIR` can be written: created if missing (with its parents), and it
/// accepts new files.
///
/// ```
/// use nilang_bench::output::check_plot_dir;
/// let dir = std::env::temp_dir().join(format!("nilang-plot-doc-{}", std::process::id()));
/// assert!(check_plot_dir(&dir).is_ok());
/// assert!(dir.is_dir());
/// std::fs::remove_dir(&dir).unwrap();
/// ```
pub fn check_plot_dir(dir: &Path) -> Result<(), String> {
    let shown = dir.display();
    if dir.exists() && !dir.is_dir() {
        return Err(format!("--plot {shown}: exists and is not a folder"));
    }
    fs::create_dir_all(dir)
        .map_err(|e| format!("--plot {shown}: cannot create the folder: {e}"))?;
    probe_writable(dir).map_err(|e| format!("--plot {shown}: cannot create files there: {e}"))
}

/// Replace `path` with `bytes` atomically: write a temporary file in the same folder, flush it
/// to disk, rename it over `path`. On failure the temporary file is removed and `path` is
/// untouched.
///
/// ```
/// use nilang_bench::output::write_atomic;
/// let p = std::env::temp_dir().join(format!("nilang-atomic-doc-{}.json", std::process::id()));
/// write_atomic(&p, b"[1]\n").unwrap();
/// write_atomic(&p, b"[2]\n").unwrap();
/// assert_eq!(std::fs::read_to_string(&p).unwrap(), "[2]\n");
/// std::fs::remove_file(&p).unwrap();
/// ```
pub fn write_atomic(path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    let dir = parent_of(path);
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_else(|| "output".into());
    let tmp = dir.join(format!(".{name}.tmp-{}", std::process::id()));
    let result = (|| {
        let mut f = fs::File::create(&tmp)?;
        f.write_all(bytes)?;
        f.sync_all()?;
        drop(f);
        fs::rename(&tmp, path)
    })();
    if result.is_err() {
        let _ = fs::remove_file(&tmp);
    }
    result
}

#[cfg(test)]
mod tests {
    use super::*;

    fn scratch(tag: &str) -> PathBuf {
        let d = std::env::temp_dir().join(format!("nilang-output-{tag}-{}", std::process::id()));
        let _ = fs::remove_dir_all(&d);
        fs::create_dir_all(&d).unwrap();
        d
    }

    #[test]
    fn json_path_faults() {
        let d = scratch("json");
        assert!(check_json_path(&d.join("ok.json")).is_ok());
        // a folder
        let e = check_json_path(&d).unwrap_err();
        assert!(e.contains("is a folder"), "{e}");
        // a missing folder
        let e = check_json_path(&d.join("missing/out.json")).unwrap_err();
        assert!(e.contains("missing") && e.contains("does not exist"), "{e}");
        // a file where the folder should be
        fs::write(d.join("file"), "x").unwrap();
        let e = check_json_path(&d.join("file/out.json")).unwrap_err();
        assert!(e.contains("is not a folder"), "{e}");
        // the probe leaves nothing behind
        assert_eq!(fs::read_dir(&d).unwrap().count(), 1);
        fs::remove_dir_all(&d).unwrap();
    }

    #[test]
    fn plot_dir_faults() {
        let d = scratch("plot");
        let nested = d.join("a/b");
        assert!(check_plot_dir(&nested).is_ok());
        assert!(nested.is_dir());
        fs::write(d.join("file"), "x").unwrap();
        let e = check_plot_dir(&d.join("file")).unwrap_err();
        assert!(e.contains("not a folder"), "{e}");
        let e = check_plot_dir(&d.join("file/sub")).unwrap_err();
        assert!(e.contains("cannot create the folder"), "{e}");
        fs::remove_dir_all(&d).unwrap();
    }

    #[test]
    fn failed_atomic_write_keeps_the_old_file_and_no_temporary() {
        let d = scratch("atomic");
        let good = d.join("results.json");
        write_atomic(&good, b"good\n").unwrap();
        // renaming onto a non-empty folder fails: the temporary is removed
        let blocker = d.join("blocked.json");
        fs::create_dir_all(blocker.join("inside")).unwrap();
        assert!(write_atomic(&blocker, b"new\n").is_err());
        assert!(blocker.join("inside").is_dir());
        // writing into a missing folder fails before touching anything
        assert!(write_atomic(&d.join("missing/x.json"), b"new\n").is_err());
        assert_eq!(fs::read_to_string(&good).unwrap(), "good\n");
        let mut names: Vec<String> = fs::read_dir(&d)
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        names.sort();
        assert_eq!(names, ["blocked.json", "results.json"]);
        fs::remove_dir_all(&d).unwrap();
    }
}
