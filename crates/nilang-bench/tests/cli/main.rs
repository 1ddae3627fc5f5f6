//! The benchmark binary, run as a user runs it: a smoke run, faults (bad arguments, missing data, a crash), the JAX and Enzyme peers.
//!
//! One test binary (fewer binaries link faster).

mod enzyme_peer;
mod faults;
mod jax_peer;
mod smoke;

/// The JSON records of a run hold, per suite, at least one timed cell of `tool` for each
/// measure listed, each with a positive time and a ratio.
fn assert_peer_cells(cells: &[serde_json::Value], tool: &str, suites: &[(&str, &[&str])]) {
    for (suite, measures) in suites {
        for m in *measures {
            let c: Vec<_> = cells
                .iter()
                .filter(|c| c["suite"] == *suite && c["tool"] == tool && c["measure"] == *m)
                .collect();
            assert!(!c.is_empty(), "no {tool}-{m} cell in {suite}");
            for c in c {
                assert!(c["median_s"].as_f64().is_some_and(|t| t > 0.0), "{c}");
                assert!(c["ratio"].as_f64().is_some(), "{c}");
            }
        }
    }
}
