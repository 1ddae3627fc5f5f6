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
        let (mut pre, mut post) = (quote!(), quote!());
        let st = self.borrow_mut(&stack, &mut pre, &mut post);
        let v = self.borrow_mut(&value, &mut pre, &mut post);
        let op = match (kind, s.check) {
            (StackKind::Push, _) => {
                quote!(::nilang::instr::stack::push(#st, #v);)
            }
            (StackKind::CopyPush, _) => {
                quote!(::nilang::instr::stack::copy_push(#st, #v);)
            }
            (StackKind::Pop, true) => {
                quote!(::nilang::instr::stack::pop(#st, #v, #l, #text);)
            }
            (StackKind::Pop, false) => {
                quote!(::nilang::instr::stack::pop_unchecked(#st, #v);)
            }
            (StackKind::CopyPop, true) => {
                quote!(::nilang::instr::stack::copy_pop(#st, #v, #l, #text);)
            }
            (StackKind::CopyPop, false) => {
                quote!(::nilang::instr::stack::copy_pop_unchecked(#st, #v);)
            }
        };
        quote!({ #hoist #pre #op #post })
    }

    /// `fresh!(ws, ..)`.
    pub(super) fn fresh_workspaces(&mut self, ps: &[Place], s: &Stmt) -> TokenStream {
        let l = loc(s.span);
        let text = &s.text;
        let mut hoist = quote!();
        let calls = ps.iter().map(|p| {
            let mut p = p.clone();
            self.hoist_place(&mut p, &mut hoist);
            let (mut pre, mut post) = (quote!(), quote!());
            let w = self.borrow_mut(&p, &mut pre, &mut post);
            if s.check {
                quote!(#pre ::nilang::instr::fresh::fresh(#w, #l, #text); #post)
            } else {
                quote!(#pre ::nilang::instr::fresh::fresh_unchecked(#w); #post)
            }
        });
        let calls: Vec<TokenStream> = calls.collect();
        quote!({ #hoist #(#calls)* })
    }
}
