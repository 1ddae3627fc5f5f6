use nilang::prelude::*;

#[i]
fn f(y: &mut f64, x: &f64) {
    #[store(sometimes)]
    routine! {
        let a = 0.0;
        a += x * 2.0;
    }
    y += a;
    unroutine!();
}

fn main() {}
