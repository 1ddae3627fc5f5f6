//! The IR of an `#[ad]` function: statements as parsed (scopes flattened, every scalar local
//! one function-wide variable), and the three-address (single-assignment) form of each
//! right-hand side ([`Ssa`]).
use proc_macro2::{Ident, TokenStream};

/// What a variable holds.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    /// An `f64` that carries a derivative.
    Active,
    /// An array, slice or `Vec` of `f64` that carries derivatives.
    Array,
    /// Anything else (integers, flags, constants): no derivative.
    Inactive,
}

/// A parameter of the function.
#[derive(Clone, Debug)]
pub struct Param {
    /// Its name.
    pub name: Ident,
    /// Its kind.
    pub kind: Kind,
    /// Its type as written.
    pub ty: syn::Type,
    /// An output (`&mut [f64]`, `&mut [f64; N]`): an array the function writes, whose
    /// adjoint the caller seeds.
    pub output: bool,
    /// Marked `#[data]`: an `f64` or `f64` array without derivative (its kind is
    /// [`Kind::Inactive`]; no adjoint, no adjoint arithmetic for what depends on it alone).
    pub data: bool,
}

/// A function-wide variable (a `let` hoisted out of its block, a loop variable, or a
/// temporary of the lowering).
#[derive(Clone, Debug)]
pub struct Var {
    /// Its name.
    pub name: Ident,
    /// Its kind.
    pub kind: Kind,
    /// Its type, when written.
    pub ty: Option<syn::Type>,
}

/// A place that is read or written.
#[derive(Clone, Debug)]
pub enum Place {
    /// A scalar variable or parameter.
    Var(Ident),
    /// An element `a[index]` of an array variable or parameter (the index has no derivative).
    Elem(Ident, TokenStream),
}

/// A right-hand side expression of differentiated values.
#[derive(Clone, Debug)]
pub enum Expr {
    /// A value without derivative (literal, integer expression, constant).
    Const(TokenStream),
    /// A read of a place.
    Read(Place),
    /// `a + b`, `a - b`, `a * b`, `a / b`.
    Bin(BinOp, Box<Expr>, Box<Expr>),
    /// `-a`.
    Neg(Box<Expr>),
    /// `a.f()` for a function of one argument.
    Unary(Unary, Box<Expr>),
    /// `a.powi(n)`, `n` without derivative.
    Powi(Box<Expr>, TokenStream),
    /// `a.powf(b)`, `a.max(b)`, `a.min(b)`.
    Binary(Fn2, Box<Expr>, Box<Expr>),
    /// A call of another `#[ad]` function.
    Call(syn::Path, Vec<Arg>),
}

/// An argument of a call of an `#[ad]` function.
#[derive(Clone, Debug)]
pub enum Arg {
    /// A scalar that carries a derivative.
    Value(Expr),
    /// An array variable or parameter, passed as written (`&x`, `&a[..]`).
    Array(Ident, TokenStream),
    /// Anything without derivative, passed as written.
    Const(TokenStream),
    /// A `#[data]` array, passed as written (its adjoint slot: none).
    Data(TokenStream),
}

/// Binary arithmetic.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BinOp {
    /// `+`
    Add,
    /// `-`
    Sub,
    /// `*`
    Mul,
    /// `/`
    Div,
}

/// A function of one argument.
#[derive(Clone, Copy, Debug)]
pub enum Unary {
    /// A row of the table of elementary functions (its derivative from the table).
    Table(&'static crate::functions::Elementary),
    /// `sqrt`
    Sqrt,
    /// `abs`
    Abs,
    /// `recip`
    Recip,
}

/// A function of two differentiated arguments.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Fn2 {
    /// `a.powf(b)`
    Powf,
    /// `a.max(b)`
    Max,
    /// `a.min(b)`
    Min,
}

