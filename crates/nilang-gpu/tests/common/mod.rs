//! Shared test helpers: the device (or a skip), comparisons.
#![allow(dead_code)]
use nilang_gpu::Device;

/// The first OpenCL device; `None` (after one line on stdout) where there is none, unless
/// `NILANG_REQUIRE_OPENCL=1`, where its absence fails the test (CI installs pocl).
pub fn device() -> Option<Device> {
    match Device::first() {
        Ok(d) => Some(d),
        Err(e) => {
            if std::env::var("NILANG_REQUIRE_OPENCL").as_deref() == Ok("1") {
                panic!("NILANG_REQUIRE_OPENCL=1 but no OpenCL device: {e}");
            }
            println!(
                "skipped (no OpenCL device: {e}); set NILANG_REQUIRE_OPENCL=1 to fail instead"
            );
            None
        }
    }
}

/// Conversions to and from `f64` of a precision's numbers (`(to32, up)` for `f32`).
pub type Conv<T> = (fn(&[f64]) -> Vec<T>, fn(&[T]) -> Vec<f64>);

/// `v` rounded to `f32`.
pub fn to32(v: &[f64]) -> Vec<f32> {
    v.iter().map(|&x| x as f32).collect()
}

/// `v` widened to `f64`.
pub fn up(v: &[f32]) -> Vec<f64> {
    v.iter().map(|&x| f64::from(x)).collect()
}

/// The largest absolute value (a floor that makes `max_rel` norm-wise: for sums of many
/// terms, whose small entries carry the absolute error of the large ones).
pub fn max_abs(v: &[f64]) -> f64 {
    v.iter().fold(0.0, |m, x| m.max(x.abs()))
}

/// The largest relative difference `|a − b| / max(|a|, |b|, floor)` over two slices.
pub fn max_rel(a: &[f64], b: &[f64], floor: f64) -> f64 {
    assert_eq!(a.len(), b.len(), "lengths differ");
    a.iter()
        .zip(b)
        .map(|(x, y)| (x - y).abs() / x.abs().max(y.abs()).max(floor))
        .fold(0.0, f64::max)
}

/// Asserts `max_rel(a, b, floor) <= tol`, naming what is compared.
#[track_caller]
pub fn assert_close(what: &str, a: &[f64], b: &[f64], tol: f64, floor: f64) {
    let e = max_rel(a, b, floor);
    println!("{what}: {e:e} (tolerance {tol:e})");
    let worst = a
        .iter()
        .zip(b)
        .map(|(x, y)| (x - y).abs() / x.abs().max(y.abs()).max(floor))
        .enumerate()
        .fold((0, 0.0), |m, (k, d)| if d > m.1 { (k, d) } else { m })
        .0;
    assert!(
        e <= tol,
        "{what}: relative difference {e:e} > {tol:e} (worst at {worst}: device {:e}, cpu {:e})\n device: {:?}\n cpu:    {:?}",
        a[worst],
        b[worst],
        &a[..a.len().min(8)],
        &b[..b.len().min(8)]
    );
}

/// A deterministic pseudo-random sequence in `[lo, hi)`.
pub fn seq(n: usize, seed: u64, lo: f64, hi: f64) -> Vec<f64> {
    let mut s = seed
        .wrapping_mul(6364136223846793005)
        .wrapping_add(1442695040888963407);
    (0..n)
        .map(|_| {
            s = s
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            lo + (hi - lo) * ((s >> 11) as f64 / (1u64 << 53) as f64)
        })
        .collect()
}

