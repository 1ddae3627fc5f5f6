//! Stack operations (`push!`, `pop!`, `copy_push!`, `copy_pop!`) and `fresh!` workspaces.
use super::{loc, Emitter};
use crate::ir::*;
use proc_macro2::TokenStream;
use quote::quote;

impl Emitter {
    /// `push!(stack, x)` and the like.
    pub(super) fn stack(
        &mut self,
        kind: &StackKind,
        stack: &Place,
        value: &Place,
        s: &Stmt,
    ) -> TokenStream {
        let l = loc(s.span);
        let text = &s.text;
        let mut hoist = quote!();
        let (mut stack, mut value) = (stack.clone(), value.clone());
        self.hoist_place(&mut stack, &mut hoist);
        self.hoist_place(&mut value, &mut hoist);
        let st = self.place(&stack);
        let v = self.place(&value);
        let op = match (kind, s.check) {
            (StackKind::Push, _) => {
                quote!(::nilang::instr::stack::push(&mut #st, &mut #v);)
            }
            (StackKind::CopyPush, _) => {
                quote!(::nilang::instr::stack::copy_push(&mut #st, &mut #v);)
            }
            (StackKind::Pop, true) => {
                quote!(::nilang::instr::stack::pop(&mut #st, &mut #v, #l, #text);)
            }
            (StackKind::Pop, false) => {
                quote!(::nilang::instr::stack::pop_unchecked(&mut #st, &mut #v);)
            }
            (StackKind::CopyPop, true) => {
                quote!(::nilang::instr::stack::copy_pop(&mut #st, &mut #v, #l, #text);)
            }
            (StackKind::CopyPop, false) => {
                quote!(::nilang::instr::stack::copy_pop_unchecked(&mut #st, &mut #v);)
            }
        };
        quote!({ #hoist #op })
    }

    /// `fresh!(ws, ..)`.
    pub(super) fn fresh_workspaces(&mut self, ps: &[Place], s: &Stmt) -> TokenStream {
        let l = loc(s.span);
        let text = &s.text;
        let mut hoist = quote!();
        let calls = ps.iter().map(|p| {
            let mut p = p.clone();
            self.hoist_place(&mut p, &mut hoist);
            let w = self.place(&p);
            if s.check {
                quote!(::nilang::instr::fresh::fresh(&mut #w, #l, #text);)
            } else {
                quote!(::nilang::instr::fresh::fresh_unchecked(&mut #w);)
            }
        });
        let calls: Vec<TokenStream> = calls.collect();
        quote!({ #hoist #(#calls)* })
    }
}
