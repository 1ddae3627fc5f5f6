//! The compiler never panics: random token streams and random mutations of valid programs
//! (tokens inserted, deleted, replaced) fed to `compile_fn` and `compile_primitive` must give
//! tokens back (possibly `compile_error!`s).
use nilang_compiler::{compile_fn, compile_primitive};
use proc_macro2::TokenStream;
use proptest::prelude::*;

/// Tokens that the language gives a meaning to, plus some it does not.
const VOCAB: &[&str] = &[
    "x",
    "y",
    "z",
    "s",
    "t",
    "i",
    "n",
    "f",
    "g",
    "self",
    "Self",
    "let",
    "mut",
    "if",
    "else",
    "while",
    "for",
    "in",
    "fn",
    "return",
    "break",
    "continue",
    "loop",
    "match",
    "unsafe",
    "move",
    "dealloc",
    "routine",
    "unroutine",
    "inv",
    "safe",
    "push",
    "pop",
    "copy_push",
    "copy_pop",
    "cst",
    "SWAP",
    "NEG",
    "INC",
    "ROT",
    "sin",
    "powi",
    "sincos",
    "from",
    "nocheck",
    "step_by",
    "rev",
    "len",
    "0",
    "1",
    "2.5",
    "-",
    "+",
    "*",
    "/",
    "%",
    "^",
    "!",
    "&",
    "&&",
    "||",
    "=",
    "==",
    "!=",
    "<",
    ">",
    "<=",
    ">=",
    "+=",
    "-=",
    "*=",
    "/=",
    "^=",
    "..",
    "..=",
    ".",
    ",",
    ";",
    ":",
    "::",
    "#",
    "_",
    "'a",
    "\"s\"",
    "?",
    "->",
    "=>",
    "@",
    "$",
];

/// A token tree as source text: a vocabulary token or a delimited group.
fn tree() -> impl Strategy<Value = String> {
    let leaf = prop::sample::select(VOCAB).prop_map(str::to_string);
    leaf.prop_recursive(4, 48, 6, |inner| {
        (0..3usize, prop::collection::vec(inner, 0..6)).prop_map(|(d, items)| {
            let body = items.join(" ");
            match d {
                0 => format!("( {body} )"),
                1 => format!("[ {body} ]"),
                _ => format!("{{ {body} }}"),
            }
        })
    })
}

fn stream() -> impl Strategy<Value = String> {
    prop::collection::vec(tree(), 0..12).prop_map(|v| v.join(" "))
}

/// Run both entry points; the test fails if either panics.
fn compile_all(attr: &str, item: &str) {
    let (Ok(attr), Ok(item)) = (attr.parse::<TokenStream>(), item.parse::<TokenStream>()) else {
        return;
    };
    let _ = compile_fn(attr.clone(), item.clone());
    let _ = compile_fn(TokenStream::new(), item.clone());
    let _ = compile_primitive(attr, item);
}

