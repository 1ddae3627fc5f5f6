pub mod adbench;
pub mod bessel;
pub mod embedding;
