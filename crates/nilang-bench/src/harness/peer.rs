//! A peer process (another language's implementation of the suites, e.g. `peers/jax/peer.py`)
//! and the bounded protocol the harness speaks with it: every external input has a limit.
//!
//! A message (request or reply) is one JSON line, then the raw little-endian `f64` arrays its
//! `"arrays": [[name, length], ...]` field announces. The harness writes requests from a
//! writer thread and reads replies on a reader thread, so that waiting for a reply always has a
//! time limit ([`Limits::handshake`], [`Limits::reply`]): a peer that never answers, or never
//! reads, is killed and reported in one line, and the run goes on. A reply line longer than
//! [`Limits::max_line_bytes`], or announcing more than [`Limits::max_numbers`] numbers (or a
//! length that is not a count), is rejected before anything is allocated for it.
//!
//! The process is killed when the [`PeerProcess`] is dropped (after a polite `quit` and a short
//! grace), so on every exit path of the harness: the normal end, an error, a failed check, a
//! panic unwinding through a suite. A peer that outlives a killed harness exits on its own
//! when its standard input closes.
//!
//! ```
//! use nilang_bench::harness::peer::{Limits, PeerProcess};
//! use serde_json::json;
//! use std::time::Duration;
//!
//! // `cat` is an echo peer: the reply is the request
//! let limits = Limits { reply: Duration::from_secs(10), ..Limits::default() };
//! let mut p = PeerProcess::spawn("echo", std::process::Command::new("cat"), limits).unwrap();
//! let r = p.ask(json!({"ok": true, "x": 1}), &[("v", &[1.5, 2.5])], limits.reply).unwrap();
//! assert_eq!(r.head["x"], 1);
//! assert_eq!(r.arrays, [("v".to_string(), vec![1.5, 2.5])]);
//! ```

use serde_json::{json, Value};
use std::io::{BufRead, BufReader, Read, Write};
use std::process::{Child, ChildStdout, Command, Stdio};
use std::sync::mpsc::{self, Receiver, RecvTimeoutError, Sender};
use std::time::{Duration, Instant};

/// The environment variable that sets every peer time limit, in seconds (tests use small ones).
pub const TIMEOUT_ENV: &str = "NILANG_PEER_TIMEOUT";

/// The bounds on what a peer may take and send.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Limits {
    /// Time for the first reply (the peer starts, imports its libraries and answers `hello`).
    pub handshake: Duration,
    /// Time for any later reply (compiling and running one case, or timing it).
    pub reply: Duration,
    /// Longest reply line (the JSON head), in bytes.
    pub max_line_bytes: usize,
    /// Most numbers one reply may announce, all arrays together.
    pub max_numbers: u64,
}

impl Default for Limits {
    /// Handshake 120 s, replies 600 s (both `$NILANG_PEER_TIMEOUT` seconds when set), heads of
    /// 1 MiB, and as many numbers as half the available memory holds (2³⁰ where that is
    /// unknown).
    fn default() -> Limits {
        let env = std::env::var(TIMEOUT_ENV)
            .ok()
            .and_then(|s| s.trim().parse::<f64>().ok())
            .filter(|s| s.is_finite() && *s > 0.0)
            .map(Duration::from_secs_f64);
        Limits {
            handshake: env.unwrap_or(Duration::from_secs(120)),
            reply: env.unwrap_or(Duration::from_secs(600)),
            max_line_bytes: 1 << 20,
            max_numbers: crate::harness::available_memory_bytes().map_or(1 << 30, |b| b / 16),
        }
    }
}

/// A request or reply: the JSON head and the arrays it announced, in order.
#[derive(Debug, PartialEq)]
pub struct Msg {
    /// The JSON head (its `"arrays"` field announces the arrays: names and lengths).
    pub head: Value,
    /// The announced arrays, by name, in the order of the head.
    pub arrays: Vec<(String, Vec<f64>)>,
}

/// Why a request got no usable reply.
#[derive(Clone, Debug, PartialEq)]
pub enum PeerError {
    /// The peer answered `"ok": false` with this message (it is still running).
    Refused(String),
    /// No usable reply: a time limit, a size limit, a malformed reply, a closed pipe, or a
    /// process that cannot be started. The process has been killed.
    Broken(String),
}

