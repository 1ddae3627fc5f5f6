//! Runtime errors point at the user's `#[i]` statement: panics inside instructions (integer
//! overflow, out-of-bounds) carry the statement's location; failed `if`/`while` conditions show
//! the values they read and say when the failure happened in the inverse.
use nilang::check::{catch, ErrorKind};
use nilang::prelude::*;
// (the tests below check panic locations by line number: keep these lines in place)

#[i]
fn square_into(y: &mut i64, x: i64) {
    y += x * x;
}

#[i]
fn pick(y: &mut f64, x: &[f64], i: usize) {
    y += x[i];
}

/// The location (`file:line`) of the panic raised by `f`.
fn panic_line(f: impl FnOnce() + std::panic::UnwindSafe) -> String {
    // the hook is process-wide and the other tests of this binary run (and panic) on other
    // threads: each panic is recorded on its own thread
    thread_local! {
        static LOC: std::cell::RefCell<String> = const { std::cell::RefCell::new(String::new()) };
    }
    let prev = std::panic::take_hook();
    std::panic::set_hook(Box::new(|info| {
        if let Some(l) = info.location() {
            LOC.with(|s| *s.borrow_mut() = format!("{}:{}", l.file(), l.line()));
        }
    }));
    let r = std::panic::catch_unwind(f);
    std::panic::set_hook(prev);
    assert!(r.is_err(), "expected a panic");
    LOC.with(|s| s.borrow().clone())
}

#[test]
fn panics_inside_instructions_point_at_the_statement() {
    let file = "crates/nilang/tests/lang/runtime_messages.rs";
    if cfg!(debug_assertions) {
        // `y += x * x` overflows in `Mul` inside the instruction: reported at line 10
        let loc = panic_line(|| {
            let mut y = 0_i64;
            square_into(&mut y, i64::MAX);
        });
        assert_eq!(loc, format!("{file}:10"));
        // the inverse too (`y -= x * x` on the same line)
        let loc = panic_line(|| {
            let mut y = 0_i64;
            square_into_inv(&mut y, 1 << 32);
        });
        assert_eq!(loc, format!("{file}:10"));
    }
    // an index out of bounds: reported at the statement (line 15)
    let loc = panic_line(|| {
        let mut y = 0.0;
        pick(&mut y, &[1.0, 2.0], 5);
    });
    assert_eq!(loc, format!("{file}:15"));
}

#[i]
fn branch(y: &mut i64, k: &mut i64) {
    if (k > 2, y > 100) {
        y += 200;
    }
}

#[test]
fn if_failures_show_values_and_direction() {
    // forward: k = 1 takes the else branch, but y = 150 makes the post-condition hold
    let (mut y, mut k) = (150, 1);
    let e = catch(|| branch(&mut y, &mut k)).unwrap_err();
    assert_eq!(e.kind, ErrorKind::IfPostcondition);
    assert_eq!(e.statement, "if(k > 2, y > 100) { y += 200; }");
    assert!(
        e.detail.ends_with("; values: k = 1, y = 150"),
        "{}",
        e.detail
    );
    // inverse: the inverse's condition is `y > 100`, its post-condition `k > 2`
    let (mut y, mut k) = (300, 1);
    let e = catch(|| branch_inv(&mut y, &mut k)).unwrap_err();
    assert_eq!(e.kind, ErrorKind::IfPostcondition);
    assert!(
        e.detail
            .ends_with("; values: y = 100, k = 1 (while running the inverse `branch_inv`)"),
        "{}",
        e.detail
    );
}

#[i]
fn count(n: &mut i64, s: &mut i64) {
    while (n < 5, n > 0) {
        n += 1;
        s += n;
    }
}

#[test]
fn while_failures_show_values_and_direction() {
    let (mut n, mut s) = (2, 0);
    let e = catch(|| count(&mut n, &mut s)).unwrap_err();
    assert_eq!(e.kind, ErrorKind::WhileCondition);
    assert!(
        e.detail.starts_with("post-condition holds at loop entry"),
        "{}",
        e.detail
    );
    assert!(e.detail.ends_with("; values: n = 2"), "{}", e.detail);
    let (mut n, mut s) = (0, 0);
    let e = catch(|| count_inv(&mut n, &mut s)).unwrap_err();
    assert_eq!(e.kind, ErrorKind::WhileCondition);
    assert!(
        e.detail
            .ends_with("; values: n = 0 (while running the inverse `count_inv`)"),
        "{}",
        e.detail
    );
}

#[i]
fn up_to(k: &mut i64, n: i64) {
    #[from(k == 0)]
    loop {
        k += 1;
        if k >= n {
            break;
        }
    }
}

#[test]
fn do_loop_failures_show_values_and_direction() {
    let mut k = 7;
    let e = catch(|| up_to(&mut k, 3)).unwrap_err();
    assert!(e.detail.ends_with("; values: k = 7, n = 3"), "{}", e.detail);
    let mut k = 1;
    let e = catch(|| up_to_inv(&mut k, 3)).unwrap_err();
    assert!(
        e.detail.contains("`k >= n` is false at loop entry"),
        "{}",
        e.detail
    );
    assert!(
        e.detail
            .ends_with("; values: k = 1, n = 3 (while running the inverse `up_to_inv`)"),
        "{}",
        e.detail
    );
}

