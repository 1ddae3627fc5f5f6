
pub mod adbench;
