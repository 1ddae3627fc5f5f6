//! Activity analysis: which local `f64` variables and arrays can carry a derivative. A local
//! is *varied* when some assignment gives it a value that reads a differentiated parameter
//! or a varied local (to a fixed point over loops), the result of an `#[ad]` call, or when an
//! `#[i]` call writes it. The others depend on `#[data]` parameters and constants only: they
//! are *passive* ([`Func::passive`]), so they get no adjoint code, and the operations that
//! read only them (and data) get none either: `let mut s = 0.0; for i in .. { s += x[i]; }`
//! over data `x` costs the adjoint nothing. The values of passive locals are still recorded
//! where the adjoint reads them (a factor of a differentiated product), by the same rules as
//! any value.
use super::ir::*;
use std::collections::HashSet;

/// Mark the passive locals of the lowered `f` (never the result variable).
///
/// ```
/// let s = nilang_compiler::ordinary::show(quote::quote!(
///     fn f(#[data] x: &[f64], w: f64) -> f64 {
///         let mut m = 0.0;
///         for i in 0..x.len() {
///             m += x[i] * x[i];
///         }
///         m * w
///     }
/// ))
/// .unwrap();
/// // `m` reads data only: no adjoint variable is updated for it
/// assert!(!s.vjp.contains("m__bar +="), "{}", s.vjp);
/// ```
pub fn analyze(f: &mut Func) {
    let mut varied = HashSet::new();
    loop {
        let before = varied.len();
        block(f, &f.body, &mut varied);
        if varied.len() == before {
            break;
        }
    }
    let ret = super::lower::ret().to_string();
    f.passive = f
        .vars
        .iter()
        .filter(|v| matches!(v.kind, Kind::Active | Kind::Array))
        .map(|v| v.name.to_string())
        .filter(|n| *n != ret && !varied.contains(n))
        .collect();
}

/// Whether a read of `p` may carry a derivative, given the varied locals so far.
fn reads_varied(f: &Func, p: &Place, varied: &HashSet<String>) -> bool {
    let root = match p {
        Place::Var(v) | Place::Elem(v, _) => v,
    };
    let differentiated = match p {
        Place::Var(_) => f.kind(root) == Some(Kind::Active),
        Place::Elem(..) => f.kind(root) == Some(Kind::Array),
    };
    differentiated && (f.is_param(root) || varied.contains(&root.to_string()))
}

fn expr_varied(f: &Func, e: &Expr, varied: &HashSet<String>) -> bool {
    match e {
        Expr::Const(_) => false,
        Expr::Read(p) => reads_varied(f, p, varied),
        Expr::Bin(_, a, b) | Expr::Binary(_, a, b) => {
            expr_varied(f, a, varied) || expr_varied(f, b, varied)
        }
        Expr::Neg(a) | Expr::Unary(_, a) | Expr::Powi(a, _) => expr_varied(f, a, varied),
        Expr::Call(..) => true,
    }
}

fn block(f: &Func, b: &[Stmt], varied: &mut HashSet<String>) {
    for s in b {
        match s {
            Stmt::Assign { target, value } => {
                if expr_varied(f, value, varied) {
                    let (Place::Var(v) | Place::Elem(v, _)) = target;
                    varied.insert(v.to_string());
                }
            }
            Stmt::Call { target, .. } => {
                varied.insert(target.to_string());
            }
            Stmt::Reversible { args, .. } => {
                for p in args {
                    let (Place::Var(v) | Place::Elem(v, _)) = p;
                    varied.insert(v.to_string());
                }
            }
            Stmt::Array {
                name,
                init: ArrayInit::CopyOf(x),
            } if f.kind(x) == Some(Kind::Array) => {
                varied.insert(name.to_string());
            }
            Stmt::If { arms, otherwise } => {
                for (_, body) in arms {
                    block(f, body, varied);
                }
                block(f, otherwise, varied);
            }
            Stmt::For { body, .. } | Stmt::While { body, .. } => block(f, body, varied),
            Stmt::Array { .. } | Stmt::Inactive { .. } | Stmt::Return(_) => {}
        }
    }
}
