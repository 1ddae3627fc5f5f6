//! The applications of the NiLang paper written in NiLang.rs: reversible `#[i]` programs,
//! differentiated through `nilang`'s generic gradient API. The Bessel function ([`bessel`]),
//! sparse matrices ([`sparse`]), Gram–Schmidt QR ([`qr`]), unitary matrices ([`unitary`]), the
//! Petersen graph embedding ([`embedding`]), ADBench's Gaussian mixture model ([`gmm`]) and
//! bundle adjustment ([`ba`]), Lorenz time steps ([`lorenz`]), the FFT ([`fft`]), Box–Muller
//! ([`boxmuller`]), a NICE normalizing flow ([`nice`]) and Fibonacci numbers ([`fib`]).
//!
//! ```
//! use nilang_apps::bessel::Ibesselj;
//! // J₂(1) and its derivative (J₁(1) − J₃(1)) / 2, by the reversible Taylor series
//! let (v, (_, _, gz)) = nilang::ad::value_and_gradient(&Ibesselj, (&mut 0.0_f64, 2, &mut 1.0), 0);
//! assert!((v - 0.114_903_484_9).abs() < 1e-9);
//! assert!((gz.g - 0.210_243_615_8).abs() < 1e-9);
//! ```
#![forbid(unsafe_code)]
#![warn(missing_docs)]
/// ADBench data: readers, instance types, objectives, oracle loaders (the
/// [`nilang_adbench`] crate, shared with the benchmark).
pub use nilang_adbench as adbench;
pub mod ba;
pub mod bessel;
pub mod boxmuller;
pub mod consistency;
pub mod embedding;
pub mod fft;
pub mod fib;
pub mod fit;
pub mod gmm;
pub mod lorenz;
pub mod nice;
pub mod ordinary;
pub mod qr;
pub mod sparse;
pub mod unitary;
