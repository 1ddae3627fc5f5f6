// `+=` on a log number is not an instruction: only `*=` and `/=` are (NiLang throws a
// `MethodError`; here it is a compile error).
use nilang::prelude::*;

#[i]
fn add_logs(x: &mut ULog<f64>, y: &ULog<f64>) {
    x += y;
}

fn main() {}
