//! Kernel signatures: the device type of every parameter.
use crate::errors::Errors;
use crate::ir::*;
use crate::visit::{walk_block, walk_stmt, Part, Visit};
use proc_macro2::TokenStream;
use std::collections::HashSet;
use syn::spanned::Spanned;

/// A device number type.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Ty {
    /// `REAL` (`double` or `float`): a type parameter, `f64`, `f32`.
    Real,
    /// An integer of `bytes` bytes.
    Int { signed: bool, bytes: u8 },
}

impl Ty {
    /// The C type of a scalar of this type (integers widened to 8 bytes).
    pub fn c_scalar(self) -> &'static str {
        match self {
            Ty::Real => "REAL",
            Ty::Int { signed: true, .. } => "long",
            Ty::Int { signed: false, .. } => "ulong",
        }
    }
    /// The C type of an element of a slice of this type.
    pub fn c_elem(self) -> &'static str {
        match self {
            Ty::Real => "REAL",
            Ty::Int { signed, bytes } => match (signed, bytes) {
                (true, 1) => "char",
                (false, 1) => "uchar",
                (true, 2) => "short",
                (false, 2) => "ushort",
                (true, 4) => "int",
                (false, 4) => "uint",
                (true, _) => "long",
                (false, _) => "ulong",
            },
        }
    }
}

/// How a parameter (or a variable) is held.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Shape {
    /// A value (by-value parameter, `&T` parameter, local).
    Value,
    /// `&mut T`: a private pointer.
    Ptr,
    /// A slice in global memory; `shared`: `&mut` but never written (adjoints accumulated).
    Slice { mutable: bool, shared: bool },
}

/// A parameter of the function on the device.
#[derive(Clone, Debug)]
pub struct Param {
    pub name: String,
    pub ty: Ty,
    pub shape: Shape,
    /// The thread index (first parameter of a kernel).
    pub thread: bool,
}

/// The device type of a Rust number type, if it is one.
pub fn number_type(t: &syn::Type, generics: &HashSet<String>) -> Option<Ty> {
    let syn::Type::Path(p) = t else { return None };
    if p.qself.is_some() {
        return None;
    }
    let id = p.path.get_ident()?.to_string();
    if generics.contains(&id) {
        return Some(Ty::Real);
    }
    Some(match id.as_str() {
        "f64" | "f32" => Ty::Real,
        "i8" => Ty::Int {
            signed: true,
            bytes: 1,
        },
        "u8" => Ty::Int {
            signed: false,
            bytes: 1,
        },
        "i16" => Ty::Int {
            signed: true,
            bytes: 2,
        },
        "u16" => Ty::Int {
            signed: false,
            bytes: 2,
        },
        "i32" => Ty::Int {
            signed: true,
            bytes: 4,
        },
        "u32" => Ty::Int {
            signed: false,
            bytes: 4,
        },
        "i64" | "isize" => Ty::Int {
            signed: true,
            bytes: 8,
        },
        "u64" | "usize" => Ty::Int {
            signed: false,
            bytes: 8,
        },
        _ => return None,
    })
}

