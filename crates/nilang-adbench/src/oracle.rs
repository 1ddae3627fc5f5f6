//! Reference data: locating `shared/data`, loading the JAX oracle outputs and
//! ADBench's golden test values, and ADBench's comparison metric.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use serde::de::DeserializeOwned;
use serde::Deserialize;

use crate::error::{read_to_string, AdbenchError};

/// ADBench's comparison metric: `|x - y| / max(1, |x| + |y|) < 1e-8`.
///
/// ```
/// use nilang_adbench::oracle::adbench_close;
/// assert!(adbench_close(1e6, 1e6 + 1e-3));
/// assert!(!adbench_close(1.0, 1.0 + 1e-7));
/// ```
pub fn adbench_close(x: f64, y: f64) -> bool {
    adbench_rel_err(x, y) < 1e-8
}

/// The quantity ADBench's metric thresholds: `|x - y| / max(1, |x| + |y|)`.
pub fn adbench_rel_err(x: f64, y: f64) -> f64 {
    (x - y).abs() / (x.abs() + y.abs()).max(1.0)
}

/// The largest [`adbench_rel_err`] of two vectors' entries (a NaN counts as infinite; the
/// lengths must agree).
///
/// ```
/// use nilang_adbench::oracle::max_rel_err;
/// assert_eq!(max_rel_err(&[1.0, 4.0], &[1.0, 4.0]), 0.0);
/// assert!((max_rel_err(&[1.0, 4.0], &[1.0, 2.0]) - 2.0 / 6.0).abs() < 1e-15);
/// assert_eq!(max_rel_err(&[f64::NAN], &[1.0]), f64::INFINITY);
/// ```
pub fn max_rel_err(got: &[f64], want: &[f64]) -> f64 {
    assert_eq!(got.len(), want.len(), "max_rel_err: lengths differ");
    got.iter()
        .zip(want)
        .map(|(&x, &y)| adbench_rel_err(x, y))
        .map(|e| if e.is_nan() { f64::INFINITY } else { e })
        .fold(0.0, f64::max)
}

/// ADBench's metric over two vectors with tolerance `tol`: `Ok` when every entry has
/// [`adbench_rel_err`] `<= tol` (a NaN never does); otherwise the message names the worst entry.
///
/// ```
/// use nilang_adbench::oracle::compare;
/// assert!(compare(&[1.0, 2.0], &[1.0, 2.0 + 1e-12], 1e-8).is_ok());
/// let e = compare(&[1.0, 2.0, f64::NAN], &[1.0, 2.0, 3.0], 1e-8).unwrap_err();
/// assert!(e.starts_with("entry 2"), "{e}");
/// assert!(compare(&[1.0], &[1.0, 2.0], 1e-8).is_err());
/// ```
pub fn compare(got: &[f64], want: &[f64], tol: f64) -> Result<(), String> {
    if got.len() != want.len() {
        return Err(format!("length {} != {}", got.len(), want.len()));
    }
    let mut worst: Option<(usize, f64)> = None;
    for (i, (&x, &y)) in got.iter().zip(want).enumerate() {
        let e = adbench_rel_err(x, y);
        if e.is_nan() || e > tol {
            let e = if e.is_nan() { f64::INFINITY } else { e };
            if worst.is_none_or(|(_, w)| e > w) {
                worst = Some((i, e));
            }
        }
    }
    match worst {
        None => Ok(()),
        Some((i, e)) => Err(format!(
            "entry {i}: {} vs {} (relative error {e:.2e} > {tol:.0e})",
            got[i], want[i]
        )),
    }
}

