//! Unit tests of the pipeline, one per fixed bug or construct.
use crate::compile_fn;

/// The expansion of `#[i(check)] <src>` as a string: the checked program alone (what a
/// default `#[i]` runs under `debug_assertions`).
fn expand(src: &str) -> String {
    let item: proc_macro2::TokenStream = src.parse().expect("test source tokenizes");
    compile_fn(quote::quote!(check), item).to_string()
}

/// The expansion of a default `#[i] <src>`: the checked and the unchecked program, picked by
/// the user's profile.
fn expand_default(src: &str) -> String {
    let item: proc_macro2::TokenStream = src.parse().expect("test source tokenizes");
    compile_fn(quote::quote!(), item).to_string()
}

/// The expansion of `#[i(nocheck)]` on a function.
fn expand_nocheck(src: &str) -> String {
    let item: proc_macro2::TokenStream = src.parse().expect("test source tokenizes");
    compile_fn(quote::quote!(nocheck), item).to_string()
}

/// The `compile_error!` messages of an expansion (empty when it compiled).
fn errors(src: &str) -> Vec<String> {
    let out = expand_default(src);
    out.split("compile_error !")
        .skip(1)
        .map(|s| s.split('"').nth(1).unwrap_or_default().to_string())
        .collect()
}

#[test]
fn dealloc_parses_its_assignment() {
    // `dealloc!(x = v)` used to be parsed as an expression `x = v` followed by a missing `=`
    let src = "fn f(y: &mut f64) { let t = 0.0; t += y; t -= y; dealloc!(t = 0.0); }";
    assert_eq!(errors(src), Vec::<String>::new());
    assert!(expand(src).contains("nilang_dealloc"));
    let e = errors("fn f() { let t = 0.0; dealloc!(t); }");
    assert!(
        e.iter().any(|m| m.contains("dealloc!(name = value)")),
        "{e:?}"
    );
}

#[test]
fn tuple_target_negation_view_is_written_back_negated() {
    let out = expand("fn f(x: &mut f64, y: &mut f64, t: &f64) { (-x, y) += sincos(t); }");
    // read negated and written back negated (in the forward, the inverse and the value-only
    // variant)
    assert_eq!(out.matches(":: nilang :: NEG").count(), 6, "{out}");
}

#[test]
fn slice_loop_index_names_agree() {
    let out = expand("fn f(v: &mut Vec<i64>) { for x in v { x += 2; } }");
    assert!(!out.contains("__nilang_i]"), "{out}");
    assert!(out.contains("__nilang_i_x"), "{out}");
}

#[test]
fn reversed_stepped_range_starts_from_its_last_element() {
    let out = expand("fn f(s: &mut i64, n: i64) { for i in (0..n).step_by(3) { s += i; } }");
    assert!(out.contains("Iterator :: last"), "{out}");
}

#[test]
fn explicit_mut_borrow_of_a_local_is_in_out() {
    let out = expand(
        "fn f(x: &mut i64) { let a = 0_i64; SWAP(&mut a, x); SWAP(&mut a, x); dealloc!(a = 0); }",
    );
    assert!(out.contains("SWAP (& mut a , & mut (* x))"), "{out}");
    // a bare local name is passed as written
    let out = expand("fn f(x: &mut i64, n: i64) { let m = n; g(x, m); dealloc!(m = n); }");
    assert!(out.contains("g (& mut (* x) , m)"), "{out}");
}

#[test]
fn user_deref_of_a_reference_parameter_is_kept() {
    let out = expand("fn f(out: &mut i64, n: &mut i64) { g(out, *n); if *n > 0 { INC(out); } }");
    assert!(out.contains("g (& mut (* out) , * n)"), "{out}");
    assert!(!out.contains("* (* n)"), "{out}");
}

#[test]
fn dealloc_value_is_parenthesised() {
    // `&#v` with `v = n - 2` read as `&n - 2`
    let out = expand("fn f(n: i64) { let m = n - 2; dealloc!(m = n - 2); }");
    assert!(out.contains("& (n - 2)"), "{out}");
}

#[test]
fn index_expressions_are_evaluated_before_the_borrow() {
    let out = expand("fn f(t: &mut i64, v: &mut Vec<i64>) { t -= v[v.len() - 1]; let a = 0_i64; pop!(v, a); push!(v, a); dealloc!(a = 0); SWAP(&mut v[v.len() - 1], t); }");
    assert!(out.contains("let __nilang_ix"), "{out}");
    assert!(!out.contains("& mut (* v) [(* v) . len () - 1]"), "{out}");
}

#[test]
fn static_error_messages() {
    let e = errors("fn f(t: &mut (f64, f64)) { SWAP(t, &mut t.0); }");
    assert!(
        e.iter()
            .any(|m| m.contains("overlap") && m.contains("ancilla")),
        "{e:?}"
    );
    let e = errors("fn f(x: &mut f64, y: &mut f64) { let z = y; x += z; dealloc!(z = y); }");
    assert_eq!(e.len(), 2, "{e:?}");
    assert!(e[0].contains("a += y"), "{e:?}");
    // several errors at once
    let e = errors(
        "fn f(y: &mut f64, x: &f64) { y += y * x; x += 1.0; let t = 0.0; y = 2.0; return; }",
    );
    assert_eq!(e.len(), 5, "{e:?}");
}

#[test]
fn read_arguments_of_an_in_out_root_are_copied_and_checked() {
    let out = expand("fn f(s: &mut [i64; 4], a: usize, b: usize) { g(&mut s[a], &s[b]); }");
    assert!(out.contains("let __nilang_r"), "{out}");
    assert!(out.contains(":: nilang :: check :: distinct"), "{out}");
    // the same element in-out and read: a static error
    let e = errors("fn f(s: &mut [i64; 4], a: usize) { g(&mut s[a], &s[a]); }");
    assert!(e.iter().any(|m| m.contains("appears twice")), "{e:?}");
}

