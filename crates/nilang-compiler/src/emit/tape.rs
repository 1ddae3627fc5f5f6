//! The store tape in a function whose `#[store]` routines store on it (`lower/store.rs`): each
//! body (forward, inverse, value-only, adjoint-only, and so each level copy of
//! `crate::lanes`) opens one `nilang::tape::Cursor` at its start (with its `Guard`, which hands
//! the tape back on a panic) and closes it at its end; the routines' stores are calls on it (a
//! key comparison, one capacity check and a copy per routine, the tape's end in a local), and
//! it is released around every statement that may run other code storing on the same tape
//! (calls of reversible functions, `safe!`), and taken again after.
//!
//! A `for` loop whose body makes a fixed number of store calls of one routine per iteration
//! and nothing else with the tape (`crate::lower::store::fixed_stores`) takes a loop window
//! from the cursor around the loop (`nilang::tape::PushLoop` before a loop that pushes, told
//! the loop's count of pushes; `PopLoop` before one that pops), and its store calls go
//! through the window: one reservation and one type check per loop instead of a key and
//! capacity check per push and per pop. Other loops use the cursor's own calls.
use super::Emitter;
use crate::ir::*;
use proc_macro2::{Span, TokenStream};
use quote::{format_ident, quote, quote_spanned};

/// The cursor's variable.
fn cursor() -> syn::Ident {
    format_ident!("__nilang_tape", span = Span::mixed_site())
}

/// The variable of a loop window of the tape.
fn tape_loop() -> syn::Ident {
    format_ident!("__nilang_tape_loop", span = Span::mixed_site())
}

impl Emitter {
    /// The body of a function: `stmts`, after the opening of a tape cursor when they store.
    pub fn body(&mut self, stmts: &[Stmt]) -> TokenStream {
        self.cursor = crate::lower::store::stores(stmts);
        let body = self.block(stmts);
        if !self.cursor {
            return body;
        }
        let (c, g) = (
            cursor(),
            format_ident!("__nilang_tape_guard", span = Span::mixed_site()),
        );
        quote! {
            let mut #g = ::nilang::tape::Guard::new();
            #[allow(unused_mut)]
            let mut #c = #g.open();
            #body
            #c.close();
        }
    }

    /// The call of the store tape `c` (with its arguments `args`), on the cursor; `None` for
    /// another call, or in a body without cursor.
    pub(super) fn tape_call(
        &self,
        c: &Call,
        args: &[TokenStream],
        s: &Stmt,
    ) -> Option<TokenStream> {
        if !self.cursor {
            return None;
        }
        let m = crate::lower::store::cursor_method(c)?;
        let cur = self.tape_loop.clone().unwrap_or_else(cursor);
        Some(quote_spanned!(s.span=> #cur.#m(#(#args),*);))
    }

    /// Before emitting the body of a loop: when its store calls can go through a loop
    /// window, the window's variable made the receiver of the store calls (see the module
    /// documentation); returns the window's kind (`(store calls per iteration, pops)`) and
    /// the receiver to restore after the body with [`Emitter::leave_tape_loop`].
    pub(super) fn enter_tape_loop(
        &mut self,
        body: &[Stmt],
    ) -> (Option<(usize, bool)>, Option<syn::Ident>) {
        let window = if self.cursor {
            crate::lower::store::fixed_stores(body)
        } else {
            None
        };
        let saved = self.tape_loop.clone();
        if window.is_some() {
            self.tape_loop = Some(tape_loop());
        }
        (window, saved)
    }

    /// After emitting a loop's body: the receiver of store calls restored.
    pub(super) fn leave_tape_loop(&mut self, saved: Option<syn::Ident>) {
        self.tape_loop = saved;
    }

    /// `run`, the loop, inside the loop window `window` (from [`Emitter::enter_tape_loop`]),
    /// its iterator `it`: after a `PushLoop` told the loop's count of pushes, or a `PopLoop`.
    pub(super) fn in_tape_loop(
        &self,
        window: Option<(usize, bool)>,
        it: &TokenStream,
        run: TokenStream,
    ) -> TokenStream {
        let Some((calls, pops)) = window else {
            return run;
        };
        let (c, l) = (cursor(), tape_loop());
        let open = if pops {
            quote!(#c.pop_loop())
        } else {
            quote!(#c.push_loop(::core::primitive::usize::saturating_mul(
                ::core::iter::Iterator::size_hint(&#it).0,
                #calls,
            )))
        };
        quote!({ let mut #l = #open; #run #l.end(); })
    }

    /// `t`, a statement that may run code storing on the tape, with the cursor released
    /// around it.
    pub(super) fn cursor_released(&self, t: TokenStream) -> TokenStream {
        if !self.cursor {
            return t;
        }
        let c = cursor();
        quote!({ #c.release(); #t #c.acquire(); })
    }
}
