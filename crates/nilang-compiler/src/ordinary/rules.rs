//! The derivative of each operation of the single-assignment form, as Rust: the functions of
//! one argument from the table of elementary functions ([`crate::functions`], the same rows
//! the reversible AD generates its rules from), the arithmetic and the few methods outside
//! the table here.
use super::ir::{BinOp, Fn2, Op, Unary};
use crate::functions::Elementary;
use proc_macro2::TokenStream;
use quote::quote;

/// The value of operation `k` in the forward code (`t` names the operand values).
pub fn value(
    op: &Op,
    t: impl Fn(usize) -> TokenStream,
    place: impl Fn(&super::ir::Place) -> TokenStream,
) -> TokenStream {
    match op {
        Op::Const(c) => quote!(((#c) as f64)),
        Op::Read(p) => place(p),
        Op::Bin(o, a, b) => {
            let (a, b) = (t(*a), t(*b));
            match o {
                BinOp::Add => quote!(#a + #b),
                BinOp::Sub => quote!(#a - #b),
                BinOp::Mul => quote!(#a * #b),
                BinOp::Div => quote!(#a / #b),
            }
        }
        Op::Neg(a) => {
            let a = t(*a);
            quote!(-#a)
        }
        Op::Unary(u, a) => {
            let a = t(*a);
            match u {
                Unary::Table(e) => {
                    let m = quote::format_ident!("{}", e.names[0]);
                    quote!(#a.#m())
                }
                Unary::Sqrt => quote!(#a.sqrt()),
                Unary::Abs => quote!(#a.abs()),
                Unary::Recip => quote!(#a.recip()),
            }
        }
        Op::Powi(a, n) => {
            let a = t(*a);
            quote!(#a.powi(#n))
        }
        Op::Binary(f, a, b) => {
            let (a, b) = (t(*a), t(*b));
            match f {
                Fn2::Powf => quote!(#a.powf(#b)),
                Fn2::Max => quote!(#a.max(#b)),
                Fn2::Min => quote!(#a.min(#b)),
            }
        }
    }
}

/// The adjoint statements of operation `k`: from its adjoint `g` into the adjoints of its
/// active operands (`act(j)`: `bar(j)`), with the values `t(j)` (`t(k)` its own value) that
/// [`Ssa::needed`](super::ir::Ssa::needed) marks.
pub fn adjoint(
    op: &Op,
    k: usize,
    t: impl Fn(usize) -> TokenStream,
    bar: impl Fn(usize) -> TokenStream,
    act: impl Fn(usize) -> bool,
) -> TokenStream {
    let g = bar(k);
    if !act(k) {
        return quote!();
    }
    match op {
        Op::Const(_) | Op::Read(_) => quote!(),
        Op::Bin(o, a, b) => {
            let (ba, bb, ta, tb, r) = (bar(*a), bar(*b), t(*a), t(*b), t(k));
            let into_a = match o {
                BinOp::Add | BinOp::Sub => quote!(#ba += #g;),
                BinOp::Mul => quote!(#ba += #g * #tb;),
                BinOp::Div => quote!(#ba += #g / #tb;),
            };
            let into_b = match o {
                BinOp::Add => quote!(#bb += #g;),
                BinOp::Sub => quote!(#bb -= #g;),
                BinOp::Mul => quote!(#bb += #g * #ta;),
                BinOp::Div => quote!(#bb -= #g * #r / #tb;),
            };
            let mut out = quote!();
            if act(*a) {
                out.extend(into_a);
            }
            if act(*b) {
                out.extend(into_b);
            }
            out
        }
        Op::Neg(a) => {
            let ba = bar(*a);
            quote!(#ba -= #g;)
        }
        Op::Unary(u, a) => {
            let (ba, ta, r) = (bar(*a), t(*a), t(k));
            match u {
                Unary::Table(e) => table(e, &g, &ba, &ta, &r),
                Unary::Sqrt => quote!(#ba += #g * 0.5 / #r;),
                Unary::Abs => quote!(if #ta >= 0.0 { #ba += #g } else { #ba -= #g })
                    .into_iter()
                    .chain(quote!(;))
                    .collect(),
                Unary::Recip => quote!(#ba -= #g * #r * #r;),
            }
        }
        Op::Powi(a, n) => {
            let (ba, ta) = (bar(*a), t(*a));
            quote!(#ba += #g * ((#n) as f64) * #ta.powi((#n) - 1);)
        }
        Op::Binary(f, a, b) => {
            let (ba, bb, ta, tb, r) = (bar(*a), bar(*b), t(*a), t(*b), t(k));
            // an inactive operand's adjoint is a local nobody reads
            let (ba, bb) = (
                if act(*a) { ba } else { quote!(__ad_unused) },
                if act(*b) { bb } else { quote!(__ad_unused) },
            );
            let body = match f {
                Fn2::Powf => quote! {
                    #ba += #g * #tb * #ta.powf(#tb - 1.0);
                    if #r != 0.0 { #bb += #g * #r * #ta.ln(); }
                },
                Fn2::Max => quote!(if #ta >= #tb { #ba += #g; } else { #bb += #g; }),
                Fn2::Min => quote!(if #ta <= #tb { #ba += #g; } else { #bb += #g; }),
            };
            quote!({ let mut __ad_unused = __ad_zero; #body })
        }
    }
}

/// `x̄ ±= ȳ ∘ d` of a row of the table, `d` translated from the row's derivative.
fn table(
    e: &Elementary,
    g: &TokenStream,
    bar: &TokenStream,
    x: &TokenStream,
    r: &TokenStream,
) -> TokenStream {
    let d = match syn::parse_str::<syn::Expr>(e.derivative) {
        Ok(d) => derivative(&d, x, r),
        // every row parses (the tests of `functions` translate each)
        Err(_) => quote!(f64::NAN),
    };
    let update = if e.divide {
        quote!(#g / (#d))
    } else {
        quote!(#g * (#d))
    };
    if e.plus {
        quote!(#bar += #update;)
    } else {
        quote!(#bar -= #update;)
    }
}

/// A derivative expression of the table (`x`, `r`, numbers, `+ - * /`, calls) in Rust.
pub fn derivative(e: &syn::Expr, x: &TokenStream, r: &TokenStream) -> TokenStream {
    match e {
        syn::Expr::Lit(l) => match &l.lit {
            syn::Lit::Int(i) => {
                let v: f64 = i
                    .base10_parse::<u64>()
                    .map(|v| v as f64)
                    .unwrap_or(f64::NAN);
                quote!(#v)
            }
            syn::Lit::Float(f) => {
                let v: f64 = f.base10_parse().unwrap_or(f64::NAN);
                quote!(#v)
            }
            _ => quote!(f64::NAN),
        },
        syn::Expr::Path(p) if p.path.is_ident("x") => x.clone(),
        syn::Expr::Path(p) if p.path.is_ident("r") => r.clone(),
        syn::Expr::Paren(p) => {
            let i = derivative(&p.expr, x, r);
            quote!((#i))
        }
        syn::Expr::Unary(u) => {
            let i = derivative(&u.expr, x, r);
            quote!((-#i))
        }
        syn::Expr::Binary(b) => {
            let (l, rr) = (derivative(&b.left, x, r), derivative(&b.right, x, r));
            let op = &b.op;
            quote!((#l #op #rr))
        }
        syn::Expr::Call(c) => {
            let name = match &*c.func {
                syn::Expr::Path(p) => p.path.get_ident().map(|i| i.to_string()),
                _ => None,
            };
            let arg = c
                .args
                .first()
                .map(|a| derivative(a, x, r))
                .unwrap_or(quote!(f64::NAN));
            match name.as_deref() {
                Some("abs2") => quote!({ let __v: f64 = #arg; __v * __v }),
                Some(n) => {
                    let m = match crate::functions::by_name(n) {
                        Some(row) => row.names[0],
                        None => n,
                    };
                    let m = quote::format_ident!("{}", m);
                    quote!(f64::#m(#arg))
                }
                None => quote!(f64::NAN),
            }
        }
        _ => quote!(f64::NAN),
    }
}
