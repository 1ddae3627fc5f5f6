//! Places of slice parameters: an element of a `&mut [T]` or `&[T]` parameter is read and
//! written through `nilang::ad::places::Places` (`get`, `set`, `at`, `len`, `sub`), never indexed
//! directly, so that one emission serves any container of places (docs/architecture.md, "Split
//! storage: values and adjoints apart"). The bodies still take `&mut [T]`, whose `Places`
//! impl is the element itself: after inlining, the same machine code as a borrow.
//!
//! | in `#[i]` code | emitted |
//! | --- | --- |
//! | an operand `x[i]` (or `x[i].re`) of an instruction or call, `x` not shared in the statement | `&mut *Places::at(&mut *x, i)` (`.re`): the element lent in place (`&mut x[i]` on `[T]`; a guard that writes back on drop on a `Split`) |
//! | an operand `x[i]` otherwise (shared root, negated, `x` read-only) | `let mut t = Places::get(&*x, i)` (`.re`), the instruction on `&mut t`, `Places::set(&mut *x, i, t)` |
//! | `x[i]` read in an expression | `Places::get(&*x, i)` |
//! | `x.len()`, `x.is_empty()` | `Places::len(&*x)`, `Places::is_empty(&*x)` |
//! | `&mut x[a..b]` passed to a call | `Places::sub(&mut *x, a..b)` |
//!
//! Places with more than one index (`x[i][j]`, elements that are arrays or vectors) are
//! borrowed as before.
use super::Emitter;
use crate::ir::*;
use proc_macro2::TokenStream;
use quote::{quote, quote_spanned};
use std::collections::HashSet;
use syn::spanned::Spanned;

/// The slice parameters of a signature (`x: &mut [T]`, `x: &[T]`), by name.
pub fn slice_params(sig: &syn::Signature) -> HashSet<String> {
    sig.inputs
        .iter()
        .filter_map(|a| match a {
            syn::FnArg::Typed(pt) => match (&*pt.pat, &*pt.ty) {
                (syn::Pat::Ident(pi), syn::Type::Reference(r))
                    if matches!(&*r.elem, syn::Type::Slice(_)) =>
                {
                    Some(pi.ident.to_string())
                }
                _ => None,
            },
            _ => None,
        })
        .collect()
}

/// `e` is a range (`x[e]` is a sub-slice).
fn is_range(e: &syn::Expr) -> bool {
    matches!(e, syn::Expr::Range(_))
}

/// `e` is the half-open range `a..b` (what `Places::sub` takes).
fn is_sub_range(e: &syn::Expr) -> bool {
    matches!(e, syn::Expr::Range(r) if r.start.is_some() && r.end.is_some()
        && matches!(r.limits, syn::RangeLimits::HalfOpen(_)))
}

impl Emitter {
    /// `name` is a slice parameter here (not shadowed by a loop variable).
    pub(super) fn is_slice_param(&self, name: &str) -> bool {
        self.slices.contains(name) && !self.loop_vars.iter().any(|v| v == name)
    }

