pub mod adbench;
pub mod bessel;
pub mod embedding;
pub mod fft;
pub mod gmm;
pub mod qr;
pub mod sparse;
pub mod unitary;
