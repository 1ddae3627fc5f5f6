//! Language cases 11, 14, 15 and 18 of the inventory (§5.3): deallocation comparison rules,
//! swaps and moves, stacks and copy stacks, tuple allocation.
use nilang::check::{catch, AlmostSame, ErrorKind};
use nilang::prelude::*;

// case 11: the comparison used by `dealloc!`
#[i]
fn dealloc_f64(y: &f64) {
    let x = y;
    dealloc!(x = 1.0);
}

#[i]
fn dealloc_tuple(y: &(f64, f64)) {
    let x = y;
    dealloc!(x = (1.0, 2.0));
}

#[i]
fn dealloc_tuple_names(y: &(f64, f64)) {
    let (a, b) = y;
    dealloc!((a, b) = (1.0, 2.0));
}

#[i]
fn dealloc_vec(y: &Vec<f64>) {
    let x = y.clone();
    dealloc!(x = vec![1.0, 2.0]);
}

#[derive(Clone, Debug, PartialEq)]
struct B {
    a: f64,
    b: f64,
}
impl AlmostSame for B {
    fn almost_same(&self, o: &Self) -> bool {
        self.a.almost_same(&o.a) && self.b.almost_same(&o.b)
    }
}

#[i]
fn dealloc_struct(y: &B) {
    let x = y.clone();
    dealloc!(x = B { a: 1.0, b: 2.0 });
}

#[i]
fn dealloc_string(y: &String) {
    let x = y.clone();
    dealloc!(x = String::new());
}

#[i]
fn dealloc_int(y: &i64) {
    let x = y;
    dealloc!(x = 3);
}

fn fails(f: impl FnOnce()) -> bool {
    match catch(f) {
        Ok(()) => false,
        Err(e) => {
            assert_eq!(e.kind, ErrorKind::Deallocation);
            true
        }
    }
}

#[test]
fn case11_deallocation_comparison() {
    assert!(!fails(|| dealloc_f64(&1.0)));
    assert!(!fails(|| dealloc_f64(&(1.0 + 1e-12))));
    assert!(fails(|| dealloc_f64(&1.1)));
    assert!(!fails(|| dealloc_tuple(&(1.0, 2.0))));
    assert!(fails(|| dealloc_tuple(&(1.1, 2.0))));
    assert!(!fails(|| dealloc_tuple_names(&(1.0, 2.0))));
    assert!(fails(|| dealloc_tuple_names(&(1.0, 2.1))));
    assert!(!fails(|| dealloc_vec(&vec![1.0, 2.0])));
    assert!(fails(|| dealloc_vec(&vec![1.1, 2.0])));
    assert!(fails(|| dealloc_vec(&vec![1.0])));
    assert!(!fails(|| dealloc_struct(&B { a: 1.0, b: 2.0 })));
    assert!(fails(|| dealloc_struct(&B { a: 1.0, b: 1.1 })));
    assert!(!fails(|| dealloc_string(&String::new())));
    assert!(fails(|| dealloc_string(&"a".to_string())));
    assert!(!fails(|| dealloc_int(&3)));
    assert!(fails(|| dealloc_int(&4)));
    // the inverse allocates and deallocates the other way round: same checks
    dealloc_f64_inv(&1.0);
    dealloc_vec_inv(&vec![1.0, 2.0]);
}

#[test]
fn case11_error_names_the_statement() {
    let e = catch(|| dealloc_f64(&1.5)).unwrap_err();
    assert!(e.statement.contains("dealloc!(x = 1.0)"), "{}", e.statement);
    assert!(
        e.location.contains("lang/ancillas_stacks.rs"),
        "{}",
        e.location
    );
    assert!(e.detail.contains("1.5"), "{}", e.detail);
}

// case 14: swaps, moves and stacks
#[i]
fn f1(x: &mut i64, y: &mut i64) {
    let a = 0_i64;
    SWAP(&mut a, x);
    SWAP(&mut a, y);
    SWAP(&mut a, x);
    dealloc!(a = 0);
}

#[i]
fn f2(x: &mut Vec<i64>, y: &mut i64) {
    push!(x, y);
    y += 2;
}

#[i]
fn f3(x: &mut Vec<f32>, y: &mut f32, s: &mut f32) {
    pop!(x, y);
    SWAP(&mut x[1], s);
}

