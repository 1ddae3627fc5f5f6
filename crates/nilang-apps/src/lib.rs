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