#[test]
fn routines_into_fresh_ancillas_recompute_value_only() {
    // the inverse recomputes the routine before undoing the copy: its writes go to a fresh
    // ancilla, so it is emitted with value-only instructions, and the callee's value-only
    // variant is called under the callee's `WRITES` analysis
    let src = "fn f<T: Scalar>(y: &mut T, x: &mut T) {
        routine! { let t = T::default(); t += exp(x); g(&mut t, x); }
        y += t;
        unroutine!();
    }";
    let out = expand(src);
    assert_eq!(errors(src), Vec::<String>::new());
    assert!(out.contains("plus_eq_primal"), "{out}");
    // with the function value tagged with the caller's instruction-set level
    assert!(
        out.contains(
            "g__is_called_from_i_code__declare_it_with_i_or_nilang_additive :: __primal \
             (:: nilang :: simd :: Level :: < __NILANG_ISA , _ > (g) ,"
        ),
        "{out}"
    );
    assert!(
        out.contains(
            "g__is_called_from_i_code__declare_it_with_i_or_nilang_additive :: WRITES } & 2u64"
        ),
        "{out}"
    );
    // the analysis: `y` and `x`... `x` only through `g`
    assert!(out.contains("pub const WRITES : u64"), "{out}");
    // a routine writing a parameter is emitted as it is
    let src = "fn h(y: &mut f64, x: &mut f64) { routine! { x += 1.0; } y += x; unroutine!(); }";
    let out = expand(src);
    let inv = out
        .split("fn h_inv")
        .nth(1)
        .and_then(|s| s.split("enum h").next())
        .unwrap_or_default();
    assert!(inv.contains("minus_eq"), "{out}");
    assert!(!inv.contains("plus_eq_primal"), "{out}");
}

#[test]
fn zero_workspace_parameters_recompute_value_only() {
    // `w` declared `zero(w)`: zero on entry, so the inverse's recomputation of the routine
    // (which writes only `w`) is value-only; without the declaration it moves adjoints
    let src = "fn f<T: Scalar>(y: &mut T, w: &mut [T], x: &mut T) {
        routine! { w[0] += exp(x); }
        y += w[0];
        unroutine!();
    }";
    let inverse = |attr: proc_macro2::TokenStream| {
        let out = compile_fn(attr, src.parse().expect("test source tokenizes")).to_string();
        assert!(!out.contains("compile_error"), "{out}");
        out.split("fn f_inv")
            .nth(1)
            .and_then(|s| s.split("enum f").next())
            .unwrap_or_default()
            .to_string()
    };
    assert!(inverse(quote::quote!(zero(w))).contains("plus_eq_primal"));
    assert!(!inverse(quote::quote!()).contains("plus_eq_primal"));
    // only `&mut` parameters are workspaces
    let out = compile_fn(
        quote::quote!(zero(x)),
        "fn g(y: &mut f64, x: &f64) { y += x; }".parse().unwrap(),
    )
    .to_string();
    assert!(
        out.contains("`zero(x)`: not a `&mut` parameter of this function"),
        "{out}"
    );
}

#[test]
fn loop_accumulation_into_a_fixed_place_kept_in_a_local() {
    // `s[e]` does not move in the inner loop: read into a local before it, written back after
    let out = expand(
        "fn f(s: &mut [f64], x: &mut [f64], k: usize) {
            for e in 0..s.len() { for c in 0..k { s[e] += x[e * k + c]; } }
        }",
    );
    assert!(out.contains("let mut __nilang_acc"), "{out}");
    assert!(out.contains(". is_empty ()"), "{out}");
    // in a body of several instructions: `s` is fixed and mentioned by no other statement
    let out = expand(
        "fn f(s: &mut f64, t: &mut [f64], x: &mut [f64], k: usize) {
            for c in 0..k { t[c] += x[c]; s += exp(t[c]); }
        }",
    );
    // (in `f`, `f_inv` and the value-only variant `f::__primal`)
    assert_eq!(out.matches("let mut __nilang_acc").count(), 3, "{out}");
    // a target that moves with the loop, whose root is also an operand or is mentioned by
    // another statement, stays in place
    for src in [
        "fn f(s: &mut [f64], x: &mut [f64], k: usize) { for c in 0..k { s[c] += x[c]; } }",
        "fn f(s: &mut [f64], k: usize) { for c in 1..k { s[0] += s[c]; } }",
        "fn f(s: &mut [f64], x: &mut [usize], k: usize) { for c in 0..k { s[x[0]] += x[c]; } }",
        "fn f(s: &mut f64, t: &mut [f64], k: usize) { for c in 0..k { s += 1.0; t[c] += s; } }",
    ] {
        assert!(!expand(src).contains("__nilang_acc"), "{src}");
    }
}

/// `out` writes a promoted local `__nilang_acc..` back to an element of slice parameter
/// `root` after its loop (`Places::set(&mut *root, i, __nilang_acc..)`).
fn acc_written_back(out: &str, root: &str) -> bool {
    let pat = format!("Places :: set (& mut * {root} , ");
    out.match_indices(&pat).any(|(k, _)| {
        let args = &out[k + pat.len()..];
        args[..args.find(')').unwrap_or(args.len())].contains(", __nilang_acc")
    })
}

#[test]
fn loop_arguments_at_a_fixed_place_kept_in_locals() {
    // `x[2 * j]` and `x[2 * j + 1]` are read at a fixed place by every iteration of the inner
    // loop (on gradient numbers, their adjoints accumulate there): read into locals before
    // it, written back after it, in `f`, `f_inv` and the value-only `f::__primal`
    let out = expand(
        "fn f(y: &mut [f64], a: &mut [f64], x: &mut [f64], r: &[usize], n: usize) {
            for j in 0..n { for p in 0..n {
                y[r[p]] += a[2 * p] * x[2 * j];
                y[r[p]] += a[2 * p + 1] * x[2 * j + 1];
                y[r[p] + 1] -= a[2 * p] * x[2 * j + 1];
            } }
        }",
    );
    assert_eq!(out.matches("let mut __nilang_acc").count(), 6, "{out}");
    assert!(acc_written_back(&out, "x"), "{out}");
    // places that may be the same element (`x[i]`, `x[k]`), a root that is also a target, an
    // argument that moves with the loop, a root named in an index, a read-only root, a local
    // ancilla: read in place
    for src in [
        "fn f(y: &mut [f64], x: &mut [f64], i: usize, k: usize) { for c in 0..y.len() { y[c] += x[i]; y[c] += x[k]; } }",
        "fn f(y: &mut [f64], x: &mut [f64], i: usize) { for c in 0..y.len() { y[c] += x[i]; x[c] += y[i]; } }",
        "fn f(y: &mut [f64], x: &mut [f64]) { for c in 0..y.len() { y[c] += x[c]; } }",
        "fn f(y: &mut [f64], x: &mut [f64], i: usize) { for c in 0..y.len() { y[c] += x[i]; y[x.len() - 1 - c] += x[i]; } }",
        "fn f(y: &mut [f64], x: &[f64], i: usize) { for c in 0..y.len() { y[c] += x[i]; } }",
        "fn f(y: &mut [f64], z: &mut f64) { let t = 0.0; t += z; for c in 0..y.len() { y[c] += t; } t -= z; dealloc!(t = 0.0); }",
    ] {
        assert!(!expand(src).contains("__nilang_acc"), "{src}");
    }
}

