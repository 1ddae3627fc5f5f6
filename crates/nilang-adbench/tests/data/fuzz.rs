//! Fuzz-style test of the ADBench readers: 10^4 mutated files (headers and bodies), every
//! outcome a value or a typed error, never a panic, and the heap bounded by the size limit.
//!
//! This binary holds one test, so the process-wide peak of the counting allocator below is
//! the test's own.

use nilang_adbench::ba::BaInput;
use nilang_adbench::gmm::GmmInput;
use nilang_testkit::alloc::measure;
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};

const GMM_OK: &str = "2 3 1\n-0.649014\n1.181166\n-0.758453\n0.092339 0.186260\n0.345561 0.396767\n0.538817 0.419195\n0.586443 -0.851887 0.800321\n-1.509405 0.875874 -0.242790\n0.166813 -1.965419 -1.270071\n1.175171 2.029160\n1.000000 0\n";
const BA_OK: &str = "2 10 10\n1.797201 0.590697 -0.635786 90.859550 29.361415 28.777534 211.628116 -0.284531 -14.762924 0.058931 0.069976\n4.173048 5.586898 1.403869\n0.417022\n-525.672849 161.811929\n";

/// The readers' size limit in this test: 1 MiB.
const LIMIT: u64 = 1 << 20;

const HEADER_VALUES: [&str; 16] = [
    "0",
    "1",
    "2",
    "7",
    "-2",
    "2.9",
    "NaN",
    "1e9",
    "1000",
    "131072",
    "1000000000000",
    "18446744073709551615",
    "99999999999999999999999",
    "",
    "x",
    "3 3",
];
const BODY_VALUES: [&str; 14] = [
    "", "nan", "inf", "-inf", "1e400", "x", "-1", "0", "0.5", "--", "1 2", "1e-320", "\u{feff}",
    "ÿ",
];

fn mutate(rng: &mut StdRng, base: &str) -> String {
    let mut t: Vec<String> = base.split_whitespace().map(str::to_owned).collect();
    for _ in 0..rng.gen_range(1..=3) {
        let i = rng.gen_range(0..t.len());
        match rng.gen_range(0..5) {
            0 | 1 if i < 3 => t[i] = HEADER_VALUES[rng.gen_range(0..HEADER_VALUES.len())].into(),
            0 | 1 => t[i] = BODY_VALUES[rng.gen_range(0..BODY_VALUES.len())].into(),
            2 => {
                t.remove(i);
                if t.is_empty() {
                    t.push("1".into());
                }
            }
            3 => {
                let dup = t[i].clone();
                t.insert(i, dup);
            }
            _ => t[i] = HEADER_VALUES[rng.gen_range(0..HEADER_VALUES.len())].into(),
        }
    }
    let sep = if rng.gen_bool(0.5) { " " } else { "\n" };
    let mut src = t.join(sep);
    if rng.gen_bool(0.2) {
        let mut cut = rng.gen_range(0..=src.len());
        while !src.is_char_boundary(cut) {
            cut -= 1;
        }
        src.truncate(cut);
    }
    src
}

#[test]
fn ten_thousand_mutated_files_never_panic_and_stay_within_the_size_limit() {
    let mut rng = StdRng::seed_from_u64(10);
    let (mut ok, mut err) = (0, 0);
    let ((), heap) = measure(|| {
        for case in 0..10_000 {
            let base = if case % 2 == 0 { GMM_OK } else { BA_OK };
            let src = mutate(&mut rng, base);
            let results = [
                GmmInput::parse_named_limited(&src, "f", false, LIMIT).map(|g| g.x.len()),
                GmmInput::parse_named_limited(&src, "f", true, LIMIT).map(|g| g.x.len()),
                BaInput::parse_named_limited(&src, "f", LIMIT).map(|b| b.obs.len()),
            ];
            for r in results {
                match r {
                    Ok(_) => ok += 1,
                    Err(e) => {
                        err += 1;
                        let msg = e.to_string();
                        assert!(msg.starts_with("f"), "case {case}: {msg}");
                    }
                }
            }
        }
    });
    // both outcomes occur, so the mutations reach past the header
    assert!(ok > 100 && err > 100, "ok {ok}, err {err}");
    // an accepted instance is at most LIMIT bytes (plus Vec growth slack); nothing near the
    // 10^12 elements some headers claim was allocated
    let peak = heap.peak_bytes;
    assert!(peak < 4 * LIMIT as usize, "peak heap {peak} bytes");
}
