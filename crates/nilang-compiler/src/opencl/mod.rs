//! OpenCL C for `#[i(kernel)]` and `#[i(device)]` functions.
//!
//! Four device functions per function, from the IR: `nl_f_fwd` (the forward program),
//! `nl_f_inv` (the inverse), `nl_f_gfwd` and `nl_f_ginv` (the same on value/adjoint pairs: a
//! real variable `x` is `x` and `x_g`, a `&mut [T]` slice a value and an adjoint buffer;
//! `nl_f_ginv` is the gradient program). A kernel (first parameter: the thread index) also
//! gets the entry points `f_fwd`, `f_inv`, `f_grad` and `f_grad_rows` over the thread
//! indices `offset..n`. The text is generic in `REAL` (`double` or `float`, chosen when the
//! program is built); constants of the Rust program it mentions are written in when the
//! source is assembled (`DeviceCode::device_code`).
//!
//! Unsupported constructs (stacks, `fresh!`, structs and fields, method calls, user
//! primitives, ...) are compile errors naming the construct.
mod call;
mod control;
mod emit;
mod expr;
mod instr;
mod rules;
mod sig;

use crate::errors::Errors;
use crate::ir::Stmt;
use emit::{Cx, Var};
use proc_macro2::TokenStream;
use quote::quote;
use sig::{Param, Shape, Ty};
use std::collections::HashSet;

/// `#[i(kernel)]` (entry points over thread indices) or `#[i(device)]` (device functions).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Target {
    /// `#[i(kernel)]`: a kernel, its first parameter the thread index.
    Kernel,
    /// `#[i(device)]`: a function called by kernels.
    Device,
}

/// The C parameter list of a device function. `versions`: the slices' address space is a
/// hole `\u{2}A<index>\u{2}` (global or private: the function's versions, see
/// `nilang::kernel::program_source_in`) instead of `__global`.
fn c_params(params: &[Param], gvar: bool, versions: bool) -> Vec<String> {
    let mut out = vec![];
    for (j, p) in params.iter().enumerate() {
        let space = if versions {
            format!("\u{2}A{j}\u{2}")
        } else {
            "__global".to_string()
        };
        let n = format!("v_{}", p.name);
        match p.shape {
            Shape::Value => out.push(format!("{} {n}", p.ty.c_scalar())),
            Shape::Ptr => {
                out.push(format!("{}* {n}", p.ty.c_scalar()));
                if gvar && p.ty == Ty::Real {
                    out.push(format!("REAL* {n}_g"));
                }
            }
            Shape::Slice { mutable, .. } => {
                let cst = if mutable { "" } else { "const " };
                out.push(format!("{space} {cst}{}* {n}", p.ty.c_elem()));
                if gvar && mutable && p.ty == Ty::Real {
                    out.push(format!("{space} REAL* {n}_g"));
                }
                out.push(format!("ulong {n}_len"));
            }
        }
    }
    out
}

fn scope_of(params: &[Param]) -> Vec<(String, Var)> {
    params
        .iter()
        .map(|p| {
            (
                p.name.clone(),
                Var {
                    c: format!("v_{}", p.name),
                    ty: p.ty,
                    shape: p.shape,
                    readonly: p.shape == Shape::Value,
                },
            )
        })
        .collect()
}

