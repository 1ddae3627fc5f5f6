//! Table 6: ADBench bundle adjustment: the residuals (O) and their sparse Jacobian (J), in
//! ADBench's CSR layout (definition in `adbench/README.md`). The files hold one camera, point,
//! weight and feature; the loader replicates them, and observation i joins camera i mod n with
//! point i mod m.
//!
//! The instances are the data crate's ([`nilang_adbench::BaInput`], loaded one file per case
//! after a memory estimate from its header); the baselines are in [`baselines`], our cells in
//! [`nilang`].

pub mod baselines;
pub mod gpu;
pub mod nilang;

use crate::cli::Mode;
use crate::harness::gpu::{MAX_DEVICE_BYTES, TOOL};
use crate::harness::{Case, Harness, Suite};
use crate::report::Measure;
use baselines::{jacobian_echidna, jacobian_num_dual, objective, reproj};
use nilang_adbench::ba::{BaInput, BLOCK_LEN};
use nilang_adbench::oracle;
use std::path::PathBuf;

/// The suite's name (`--suite ba`, the `suite` of its cells).
pub const SUITE: &str = "ba";

/// The BA suite (Table 6).
pub struct BaSuite;

/// One instance file of the run; the label (`test`, `ba1`, ...) is what `--case` selects.
pub struct BaFile {
    /// The label (`test`, `ba1`, ...).
    pub label: String,
    /// The instance file.
    pub path: PathBuf,
}

impl Suite for BaSuite {
    const NAME: &'static str = SUITE;
    const WORK: &'static str = "observations p";
    const ADBENCH: bool = true;
    type Case = BaFile;
    fn steps(mode: Mode) -> u64 {
        match mode {
            Mode::Quick => 5,
            Mode::Full => 20,
            Mode::Smoke => 2,
        }
    }
    fn cases(h: &mut Harness) -> Vec<BaFile> {
        let files = files(h);
        if files.is_empty() {
            let what = format!(
                "ba: no instances under {}",
                h.data.join("adbench/ba").display()
            );
            h.data_error(&what);
        }
        files
    }
    fn run_case(h: &mut Harness, file: &BaFile) {
        run_file(h, file)
    }
}
impl Case for BaFile {
    fn name(&self) -> &str {
        &self.label
    }
}

/// One BA case. Result layouts for the checks: O: `[reprojection errors (2p) | weight errors (p)]`;
/// J: the CSR values (`31 p`, in the order of [`nilang_adbench::SparseJacobian::with_layout`]).
pub struct BaCase {
    /// The case's name (`ba1 p=31843`, ...).
    pub name: String,
    /// The instance.
    pub inst: BaInput,
}

/// The instance files of the run, in order.
pub fn files(h: &Harness) -> Vec<BaFile> {
    let dir = h.data.join("adbench/ba");
    let count = match h.mode {
        Mode::Smoke => 1,
        Mode::Quick => 5,
        Mode::Full => 20,
    };
    let mut names: Vec<(usize, String)> = std::fs::read_dir(&dir)
        .map(|rd| {
            rd.filter_map(|e| e.ok()?.file_name().into_string().ok())
                .filter_map(|f| {
                    let num = f
                        .strip_prefix("ba")?
                        .split('_')
                        .next()?
                        .parse::<usize>()
                        .ok()?;
                    Some((num, f))
                })
                .collect()
        })
        .unwrap_or_default();
    names.sort();
    let mut out = Vec::new();
    if h.mode == Mode::Smoke {
        out.push(BaFile {
            label: "test".into(),
            path: dir.join("test.txt"),
        });
    }
    for (num, f) in names.into_iter().filter(|(k, _)| *k <= count) {
        out.push(BaFile {
            label: format!("ba{num}"),
            path: dir.join(f),
        });
    }
    out
}