#[test]
fn loop_arguments_kept_apart_from_places_that_move_are_kept_in_locals() {
    // a body with ancillas and a routine; `x[3 * i + c]` is fixed and `x[3 * j + d]` moves,
    // never the same element for `j` in `i + 1..` (or below `i`): the fixed ones in locals
    for src in [
        "fn f(e: &mut f64, x: &mut [f64], i: usize) { for j in i + 1..x.len() / 3 {
            routine! { let (d, r) = (f64::default(), f64::default());
                d += x[3 * i + 2] - x[3 * j]; r += x[3 * i] * x[3 * j + 2]; }
            e += d * r; unroutine!(); } }",
        "fn f(e: &mut f64, x: &mut [f64], i: usize) { for j in 0..i { e += x[i] * x[j]; } }",
        "fn f(e: &mut f64, x: &mut [f64], i: usize) { for j in (i + 2..x.len()).rev() { e += x[2 * (i + 1)] * x[2 * j]; } }",
    ] {
        let out = expand(src);
        assert!(acc_written_back(&out, "x"), "{src}\n{out}");
    }
    // ranges that let the moving place reach a fixed one: read in place
    for src in [
        "fn f(e: &mut f64, x: &mut [f64], i: usize) { for j in i..x.len() { e += x[i] * x[j]; } }",
        "fn f(e: &mut f64, x: &mut [f64], i: usize) { for j in 0..=i { e += x[i] * x[j]; } }",
        "fn f(e: &mut f64, x: &mut [f64], i: usize) { for j in i + 1..x.len() / 3 { e += x[3 * i + 2] * x[3 * j - 1]; } }",
        "fn f(e: &mut f64, x: &mut [f64], i: usize) { for j in i + 1..x.len() / 3 { e += x[3 * i] * x[2 * j]; } }",
        "fn f(e: &mut f64, x: &mut [f64], i: usize, k: usize) { for j in k + 1..x.len() { e += x[i] * x[j]; } }",
    ] {
        assert!(!acc_written_back(&expand(src), "x"), "{src}");
    }
}

#[test]
fn nested_slice_loops_substitute_the_inner_slice() {
    // the inner loop iterates over the element of the outer one: `m[i_row]`, not `row`
    let out = expand("fn f(m: &mut Vec<Vec<i64>>) { for row in m { for x in row { x += 1; } } }");
    assert!(out.contains("(* m) [__nilang_i_row] . len ()"), "{out}");
    assert!(
        out.contains("(* m) [__nilang_i_row] [__nilang_i_x]"),
        "{out}"
    );
}

#[test]
fn uncomputation_on_fresh_workspaces_is_adjoint_only() {
    // the inverse recomputes the routine (value-only) and uncomputes it: its writes go to the
    // `fresh!` workspaces, so the uncomputation skips their value updates, calls the callee's
    // adjoint-only variant and then zeroes their values
    let src = "fn f<T: Scalar>(out: &mut T, x: &mut [T], ws: &mut [T], y: &mut [T]) {
        for b in 0..x.len() {
            routine! { ws[0] += abs2(x[b]); g(y, x); }
            out += ws[0] * y[0];
            unroutine!();
            fresh!(ws, y);
        }
    }";
    assert_eq!(errors(src), Vec::<String>::new());
    let out = expand_nocheck(src);
    let inv = out
        .split("fn f_inv")
        .nth(1)
        .and_then(|s| s.split("enum f").next())
        .unwrap_or_default();
    assert!(inv.contains("minus_eq_adjoint"), "{inv}");
    assert!(
        inv.contains(
            "g_inv__is_called_from_i_code__declare_it_with_i_or_nilang_additive :: __adj (:: nilang :: simd :: Level :: < __NILANG_ISA , _ > (g_inv)"
        ),
        "{inv}"
    );
    assert!(inv.contains("Fresh :: zero_values (& mut (* ws))"), "{inv}");
    assert!(inv.contains("Fresh :: zero_values (& mut (* y))"), "{inv}");
    // only on numbers whose adjoint-only instructions skip values (a constant of the type);
    // otherwise the ordinary uncomputation
    assert!(
        inv.contains("&& (false || :: nilang :: instr :: fresh :: values_skipped (& (* ws)) || :: nilang :: instr :: fresh :: values_skipped (& (* y)))"),
        "{inv}"
    );
    // the next iteration starts with `fresh!(ws, y)`: the values are reset after the last one
    assert!(inv.contains("if b == __nilang_s"), "{inv}");
    // with checks on, the uncomputation computes the values (the checks read them)
    let out = expand(src);
    let inv = out
        .split("fn f_inv")
        .nth(1)
        .and_then(|s| s.split("enum f").next())
        .unwrap_or_default();
    assert!(!inv.contains("_adjoint"), "{inv}");
    assert!(!inv.contains("zero_values"), "{inv}");
}

#[test]
fn adjoint_only_variants_skip_only_values_never_read() {
    // `f_inv::__adj`: `y[j]` is never read (a target only): dead where its bit is set
    let out = expand_nocheck(
        "fn f<T: Scalar>(y: &mut [T], l: &mut [T], v: &mut T) {
            for j in 0..y.len() { y[j] += l[j] * v; }
        }",
    );
    assert!(out.contains("minus_eq_adjoint"), "{out}");
    assert!(out.contains("(__nilang_dead >> 0u32) & 1 == 0"), "{out}");
    assert!(out.contains("pub const READS : u64 = 0u64 | (((false) as u64) << 0u32) | (1u64 << 1u32) | (1u64 << 2u32)"), "{out}");
    // read later in the uncomputation: `a` is read by `b -= a * c` after `a -= y` runs
    let out = expand_nocheck(
        "fn f<T: Scalar>(a: &mut T, b: &mut T, c: &mut T, x: &mut T, y: &mut T) {
            a += x; b += a * c; a += y;
        }",
    );
    let adj_inv = out.split("impl f_inv").nth(1).unwrap_or_default();
    // `b -= a*c` and `a -= x` may skip (nothing reads `b` or `a` after them), `a -= y` not
    assert_eq!(adj_inv.matches("minus_eq_adjoint").count(), 2, "{adj_inv}");
    assert!(
        !adj_inv.contains("Identity , _ >> :: minus_eq_adjoint (& mut (* a) , & mut (* y))"),
        "{adj_inv}"
    );
    // a loop that reads an earlier element (not loop-private): no skipping of `t`
    let out = expand_nocheck(
        "fn f<T: Scalar>(t: &mut [T], x: &mut [T]) {
            for i in 1..t.len() { t[i] += t[i - 1] * x[i]; }
        }",
    );
    assert!(!out.contains("_adjoint"), "{out}");
    // loop-private ranges and elements: skipped
    let out = expand_nocheck(
        "fn f<T: Scalar>(s: &mut [T], t: &mut [T], x: &mut [T], d: usize) {
            for i in 0..s.len() { g(&mut t[i * d..(i + 1) * d], x); s[i] += abs2(x[i]); }
        }",
    );
    let adj_inv = out.split("impl f_inv").nth(1).unwrap_or_default();
    assert!(
        adj_inv.contains(
            "g_inv__is_called_from_i_code__declare_it_with_i_or_nilang_additive :: __adj"
        ),
        "{adj_inv}"
    );
    assert!(adj_inv.contains("minus_eq_adjoint"), "{adj_inv}");
    // ... but not a range whose end is not the next start
    let out = expand_nocheck(
        "fn f<T: Scalar>(t: &mut [T], x: &mut [T], d: usize) {
            for i in 0..x.len() { g(&mut t[i * d..(i + 2) * d], x); }
        }",
    );
    let adj_inv = out.split("impl f_inv").nth(1).unwrap_or_default();
    // (then `t` is dead only if the callee does not read it: its `READS`)
    assert!(
        adj_inv.contains(
            "g_inv__is_called_from_i_code__declare_it_with_i_or_nilang_additive :: READS } >> 0u32"
        ),
        "{adj_inv}"
    );
}