impl std::fmt::Display for PeerError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            PeerError::Refused(e) | PeerError::Broken(e) => f.write_str(e),
        }
    }
}

impl std::error::Error for PeerError {}

/// A running peer process (see the module documentation).
pub struct PeerProcess {
    /// The peer's name in messages (e.g. `jax-mt`).
    pub name: String,
    child: Child,
    /// Requests to the writer thread (`None` when the process is gone).
    requests: Option<Sender<Vec<u8>>>,
    /// Write failures and replies, from the writer and reader threads.
    replies: Receiver<Result<Msg, String>>,
    dead: bool,
}

impl PeerProcess {
    /// Start `cmd` with piped standard input and output (its standard error is the harness's).
    pub fn spawn(name: &str, mut cmd: Command, limits: Limits) -> Result<PeerProcess, PeerError> {
        let program = cmd.get_program().to_string_lossy().into_owned();
        let mut child = cmd
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .spawn()
            .map_err(|e| PeerError::Broken(format!("cannot run {program}: {e}")))?;
        let mut stdin = child.stdin.take().expect("piped");
        let stdout = child.stdout.take().expect("piped");
        let (tx, replies) = mpsc::channel();
        let (requests, rx) = mpsc::channel::<Vec<u8>>();
        let write_errors = tx.clone();
        let who = name.to_string();
        std::thread::spawn(move || {
            for bytes in rx {
                if let Err(e) = stdin.write_all(&bytes).and_then(|()| stdin.flush()) {
                    let _ = write_errors.send(Err(format!("peer {who}: cannot send: {e}")));
                    return;
                }
            }
        });
        let who = name.to_string();
        std::thread::spawn(move || {
            let mut r = BufReader::new(stdout);
            loop {
                let msg = read_msg(&mut r, &limits).map_err(|e| format!("peer {who}: {e}"));
                let end = msg.is_err();
                if tx.send(msg).is_err() || end {
                    return;
                }
            }
        });
        Ok(PeerProcess {
            name: name.to_string(),
            child,
            requests: Some(requests),
            replies,
            dead: false,
        })
    }

    /// Send one request (its `"arrays"` field is set from `arrays`) and wait at most `limit`
    /// for the reply. A reply with `"ok": false` is an error carrying its `"error"` text. On a
    /// timeout, an oversized or malformed reply, or a closed pipe, the process is killed and
    /// every later request fails at once.
    pub fn ask(
        &mut self,
        mut head: Value,
        arrays: &[(&str, &[f64])],
        limit: Duration,
    ) -> Result<Msg, PeerError> {
        if self.dead {
            return Err(PeerError::Broken(format!(
                "peer {} is no longer running",
                self.name
            )));
        }
        head["arrays"] = arrays
            .iter()
            .map(|(n, a)| json!([n, a.len()]))
            .collect::<Vec<_>>()
            .into();
        let mut bytes = serde_json::to_vec(&head).expect("json");
        bytes.push(b'\n');
        for (_, a) in arrays {
            bytes.extend(a.iter().flat_map(|v| v.to_le_bytes()));
        }
        let sent = self.requests.as_ref().map(|s| s.send(bytes).is_ok());
        let reply = match sent {
            Some(true) => match self.replies.recv_timeout(limit) {
                Ok(r) => r,
                Err(RecvTimeoutError::Timeout) => Err(format!(
                    "peer {}: no reply within {:.0} s (killed; {TIMEOUT_ENV}=SECONDS sets the limit)",
                    self.name,
                    limit.as_secs_f64()
                )),
                Err(RecvTimeoutError::Disconnected) => Err(format!("peer {} exited", self.name)),
            },
            _ => Err(format!("peer {} exited", self.name)),
        };
        match reply {
            Ok(msg) if msg.head["ok"] == Value::Bool(true) => Ok(msg),
            Ok(msg) => Err(PeerError::Refused(format!(
                "peer {}: {}",
                self.name,
                msg.head["error"].as_str().unwrap_or("failed")
            ))),
            Err(e) => {
                self.kill();
                Err(PeerError::Broken(e))
            }
        }
    }

    /// Whether the process has exited (or was killed).
    pub fn exited(&mut self) -> bool {
        self.dead || self.child.try_wait().ok().flatten().is_some()
    }

    /// The process id (for tests that check no peer is left running).
    pub fn id(&self) -> u32 {
        self.child.id()
    }