/// Candidate locations of `shared/data`, in search order. A non-empty `$NILANG_DATA` is the
/// only candidate (it or its `data/`): a folder the user named that does not exist is an
/// error, never silently replaced by another one.
fn candidates() -> Vec<PathBuf> {
    let mut out = Vec::new();
    if let Some(env) = std::env::var_os("NILANG_DATA").filter(|e| !e.is_empty()) {
        let env = PathBuf::from(env);
        out.push(env.join("data"));
        out.push(env);
        return out;
    }
    let mut starts = vec![PathBuf::from(env!("CARGO_MANIFEST_DIR"))];
    if let Some(dir) = std::env::var_os("CARGO_MANIFEST_DIR") {
        starts.insert(0, PathBuf::from(dir));
    }
    if let Ok(cwd) = std::env::current_dir() {
        starts.push(cwd);
    }
    for start in starts {
        for anc in start.ancestors() {
            out.push(anc.join("shared/data"));
            out.push(anc.join("../shared/data"));
        }
    }
    out
}

/// Like [`data_dir`] but returns an error instead of panicking.
pub fn try_data_dir() -> Result<PathBuf, AdbenchError> {
    let searched = candidates();
    for c in &searched {
        if c.join("adbench").is_dir() {
            return Ok(c.clone());
        }
    }
    Err(AdbenchError::DataNotFound { searched })
}

/// The shared data directory (the one containing `adbench/` and
/// `oracle-reference/`): `$NILANG_DATA` (either `shared` or `shared/data`) if set,
/// else the first `shared/data` or `../shared/data` found walking up from this
/// crate's manifest directory (then from the working directory).
///
/// # Panics
/// If the data cannot be found; use [`try_data_dir`] to handle that.
///
/// ```
/// let dir = nilang_adbench::oracle::data_dir();
/// assert!(dir.join("adbench/README.md").is_file());
/// ```
pub fn data_dir() -> PathBuf {
    try_data_dir().unwrap_or_else(|e| panic!("{e}"))
}

fn load_json<T: DeserializeOwned>(path: &Path) -> Result<T, AdbenchError> {
    let src = read_to_string(path)?;
    serde_json::from_str(&src)
        .map_err(|e| AdbenchError::json(path.display().to_string(), e.to_string()))
}

/// Checks a BA implementation's results on `ba/test.txt` (residuals `e`, weight errors `z`,
/// the sparse Jacobian `j`) against ADBench's golden values and the JAX oracle's full CSR
/// matrix, with ADBench's metric; the message names the first mismatch.
///
/// ```
/// use nilang_adbench::{ba_jacobian, ba_objective, oracle, BaInput};
/// let b = BaInput::from_file(oracle::data_dir().join("adbench/ba/test.txt")).unwrap();
/// let (e, z) = ba_objective(&b);
/// oracle::check_ba_test(&e, &z, &ba_jacobian(&b)).unwrap();
/// ```
pub fn check_ba_test(e: &[f64], z: &[f64], j: &crate::SparseJacobian) -> Result<(), String> {
    let err = |e: AdbenchError| e.to_string();
    let expected = load_expected().map_err(err)?.ba_test;
    let o = load_ba_oracle().map_err(err)?;
    let pairs: Vec<f64> = (0..e.len() / 2)
        .flat_map(|_| expected.reproj_err_pair)
        .collect();
    let shape = (j.nrows, j.ncols, j.rows.len(), j.nnz());
    let want = (
        expected.nrows,
        expected.ncols,
        expected.rows_size,
        expected.nnz,
    );
    if shape != want || (j.rows != o.jacobian.rows) || (j.cols != o.jacobian.cols) {
        return Err(format!(
            "Jacobian layout {shape:?}, expected {want:?} and the oracle's"
        ));
    }
    for (what, got, want) in [
        ("reprojection errors vs golden", e, &pairs[..]),
        (
            "weight errors vs golden",
            z,
            &vec![expected.w_err; z.len()][..],
        ),
        (
            "Jacobian values vs golden",
            &j.vals[..],
            &expected.j_vals[..],
        ),
        ("reprojection errors vs oracle", e, &o.reproj_err[..]),
        ("weight errors vs oracle", z, &o.w_err[..]),
        (
            "Jacobian values vs oracle",
            &j.vals[..],
            &o.jacobian.vals[..],
        ),
    ] {
        compare(got, want, 1e-8).map_err(|m| format!("{what}: {m}"))?;
    }
    Ok(())
}

