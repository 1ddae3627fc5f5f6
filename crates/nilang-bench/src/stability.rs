//! Run-to-run stability of the ratios: the same cells of several runs' JSON records
//! (`--json FILE`) side by side, and how far each cell's ratio moves (`max / min − 1`).
//! `cargo run --release -p nilang-bench --example ratio_stability -- r1.json r2.json r3.json`.

use serde_json::Value;

/// One cell's ratio in every run: (suite, case, tool, measure) and one value per run.
#[derive(Clone, Debug, PartialEq)]
pub struct Moves {
    /// `suite case tool-measure`.
    pub cell: String,
    /// The ratio in each run, in the order of the runs.
    pub values: Vec<f64>,
}

impl Moves {
    /// `max / min − 1` over the runs (0.05: the largest value is 5 % above the smallest).
    pub fn moved(&self) -> f64 {
        let max = self
            .values
            .iter()
            .copied()
            .fold(f64::NEG_INFINITY, f64::max);
        let min = self.values.iter().copied().fold(f64::INFINITY, f64::min);
        max / min - 1.0
    }
}

/// The cells of tools starting with `tool_prefix` that have the number `field` (`"ratio"`,
/// `"ratio_paired"`) in every run, in the order of the first run.
///
/// ```
/// use nilang_bench::stability::moves;
/// use serde_json::json;
/// let run = |r: f64| json!([{"suite": "s", "case": "a", "tool": "nilang", "measure": "G", "ratio": r}]);
/// let m = moves(&[run(2.0), run(2.2), run(2.1)], "nilang", "ratio");
/// assert_eq!(m[0].cell, "s a nilang-G");
/// assert!((m[0].moved() - 0.1).abs() < 1e-12);
/// ```
pub fn moves(runs: &[Value], tool_prefix: &str, field: &str) -> Vec<Moves> {
    let key = |c: &Value| -> Option<String> {
        let s = |k: &str| c[k].as_str();
        Some(format!(
            "{} {} {}-{}",
            s("suite")?,
            s("case")?,
            s("tool")?,
            s("measure")?
        ))
    };
    let cells = |r: &Value| -> Vec<(String, f64)> {
        r.as_array()
            .into_iter()
            .flatten()
            .filter(|c| {
                c["tool"]
                    .as_str()
                    .is_some_and(|t| t.starts_with(tool_prefix))
            })
            .filter_map(|c| Some((key(c)?, c[field].as_f64()?)))
            .collect()
    };
    let all: Vec<Vec<(String, f64)>> = runs.iter().map(cells).collect();
    let Some(first) = all.first() else {
        return Vec::new();
    };
    first
        .iter()
        .filter_map(|(k, _)| {
            let values = all
                .iter()
                .map(|run| run.iter().find(|(k2, _)| k2 == k).map(|x| x.1))
                .collect::<Option<Vec<f64>>>()?;
            Some(Moves {
                cell: k.clone(),
                values,
            })
        })
        .collect()
}

/// How many of `m` moved by at most 5 %, at most 10 %, and more.
pub fn counts(m: &[Moves]) -> (usize, usize, usize) {
    let within = |x: f64| m.iter().filter(|c| c.moved() <= x).count();
    (within(0.05), within(0.10), m.len() - within(0.10))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn cells_missing_from_a_run_are_left_out_and_counted_by_how_far_they_moved() {
        let r1 = json!([
            {"suite": "s", "case": "a", "tool": "nilang", "measure": "O", "ratio": 1.0, "ratio_paired": 1.0},
            {"suite": "s", "case": "a", "tool": "nilang-x4", "measure": "G", "ratio": 2.0},
            {"suite": "s", "case": "a", "tool": "rust", "measure": "O", "ratio": 1.0},
            {"suite": "s", "case": "b", "tool": "nilang", "measure": "O", "ratio": 3.0},
        ]);
        let r2 = json!([
            {"suite": "s", "case": "a", "tool": "nilang", "measure": "O", "ratio": 1.04, "ratio_paired": 1.2},
            {"suite": "s", "case": "a", "tool": "nilang-x4", "measure": "G", "ratio": 2.16},
            {"suite": "s", "case": "b", "tool": "nilang", "measure": "O", "ratio": null},
        ]);
        let m = moves(&[r1.clone(), r2.clone()], "nilang", "ratio");
        let names: Vec<&str> = m.iter().map(|c| c.cell.as_str()).collect();
        assert_eq!(names, ["s a nilang-O", "s a nilang-x4-G"]);
        assert_eq!(m[1].values, [2.0, 2.16]);
        assert!((m[0].moved() - 0.04).abs() < 1e-12 && (m[1].moved() - 0.08).abs() < 1e-12);
        assert_eq!(counts(&m), (1, 2, 0));
        let p = moves(&[r1, r2], "nilang", "ratio_paired");
        assert_eq!(p.len(), 1);
        assert_eq!(counts(&p), (0, 0, 1));
    }
}