    fn kill(&mut self) {
        self.requests = None;
        let _ = self.child.kill();
        let _ = self.child.wait();
        self.dead = true;
    }
}

impl Drop for PeerProcess {
    /// Ask the peer to quit, give it a moment, then kill it: no peer outlives the harness.
    fn drop(&mut self) {
        if self.dead {
            return;
        }
        if let Some(s) = self.requests.take() {
            let _ = s.send(b"{\"cmd\": \"quit\"}\n".to_vec());
        }
        let deadline = Instant::now() + Duration::from_secs(2);
        while Instant::now() < deadline {
            if self.child.try_wait().ok().flatten().is_some() {
                self.dead = true;
                return;
            }
            std::thread::sleep(Duration::from_millis(10));
        }
        self.kill();
    }
}

/// Read one message, checking the limits before allocating for it.
fn read_msg(r: &mut BufReader<ChildStdout>, limits: &Limits) -> Result<Msg, String> {
    let mut line = Vec::new();
    let max = limits.max_line_bytes;
    r.by_ref()
        .take(max as u64 + 1)
        .read_until(b'\n', &mut line)
        .map_err(|e| e.to_string())?;
    if line.is_empty() {
        return Err("exited".into());
    }
    if line.last() != Some(&b'\n') {
        return Err(if line.len() > max {
            format!("reply line longer than {max} bytes (rejected)")
        } else {
            "exited in the middle of a reply".into()
        });
    }
    let text = String::from_utf8_lossy(&line);
    let head: Value = serde_json::from_str(&text)
        .map_err(|e| format!("bad reply `{}`: {e}", shorten(text.trim())))?;
    let announced = announced_arrays(&head, limits.max_numbers)?;
    let mut arrays = Vec::with_capacity(announced.len());
    for (name, len) in announced {
        let mut buf = vec![0u8; 8 * len];
        r.read_exact(&mut buf)
            .map_err(|e| format!("array {name} of {len} numbers: {e}"))?;
        let v = buf
            .chunks_exact(8)
            .map(|c| f64::from_le_bytes(c.try_into().expect("8 bytes")))
            .collect();
        arrays.push((name, v));
    }
    Ok(Msg { head, arrays })
}

/// The `(name, length)` pairs a head announces, all checked: each a `[string, count]` pair, in
/// total at most `max_numbers` numbers.
fn announced_arrays(head: &Value, max_numbers: u64) -> Result<Vec<(String, usize)>, String> {
    let Some(list) = head.get("arrays") else {
        return Ok(Vec::new());
    };
    let list = list
        .as_array()
        .ok_or_else(|| format!("`arrays` is not a list: {}", shorten(&list.to_string())))?;
    let mut total: u64 = 0;
    let mut out = Vec::with_capacity(list.len());
    for a in list {
        let (Some(name), Some(len)) = (a[0].as_str(), a[1].as_u64()) else {
            return Err(format!(
                "bad array entry {} (want [name, count])",
                shorten(&a.to_string())
            ));
        };
        total = total.saturating_add(len);
        if total > max_numbers {
            return Err(format!(
                "reply announces {total} numbers (array {name}: {len}), more than the limit of \
                 {max_numbers} (rejected before allocating)"
            ));
        }
        out.push((name.to_string(), len as usize));
    }
    Ok(out)
}

