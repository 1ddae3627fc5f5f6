//! Result cells, markdown tables (one per suite) and JSON records (the SVG plots: [`crate::plot`]).

use crate::harness::timing::PairedRatio;
use serde::Serialize;
use std::fmt::Write as _;
use std::path::Path;

/// What a cell measures.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
pub enum Measure {
    /// Objective (forward call).
    O,
    /// Uncall (the reversible program run backwards).
    U,
    /// Gradient.
    G,
    /// Jacobian.
    J,
    /// Hessian.
    H,
    /// Backward pass only.
    B,
}

impl Measure {
    /// The measure's letter, as in the tables and the JSON (`"O"`, `"G"`, ...).
    pub fn as_str(self) -> &'static str {
        match self {
            Measure::O => "O",
            Measure::U => "U",
            Measure::G => "G",
            Measure::J => "J",
            Measure::H => "H",
            Measure::B => "B",
        }
    }
}

/// One measured (or skipped) cell. `median_s == None` means the tool could not finish within
/// the time budget (printed as "-").
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Cell {
    /// The suite (`gmm`, `ba`, ...).
    pub suite: String,
    /// The case (`1k d=2 K=5`, `ba1 p=31843`, ...).
    pub case: String,
    /// The tool (`rust`, `nilang`, `nilang-x8`, `jax`, `enzyme`, ...).
    pub tool: String,
    /// What was timed.
    pub measure: Measure,
    /// The median sample's time per call in seconds.
    pub median_s: Option<f64>,
    /// The fastest sample's time per call in seconds.
    pub min_s: Option<f64>,
    /// The slowest sample's time per call in seconds.
    pub max_s: Option<f64>,
    /// The minimum time per call of the case's plain-Rust objective (`rust-O`) timed in turns
    /// with this cell ([`Harness::in_turns`](crate::harness::Harness::in_turns)); `None` when
    /// the cell was timed alone.
    pub baseline_min_s: Option<f64>,
    /// min / min of the plain-Rust objective (`tool == "rust"`, `measure == O`) of the same
    /// suite and case: the ratio of the fastest per-call times, the statistic that other
    /// processes on the machine disturb least. The baseline's minimum is the one timed in
    /// turns with this cell (`baseline_min_s`) when there is one, so load moves both alike;
    /// else that of the `rust-O` cell.
    pub ratio: Option<f64>,
    /// A cell timed in turns with the baseline on the CPU clock: the median over the pairs
    /// of samples of (this cell's sample / the baseline's adjacent sample) ([`PairedRatio`]).
    pub ratio_paired: Option<f64>,
    /// How far the paired ratios scatter: half their interquartile range relative to their
    /// median ([`PairedRatio::half_iqr`]; 0.03: the middle half of the pairs lies within
    /// about ±3 %). `None` where there is no paired ratio.
    pub ratio_spread: Option<f64>,
    /// The ratio over the pairs of samples timed in turns with the baseline, per call of each
    /// (the source of `ratio_paired` and `ratio_spread`).
    #[serde(skip)]
    pub paired: Option<PairedRatio>,
    /// How far the median lies above the minimum, relative to the minimum:
    /// `(median − min) / min` (0.03: the median sample is 3 % slower than the fastest).
    pub spread: Option<f64>,
    /// Heap allocations during one call (`None`: not measured, e.g. a peer's cell).
    pub heap_allocs: Option<usize>,
    /// Peak heap bytes during one call (`None`: not measured).
    pub peak_heap_bytes: Option<usize>,
    /// Problem size (x axis of the plots); not part of the JSON record.
    #[serde(skip)]
    pub size: f64,
}

impl Cell {
    /// A "-" cell.
    pub fn skipped(suite: &str, case: &str, size: f64, tool: &str, measure: Measure) -> Cell {
        Cell {
            suite: suite.into(),
            case: case.into(),
            tool: tool.into(),
            measure,
            median_s: None,
            min_s: None,
            max_s: None,
            baseline_min_s: None,
            ratio: None,
            ratio_paired: None,
            ratio_spread: None,
            paired: None,
            spread: None,
            heap_allocs: None,
            peak_heap_bytes: None,
            size,
        }
    }
}

