//! Read-only float data in generic functions: `z += w * x[i]` where `x: &[f64]` and
//! `z, w: &mut T`.
//!
//! An instruction takes operands of one number type. A read-only parameter of a plain float
//! type (`f64`, `f32`, or a slice, array or `Vec` of them) is data: it has no adjoint, so in a
//! generic function its elements are converted to the number type of the instruction's
//! target, like a literal (`FromLiteral`; on `GVar` a constant with zero gradient). An
//! *in-out* float parameter read by an instruction on a generic target is an error of ours
//! (its adjoint would be lost by a conversion), with the fix, instead of rustc's
//! "expected `&mut T`, found `&mut f64`" at the attribute.
//!
//! ```
//! let f: syn::ItemFn = syn::parse_quote!(fn f<T>(z: &mut T, x: &[f64], n: f32, v: &Vec<T>) {});
//! let data = nilang_compiler::data::float_data(&f.sig);
//! assert_eq!((data.get("x"), data.get("n"), data.get("v")), (Some(&1), Some(&0), None));
//! ```
use crate::errors::Errors;
use crate::ir::*;
use crate::syntax::mentions_name;
use crate::visit::{walk_block, walk_stmt, Visit};
use std::collections::HashMap;

/// Containers indexed once to reach an element, whose first generic argument is the element
/// type: `Vec`, and the `nalgebra` and `ndarray` types (`a[(i, j)]`, `a[[i, j]]`).
const CONTAINERS: &[&str] = &[
    "Vec", "DVector", "DMatrix", "SVector", "SMatrix", "OMatrix", "Array", "Array1", "Array2",
    "Array3",
];

/// The plain float element of `ty` and how many indices reach it: `f64` (0), `&[f32]`,
/// `&[f64; 3]`, `&Vec<f64>`, `&DMatrix<f64>`, `&Array2<f32>` (1). `None` for anything else.
fn float_elem(ty: &syn::Type) -> Option<(String, usize)> {
    let scalar = |t: &syn::Type| match t {
        syn::Type::Path(p) if p.qself.is_none() => p
            .path
            .get_ident()
            .map(|i| i.to_string())
            .filter(|n| n == "f64" || n == "f32"),
        _ => None,
    };
    let ty = match ty {
        syn::Type::Reference(r) => &*r.elem,
        t => t,
    };
    if let Some(n) = scalar(ty) {
        return Some((n, 0));
    }
    let elem = match ty {
        syn::Type::Slice(s) => &*s.elem,
        syn::Type::Array(a) => &*a.elem,
        syn::Type::Path(p) => {
            let last = p.path.segments.last()?;
            if !CONTAINERS.iter().any(|c| last.ident == c) {
                return None;
            }
            match &last.arguments {
                syn::PathArguments::AngleBracketed(a) if !a.args.is_empty() => match &a.args[0] {
                    syn::GenericArgument::Type(t) => t,
                    _ => return None,
                },
                _ => return None,
            }
        }
        _ => return None,
    };
    scalar(elem).map(|n| (n, 1))
}

/// The typed parameters of `sig` with their types.
fn typed_params(sig: &syn::Signature) -> Vec<(String, &syn::Type, bool)> {
    sig.inputs
        .iter()
        .filter_map(|a| match a {
            syn::FnArg::Typed(pt) => match &*pt.pat {
                syn::Pat::Ident(pi) => {
                    let inout =
                        matches!(&*pt.ty, syn::Type::Reference(r) if r.mutability.is_some());
                    Some((pi.ident.to_string(), &*pt.ty, inout))
                }
                _ => None,
            },
            _ => None,
        })
        .collect()
}

/// The read-only plain-float parameters of a generic function, with the number of indices
/// that reach a float (`x: &[f64]` → 1): the emitter converts `x[i]` in an instruction to
/// the target's number type. Empty for a function without type parameters (its numbers
/// are concrete, nothing to convert).
pub fn float_data(sig: &syn::Signature) -> HashMap<String, usize> {
    if sig.generics.type_params().next().is_none() {
        return HashMap::new();
    }
    typed_params(sig)
        .into_iter()
        .filter(|(_, _, inout)| !inout)
        .filter_map(|(n, ty, _)| Some((n, float_elem(ty)?)))
        .filter(|(_, (float, _))| !bounds_mention(sig, float))
        .map(|(n, (_, depth))| (n, depth))
        .collect()
}

/// Do the generic bounds name `float` (`where T: PlusEq2<Mul, T, f64>`)? Then the function
/// asked for mixed-type instructions itself: its data is passed as it is.
fn bounds_mention(sig: &syn::Signature, float: &str) -> bool {
    mentions_name(&sig.generics, float)
        || sig
            .generics
            .where_clause
            .as_ref()
            .is_some_and(|w| mentions_name(w, float))
}

/// Is `p` an element of float data (`x[i]` for `x: &[f64]`, `n` for `n: f64`)?
pub fn is_float_datum(data: &HashMap<String, usize>, p: &Place) -> bool {
    data.get(&p.root.to_string()) == Some(&p.path.len())
        && p.path.iter().all(|j| matches!(j, Proj::Index(_)))
}

/// Instructions whose target is made of a type parameter (`z: &mut T`) and that read an
/// in-out plain-float parameter (`x: &mut [f64]`): one error per operand, at the operand.
pub fn mixed_inout_floats(sig: &syn::Signature, body: &[Stmt], errors: &mut Errors) {
    let generics: Vec<String> = sig
        .generics
        .type_params()
        .map(|t| t.ident.to_string())
        .collect();
    if generics.is_empty() {
        return;
    }
    let params = typed_params(sig);
    struct Check<'a> {
        sig: &'a syn::Signature,
        generics: &'a [String],
        params: &'a [(String, &'a syn::Type, bool)],
        errors: &'a mut Errors,
    }
    impl<'ir> Visit<'ir> for Check<'_> {
        fn visit_stmt(&mut self, s: &'ir Stmt) {
            if let StmtKind::Instr(i) = &s.kind {
                let generic_target = match &i.target {
                    Operand::Place(t) => self.params.iter().find_map(|(n, ty, _)| {
                        (t.root == n.as_str())
                            .then(|| self.generics.iter().find(|g| mentions_name(*ty, g)))
                            .flatten()
                            .map(|g| (t, g))
                    }),
                    _ => None,
                };
                if let Some((t, g)) = generic_target {
                    for a in &i.args {
                        let Operand::Place(p) = a else { continue };
                        let root = p.root.to_string();
                        let Some((_, ty, true)) = self.params.iter().find(|(n, ..)| *n == root)
                        else {
                            continue;
                        };
                        let Some((float, depth)) = float_elem(ty) else {
                            continue;
                        };
                        if p.path.len() != depth || bounds_mention(self.sig, &float) {
                            continue;
                        }
                        let data = if depth == 0 {
                            float.clone()
                        } else {
                            format!("&[{float}]")
                        };
                        self.errors.push_range(
                            p.span,
                            p.end,
                            format!(
                                "`{root}` is an in-out `{float}` parameter but the target `{}` \
                                 of this instruction is made of `{g}`: one instruction works \
                                 on one number type. If `{root}` is data, pass it read-only \
                                 (`{root}: {data}`: read-only float data is converted to `{g}`, \
                                 with no gradient); if it is a variable, make it `{g}` too",
                                t.root
                            ),
                        );
                    }
                }
            }
            walk_stmt(self, s);
        }
    }
    walk_block(
        &mut Check {
            sig,
            generics: &generics,
            params: &params,
            errors,
        },
        body,
    );
}