fn shorten(s: &str) -> String {
    match s.char_indices().nth(200) {
        Some((i, _)) => format!("{}…", &s[..i]),
        None => s.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn fake(script: &str, limits: Limits) -> PeerProcess {
        let mut cmd = Command::new("sh");
        cmd.args(["-c", script]);
        PeerProcess::spawn("fake", cmd, limits).expect("sh")
    }

    fn short() -> Limits {
        Limits {
            handshake: Duration::from_millis(500),
            reply: Duration::from_millis(500),
            ..Limits::default()
        }
    }

    /// For fakes that do answer: a limit no loaded machine reaches, so that only the reply
    /// itself decides the outcome.
    fn patient() -> Limits {
        Limits {
            handshake: Duration::from_secs(60),
            reply: Duration::from_secs(60),
            ..Limits::default()
        }
    }

    fn alive(pid: u32) -> bool {
        // a zombie is reaped by `wait`; a killed and reaped process has no /proc entry
        std::fs::read_to_string(format!("/proc/{pid}/stat"))
            .is_ok_and(|s| s.split_whitespace().nth(2).is_none_or(|st| st != "Z"))
    }

    #[test]
    fn a_silent_peer_times_out_and_is_killed() {
        let mut p = fake("exec sleep 1000", short());
        let pid = p.id();
        let t0 = Instant::now();
        let e = p
            .ask(json!({"cmd": "hello"}), &[], short().reply)
            .unwrap_err()
            .to_string();
        assert!(
            e.contains("no reply within") && e.contains(TIMEOUT_ENV),
            "{e}"
        );
        assert!(t0.elapsed() < Duration::from_secs(5));
        assert!(p.exited());
        let e = p
            .ask(json!({"cmd": "hello"}), &[], short().reply)
            .unwrap_err()
            .to_string();
        assert!(e.contains("no longer running"), "{e}");
        drop(p);
        #[cfg(target_os = "linux")]
        assert!(!alive(pid), "peer {pid} left running");
        let _ = pid;
    }

    #[test]
    fn a_peer_that_never_reads_does_not_block_the_sender() {
        // 64 MB of request into a pipe nobody reads: the write blocks, the wait does not
        let mut p = fake("exec sleep 1000", short());
        let big = vec![0.0; 8 << 20];
        let e = p
            .ask(json!({"cmd": "case"}), &[("x", &big)], short().reply)
            .unwrap_err()
            .to_string();
        assert!(e.contains("no reply within"), "{e}");
    }

    #[test]
    fn a_huge_announced_reply_is_rejected_before_allocating() {
        let mut p = fake(
            r#"read l; echo '{"ok": true, "arrays": [["G", 1000000000000]]}'; exec sleep 1000"#,
            patient(),
        );
        let e = p
            .ask(json!({"cmd": "case"}), &[], patient().reply)
            .unwrap_err()
            .to_string();
        assert!(
            e.contains("1000000000000 numbers") && e.contains("before allocating"),
            "{e}"
        );
        assert!(p.exited());
    }

    #[test]
    fn malformed_replies_are_errors() {
        for (reply, want) in [
            (r#"{"ok": true, "arrays": [["G", -3]]}"#, "bad array entry"),
            (r#"{"ok": true, "arrays": 7}"#, "not a list"),
            ("not json", "bad reply `not json`"),
            (r#"{"ok": false, "error": "JAX missing"}"#, "JAX missing"),
        ] {
            let mut p = fake(
                &format!("read l; echo '{reply}'; exec sleep 1000"),
                patient(),
            );
            let e = p
                .ask(json!({"cmd": "hello"}), &[], patient().reply)
                .unwrap_err()
                .to_string();
            assert!(e.contains(want), "{reply}: {e}");
        }
        // a head without a newline that exceeds the line limit
        let limits = Limits {
            max_line_bytes: 64,
            ..patient()
        };
        let mut p = fake(
            "read l; head -c 1000 /dev/zero | tr '\\0' x; exec sleep 1000",
            limits,
        );
        let e = p
            .ask(json!({"cmd": "hello"}), &[], limits.reply)
            .unwrap_err()
            .to_string();
        assert!(e.contains("longer than 64 bytes"), "{e}");
        // a peer that exits before answering
        let mut p = fake("read l; exit 3", patient());
        let e = p
            .ask(json!({"cmd": "hello"}), &[], patient().reply)
            .unwrap_err()
            .to_string();
        assert!(e.contains("exited"), "{e}");
    }

    #[test]
    fn dropping_kills_a_peer_that_ignores_quit() {
        let p = fake("trap '' TERM; while true; do sleep 1; done", short());
        let pid = p.id();
        let t0 = Instant::now();
        drop(p);
        assert!(t0.elapsed() < Duration::from_secs(5));
        #[cfg(target_os = "linux")]
        assert!(!alive(pid), "peer {pid} left running");
    }

    #[test]
    fn a_panic_unwinding_past_the_peer_kills_it() {
        let mut pid = 0;
        let r = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            let p = fake("while true; do sleep 1; done", short());
            pid = p.id();
            panic!("a suite crashed");
        }));
        assert!(r.is_err());
        #[cfg(target_os = "linux")]
        assert!(!alive(pid), "peer {pid} left running");
    }
}