/// The oracle's first Jacobian block of this instance (`ba_real_instances_summary.json`).
fn oracle_block(h: &Harness, b: &BaInput) -> Option<Vec<f64>> {
    let s = oracle::load_ba_summaries_in(&h.data).ok()?;
    let key = format!("ba1_n{}_m{}_p{}", b.n, b.m, b.p);
    let key2 = format!("ba2_n{}_m{}_p{}", b.n, b.m, b.p);
    let e = s.get(&key).or_else(|| s.get(&key2))?;
    Some(e.first_block_2x15_row_major.clone())
}

/// Estimate the case's memory from its header, then load and run it, or skip it.
fn run_file(h: &mut Harness, file: &BaFile) {
    let (label, path) = (file.label.as_str(), file.path.as_path());
    let (n, m, p) = match BaInput::header_from_file(path) {
        Ok(hd) => hd,
        Err(e) => return h.data_load_error(SUITE, &e),
    };
    let name = if label == "test" {
        format!("test n={n} m={m} p={p}")
    } else {
        format!("{label} p={p}")
    };
    let need = peak_bytes(n, m, p);
    if let Some(avail) = crate::harness::available_memory_bytes().filter(|&a| need > a) {
        h.note(&format!(
            "ba {name}: skipped, needs about {:.1} GiB of memory ({:.1} GiB available)",
            need as f64 / GIB,
            avail as f64 / GIB
        ));
        let size = p as f64;
        h.skip(SUITE, &name, size, "rust", Measure::O);
        for tool in ["num-dual", "echidna"] {
            h.skip(SUITE, &name, size, tool, Measure::J);
        }
        for tool in nilang::tools(&h.pools) {
            h.skip(SUITE, &name, size, &tool, Measure::O);
            h.skip(SUITE, &name, size, &tool, Measure::J);
        }
        return;
    }
    match BaInput::from_file(path) {
        Ok(inst) => run_case(h, &BaCase { name, inst }),
        Err(e) => h.data_load_error(SUITE, &e),
    }
}

const GIB: f64 = (1u64 << 30) as f64;

/// Peak memory of one case, estimated from the header before loading: the process's peak
/// resident set is linear in the number of observations `p` (the instance, the residuals, the
/// reference Jacobian values, one of our tools' Jacobian with its CSR layout at a time, the
/// copy made for its check); cameras and points add little. Our tools' kernels are built one
/// tool at a time ([`nilang::cells`] is lazy), so the peak does not depend on `--threads`.
/// Measured with `/usr/bin/time -v nilang-bench --suite ba --case ba5 --threads T` (release
/// build): ba5 (p = 225 911) 244.2 MB with T = 1 and 244.4 MB with T = 2, i.e. about 1085
/// bytes per observation over a 5 MB base (before the kernels were built lazily: 314.8 MB and
/// 374.9 MB); the constants below add about 15 %. ba20 (p = 28 987 644) thus needs about
/// 34 GiB and is refused, with that figure, on a 24 GiB machine.
///
/// ```
/// use nilang_bench::suites::ba::peak_bytes;
/// // ba19: n = 4585, m = 1 324 582, p = 9 125 125: about 11.6 GB, fits a 24 GB machine
/// let ba19 = peak_bytes(4585, 1_324_582, 9_125_125);
/// assert!(ba19 > 10_400_000_000 && ba19 < 12_000_000_000, "{ba19}");
/// ```
pub fn peak_bytes(n: usize, m: usize, p: usize) -> u64 {
    BA_BYTES_FIXED
        + BA_BYTES_PER_CAMERA * n as u64
        + BA_BYTES_PER_POINT * m as u64
        + BA_BYTES_PER_OBS * p as u64
}