/// A JAX oracle output for one GMM instance (`oracle-reference/gmm_*.json`).
#[derive(Clone, Debug, Deserialize)]
pub struct GmmOracle {
    /// Dimension.
    pub d: usize,
    /// Number of components.
    pub k: usize,
    /// Number of points.
    pub n: usize,
    /// Wishart gamma.
    pub gamma: f64,
    /// Wishart m.
    pub m: i64,
    /// Objective value.
    pub objective: f64,
    /// Gradient, `[alpha | mu | icf]`.
    pub gradient: Vec<f64>,
    /// The instance file name (e.g. `gmm_d2_K5.txt`).
    pub instance: String,
}

/// The GMM oracle files and their instances (relative to `adbench/gmm/`).
pub const GMM_ORACLES: [(&str, &str); 3] = [
    ("gmm_1k_d2_K5", "1k/gmm_d2_K5.txt"),
    ("gmm_1k_d10_K25", "1k/gmm_d10_K25.txt"),
    ("gmm_10k_d2_K5", "10k/gmm_d2_K5.txt"),
];

/// Loads `oracle-reference/<name>.json`, e.g. `load_gmm_oracle("gmm_1k_d2_K5")`.
///
/// ```
/// let o = nilang_adbench::oracle::load_gmm_oracle("gmm_1k_d2_K5").unwrap();
/// assert_eq!(o.gradient.len(), 30);
/// ```
pub fn load_gmm_oracle(name: &str) -> Result<GmmOracle, AdbenchError> {
    load_gmm_oracle_in(&try_data_dir()?, name)
}

/// [`load_gmm_oracle`] from the data folder `data` (the one holding `oracle-reference/`).
pub fn load_gmm_oracle_in(data: &Path, name: &str) -> Result<GmmOracle, AdbenchError> {
    load_json(&data.join("oracle-reference").join(format!("{name}.json")))
}

/// A CSR matrix as stored in the reference JSON.
#[derive(Clone, Debug, Deserialize)]
pub struct CsrRef {
    /// Rows.
    pub nrows: usize,
    /// Columns.
    pub ncols: usize,
    /// Nonzeros.
    pub nnz: usize,
    /// Row pointers.
    pub rows: Vec<usize>,
    /// Column indices.
    pub cols: Vec<usize>,
    /// Values.
    pub vals: Vec<f64>,
}

/// The JAX oracle output for `ba/test.txt` (`oracle-reference/ba_test.json`).
#[derive(Clone, Debug, Deserialize)]
pub struct BaOracle {
    /// Cameras.
    pub n: usize,
    /// Points.
    pub m: usize,
    /// Observations.
    pub p: usize,
    /// All reprojection errors, `2p`.
    pub reproj_err: Vec<f64>,
    /// All weight errors, `p`.
    pub w_err: Vec<f64>,
    /// The full sparse Jacobian.
    pub jacobian: CsrRef,
}

/// Loads `oracle-reference/ba_test.json`.
///
/// ```
/// let o = nilang_adbench::oracle::load_ba_oracle().unwrap();
/// assert_eq!(o.jacobian.vals.len(), 310);
/// ```
pub fn load_ba_oracle() -> Result<BaOracle, AdbenchError> {
    load_ba_oracle_in(&try_data_dir()?)
}

/// [`load_ba_oracle`] from the data folder `data`.
pub fn load_ba_oracle_in(data: &Path) -> Result<BaOracle, AdbenchError> {
    load_json(&data.join("oracle-reference/ba_test.json"))
}

/// Summary statistics of a long vector, as in `ba_real_instances_summary.json`.
#[derive(Clone, Debug, Deserialize, PartialEq)]
pub struct VecSummary {
    /// Number of entries.
    pub len: usize,
    /// The first entries.
    pub head: Vec<f64>,
    /// The last entries.
    pub tail: Vec<f64>,
    /// Sum.
    pub sum: f64,
    /// Sum of absolute values.
    pub sum_abs: f64,
    /// Euclidean norm.
    pub l2: f64,
    /// Largest absolute value.
    pub max_abs: f64,
}

