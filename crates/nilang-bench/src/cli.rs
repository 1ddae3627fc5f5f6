//! Command-line options, parsed by hand.

use std::path::PathBuf;

/// The suites, in the paper's order (Tables 2-6), then the reversal schedules (issue 13), then
/// programs nobody tuned (issue 21).
pub const SUITES: [&str; 11] = [
    "sparse",
    "bessel",
    "embedding",
    "gmm",
    "ba",
    "schedules",
    "mlp",
    "pairwise",
    "logistic",
    "odefit",
    "kalman",
];

/// Run size.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Mode {
    /// The default: every suite in under 3 minutes on 2 cores.
    Quick,
    /// `--full`: the paper's sizes.
    Full,
    /// `--smoke`: tiny sizes and one repetition (for CI; independent of timing).
    Smoke,
}

#[derive(Clone, Debug, PartialEq)]
/// The parsed command line of `nilang-bench`.
pub struct Options {
    /// Quick (default), full (`--full`) or smoke (`--smoke`) sizes.
    pub mode: Mode,
    /// `--json FILE`: one JSON record per cell is written there.
    pub json: Option<PathBuf>,
    /// `--plot DIR`: two SVG charts per suite are written there.
    pub plot: Option<PathBuf>,
    /// Selected suites (all when none was named), in the order of [`SUITES`].
    pub suites: Vec<String>,
    /// Data folder (ADBench files and oracle references); default `$NILANG_DATA`, else the
    /// first `shared/data` found walking up from the workspace.
    pub data: Option<PathBuf>,
    /// Only the cases with these names (`--case`; the first word of a case name, e.g.
    /// `ba19`); empty: all.
    pub cases: Vec<String>,
    /// Threads of the parallel cells (`--threads N`; default: all cores). The parallel cells
    /// run with 1 thread and, when N > 1, with N threads (tools `nilang-t1`, `nilang-tN`).
    pub threads: usize,
    /// `--peers`: also run the JAX peer (`jax-*`, `jax-mt-*` cells) and the Enzyme peer
    /// (`enzyme-*` cells).
    pub peers: bool,
    /// Which device runs the `gpu-*` cells (`--gpu`, `--no-gpu`; default: a GPU if present).
    pub gpu: GpuChoice,
    /// `-h`, `--help`: print [`USAGE`] and run nothing.
    pub help: bool,
}

/// When the `gpu-O/G/J` cells run (the kernels of `nilang-gpu` on an OpenCL device).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum GpuChoice {
    /// Default: where the first OpenCL device is a GPU.
    Auto,
    /// `--gpu`: on the first OpenCL device of any kind (e.g. pocl on the CPU, for checking).
    Any,
    /// `--no-gpu`: never.
    Off,
}

/// The text of `--help`: the options, the environment and the exit statuses.
pub const USAGE: &str = "\
nilang-bench: the NiLang paper's benchmark tables (2-6), with plain Rust, hand-written,
num-dual (forward) and echidna (tape reverse) baselines.

USAGE:
    cargo run --release -p nilang-bench -- [OPTIONS]