/// The expansion with every read-only probe (`{ use ...read_only...; (&Probe(&x)).
/// nilang_read_only(..); }`) removed: what `g(y, &z)` compiled to before the probe existed.
fn without_read_only_probes(out: &str) -> String {
    let mut s = out.to_string();
    while let Some(k) = s.find("{ # [allow (unused_imports)] use :: nilang :: ad :: read_only") {
        let end = s[k..].find("; }").expect("probe block ends") + k + 3;
        s.replace_range(k..end, "");
    }
    s.split_whitespace().collect::<Vec<_>>().join(" ")
}

#[test]
fn a_writable_variable_passed_read_only_is_probed_and_cst_declares_a_constant() {
    let probed = expand("fn f<T: Scalar>(y: &mut T, z: &mut T) { g(y, &z); }");
    // forward, inverse and value-only variants probe `z`
    assert_eq!(probed.matches("nilang_read_only").count(), 3, "{probed}");
    assert!(probed.contains("\"z\""), "{probed}");
    let declared = expand("fn f<T: Scalar>(y: &mut T, z: &mut T) { g(y, cst!(&z)); }");
    assert!(!declared.contains("read_only"), "{declared}");
    // the declared constant is the code of `&z` without the probe: the code of today
    assert_eq!(
        without_read_only_probes(&probed),
        without_read_only_probes(&declared)
    );
    // read-only parameters, by-value numbers and loop variables are not probed
    for src in [
        "fn f<T: Scalar>(y: &mut T, z: &T) { g(y, &z); }",
        "fn f<T: Scalar>(y: &mut T, z: T) { g(y, &z); }",
        "fn f<T: Scalar>(y: &mut T, z: &[T]) { for k in 0..z.len() { g(y, &k); } }",
    ] {
        assert!(!expand(src).contains("read_only"), "{src}");
    }
    // an ancilla is
    let anc = expand("fn f<T: Scalar>(y: &mut T) { let t = T::default(); g(y, &t); dealloc!(t = T::default()); }");
    assert!(anc.contains("nilang_read_only"), "{anc}");
}

#[test]
fn calling_a_generated_inverse_by_name_says_how_to_uncall() {
    let e = errors("fn f(y: &mut f64, x: &mut f64) { g_inv(y, x); }");
    assert_eq!(e.len(), 1, "{e:?}");
    assert!(
        e[0].contains("`g_inv` is the generated inverse of `g`")
            && e[0].contains("write `inv! { g(y, x); }`"),
        "{e:?}"
    );
}

#[test]
fn two_hundred_parameters_need_no_tuple_trait() {
    let params: Vec<String> = (0..199).map(|k| format!("x{k}: &mut f64")).collect();
    let body: Vec<String> = (0..199).map(|k| format!("out += x{k};")).collect();
    let src = format!(
        "fn many(out: &mut f64, {}) {{ {} }}",
        params.join(", "),
        body.join(" ")
    );
    let out = expand(&src);
    assert!(errors(&src).is_empty());
    // no `CallTuple` bound (implemented up to 32 arguments) on the long parameter list
    assert!(!out.contains("CallTuple < ("), "{out}");
    // and masks past the 64th parameter are not shifted out of a `u64`
    assert!(
        !out.contains("<< 64u32") && !out.contains("<< 199u32"),
        "{out}"
    );
}

#[test]
fn default_checks_follow_the_users_profile() {
    let src = "fn f<T: Scalar>(y: &mut T, x: &mut [T]) {
        for i in 0..x.len() { let t = T::default(); t += x[i]; y += t * x[i]; t -= x[i]; dealloc!(t = T::default()); }
    }";
    let on = ":: core :: cfg ! (debug_assertions) || :: nilang :: check :: RELEASE_CHECKS";
    let bodies = |out: &str, which: &str| -> Vec<String> {
        // the functions `f`, `f_inv` and `f::__primal` of one expansion
        out.split(which)
            .skip(1)
            .map(|s| s.split(" fn ").next().unwrap_or_default().to_string())
            .collect()
    };
    // the default: each body picks the checked program where the user's crate has debug
    // assertions (or `nilang` has `release-checks`), the unchecked one otherwise
    // (`f`, `f_inv`, `f::__primal`, and the adjoint-only variants `__adj`, which are the
    // functions themselves where checks are on)
    let default = expand_default(src);
    // (each in the default build's body and in its copy for levels 1 and 2, `crate::lanes`)
    assert_eq!(default.matches(on).count(), 5 * 2, "{default}");
    let call = ":: nilang :: CallTuple :: call_tuple (__nilang_f , (y , x ,))";
    assert_eq!(
        default.matches(&format!("{on}) {{ {call} }} else")).count(),
        2 * 2,
        "{default}"
    );
    for body in bodies(&default, on).into_iter().take(3) {
        let (checked, unchecked) = body.split_once("} else {").expect("two programs");
        assert!(checked.contains("dealloc"), "{checked}");
        assert!(!unchecked.contains("dealloc"), "{unchecked}");
        assert!(!unchecked.contains("nilang_track"), "{unchecked}");
    }
    // `check`: the checked program in every profile; `nocheck`: the unchecked one
    let checked = expand(src);
    assert!(!checked.contains(on), "{checked}");
    assert!(checked.contains("dealloc"), "{checked}");
    let unchecked = expand_nocheck(src);
    assert!(!unchecked.contains(on), "{unchecked}");
    assert!(!unchecked.contains("dealloc"), "{unchecked}");
}

