//! The intermediate representation: reversible statements over places ("dataviews").
use proc_macro2::{Span, TokenStream};
use syn::{Expr, Ident, Member, Path};

/// A projection from a place: a field (`x.f`, `x.0`, `z.re`) or an index (`x[i]`).
#[derive(Clone, Debug)]
pub enum Proj {
    /// `.field`
    Field(Member),
    /// `[index]`
    Index(Expr),
}

/// A writable location: a root variable followed by projections, possibly viewed negated.
#[derive(Clone, Debug)]
pub struct Place {
    /// The root variable.
    pub root: Ident,
    /// Field and index projections, outermost last.
    pub path: Vec<Proj>,
    /// `-x`: the negation view (read negated, written back negated).
    pub neg: bool,
    /// Source span of the place expression (its first token on stable Rust).
    pub span: Span,
    /// Span of its last token (errors underline `span..end`).
    pub end: Span,
}

/// An operand of an instruction.
#[derive(Clone, Debug)]
pub enum Operand {
    /// A place: read, passed in-out, written back.
    Place(Place),
    /// A numeric literal (converted to the target's number type), with its sign.
    Lit {
        /// The literal as written.
        lit: syn::Lit,
        /// Whether it was written negated (`-1.5`).
        neg: bool,
        /// Its span (with the sign).
        span: Span,
    },
    /// A constant expression: evaluated once, not written back. `explicit` when written
    /// `cst!(expr)` (the user vouches that it is constant).
    Const {
        /// The expression.
        expr: Expr,
        /// Whether it was written `cst!(expr)`.
        explicit: bool,
    },
    /// A tuple of operands (tuple targets `(s, c) += sincos(x)`).
    Tuple(Vec<Operand>, Span),
}

/// The accumulation operator of an instruction.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum AccOp {
    /// `+=`
    Plus,
    /// `-=`
    Minus,
    /// `^=` (self-inverse)
    Xor,
    /// `*=` (log and tropical numbers)
    Mul,
    /// `/=`
    Div,
}

impl AccOp {
    /// The inverse operator.
    pub fn inverse(self) -> AccOp {
        match self {
            AccOp::Plus => AccOp::Minus,
            AccOp::Minus => AccOp::Plus,
            AccOp::Xor => AccOp::Xor,
            AccOp::Mul => AccOp::Div,
            AccOp::Div => AccOp::Mul,
        }
    }
}

/// The `f` of `y += f(args)`.
#[derive(Clone, Debug)]
pub enum FuncRef {
    /// A built-in marker in `nilang::instr::fns` (by type name).
    Builtin(&'static str),
    /// A user primitive declared with `#[nilang::primitive]` (a type of the same path).
    User(Path),
}

/// `target op= func(args)`.
#[derive(Clone, Debug)]
pub struct Instr {
    /// The accumulation operator (`+=`, `-=`, ...).
    pub op: AccOp,
    /// What is accumulated into (a place, or a tuple of places).
    pub target: Operand,
    /// The function applied to the arguments.
    pub func: FuncRef,
    /// The arguments of `func`.
    pub args: Vec<Operand>,
}

/// An argument of a reversible call.
#[derive(Clone, Debug)]
pub enum CallArg {
    /// `&mut place`: in-out.
    InOut(Place),
    /// A bare name `x` (or, in a slice loop, the element it stands for): in-out if it is a
    /// `&mut` parameter or an element, else passed as written (`f(out, n)` with `n: i64`).
    Name(Place),
    /// Anything else: passed as written, read-only.
    Read(Expr),
}

impl CallArg {
    /// The place passed in-out, if any; `inout_param` tells whether a name is a `&mut`
    /// parameter.
    pub fn inout_place(&self, inout_param: impl Fn(&str) -> bool) -> Option<&Place> {
        match self {
            CallArg::InOut(p) => Some(p),
            CallArg::Name(p) if !p.path.is_empty() || inout_param(&p.root.to_string()) => Some(p),
            _ => None,
        }
    }
}

/// What is called.
#[derive(Clone, Debug)]
pub enum Callee {
    /// A path call `f(args)`, `m::f::<T>(args)`.
    Path(syn::ExprPath),
    /// A method call `recv.f(args)` on a place.
    Method {
        /// The place the method is called on (in-out).
        receiver: Place,
        /// The method's name.
        method: Ident,
        /// Generic arguments written `::<..>`.
        turbofish: Option<syn::AngleBracketedGenericArguments>,
    },
}

/// A call of a reversible function (or of its inverse).
#[derive(Clone, Debug)]
pub struct Call {
    /// What is called.
    pub callee: Callee,
    /// The arguments, in order.
    pub args: Vec<CallArg>,
    /// Whether the inverse is called (`inv! { f(..) }`, an inverted program).
    pub inverse: bool,
}

impl Call {
    /// The places read by its read-only `&place` arguments.
    pub fn read_places(&self) -> impl Iterator<Item = Place> + '_ {
        self.args.iter().filter_map(|a| match a {
            CallArg::Read(e) => crate::syntax::read_place(e),
            _ => None,
        })
    }
}

