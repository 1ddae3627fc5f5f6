//! Calls of reversible functions: `f(&mut x, y, &z)`, `m::f::<T>(..)`, `x.f(..)`.
use super::Parser;
use crate::ir::*;
use crate::syntax::place_of;
use syn::spanned::Spanned;
use syn::Expr;

impl Parser<'_> {
    /// A path call `f(args)`.
    pub(super) fn call(&mut self, c: &syn::ExprCall) -> Option<StmtKind> {
        let Expr::Path(p) = &*c.func else {
            self.errors
                .push(c.func.span(), "only named functions can be called");
            return None;
        };
        Some(StmtKind::Call(Call {
            callee: Callee::Path(p.clone()),
            args: c.args.iter().map(call_arg).collect(),
            inverse: false,
        }))
    }

    /// A method call `recv.f(args)` on a place.
    pub(super) fn method_call(&mut self, mc: &syn::ExprMethodCall) -> Option<StmtKind> {
        let Some(receiver) = place_of(&mc.receiver).filter(|p| !p.neg) else {
            self.errors.push(
                mc.receiver.span(),
                "the receiver of a reversible method call must be a variable or field",
            );
            return None;
        };
        Some(StmtKind::Call(Call {
            callee: Callee::Method {
                receiver,
                method: mc.method.clone(),
                turbofish: mc.turbofish.clone(),
            },
            args: mc.args.iter().map(call_arg).collect(),
            inverse: false,
        }))
    }
}

fn call_arg(e: &Expr) -> CallArg {
    match e {
        // an argument from a `macro_rules!` fragment (`$x:expr`) arrives in an invisible group
        Expr::Group(g) => call_arg(&g.expr),
        Expr::Reference(r) if r.mutability.is_some() => match place_of(&r.expr) {
            Some(p) if !p.neg => CallArg::InOut(p),
            _ => CallArg::Read(e.clone()),
        },
        Expr::Path(p) if p.path.get_ident().is_some() => match place_of(e) {
            // a bare name: in-out if it is a `&mut` parameter (decided when emitting)
            Some(pl) => CallArg::Name(pl),
            None => CallArg::Read(e.clone()),
        },
        _ => CallArg::Read(e.clone()),
    }
}