#[test]
fn nocheck_on_an_instruction_statement_reaches_the_statement() {
    // syn attaches `#[nocheck]` of `#[nocheck] t += x * x;` to `t`: the parser moves it back,
    // inside a routine too, and the statement is emitted as in an `#[i(nocheck)]` function
    // (the check of `y[i] += y[j]`: `i != j` at run time)
    for body in [
        "#[nocheck] y[i] += y[j] * x;",
        "routine! { #[nocheck] y[i] += y[j] * x; } z += y[i]; unroutine!();",
    ] {
        let src =
            format!("fn f(y: &mut [f64], z: &mut f64, x: f64, i: usize, j: usize) {{ {body} }}");
        assert_eq!(errors(&src), Vec::<String>::new(), "{body}");
        let checked = expand(&src.replace("#[nocheck] ", ""));
        let attr = expand(&src);
        assert!(attr.len() < checked.len(), "{body}");
        // the statement's text in messages is the statement, without the attribute
        assert!(!attr.contains("#[nocheck]"), "{body}");
    }
}

#[test]
fn value_only_variant_takes_its_parameters_as_parameters() {
    // `f::__primal` receives the arguments as one tuple; its body is a function of its own
    // with the declared parameters (their `&mut` stay `noalias`: the optimiser may vectorise
    // as in `f`), called with the tuple's fields and the generic arguments named, the
    // function value's type among them (each caller's level tag, an instance of its own)
    let out = expand_nocheck(
        "fn f<T: Scalar, const N: i32>(y: &mut [T], l: &mut [T]) {
            for j in 0..y.len() { y[j] += l[j]; }
        }",
    );
    let primal = out
        .split("fn __primal")
        .nth(1)
        .and_then(|s| s.split("fn __adj").next())
        .unwrap_or_default();
    assert!(
        primal.contains(
            "fn __nilang_body < '__nilang_l0 , '__nilang_l1 , T : Scalar , const N : i32 , __NilangF > \
             (y : & '__nilang_l0 mut [T] , l : & '__nilang_l1 mut [T]) \
             where __NilangF : :: nilang :: CallTuple < (& '__nilang_l0 mut [T] , & '__nilang_l1 mut [T] ,) >"
        ),
        "{primal}"
    );
    assert!(
        primal.contains("__nilang_body :: < T , N , __NilangF > ("),
        "{primal}"
    );
    // it runs the level its caller tagged it with: that level's copy alone where the tag is
    // a level, else the active level's
    assert!(
        primal.contains(
            "2 => :: nilang :: simd :: __at_level (2 , (y , l ,) , __nilang_lanes_wide :: < T , N , __NilangF , 2 >) ,"
        ),
        "{primal}"
    );
    assert!(
        primal.contains(
            ":: nilang :: simd :: __wide (< __NilangF as :: nilang :: CallTuple < (& '__nilang_l0 mut [T] , & '__nilang_l1 mut [T] ,) >> :: LEVEL ,"
        ),
        "{primal}"
    );
    assert!(primal.contains("plus_eq_primal"), "{primal}");
}

#[test]
fn adjoint_only_variant_takes_its_parameters_as_parameters() {
    // `f::__adj` (and `f_inv::__adj`) receive the arguments as one tuple; a body that reads
    // the dead mask is a function of its own with the declared parameters (as `__primal`:
    // their `&mut` stay `noalias`), called with the function, the mask and the tuple's fields
    let out = expand_nocheck(
        "fn f<T: Scalar, const N: i32>(y: &mut [T], a: &View<'_>, x: &mut [T]) {
            for j in 0..a.n {
                for p in a.ptr[j]..a.ptr[j + 1] { y[a.ix[p]] += x[p] * x[j]; }
            }
        }",
    );
    let with_mask: Vec<&str> = out
        .split("fn __adj")
        .skip(1)
        .map(|adj| adj.split("# [doc").next().unwrap_or_default())
        .filter(|adj| adj.contains("__nilang_dead"))
        .collect();
    // the function's and its inverse's (`y`'s value is read by nothing in the program)
    assert_eq!(with_mask.len(), 2, "{out}");
    for adj in with_mask {
        assert!(
            adj.contains("fn __nilang_body < '__nilang_l0 , '__nilang_l1 , '__nilang_l2 , '__nilang_l3 , T : Scalar , const N : i32 , __NilangF > (__nilang_f : __NilangF , __nilang_dead : u64 , y : & '__nilang_l0 mut [T] , a : & '__nilang_l1 View < '__nilang_l2 > , x : & '__nilang_l3 mut [T])"),
            "{adj}"
        );
        assert!(
            adj.contains("__nilang_body :: < T , N , __NilangF > (__nilang_f , __nilang_dead ,"),
            "{adj}"
        );
    }
}

#[test]
fn a_routine_of_library_calls_on_zero_workspaces_uncomputes_them_adjoint_only() {
    // the dense layer and map of a network on `zero(..)` workspaces: each call's target is
    // dead after its uncomputation (the next one reads only the one before), so the variants
    // `__adj` are told so by bit 0, and the workspaces are zeroed afterwards
    let src = "fn f<T: Scalar>(loss: &mut T, w: &mut [T], z: &mut [T], h: &mut [T], x: &[f64], n: usize) {
        routine! {
            i_dense_data(z, x, w, n, 2, 3);
            i_map(h, Tanh, z);
        }
        for b in 0..h.len() {
            loss += h[b];
        }
        unroutine!();
    }";
    let item: proc_macro2::TokenStream = src.parse().expect("test source tokenizes");
    let out = compile_fn(quote::quote!(nocheck, zero(z, h)), item).to_string();
    assert!(!out.contains("compile_error"), "{out}");
    let inv = out
        .split("fn f_inv")
        .nth(1)
        .and_then(|s| s.split("enum f").next())
        .unwrap_or_default();
    assert!(inv.contains("i_map_inv"), "{inv}");
    assert!(
        inv.contains(":: __adj (:: nilang :: simd :: Level :: < __NILANG_ISA , _ > (i_map_inv)"),
        "{inv}"
    );
    assert!(
        inv.contains(
            ":: __adj (:: nilang :: simd :: Level :: < __NILANG_ISA , _ > (i_dense_data_inv)"
        ),
        "{inv}"
    );
    assert!(inv.contains("Fresh :: zero_values (& mut (* z))"), "{inv}");
    assert!(inv.contains("Fresh :: zero_values (& mut (* h))"), "{inv}");
    // the dead bits: constants of the liveness (`z` is read by the map's uncomputation)
    assert!(
        inv.contains("__adj (:: nilang :: simd :: Level :: < __NILANG_ISA , _ > (i_map_inv) , 0u64 | (((! (false)) as u64) << 0u32)"),
        "{inv}"
    );
    assert!(
        inv.contains("__adj (:: nilang :: simd :: Level :: < __NILANG_ISA , _ > (i_dense_data_inv) , 0u64 | (((! (false)) as u64) << 0u32)"),
        "{inv}"
    );
}