/// Fill in every cell's `ratio` (of minimum times) to the plain-Rust objective of its suite
/// and case, its paired ratio and the spread of that where it was timed in turns with it, and
/// its `spread`.
pub fn fill_ratios(cells: &mut [Cell]) {
    let base: Vec<(String, String, f64)> = cells
        .iter()
        .filter(|c| c.tool == "rust" && c.measure == Measure::O)
        .filter_map(|c| Some((c.suite.clone(), c.case.clone(), c.min_s?)))
        .collect();
    for c in cells.iter_mut() {
        let b = c.baseline_min_s.or_else(|| {
            base.iter()
                .find(|(s, k, _)| *s == c.suite && *k == c.case)
                .map(|x| x.2)
        });
        c.ratio = match (c.min_s, b) {
            (Some(m), Some(b)) if b > 0.0 => Some(m / b),
            _ => None,
        };
        let paired = c.paired.filter(|_| c.ratio.is_some());
        c.ratio_paired = paired.map(|p| p.median);
        c.ratio_spread = paired.map(|p| p.half_iqr());
        c.spread = match (c.median_s, c.min_s) {
            (Some(med), Some(min)) if min > 0.0 => Some((med - min) / min),
            _ => None,
        };
    }
}

/// Seconds in the paper's style: `1.234e-04`.
pub fn fmt_time(s: f64) -> String {
    let t = format!("{s:.3e}");
    match t.split_once('e') {
        Some((m, e)) => {
            let e: i32 = e.parse().unwrap_or(0);
            let sign = if e < 0 { '-' } else { '+' };
            format!("{m}e{sign}{:02}", e.abs())
        }
        None => t,
    }
}

fn tool_rank(tool: &str) -> usize {
    match tool {
        "rust" => 0,
        "nilang" => 1,
        "manual" => 2,
        "num-dual" => 3,
        "echidna" => 4,
        "jax" => 5,
        "jax-mt" => 6,
        "enzyme" => 10,
        "gpu" => 8,
        "gpu-rows" => 9,
        _ => 7,
    }
}

/// Columns of a suite's table: (tool, measure), plain Rust first, then nilang, manual, num-dual, echidna.
fn columns<'a>(cells: &'a [&'a Cell]) -> Vec<(&'a str, Measure)> {
    let mut cols: Vec<(&str, Measure)> = Vec::new();
    for c in cells {
        if !cols.contains(&(c.tool.as_str(), c.measure)) {
            cols.push((c.tool.as_str(), c.measure));
        }
    }
    cols.sort_by_key(|(t, m)| (tool_rank(t), *m));
    cols
}

/// The markdown table of one suite: rows = cases (in order of first appearance), columns = tool-measure,
/// each entry `min +spread% (ratio× ±ratio_spread%)` (the fastest time per call, how far the
/// median lies above it, the ratio of minimum times to `rust-O` and, for a cell timed in turns
/// with it, how far the paired ratios scatter: [`PairedRatio::half_iqr`]), or "-".
pub fn markdown_table(cells: &[Cell], suite: &str) -> String {
    let body = render_table(cells, suite, "case", |c, t, m| match c {
        Cell {
            min_s: Some(s),
            ratio,
            spread,
            ..
        } => {
            let time = match spread {
                Some(p) => format!("{} +{:.0}%", fmt_time(*s), 100.0 * p),
                None => fmt_time(*s),
            };
            match (ratio, c.ratio_spread) {
                _ if t == "rust" && m == Measure::O => time,
                (Some(r), Some(p)) => format!("{time} ({r:.2}× ±{:.0}%)", 100.0 * p),
                (Some(r), None) => format!("{time} ({r:.2}×)"),
                (None, _) => time,
            }
        }
        _ => "-".to_string(),
    });
    if body.is_empty() {
        body
    } else {
        format!("### {suite}\n\n{body}")
    }
}

/// A second table with the heap use of each cell (allocations / peak bytes).
pub fn markdown_heap_table(cells: &[Cell], suite: &str) -> String {
    render_table(
        cells,
        suite,
        "heap: allocs / peak bytes",
        |c, _, _| match c {
            Cell {
                heap_allocs: Some(a),
                peak_heap_bytes: Some(b),
                ..
            } => format!("{a} / {}", human_bytes(*b)),
            _ => "-".into(),
        },
    )
}