impl VecSummary {
    /// Computes the summary of `v` with the same head (8) and tail (4) lengths as
    /// the reference file.
    ///
    /// ```
    /// use nilang_adbench::oracle::VecSummary;
    /// let s = VecSummary::of([3.0, -4.0]);
    /// assert_eq!((s.len, s.sum, s.l2, s.max_abs), (2, -1.0, 5.0, 4.0));
    /// ```
    pub fn of<I: IntoIterator<Item = f64>>(v: I) -> Self {
        let v: Vec<f64> = v.into_iter().collect();
        VecSummary {
            len: v.len(),
            head: v.iter().take(8).copied().collect(),
            tail: v[v.len().saturating_sub(4)..].to_vec(),
            sum: v.iter().sum(),
            sum_abs: v.iter().map(|e| e.abs()).sum(),
            l2: v.iter().map(|e| e * e).sum::<f64>().sqrt(),
            max_abs: v.iter().fold(0.0, |a, e| a.max(e.abs())),
        }
    }

    /// ADBench's metric ([`compare`], tolerance 1e-8) between this summary and `want`: the
    /// same length, close head and tail entries, close sums, norm and largest value.
    ///
    /// ```
    /// use nilang_adbench::oracle::VecSummary;
    /// let s = VecSummary::of([3.0, -4.0]);
    /// assert!(s.compare(&VecSummary::of([3.0, -4.0 + 1e-12])).is_ok());
    /// assert!(s.compare(&VecSummary::of([3.0, 4.0])).unwrap_err().starts_with("head"));
    /// ```
    pub fn compare(&self, want: &VecSummary) -> Result<(), String> {
        if self.len != want.len {
            return Err(format!("length {} != {}", self.len, want.len));
        }
        compare(&self.head, &want.head, 1e-8).map_err(|e| format!("head: {e}"))?;
        compare(&self.tail, &want.tail, 1e-8).map_err(|e| format!("tail: {e}"))?;
        for (name, got, w) in [
            ("sum", self.sum, want.sum),
            ("sum_abs", self.sum_abs, want.sum_abs),
            ("l2", self.l2, want.l2),
            ("max_abs", self.max_abs, want.max_abs),
        ] {
            compare(&[got], &[w], 1e-8).map_err(|e| format!("{name}: {e}"))?;
        }
        Ok(())
    }
}

/// The reference summary of one real BA instance.
#[derive(Clone, Debug, Deserialize)]
pub struct BaInstanceSummary {
    /// Cameras.
    pub n: usize,
    /// Points.
    pub m: usize,
    /// Observations.
    pub p: usize,
    /// Jacobian rows.
    pub nrows: usize,
    /// Jacobian columns.
    pub ncols: usize,
    /// Jacobian nonzeros.
    pub nnz: usize,
    /// The first reprojection pair (all pairs are identical).
    pub reproj_err_first_pair: [f64; 2],
    /// The first weight error.
    pub w_err_first: f64,
    /// The first 2x15 Jacobian block, row-major (all blocks are identical).
    pub first_block_2x15_row_major: Vec<f64>,
    /// Statistics of all Jacobian values in CSR order.
    pub vals_summary: VecSummary,
    /// Statistics of the CSR column indices.
    pub cols_summary: VecSummary,
    /// Statistics of the CSR row pointers.
    pub rows_summary: VecSummary,
    /// The value of every weight row (`-2 w`).
    pub w_row_value: f64,
}

/// Loads `oracle-reference/ba_real_instances_summary.json`, keyed by instance stem
/// (`ba1_n49_m7776_p31843`, ...). Non-object entries (the note) are skipped.
///
/// ```
/// let s = nilang_adbench::oracle::load_ba_summaries().unwrap();
/// assert_eq!(s["ba1_n49_m7776_p31843"].p, 31843);
/// ```
pub fn load_ba_summaries() -> Result<BTreeMap<String, BaInstanceSummary>, AdbenchError> {
    load_ba_summaries_in(&try_data_dir()?)
}

