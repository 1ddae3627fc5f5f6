//! Table 6: ADBench bundle adjustment: the residuals (O) and their sparse Jacobian (J), in
//! ADBench's CSR layout (definition in `adbench/README.md`). The files hold one camera, point,
//! weight and feature; the loader replicates them, and observation i joins camera i mod n with
//! point i mod m.

use crate::harness::Harness;
use crate::real::Real;
use crate::report::Measure;
use echidna::tape::{Tape, TapeGuard};
use echidna::Reverse;
use num_dual::DualSVec64;
use std::path::{Path, PathBuf};

pub const SUITE: &str = "ba";
pub const N_CAM: usize = 11;
/// Inputs of one reprojection block: camera (11), point (3), weight (1).
pub const BLOCK_IN: usize = 15;

/// One BA instance: the validated ADBench reader's type.
pub type BaInstance = nilang_adbench::BaInput;

/// The benchmark's view of an instance: per-observation inputs and the Jacobian layout.
pub trait BaLayout {
    /// The 15 inputs of observation i: `[camera | point | weight]`.
    fn block_inputs(&self, i: usize) -> [f64; BLOCK_IN];
    /// Jacobian size: (3p) × (11n + 3m + p).
    fn jac_shape(&self) -> (usize, usize);
    /// The CSR structure (row pointers, column indices) of the Jacobian; values are written by
    /// the tools in the same order (`31 p` of them).
    fn jac_structure(&self) -> (Vec<usize>, Vec<u32>);
}

impl BaLayout for BaInstance {
    #[inline]
    fn block_inputs(&self, i: usize) -> [f64; BLOCK_IN] {
        let (c, pt) = self.obs[i];
        let mut b = [0.0; BLOCK_IN];
        b[..11].copy_from_slice(&self.cams[c * 11..c * 11 + 11]);
        b[11..14].copy_from_slice(&self.x[pt * 3..pt * 3 + 3]);
        b[14] = self.w[i];
        b
    }

    fn jac_shape(&self) -> (usize, usize) {
        (3 * self.p, 11 * self.n + 3 * self.m + self.p)
    }

    fn jac_structure(&self) -> (Vec<usize>, Vec<u32>) {
        let p = self.p;
        let mut rows = Vec::with_capacity(3 * p + 1);
        let mut cols = Vec::with_capacity(31 * p);
        rows.push(0);
        for i in 0..p {
            let (c, pt) = self.obs[i];
            for _ in 0..2 {
                cols.extend((0..11).map(|j| (11 * c + j) as u32));
                cols.extend((0..3).map(|j| (11 * self.n + 3 * pt + j) as u32));
                cols.push((11 * self.n + 3 * self.m + i) as u32);
                rows.push(cols.len());
            }
        }
        for i in 0..p {
            cols.push((11 * self.n + 3 * self.m + i) as u32);
            rows.push(cols.len());
        }
        (rows, cols)
    }
}

/// Rodrigues rotation of `pt` by the angle-axis vector `r` (ADBench's `rodrigues_rotate_point`).
#[inline]
fn rotate<T: Real>(r: [T; 3], pt: [T; 3]) -> [T; 3] {
    let sqtheta = r[0] * r[0] + r[1] * r[1] + r[2] * r[2];
    if sqtheta.val() != 0.0 {
        let theta = sqtheta.sqrt();
        let (c, s) = (theta.cos(), theta.sin());
        let inv = T::cst(1.0) / theta;
        let w = [r[0] * inv, r[1] * inv, r[2] * inv];
        let wx = cross(w, pt);
        let tmp = (w[0] * pt[0] + w[1] * pt[1] + w[2] * pt[2]) * (T::cst(1.0) - c);
        [
            pt[0] * c + wx[0] * s + w[0] * tmp,
            pt[1] * c + wx[1] * s + w[1] * tmp,
            pt[2] * c + wx[2] * s + w[2] * tmp,
        ]
    } else {
        let rx = cross(r, pt);
        [pt[0] + rx[0], pt[1] + rx[1], pt[2] + rx[2]]
    }
}

#[inline]
fn cross<T: Real>(a: [T; 3], b: [T; 3]) -> [T; 3] {
    [
        a[1] * b[2] - a[2] * b[1],
        a[2] * b[0] - a[0] * b[2],
        a[0] * b[1] - a[1] * b[0],
    ]
}

/// The reprojection residual `w (proj − m)` of one observation from its 15 inputs
/// `[r (3) | c (3) | f | u0 v0 | k1 k2 | X (3) | w]`.
#[inline]
pub fn reproj<T: Real>(v: &[T; BLOCK_IN], feat: [f64; 2]) -> [T; 2] {
    let p = [v[11] - v[3], v[12] - v[4], v[13] - v[5]];
    let y = rotate([v[0], v[1], v[2]], p);
    let u = [y[0] / y[2], y[1] / y[2]];
    let rsq = u[0] * u[0] + u[1] * u[1];
    let l = T::cst(1.0) + v[9] * rsq + v[10] * rsq * rsq;
    let w = v[14];
    [
        w * (v[6] * (u[0] * l) + v[7] - T::cst(feat[0])),
        w * (v[6] * (u[1] * l) + v[8] - T::cst(feat[1])),
    ]
}