/// One suite's table: rows = cases (in order of first appearance), columns = tool-measure,
/// entries from `entry` ("-" where a cell is missing); empty if the suite has no cells.
fn render_table(
    cells: &[Cell],
    suite: &str,
    corner: &str,
    entry: impl Fn(&Cell, &str, Measure) -> String,
) -> String {
    let cells: Vec<&Cell> = cells.iter().filter(|c| c.suite == suite).collect();
    let mut out = String::new();
    if cells.is_empty() {
        return out;
    }
    let cols = columns(&cells);
    let mut cases: Vec<&str> = Vec::new();
    for c in &cells {
        if !cases.contains(&c.case.as_str()) {
            cases.push(c.case.as_str());
        }
    }
    let _ = write!(out, "| {corner} |");
    for (t, m) in &cols {
        let _ = write!(out, " {t}-{} |", m.as_str());
    }
    out.push_str("\n| --- |");
    for _ in &cols {
        out.push_str(" ---: |");
    }
    out.push('\n');
    for case in cases {
        let _ = write!(out, "| {case} |");
        for (t, m) in &cols {
            let txt = cells
                .iter()
                .find(|c| c.case == case && c.tool == *t && c.measure == *m)
                .map_or_else(|| "-".to_string(), |c| entry(c, t, *m));
            let _ = write!(out, " {txt} |");
        }
        out.push('\n');
    }
    out
}

fn human_bytes(b: usize) -> String {
    let b = b as f64;
    if b < 1024.0 {
        format!("{b} B")
    } else if b < 1024.0 * 1024.0 {
        format!("{:.1} KiB", b / 1024.0)
    } else if b < 1024.0 * 1024.0 * 1024.0 {
        format!("{:.1} MiB", b / 1048576.0)
    } else {
        format!("{:.2} GiB", b / 1073741824.0)
    }
}

/// The JSON document: an array with one record per cell.
pub fn to_json(cells: &[Cell]) -> serde_json::Value {
    serde_json::to_value(cells).expect("cells serialise")
}

