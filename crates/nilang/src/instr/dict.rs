//! Dictionary ancillas (NiLang's `d[k] ← v`, `d[k] → v`, `d[k]::∅ ↔ v`, `d[k] ↔ v::∅`) as
//! reversible functions on a `HashMap`, each with its `_inv`.
//!
//! ```
//! use std::collections::HashMap;
//! use nilang::prelude::*;
//! use nilang::instr::dict::*;
//! #[i]
//! fn f(d: &mut HashMap<String, i64>, y: &mut i64) {
//!     DICT_INSERT(d, &"y".to_string(), y);   // d["y"] ← y (copy)
//! }
//! let (mut d, mut y) = (HashMap::from([("x".to_string(), 34)]), 3);
//! f(&mut d, &mut y);
//! assert_eq!((d["y"], y), (3, 3));
//! f_inv(&mut d, &mut y);
//! assert!(!d.contains_key("y"));
//! ```
#![allow(non_snake_case)]
use crate::check::{fail, AlmostSame, ErrorKind};
use core::fmt::Debug;
use core::hash::Hash;
use std::collections::HashMap;

const LOC: &str = "nilang::instr::dict";

/// What a dictionary key needs: hashing, equality, copies, and `Debug` for messages.
pub trait DictKey: Hash + Eq + Clone + Debug {}
impl<K: Hash + Eq + Clone + Debug> DictKey for K {}

/// `d[k] ← v`: insert a copy of `v` under a new key (an error if the key exists).
pub fn DICT_INSERT<K: DictKey, V: Clone>(d: &mut HashMap<K, V>, k: &K, v: &mut V) {
    if d.contains_key(k) {
        fail(
            ErrorKind::Other,
            LOC,
            "d[k] ← v",
            format!("the dictionary already has key {k:?}"),
        );
    }
    d.insert(k.clone(), v.clone());
}
/// `d[k] → v`: the inverse of [`DICT_INSERT`]: check `d[k] == v`, then remove the key.
pub fn DICT_INSERT_inv<K: DictKey, V: AlmostSame + Debug>(d: &mut HashMap<K, V>, k: &K, v: &mut V) {
    match d.get(k) {
        Some(w) if w.almost_same(v) => {
            d.remove(k);
        }
        Some(w) => fail(
            ErrorKind::Deallocation,
            LOC,
            "d[k] → v",
            format!("key {k:?} holds {w:?}, expected {v:?}"),
        ),
        None => fail(
            ErrorKind::Deallocation,
            LOC,
            "d[k] → v",
            format!("no key {k:?}"),
        ),
    }
}
/// `d[k] → v` (NiLang's spelling of the deallocation, itself reversible).
pub fn DICT_REMOVE<K: DictKey, V: AlmostSame + Debug>(d: &mut HashMap<K, V>, k: &K, v: &mut V) {
    DICT_INSERT_inv(d, k, v)
}
/// The inverse of [`DICT_REMOVE`].
pub fn DICT_REMOVE_inv<K: DictKey, V: Clone>(d: &mut HashMap<K, V>, k: &K, v: &mut V) {
    DICT_INSERT(d, k, v)
}
/// `d[k]::∅ ↔ v`: move `v` under a new key; `v` is left zero (`Default`).
pub fn DICT_MOVE_IN<K: DictKey, V: Default>(d: &mut HashMap<K, V>, k: &K, v: &mut V) {
    if d.contains_key(k) {
        fail(
            ErrorKind::Other,
            LOC,
            "d[k]::∅ ↔ v",
            format!("the dictionary already has key {k:?}"),
        );
    }
    d.insert(k.clone(), core::mem::take(v));
}
/// `d[k] ↔ v::∅`: the inverse of [`DICT_MOVE_IN`]: move `d[k]` out into a zero `v`.
pub fn DICT_MOVE_IN_inv<K: DictKey, V: Default + AlmostSame + Debug>(
    d: &mut HashMap<K, V>,
    k: &K,
    v: &mut V,
) {
    if !(*v).almost_same(&V::default()) {
        fail(
            ErrorKind::Other,
            LOC,
            "d[k] ↔ v::∅",
            format!("the target holds {v:?}, not zero"),
        );
    }
    match d.remove(k) {
        Some(w) => *v = w,
        None => fail(
            ErrorKind::Other,
            LOC,
            "d[k] ↔ v::∅",
            format!("no key {k:?}"),
        ),
    }
}
/// `d[k] ↔ v::∅`: move an entry out into a zero variable (the key is removed).
pub fn DICT_MOVE_OUT<K: DictKey, V: Default + AlmostSame + Debug>(
    d: &mut HashMap<K, V>,
    k: &K,
    v: &mut V,
) {
    DICT_MOVE_IN_inv(d, k, v)
}
/// The inverse of [`DICT_MOVE_OUT`].
pub fn DICT_MOVE_OUT_inv<K: DictKey, V: Default>(d: &mut HashMap<K, V>, k: &K, v: &mut V) {
    DICT_MOVE_IN(d, k, v)
}
