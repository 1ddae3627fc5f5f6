//! Writes a GMM instance in ADBench's format, generated as ADBench's
//! `gmm-data-gen.py` does (alpha, icf, x ~ N(0,1); mu ~ U(0,1); 6 decimals).
//!
//! ```text
//! cargo run --release -p nilang-apps --example gmm_generate -- d K n out.txt [seed]
//! ```

use std::process::ExitCode;

use nilang_apps::adbench::gmm::gmm_generate;

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let usage = "usage: gmm_generate d K n out.txt [seed]";
    if !(4..=5).contains(&args.len()) {
        eprintln!("{usage}");
        return ExitCode::FAILURE;
    }
    let parse = |i: usize, name: &str| -> Result<u64, String> {
        args[i].parse::<u64>().map_err(|_| {
            format!(
                "{name} must be a non-negative integer, got `{}`\n{usage}",
                args[i]
            )
        })
    };
    let parsed = (|| -> Result<(usize, usize, usize, u64), String> {
        let d = parse(0, "d")? as usize;
        let k = parse(1, "K")? as usize;
        let n = parse(2, "n")? as usize;
        let seed = if args.len() == 5 {
            parse(4, "seed")?
        } else {
            31337
        };
        if d == 0 || k == 0 {
            return Err(format!("d and K must be positive\n{usage}"));
        }
        Ok((d, k, n, seed))
    })();
    let (d, k, n, seed) = match parsed {
        Ok(v) => v,
        Err(msg) => {
            eprintln!("{msg}");
            return ExitCode::FAILURE;
        }
    };
    let input = gmm_generate(d, k, n, seed);
    let out = &args[3];
    if let Err(e) = std::fs::write(out, input.write()) {
        eprintln!("cannot write {out}: {e}");
        return ExitCode::FAILURE;
    }
    println!(
        "wrote {out}: d={d} K={k} n={n} seed={seed} ({} parameters)",
        input.n_params()
    );
    ExitCode::SUCCESS
}
