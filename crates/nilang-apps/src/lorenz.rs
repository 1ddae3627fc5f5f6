//! A long ODE integration and its gradient in O(δ) memory: the Lorenz system
//! `ẋ = σ(y − x), ẏ = x(ρ − z) − y, ż = xy − βz` integrated with the classical RK4 step,
//! written as an `#[i]` function, and differentiated through 10⁶ steps with Treeverse
//! ([`nilang::stdlib::treeverse`]).
//!
//! The state is `[x, y, z, ρ]`: the parameter `ρ` rides along unchanged, so the gradient with
//! respect to the state at step 0 contains `∂L/∂ρ` as its last component. The loss is the final
//! `z`. With the step `h = 10⁻⁵` a million steps cover ten time units of chaotic motion
//! (ρ = 28), long enough for the sensitivities to grow by ~10³ but not to overflow.
use nilang::prelude::*;
use nilang::stdlib::treeverse::{
    apply_step, step_vjp, step_vjp_on, store_all, treeverse_reversible, TreeverseLog,
};

/// `σ` of the Lorenz system.
pub const SIGMA: f64 = 10.0;
/// `β` of the Lorenz system.
pub const BETA: f64 = 8.0 / 3.0;
/// The RK4 step size.
pub const H: f64 = 1e-5;

/// The state `[x, y, z, ρ]`.
pub type State = [f64; 4];

/// The usual starting point on the attractor's side, with `ρ = 28`.
pub const START: State = [1.0, 1.0, 20.0, 28.0];

/// `k += f(x)`: the Lorenz vector field at `x = [x, y, z, ρ]`.
///
/// ```
/// use nilang::prelude::*;
/// use nilang_apps::lorenz::*;
/// let mut k = [0.0; 3];
/// LorenzField.call((&mut k, &mut [1.0, 2.0, 3.0, 28.0]));
/// assert_eq!(k, [SIGMA * 1.0, 1.0 * 25.0 - 2.0, 2.0 - BETA * 3.0]);
/// ```
#[i]
pub fn lorenz_field<T: Scalar>(k: &mut [T; 3], x: &mut [T; 4]) {
    routine! {
        let (dyx, rz) = (T::default(), T::default());
        dyx += x[1] - x[0];
        rz += x[3] - x[2];
    }
    k[0] += dyx * cst!(T::lit(SIGMA));
    k[1] += x[0] * rz;
    k[1] -= x[1];
    k[2] += x[0] * x[1];
    k[2] -= x[2] * cst!(T::lit(BETA));
    unroutine!();
}

/// `stage += x + c·k` on the three coordinates, `stage[3] += x[3]` (ρ rides along).
#[i]
fn rk4_stage<T: Scalar>(stage: &mut [T; 4], x: &mut [T; 4], k: &mut [T; 3], c: f64) {
    for i in 0..3 {
        stage[i] += x[i];
        stage[i] += k[i] * cst!(T::lit(c));
    }
    stage[3] += x[3];
}

/// The four slopes `k` of an RK4 step from `src` and the three intermediate states `st`
/// (`k`, `st` zero on entry).
#[i]
fn rk4_stages<T: Scalar>(k: &mut [[T; 3]; 4], st: &mut [[T; 4]; 3], src: &mut [T; 4]) {
    lorenz_field(&mut k[0], src);
    rk4_stage(&mut st[0], src, &mut k[0], H / 2.0);
    lorenz_field(&mut k[1], &mut st[0]);
    rk4_stage(&mut st[1], src, &mut k[1], H / 2.0);
    lorenz_field(&mut k[2], &mut st[1]);
    rk4_stage(&mut st[2], src, &mut k[2], H);
    lorenz_field(&mut k[3], &mut st[2]);
}

/// `dest += src + H/6 (k₁ + 2k₂ + 2k₃ + k₄)` on the three coordinates, `dest[3] += src[3]`.
#[i]
fn rk4_update<T: Scalar>(dest: &mut [T; 4], src: &mut [T; 4], k: &mut [[T; 3]; 4]) {
    for i in 0..3 {
        dest[i] += src[i];
        dest[i] += k[0][i] * cst!(T::lit(H / 6.0));
        dest[i] += k[1][i] * cst!(T::lit(H / 3.0));
        dest[i] += k[2][i] * cst!(T::lit(H / 3.0));
        dest[i] += k[3][i] * cst!(T::lit(H / 6.0));
    }
    dest[3] += src[3];
}