/// How a local array starts.
#[derive(Clone, Debug)]
pub enum ArrayInit {
    /// `[c; n]` or `vec![c; n]` (`c` constant): the tokens as written, and the zero array of
    /// the same shape.
    Repeat {
        /// The array expression as written.
        init: TokenStream,
        /// The zero array of its shape.
        zeros: TokenStream,
    },
    /// `x.to_vec()` of an array parameter `x`.
    CopyOf(Ident),
}

/// A statement.
#[derive(Clone, Debug)]
pub enum Stmt {
    /// `target = value` of differentiated values (compound assignments expanded).
    Assign {
        /// The place written.
        target: Place,
        /// The value.
        value: Expr,
    },
    /// `target = value` without derivative.
    Inactive {
        /// The variable written.
        target: Ident,
        /// The value, as written.
        value: TokenStream,
    },
    /// `target = f(args)`, `f` an `#[ad]` function (made by the lowering: every argument is
    /// a read, a constant or an array).
    Call {
        /// The variable written.
        target: Ident,
        /// The callee.
        func: syn::Path,
        /// The arguments.
        args: Vec<Arg>,
    },
    /// `g(&mut a, &mut b[i], ..)`, `g` an `#[i]` function.
    Reversible {
        /// The callee.
        func: syn::Path,
        /// The places passed.
        args: Vec<Place>,
    },
    /// A local array.
    Array {
        /// Its name.
        name: Ident,
        /// Its start.
        init: ArrayInit,
    },
    /// `if c1 { .. } else if c2 { .. } else { .. }`.
    If {
        /// Conditions and bodies.
        arms: Vec<(TokenStream, Vec<Stmt>)>,
        /// The `else` body.
        otherwise: Vec<Stmt>,
    },
    /// `for var in lo..hi { body }`.
    For {
        /// The loop variable.
        var: Ident,
        /// The start.
        lo: TokenStream,
        /// The end (exclusive).
        hi: TokenStream,
        /// The body.
        body: Vec<Stmt>,
    },
    /// `while cond { body }`.
    While {
        /// The condition.
        cond: TokenStream,
        /// The body.
        body: Vec<Stmt>,
    },
    /// `return value` (removed by the lowering).
    Return(Expr),
}

/// A parsed `#[ad]` function.
#[derive(Clone, Debug)]
pub struct Func {
    /// The function as written (emitted unchanged: the value-only version).
    pub item: syn::ItemFn,
    /// Its parameters.
    pub params: Vec<Param>,
    /// Its function-wide scalar variables.
    pub vars: Vec<Var>,
    /// Its body.
    pub body: Vec<Stmt>,
    /// The local `f64` variables and arrays whose values depend on no differentiated
    /// parameter (on data and constants only): no adjoint ([`super::activity`]).
    pub passive: std::collections::HashSet<String>,
}

impl Func {
    /// The kind of a variable or parameter, if it is one.
    pub fn kind(&self, name: &Ident) -> Option<Kind> {
        self.params
            .iter()
            .find(|p| &p.name == name)
            .map(|p| p.kind)
            .or_else(|| self.vars.iter().find(|v| &v.name == name).map(|v| v.kind))
    }
    /// Whether a place has an adjoint (a differentiated scalar, an element of a
    /// differentiated array).
    pub fn is_active(&self, p: &Place) -> bool {
        match p {
            Place::Var(v) => self.kind(v) == Some(Kind::Active) && !self.is_passive(v),
            Place::Elem(a, _) => self.kind(a) == Some(Kind::Array) && !self.is_passive(a),
        }
    }
    /// Whether local `name` is an `f64` (array) that depends on no differentiated parameter.
    pub fn is_passive(&self, name: &Ident) -> bool {
        !self.passive.is_empty() && self.passive.contains(&name.to_string())
    }
    /// Whether `name` is a parameter.
    pub fn is_param(&self, name: &Ident) -> bool {
        self.params.iter().any(|p| &p.name == name)
    }
    /// Whether the function returns its value (`-> f64`); without, it has outputs only.
    pub fn returns_value(&self) -> bool {
        matches!(self.item.sig.output, syn::ReturnType::Type(..))
    }
}