/// The device parameters of `sig` (errors for what the device cannot take).
pub fn params(sig: &syn::Signature, kernel: bool, errors: &mut Errors) -> Vec<Param> {
    let generics: HashSet<String> = sig
        .generics
        .type_params()
        .map(|t| t.ident.to_string())
        .collect();
    for c in sig.generics.const_params() {
        errors.push(
            c.ident.span(),
            format!(
                "const generic parameter `{}`: not supported in a device function (pass it as a \
                 parameter)",
                c.ident
            ),
        );
    }
    let mut out = vec![];
    for (k, arg) in sig.inputs.iter().enumerate() {
        let pt = match arg {
            syn::FnArg::Receiver(r) => {
                errors.push(r.span(), "`self`: methods are not supported on the device");
                continue;
            }
            syn::FnArg::Typed(pt) => pt,
        };
        let syn::Pat::Ident(pi) = &*pt.pat else {
            continue; // reported by the main compiler
        };
        let name = pi.ident.to_string();
        let unsupported = |errors: &mut Errors| {
            errors.push(
                pt.ty.span(),
                format!(
                    "parameter `{name}`: type not supported on the device (numbers: a type \
                     parameter, f64, f32 or an integer type; `&T`, `&mut T`, `&[T]`, `&mut [T]` \
                     of them)"
                ),
            )
        };
        let (ty, shape) = match &*pt.ty {
            syn::Type::Reference(r) => match &*r.elem {
                syn::Type::Slice(s) => match number_type(&s.elem, &generics) {
                    Some(ty) => (
                        ty,
                        Shape::Slice {
                            mutable: r.mutability.is_some(),
                            shared: false,
                        },
                    ),
                    None => {
                        unsupported(errors);
                        continue;
                    }
                },
                e => match number_type(e, &generics) {
                    Some(ty) if r.mutability.is_some() => (ty, Shape::Ptr),
                    Some(ty) => (ty, Shape::Value),
                    None => {
                        unsupported(errors);
                        continue;
                    }
                },
            },
            t => match number_type(t, &generics) {
                Some(ty) => (ty, Shape::Value),
                None => {
                    unsupported(errors);
                    continue;
                }
            },
        };
        let thread = kernel && k == 0;
        if thread && (shape != Shape::Value || !matches!(ty, Ty::Int { .. })) {
            errors.push(
                pt.span(),
                "the first parameter of a kernel is the thread index: an integer by value \
                 (`tid: usize`)",
            );
        }
        if kernel && shape == Shape::Ptr {
            errors.push(
                pt.span(),
                format!(
                    "kernel parameter `{name}`: `&mut` scalars are not supported in a kernel \
                     (every thread would write it); use a slice"
                ),
            );
        }
        out.push(Param {
            name,
            ty,
            shape,
            thread,
        });
    }
    if kernel && out.is_empty() {
        errors.push(
            sig.ident.span(),
            "a kernel's first parameter is the thread index (`tid: usize`)",
        );
    }
    out
}

/// Mark the `&mut` slices of reals that `body` never writes as shared. A slice passed to a
/// callee as a range whose bounds read the thread index (`&mut ws[t * m..(t + 1) * m]`) is the
/// thread's own segment: written, not shared.
pub fn mark_shared(params: &mut [Param], body: &[Stmt]) {
    let mut written = HashSet::new();
    written_roots(body, &mut written);
    if let Some(t) = params.iter().find(|p| p.thread) {
        thread_segments(body, &t.name, &mut written);
    }
    for p in params {
        if let Shape::Slice {
            mutable: true,
            shared,
        } = &mut p.shape
        {
            *shared = p.ty == Ty::Real && !written.contains(&p.name);
        }
    }
}

/// Compile-time checks that no callee writes an element of a shared slice (a slice the
/// function itself never writes is *shared*: its adjoints are accumulated across threads, so
/// an element passed in-out to a callee that writes it would get a wrong adjoint): one
/// `const` assertion per such argument, on the callee's recorded analysis `g::WRITES`.
pub fn shared_write_checks(params: &[Param], body: &[Stmt], fname: &str) -> Vec<TokenStream> {
    struct Calls<'a> {
        shared: HashSet<String>,
        fname: &'a str,
        out: Vec<TokenStream>,
    }
    impl<'ir> Visit<'ir> for Calls<'_> {
        fn visit_stmt(&mut self, s: &'ir Stmt) {
            if let StmtKind::Call(c) = &s.kind {
                if let Callee::Path(p) = &c.callee {
                    for (j, a) in c.args.iter().enumerate() {
                        // an element, or a whole shared slice passed by name
                        let Some(place) = a.inout_place(|r| self.shared.contains(r)) else {
                            continue;
                        };
                        let root = place.root.to_string();
                        if !self.shared.contains(&root) || is_writing_instruction(&c.callee) {
                            continue;
                        }
                        let callee = quote::ToTokens::to_token_stream(&p.path).to_string();
                        let msg = format!(
                            "`{}`: `{root}` is shared (the function never writes it, so its \
                             adjoints are accumulated across threads), but `{}` may write its \
                             argument {}; move the element into an ancilla and back: \
                             `SWAP(&mut anc, &mut {root}[i]); g(&mut anc, ..); \
                             SWAP(&mut anc, &mut {root}[i])`",
                            self.fname,
                            callee.replace(' ', ""),
                            j + 1,
                        );
                        // `assert!` reads its message as a format string
                        let msg = msg.replace('{', "{{").replace('}', "}}");
                        let bit = crate::abi::param_bit(j);
                        if let (true, Some(j)) = (crate::abi::analysed_callee(p), bit) {
                            let writes =
                                crate::abi::marker_path(p, c.inverse).constant(crate::abi::WRITES);
                            self.out.push(quote::quote_spanned! {s.span=>
                                const _: () = ::core::assert!((#writes >> #j) & 1 == 0, #msg);
                            });
                        }
                    }
                }
            }
            walk_stmt(self, s)
        }
    }
    let shared = params
        .iter()
        .filter(|p| matches!(p.shape, Shape::Slice { shared: true, .. }))
        .map(|p| p.name.clone())
        .collect();
    let mut calls = Calls {
        shared,
        fname,
        out: vec![],
    };
    walk_block(&mut calls, body);
    calls.out
}