    /// `p` as one element of a slice parameter: its root, its index and the field
    /// projections after it (`x[i].re`); `None` for any other place.
    fn slice_elem<'p>(&self, p: &'p Place) -> Option<(&'p syn::Ident, &'p syn::Expr, &'p [Proj])> {
        match p.path.split_first()? {
            (Proj::Index(i), rest)
                if !is_range(i)
                    && rest.iter().all(|r| matches!(r, Proj::Field(_)))
                    && self.is_slice_param(&p.root.to_string()) =>
            {
                Some((&p.root, i, rest))
            }
            _ => None,
        }
    }

    /// `p` is one element of a slice parameter (`x[i]`, `x[i].re`).
    pub(super) fn is_slice_elem(&self, p: &Place) -> bool {
        self.slice_elem(p).is_some()
    }

    /// The value of place `p` as an expression: the place itself, or for an element of a
    /// slice parameter its `Places::get` (a copy).
    pub(super) fn value_of(&self, p: &Place) -> TokenStream {
        match self.slice_elem(p) {
            Some((root, i, rest)) => {
                let get = self.get_tokens(p, root, i);
                let fields = fields(rest);
                quote!(#get #fields)
            }
            None => self.place(p),
        }
    }

    /// The length of `slice`: `Places::len` for a slice parameter, else `slice.len()`.
    pub(super) fn len_of(&self, slice: &Place) -> TokenStream {
        if slice.path.is_empty() && self.is_slice_param(&slice.root.to_string()) {
            let root = &slice.root;
            return quote_spanned!(slice.span=> ::nilang::ad::places::Places::len(&*#root));
        }
        let sl = self.place(slice);
        quote!(#sl.len())
    }

    /// `Places::get` of element `i` of slice parameter `root`, spanned at `p` (an
    /// out-of-bounds panic points at the user's statement).
    fn get_tokens(&self, p: &Place, root: &syn::Ident, i: &syn::Expr) -> TokenStream {
        let i = self.expr(i);
        quote_spanned!(p.span=> ::nilang::ad::places::Places::get(&*#root, #i))
    }

    /// The value of place `p`, a copy (an element of a slice parameter: through
    /// `Places::get`).
    pub(super) fn read(&self, p: &Place) -> TokenStream {
        if self.is_slice_elem(p) {
            return self.value_of(p);
        }
        let pe = self.place(p);
        quote!(::core::clone::Clone::clone(&#pe))
    }

    /// A statement storing `v` into place `p` (an element of a slice parameter: through
    /// `Places::set`; a field of one: the element read, its field set, the element written).
    pub(super) fn write(&self, p: &Place, v: TokenStream) -> TokenStream {
        match self.slice_elem(p) {
            Some((root, i, [])) => {
                let i = self.expr(i);
                quote_spanned!(p.span=> ::nilang::ad::places::Places::set(&mut *#root, #i, #v);)
            }
            Some((root, i, rest)) => {
                let get = self.get_tokens(p, root, i);
                let i = self.expr(i);
                let fields = fields(rest);
                quote_spanned! {p.span=> {
                    let mut __nilang_e = #get;
                    __nilang_e #fields = #v;
                    ::nilang::ad::places::Places::set(&mut *#root, #i, __nilang_e);
                }}
            }
            None => {
                let pe = self.place(p);
                quote!(#pe = #v;)
            }
        }
    }

    /// A `&mut` of place `p` for a callee: the place itself, or for an element of a slice
    /// parameter a local read before (`pre`) and written back after (`post`, in reverse
    /// order of the reads); a sub-slice `x[a..b]` of a slice parameter through
    /// `Places::sub`.
    pub(super) fn borrow_mut(
        &mut self,
        p: &Place,
        pre: &mut TokenStream,
        post: &mut TokenStream,
    ) -> TokenStream {
        if self.slice_elem(p).is_some() {
            let t = self.fresh("t");
            let read = self.read(p);
            pre.extend(quote!(let mut #t = #read;));
            let wb = self.write(p, quote!(#t));
            let old = std::mem::take(post);
            post.extend(wb);
            post.extend(old);
            return quote!(&mut #t);
        }
        if let Some(sub) = self.sub_slice(p) {
            return sub;
        }
        let pe = self.place(p);
        quote!(&mut #pe)
    }

    /// An instruction or call operand that is an element of a writable slice parameter not
    /// shared in the statement, lent in place: `&mut *Places::at(&mut *x, i)` (with the field
    /// projections of `x[i].re`). On `[T]` that is `&mut x[i]`, no copy of the element (a
    /// `GVar<F64x8>` is 128 bytes: its copy in and out costs what a rule costs); the guard of
    /// a `Split` lives to the end of the instruction's statement and writes back when dropped.
    /// `None`: `p` is not an element of a slice parameter.
    pub(super) fn lend(&self, p: &Place) -> Option<TokenStream> {
        let (root, i, rest) = self.slice_elem(p)?;
        let i = self.expr(i);
        let fields = fields(rest);
        Some(
            quote_spanned!(p.span=> &mut (*::nilang::ad::places::Places::at(&mut *#root, #i)) #fields),
        )
    }

    /// `Places::sub(&mut *x, a..b)` for the place `x[a..b]` of an in-out slice parameter.
    fn sub_slice(&self, p: &Place) -> Option<TokenStream> {
        let name = p.root.to_string();
        match &p.path[..] {
            [Proj::Index(r)]
                if is_sub_range(r) && self.is_slice_param(&name) && self.is_writable(&name) =>
            {
                let (root, r) = (&p.root, self.expr(r));
                Some(quote_spanned!(p.span=> ::nilang::ad::places::Places::sub(&mut *#root, #r)))
            }
            _ => None,
        }
    }

    /// In a user expression: `x[i]` of a slice parameter `x` as `Places::get`, `x.len()` and
    /// `x.is_empty()` as `Places::len` and `Places::is_empty` (`None`: `e` is none of these;
    /// `index` emits a sub-expression).
    pub(super) fn places_expr(
        &self,
        e: &syn::Expr,
        index: &dyn Fn(&syn::Expr) -> TokenStream,
    ) -> Option<TokenStream> {
        let slice_name = |e: &syn::Expr| match e {
            syn::Expr::Path(p) if p.qself.is_none() => p
                .path
                .get_ident()
                .filter(|id| self.is_slice_param(&id.to_string()))
                .cloned(),
            _ => None,
        };
        match e {
            syn::Expr::Index(ix) if !is_range(&ix.index) => {
                let root = slice_name(&ix.expr)?;
                let i = index(&ix.index);
                Some(quote_spanned!(e.span()=> ::nilang::ad::places::Places::get(&*#root, #i)))
            }
            syn::Expr::MethodCall(m)
                if m.args.is_empty()
                    && m.turbofish.is_none()
                    && (m.method == "len" || m.method == "is_empty") =>
            {
                let root = slice_name(&m.receiver)?;
                let f = &m.method;
                Some(quote_spanned!(m.method.span()=> ::nilang::ad::places::Places::#f(&*#root)))
            }
            _ => None,
        }
    }
}

/// The field projections `.a.b` of a place's path.
fn fields(rest: &[Proj]) -> TokenStream {
    let fs = rest.iter().map(|r| match r {
        Proj::Field(m) => quote!(.#m),
        Proj::Index(_) => quote!(),
    });
    quote!(#(#fs)*)
}