/// [`load_ba_summaries`] from the data folder `data`.
pub fn load_ba_summaries_in(
    data: &Path,
) -> Result<BTreeMap<String, BaInstanceSummary>, AdbenchError> {
    let path = data.join("oracle-reference/ba_real_instances_summary.json");
    let value: serde_json::Value = load_json(&path)?;
    let obj = value.as_object().ok_or_else(|| {
        AdbenchError::json(path.display().to_string(), "top level is not an object")
    })?;
    let mut out = BTreeMap::new();
    for (key, v) in obj {
        if v.is_object() {
            let s = serde_json::from_value(v.clone()).map_err(|e| {
                AdbenchError::json(path.display().to_string(), format!("entry `{key}`: {e}"))
            })?;
            out.insert(key.clone(), s);
        }
    }
    Ok(out)
}

/// ADBench's golden values for `gmm/test.txt`.
#[derive(Clone, Debug, Deserialize)]
pub struct GmmExpected {
    /// Instance path relative to `adbench/`.
    pub input: String,
    /// Objective.
    pub objective: f64,
    /// Gradient, `[alpha | mu | icf]`.
    pub gradient: Vec<f64>,
}

/// ADBench's golden values for `ba/test.txt`.
#[derive(Clone, Debug, Deserialize)]
pub struct BaExpected {
    /// Instance path relative to `adbench/`.
    pub input: String,
    /// Jacobian rows.
    pub nrows: usize,
    /// Jacobian columns.
    pub ncols: usize,
    /// Length of the row-pointer array.
    pub rows_size: usize,
    /// Nonzeros.
    pub nnz: usize,
    /// Every reprojection pair.
    pub reproj_err_pair: [f64; 2],
    /// Every weight error.
    pub w_err: f64,
    /// All Jacobian values in CSR order.
    #[serde(rename = "J_vals")]
    pub j_vals: Vec<f64>,
}

/// `expected/adbench_test_expected.json`.
#[derive(Clone, Debug, Deserialize)]
pub struct AdbenchExpected {
    /// GMM golden values.
    pub gmm_test: GmmExpected,
    /// BA golden values.
    pub ba_test: BaExpected,
}

/// Loads `adbench/expected/adbench_test_expected.json`.
///
/// ```
/// let e = nilang_adbench::oracle::load_expected().unwrap();
/// assert_eq!(e.ba_test.nnz, 310);
/// ```
pub fn load_expected() -> Result<AdbenchExpected, AdbenchError> {
    load_expected_in(&try_data_dir()?)
}

/// [`load_expected`] from the data folder `data`.
pub fn load_expected_in(data: &Path) -> Result<AdbenchExpected, AdbenchError> {
    load_json(&data.join("adbench/expected/adbench_test_expected.json"))
}

/// One row of `oracle-reference/bessel_table.json`: `J_nu(z)` by the truncated series
/// (`atol = 1e-8`) and its first two derivatives in `z`.
#[derive(Clone, Debug, Deserialize)]
pub struct BesselRow {
    /// Order.
    pub nu: u32,
    /// Argument.
    pub z: f64,
    /// `J_nu(z)`.
    pub objective: f64,
    /// `dJ_nu/dz`.
    pub gradient: f64,
    /// `d²J_nu/dz²`.
    pub second_derivative: f64,
}

#[derive(Deserialize)]
struct BesselTable {
    rows: Vec<BesselRow>,
}

/// Loads the rows of `oracle-reference/bessel_table.json`.
///
/// ```
/// let rows = nilang_adbench::oracle::load_bessel_table().unwrap();
/// assert!(rows.iter().any(|r| r.nu == 2 && r.z == 1.0));
/// ```
pub fn load_bessel_table() -> Result<Vec<BesselRow>, AdbenchError> {
    load_bessel_table_in(&try_data_dir()?)
}

/// [`load_bessel_table`] from the data folder `data`.
pub fn load_bessel_table_in(data: &Path) -> Result<Vec<BesselRow>, AdbenchError> {
    load_json::<BesselTable>(&data.join("oracle-reference/bessel_table.json")).map(|t| t.rows)
}
