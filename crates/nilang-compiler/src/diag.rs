//! Diagnostics for mistakes that would otherwise surface as rustc errors about generated code.
use crate::analyze::operand_places;
use crate::errors::Errors;
use crate::ir::*;
use crate::syntax::mentions_name;
use crate::visit::{walk_block, walk_stmt, Visit};
use std::collections::HashMap;

/// The roots of the targets of every instruction in `body` (nested blocks included).
fn instr_targets(body: &[Stmt]) -> Vec<(String, proc_macro2::Span)> {
    struct Targets(Vec<(String, proc_macro2::Span)>);
    impl<'ir> Visit<'ir> for Targets {
        fn visit_stmt(&mut self, s: &'ir Stmt) {
            if let StmtKind::Instr(i) = &s.kind {
                let mut places = vec![];
                operand_places(&i.target, &mut places);
                self.0
                    .extend(places.iter().map(|p| (p.root.to_string(), p.span)));
            }
            walk_stmt(self, s);
        }
    }
    let mut v = Targets(vec![]);
    walk_block(&mut v, body);
    v.0
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
            t.bounds.is_empty() && !bounded_tys.iter().any(|b| mentions_name(*b, &n))
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
    let targets = instr_targets(body);
    for tp in unbounded {
        let name = tp.ident.to_string();
        let used = targets.iter().find(|(root, _)| {
            param_types
                .get(root)
                .is_some_and(|ty| mentions_name(*ty, &name))
        });
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