/// Valid programs of the language (from the guide and the tests).
const CORPUS: &[&str] = &[
    "fn norm(res: &mut f64, y: &mut f64, x: &[f64]) { for i in 0..x.len() { y += x[i].powi(2); } res += y.sqrt(); }",
    "fn f(x: &mut i64, y: &mut i64) { if (x > 0, _) { y += 1; } else if (x < 0, _) { y += 2; } else { y += 3; } }",
    "fn f(x: &mut i64, y: &mut i64) { while (x < 100, x > 0) { x += y; } }",
    "fn f(x: &mut i64, i: &mut i64) { #[from(i == 0)] while i < 10 { i += 1; x += 1; } }",
    "fn f(x: &mut f64, y: &f64) { let z = 0.0; z += y; x += z * 2.0; z -= y; dealloc!(z = 0.0); }",
    "fn f(out: &mut f64, x: &mut f64) { routine! { out += x; } unroutine!(); inv! { out += x; } }",
    "fn f(x: &mut Vec<f64>, y: &mut f64, s: &mut f64) { pop!(x, y); SWAP(&mut x[1], s); push!(x, y); }",
    "fn f(x: &mut [f64], y: &mut (f64, f64), t: &f64) { (-x[1], y.0) += sincos(t); }",
    "fn f(v: &mut Vec<i64>, s: &mut i64, n: usize) { for i in ((1..n).step_by(3)).rev() { v[i] += s; } for x in v { x += 2; } }",
    "fn rfib(out: &mut i64, n: i64) { let n1 = n - 1; if n <= 2 { out += 1; } else { rfib(out, n1); } dealloc!(n1 = n - 1); }",
    "fn f(s: &mut [i64; 4], a: usize, b: usize) { g(&mut s[a], &s[b]); s[a] ^= s[b] && true; #[nocheck] INC(&mut s[b]); }",
    "fn f(x: &mut f64) { safe! { println!(\"{}\", x); } let (a, b) = (0.0, 1.0); dealloc!((a, b) = (0.0, 1.0)); }",
    "fn f<T: Real>(y: &mut T, x: &T) { y += x * cst!(2.0); y -= max(x, x); }",
    "fn prim(a: f64, b: f64) -> f64 { a * b }",
];

fn tokens_of(src: &str) -> Vec<String> {
    // `TokenStream`'s display separates tokens by spaces (the corpus has no spaced literals)
    src.parse::<TokenStream>()
        .map(|t| t.to_string())
        .unwrap_or_default()
        .split_whitespace()
        .map(str::to_string)
        .collect()
}

#[derive(Clone, Debug)]
enum Mutation {
    Insert(usize, &'static str),
    Delete(usize),
    Replace(usize, &'static str),
}

fn mutation() -> impl Strategy<Value = Mutation> {
    let tok = prop::sample::select(VOCAB);
    prop_oneof![
        (any::<usize>(), tok.clone()).prop_map(|(i, t)| Mutation::Insert(i, t)),
        any::<usize>().prop_map(Mutation::Delete),
        (any::<usize>(), tok).prop_map(|(i, t)| Mutation::Replace(i, t)),
    ]
}

fn mutate(src: &str, ms: &[Mutation]) -> String {
    let mut toks = tokens_of(src);
    for m in ms {
        let n = toks.len().max(1);
        match *m {
            Mutation::Insert(i, t) => toks.insert(i % (toks.len() + 1), t.to_string()),
            Mutation::Delete(i) if !toks.is_empty() => {
                toks.remove(i % n);
            }
            Mutation::Replace(i, t) if !toks.is_empty() => toks[i % n] = t.to_string(),
            _ => {}
        }
    }
    toks.join(" ")
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 1500, ..ProptestConfig::default() })]

    #[test]
    fn random_token_streams(item in stream(), attr in stream()) {
        compile_all(&attr, &item);
    }

    #[test]
    fn random_function_bodies(body in stream(), attr in prop::sample::select(&["", "nocheck", "norev", "rev = R", "grad = df", "x ="][..])) {
        compile_all(attr, &format!("fn f(x: &mut f64, y: &f64, s: &mut Vec<i64>, n: usize) {{ {body} }}"));
    }

    #[test]
    fn mutated_valid_programs(k in 0..CORPUS.len(), ms in prop::collection::vec(mutation(), 1..5)) {
        compile_all("", &mutate(CORPUS[k], &ms));
    }
}

#[test]
fn corpus_compiles_without_errors() {
    for src in &CORPUS[..CORPUS.len() - 1] {
        let out = compile_fn(TokenStream::new(), src.parse().unwrap()).to_string();
        assert!(!out.contains("compile_error"), "{src}\n{out}");
    }
    let out = compile_primitive(
        TokenStream::new(),
        CORPUS[CORPUS.len() - 1].parse().unwrap(),
    );
    assert!(!out.to_string().contains("compile_error"));
}
