//! `cargo run --release -p nilang-bench -- [--full] [--json FILE] [--plot DIR] [--suite NAME...] [--smoke]`

use nilang_bench::alloc::CountingAlloc;
use nilang_bench::cli::{Options, USAGE};
use nilang_bench::report;

#[global_allocator]
static ALLOC: CountingAlloc = CountingAlloc;

fn main() {
    let opts = match Options::parse(std::env::args().skip(1)) {
        Ok(o) => o,
        Err(e) => {
            eprintln!("error: {e}\n\n{USAGE}");
            std::process::exit(2);
        }
    };
    if opts.help {
        print!("{USAGE}");
        return;
    }
    let registry = nilang_bench::default_registry();
    let t0 = std::time::Instant::now();
    let res = nilang_bench::run(&opts, &registry);
    println!(
        "# NiLang.rs benchmarks ({:?} run, {:.1} s)\n\nTimes in seconds per call: median over repeated runs (ratio to the plain-Rust objective of the same case); \"-\": not run within the time budget.\n",
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
    let mut status = 0;
    if let Some(path) = &opts.json {
        if let Err(e) = report::write_json(&res.cells, path) {
            eprintln!("error: cannot write {}: {e}", path.display());
            status = 2;
        }
    }
    if let Some(dir) = &opts.plot {
        match report::write_plots(&res.cells, dir) {
            Ok(files) => {
                for f in files {
                    eprintln!("wrote {}", f.display());
                }
            }
            Err(e) => {
                eprintln!("error: plots: {e}");
                status = 2;
            }
        }
    }
    if !res.failures.is_empty() {
        eprintln!("\n{} correctness check(s) FAILED:", res.failures.len());
        for f in &res.failures {
            eprintln!("  {f}");
        }
        status = 1;
    }
    std::process::exit(status);
}
