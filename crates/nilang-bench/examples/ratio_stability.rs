//! How far each `nilang` ratio moves between runs (issue 28: ratios a reader can trust from
//! one run). Three back-to-back runs, then the comparison:
//!
//! ```text
//! for i in 1 2 3; do
//!   cargo run --release -p nilang-bench -- --suite sparse gmm bessel embedding --threads 1 \
//!     --no-gpu --json /tmp/r$i.json
//! done
//! cargo run --release -p nilang-bench --example ratio_stability -- /tmp/r1.json /tmp/r2.json /tmp/r3.json
//! ```
//!
//! For `ratio` (of minimum times) and `ratio_paired` (the median of the paired ratios): how
//! many cells moved by at most 5 %, 10 %, and each cell that moved by more than 5 %.
use nilang_bench::stability::{counts, moves};

fn main() {
    let runs: Vec<serde_json::Value> = std::env::args()
        .skip(1)
        .map(|p| {
            let text = std::fs::read_to_string(&p).unwrap_or_else(|e| panic!("{p}: {e}"));
            serde_json::from_str(&text).unwrap_or_else(|e| panic!("{p}: {e}"))
        })
        .collect();
    assert!(runs.len() >= 2, "give two or more --json files of runs");
    for field in ["ratio", "ratio_paired"] {
        let m = moves(&runs, "nilang", field);
        let (c5, c10, over) = counts(&m);
        println!(
            "{field}: {} cells, {c5} within 5 %, {c10} within 10 %, {over} over",
            m.len()
        );
        for c in m.iter().filter(|c| c.moved() > 0.05) {
            let v: Vec<String> = c.values.iter().map(|x| format!("{x:.3}")).collect();
            println!(
                "  {}: {} ({:.0} %)",
                c.cell,
                v.join(" / "),
                100.0 * c.moved()
            );
        }
    }
}