OPTIONS:
    --full              the paper's sizes (GMM up to d=64 K=200, BA ba1-ba20); slow
    --smoke             tiny sizes, one repetition per cell (CI; checks still run)
    --suite NAME...     run only these suites: sparse bessel embedding gmm ba
                        schedules mlp pairwise logistic odefit kalman
                        (several names after one flag, or the flag repeated, or comma-separated)
    --json FILE         write one JSON record per cell
    --plot DIR          write two SVG charts per suite: SUITE-ratio.svg (ratio to rust-O per
                        case and tool, log) and SUITE.svg (time against the suite's work measure)
    --case NAME...      run only these cases of the selected suites (the case name or its
                        first word: `ba19`, `1k`, `k=4`, `T=1000`, ...; e.g. --suite ba --case
                        ba19); a name that matches no case is an error listing the cases
    --threads N         threads of the parallel cells (default: all cores): GMM gradient,
                        BA Jacobian, the pairwise and logistic gradients with 1 and N threads (tools
                        nilang-t1, nilang-tN), the same result for any N
    --data DIR          data folder holding adbench/ and oracle-reference/ (default:
                        $NILANG_DATA, else the first shared/data found walking up from the
                        workspace or the working directory)
    --peers             also time our JAX versions (jax: one thread, jax-mt: all cores);
                        needs `pip install -r peers/requirements.txt`; and our C++
                        versions differentiated by Enzyme (enzyme: one thread; needs Python
                        3.11 and `pip install -r peers/requirements-enzyme.txt`)
    --gpu               run the gpu-O/G/J cells (Bessel batch, BA, GMM kernels of nilang-gpu)
                        on the first OpenCL device even if it is not a GPU (e.g. pocl on the
                        CPU: checks the device path; its times say nothing about GPUs).
                        Default: the cells run where an OpenCL GPU is present
    --no-gpu            never run the gpu cells
    -h, --help          this text

Every derivative is checked against a second method before it is timed. Cells that cannot
finish within the time budget print \"-\". The --json and --plot paths are checked before
the run; the JSON file is replaced atomically. A suite or case that crashes is reported and
the others still run, print and write.

ENVIRONMENT:
    NILANG_DATA          the data folder (as --data); one that does not exist is an error
    NILANG_PYTHON        the Python of --peers (default python3)
    NILANG_PEER_TIMEOUT  seconds a peer may take to start or to answer one request (default
                         120 to start, 600 per request); a peer over it is killed (status 4)

EXIT STATUS:
    0   all checks passed
    1   a correctness check failed (numeric mismatch)
    2   bad arguments (an empty path, a value on a flag that takes none, a --case that matches
        nothing, --gpu without an OpenCL device), or a --json/--plot path that cannot be
        written: nothing ran
    3   data missing (DATA MISSING, with the folder searched; also a --data or NILANG_DATA
        folder that does not exist) or a corrupt data file (DATA ERROR: <file>: <reason>)
    4   a suite, case or peer crashed, or a peer did not answer in time or sent a reply over
        its size limit (the others' results are still printed and written)
";

impl Options {
    /// Parse the arguments after the program name.
    pub fn parse<I, S>(args: I) -> Result<Options, String>
    where
        I: IntoIterator<Item = S>,
        S: Into<String>,
    {
        let args: Vec<String> = args.into_iter().map(Into::into).collect();
        let mut o = Options {
            mode: Mode::Quick,
            json: None,
            plot: None,
            suites: Vec::new(),
            data: None,
            cases: Vec::new(),
            threads: std::thread::available_parallelism().map_or(1, |n| n.get()),
            peers: false,
            gpu: GpuChoice::Auto,
            help: false,
        };
        let (mut full, mut smoke) = (false, false);
        let mut i = 0;
        let value = |i: &mut usize, flag: &str| -> Result<String, String> {
            *i += 1;
            args.get(*i)
                .filter(|v| !v.starts_with("--"))
                .cloned()
                .ok_or_else(|| format!("{flag} needs a value"))
        };
        while i < args.len() {
            let a = args[i].as_str();
            let (flag, inline) = match a.split_once('=') {
                Some((f, v)) if f.starts_with("--") => (f, Some(v.to_string())),
                _ => (a, None),
            };
            const SWITCHES: [&str; 7] = [
                "--full", "--smoke", "--peers", "--gpu", "--no-gpu", "-h", "--help",
            ];
            if inline.is_some() && SWITCHES.contains(&flag) {
                return Err(format!("{flag} takes no value, got `{a}`"));
            }
            match flag {
                "--full" => full = true,
                "--smoke" => smoke = true,
                "--peers" => o.peers = true,
                "--gpu" => o.gpu = GpuChoice::Any,
                "--no-gpu" => o.gpu = GpuChoice::Off,
                "-h" | "--help" => o.help = true,
                "--json" | "--plot" | "--data" => {
                    let v = inline.map_or_else(|| value(&mut i, flag), Ok)?;
                    if v.trim().is_empty() {
                        return Err(format!(
                            "{flag} needs a path, got an empty one (an unset variable?)"
                        ));
                    }
                    let slot = match flag {
                        "--json" => &mut o.json,
                        "--plot" => &mut o.plot,
                        _ => &mut o.data,
                    };
                    *slot = Some(v.into());
                }
                "--threads" => {
                    let v = inline.map_or_else(|| value(&mut i, flag), Ok)?;
                    o.threads = v
                        .parse::<usize>()
                        .ok()
                        .filter(|&n| (1..=1024).contains(&n))
                        .ok_or_else(|| {
                            format!("--threads needs a number of threads (1..1024), got `{v}`")
                        })?;
                }
                "--case" | "--cases" => {
                    o.cases
                        .extend(names_after(&args, &mut i, inline, "--case")?);
                }
                "--suite" | "--suites" => {
                    for n in names_after(&args, &mut i, inline, "--suite")? {
                        let n = n.as_str();
                        if !SUITES.contains(&n) {
                            return Err(format!(
                                "unknown suite `{n}` (known: {})",
                                SUITES.join(", ")
                            ));
                        }
                        if !o.suites.iter().any(|s| s == n) {
                            o.suites.push(n.to_string());
                        }
                    }
                }
                _ => return Err(format!("unknown argument `{a}` (see --help)")),
            }
            i += 1;
        }
        if full && smoke {
            return Err("--full and --smoke exclude each other".into());
        }
        o.mode = if full {
            Mode::Full
        } else if smoke {
            Mode::Smoke
        } else {
            Mode::Quick
        };
        if o.suites.is_empty() {
            o.suites = SUITES.iter().map(|s| s.to_string()).collect();
        } else {
            o.suites
                .sort_by_key(|s| SUITES.iter().position(|k| k == s).unwrap_or(usize::MAX));
        }
        Ok(o)
    }

    /// Whether `suite` was selected.
    pub fn wants(&self, suite: &str) -> bool {
        self.suites.iter().any(|s| s == suite)
    }
}

/// The names after a list flag (`--suite a b`, `--suite a,b`, `--suite=a`): every following
/// argument up to the next flag, split at commas; at least one.
fn names_after(
    args: &[String],
    i: &mut usize,
    inline: Option<String>,
    flag: &str,
) -> Result<Vec<String>, String> {
    let mut raw: Vec<String> = inline.into_iter().collect();
    while *i + 1 < args.len() && !args[*i + 1].starts_with('-') {
        *i += 1;
        raw.push(args[*i].clone());
    }
    let names: Vec<String> = raw
        .iter()
        .flat_map(|n| n.split(','))
        .map(str::trim)
        .filter(|n| !n.is_empty())
        .map(str::to_string)
        .collect();
    if names.is_empty() {
        return Err(format!("{flag} needs at least one name"));
    }
    Ok(names)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn defaults() {
        let o = Options::parse(Vec::<String>::new()).unwrap();
        assert_eq!(o.mode, Mode::Quick);
        assert_eq!(o.suites, SUITES.to_vec());
        assert!(o.json.is_none() && o.plot.is_none() && !o.help);
    }

    #[test]
    fn flags() {
        let o = Options::parse([
            "--full", "--json", "out.json", "--plot", "pics", "--suite", "gmm", "bessel",
        ])
        .unwrap();
        assert_eq!(o.mode, Mode::Full);
        assert_eq!(o.json.as_deref(), Some(std::path::Path::new("out.json")));
        assert_eq!(o.plot.as_deref(), Some(std::path::Path::new("pics")));
        assert_eq!(o.suites, ["bessel", "gmm"]);
        let o = Options::parse(["--smoke", "--suite=ba,sparse", "--suite", "ba"]).unwrap();
        assert_eq!(o.mode, Mode::Smoke);
        assert_eq!(o.suites, ["sparse", "ba"]);
        assert!(o.wants("ba") && !o.wants("gmm"));
        assert!(Options::parse(["-h"]).unwrap().help);
        let o = Options::parse(["--suite", "ba", "--case", "ba19", "ba1,ba2"]).unwrap();
        assert_eq!(o.cases, ["ba19", "ba1", "ba2"]);
        assert!(Options::parse(["--case"]).is_err());
        assert_eq!(Options::parse(["--gpu"]).unwrap().gpu, GpuChoice::Any);
        assert_eq!(Options::parse(["--no-gpu"]).unwrap().gpu, GpuChoice::Off);
        assert_eq!(Options::parse(["--smoke"]).unwrap().gpu, GpuChoice::Auto);
    }

    #[test]
    fn errors() {
        assert!(Options::parse(["--suite", "nope"]).is_err());
        assert!(Options::parse(["--suite"]).is_err());
        assert!(Options::parse(["--json"]).is_err());
        assert!(Options::parse(["--full", "--smoke"]).is_err());
        assert!(Options::parse(["--frobnicate"]).is_err());
    }

    #[test]
    fn empty_paths_and_values_on_switches_are_errors() {
        for args in [
            &["--json="][..],
            &["--json", ""],
            &["--plot="],
            &["--data", " "],
        ] {
            let e = Options::parse(args.iter().copied()).unwrap_err();
            assert!(e.contains("empty"), "{args:?}: {e}");
        }
        for flag in ["--smoke=1", "--full=yes", "--peers=", "--gpu=0", "--help=x"] {
            let e = Options::parse([flag]).unwrap_err();
            assert!(e.contains("takes no value") && e.contains(flag), "{e}");
        }
    }
}
