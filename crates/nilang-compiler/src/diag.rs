//! Diagnostics for mistakes that would otherwise surface as rustc errors about generated code.
use crate::errors::Errors;
use crate::ir::*;
use quote::ToTokens;
use std::collections::HashMap;

/// The roots of the targets of every instruction in `body` (nested blocks included).
fn instr_targets(body: &[Stmt], out: &mut Vec<(String, proc_macro2::Span)>) {
    fn operand(o: &Operand, out: &mut Vec<(String, proc_macro2::Span)>) {
        match o {
            Operand::Place(p) => out.push((p.root.to_string(), p.span)),
            Operand::Tuple(t, _) => t.iter().for_each(|o| operand(o, out)),
            _ => {}
        }
    }
    for s in body {
        match &s.kind {
            StmtKind::Instr(i) => operand(&i.target, out),
            StmtKind::If {
                branches,
                otherwise,
            } => {
                branches.iter().for_each(|b| instr_targets(&b.body, out));
                if let Some(o) = otherwise {
                    instr_targets(o, out);
                }
            }
            StmtKind::While { body, .. }
            | StmtKind::For { body, .. }
            | StmtKind::Block(body)
            | StmtKind::Seq(body)
            | StmtKind::Routine { body, .. } => instr_targets(body, out),
            StmtKind::DoLoop { first, second, .. } => {
                instr_targets(first, out);
                instr_targets(second, out);
            }
            _ => {}
        }
    }
}

/// Whether the tokens of `t` mention the identifier `name`.
fn mentions(t: &impl ToTokens, name: &str) -> bool {
    fn walk(t: proc_macro2::TokenStream, name: &str) -> bool {
        t.into_iter().any(|tt| match tt {
            proc_macro2::TokenTree::Ident(i) => i == name,
            proc_macro2::TokenTree::Group(g) => walk(g.stream(), name),
            _ => false,
        })
    }
    walk(t.to_token_stream(), name)
}

/// A type parameter without any bound whose values are the target of an instruction
/// (`fn f<T>(y: &mut T, x: &T) { y += x * 2.0; }`): rustc would report unsatisfied
/// instruction traits on generated code; we point at the parameter and suggest `Scalar`.
pub fn unbounded_generics(sig: &syn::Signature, body: &[Stmt], errors: &mut Errors) {
    // a `where` predicate on any type made of `T` (`GVar<T>: PlusEq1<..>`) counts as a bound
    let bounded_tys: Vec<&syn::Type> = sig
        .generics
        .where_clause
        .iter()
        .flat_map(|w| w.predicates.iter())
        .filter_map(|p| match p {
            syn::WherePredicate::Type(t) => Some(&t.bounded_ty),
            _ => None,
        })
        .collect();
    let unbounded: Vec<&syn::TypeParam> = sig
        .generics
        .type_params()
        .filter(|t| {
            let n = t.ident.to_string();
            t.bounds.is_empty() && !bounded_tys.iter().any(|b| mentions(*b, &n))
        })
        .collect();
    if unbounded.is_empty() {
        return;
    }
    let param_types: HashMap<String, &syn::Type> = sig
        .inputs
        .iter()
        .filter_map(|a| match a {
            syn::FnArg::Typed(pt) => match &*pt.pat {
                syn::Pat::Ident(pi) => Some((pi.ident.to_string(), &*pt.ty)),
                _ => None,
            },
            _ => None,
        })
        .collect();
    let mut targets = vec![];
    instr_targets(body, &mut targets);
    for tp in unbounded {
        let name = tp.ident.to_string();
        let used = targets
            .iter()
            .find(|(root, _)| param_types.get(root).is_some_and(|ty| mentions(*ty, &name)));
        if let Some((root, _)) = used {
            errors.push(
                tp.ident.span(),
                format!(
                    "generic parameter `{name}` has no bound, but instructions write `{root}` \
                     of a type made of it: add `{name}: Scalar` (`use nilang::prelude::*`; \
                     the numbers that support every `+=` function), or the instructions it \
                     needs, e.g. `{name}: nilang::instr::PlusEq1<F, {name}>`"
                ),
            );
        }
    }
}