/// An RK4 step `$name` in one of the two reversal modes (the stages are the ancillas of a
/// routine; with `#[store]` they are stored on the tape instead of being uncomputed).
macro_rules! rk4_step {
    ($(#[$doc:meta])* $name:ident $(, #[$store:ident])?) => {
        $(#[$doc])*
        #[i]
        pub fn $name<T: Scalar>(dest: &mut [T; 4], src: &mut [T; 4]) {
            $(#[$store])?
            routine! {
                let k = [[T::default(); 3]; 4];
                let st = [[T::default(); 4]; 3];
                rk4_stages(&mut k, &mut st, src);
            }
            rk4_update(dest, src, &mut k);
            unroutine!();
        }
    };
}

rk4_step!(
    /// One classical RK4 step of size [`H`]: `dest += Φ_h(src)` (`dest` zero on entry). The four
    /// stages are ancillas of a routine, uncomputed after the update.
    ///
    /// ```
    /// use nilang::prelude::*;
    /// use nilang_apps::lorenz::*;
    /// let (mut dest, mut src) = ([0.0; 4], START);
    /// LorenzRk4.call((&mut dest, &mut src));
    /// assert!((dest[0] - 1.0).abs() < 1e-8 && dest[3] == 28.0);
    /// LorenzRk4.uncall((&mut dest, &mut src));
    /// assert_eq!(dest, [0.0; 4]);
    /// ```
    lorenz_rk4
);

rk4_step!(
    /// [`lorenz_rk4`] in split mode: the stages are stored on the tape (`#[store] routine!`) at
    /// the end of the forward run instead of being uncomputed, and restored (not recomputed) when
    /// the step runs backwards. Same values and gradients; a forward run must be followed by its
    /// inverse (as in [`step_vjp`]), or the tape keeps growing.
    ///
    /// ```
    /// use nilang::prelude::*;
    /// use nilang_apps::lorenz::*;
    /// let (mut d1, mut d2) = ([0.0; 4], [0.0; 4]);
    /// LorenzRk4.call((&mut d1, &mut START.clone()));
    /// LorenzRk4Split.call((&mut d2, &mut START.clone()));
    /// assert_eq!(d1, d2);
    /// assert_eq!(nilang::tape::stats().len, 4 * 3 + 3 * 4); // k1..k4 and the stages a, b, c
    /// LorenzRk4Split.uncall((&mut d2, &mut START.clone()));
    /// assert_eq!((d2, nilang::tape::stats().len), ([0.0; 4], 0));
    /// ```
    lorenz_rk4_split,
    #[store]
);

/// The gradient of `z_n` through a tape of all states (as [`gradient_store_all`]) with each
/// step's vjp in split mode ([`LorenzRk4Split`]), and what the store tape of the run (one for
/// all vjps) did.
///
/// ```
/// use nilang_apps::lorenz::*;
/// let (g, tape) = gradient_store_all_split(&START, 100);
/// assert_eq!(g, gradient_store_all(&START, 100));
/// assert!(tape.peak_bytes > 0 && tape.len == 0);
/// ```
pub fn gradient_store_all_split(x0: &State, n: usize) -> (State, nilang::tape::TapeStats) {
    let mut tape = nilang::tape::Tape::new();
    let g = store_all(
        x0,
        n,
        |x| apply_step(&LorenzRk4, x),
        |x, g| step_vjp_on(&mut tape, &LorenzRk4Split, x, g),
        seed,
    );
    (g, tape.stats())
}

/// `n` RK4 steps from `x0` (one forward run, keeping only the latest state).
///
/// ```
/// use nilang_apps::lorenz::*;
/// let x = integrate(&START, 1000);
/// assert!((x[2] - 20.0).abs() < 1.0 && x[3] == 28.0);
/// ```
pub fn integrate(x0: &State, n: usize) -> State {
    let mut x = *x0;
    for _ in 0..n {
        x = apply_step(&LorenzRk4, &x);
    }
    x
}

/// The loss: the final `z`.
pub fn loss(x0: &State, n: usize) -> f64 {
    integrate(x0, n)[2]
}

fn seed(_: &State) -> State {
    [0.0, 0.0, 1.0, 0.0]
}

/// `∂z_n/∂(x₀, y₀, z₀, ρ)` with Treeverse and `delta` checkpoints, and what the schedule did.
///
/// ```
/// use nilang_apps::lorenz::*;
/// let (g, log) = gradient(&START, 1000, 4);
/// assert_eq!(g, gradient_store_all(&START, 1000));
/// assert!(log.peak_states <= 5);
/// ```
pub fn gradient(x0: &State, n: usize, delta: usize) -> (State, TreeverseLog) {
    let mut log = TreeverseLog::default();
    let g = treeverse_reversible(&LorenzRk4, x0, n, delta, seed, Some(&mut log));
    (g, log)
}

/// The same gradient from a tape of all `n + 1` states.
pub fn gradient_store_all(x0: &State, n: usize) -> State {
    store_all(
        x0,
        n,
        |x| apply_step(&LorenzRk4, x),
        |x, g| step_vjp(&LorenzRk4, x, g),
        seed,
    )
}

/// Central finite differences of [`loss`] with relative step `eps`.
pub fn gradient_fd(x0: &State, n: usize, eps: f64) -> State {
    core::array::from_fn(|k| {
        let h = eps * x0[k].abs().max(1.0);
        let (mut a, mut b) = (*x0, *x0);
        a[k] += h;
        b[k] -= h;
        (loss(&a, n) - loss(&b, n)) / (2.0 * h)
    })
}

/// One measured schedule: its checkpoint budget, peak stored bytes and gradient time relative
/// to one forward run.
#[derive(Clone, Debug)]
pub struct TradeOff {
    /// The label (`δ = 10`, `store-all`).
    pub label: String,
    /// The peak heap bytes of the gradient run.
    pub peak_bytes: f64,
    /// The gradient's time over one forward run's.
    pub time_ratio: f64,
}

/// Draw gradient time (relative to a forward run) against peak memory, both on log scales,
/// as an SVG.
pub fn plot_time_memory(
    path: &std::path::Path,
    title: &str,
    points: &[TradeOff],
) -> Result<(), String> {
    use plotters::prelude::*;
    let err = |e: &dyn std::fmt::Display| format!("{}: {e}", path.display());
    if points.is_empty() {
        return Err(format!("{}: nothing to plot", path.display()));
    }
    let (mut x0, mut x1, mut y0, mut y1) = (f64::MAX, 0.0f64, f64::MAX, 0.0f64);
    for p in points {
        x0 = x0.min(p.peak_bytes.max(1.0));
        x1 = x1.max(p.peak_bytes.max(1.0));
        y0 = y0.min(p.time_ratio.max(1e-3));
        y1 = y1.max(p.time_ratio.max(1e-3));
    }
    let root = SVGBackend::new(path, (700, 480)).into_drawing_area();
    root.fill(&WHITE).map_err(|e| err(&e))?;
    let mut chart = ChartBuilder::on(&root)
        .caption(title, ("sans-serif", 18))
        .margin(15)
        .x_label_area_size(40)
        .y_label_area_size(60)
        .build_cartesian_2d(
            (x0 / 2.0..x1 * 4.0).log_scale(),
            (y0 / 1.5..y1 * 1.5).log_scale(),
        )
        .map_err(|e| err(&e))?;
    chart
        .configure_mesh()
        .x_desc("peak memory of the gradient run (bytes)")
        .y_desc("gradient time / forward time")
        .x_label_formatter(&|v| format!("{v:.0e}"))
        .draw()
        .map_err(|e| err(&e))?;
    chart
        .draw_series(LineSeries::new(
            points.iter().map(|p| (p.peak_bytes.max(1.0), p.time_ratio)),
            BLUE.stroke_width(2),
        ))
        .map_err(|e| err(&e))?;
    chart
        .draw_series(points.iter().map(|p| {
            EmptyElement::at((p.peak_bytes.max(1.0), p.time_ratio))
                + Circle::new((0, 0), 4, BLUE.filled())
                + Text::new(p.label.clone(), (6, -14), ("sans-serif", 13))
        }))
        .map_err(|e| err(&e))?;
    root.present().map_err(|e| err(&e))?;
    Ok(())
}
