//! The store tape in a function whose `#[store]` routines store on it (`lower/store.rs`): each
//! body (forward, inverse, value-only, adjoint-only, and so each level copy of
//! `crate::lanes`) opens one `nilang::tape::Cursor` at its start (with its `Guard`, which hands
//! the tape back on a panic) and closes it at its end; the routines' stores are calls on it (a
//! key comparison, one capacity check and a copy per routine, the tape's end in a local), and
//! it is released around every statement that may run other code storing on the same tape
//! (calls of reversible functions, `safe!`), and taken again after.
use super::Emitter;
use crate::ir::*;
use proc_macro2::{Span, TokenStream};
use quote::{format_ident, quote, quote_spanned};

/// The cursor's variable.
fn cursor() -> syn::Ident {
    format_ident!("__nilang_tape", span = Span::mixed_site())
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
        let cur = cursor();
        Some(quote_spanned!(s.span=> #cur.#m(#(#args),*);))
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