/// One operation of the single-assignment form of a right-hand side: operand `k` is the
/// value `tk` of operation `k`.
#[derive(Clone, Debug)]
pub enum Op {
    /// `tk = constant`
    Const(TokenStream),
    /// `tk = place`
    Read(Place),
    /// `tk = ta ∘ tb`
    Bin(BinOp, usize, usize),
    /// `tk = -ta`
    Neg(usize),
    /// `tk = f(ta)`
    Unary(Unary, usize),
    /// `tk = ta.powi(n)`
    Powi(usize, TokenStream),
    /// `tk = f(ta, tb)`
    Binary(Fn2, usize, usize),
}

/// The single-assignment form of a right-hand side: its value is the last operation's.
#[derive(Clone, Debug, Default)]
pub struct Ssa {
    /// The operations, operands before their uses.
    pub ops: Vec<Op>,
}

impl Ssa {
    /// The single-assignment form of `e` (which holds no call).
    pub fn of(e: &Expr) -> Ssa {
        let mut s = Ssa::default();
        s.push(e);
        s
    }
    fn push(&mut self, e: &Expr) -> usize {
        let op = match e {
            Expr::Const(t) => Op::Const(t.clone()),
            Expr::Read(p) => Op::Read(p.clone()),
            Expr::Bin(o, a, b) => {
                let a = self.push(a);
                let b = self.push(b);
                Op::Bin(*o, a, b)
            }
            Expr::Neg(a) => Op::Neg(self.push(a)),
            Expr::Unary(u, a) => Op::Unary(*u, self.push(a)),
            Expr::Powi(a, n) => Op::Powi(self.push(a), n.clone()),
            Expr::Binary(f, a, b) => {
                let a = self.push(a);
                let b = self.push(b);
                Op::Binary(*f, a, b)
            }
            // calls are their own statements after the lowering
            Expr::Call(..) => Op::Const(quote::quote!(::core::f64::NAN)),
        };
        self.ops.push(op);
        self.ops.len() - 1
    }

    /// For each operation, whether its value depends on a differentiated place (`active`
    /// tells which places are): only such operations have adjoint code.
    pub fn active(&self, active: impl Fn(&Place) -> bool) -> Vec<bool> {
        let mut act = vec![false; self.ops.len()];
        for k in 0..self.ops.len() {
            act[k] = match &self.ops[k] {
                Op::Const(_) => false,
                Op::Read(p) => active(p),
                Op::Bin(_, a, b) | Op::Binary(_, a, b) => act[*a] || act[*b],
                Op::Neg(a) | Op::Unary(_, a) | Op::Powi(a, _) => act[*a],
            };
        }
        act
    }

    /// For each operation, whether the adjoint code reads its value, given which operations
    /// are active ([`Ssa::active`]): a factor of a product with an active other factor, a
    /// divisor, the operand or value of a function of an active operand, and the operands
    /// of such values. A constant factor asks for nothing (`0.5 * s`: `s` is not needed).
    pub fn needed(&self, act: &[bool]) -> Vec<bool> {
        let mut need = vec![false; self.ops.len()];
        for k in (0..self.ops.len()).rev() {
            if act[k] {
                match &self.ops[k] {
                    Op::Bin(BinOp::Mul, a, b) => {
                        if act[*a] {
                            need[*b] = true;
                        }
                        if act[*b] {
                            need[*a] = true;
                        }
                    }
                    Op::Bin(BinOp::Div, _, b) => {
                        need[*b] = true;
                        if act[*b] {
                            need[k] = true;
                        }
                    }
                    Op::Unary(..) | Op::Powi(..) | Op::Binary(..) => need[k] = true,
                    _ => {}
                }
            }
            if need[k] {
                match &self.ops[k] {
                    Op::Bin(_, a, b) | Op::Binary(_, a, b) => {
                        need[*a] = true;
                        need[*b] = true;
                    }
                    Op::Neg(a) | Op::Unary(_, a) | Op::Powi(a, _) => need[*a] = true,
                    Op::Const(_) | Op::Read(_) => {}
                }
            }
        }
        need
    }
}
