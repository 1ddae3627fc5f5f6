//! Number types: [`Real`] scalars and the exact number systems of the language.
mod real;
pub use real::Real;
