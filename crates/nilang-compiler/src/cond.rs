//! Constant conditions: what an analysis answers when the answer depends on other functions'
//! recorded analyses (`g::ADDITIVE`, `g::WRITES`, `g::READS`), which only rustc knows.
//!
//! A [`Cond`] is `true`, `false`, or a conjunction or disjunction of constant boolean
//! expressions; [`Cond::and`], [`Cond::or`] and `!` simplify, and [`Cond::to_tokens`] writes the
//! expression rustc folds. Every analysis returns this one type (so "no" is always
//! [`Cond::False`] and "certainly" always [`Cond::True`]).
//!
//! ```
//! use nilang_compiler::cond::Cond;
//! let c = Cond::term(quote::quote!(A)).and(Cond::True).and(Cond::term(quote::quote!(B)));
//! assert_eq!(c.to_tokens().to_string(), "true && A && B");
//! assert!(c.clone().and(Cond::False).is_false());
//! assert!(c.clone().or(Cond::True).is_true());
//! assert!((!Cond::False).is_true());
//! assert_eq!((!c).to_tokens().to_string(), "true && ! (true && A && B)");
//! ```
use proc_macro2::TokenStream;
use quote::quote;

/// A constant boolean condition.
#[derive(Clone, Debug)]
pub enum Cond {
    /// Certainly.
    True,
    /// Certainly not.
    False,
    /// All of these constant expressions (never empty).
    All(Vec<TokenStream>),
    /// Any of these constant expressions (never empty).
    Any(Vec<TokenStream>),
}

impl Cond {
    /// One constant expression.
    pub fn term(t: TokenStream) -> Cond {
        Cond::All(vec![t])
    }

    /// `true` when `b`, else `false`.
    pub fn from_bool(b: bool) -> Cond {
        if b {
            Cond::True
        } else {
            Cond::False
        }
    }

    /// Whether this is certainly true.
    pub fn is_true(&self) -> bool {
        matches!(self, Cond::True)
    }

    /// Whether this is certainly false.
    pub fn is_false(&self) -> bool {
        matches!(self, Cond::False)
    }

    /// The expressions of a conjunction (one for a disjunction), `None` when false.
    fn conjuncts(self) -> Option<Vec<TokenStream>> {
        match self {
            Cond::True => Some(vec![]),
            Cond::False => None,
            Cond::All(v) => Some(v),
            // one expression is a conjunction and a disjunction alike
            Cond::Any(v) if v.len() == 1 => Some(v),
            d @ Cond::Any(_) => Some(vec![d.grouped()]),
        }
    }

    /// The expressions of a disjunction (one for a conjunction), `None` when true.
    fn disjuncts(self) -> Option<Vec<TokenStream>> {
        match self {
            Cond::True => None,
            Cond::False => Some(vec![]),
            Cond::Any(v) => Some(v),
            Cond::All(v) if v.len() == 1 => Some(v),
            c @ Cond::All(_) => Some(vec![c.grouped()]),
        }
    }

    /// `self && other`.
    pub fn and(self, other: Cond) -> Cond {
        match (self.conjuncts(), other.conjuncts()) {
            (Some(mut a), Some(b)) => {
                a.extend(b);
                if a.is_empty() {
                    Cond::True
                } else {
                    Cond::All(a)
                }
            }
            _ => Cond::False,
        }
    }

    /// `self || other`.
    pub fn or(self, other: Cond) -> Cond {
        match (self.disjuncts(), other.disjuncts()) {
            (Some(mut a), Some(b)) => {
                a.extend(b);
                if a.is_empty() {
                    Cond::False
                } else {
                    Cond::Any(a)
                }
            }
            _ => Cond::True,
        }
    }

    /// The constant expression (`true`, `false`, `true && a && b`, `false || a || b`): wrap
    /// it in parentheses where it is an operand.
    pub fn to_tokens(&self) -> TokenStream {
        match self {
            Cond::True => quote!(true),
            Cond::False => quote!(false),
            Cond::All(v) => quote!(true #(&& #v)*),
            Cond::Any(v) => quote!(false #(|| #v)*),
        }
    }

    /// The expression in parentheses.
    fn grouped(&self) -> TokenStream {
        let t = self.to_tokens();
        quote!((#t))
    }
}

impl std::ops::Not for Cond {
    type Output = Cond;
    /// `!self`.
    fn not(self) -> Cond {
        match self {
            Cond::True => Cond::False,
            Cond::False => Cond::True,
            c => Cond::term(quote!(!(#c))),
        }
    }
}

impl quote::ToTokens for Cond {
    fn to_tokens(&self, out: &mut TokenStream) {
        out.extend(Cond::to_tokens(self))
    }
}