/// Write the JSON records to `path`, atomically (see [`crate::output::write_atomic`]).
pub fn write_json(cells: &[Cell], path: &Path) -> std::io::Result<()> {
    let s = serde_json::to_string_pretty(&to_json(cells)).expect("cells serialise");
    crate::output::write_atomic(path, (s + "\n").as_bytes())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cell(case: &str, tool: &str, m: Measure, t: Option<f64>, size: f64) -> Cell {
        Cell {
            median_s: t,
            min_s: t,
            max_s: t,
            heap_allocs: t.map(|_| 0),
            peak_heap_bytes: t.map(|_| 0),
            ..Cell::skipped("s", case, size, tool, m)
        }
    }

    fn sample() -> Vec<Cell> {
        let mut v = vec![
            cell("a", "rust", Measure::O, Some(1e-3), 10.0),
            cell("a", "echidna", Measure::G, Some(5e-3), 10.0),
            cell("a", "num-dual", Measure::G, None, 10.0),
            cell("b", "rust", Measure::O, Some(2e-3), 100.0),
            cell("b", "echidna", Measure::G, Some(8e-3), 100.0),
        ];
        fill_ratios(&mut v);
        v
    }

    #[test]
    fn ratios() {
        let v = sample();
        assert_eq!(v[0].ratio, Some(1.0));
        assert!((v[1].ratio.unwrap() - 5.0).abs() < 1e-12);
        assert_eq!(v[2].ratio, None);
        assert!((v[4].ratio.unwrap() - 4.0).abs() < 1e-12);
    }

    #[test]
    fn ratios_of_minimum_times_and_spread() {
        let mut v = vec![
            Cell {
                median_s: Some(3e-3),
                min_s: Some(2e-3),
                ..cell("a", "rust", Measure::O, Some(2e-3), 10.0)
            },
            Cell {
                median_s: Some(9e-3),
                min_s: Some(5e-3),
                ..cell("a", "nilang", Measure::G, Some(5e-3), 10.0)
            },
        ];
        fill_ratios(&mut v);
        assert!((v[1].ratio.unwrap() - 2.5).abs() < 1e-12);
        assert!((v[0].spread.unwrap() - 0.5).abs() < 1e-12);
        assert!((v[1].spread.unwrap() - 0.8).abs() < 1e-12);
        let t = markdown_table(&v, "s");
        assert!(
            t.contains("| a | 2.000e-03 +50% | 5.000e-03 +80% (2.50×) |"),
            "{t}"
        );
    }

    #[test]
    fn a_cell_timed_in_turns_reports_its_paired_ratio_and_spread() {
        // per-pair ratios 3, 1.5, 2, 2.5, 2: median 2, quartiles 2 and 2.5
        let paired = PairedRatio::of(&[3.0, 3.0, 4.0, 5.0, 2.0], &[1.0, 2.0, 2.0, 2.0, 1.0]);
        let mut v = vec![
            cell("a", "rust", Measure::O, Some(1.0), 10.0),
            Cell {
                baseline_min_s: Some(0.9),
                paired,
                ..cell("a", "nilang", Measure::G, Some(1.8), 10.0)
            },
        ];
        fill_ratios(&mut v);
        let c = &v[1];
        // min / the in-turn baseline's minimum
        assert!((c.ratio.unwrap() - 2.0).abs() < 1e-12);
        assert_eq!((c.ratio_paired, c.ratio_spread), (Some(2.0), Some(0.125)));
        assert_eq!((v[0].ratio, v[0].ratio_spread), (Some(1.0), None));
        let t = markdown_table(&v, "s");
        assert!(
            t.contains("| a | 1.000e+00 +0% | 1.800e+00 +0% (2.00× ±12%) |"),
            "{t}"
        );
        let j = to_json(&v);
        assert_eq!(j[1]["ratio_paired"].as_f64(), Some(2.0));
        assert_eq!(j[1]["ratio_spread"].as_f64(), Some(0.125));
        assert!(j[0]["ratio_spread"].is_null());
    }

    #[test]
    fn table_shape() {
        let t = markdown_table(&sample(), "s");
        let lines: Vec<&str> = t.lines().collect();
        assert_eq!(lines[0], "### s");
        assert_eq!(lines[2], "| case | rust-O | num-dual-G | echidna-G |");
        assert_eq!(lines[3], "| --- | ---: | ---: | ---: |");
        assert_eq!(
            lines[4],
            "| a | 1.000e-03 +0% | - | 5.000e-03 +0% (5.00×) |"
        );
        assert_eq!(
            lines[5],
            "| b | 2.000e-03 +0% | - | 8.000e-03 +0% (4.00×) |"
        );
        assert!(markdown_table(&sample(), "other").is_empty());
        let h = markdown_heap_table(&sample(), "s");
        assert!(h.contains("| a | 0 / 0 B | - | 0 / 0 B |"));
    }

    #[test]
    fn json_shape() {
        let j = to_json(&sample());
        let arr = j.as_array().unwrap();
        assert_eq!(arr.len(), 5);
        let r = arr[1].as_object().unwrap();
        let mut keys: Vec<&str> = r.keys().map(|k| k.as_str()).collect();
        keys.sort();
        assert_eq!(
            keys,
            [
                "baseline_min_s",
                "case",
                "heap_allocs",
                "max_s",
                "measure",
                "median_s",
                "min_s",
                "peak_heap_bytes",
                "ratio",
                "ratio_paired",
                "ratio_spread",
                "spread",
                "suite",
                "tool"
            ]
        );
        assert_eq!(r["measure"], "G");
        assert_eq!(r["tool"], "echidna");
        assert_eq!(r["median_s"], 5e-3);
        assert!(arr[2]["median_s"].is_null());
    }

    #[test]
    fn plots_are_written() {
        let dir = std::env::temp_dir().join(format!("nilang-bench-plot-{}", std::process::id()));
        // a ratio chart and a time chart ([`crate::plot`])
        let files = crate::plot::write_plots(&sample(), &dir).unwrap();
        assert_eq!(files.len(), 2);
        for f in &files {
            let svg = std::fs::read_to_string(f).unwrap();
            assert!(svg.starts_with("<svg"));
        }
        let _ = std::fs::remove_dir_all(&dir);
    }
}
