//! The JAX peer: `jax-O/G/J/H` (XLA on one thread) and `jax-mt-O/G/J/H` (all cores) cells.
//!
//! Two Python processes run `peers/jax/peer.py` (one with `NILANG_PEER_THREADS=1`, which sets
//! `XLA_FLAGS=--xla_cpu_multi_thread_eigen=false intra_op_parallelism_threads=1` before JAX is
//! imported). For every case, the harness sends the case's inputs (the same `f64`s the Rust
//! tools use, as raw bytes), the peer compiles and runs each function once and sends the results
//! back, each derivative is checked against the suite's reference (a mismatch is a `CHECK
//! FAILED` and the cell is not timed), and then the peer times the passing functions with the
//! harness's budget (same warm-up, adaptive repetition and median; `block_until_ready` after each
//! call). Heap columns are "-" for peers (another process).
//!
//! `NILANG_PEER_PERTURB=x` makes the peer add `x` to every derivative it returns for the check
//! (a test hook: the run must then fail).
//!
//! Every reply has a time and size limit and the processes are killed on every exit path
//! ([`super::peer`]); a peer that does not answer in time is a crash of that case's peer cells.
//!
//! Without `--peers`, or where Python or JAX is missing, the run goes on without these cells
//! and says in one line how to enable them ([`HINT`]).
//!
//! The Enzyme peer ([`super::enzyme`]) is one more process speaking this protocol: it is started
//! beside these and [`run_case`] checks and times its cells like theirs.

use super::peer::{Limits, Msg, PeerError, PeerProcess};
use super::Harness;
use crate::report::{Cell, Measure};
use serde_json::{json, Value};
use std::borrow::Cow;
use std::process::Command;

/// How to enable the peer (printed in one line when it is off or unavailable).
pub const HINT: &str =
    "`pip install -r peers/requirements.txt`, then `cargo run --release -- --peers`";

/// The peer script (`peers/jax/peer.py` in the workspace).
pub fn script() -> std::path::PathBuf {
    std::path::PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../peers/jax/peer.py")
}

/// The Python interpreter: `$NILANG_PYTHON`, else `python3`.
pub fn python() -> String {
    std::env::var("NILANG_PYTHON").unwrap_or_else(|_| "python3".into())
}

/// The suite's reference result of a measure (as in [`Harness::external`](super::Harness::external)).
pub type Reference<'r, 'd> = &'r dyn Fn(Measure) -> Option<Cow<'d, [f64]>>;

/// The running peer processes (none when `--peers` is off or JAX is unavailable).
#[derive(Default)]
pub struct JaxPeers {
    procs: Vec<Peer>,
}

/// One peer: its tool name and its process, spoken to within [`Limits`] (see [`super::peer`]).
pub(super) struct Peer {
    tool: &'static str,
    proc: PeerProcess,
    limits: Limits,
}

impl Peer {
    /// Start `script` under `py` and say hello: the peer and its hello reply.
    pub(super) fn spawn(
        tool: &'static str,
        py: &str,
        script: &std::path::Path,
        threads: &str,
    ) -> Result<(Peer, Value), PeerError> {
        let mut cmd = Command::new(py);
        cmd.arg(script).env("NILANG_PEER_THREADS", threads);
        let limits = Limits::default();
        let mut p = Peer {
            tool,
            proc: PeerProcess::spawn(tool, cmd, limits)?,
            limits,
        };
        let r = p.proc.ask(json!({"cmd": "hello"}), &[], limits.handshake)?;
        Ok((p, r.head))
    }

    fn start(tool: &'static str, threads: &str) -> Result<(Peer, String), PeerError> {
        let (p, hello) = Peer::spawn(tool, &python(), &script(), threads)?;
        Ok((p, hello["jax"].as_str().unwrap_or("?").to_string()))
    }

    fn ask(&mut self, head: Value, arrays: &[(&str, &[f64])]) -> Result<Msg, PeerError> {
        self.proc.ask(head, arrays, self.limits.reply)
    }
}

impl JaxPeers {
    /// Start the peers (JAX, then Enzyme) if `enabled`; otherwise, or if one is missing,
    /// print one line saying how to enable it. A JAX peer that starts but does not answer the
    /// handshake in time (or answers garbage) is killed and returned as the crash message
    /// (exit status 4).
    pub fn start(enabled: bool) -> (JaxPeers, Option<String>) {
        let (mut peers, crashed) = JaxPeers::start_jax(enabled);
        peers.procs.extend(super::enzyme::start(enabled));
        (peers, crashed)
    }

