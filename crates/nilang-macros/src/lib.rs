//! Procedural-macro shim: every macro forwards to `nilang_compiler`.
use proc_macro::TokenStream;