/// `same_len!` in a user's `#[i]` function: a typed error naming the user's statement and
/// every length, raised before anything is modified, in both directions.
#[nilang::i]
fn dot_checked(out: &mut f64, x: &mut [f64], y: &mut [f64]) {
    safe! { nilang::same_len!(x, y); }
    for i in 0..x.len() {
        out += x[i] * y[i];
    }
    safe! { nilang::same_len!(x, y); }
}

#[test]
fn mismatched_slice_lengths_are_a_typed_error() {
    use nilang::check::{catch, ErrorKind};
    let (mut out, mut x, mut y) = (1.0, vec![1.0, 2.0], vec![3.0, 4.0, 5.0]);
    let e = catch(|| dot_checked(&mut out, &mut x, &mut y)).unwrap_err();
    assert_eq!(e.kind, ErrorKind::Length);
    assert_eq!(e.statement, "same_len!(x, y)");
    assert_eq!(e.detail, "lengths differ: x.len() = 2, y.len() = 3");
    assert!(
        e.location.contains("runtime_messages.rs:"),
        "{}",
        e.location
    );
    let e = catch(|| dot_checked_inv(&mut out, &mut x, &mut y)).unwrap_err();
    assert_eq!(e.kind, ErrorKind::Length);
    assert_eq!(out, 1.0);
    y.pop();
    dot_checked(&mut out, &mut x, &mut y);
    assert_eq!(out, 12.0);
}

/// `#[i(zero(w))]`: with checks on, the workspace is checked zero on entry (the caller's
/// contract) and on exit (the function's), in both directions; `nocheck` trusts it.
#[test]
fn zero_workspaces_are_checked_on_entry_and_exit() {
    #[i(zero(w))]
    fn doubled_sum(out: &mut f64, w: &mut [f64], x: &[f64]) {
        routine! {
            for k in 0..x.len() {
                w[k] += x[k] * 2.0;
            }
        }
        for k in 0..x.len() {
            out += w[k];
        }
        unroutine!();
    }
    // leaves its workspace written: breaks the contract on exit
    #[i(zero(w))]
    fn leaky(out: &mut f64, w: &mut [f64], x: &[f64]) {
        w[0] += x[0];
        out += w[0];
    }
    #[i(nocheck, zero(w))]
    fn leaky_unchecked(out: &mut f64, w: &mut [f64], x: &[f64]) {
        w[0] += x[0];
        out += w[0];
    }
    let x = [1.5, -4.0];
    let (mut out, mut w) = (0.25, [0.0; 2]);
    doubled_sum(&mut out, &mut w, &x);
    assert_eq!((out, w), (0.25 - 5.0, [0.0; 2]));
    doubled_sum_inv(&mut out, &mut w, &x);
    assert_eq!((out, w), (0.25, [0.0; 2]));

    let mut w = [0.0, 7.0];
    let e = catch(|| doubled_sum(&mut out, &mut w, &x)).unwrap_err();
    assert_eq!(e.kind, ErrorKind::Argument);
    assert_eq!(e.statement, "#[i(zero(..))]");
    assert!(
        e.detail
            .starts_with("`w` is not zero on entry: [0.0, 7.0] (a `zero(..)` workspace"),
        "{}",
        e.detail
    );
    assert!(e.location.contains("runtime_messages.rs"), "{}", e.location);
    assert_eq!((out, w), (0.25, [0.0, 7.0]), "nothing ran");
    let e = catch(|| doubled_sum_inv(&mut out, &mut w, &x)).unwrap_err();
    assert!(
        e.detail
            .ends_with("(while running the inverse `doubled_sum_inv`)"),
        "{}",
        e.detail
    );

    let mut w = [0.0; 2];
    let e = catch(|| leaky(&mut out, &mut w, &x)).unwrap_err();
    assert_eq!(e.kind, ErrorKind::Deallocation);
    assert!(
        e.detail.starts_with("`w` is not zero on exit: [1.5, 0.0]"),
        "{}",
        e.detail
    );
    let (mut out, mut w) = (0.0, [0.0; 2]);
    leaky_unchecked(&mut out, &mut w, &x);
    assert_eq!((out, w), (1.5, [1.5, 0.0]));
}

/// Issue 27: a non-zero `zero(..)` workspace is reported at the caller's line (directly and
/// from an `#[i]` caller), not at the callee's attribute.
#[test]
fn a_non_zero_workspace_is_reported_at_the_callers_line() {
    #[i(zero(w))]
    fn scaled(out: &mut f64, w: &mut [f64], x: &[f64]) {
        routine! {
            w[0] += x[0] * 2.0;
        }
        out += w[0];
        unroutine!();
    }
    #[i]
    fn calls_scaled(out: &mut f64, w: &mut [f64], x: &[f64]) {
        scaled(out, w, x);
    }
    let here = line!() + 1;
    let e = catch(|| scaled(&mut 0.0, &mut [1.0], &[1.0])).unwrap_err();
    assert_eq!(e.kind, ErrorKind::Argument);
    assert!(e.location.contains("runtime_messages.rs"), "{}", e.location);
    assert!(e.location.contains(&format!(":{here}:")), "{}", e.location);
    let e = catch(|| scaled_inv(&mut 0.0, &mut [1.0], &[1.0])).unwrap_err();
    assert!(
        e.location.contains(&format!(":{}:", here + 4)),
        "{}",
        e.location
    );
    // through an `#[i]` caller: the caller's statement
    let e = catch(|| calls_scaled(&mut 0.0, &mut [1.0], &[1.0])).unwrap_err();
    let call_line = here - 3;
    assert!(
        e.location.contains(&format!(":{call_line}:")),
        "{}",
        e.location
    );
}