#[test]
fn a_dead_zero_workspace_parameter_is_not_reset_in_the_adjoint_only_variant() {
    // the network above: in the inverse's `__adj` variant each reset of a `zero(..)`
    // workspace runs unless the caller's bit says nothing reads that parameter afterwards
    // (a `Plan`, which rewrites it: `Reversible::workspaces`); the plain inverse resets always
    let src = "fn f<T: Scalar>(loss: &mut T, w: &mut [T], z: &mut [T], h: &mut [T], x: &[f64], n: usize) {
        routine! {
            i_dense_data(z, x, w, n, 2, 3);
            i_map(h, Tanh, z);
        }
        for b in 0..h.len() {
            loss += h[b];
        }
        unroutine!();
    }";
    let item: proc_macro2::TokenStream = src.parse().expect("test source tokenizes");
    let out = compile_fn(quote::quote!(nocheck, zero(z, h)), item).to_string();
    assert!(!out.contains("compile_error"), "{out}");
    // `z` and `h` are parameters 2 and 3
    assert!(
        out.contains("fn workspaces (& self) -> u64 { 12u64 }"),
        "{out}"
    );
    // the plain inverse, and the inverse's adjoint-only variant
    let plain = out
        .split("fn f_inv")
        .nth(1)
        .and_then(|s| s.split("enum f").next())
        .unwrap_or_default();
    let adj = out
        .split("enum f_inv")
        .nth(1)
        .and_then(|s| s.split("fn workspaces").next())
        .unwrap_or_default();
    assert!(adj.contains("fn __adj"), "{adj}");
    for (w, bit) in [("z", 2), ("h", 3)] {
        let reset =
            format!(":: nilang :: instr :: fresh :: Fresh :: zero_values (& mut (* {w})) ;");
        assert!(plain.contains(&reset), "{plain}");
        assert!(!plain.contains("__nilang_dead"), "{plain}");
        let guarded =
            format!("if ! (! (false || ((__nilang_dead >> {bit}u32) & 1 == 0))) {{ {reset} }}");
        assert!(adj.contains(&guarded), "{w}: {adj}");
        assert_eq!(
            adj.matches(&reset).count(),
            adj.matches(&guarded).count(),
            "{adj}"
        );
    }
}

#[test]
fn a_copy_by_a_call_that_only_reads_the_workspace_keeps_the_adjoint_only_uncomputation() {
    // `i_dot(l, c, w)` takes `c` as `&mut` but writes only `l` (its analysis `WRITES`): the
    // condition names it, and the uncomputation of `C += A·B` is adjoint-only
    let src =
        "fn f<T: Scalar>(l: &mut T, c: &mut [T], a: &mut [T], b: &mut [T], w: &mut [T], n: usize) {
        routine! {
            i_gemm(c, a, b, n, n, n);
        }
        i_dot(l, c, w);
        unroutine!();
    }";
    let item: proc_macro2::TokenStream = src.parse().expect("test source tokenizes");
    let out = compile_fn(quote::quote!(nocheck, zero(c)), item).to_string();
    assert!(!out.contains("compile_error"), "{out}");
    let inv = out
        .split("fn f_inv")
        .nth(1)
        .and_then(|s| s.split("enum f").next())
        .unwrap_or_default();
    assert!(
        inv.contains(":: __adj (:: nilang :: simd :: Level :: < __NILANG_ISA , _ > (i_gemm_inv)"),
        "{inv}"
    );
    assert!(inv.contains(":: WRITES } >> 1u32) & 1 == 1)"), "{inv}");
    assert!(inv.contains("Fresh :: zero_values (& mut (* c))"), "{inv}");
}

#[test]
fn generic_bodies_dispatch_on_batch_numbers_and_plain_ones_do_not() {
    // every body of a function generic over a `Scalar` runs through the levels of
    // `nilang::simd::__wide` when the type is a batch (`LaneOrd::WIDE`)
    let out = expand_nocheck(
        "fn f<T: Scalar, X: Copy>(y: &mut [T], x: &[X], n: usize) where T: Ordered {
            for j in 0..n { y[j] += y[j + 1]; }
        }",
    );
    // forward, inverse and value-only bodies (the adjoint-only variants are the function
    // itself here)
    assert_eq!(out.matches("fn __nilang_lanes <").count(), 3, "{out}");
    // levels 2 and 1: a copy of each body, inlined into `nilang::simd`'s functions of their
    // features (the generated code has no `#[target_feature]` and no `unsafe`)
    assert_eq!(out.matches("fn __nilang_lanes_wide <").count(), 3, "{out}");
    assert!(!out.contains("target_feature"), "{out}");
    assert!(!out.contains("unsafe"), "{out}");
    assert!(
        out.contains("false || < T as :: nilang :: ad :: LaneOrd > :: WIDE {"),
        "{out}"
    );
    assert!(!out.contains("< X as"), "{out}");
    assert!(
        out.contains("__nilang_lanes :: < T , X , 0 > (y , x , n)"),
        "{out}"
    );
    assert!(
        out.contains("(y , x , n ,) , __nilang_lanes_wide :: < T , X , 2 > , __nilang_lanes_wide :: < T , X , 1 >)"),
        "{out}"
    );
    assert!(out.contains(":: nilang :: simd :: __wide"), "{out}");
    // more parameters than `nilang::CallTuple` takes (`MAX_CALL_TUPLE`): level 0 alone
    let params: Vec<String> = (0..crate::abi::MAX_CALL_TUPLE)
        .map(|k| format!("p{k}: usize"))
        .collect();
    let out = expand_nocheck(&format!(
        "fn long<T: Scalar>(y: &mut [T], {}) {{ for j in 0..p0 {{ y[j] += y[j + 1]; }} }}",
        params.join(", ")
    ));
    assert!(!out.contains("__nilang_lanes_wide"), "{out}");
    assert!(!out.contains("__wide"), "{out}");
    assert!(out.contains("__nilang_lanes :: < T , 0 >"), "{out}");
    // a function on f64 only, and one whose type parameter is no number: no dispatch
    for src in [
        "fn g(y: &mut f64, x: &mut f64) { for i in 0..2 { y += x; } }",
        "fn h<X: Copy>(y: &mut f64, x: &[X]) { for i in 0..2 { y += 1.0; } }",
    ] {
        let out = expand_nocheck(src);
        assert!(!out.contains("__nilang_lanes"), "{out}");
    }
    // a function without a loop runs in its caller's copy: no dispatch; its value-only
    // variant runs at the level its caller tagged it with, so the calls in it pass that on
    let out = expand_nocheck("fn k<T: Scalar>(y: &mut T, x: &mut T) { y += x; }");
    assert!(!out.contains("__wide"), "{out}");
    assert!(
        out.contains(":: nilang :: CallTuple < (& '__nilang_l0 mut T , & '__nilang_l1 mut T ,) >> :: LEVEL { 1 => __nilang_lanes :: < T , __NilangF , 1 > (y , x) ,"),
        "{out}"
    );
}

