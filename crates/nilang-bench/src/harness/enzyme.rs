//! The Enzyme peer: `enzyme-O/G/J/H` cells (one thread).
//!
//! One Python 3.11 process runs `peers/enzyme/peer.py`: our own C++ version of each suite's
//! objective (`peers/enzyme/<suite>.cpp`), differentiated by Enzyme (`__enzyme_autodiff`,
//! `__enzyme_fwddiff`) and compiled in-process by the `enzyme-ad` package's bundled clang. It
//! speaks the JAX peer's protocol ([`super::jax`]), so [`super::jax::run_case`] sends it the same
//! inputs, checks every derivative against the suite's reference before timing it, and records
//! the cells under tool `enzyme`. The C++ times its own samples with the time-stamp counter,
//! so no sample holds Python or XLA dispatch (see `peers/enzyme/peer.py`).
//!
//! Optional: without `--peers`, or where Python 3.11 or `enzyme-ad` is missing, the run goes on
//! without these cells and says in one line how to enable them ([`HINT`]).

use super::jax::Peer;
use std::path::PathBuf;

/// How to enable the peer (printed in one line when it is off or unavailable).
pub const HINT: &str = "Python 3.11 with `python3.11 -m pip install -r peers/requirements-enzyme.txt`, then `cargo run --release -- --peers`";

/// The peer script (`peers/enzyme/peer.py` in the workspace).
pub fn script() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../peers/enzyme/peer.py")
}

/// The Python interpreter: `$NILANG_ENZYME_PYTHON`, else `python3.11` (enzyme-ad's wheels are
/// for Python 3.11 only).
pub fn python() -> String {
    std::env::var("NILANG_ENZYME_PYTHON").unwrap_or_else(|_| "python3.11".into())
}

/// Start the peer if `enabled`; otherwise, or where Python 3.11 or enzyme-ad is missing, print
/// one line saying how to enable it.
pub(super) fn start(enabled: bool) -> Option<Peer> {
    if !enabled {
        eprintln!("enzyme peer: off (enzyme-* cells: {HINT})");
        return None;
    }
    let py = python();
    match Peer::spawn("enzyme", &py, &script(), "1") {
        Ok((p, hello)) => {
            let version = hello["jax"].as_str().unwrap_or("?");
            eprintln!("enzyme peer: {version} (one thread)");
            Some(p)
        }
        Err(e) => {
            eprintln!("enzyme peer: unavailable ({e}); needs {HINT}");
            None
        }
    }
}
