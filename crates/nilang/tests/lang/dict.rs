//! NiLang case 16: dictionary ancillas.
use nilang::check::{catch, ErrorKind};
use nilang::instr::dict::*;
use nilang::prelude::*;
use std::collections::HashMap;

fn key(s: &str) -> String {
    s.to_string()
}

#[i]
fn f1(d: &mut HashMap<String, i64>, y: &mut i64) {
    DICT_INSERT(d, &key("y"), y);
}

#[i]
fn f5(d: &mut HashMap<String, i64>, x: &mut i64) {
    DICT_MOVE_IN(d, &key("x"), x);
    DICT_MOVE_OUT(d, &key("y"), x);
}

#[test]
fn dict_copy_allocation_case_16() {
    let (mut d, mut y) = (HashMap::from([(key("x"), 34)]), 3);
    f1(&mut d, &mut y);
    assert_eq!(d, HashMap::from([(key("x"), 34), (key("y"), 3)]));
    assert_eq!(y, 3);
    // calling again on the result: the key exists
    let e = catch(|| f1(&mut d.clone(), &mut y.clone())).unwrap_err();
    assert_eq!(e.kind, ErrorKind::Other);
    f1_inv(&mut d, &mut y);
    assert_eq!(d, HashMap::from([(key("x"), 34)]));
    // deallocation with the wrong value
    let mut d2 = HashMap::from([(key("y"), 4)]);
    let e = catch(|| f1_inv(&mut d2, &mut 3)).unwrap_err();
    assert_eq!(e.kind, ErrorKind::Deallocation);
}

#[test]
fn dict_moves_case_16() {
    let (mut d, mut x) = (HashMap::from([(key("y"), 34)]), 3);
    f5(&mut d, &mut x);
    assert_eq!((d.clone(), x), (HashMap::from([(key("x"), 3)]), 34));
    f5_inv(&mut d, &mut x);
    assert_eq!((d, x), (HashMap::from([(key("y"), 34)]), 3));
    let e = catch(|| f5(&mut HashMap::from([(key("x"), 34)]), &mut 3)).unwrap_err();
    assert_eq!(e.kind, ErrorKind::Other);
}
