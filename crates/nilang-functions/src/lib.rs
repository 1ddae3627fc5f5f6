//! The table of elementary functions of NiLang.rs: one row per function, from which the
//! runtime (`nilang`) generates the function markers, the methods of `Real`, the forward-mode
//! (`Dual`) rules, the reverse-mode (`GVar`) rules and the lane versions, and the compiler
//! (`nilang-compiler`) the parser's built-ins and the device (OpenCL/CUDA C) rules.
//!
//! The table is a `macro_rules!` macro, [`elementary_functions!`], that hands its rows to a
//! macro of the caller (a "callback"): each reader picks the columns it needs. This crate has
//! no dependencies and no code, so both the runtime and the compiler (which cannot depend on
//! each other) read the same rows.
//!
//! For the same reason it holds the [`abi`]: the names and limits of the items `#[i]`
//! generates next to a function, which the compiler writes and the runtime spells.
#![no_std]
#![forbid(unsafe_code)]
#![warn(missing_docs)]

pub mod abi;

/// Calls `$callback! { $($context)* rows }` (`$callback` a macro's name or path) with the rows of the table of elementary functions
/// of one argument.
///
/// A row is
///
/// ```text
/// Marker { names: [method, alias, ..], c: c_name, domain: "…", d: ± ∘ (expr), lanes: slot },
/// ```
///
/// - `Marker`: the zero-sized type of `nilang::instr::fns` (the `f` of `y += f(x)`);
/// - `names`: the names a user writes (`tanh(x)` or `x.tanh()`); the first is also the method
///   of `nilang::Real` and of `f64` that computes the value;
/// - `c`: the C function on the device (OpenCL, CUDA; `nl_…` a helper of `nilang`'s device
///   prelude, for a function C lacks);
/// - `domain`: where the function is real (documentation);
/// - `d: ± ∘ (expr)`: the derivative, as `±expr` (`∘` is `*`) or `±1 / expr` (`∘` is `/`),
///   so that the reverse rule is `x̄ ±= ȳ ∘ expr`. `expr` is a sum of terms `t ± t ± ..` of
///   the argument `x` and the result `r = f(x)`; a term is `1`, `x`, `r`, or `g(arg)` for a
///   function `g` of this table or `abs2`/`sqrt`, whose `arg` is `x`, `r` or (at most once in
///   a row) a sum, which may start with `-` (`exp(-x)`: `−0 − x`). The forward rule, the
///   reverse rule and the device rule all evaluate `expr` in the order written;
/// - `lanes`: how a batch of lanes (`F64x4`, `F64x8`) computes the value: `each` (lane by
///   lane with `f64`'s function) or the name of a SIMD implementation of `nilang`'s
///   `numbers::lane_math` (`simd_exp`, `simd_exp_m1`, `simd_ln`, `simd_ln_1p`, `simd_tanh`,
///   `simd_sin`, `simd_cos`, `simd_softplus`).
///
/// `softplus` is `ln(1 + eˣ)` computed as `max(x, 0) + ln_1p(e^(−|x|))` (no overflow where
/// `eˣ` does, JAX's `jax.nn.softplus`); its derivative, the logistic sigmoid `σ(x)`, is
/// `1 / (e^(−x) + 1)` (as `jax.nn.sigmoid`): a function of `x` alone, so a backward pass
/// whose `softplus` values are never read need not compute them (`e^(x − r)` needed `r`,
/// and was NaN at `x = +∞`).
///
/// A new function is one row (and its tests): every reader generates from it.
///
/// ```
/// macro_rules! names {
///     ($($F:ident { names: [$f:ident $(, $alias:ident)*], $($rest:tt)* },)*) => {
///         [$(stringify!($f)),*]
///     };
/// }
/// let all = nilang_functions::elementary_functions!(names!{});
/// assert!(all.contains(&"tanh"));
/// ```
#[macro_export]
macro_rules! elementary_functions {
    ($($callback:ident)::+ ! { $($context:tt)* }) => {
        $($callback)::+! { $($context)*
            Sin   { names: [sin],           c: sin,   domain: "every real x",  d: + * (cos(x)),                lanes: simd_sin },
            Cos   { names: [cos],           c: cos,   domain: "every real x",  d: - * (sin(x)),                lanes: simd_cos },
            Tan   { names: [tan],           c: tan,   domain: "x ≠ π/2 + kπ",  d: + * (abs2(r) + 1),           lanes: each },
            Asin  { names: [asin],          c: asin,  domain: "−1 ≤ x ≤ 1",    d: + / (sqrt(1 - abs2(x))),     lanes: each },
            Acos  { names: [acos],          c: acos,  domain: "−1 ≤ x ≤ 1",    d: - / (sqrt(1 - abs2(x))),     lanes: each },
            Atan  { names: [atan],          c: atan,  domain: "every real x",  d: + / (abs2(x) + 1),           lanes: each },
            Sinh  { names: [sinh],          c: sinh,  domain: "every real x",  d: + * (cosh(x)),               lanes: each },
            Cosh  { names: [cosh],          c: cosh,  domain: "every real x",  d: + * (sinh(x)),               lanes: each },
            Tanh  { names: [tanh],          c: tanh,  domain: "every real x",  d: + * (1 - abs2(r)),           lanes: simd_tanh },
            Asinh { names: [asinh],         c: asinh, domain: "every real x",  d: + / (sqrt(abs2(x) + 1)),     lanes: each },
            Atanh { names: [atanh],         c: atanh, domain: "−1 < x < 1",    d: + / (1 - abs2(x)),           lanes: each },
            Exp   { names: [exp],           c: exp,   domain: "every real x",  d: + * (r),                     lanes: simd_exp },
            ExpM1 { names: [exp_m1, expm1], c: expm1, domain: "every real x",  d: + * (r + 1),                 lanes: simd_exp_m1 },
            Ln    { names: [ln, log],       c: log,   domain: "x > 0",         d: + / (x),                     lanes: simd_ln },
            Ln1p  { names: [ln_1p, log1p],  c: log1p, domain: "x > −1",        d: + / (x + 1),                 lanes: simd_ln_1p },
            Softplus { names: [softplus],   c: nl_softplus, domain: "every real x", d: + / (exp(-x) + 1),  lanes: simd_softplus },
        }
    };
}