/// Fixed part of [`peak_bytes`] (the measured base is about 5 MB).
pub const BA_BYTES_FIXED: u64 = 32 << 20;
/// Bytes per camera in [`peak_bytes`] (11 f64 in the instance and its copies).
pub const BA_BYTES_PER_CAMERA: u64 = 4 * 11 * 8;
/// Bytes per point in [`peak_bytes`] (3 f64 in the instance and its copies).
pub const BA_BYTES_PER_POINT: u64 = 4 * 3 * 8;
/// Bytes per observation in [`peak_bytes`] (measured 1085, see there).
pub const BA_BYTES_PER_OBS: u64 = 1250;

fn run_case(h: &mut Harness, c: &BaCase) {
    let b = &c.inst;
    let name = c.name.as_str();
    let size = b.p as f64;
    let mut obj = vec![0.0; 3 * b.p];
    objective(b, &mut obj);
    let mut vn = vec![0.0; 31 * b.p];
    let mut ve = vec![0.0; 31 * b.p];
    jacobian_num_dual(b, &mut vn);
    jacobian_echidna(b, &mut ve);
    let ok_e = h.check(
        &format!("ba {name}: echidna-J vs num-dual-J"),
        &ve,
        &vn,
        1e-10,
    );
    // Finite differences on the first block.
    let v0 = b.block_inputs(0);
    let feat0 = [b.feats[0], b.feats[1]];
    let mut fd = vec![0.0; 30];
    for j in 0..BLOCK_LEN {
        let step = 1e-6 * v0[j].abs().max(1.0);
        let (mut vp, mut vm) = (v0, v0);
        vp[j] += step;
        vm[j] -= step;
        let (ep, em) = (reproj(&vp, feat0), reproj(&vm, feat0));
        for r in 0..2 {
            fd[15 * r + j] = (ep[r] - em[r]) / (2.0 * step);
        }
    }
    let mut ok_n = h.check(
        &format!("ba {name}: num-dual-J vs finite differences (first block)"),
        &vn[..30],
        &fd,
        1e-6,
    );
    if let Some(ob) = oracle_block(h, b) {
        ok_n &= h.check(
            &format!("ba {name}: num-dual-J vs oracle first block"),
            &vn[..30],
            &ob,
            1e-8,
        );
    }
    if b.p == 10 {
        if let Ok(o) = oracle::load_ba_oracle_in(&h.data) {
            let (mut want_o, vals) = (o.reproj_err, o.jacobian.vals);
            want_o.extend(o.w_err);
            h.check(&format!("ba {name}: rust-O vs oracle"), &obj, &want_o, 1e-8);
            ok_n &= h.check(
                &format!("ba {name}: num-dual-J vs oracle"),
                &vn,
                &vals,
                1e-8,
            );
        }
    }
    h.time(SUITE, name, size, "rust", Measure::O, 1.0, || {
        objective(b, &mut obj)
    });
    if ok_n {
        h.time(SUITE, name, size, "num-dual", Measure::J, 1.0, || {
            jacobian_num_dual(b, &mut vn)
        });
    }
    if ok_e && ok_n {
        h.time(SUITE, name, size, "echidna", Measure::J, 1.0, || {
            jacobian_echidna(b, &mut ve)
        });
    }
    drop(ve);
    let reference = |m: Measure| match m {
        Measure::O => Some(std::borrow::Cow::Borrowed(&obj[..])),
        Measure::J => Some(std::borrow::Cow::Borrowed(&vn[..])),
        _ => None,
    };
    let pools = h.pools.clone();
    for (tool, ks) in nilang::cells(c, &pools) {
        h.external(SUITE, name, size, 1.0, &tool, ks, &reference, 1e-8);
    }
    if let Some(dev) = h.gpu.clone() {
        if gpu::device_bytes(b) <= MAX_DEVICE_BYTES {
            let ks = gpu::kernels(&dev, c);
            h.external(SUITE, name, size, 1.0, TOOL, ks, &reference, 1e-8);
        } else {
            h.skip(SUITE, name, size, TOOL, Measure::O);
            h.skip(SUITE, name, size, TOOL, Measure::J);
        }
    }
    baselines::jax(h, c, &reference);
}