/// `let x = value;` (allocation) or `dealloc!(x = value)` (deallocation).
#[derive(Clone, Debug)]
pub struct Anc {
    /// One name, or several for `let (a, b) = value;`.
    pub names: Vec<Ident>,
    /// Whether the pattern was a tuple.
    pub tuple: bool,
    /// Optional type annotation.
    pub ty: Option<syn::Type>,
    /// The value allocated with (deallocated at: checked).
    pub value: Expr,
}

/// One branch of an `if` chain: `(pre, post) { body }`.
#[derive(Clone, Debug)]
pub struct Branch {
    /// The condition tested on entry (by the forward program).
    pub pre: Expr,
    /// The condition that holds after the branch ran (tested on entry by the inverse).
    pub post: Expr,
    /// The branch's statements.
    pub body: Vec<Stmt>,
}

/// The iteration of a `for` loop.
#[derive(Clone, Debug)]
#[allow(clippy::large_enum_variant)] // a compile-time IR: size does not matter
pub enum ForIter {
    /// `start..end`, `start..=end`, optionally `.step_by(step)`, optionally reversed.
    Range(ForRange),
    /// Over the indices of a slice place (`for x in xs`, with `x` replaced by `xs[i]`).
    Indices {
        /// The slice looped over.
        slice: Place,
        /// Whether the indices run backwards.
        rev: bool,
    },
}

impl ForIter {
    /// The same iteration in the opposite order (`.rev()`; the inverse loop).
    pub fn reversed(mut self) -> ForIter {
        match &mut self {
            ForIter::Range(ForRange { rev, .. }) | ForIter::Indices { rev, .. } => *rev = !*rev,
        }
        self
    }
}

/// The range of a `for` loop: `start..end` or `start..=end`, optionally `.step_by(step)`,
/// optionally reversed.
#[derive(Clone, Debug)]
pub struct ForRange {
    /// The first value.
    pub start: Expr,
    /// The bound: excluded, or included when `inclusive` (`..=`).
    pub end: Expr,
    /// Whether `end` is included.
    pub inclusive: bool,
    /// The `.step_by(step)` argument.
    pub step: Option<Expr>,
    /// Whether the range runs backwards (`.rev()`).
    pub rev: bool,
}

impl ForRange {
    /// The expressions the range reads: `start`, `end` and the step if any.
    pub fn exprs(&self) -> impl Iterator<Item = &Expr> {
        [&self.start, &self.end].into_iter().chain(&self.step)
    }
}

/// Stack operations.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum StackKind {
    /// `push!(stack, x)`: move `x` onto the stack (`x` becomes zero).
    Push,
    /// `pop!(stack, x)`: move the top into `x` (zero before).
    Pop,
    /// `copy_push!(stack, x)`: push a copy of `x`.
    CopyPush,
    /// `copy_pop!(stack, x)`: pop a copy of `x` (checked equal).
    CopyPop,
}

impl StackKind {
    /// The inverse operation.
    pub fn inverse(self) -> StackKind {
        match self {
            StackKind::Push => StackKind::Pop,
            StackKind::Pop => StackKind::Push,
            StackKind::CopyPush => StackKind::CopyPop,
            StackKind::CopyPop => StackKind::CopyPush,
        }
    }
}