    fn start_jax(enabled: bool) -> (JaxPeers, Option<String>) {
        let mut peers = JaxPeers::default();
        if !enabled {
            eprintln!("jax peer: off (jax-* cells: {HINT})");
            return (peers, None);
        }
        for (tool, threads) in [("jax", "1"), ("jax-mt", "all")] {
            match Peer::start(tool, threads) {
                Ok((p, version)) => {
                    if tool == "jax" {
                        eprintln!("jax peer: JAX {version} (jax: one thread, jax-mt: all cores)");
                    }
                    peers.procs.push(p);
                }
                Err(PeerError::Broken(e)) if !e.starts_with("cannot run") => {
                    let msg = format!("CRASHED: jax peer: {e}; the run goes on without jax cells");
                    eprintln!("{msg}");
                    return (JaxPeers::default(), Some(msg));
                }
                Err(e) => {
                    eprintln!("jax peer: unavailable ({e}); to enable: {HINT}");
                    return (JaxPeers::default(), None);
                }
            }
        }
        (peers, None)
    }

    /// Whether any peer is running.
    pub fn active(&self) -> bool {
        !self.procs.is_empty()
    }
}

fn measure(s: &str) -> Option<Measure> {
    Some(match s {
        "O" => Measure::O,
        "G" => Measure::G,
        "J" => Measure::J,
        "H" => Measure::H,
        "B" => Measure::B,
        _ => return None,
    })
}

/// Exact partial derivatives on a few coordinates, for a measure without a full reference:
/// (measure, coordinates, values).
pub type Sampled = (Measure, Vec<usize>, Vec<f64>);

/// Check and time one case on every peer: the peer receives `scalars` and `arrays` (the
/// suite's `peer.py` function reads them), returns its results, each is checked against
/// `reference` (or, without one, against `sampled`) and the passing ones are timed. `per`
/// divides the times (batch throughput). Each suite calls this from its `run_case` when
/// [`JaxPeers::active`].
#[allow(clippy::too_many_arguments)]
pub fn run_case(
    h: &mut Harness,
    suite: &str,
    case: &str,
    size: f64,
    per: f64,
    scalars: Value,
    arrays: &[(&str, &[f64])],
    reference: Reference<'_, '_>,
    sampled: Option<&Sampled>,
    tol: f64,
) {
    let mut peers = std::mem::take(&mut h.jax);
    let b = &h.budget;
    let budget = json!({
        "warmup": b.warmup,
        "target": b.target.as_secs_f64(),
        "max_samples": b.max_samples,
        "min_samples": b.min_samples,
        "min_sample": b.min_sample.as_secs_f64(),
        "time_limit": b.time_limit.as_secs_f64(),
    });
    let mut failed = Vec::new();
    for (i, p) in peers.procs.iter_mut().enumerate() {
        let tool = p.tool;
        h.status(format!("{suite} {case} {tool}"));
        let head = json!({"cmd": "case", "suite": suite, "scalars": scalars});
        let results = match p.ask(head, arrays) {
            Ok(r) => r.arrays,
            Err(e) => {
                let msg = format!("CRASHED: {suite}/{case}: {e}");
                h.note(&msg);
                h.crashes.push(msg);
                failed.push(i);
                continue;
            }
        };
        let mut passed = Vec::new();
        for (name, got) in results {
            let Some(m) = measure(&name) else { continue };
            let what = format!("{suite}/{case}: {tool}-{name} vs reference");
            let ok = match (reference(m), sampled) {
                (Some(want), _) => h.check(&what, &got, &want, tol),
                (None, Some((sm, idx, want)))
                    if *sm == m && got.len() > idx.iter().max().copied().unwrap_or(0) =>
                {
                    let sel: Vec<f64> = idx.iter().map(|&i| got[i]).collect();
                    h.check(&format!("{what} (sampled dual partials)"), &sel, want, tol)
                }
                _ => {
                    h.note(&format!("{what}: no reference, not timed"));
                    false
                }
            };
            if ok {
                passed.push(name);
            } else {
                h.skip(suite, case, size, tool, m);
            }
        }
        if passed.is_empty() {
            continue;
        }
        let head = json!({"cmd": "time", "measures": passed, "budget": budget});
        match p.ask(head, &[]) {
            Ok(r) => {
                for name in &passed {
                    let m = measure(name).expect("known measure");
                    let t = &r.head["times"][name.as_str()];
                    match (t[0].as_f64(), t[1].as_f64(), t[2].as_f64()) {
                        (Some(med), Some(min), Some(max)) => h.cells.push(Cell {
                            median_s: Some(med / per),
                            min_s: Some(min / per),
                            max_s: Some(max / per),
                            ..Cell::skipped(suite, case, size, tool, m)
                        }),
                        _ => h.skip(suite, case, size, tool, m),
                    }
                }
            }
            Err(e) => {
                let msg = format!("CRASHED: {suite}/{case}: {e}");
                h.note(&msg);
                h.crashes.push(msg);
                failed.push(i);
            }
        }
    }
    // A peer that failed (a Python exception, e.g. out of memory, is a crash of that case's
    // peer cells: "-" and exit status 4) is asked again only if its process is still alive.
    for i in failed.into_iter().rev() {
        if peers.procs[i].proc.exited() {
            peers.procs.remove(i);
        }
    }
    h.jax = peers;
}