/// The `DeviceCode` impl for `f` (errors in `errors` for what the device cannot run).
pub fn device_items(
    f: &syn::ItemFn,
    body: &[Stmt],
    inverse: &[Stmt],
    target: Target,
    errors: &mut Errors,
) -> TokenStream {
    let sig = &f.sig;
    let name = sig.ident.to_string();
    let before = errors.len();
    let mut params = sig::params(sig, target == Target::Kernel, errors);
    sig::mark_shared(&mut params, body);
    let ident = &sig.ident;
    // a device function's slice that it never writes itself is shared unless a callee writes
    // it: decided by its own `WRITES` analysis when the source is assembled (a kernel's
    // sharing is static: its launch takes it from `PARAMS`, and a callee writing a shared
    // slice is rejected)
    let mut host: Vec<syn::Expr> = vec![];
    let mut host_shared = vec![];
    let checks = match target {
        Target::Kernel => sig::shared_write_checks(&params, body, &name),
        Target::Device => {
            let writes = crate::abi::item(crate::abi::WRITES);
            for (j, p) in params.iter().enumerate() {
                let Some(j) = crate::abi::param_bit(j) else {
                    break;
                };
                if let Shape::Slice { shared: true, .. } = p.shape {
                    host.push(syn::parse_quote!(((#ident::#writes >> #j) & 1) == 0));
                    host_shared.push((p.name.clone(), format!("\u{1}{}\u{1}", host.len() - 1)));
                }
            }
            vec![]
        }
    };
    let generics: HashSet<String> = sig
        .generics
        .type_params()
        .map(|t| t.ident.to_string())
        .collect();
    let mut text = String::new();
    let mut deps: Vec<syn::Path> = vec![];
    for (k, (dir, prog, gvar)) in [
        ("fwd", body, false),
        ("inv", inverse, false),
        ("gfwd", body, true),
        ("ginv", inverse, true),
    ]
    .into_iter()
    .enumerate()
    {
        let mut cx = Cx {
            gvar,
            report: k == 0 || (k == 2 && errors.len() == before),
            errors,
            scopes: scope_of(&params),
            generics: generics.clone(),
            out: String::new(),
            host: std::mem::take(&mut host),
            deps: std::mem::take(&mut deps),
            counter: 0,
            depth: 0,
            host_shared: host_shared.clone(),
            spaces: match target {
                Target::Device => (params.iter().enumerate())
                    .filter(|(_, p)| matches!(p.shape, Shape::Slice { .. }))
                    .map(|(j, p)| (format!("v_{}", p.name), j.to_string()))
                    .collect(),
                Target::Kernel => vec![],
            },
        };
        cx.stmts(prog);
        let code = std::mem::take(&mut cx.out);
        host = std::mem::take(&mut cx.host);
        deps = std::mem::take(&mut cx.deps);
        emit::w(
            &mut text,
            format_args!(
                "{} void nl_{name}{}_{dir}({}) {{\n{code}}}\n",
                if target == Target::Device {
                    "\u{2}F\u{2}"
                } else {
                    "NL_FN"
                },
                if target == Target::Device {
                    "\u{2}S\u{2}"
                } else {
                    ""
                },
                c_params(&params, gvar, target == Target::Device).join(", ")
            ),
        );
    }
    if target == Target::Kernel && !params.is_empty() {
        entries(&mut text, &name, &params);
    }
    if errors.len() > before {
        return quote!();
    }
    // the Rust side: the source assembled at run time (host constants written in)
    let mut pushes = vec![];
    for (k, piece) in text.split('\u{1}').enumerate() {
        if k % 2 == 0 {
            pushes.push(quote!(__nilang_s.push_str(#piece);));
        } else {
            let e = piece.parse::<usize>().ok().and_then(|i| host.get(i));
            if let Some(e) = e {
                pushes.push(quote!(__nilang_s.push_str(&::nilang::kernel::CLit::c_lit(&(#e)));));
            }
        }
    }
    let kernel_params: Vec<TokenStream> = if target == Target::Kernel {
        params
            .iter()
            .map(|p| {
                let n = &p.name;
                let kind = match (p.thread, p.ty, p.shape) {
                    (true, _, _) => quote!(Thread),
                    (_, Ty::Real, Shape::Value | Shape::Ptr) => quote!(Real),
                    (_, Ty::Int { signed, .. }, Shape::Value | Shape::Ptr) => {
                        quote!(Int { signed: #signed })
                    }
                    (_, Ty::Int { signed, bytes }, Shape::Slice { .. }) => {
                        quote!(IntSlice { bytes: #bytes, signed: #signed })
                    }
                    (_, Ty::Real, Shape::Slice { mutable: false, .. }) => quote!(RealSlice),
                    (_, Ty::Real, Shape::Slice { shared, .. }) => {
                        quote!(RealSliceMut { shared: #shared })
                    }
                };
                quote!(::nilang::kernel::KernelParam { name: #n, kind: ::nilang::kernel::ParamKind::#kind })
            })
            .collect()
    } else {
        vec![]
    };
    let deps = deps
        .iter()
        .map(|d| quote!(<#d as ::nilang::kernel::DeviceCode>::device_code(__nilang_out);));
    quote! {
        impl ::nilang::kernel::DeviceCode for #ident {
            const NAME: &'static str = #name;
            const PARAMS: &'static [::nilang::kernel::KernelParam] = &[#(#kernel_params),*];
            #[allow(clippy::all, unused_parens)]
            fn device_code(__nilang_out: &mut ::std::vec::Vec<(&'static str, ::std::string::String)>) {
                #(#checks)*
                #(#deps)*
                let mut __nilang_s = ::std::string::String::new();
                #(#pushes)*
                ::nilang::kernel::push_unique(__nilang_out, #name, __nilang_s);
            }
        }
    }
}

/// The `__kernel` entry points of a kernel.
fn entries(text: &mut String, name: &str, params: &[Param]) {
    let rest = &params[1..];
    let tid = params.first().map(|p| p.ty.c_scalar()).unwrap_or("ulong");
    for (entry, dir, gvar, rows) in [
        ("fwd", "fwd", false, false),
        ("inv", "inv", false, false),
        ("grad", "ginv", true, false),
        ("grad_rows", "ginv", true, true),
    ] {
        let cps = c_params(rest, gvar, false);
        let mut args = vec!["nl_tid".to_string()];
        for p in rest {
            let n = format!("v_{}", p.name);
            args.push(n.clone());
            if let Shape::Slice { mutable, shared } = p.shape {
                if gvar && mutable && p.ty == Ty::Real {
                    if rows && shared {
                        // this thread's own row of the partial adjoints
                        args.push(format!("{n}_g + (ulong)get_global_id(0) * {n}_len"));
                    } else {
                        args.push(format!("{n}_g"));
                    }
                }
                args.push(format!("{n}_len"));
            }
        }
        let sep = if cps.is_empty() { "" } else { ", " };
        emit::w(
            text,
            format_args!(
                "__kernel void {name}_{entry}(ulong nl_offset, ulong nl_n{sep}{}) {{\n    \
                 {tid} nl_tid = ({tid})(nl_offset + get_global_id(0));\n    \
                 if (nl_tid < nl_n) nl_{name}_{dir}({});\n}}\n",
                cps.join(", "),
                args.join(", ")
            ),
        );
    }
}

#[cfg(test)]
mod tests {
    use quote::quote;

    fn compile(attr: proc_macro2::TokenStream, item: proc_macro2::TokenStream) -> String {
        crate::compile_fn(attr, item).to_string()
    }

    #[test]
    fn kernel_source_has_every_program_and_entry() {
        let out = compile(
            quote!(kernel),
            quote!(
                fn k<T: Scalar>(t: usize, y: &mut [T], x: &mut [T]) {
                    y[t] += sin(x[t]);
                }
            ),
        );
        for needle in [
            "nl_k_fwd",
            "nl_k_inv",
            "nl_k_gfwd",
            "nl_k_ginv",
            "k_grad_rows",
            "DeviceCode",
        ] {
            assert!(out.contains(needle), "{needle} missing");
        }
        // the adjoint rule of `sin` in the gradient program
        assert!(
            out.contains("v_x_g[v_t], v_y_g[v_t] * cos(v_x[v_t])"),
            "{out}"
        );
    }

    #[test]
    fn malformed_kernels_are_errors_not_panics() {
        for item in [
            quote!(
                fn k() {}
            ),
            quote!(
                fn k<T: Scalar>(y: &mut T) {
                    y += 1.0;
                }
            ),
            quote!(
                fn k<T: Scalar>(t: usize, y: &mut [T]) {
                    y[t].re += 1.0;
                }
            ),
            quote!(
                fn k<T: Scalar>(t: usize, y: &mut [T]) {
                    y[t] *= 2.0;
                }
            ),
            quote!(
                fn k<T: Scalar>(t: usize, y: &mut [T], s: &mut Vec<T>) {
                    push!(s, y[t]);
                }
            ),
            quote!(
                fn k<T: Scalar, const N: usize>(t: usize, y: &mut [T]) {
                    y[t] += 1.0;
                }
            ),
            quote!(
                fn k<T: Scalar>(t: usize, y: &mut [T]) {
                    let a = foo();
                    y[t] += a;
                    dealloc!(a = foo());
                }
            ),
        ] {
            let out = compile(quote!(kernel), item.clone());
            assert!(out.contains("compile_error"), "no error for {item}");
        }
    }

    #[test]
    fn thread_segment_passed_as_a_range_is_the_threads_own() {
        let out = compile(
            quote!(kernel),
            quote!(
                fn k<T: Scalar>(t: usize, y: &mut [T], ws: &mut [T], p: &mut [T]) {
                    g(&mut ws[t * M..(t + 1) * M], y, M);
                    g(&mut p[0..2], y, M);
                    y[t] += 1.0;
                }
            ),
        );
        // the segment moves the pointers (values and adjoints) and passes its length; the
        // constant `M` is passed by value
        assert!(
            out.contains(r"nl_g\u{2}Cg:g,g,g\u{2}_ginv((v_ws + ((v_t * "),
            "{out}"
        );
        assert!(out.contains("(v_ws_g + ((v_t * "), "{out}");
        assert!(out.contains(")) - ((v_t * "), "{out}");
        // `ws` (a segment per thread) is written, so not shared; `p` (the same range in every
        // thread) stays shared, so a callee writing it is rejected
        assert!(
            out.contains(r#"name : "ws" , kind : :: nilang :: kernel :: ParamKind :: RealSliceMut { shared : false }"#),
            "{out}"
        );
        assert!(
            out.contains(r#"name : "p" , kind : :: nilang :: kernel :: ParamKind :: RealSliceMut { shared : true }"#),
            "{out}"
        );
        assert!(
            !out.contains("`ws` is shared") && out.contains("`p` is shared"),
            "{out}"
        );
    }

    #[test]
    fn abs_above_is_a_scalar_test_on_the_device() {
        let out = compile(
            quote!(kernel),
            quote!(
                fn k<T: Ordered>(t: usize, y: &mut [T], x: &mut [T]) {
                    if x[t].abs_above(0.5) {
                        y[t] += x[t];
                    }
                }
            ),
        );
        assert!(
            out.contains("(fabs(v_x[v_t]) > (REAL)(((REAL)0.5)))"),
            "{out}"
        );
    }

    #[test]
    fn device_function_reads_a_sub_slice_and_its_largest_value() {
        let out = compile(
            quote!(device),
            quote!(
                fn g<T: Scalar>(y: &mut T, m: &mut T, x: &[T], xs: &mut [T], d: usize) {
                    m += cst!(max_of(&xs));
                    h(y, &x[d..2 * d]);
                }
            ),
        );
        assert!(!out.contains("compile_error"), "{out}");
        // the values of `x` from `d`, length `2d − d`; the largest of `xs`
        assert!(
            out.contains("(v_x + (v_d)), (((((long)2) * v_d)) - (v_d))"),
            "{out}"
        );
        assert!(out.contains("nl_max_of(v_xs, v_xs_len)"), "{out}");
    }

    #[test]
    fn device_function_sharing_is_its_own_writes_analysis() {
        // `ws` is never written by `g` itself: shared unless the callee writes it, which
        // `g::WRITES` (bit 1) says when the source is assembled; no compile-time rejection
        let out = compile(
            quote!(device),
            quote!(
                fn g<T: Scalar>(y: &mut T, ws: &mut [T], k: usize) {
                    h(&mut ws[k], y);
                    y += ws[k];
                }
            ),
        );
        assert!(!out.contains("compile_error"), "{out}");
        assert!(out.contains("g :: WRITES >> 1u32"), "{out}");
        assert!(out.contains(r"\u{2}X1\u{2}(&v_ws_g[v_k], v_arg_"), "{out}");
        // in a kernel the same call on a shared slice stays a compile-time check
        let out = compile(
            quote!(kernel),
            quote!(
                fn k<T: Scalar>(t: usize, y: &mut [T], ws: &mut [T]) {
                    h(&mut ws[0], &mut y[t]);
                }
            ),
        );
        assert!(out.contains("`ws` is shared"), "{out}");
    }

    #[test]
    fn private_array_is_passed_to_the_private_version_of_a_callee() {
        let out = compile(
            quote!(kernel),
            quote!(
                fn k<T: Scalar>(t: usize, y: &mut [T], x: &[T]) {
                    let a = [T::default(); N];
                    g(&mut a, &mut y[t..t + 1], &x[0..2], 3);
                    dealloc!(a = [T::default(); N]);
                }
            ),
        );
        assert!(!out.contains("compile_error"), "{out}");
        // an array of `N` reals on the thread, its adjoints zero in the gradient
        assert!(out.contains("REAL v_a_1["), "{out}");
        assert!(out.contains("REAL v_a_1_g["), "{out}");
        // the callee's version: argument 0 private, the others global
        assert!(
            out.contains(r"nl_g\u{2}Cg:p,g,g,g\u{2}_ginv(v_a_1, v_a_1_g, v_a_1_len"),
            "{out}"
        );
        // in a device function a slice parameter's space is that of the function's version
        let out = compile(
            quote!(device),
            quote!(
                fn g<T: Scalar>(a: &mut [T], y: &mut [T], x: &[T]) {
                    h(&mut y[0..1], &mut a[1..3], &x);
                    y[0] += x[0];
                }
            ),
        );
        assert!(!out.contains("compile_error"), "{out}");
        assert!(
            out.contains(r"\u{2}F\u{2} void nl_g\u{2}S\u{2}_fwd(\u{2}A0\u{2} REAL* v_a"),
            "{out}"
        );
        assert!(out.contains(r"\u{2}A2\u{2} const REAL* v_x"), "{out}");
        assert!(out.contains(r"nl_h\u{2}Ch:1,0,2\u{2}_fwd("), "{out}");
    }

    #[test]
    fn loops_over_a_few_literal_indices_are_unrolled() {
        let out = compile(
            quote!(device),
            quote!(
                fn g<T: Scalar>(a: &mut [T], n: usize) {
                    for j in 0..3 {
                        a[j] += 1.0;
                    }
                    for j in 0..n {
                        a[j] += 2.0;
                    }
                }
            ),
        );
        assert!(!out.contains("compile_error"), "{out}");
        // in each of the four programs, the literal loop only (the inverse's runs reversed)
        assert_eq!(out.matches("#pragma unroll").count(), 4, "{out}");
        assert!(
            out.contains("#pragma unroll\\n        for (long v_j_1 = v_s_2;"),
            "{out}"
        );
    }

    #[test]
    fn array_ancilla_of_non_reals_is_an_error() {
        let out = compile(
            quote!(kernel),
            quote!(
                fn k<T: Scalar>(t: usize, y: &mut [T]) {
                    let a = [0usize; 4];
                    y[t] += 1.0;
                    dealloc!(a = [0usize; 4]);
                }
            ),
        );
        assert!(out.contains("must be reals"), "{out}");
    }

    #[test]
    fn device_function_has_no_entries() {
        let out = compile(
            quote!(device),
            quote!(
                fn g<T: Scalar>(y: &mut T, x: &T) {
                    y += x * 2.0;
                }
            ),
        );
        assert!(out.contains(r"nl_g\u{2}S\u{2}_ginv") && !out.contains("__kernel void g_fwd"));
    }
}