/// The plain objective: `[reprojection errors (2p) | weight errors 1 − w² (p)]`.
pub fn objective(b: &BaInstance, out: &mut [f64]) {
    let p = b.p;
    let (re, we) = out.split_at_mut(2 * p);
    for i in 0..p {
        let v = b.block_inputs(i);
        let e = reproj(&v, [b.feats[2 * i], b.feats[2 * i + 1]]);
        re[2 * i] = e[0];
        re[2 * i + 1] = e[1];
        we[i] = 1.0 - b.w[i] * b.w[i];
    }
}

/// The Jacobian values by num-dual forward mode (15 directions per observation).
pub fn jacobian_num_dual(b: &BaInstance, vals: &mut [f64]) {
    let p = b.p;
    for i in 0..p {
        let v = b.block_inputs(i);
        let d: [DualSVec64<BLOCK_IN>; BLOCK_IN] =
            std::array::from_fn(|j| DualSVec64::<BLOCK_IN>::from_re(v[j]).derivative(j));
        let e = reproj(&d, [b.feats[2 * i], b.feats[2 * i + 1]]);
        let blk = &mut vals[30 * i..30 * i + 30];
        for (r, er) in e.iter().enumerate() {
            match er.eps.0.as_ref() {
                Some(m) => (0..BLOCK_IN).for_each(|j| blk[15 * r + j] = m[j]),
                None => blk[15 * r..15 * r + 15].iter_mut().for_each(|x| *x = 0.0),
            }
        }
    }
    weight_rows(b, vals);
}

/// The Jacobian values by echidna's tape reverse mode: one tape per observation (reused),
/// two reverse sweeps.
pub fn jacobian_echidna(b: &BaInstance, vals: &mut [f64]) {
    let mut tape: Tape<f64> = Tape::with_capacity(256);
    for i in 0..b.p {
        let v = b.block_inputs(i);
        tape.clear();
        let x: [Reverse<f64>; BLOCK_IN] = std::array::from_fn(|j| {
            let (idx, val) = tape.new_variable(v[j]);
            Reverse::from_tape(val, idx)
        });
        let e = {
            let _guard = TapeGuard::new(&mut tape);
            reproj(&x, [b.feats[2 * i], b.feats[2 * i + 1]])
        };
        for (r, er) in e.iter().enumerate() {
            let adj = tape.reverse(er.index());
            vals[30 * i + 15 * r..30 * i + 15 * r + 15].copy_from_slice(&adj[..BLOCK_IN]);
        }
    }
    weight_rows(b, vals);
}

fn weight_rows(b: &BaInstance, vals: &mut [f64]) {
    for i in 0..b.p {
        vals[30 * b.p + i] = -2.0 * b.w[i];
    }
}

/// One BA case. Result layouts for the hook: O: `[reprojection errors (2p) | weight errors (p)]`;
/// J: the CSR values (`31 p`, in the order of [`BaInstance::jac_structure`]).
pub struct BaCase {
    pub name: String,
    pub inst: BaInstance,
}

