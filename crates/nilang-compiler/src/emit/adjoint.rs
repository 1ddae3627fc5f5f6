//! Emission of adjoint-only uncomputation (see [`crate::ad::adjoint`]): instructions whose target
//! is never read again run `plus_eq_adjoint`/`minus_eq_adjoint`, calls go to the callee's
//! variant `g::__adj`, and the uncomputation of a routine on `fresh!` workspaces runs so and
//! then zeroes their values. Liveness is read from the facts ([`crate::facts::Facts::reads`],
//! `kills`, `loop_reads`, `undo`) and combined here with what the caller knows (`__nilang_dead`).
use super::Emitter;
use crate::abi;
use crate::analyze::ParamKind;
use crate::cond::Cond;
use crate::facts::{Key, Skip};
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
    /// Whether this is the adjoint-only uncomputation of a routine ([`Emitter::adj_undo`]),
    /// whose calls may be told [`abi::FRESH_TARGET`] ([`crate::facts::Facts::fresh_target`]).
    pub undo: bool,
}

impl Adj {
    /// The state of an `__adj` variant: its `&mut` parameters `(index, name)`, read after the
    /// body unless their bit of `__nilang_dead` is set.
    pub fn variant(params: &[(usize, Key)]) -> Adj {
        let cands: Vec<Key> = params.iter().map(|(_, n)| n.clone()).collect();
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
            undo: false,
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
        Some(
            adj.cands
                .iter()
                .zip(&adj.out)
                .map(|(key, out)| {
                    let mut after = vec![Cond::False; stmts.len()];
                    let mut acc = out.clone();
                    for k in (0..stmts.len()).rev() {
                        after[k] = acc.clone();
                        acc = if self.facts.kills(stmts[k].id, key) {
                            Cond::False
                        } else {
                            self.facts.reads(stmts[k].id, key).or(acc)
                        };
                    }
                    after
                })
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
        let cur: Vec<Cond> = after.iter().map(|a| a[k].clone()).collect();
        let s = &stmts[k];
        let out: Vec<Cond> = match &s.kind {
            StmtKind::For { .. } => saved
                .cands
                .iter()
                .zip(&cur)
                .map(|(key, a)| match self.facts.loop_reads(s.id, key) {
                    // loop-private (or read by no iteration before it is written)
                    Cond::False => a.clone(),
                    carried => carried.or(a.clone()),
                })
                .collect(),
            StmtKind::While { .. } | StmtKind::DoLoop { .. } => vec![Cond::True; cur.len()],
            _ => cur.clone(),
        };
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
    /// emission calls; in an adjoint-only uncomputation, with [`abi::FRESH_TARGET`] where the
    /// call's target holds the result of the call undone.
    pub(super) fn adj_call(&mut self, c: &Call, s: &Stmt) -> Option<TokenStream> {
        let adj = self.adj.as_ref()?;
        if self.primal.is_some() {
            return None;
        }
        let p = crate::abi::plain_analysed_callee(c)?;
        let inout = self.adj_ctx_inout();
        let (mut bits, ty) = (vec![], abi::mask_type());
        for (k, a) in c.args.iter().enumerate() {
            let Some(k) = abi::dead_bit(k) else {
                break;
            };
            let Some(pl) = a.inout_place(&inout) else {
                continue;
            };
            let Some(ci) = adj.cands.iter().position(|key| key.covers(pl)) else {
                continue;
            };
            if let Some(dead) = not_read(&adj.cur[ci]) {
                bits.push(quote!((((#dead) as #ty) << #k)));
            }
        }
        drop(inout);
        if let Some(fresh) = adj.undo.then(|| self.facts.fresh_target(s.id)).flatten() {
            let bit = abi::mask_lit(abi::FRESH_TARGET);
            // not where the call undone was skipped (its target holds zero, not its result);
            // inside the adjoint-only uncomputation, its condition holds already
            let skipped = self.facts.skip_undone(s.id).and_then(|k| self.skip_cond(k));
            let fresh = match skipped {
                Some(k) => quote!((#fresh) && !(#k)),
                None => quote!(#fresh),
            };
            bits.push(quote!((((#fresh) as #ty) * #bit)));
        }
        if bits.is_empty() {
            return None;
        }
        let marker = crate::abi::marker_path(p, c.inverse);
        let mut fpath = p.clone();
        if c.inverse {
            if let Some(last) = fpath.path.segments.last_mut() {
                last.ident = abi::inverse_name(&last.ident);
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
        let (adj, zero) = (abi::item(abi::ADJOINT), abi::mask_lit(0));
        // the function value tagged with the caller's instruction-set level (see
        // `crate::lanes`): the callee's instance differs by level, so each has one caller
        // and LLVM inlines it into that level's code (a callee of more parameters takes
        // them by name, with an `FnOnce` bound: untagged)
        let fpath = if c.args.len() <= abi::MAX_CALL_TUPLE {
            quote!(::nilang::simd::Level::<__NILANG_ISA, _>(#fpath))
        } else {
            quote!(#fpath)
        };
        let adj = marker.item(quote!(#adj(#fpath, #zero #(| #bits)*, (#(#names,)*))));
        Some(quote!({
            let #clo = |#(#names),*| #adj;
            #body
        }))
    }

    /// The condition under which a call of a recomputed routine whose results nothing reads
    /// is skipped ([`crate::facts::Facts::skip`], see [`crate::ad::value_dead`]), given that its
    /// uncomputation runs adjoint-only: the callees' analyses agree and the dead parameters'
    /// bits are set. `None` where a bit is needed and `__nilang_dead` is not in scope.
    fn skip_cond(&self, skip: &Skip) -> Option<TokenStream> {
        if !skip.dead.is_empty() && !self.dead_in_scope {
            return None;
        }
        let bits = skip.dead.iter().map(|&j| {
            let j = j as u32;
            quote!(((__nilang_dead >> #j) & 1 == 1))
        });
        let cond = &skip.cond;
        Some(quote!((#cond) #(&& #bits)*))
    }

    /// Statement `s` (emitted as `t`) of a routine recomputed value-only: skipped where its
    /// results are read by nothing ([`Emitter::skip_cond`]) and its uncomputation runs
    /// adjoint-only (that uncomputation's condition, [`Emitter::adj_undo`]'s), which leaves the
    /// workspaces zero whatever they held.
    pub(super) fn value_dead_skipped(&self, s: &Stmt, t: TokenStream) -> TokenStream {
        if self.primal.is_none() {
            return t;
        }
        let facts = &self.facts;
        let Some((skip, undo)) = facts
            .skip(s.id)
            .and_then(|k| Some((k, facts.undo(k.undo)?)))
        else {
            return t;
        };
        let Some(c) = self.skip_cond(skip) else {
            return t;
        };
        let skipped = undo.cands.iter().map(|c| {
            let pe = self.place(&c.place);
            quote!(::nilang::instr::fresh::values_skipped(&#pe))
        });
        let cond = &undo.cond;
        quote!(if !((#cond) && (false #(|| #skipped)*) && #c) { #t })
    }

    /// The uncomputation `stmts[m]` (an `unroutine!()`) of a routine whose writes go to
    /// `fresh!` workspaces, without checks: emitted adjoint-only on those workspaces, whose
    /// values are then set to zero (what they were before the routine), where their numbers
    /// skip value work so (`Fresh::VALUES_SKIPPED`), and as the ordinary uncomputation
    /// otherwise.
    ///
    /// Inside an `__adj` variant (whose dead parameters are another `Adj`) the same, but a
    /// workspace within a `&mut` parameter that nothing reads afterwards (its bit of
    /// `__nilang_dead` set, no later statement reading it: the `zero(..)` workspaces a `Plan`
    /// names by `Reversible::workspaces`) is not reset: its values are left as the adjoint-only
    /// uncomputation leaves them (the recomputed ones), which nothing reads. The slow branch is
    /// the variant's own.
    pub(super) fn adj_undo(&mut self, stmts: &[Stmt], m: usize) -> Option<TokenStream> {
        if self.adj.as_ref().is_some_and(|a| a.undo) || self.primal.is_some() {
            return None;
        }
        let s = &stmts[m];
        let facts = self.facts.clone();
        let undo = facts.undo(s.id)?;
        let (cands, cond) = (&undo.cands, &undo.cond);
        let n = cands.len();
        let variant = self.adj.take();
        self.adj = Some(Adj {
            cands: cands.clone(),
            out: vec![Cond::False; n],
            cur: vec![Cond::False; n],
            undo: true,
        });
        let fast = self.stmt(s);
        self.adj = variant;
        let resets: Vec<TokenStream> = cands
            .iter()
            .map(|c| {
                let (mut pre, mut post) = (quote!(), quote!());
                let pe = self.borrow_mut(&c.place, &mut pre, &mut post);
                let reset = quote!(#pre ::nilang::instr::fresh::Fresh::zero_values(#pe); #post);
                // inside an `__adj` variant, a workspace within a parameter that nothing reads
                // afterwards (its bit of `__nilang_dead` set, no later statement reading it)
                // keeps the values left: a `Plan` rewrites them at its next call
                let dead = self.adj.as_ref().and_then(|v| {
                    let i = v.cands.iter().position(|key| key.covers(&c.place))?;
                    not_read(&v.cur[i])
                });
                match dead {
                    Some(dead) => quote!(if !(#dead) { #reset }),
                    None => reset,
                }
            })
            .collect();
        // in a loop body that starts by making every one of them fresh, and reads none of
        // them after this statement, the next iteration overwrites them: the reset is needed
        // after the last iteration only
        let resets = match self.loops.last() {
            Some((first, len, last))
                if undo.defer_reset
                    && *first == stmts.first().map(|s| s.id)
                    && *len == stmts.len() =>
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
                let pe = self.value_of(&c.place);
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
