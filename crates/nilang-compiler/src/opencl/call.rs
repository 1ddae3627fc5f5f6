//! Calls of `#[i(device)]` functions from device code, forward or inverse, plain or on
//! value/adjoint pairs (adjoints of shared slices accumulated after the call).
use super::emit::{CPlace, Cx, Sharing};
use super::sig::{Shape, Ty};
use crate::ir::*;
use proc_macro2::Span;
use syn::spanned::Spanned;

impl Cx<'_> {
    pub(super) fn call(&mut self, c: &Call, span: Span) {
        let Callee::Path(p) = &c.callee else {
            self.err(span, "method calls are not supported on the device");
            return;
        };
        let Some(last) = p.path.segments.last() else {
            return;
        };
        let mut name = last.ident.to_string();
        let mut inverse = c.inverse;
        if let Some(base) = name.strip_suffix(crate::abi::INVERSE_SUFFIX) {
            name = base.to_string();
            inverse = !inverse;
        }
        match name.as_str() {
            "SWAP" => {
                let ps: Vec<Option<CPlace>> = c
                    .args
                    .iter()
                    .map(|a| match a {
                        CallArg::InOut(p) | CallArg::Name(p) => self.place(p),
                        CallArg::Read(e) => {
                            self.err(e.span(), "`SWAP` takes two places");
                            None
                        }
                    })
                    .collect();
                if let [Some(a), Some(b)] = &ps[..] {
                    let t = self.fresh("t");
                    self.line(format!(
                        "{{ {} {t} = {}; {} = {}; {} = {t}; }}",
                        a.ty.c_scalar(),
                        a.val,
                        a.val,
                        b.val,
                        b.val
                    ));
                    if let (Some(ga), Some(gb)) = (&a.adj, &b.adj) {
                        self.line(format!("{{ REAL {t} = {ga}; {ga} = {gb}; {gb} = {t}; }}"));
                    }
                }
                return;
            }
            "NEG" => {
                if let [CallArg::InOut(p) | CallArg::Name(p)] = &c.args[..] {
                    if let Some(a) = self.place(p) {
                        self.line(format!("{} = -{};", a.val, a.val));
                        if let Some(g) = &a.adj {
                            self.line(format!("{g} = -{g};"));
                        }
                    }
                }
                return;
            }
            "INC" | "DEC" | "ROT" | "IROT" | "HADAMARD" | "INV" | "FLIP" | "CONJ" | "ADD_CONST"
            | "SUB_CONST" => {
                self.err(
                    span,
                    format!("instruction `{name}` is not supported on the device"),
                );
                return;
            }
            _ => {}
        }
        // a device function: `nl_<name>_<direction>`
        let mut dep = p.path.clone();
        if let Some(l) = dep.segments.last_mut() {
            l.ident = syn::Ident::new(&name, l.ident.span());
        }
        for s in dep.segments.iter_mut() {
            s.arguments = syn::PathArguments::None;
        }
        if !self
            .deps
            .iter()
            .any(|d| quote::quote!(#d).to_string() == quote::quote!(#dep).to_string())
        {
            self.deps.push(dep);
        }
        let dir = match (self.gvar, inverse) {
            (false, false) => "fwd",
            (false, true) => "inv",
            (true, false) => "gfwd",
            (true, true) => "ginv",
        };
        let mut pre = vec![];
        let mut post = vec![];
        let mut args = vec![];
        // the address space of each argument (`g` unless a slice that is private or a
        // parameter's): the callee's version
        let mut spaces = vec![];
        for a in &c.args {
            spaces.push(self.arg_space(a));
            match a {
                CallArg::InOut(p) | CallArg::Name(p) => {
                    let Some(v) = self.lookup(&p.root.to_string()).cloned() else {
                        if matches!(a, CallArg::Name(_)) && p.path.is_empty() {
                            // a constant item passed by name
                            let root = &p.root;
                            args.push(self.cexpr(&syn::parse_quote!(#root)).0);
                            continue;
                        }
                        self.err(p.span, "not a variable of the device function");
                        return;
                    };
                    if let ([Proj::Index(syn::Expr::Range(r))], Shape::Slice { mutable, .. }) =
                        (&p.path[..], v.shape)
                    {
                        // a sub-slice `s[a..b]`: the pointers moved by `a`, length `b − a`
                        let (start, end) = self.range_bounds(r, &v.c);
                        args.push(format!("({} + {start})", v.c));
                        if self.gvar && mutable && v.ty == Ty::Real {
                            args.push(format!("({}_g + {start})", v.c));
                        }
                        args.push(format!("({end} - {start})"));
                        continue;
                    }
                    match (v.shape, p.path.is_empty(), matches!(a, CallArg::InOut(_))) {
                        (Shape::Slice { mutable, .. }, true, _) => {
                            args.push(v.c.clone());
                            if self.gvar && mutable && v.ty == Ty::Real {
                                args.push(format!("{}_g", v.c));
                            }
                            args.push(format!("{}_len", v.c));
                        }
                        (Shape::Ptr, true, _) => {
                            args.push(v.c.clone());
                            if self.gvar && v.ty == Ty::Real {
                                args.push(format!("{}_g", v.c));
                            }
                        }
                        (Shape::Value, true, false) => args.push(v.c.clone()),
                        _ => {
                            // an element or an ancilla passed in-out: through a private copy
                            let Some(cp) = self.place(p) else { return };
                            let t = self.fresh("arg");
                            pre.push(format!("{} {t} = {};", cp.ty.c_scalar(), cp.val));
                            post.push(format!("{} = {t};", cp.val));
                            args.push(format!("&{t}"));
                            if self.gvar && cp.ty == Ty::Real {
                                // a shared element's copy starts from zero and is added back;
                                // the thread's own is copied and copied back
                                let g = match (&cp.adj, &cp.shared) {
                                    (Some(g), Sharing::Own) => g.clone(),
                                    (Some(g), Sharing::Host(h, _)) => format!("({h} ? 0 : {g})"),
                                    _ => "0".into(),
                                };
                                pre.push(format!("REAL {t}_g = {g};"));
                                match (&cp.adj, &cp.shared) {
                                    (Some(adj), Sharing::Shared) => {
                                        post.push(format!("NL_SHARED_ADD(&{adj}, {t}_g);"))
                                    }
                                    (Some(adj), Sharing::Host(h, add)) => post.push(format!(
                                        "if ({h}) {add}(&{adj}, {t}_g); else {adj} = {t}_g;"
                                    )),
                                    (Some(adj), Sharing::Own) => {
                                        post.push(format!("{adj} = {t}_g;"))
                                    }
                                    (None, _) => {}
                                }
                                args.push(format!("&{t}_g"));
                            }
                        }
                    }
                }
                CallArg::Read(e) => {
                    // `&xs` of a slice: its values
                    let inner = match e {
                        syn::Expr::Reference(r) => &*r.expr,
                        e => e,
                    };
                    // `&xs[a..b]` of a slice: its values from `a`, length `b − a`
                    if let syn::Expr::Index(ix) = inner {
                        if let (syn::Expr::Path(pp), syn::Expr::Range(r)) = (&*ix.expr, &*ix.index)
                        {
                            let v = pp
                                .path
                                .get_ident()
                                .and_then(|i| self.lookup(&i.to_string()))
                                .cloned();
                            if let Some(v) = v.filter(|v| matches!(v.shape, Shape::Slice { .. })) {
                                let (start, end) = self.range_bounds(r, &v.c);
                                args.push(format!("({} + {start})", v.c));
                                args.push(format!("({end} - {start})"));
                                continue;
                            }
                        }
                    }
                    if let syn::Expr::Path(pp) = inner {
                        if let Some(v) = pp
                            .path
                            .get_ident()
                            .and_then(|i| self.lookup(&i.to_string()))
                            .cloned()
                        {
                            if matches!(v.shape, Shape::Slice { .. }) {
                                args.push(v.c.clone());
                                args.push(format!("{}_len", v.c));
                                continue;
                            }
                        }
                    }
                    args.push(self.cexpr(inner).0);
                }
            }
        }
        let call = format!(
            "nl_{name}\u{2}C{name}:{}\u{2}_{dir}({});",
            spaces.join(","),
            args.join(", ")
        );
        if pre.is_empty() {
            self.line(call);
        } else {
            self.line(format!("{{ {} {call} {} }}", pre.join(" "), post.join(" ")));
        }
    }
}

impl Cx<'_> {
    /// The address-space token of a call argument (see [`Cx::spaces`]): that of the slice it
    /// passes (whole or a range), `g` for anything else.
    fn arg_space(&self, a: &CallArg) -> String {
        let root = match a {
            CallArg::InOut(p) | CallArg::Name(p) => match &p.path[..] {
                [] | [Proj::Index(syn::Expr::Range(_))] => Some(p.root.to_string()),
                _ => None,
            },
            CallArg::Read(e) => {
                let inner = match e {
                    syn::Expr::Reference(r) => &*r.expr,
                    e => e,
                };
                match inner {
                    syn::Expr::Index(ix) if matches!(&*ix.index, syn::Expr::Range(_)) => {
                        match &*ix.expr {
                            syn::Expr::Path(pp) => pp.path.get_ident().map(|i| i.to_string()),
                            _ => None,
                        }
                    }
                    syn::Expr::Path(pp) => pp.path.get_ident().map(|i| i.to_string()),
                    _ => None,
                }
            }
        };
        root.and_then(|r| self.lookup(&r))
            .filter(|v| matches!(v.shape, Shape::Slice { .. }))
            .map_or("g".into(), |v| self.space(&v.c).to_string())
    }

    /// The bounds `(start, end)` in C of a range `a..b` (`a..=b`, `a..`, `..b`) over the slice
    /// whose C name is `slice`.
    fn range_bounds(&mut self, r: &syn::ExprRange, slice: &str) -> (String, String) {
        let start = match &r.start {
            Some(e) => format!("({})", self.cexpr(e).0),
            None => "0".into(),
        };
        let end = match &r.end {
            Some(e) => format!("({})", self.cexpr(e).0),
            None => format!("{slice}_len"),
        };
        let end = match r.limits {
            syn::RangeLimits::HalfOpen(_) => end,
            syn::RangeLimits::Closed(_) => format!("({end} + 1)"),
        };
        (start, end)
    }
}