/// The instance files of the run, in order: `(label, path)`; the label (`test`, `ba1`, ...)
/// is what `--case` selects.
pub fn files(h: &Harness) -> Vec<(String, PathBuf)> {
    let dir = h.data.join("adbench/ba");
    let count = match h.mode {
        crate::cli::Mode::Smoke => 1,
        crate::cli::Mode::Quick => 5,
        crate::cli::Mode::Full => 20,
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
    if h.mode == crate::cli::Mode::Smoke {
        out.push(("test".to_string(), dir.join("test.txt")));
    }
    for (num, f) in names.into_iter().filter(|(k, _)| *k <= count) {
        out.push((format!("ba{num}"), dir.join(f)));
    }
    out
}

fn oracle_block(h: &Harness, case: &BaCase) -> Option<Vec<f64>> {
    let v: serde_json::Value = serde_json::from_str(
        &std::fs::read_to_string(
            h.data
                .join("oracle-reference/ba_real_instances_summary.json"),
        )
        .ok()?,
    )
    .ok()?;
    let b = &case.inst;
    let key = format!("ba1_n{}_m{}_p{}", b.n, b.m, b.p);
    let key2 = format!("ba2_n{}_m{}_p{}", b.n, b.m, b.p);
    let e = v.get(&key).or_else(|| v.get(&key2))?;
    e["first_block_2x15_row_major"]
        .as_array()?
        .iter()
        .map(|x| x.as_f64())
        .collect()
}

fn oracle_test(h: &Harness) -> Option<(Vec<f64>, Vec<f64>)> {
    let v: serde_json::Value = serde_json::from_str(
        &std::fs::read_to_string(h.data.join("oracle-reference/ba_test.json")).ok()?,
    )
    .ok()?;
    let vals = v["jacobian"]["vals"]
        .as_array()?
        .iter()
        .map(|x| x.as_f64())
        .collect::<Option<Vec<_>>>()?;
    let mut o: Vec<f64> = v["reproj_err"]
        .as_array()?
        .iter()
        .flat_map(|r| match r.as_array() {
            Some(a) => a.iter().map(|x| x.as_f64()).collect::<Vec<_>>(),
            None => vec![r.as_f64()],
        })
        .collect::<Option<Vec<_>>>()?;
    o.extend(
        v["w_err"]
            .as_array()?
            .iter()
            .map(|x| x.as_f64())
            .collect::<Option<Vec<_>>>()?,
    );
    Some((o, vals))
}

pub fn run(h: &mut Harness) {
    let files = files(h);
    if files.is_empty() {
        let what = format!(
            "ba: no instances under {}",
            h.data.join("adbench/ba").display()
        );
        h.data_error(&what);
    }
    for (label, path) in files {
        if h.wants_case(&label) {
            h.isolate(&format!("ba {label}"), |h| run_file(h, &label, &path));
        }
        h.step();
    }
}

/// Estimate the case's memory from its header, then load and run it, or skip it.
fn run_file(h: &mut Harness, label: &str, path: &Path) {
    let (n, m, p) = match BaInstance::header_from_file(path) {
        Ok(hd) => hd,
        Err(e) => return h.data_error(&format!("ba: {e}")),
    };
    let name = if label == "test" {
        format!("test n={n} m={m} p={p}")
    } else {
        format!("{label} p={p}")
    };
    let need = peak_bytes(n, m, p);
    if let Some(avail) = available_bytes().filter(|&a| need > a) {
        eprintln!(
            "ba {name}: skipped, needs about {:.1} GiB of memory ({:.1} GiB available)",
            need as f64 / GIB,
            avail as f64 / GIB
        );
        let size = p as f64;
        h.skip(SUITE, &name, size, "rust", Measure::O);
        for tool in ["num-dual", "echidna"] {
            h.skip(SUITE, &name, size, tool, Measure::J);
        }
        for prov in h
            .registry
            .providers
            .iter()
            .map(|p| p.tool().to_string())
            .collect::<Vec<_>>()
        {
            h.skip(SUITE, &name, size, &prov, Measure::O);
            h.skip(SUITE, &name, size, &prov, Measure::J);
        }
        return;
    }
    match BaInstance::from_file(path) {
        Ok(inst) => run_case(h, &BaCase { name, inst }),
        Err(e) => h.data_error(&format!("ba: {e}")),
    }
}

const GIB: f64 = (1u64 << 30) as f64;

/// Peak memory of one case, estimated from the header before loading: the process's peak
/// resident set is linear in the number of observations `p` (the instance, its copies in the
/// reversible cells' kernels, the residuals, the Jacobian values of the reference tools and
/// of every provider with their CSR layout, the copies made for the checks); cameras and
/// points add little. Measured with `/usr/bin/time -v nilang-bench --full --suite ba --case
/// baK` (release build, one case per process): ba1 (p = 31 843) 38.7 MB, ba5 (p = 225 911)
/// 253.5 MB, ba14 (p = 1 255 268) 1387 MB, i.e. about 1128 bytes per observation over a
/// 5 MB base; the constants below add about 10 %.
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
/// Bytes per observation in [`peak_bytes`] (measured 1128, see there).
pub const BA_BYTES_PER_OBS: u64 = 1250;

/// `MemAvailable` of `/proc/meminfo`, if readable.
fn available_bytes() -> Option<u64> {
    let info = std::fs::read_to_string("/proc/meminfo").ok()?;
    let line = info.lines().find(|l| l.starts_with("MemAvailable:"))?;
    let kb: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kb * 1024)
}

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
    for j in 0..BLOCK_IN {
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
    if let Some(ob) = oracle_block(h, c) {
        ok_n &= h.check(
            &format!("ba {name}: num-dual-J vs oracle first block"),
            &vn[..30],
            &ob,
            1e-8,
        );
    }
    if b.p == 10 {
        if let Some((o, vals)) = oracle_test(h) {
            h.check(&format!("ba {name}: rust-O vs oracle"), &obj, &o, 1e-8);
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
    for prov in &h.registry.providers {
        let ks = prov.ba(c);
        h.external(SUITE, name, size, 1.0, prov.tool(), ks, &reference, 1e-8);
    }
    crate::peers::jax::ba(h, c, &reference);
}

#[cfg(test)]
mod tests {
    use super::*;
    #[test]
    fn structure() {
        let txt = "2 3 4\n1 2 3 4 5 6 7 8 9 10 11\n1 2 3\n0.5\n1 2\n";
        let b = BaInstance::parse(txt).unwrap();
        let (rows, cols) = b.jac_structure();
        assert_eq!(rows.len(), 3 * 4 + 1);
        assert_eq!(cols.len(), 31 * 4);
        assert_eq!(*rows.last().unwrap(), 124);
        assert_eq!(b.jac_shape(), (12, 22 + 9 + 4));
        // observation 3: camera 1, point 0, weight column 22 + 9 + 3
        assert_eq!(&cols[90..91], &[11]);
        assert_eq!(cols[90 + 14], 34);
    }
}