/// The statement kinds.
#[derive(Clone, Debug)]
pub enum StmtKind {
    /// `y += f(x)`: an instruction.
    Instr(Instr),
    /// `f(&mut x, ..)`, `x.f(..)`: a call of a reversible function.
    Call(Call),
    /// `let x = value;`: an ancilla allocated.
    Alloc(Anc),
    /// `dealloc!(x = value)`: an ancilla deallocated (its value checked).
    Dealloc(Anc),
    /// `if (pre, post) { .. } else if .. else { .. }`.
    If {
        /// The `if` and `else if` branches, in order.
        branches: Vec<Branch>,
        /// The `else` branch.
        otherwise: Option<Vec<Stmt>>,
    },
    /// `while (pre, post) { body }`, or with a step `while (pre, post, step) { body }`: the
    /// step runs after the body in every iteration (`step_first` false), and, in the inverse,
    /// the inverted step before the inverted body (`step_first` true).
    While {
        /// Tested before every iteration.
        pre: Expr,
        /// False at entry, true after every iteration.
        post: Expr,
        /// The loop body.
        body: Vec<Stmt>,
        /// The step (empty without one).
        step: Vec<Stmt>,
        /// Whether the step runs before the body (the inverse of a stepped loop).
        step_first: bool,
    },
    /// `for var in iter { body }`.
    For {
        /// The loop variable.
        var: Ident,
        /// What it runs over.
        iter: ForIter,
        /// The loop body.
        body: Vec<Stmt>,
    },
    /// Janus's do-first loop `from a do s1 loop s2 until c`, written
    /// `#[from(a)] loop { s1; if c { break } s2 }`: `a` holds at entry, `s1` runs, the loop
    /// ends when `c` holds after `s1`, else `s2` runs and `a` must be false again. The inverse
    /// is `from c do ~s1 loop ~s2 until a`.
    DoLoop {
        /// `a`: holds at entry only.
        from: Expr,
        /// `s1`: runs in every iteration.
        first: Vec<Stmt>,
        /// `c`: ends the loop after `s1`.
        until: Expr,
        /// `s2`: runs when the loop goes on.
        second: Vec<Stmt>,
    },
    /// A plain nested block (its own ancilla scope).
    Block(Vec<Stmt>),
    /// Statements spliced into the enclosing block (inverse blocks `inv! { ... }`).
    Seq(Vec<Stmt>),
    /// A routine's statements spliced into the enclosing block: `routine! { ... }` (`undo`
    /// false) or the matching `unroutine!()` (`undo` true, the routine inverted). Kept apart
    /// from [`StmtKind::Seq`] so that later stages see compute–copy–uncompute structure.
    Routine {
        /// The routine's statements (inverted for `unroutine!()`).
        body: Vec<Stmt>,
        /// Whether this is the `unroutine!()`.
        undo: bool,
    },
    /// `let dst = take!(src);`: move an ancilla's value into a new ancilla (`src` is
    /// deallocated); the inverse moves it back.
    Move {
        /// The ancilla allocated.
        dst: Ident,
        /// The ancilla deallocated.
        src: Ident,
    },
    /// `fresh!(ws, ..)`: workspaces that are zero here (checked); every number in them, adjoints
    /// included, is set to zero (its own inverse).
    Fresh(Vec<Place>),
    /// `safe! { ... }`: irreversible, side-effect-only code run in both directions.
    Safe(TokenStream),
    /// A stack operation (`push!`, `pop!`, `copy_push!`, `copy_pop!`).
    Stack {
        /// Which operation.
        kind: StackKind,
        /// The stack.
        stack: Place,
        /// The value pushed or popped.
        value: Place,
    },
    /// Surface syntax as parsed, before [`crate::lower`] rewrites it (no later stage sees it).
    Surface(Surface),
}

/// What a `#[store]` attribute asks for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum StoreMode {
    /// `#[store]`: stored, unless the routine is cheap to recompute
    /// (`crate::lower::store::cheap`).
    UnlessCheap,
    /// `#[store(always)]`: stored whatever it costs.
    Always,
}

/// Statements as written that the lowering stage ([`crate::lower`]) rewrites.
#[derive(Clone, Debug)]
pub enum Surface {
    /// `inv! { ... }`: lowered to [`StmtKind::Seq`] of the inverted statements.
    Inv(Vec<Stmt>),
    /// `#[store] routine! { ... }`: lowered to [`StmtKind::Routine`]; its `unroutine!()` pushes
    /// the results onto the store tape instead of uncomputing them (see [`crate::lower::store`]);
    /// `#[store]` only when the routine is not cheap to recompute, `#[store(always)]` always.
    StoreRoutine(Vec<Stmt>, StoreMode),
    /// `unroutine!()`: lowered to the inverse of the open routine before it in the same block.
    Unroutine,
    /// `match k { 0 => { .. } 1 | 2 => { .. } 3..=5 => { .. } _ => { .. } }` on an integer:
    /// lowered to an `if` chain whose pre- and post-condition are the arm's pattern (so the
    /// arm must leave `k` matching it, and the inverse takes the same arm).
    Match {
        /// The value matched (a condition: read, evaluated for each arm tried).
        scrutinee: Expr,
        /// The arms before `_`: integer literals, ranges of them, `|` of those.
        arms: Vec<MatchArm>,
        /// The final `_` arm.
        otherwise: Vec<Stmt>,
    },
}

/// An arm of [`Surface::Match`]: `pat => { body }`.
#[derive(Clone, Debug)]
pub struct MatchArm {
    /// An integer literal, a range of them (`a..b`, `a..=b`, open at one end), or `|` of those.
    pub pat: syn::Pat,
    /// The arm's statements.
    pub body: Vec<Stmt>,
}

/// The index variable of a slice loop `for x in xs` (the element `x` is `xs[index]`).
pub fn slice_index(var: &Ident) -> Ident {
    quote::format_ident!("__nilang_i_{}", var, span = var.span())
}

/// The identity of a statement of a function's core IR: numbered once after
/// [`crate::lower`] (the parser leaves [`StmtId::UNNUMBERED`]), kept by [`crate::invert`] (the
/// inverse of statement `s` has the id of `s`). The facts about a statement
/// ([`crate::facts`]) are found by it.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct StmtId(pub u32);

impl StmtId {
    /// The id of a statement not numbered yet (as parsed).
    pub const UNNUMBERED: StmtId = StmtId(0);
}

/// A statement with its source span, text and whether runtime checks are on for it.
#[derive(Clone, Debug)]
pub struct Stmt {
    /// Its identity (see [`StmtId`]).
    pub id: StmtId,
    /// What the statement is.
    pub kind: StmtKind,
    /// Where it was written.
    pub span: Span,
    /// The statement as written (for error messages).
    pub text: String,
    /// Runtime checks emitted for this statement.
    pub check: bool,
}