fn operand_roots(o: &Operand, out: &mut HashSet<String>) {
    match o {
        Operand::Place(p) => {
            out.insert(p.root.to_string());
        }
        Operand::Tuple(v, _) => v.iter().for_each(|o| operand_roots(o, out)),
        _ => {}
    }
}

fn written_roots(stmts: &[Stmt], out: &mut HashSet<String>) {
    for s in stmts {
        match &s.kind {
            StmtKind::Instr(i) => operand_roots(&i.target, out),
            // a call's in-out arguments are not writes here: an element of a shared slice
            // passed to a callee gets its adjoint increment added with `NL_SHARED_ADD`, and a
            // callee that writes it is rejected at compile time (`shared_write_checks`);
            // `SWAP` and `NEG` do write
            StmtKind::Call(c) if is_writing_instruction(&c.callee) => {
                for a in &c.args {
                    if let CallArg::InOut(p) | CallArg::Name(p) = a {
                        out.insert(p.root.to_string());
                    }
                }
            }
            StmtKind::Call(_) => {}
            // a loop reads its slice
            StmtKind::For { body, .. } => written_roots(body, out),
            // every other kind: its statement lists, its places taken as written
            _ => {
                for part in crate::visit::parts(s) {
                    match part {
                        Part::Block(b) | Part::Spliced(b) => written_roots(b, out),
                        Part::Operand(o) => operand_roots(o, out),
                        Part::Place(p) => {
                            out.insert(p.root.to_string());
                        }
                        Part::Expr(_) => {}
                    }
                }
            }
        }
    }
}

/// Roots passed to a callee as a range whose bounds read the thread index `thread`.
fn thread_segments(body: &[Stmt], thread: &str, out: &mut HashSet<String>) {
    struct Segments<'a> {
        thread: &'a str,
        out: &'a mut HashSet<String>,
    }
    impl<'ir> Visit<'ir> for Segments<'_> {
        fn visit_stmt(&mut self, s: &'ir Stmt) {
            if let StmtKind::Call(c) = &s.kind {
                for a in &c.args {
                    let (CallArg::InOut(p) | CallArg::Name(p)) = a else {
                        continue;
                    };
                    if let [Proj::Index(syn::Expr::Range(r))] = &p.path[..] {
                        let reads_thread = [&r.start, &r.end]
                            .into_iter()
                            .flatten()
                            .any(|e| crate::syntax::mentions_name(e, self.thread));
                        if reads_thread {
                            self.out.insert(p.root.to_string());
                        }
                    }
                }
            }
            walk_stmt(self, s)
        }
    }
    let mut v = Segments { thread, out };
    walk_block(&mut v, body);
}

fn is_writing_instruction(c: &Callee) -> bool {
    match c {
        Callee::Path(p) => p.path.segments.last().is_some_and(|s| {
            let n = s.ident.to_string();
            matches!(
                n.trim_end_matches(crate::abi::INVERSE_SUFFIX),
                "SWAP" | "NEG"
            )
        }),
        Callee::Method { .. } => false,
    }
}