#[test]
fn ring_neighbour_loops_are_peeled_only_where_the_ring_size_cannot_change() {
    let peeled = |src: &str| expand_nocheck(src).contains("__nilang_ring_lo");
    let stencil = "y[i] += x[next_index(i, x.len())] - x[prev_index(i, x.len())];";
    assert!(peeled(&format!(
        "fn f<T: Scalar>(y: &mut Vec<T>, x: &mut Vec<T>) {{ for i in 0..x.len() {{ {stencil} }} }}"
    )));
    // the middle body has `i ± 1`, the edges keep the calls
    let out = expand_nocheck(&format!(
        "fn f(y: &mut Vec<f64>, x: &mut Vec<f64>) {{ for i in 0..x.len() {{ {stencil} }} }}"
    ));
    assert!(out.contains("(i + 1)") && out.contains("(i - 1)"), "{out}");
    assert!(out.contains("next_index (i ,"), "{out}");
    // a literal or an unwritten variable as the size; a path ending in `ring::`
    assert!(peeled(
        "fn f(y: &mut [f64], x: &[f64]) { for i in 1..4 { y[i] += x[ring::next_index(i, 5)]; } }"
    ));
    assert!(peeled(
        "fn f(y: &mut [f64], x: &[f64], n: usize) { for i in 0..n { y[i] += x[prev_index(i, n)]; } }"
    ));
    // a ring loop inside a ring loop: both peeled
    let out = expand_nocheck(
        "fn f(y: &mut Vec<f64>, x: &mut Vec<f64>, w: usize, h: usize) { for j in 0..h { for i in 0..w { y[j * w + i] += x[j * w + next_index(i, w)] * x[prev_index(j, h) * w + i]; } } }",
    );
    assert!(out.contains("(i + 1)") && out.contains("(j - 1)"), "{out}");
    // the same neighbours by remainders
    for (next, prev) in [
        ("(i + 1) % x.len()", "(i + x.len() - 1) % x.len()"),
        ("(i + 1) % (x.len())", "(i + (x.len() - 1)) % x.len()"),
    ] {
        let out = expand_nocheck(&format!(
            "fn f(y: &mut Vec<f64>, x: &mut Vec<f64>) {{ for i in 0..x.len() {{ y[i] += x[{next}] - x[{prev}]; }} }}"
        ));
        assert!(out.contains("__nilang_ring_lo"), "{out}");
        assert!(out.contains("(i + 1)") && out.contains("(i - 1)"), "{out}");
    }
    // not peeled: the size written, passed whole to a call, or differing between calls; a
    // call on another variable; another module's function of the same name; an inclusive
    // range; `safe!` code
    for src in [
        "fn f(y: &mut [f64], x: &[f64], n: &mut usize) { for i in 0..4 { y[i] += x[prev_index(i, n)]; n += 1; } }",
        "fn f(y: &mut Vec<f64>, x: &mut Vec<f64>) { for i in 0..4 { y[i] += x[prev_index(i, x.len())]; g(x); } }",
        "fn f(y: &mut Vec<f64>, x: &mut Vec<f64>) { for i in 0..4 { y[i] += x[prev_index(i, x.len())]; x.h(); } }",
        "fn f(y: &mut [f64], x: &[f64]) { for i in 0..4 { y[i] += x[next_index(i, 4)] * x[prev_index(i, 5)]; } }",
        "fn f(y: &mut [f64], x: &[f64], j: usize) { for i in 0..4 { y[i] += x[next_index(j, 4)]; } }",
        "fn f(y: &mut [f64], x: &[f64]) { for i in 0..4 { y[i] += x[grid::next_index(i, 4)]; } }",
        "fn f(y: &mut [f64], x: &[f64]) { for i in 0..=3 { y[i] += x[next_index(i, 4)]; } }",
        "fn f(y: &mut [f64], x: &[f64]) { for i in 0..4 { y[i] += x[next_index(i, 4)]; safe! { println!(); } } }",
        "fn f(y: &mut [f64], x: &[f64]) { for i in 0..4 { y[i] += x[(i + 2) % 4]; } }",
        "fn f(y: &mut [f64], x: &[f64]) { for i in 0..4 { y[i] += x[(i + 3 - 1) % 4]; } }",
        "fn f(y: &mut [f64], x: &[f64]) { for i in 0..4 { y[i] += x[(i + 1) % 4] + x[(i + 1) % 5]; } }",
    ] {
        assert!(!peeled(src), "{src}");
    }
}

#[test]
fn the_adjoint_only_variant_of_the_inverse_keeps_the_zero_workspace_uncomputation() {
    // `f_inv::__adj` (a gradient with the loss dead: `Plan::gradient`, `vjp`): the routine on
    // `zero(..)` workspaces is uncomputed adjoint-only there too, its callees told that their
    // target holds `f(x)` (FRESH_TARGET, bit 63), the workspaces zeroed afterwards; the
    // loss's own updates are adjoint-only where its bit is dead
    let src = "fn f<T: Scalar>(out: &mut T, w: &mut [T], b: &mut [T], z: &mut [T], s: &mut [T], x: &[f64], y: &[f64]) {
        routine! {
            i_dense_data(z, x, w, b, y.len(), w.len(), 1);
            i_map(s, Softplus, z);
        }
        for k in 0..y.len() {
            out += s[k];
            out -= z[k] * y[k];
        }
        unroutine!();
    }";
    let item: proc_macro2::TokenStream = src.parse().expect("test source tokenizes");
    let out = compile_fn(quote::quote!(nocheck, zero(z, s)), item).to_string();
    assert!(!out.contains("compile_error"), "{out}");
    let adj_inv = out.split("impl f_inv").nth(1).unwrap_or_default();
    assert!(adj_inv.contains("fn __adj"), "{adj_inv}");
    assert!(
        adj_inv.contains("Fresh :: zero_values (& mut (* z))"),
        "{adj_inv}"
    );
    assert!(
        adj_inv.contains("Fresh :: zero_values (& mut (* s))"),
        "{adj_inv}"
    );
    assert!(adj_inv.contains("9223372036854775808u64"), "{adj_inv}");
    assert!(adj_inv.contains("plus_eq_adjoint"), "{adj_inv}");
    assert!(
        adj_inv.contains("(__nilang_dead >> 0u32) & 1 == 0"),
        "{adj_inv}"
    );
}

