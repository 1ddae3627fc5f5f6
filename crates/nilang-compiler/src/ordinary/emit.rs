//! Shared pieces of the forward and the adjoint emitter: names of values, adjoints and
//! places.
use super::ir::*;
use super::tape::Layout;
use proc_macro2::{Ident, TokenStream};
use quote::{format_ident, quote};

/// The emitter of one function's forward and adjoint code.
pub struct Emitter<'a> {
    /// The lowered function.
    pub f: &'a Func,
    /// What the forward run records.
    pub layout: &'a Layout,
    /// Whether the function returns early (loops then test the flag).
    pub early: bool,
    /// The path of the `nilang` crate.
    pub krate: TokenStream,
}

/// The tape argument of the generated functions.
pub fn tape() -> Ident {
    format_ident!("__ad_tape")
}

/// The adjoint variable of a variable or parameter.
pub fn bar_of(v: &Ident) -> Ident {
    format_ident!("{}__bar", v)
}

/// The name of the value of operation `k`.
pub fn t(k: usize) -> TokenStream {
    let id = format_ident!("__ad_t{}", k);
    quote!(#id)
}

/// The name of the adjoint of operation `k`.
pub fn b(k: usize) -> TokenStream {
    let id = format_ident!("__ad_b{}", k);
    quote!(#id)
}

impl Emitter<'_> {
    /// A place as a Rust place expression.
    pub fn place(&self, p: &Place) -> TokenStream {
        match p {
            Place::Var(v) => quote!(#v),
            Place::Elem(a, i) => quote!(#a[#i]),
        }
    }

    /// The adjoint of a place, if it has one.
    pub fn bar(&self, p: &Place) -> Option<TokenStream> {
        if !self.f.is_active(p) {
            return None;
        }
        match p {
            Place::Var(v) => match self.f.kind(v) {
                Some(Kind::Active) => {
                    let b = bar_of(v);
                    Some(quote!(#b))
                }
                _ => None,
            },
            Place::Elem(a, i) => match self.f.kind(a) {
                Some(Kind::Array) => {
                    let b = bar_of(a);
                    Some(quote!(#b[#i]))
                }
                _ => None,
            },
        }
    }

    /// The variable a place writes (the array for an element).
    pub fn root(p: &Place) -> &Ident {
        match p {
            Place::Var(v) | Place::Elem(v, _) => v,
        }
    }

    /// An argument as passed to the value function.
    pub fn arg_value(&self, a: &Arg) -> TokenStream {
        match a {
            Arg::Value(Expr::Read(p)) => self.place(p),
            Arg::Value(Expr::Const(t)) | Arg::Const(t) | Arg::Array(_, t) | Arg::Data(t) => {
                quote!(#t)
            }
            Arg::Value(_) => quote!(f64::NAN),
        }
    }

    /// The operations of a right-hand side as `let`s, values `__ad_t{k}`.
    pub fn ops(&self, ssa: &Ssa) -> TokenStream {
        self.ops_where(ssa, &vec![true; ssa.ops.len()])
    }

    /// The operations `k` with `keep[k]` as `let`s (the others' values are not read).
    pub fn ops_where(&self, ssa: &Ssa, keep: &[bool]) -> TokenStream {
        let mut out = quote!();
        for (k, op) in ssa.ops.iter().enumerate() {
            if !keep[k] {
                continue;
            }
            let v = super::rules::value(op, t, |p| self.place(p));
            let tk = t(k);
            out.extend(quote!(let #tk: f64 = #v;));
        }
        out
    }
}
