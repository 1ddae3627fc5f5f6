//! `cargo run --release -p nilang-bench -- [--full] [--json FILE] [--plot DIR] [--suite NAME...] [--case NAME...] [--smoke]`
//!
//! Exit status: see [`nilang_bench::cli::USAGE`].

use nilang_bench::cli::{Options, USAGE};
use nilang_bench::harness::alloc::CountingAlloc;
use nilang_bench::{report, EXIT_USAGE};

#[global_allocator]
static ALLOC: CountingAlloc = CountingAlloc;

fn main() {
    let opts = match Options::parse(std::env::args().skip(1)) {
        Ok(o) => o,
        Err(e) => {
            eprintln!("error: {e}\n\n{USAGE}");
            std::process::exit(EXIT_USAGE);
        }
    };
    if opts.help {
        print!("{USAGE}");
        return;
    }
    // output paths, the device and the case names are checked before the run, not after it
    if let Err(e) = nilang_bench::preflight(&opts) {
        eprintln!("error: {e}");
        std::process::exit(EXIT_USAGE);
    }
    let t0 = std::time::Instant::now();
    let res = nilang_bench::run(&opts);
    println!(
        "# NiLang.rs benchmarks ({:?} run, {:.1} s)\n\nTimes in seconds per call: the minimum over repeated samples, +how far the median sample lies above it. In parentheses, the ratio of minimum times to the plain-Rust objective (rust-O) of the same case, whose samples alternate with the cell's; ±: how far the per-pair ratios (a cell sample / the adjacent rust-O sample) scatter, half their interquartile range relative to their median (none for cells on the wall clock: pools of several threads, devices). Samples rotate through eight stack positions 528 bytes apart (four places within a cache line, spread over a 4 KiB page). \"-\": not run within the time budget.\n",
        opts.mode,
        t0.elapsed().as_secs_f64()
    );
    for s in &opts.suites {
        let t = report::markdown_table(&res.cells, s);
        if !t.is_empty() {
            println!("{t}");
            println!("{}", report::markdown_heap_table(&res.cells, s));
        }
    }
    let mut status = res.exit_status();
    if let Some(path) = &opts.json {
        if let Err(e) = report::write_json(&res.cells, path) {
            eprintln!("error: cannot write {}: {e}", path.display());
            status = status.max(EXIT_USAGE);
        }
    }
    if let Some(dir) = &opts.plot {
        match nilang_bench::plot::write_plots(&res.cells, dir) {
            Ok(files) => {
                for f in files {
                    eprintln!("wrote {}", f.display());
                }
            }
            Err(e) => {
                eprintln!("error: plots: {e}");
                status = status.max(EXIT_USAGE);
            }
        }
    }
    for (list, title) in [
        (&res.data_errors, "data folder problem(s)"),
        (&res.crashes, "suite(s) or case(s) CRASHED"),
        (&res.failures, "correctness check(s) FAILED"),
    ] {
        if !list.is_empty() {
            eprintln!("\n{} {title}:", list.len());
            for f in list {
                eprintln!("  {f}");
            }
        }
    }
    std::process::exit(status);
}