#[test]
fn slice_operands_lent_in_place_unless_shared() {
    // `y[i]` and `x[i]`: roots alone in the statement, lent through `Places::at` (no copy of
    // the element in and out)
    let out = expand("fn f(y: &mut [f64], x: &mut [f64], i: usize) { y[i] += sin(x[i]); }");
    assert!(out.contains("Places :: at (& mut * y , i)"), "{out}");
    assert!(out.contains("Places :: at (& mut * x , i)"), "{out}");
    assert!(!out.contains("Places :: set (& mut * y"), "{out}");
    // `y[i] += y[k]`: one root twice, copied in and written back through `get`/`set`
    let out = expand("fn f(y: &mut [f64], i: usize, k: usize) { y[i] += y[k]; }");
    assert!(!out.contains("Places :: at"), "{out}");
    assert!(out.contains("Places :: set (& mut * y , i"), "{out}");
    // a field of an element: lent, the field borrowed through the guard
    let out = expand("fn f(y: &mut [Complex<f64>], x: &mut [f64], i: usize) { y[i].re += x[i]; }");
    assert!(out.contains("Places :: at (& mut * y , i)) . re"), "{out}");
}

/// The logistic program of the `the_adjoint_only_variant_…` test with the loop body `body`:
/// of `f_inv`, the ordinary function's code and the adjoint-only variant's (its first
/// instruction-set level), each up to its recomputed `i_map(s, Softplus, z)`, and the variant's
/// whole code.
fn logistic_inverse(body: &str) -> (String, String, String) {
    let src = format!(
        "fn f<T: Scalar>(out: &mut T, w: &mut [T], b: &mut [T], z: &mut [T], s: &mut [T], x: &[f64], y: &[f64]) {{
        routine! {{
            i_dense_data(z, x, w, b, y.len(), w.len(), 1);
            i_map(s, Softplus, z);
        }}
        for k in 0..y.len() {{
            {body}
        }}
        unroutine!();
    }}"
    );
    let item: proc_macro2::TokenStream = src.parse().expect("test source tokenizes");
    let out = compile_fn(quote::quote!(nocheck, zero(z, s)), item).to_string();
    assert!(!out.contains("compile_error"), "{out}");
    let inv = out.split("fn f_inv").nth(1).unwrap_or_default();
    let mut parts = inv.split("fn __adj");
    let ordinary = parts.next().unwrap_or_default();
    let adj = parts.next().unwrap_or_default();
    let adj = adj
        .split("fn __nilang_lanes_wide")
        .next()
        .unwrap_or_default();
    let upto = |t: &str| {
        let recompute = "__primal (:: nilang :: simd :: Level :: < __NILANG_ISA , _ > (i_map) ,";
        let at = t.find(recompute).expect("the recomputation");
        let at = t[..at]
            .rfind("i_dense_data (& mut")
            .expect("after the first call");
        t[at..]
            .split(recompute)
            .next()
            .unwrap_or_default()
            .to_string()
    };
    (upto(ordinary), upto(adj), adj.to_string())
}

#[test]
fn a_recomputed_call_whose_results_only_the_dead_loss_reads_is_skipped() {
    // `s = softplus(z)` flows only into the loss (`out += s[k]`, adjoint-only when the loss is
    // dead): in `f_inv::__adj` the recomputation of `i_map(s, ..)` runs only unless the
    // loss's bit is dead, `i_map` writes `s` alone and `i_map_inv` reads no value of it, and
    // the uncomputation's adjoint-only form runs (`values_skipped`); its undoing call is then
    // not told FRESH_TARGET. `i_dense_data(z, ..)` stays: `i_map_inv` reads `z`.
    let guard = "(__nilang_dead >> 0u32) & 1 == 1";
    for body in [
        "out += s[k]; out -= z[k] * y[k];",
        // a scaled read is linear too
        "out += 0.5 * s[k]; out -= z[k] * y[k];",
    ] {
        let (ordinary, before, adj) = logistic_inverse(body);
        assert!(before.contains("if ! ("), "{body}: {before}");
        assert!(before.contains(guard), "{body}: {before}");
        assert!(before.contains("values_skipped"), "{body}: {before}");
        assert!(
            before.contains("use i_map_inv as") && before.contains(":: READS"),
            "{body}: {before}"
        );
        // the guard twice: the skipped call, and its undoing call's FRESH_TARGET
        assert_eq!(adj.matches(guard).count(), 2, "{body}: {adj}");
        // the ordinary inverse (the loss's value read: `value_and_gradient`) keeps it
        assert!(!ordinary.contains("values_skipped"), "{body}: {ordinary}");
    }
}

#[test]
fn a_recomputed_call_whose_results_are_read_is_kept() {
    for body in [
        // a product of two values: `z̄ += out̄ · s` reads `s`
        "out += s[k] * z[k];",
        // `s` read into a place that is read afterwards
        "out += s[k]; w[0] += s[k]; b[0] += w[0] * z[k];",
        // a function of `s`
        "out += sin(s[k]);",
    ] {
        let (ordinary, before, _) = logistic_inverse(body);
        assert!(!before.contains("values_skipped"), "{body}: {before}");
        assert!(!ordinary.contains("values_skipped"), "{body}: {ordinary}");
    }
    // `s` read into two places: skipped only where both are dead (not in `Plan::gradient`,
    // whose loss alone is)
    let (_, before, _) = logistic_inverse("out += s[k]; w[0] -= s[k];");
    assert!(
        before.contains("(__nilang_dead >> 0u32) & 1 == 1"),
        "{before}"
    );
    assert!(
        before.contains("(__nilang_dead >> 1u32) & 1 == 1"),
        "{before}"
    );
    // `s` read by nothing at all: skipped in the ordinary inverse too, no dead bit needed
    let (ordinary, before, _) = logistic_inverse("out += z[k];");
    assert!(before.contains("values_skipped"), "{before}");
    assert!(ordinary.contains("values_skipped"), "{ordinary}");
    assert!(!before.contains("__nilang_dead"), "{before}");
}
