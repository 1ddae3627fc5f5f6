use nilang::prelude::*;

pub struct Point {
    pub x: f64,
    pub y: f64,
}

#[ad]
fn f(p: &Point, a: f64) -> f64 {
    let d = a * p.x;
    d
}

fn main() {}
