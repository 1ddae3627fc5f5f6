//! Fibonacci numbers, reversibly (the earlier paper's Appendix F, NiLang's `examples/fib.jl`).
//!
//! [`rfib`] computes `out += fib(n)` by tree recursion, with `n − 1`, `n − 2` in ancillas that a
//! `routine!` computes and `unroutine!()` uncomputes. [`rfibn`] finds the first `n` with
//! `fib(n) ≥ z` with a reversible `while`: `#[from(n == 0)] while out < z` — the
//! post-condition `n != 0` is false on entry and true after every iteration, so the inverse
//! loop runs backwards until `n == 0` without recording how many iterations ran.
//! (Integer programs: not differentiable, and not meant to be.)
use nilang::prelude::*;

/// `out += fib(n)` with `fib(1) = fib(2) = 1` (and `fib(n) = 1` for `n ≤ 2`).
#[i]
pub fn rfib(out: &mut i64, n: i64) {
    let n1 = 0_i64;
    let n2 = 0_i64;
    routine! {
        n1 += n;
        n1 -= 1;
        n2 += n;
        n2 -= 2;
    }
    if (n <= 2, _) {
        out += 1;
    } else {
        rfib(out, n1);
        rfib(out, n2);
    }
    unroutine!();
    dealloc!(n2 = 0);
    dealloc!(n1 = 0);
}

/// `n ← the first n with fib(n) ≥ z` (`n` must be zero on entry).
#[i]
pub fn rfibn(n: &mut i64, z: i64) {
    safe! {
        assert_eq!(*n, 0, "rfibn: n must be zero on entry");
    }
    let out = 0_i64;
    rfib(&mut out, *n);
    #[from(n == 0)]
    while out < z {
        inv! {
            rfib(&mut out, *n);
        }
        INC(n);
        rfib(&mut out, *n);
    }
    inv! {
        rfib(&mut out, *n);
    }
    dealloc!(out = 0);
}