#[test]
fn case14_swap_move_stack() {
    let (mut x, mut y) = (2, 3);
    f1(&mut x, &mut y);
    assert_eq!((x, y), (3, 2));
    f1_inv(&mut x, &mut y);
    assert_eq!((x, y), (2, 3));

    let (mut x, mut y) = (vec![1, 2, 3], 4);
    f2(&mut x, &mut y);
    assert_eq!((&x[..], y), (&[1, 2, 3, 4][..], 2));
    f2_inv(&mut x, &mut y);
    assert_eq!((&x[..], y), (&[1, 2, 3][..], 4));

    let (mut x, mut y, mut s) = (vec![1.0_f32, 2.0, 3.0], 0.0_f32, 4.0_f32);
    f3(&mut x, &mut y, &mut s);
    assert_eq!((&x[..], y, s), (&[1.0_f32, 4.0][..], 3.0, 2.0));
    f3_inv(&mut x, &mut y, &mut s);
    assert_eq!((&x[..], y, s), (&[1.0_f32, 2.0, 3.0][..], 0.0, 4.0));
}

#[test]
fn case14_stack_errors() {
    // pop from an empty stack
    let (mut x, mut y, mut s) = (Vec::<f32>::new(), 0.0_f32, 4.0_f32);
    let e = catch(|| f3(&mut x, &mut y, &mut s)).unwrap_err();
    assert_eq!(e.kind, ErrorKind::Stack);
    // pop into a non-zero variable
    let (mut x, mut y, mut s) = (vec![1.0_f32, 2.0], 1.0_f32, 4.0_f32);
    let e = catch(|| f3(&mut x, &mut y, &mut s)).unwrap_err();
    assert_eq!(e.kind, ErrorKind::Stack);
}

// case 15: copy stacks
#[i]
fn copy_stack_test(x: &mut f64, x2: &mut f64, st: &mut Vec<f64>) {
    x2 += x.powi(2);
    copy_push!(st, x);
    SWAP(x, x2);
}

#[i]
fn copy_changed(x: &mut f64, st: &mut Vec<f64>) {
    copy_push!(st, x);
    x += 0.4;
    copy_pop!(st, x);
}

#[i]
fn copy_changed_nocheck(x: &mut f64, st: &mut Vec<f64>) {
    copy_push!(st, x);
    x += 0.4;
    #[nocheck]
    copy_pop!(st, x);
}

#[test]
fn case15_copy_stacks() {
    let (mut x, mut x2, mut st) = (3.0, 0.0, vec![]);
    copy_stack_test(&mut x, &mut x2, &mut st);
    assert_eq!((x, x2, &st[..]), (9.0, 3.0, &[3.0][..]));
    copy_stack_test_inv(&mut x, &mut x2, &mut st);
    assert_eq!((x, x2), (3.0, 0.0));
    assert!(st.is_empty());

    let (mut x, mut st) = (0.1, vec![]);
    let e = catch(|| copy_changed(&mut x, &mut st)).unwrap_err();
    assert_eq!(e.kind, ErrorKind::Stack);

    let (mut x, mut st) = (0.1, vec![]);
    copy_changed_nocheck(&mut x, &mut st);
    assert_eq!(x, 0.1);
    assert!(st.is_empty());
}

// a stack as a local ancilla
#[i]
fn local_stack(x: &mut [i64]) {
    let st: Vec<i64> = Vec::new();
    for i in 0..x.len() {
        push!(st, x[i]);
    }
    for i in 0..x.len() {
        pop!(st, x[i]);
    }
    dealloc!(st = Vec::new());
}

#[test]
fn local_stack_reverses() {
    let mut x = [1, 2, 3, 4];
    local_stack(&mut x);
    assert_eq!(x, [4, 3, 2, 1]);
    local_stack_inv(&mut x);
    assert_eq!(x, [1, 2, 3, 4]);
}

// case 18: tuple allocation
#[i]
fn multi_alloc(y: &mut usize, x: &Vec<Vec<f64>>) {
    let (m, n) = (x.len(), x[0].len());
    let (l, k) = (x.len(), x[0].len());
    y += m * n;
    y += l * k;
    dealloc!((l, k) = (x.len(), x[0].len()));
    dealloc!((m, n) = (x.len(), x[0].len()));
}

#[i]
fn multi_alloc_bad(x: &Vec<Vec<f64>>) {
    let (m, n) = (x.len(), x[0].len());
    dealloc!((m, n) = (7, 5));
}

#[test]
fn case18_multiple_allocation() {
    let x = vec![vec![0.5; 4]; 2];
    let mut y = 0;
    multi_alloc(&mut y, &x);
    assert_eq!(y, 16);
    multi_alloc_inv(&mut y, &x);
    assert_eq!(y, 0);
    let e = catch(|| multi_alloc_bad(&x)).unwrap_err();
    assert_eq!(e.kind, ErrorKind::Deallocation);
    let e = catch(|| multi_alloc_bad_inv(&x)).unwrap_err();
    assert_eq!(e.kind, ErrorKind::Deallocation);
}