/// Declarations of the CUDA built-ins the CUDA dialect uses, for a syntax check by clang
/// without a CUDA installation (`-nocudainc`): qualifiers, thread indices, the math functions
/// in `double` and `float` (those of the table of elementary functions: [`table_decls`]),
/// integer `min`/`max`, `atomicAdd`.
const CUDA_DECLS: &str = r#"
#define __global__ __attribute__((global))
#define __device__ __attribute__((device))
#define __host__ __attribute__((host))
struct nl_uint3 { unsigned int x, y, z; };
__device__ nl_uint3 nl_thread_idx();
__device__ nl_uint3 nl_block_idx();
__device__ nl_uint3 nl_block_dim();
#define threadIdx nl_thread_idx()
#define blockIdx nl_block_idx()
#define blockDim nl_block_dim()
#define NL_MATH1(f) __device__ double f(double); __device__ float f(float);
#define NL_MATH2(f) __device__ double f(double, double); __device__ float f(float, float);
NL_MATH1(sin) NL_MATH1(cos) NL_MATH1(tan) NL_MATH1(asin) NL_MATH1(acos) NL_MATH1(atan)
NL_MATH1(sinh) NL_MATH1(cosh) NL_MATH1(tanh) NL_MATH1(exp) NL_MATH1(sqrt) NL_MATH1(log)
NL_MATH1(log1p) NL_MATH1(expm1) NL_MATH1(fabs) NL_MATH1(floor) NL_MATH1(ceil)
NL_MATH1(round) NL_MATH1(trunc)
NL_MATH2(pow) NL_MATH2(fmin) NL_MATH2(fmax) NL_MATH2(fmod) NL_MATH2(hypot) NL_MATH2(atan2)
#define NL_INT2(t) __device__ t min(t, t); __device__ t max(t, t);
NL_INT2(int) NL_INT2(unsigned int) NL_INT2(long) NL_INT2(unsigned long)
NL_INT2(long long) NL_INT2(unsigned long long)
__device__ double atomicAdd(double*, double);
__device__ float atomicAdd(float*, float);
__device__ float __int_as_float(int);
"#;

/// A clang that compiles CUDA (`NILANG_CLANG`, else `clang`, `clang-20` … `clang-14` on the
/// path), if any.
fn clang() -> Option<String> {
    let names: Vec<String> = match std::env::var("NILANG_CLANG") {
        Ok(c) => vec![c],
        Err(_) => std::iter::once("clang".to_string())
            .chain((14..=20).rev().map(|v| format!("clang-{v}")))
            .collect(),
    };
    names.into_iter().find(|c| {
        std::process::Command::new(c)
            .arg("--version")
            .output()
            .is_ok_and(|o| o.status.success())
    })
}

/// `NL_MATH1(c)` for the C function of every row of the table of elementary functions (the
/// ones [`CUDA_DECLS`] does not declare already), so a new row is declared here too.
fn table_decls() -> String {
    macro_rules! c_names {
        ($($F:ident { names: $n:tt, c: $c:ident, $($rest:tt)* },)*) => {
            [$(stringify!($c)),*]
        };
    }
    nilang_functions::elementary_functions!(c_names! {})
        .iter()
        .filter(|c| !CUDA_DECLS.contains(&format!("NL_MATH1({c})")))
        // `nl_softplus`, ..: defined by nilang's device prelude, not the CUDA library
        .filter(|c| !c.starts_with("nl_"))
        .map(|c| format!("NL_MATH1({c})"))
        .collect::<Vec<_>>()
        .join(" ")
}

/// Syntax-checks the CUDA translation of kernel `K` (its source in the CUDA dialect) with
/// clang's CUDA front end, for `f64` and `f32`, atomic and per-thread-row builds, against
/// [`CUDA_DECLS`]; skipped with one printed line where there is no clang.
pub fn check_cuda_syntax<K: nilang::kernel::DeviceCode>() {
    let Some(clang) = clang() else {
        println!("skipped (no clang to syntax-check the CUDA source; set NILANG_CLANG)");
        return;
    };
    let src = nilang::kernel::program_source_in::<K>(nilang::kernel::Dialect::Cuda);
    let path = std::env::temp_dir().join(format!("nilang-{}-{}.cu", K::NAME, std::process::id()));
    std::fs::write(&path, format!("{CUDA_DECLS}\n{}\n{src}", table_decls())).unwrap();
    for (real, bytes) in [("double", 8), ("float", 4)] {
        for rows in [false, true] {
            let mut cmd = std::process::Command::new(&clang);
            cmd.args([
                "-x",
                "cuda",
                "--cuda-device-only",
                "-nocudainc",
                "-nocudalib",
                // an installed CUDA newer than this clang knows is no reason to fail: the
                // check needs none of it
                "-Wno-unknown-cuda-version",
            ])
            .args(["--cuda-gpu-arch=sm_70", "-fsyntax-only", "-Werror"])
            .arg(format!("-DNL_REAL={real}"))
            .arg(format!("-DNL_REAL_BYTES={bytes}"));
            if rows {
                cmd.arg("-DNL_SHARED_ROWS");
            }
            let out = cmd.arg(&path).output().unwrap();
            assert!(
                out.status.success(),
                "{clang}: the CUDA source of `{}` ({real}, rows: {rows}) does not compile:\n{}",
                K::NAME,
                String::from_utf8_lossy(&out.stderr)
            );
        }
    }
    std::fs::remove_file(&path).ok();
    println!(
        "{clang}: the CUDA source of `{}` compiles (f64, f32; atomic, rows)",
        K::NAME
    );
}
