//! Emission of adjoint-only uncomputation (see [`crate::adjoint`]): instructions whose target
//! is never read again run `plus_eq_adjoint`/`minus_eq_adjoint`, calls go to the callee's
//! variant `g::__adj`, and the uncomputation of a routine on `fresh!` workspaces runs so and
//! then zeroes their values.
use super::Emitter;
use crate::adjoint::{first_read, fresh_before, loop_private, read_after, writes_any, Ctx, Key};
use crate::analyze::ParamKind;
use crate::cond::Cond;
use crate::ir::*;
use proc_macro2::{Span, TokenStream};
use quote::{format_ident, quote};

/// The places whose value updates may be skipped, and whether they are read later.
#[derive(Clone)]
pub(crate) struct Adj {
    /// The candidates: `&mut` parameters of an `__adj` variant, or the `fresh!` workspaces of
    /// an uncomputed routine.
    pub cands: Vec<Key>,
    /// Per candidate: whether it is read after the statement list being emitted.
    pub out: Vec<Cond>,
    /// Per candidate: whether it is read after the statement being emitted.
    pub cur: Vec<Cond>,
}

impl Adj {
    /// The state of an `__adj` variant: its `&mut` parameters `(index, name)`, read after the
    /// body unless their bit of `__nilang_dead` is set.
    pub fn variant(params: &[(usize, syn::Ident)]) -> Adj {
        let cands: Vec<Key> = params.iter().map(|(_, n)| Key::of_name(n)).collect();
        let out: Vec<Cond> = params
            .iter()
            .map(|(j, _)| {
                let j = *j as u32;
                Cond::Any(vec![quote!(((__nilang_dead >> #j) & 1 == 0))])
            })
            .collect();
        Adj {
            cur: out.clone(),
            cands,
            out,
        }
    }
}

/// `!(c1 || c2 ..)` (`None`: certainly read).
fn not_read(m: &Cond) -> Option<TokenStream> {
    match m {
        Cond::True => None,
        c => Some(quote!(!(#c))),
    }
}

impl Emitter {
    fn adj_ctx_inout(&self) -> impl Fn(&str) -> bool + '_ {
        |n: &str| self.params.get(n) == Some(&ParamKind::InOut)
    }

    /// Per statement of `stmts`, per candidate: whether it is read after the statement (when
    /// emitting adjoint-only).
    pub(super) fn adj_after(&self, stmts: &[Stmt]) -> Option<Vec<Vec<Cond>>> {
        let adj = self.adj.as_ref()?;
        if self.primal.is_some() {
            return None;
        }
        let inout = self.adj_ctx_inout();
        let cx = Ctx {
            inout: &inout,
            fname: "",
        };
        Some(
            adj.cands
                .iter()
                .zip(&adj.out)
                .map(|(key, out)| read_after(stmts, key, out, &cx))
                .collect(),
        )
    }

    /// Enter statement `k` of `stmts` (`after` from [`Emitter::adj_after`]): the candidates'
    /// liveness after it and after the statement lists nested in it. Returns the state to
    /// restore.
    pub(super) fn adj_enter(
        &mut self,
        stmts: &[Stmt],
        k: usize,
        after: &Option<Vec<Vec<Cond>>>,
    ) -> Option<Adj> {
        let after = after.as_ref()?;
        let saved = self.adj.clone()?;
        let inout = self.adj_ctx_inout();
        let cx = Ctx {
            inout: &inout,
            fname: "",
        };
        let cur: Vec<Cond> = after.iter().map(|a| a[k].clone()).collect();
        let out: Vec<Cond> = match &stmts[k].kind {
            StmtKind::For { var, iter, body } => saved
                .cands
                .iter()
                .zip(&cur)
                .map(|(key, a)| {
                    if matches!(iter, ForIter::Range(_)) && loop_private(body, var, key) {
                        a.clone()
                    } else {
                        first_read(body, key, &cx).0.or(a.clone())
                    }
                })
                .collect(),
            StmtKind::While { .. } | StmtKind::DoLoop { .. } => vec![Cond::True; cur.len()],
            _ => cur.clone(),
        };
        drop(inout);
        let adj = self.adj.as_mut().expect("checked");
        adj.cur = cur;
        adj.out = out;
        Some(saved)
    }

    /// Leave a statement entered by [`Emitter::adj_enter`].
    pub(super) fn adj_leave(&mut self, saved: Option<Adj>) {
        if let Some(a) = saved {
            self.adj = Some(a);
        }
    }

    /// The condition under which an instruction's target `p` is never read again (its value
    /// update may be skipped), if it may be.
    pub(super) fn adj_dead(&self, p: &Place) -> Option<TokenStream> {
        let adj = self.adj.as_ref()?;
        if self.primal.is_some() {
            return None;
        }
        let c = adj.cands.iter().position(|key| key.covers(p))?;
        not_read(&adj.cur[c])
    }

    /// A call whose in-out arguments include candidates never read again: the callee's
    /// variant `g::__adj(g, dead, (args..))`, by way of a closure that the ordinary call
    /// emission calls.
    pub(super) fn adj_call(&mut self, c: &Call, s: &Stmt) -> Option<TokenStream> {
        let adj = self.adj.as_ref()?;
        if self.primal.is_some() {
            return None;
        }
        let p = crate::primal::plain_analysed_callee(c)?;
        let inout = self.adj_ctx_inout();
        let mut bits = vec![];
        for (k, a) in c.args.iter().enumerate().take(64) {
            let Some(pl) = a.inout_place(&inout) else {
                continue;
            };
            let Some(ci) = adj.cands.iter().position(|key| key.covers(pl)) else {
                continue;
            };
            if let Some(dead) = not_read(&adj.cur[ci]) {
                let k = k as u32;
                bits.push(quote!((((#dead) as u64) << #k)));
            }
        }
        drop(inout);
        if bits.is_empty() {
            return None;
        }
        let marker = crate::primal::marker_path(p, c.inverse);
        let mut fpath = p.clone();
        if c.inverse {
            if let Some(last) = fpath.path.segments.last_mut() {
                last.ident = format_ident!("{}_inv", last.ident, span = last.ident.span());
            }
        }
        let clo = self.fresh("adj");
        let names: Vec<syn::Ident> = (0..c.args.len())
            .map(|k| format_ident!("__nilang_a{}", k, span = Span::mixed_site()))
            .collect();
        let call = Call {
            callee: Callee::Path(syn::parse_quote!(#clo)),
            args: c.args.clone(),
            inverse: false,
        };
        let body = self.call(&call, s);
        let adj = marker.item(quote!(__adj(#fpath, 0u64 #(| #bits)*, (#(#names,)*))));
        Some(quote!({
            let #clo = |#(#names),*| #adj;
            #body
        }))
    }

    /// The uncomputation `stmts[m]` (an `unroutine!()`) of a routine whose writes go to
    /// `fresh!` workspaces, without checks: emitted adjoint-only on those workspaces, whose
    /// values are then set to zero (what they were before the routine), where their numbers
    /// skip value work so (`Fresh::VALUES_SKIPPED`), and as the ordinary uncomputation
    /// otherwise.
    pub(super) fn adj_undo(&mut self, stmts: &[Stmt], m: usize) -> Option<TokenStream> {
        if self.adj.is_some() || self.primal.is_some() {
            return None;
        }
        let s = &stmts[m];
        let StmtKind::Routine {
            body: undo,
            undo: true,
        } = &s.kind
        else {
            return None;
        };
        if s.check || undo.iter().any(|u| matches!(u.kind, StmtKind::Alloc(_))) {
            return None;
        }
        // the matching routine
        let mut depth = 0usize;
        let mut k = None;
        for j in (0..m).rev() {
            match &stmts[j].kind {
                StmtKind::Routine { undo: true, .. } => depth += 1,
                StmtKind::Routine { undo: false, .. } if depth == 0 => {
                    k = Some(j);
                    break;
                }
                StmtKind::Routine { undo: false, .. } => depth -= 1,
                _ => {}
            }
        }
        let k = k?;
        let StmtKind::Routine { body, undo: false } = &stmts[k].kind else {
            return None;
        };
        if crate::one_pass::uses_tape(body) {
            return None;
        }
        let cands = fresh_before(stmts, k);
        if cands.is_empty() {
            return None;
        }
        let is_var = |n: &str| self.is_variable_name(n);
        let inout = |n: &str| self.params.get(n) == Some(&ParamKind::InOut);
        let mut d = crate::primal::no_adjoint_before(stmts, k, &is_var);
        let cond = crate::primal::writes_only_no_adjoint(body, &mut d, &inout, &is_var);
        if cond.is_false() {
            return None;
        }
        if writes_any(&stmts[k + 1..m], &cands, &inout) {
            return None;
        }
        let n = cands.len();
        self.adj = Some(Adj {
            cands: cands.clone(),
            out: vec![Cond::False; n],
            cur: vec![Cond::False; n],
        });
        let fast = self.stmt(s);
        self.adj = None;
        let resets: Vec<TokenStream> = cands
            .iter()
            .map(|c| {
                let pe = self.place(&c.place);
                quote!(::nilang::instr::fresh::Fresh::zero_values(&mut #pe);)
            })
            .collect();
        // in a loop body that starts by making every one of them fresh, and reads none of
        // them after this statement, the next iteration overwrites them: the reset is needed
        // after the last iteration only
        let resets = match self.loops.last() {
            Some((first, len, last))
                if *first == stmts.as_ptr()
                    && *len == stmts.len()
                    && cands.iter().all(|c| {
                        let inout = |n: &str| self.params.get(n) == Some(&ParamKind::InOut);
                        let cx = Ctx {
                            inout: &inout,
                            fname: "",
                        };
                        let (read, killed) = first_read(stmts, c, &cx);
                        killed
                            && read.is_false()
                            && crate::adjoint::reads_block(&stmts[m + 1..], c, &cx).is_false()
                    }) =>
            {
                quote!(if #last { #(#resets)* })
            }
            _ => quote!(#(#resets)*),
        };
        // only on numbers whose adjoint-only instructions skip value work (gradient numbers):
        // on any other the ordinary uncomputation computes the same at no extra cost (its
        // inverse program costs what the forward costs); a constant after monomorphisation
        let skipped: Vec<TokenStream> = cands
            .iter()
            .map(|c| {
                let pe = self.place(&c.place);
                quote!(::nilang::instr::fresh::values_skipped(&#pe))
            })
            .collect();
        let flag = self.fresh("ADJ");
        let slow = self.stmt(s);
        Some(quote! {
            #[allow(non_upper_case_globals)] const #flag: bool = #cond;
            if #flag && (false #(|| #skipped)*) { #fast #resets } else { #slow }
        })
    }
}
