//! Training the embedding: Adam and a trust-region Newton method (exact Hessians), two
//! vertices fixed, and the loss curves' plot.
use super::*;

/// The result of a training run.
#[derive(Clone, Debug)]
pub struct Training {
    /// Final positions.
    pub x: Vec<f64>,
    /// The loss before every step and after the last one.
    pub losses: Vec<f64>,
    /// Number of Hessians computed (Newton only).
    pub hessians: usize,
}

impl Training {
    /// The final loss.
    pub fn loss(&self) -> f64 {
        *self.losses.last().expect("at least the initial loss")
    }
}

/// Indices (vec order) of the coordinates that are trained: all but those of `fixed` vertices.
pub fn free_coordinates(k: usize, fixed: &[usize]) -> Vec<usize> {
    (0..NV * k).filter(|i| !fixed.contains(&(i / k))).collect()
}

/// Adam (β₁ = 0.9, β₂ = 0.999, ε = 1e-8) with learning rate `lr` for `steps` steps, the
/// vertices `fixed` kept in place. `tick` is called after each step.
pub fn train_adam(
    x0: &[f64],
    k: usize,
    fixed: &[usize],
    lr: f64,
    steps: usize,
    mut tick: impl FnMut(),
) -> Training {
    let (b1, b2, eps) = (0.9, 0.999, 1e-8);
    let free = free_coordinates(k, fixed);
    let mut x = x0.to_vec();
    let (mut m, mut v) = (vec![0.0; x.len()], vec![0.0; x.len()]);
    let mut losses = Vec::with_capacity(steps + 1);
    for t in 1..=steps {
        let (l, g) = gradient(&x, k);
        losses.push(l);
        let (c1, c2) = (1.0 - b1.powi(t as i32), 1.0 - b2.powi(t as i32));
        for &i in &free {
            m[i] = b1 * m[i] + (1.0 - b1) * g[i];
            v[i] = b2 * v[i] + (1.0 - b2) * g[i] * g[i];
            x[i] -= lr * (m[i] / c1) / ((v[i] / c2).sqrt() + eps);
        }
        tick();
    }
    losses.push(loss(&x, k));
    Training {
        x,
        losses,
        hessians: 0,
    }
}

/// Cholesky factorisation of a symmetric matrix (lower triangle, row-major `n × n`); `None`
/// if it is not positive definite.
fn cholesky(a: &[f64], n: usize) -> Option<Vec<f64>> {
    let mut l = vec![0.0; n * n];
    for i in 0..n {
        for j in 0..=i {
            let mut s = a[i * n + j];
            for p in 0..j {
                s -= l[i * n + p] * l[j * n + p];
            }
            if i == j {
                if s <= 0.0 || !s.is_finite() {
                    return None;
                }
                l[i * n + i] = s.sqrt();
            } else {
                l[i * n + j] = s / l[j * n + j];
            }
        }
    }
    Some(l)
}

/// Solve `L Lᵀ p = b`.
fn cholesky_solve(l: &[f64], n: usize, b: &[f64]) -> Vec<f64> {
    let mut y = b.to_vec();
    for i in 0..n {
        for p in 0..i {
            y[i] -= l[i * n + p] * y[p];
        }
        y[i] /= l[i * n + i];
    }
    for i in (0..n).rev() {
        for p in i + 1..n {
            y[i] -= l[p * n + i] * y[p];
        }
        y[i] /= l[i * n + i];
    }
    y
}

fn norm(v: &[f64]) -> f64 {
    v.iter().map(|a| a * a).sum::<f64>().sqrt()
}

/// The trust-region subproblem `min gᵀp + ½ pᵀHp, |p| ≤ Δ`: the Newton step if `H` is positive
/// definite and the step fits, otherwise `p(λ) = −(H + λI)⁻¹g` with `|p(λ)| = Δ`, `λ` found by
/// bisection (Moré–Sorensen without the hard case).
pub fn trust_region_step(h: &[f64], g: &[f64], delta: f64) -> Vec<f64> {
    let n = g.len();
    let solve = |lambda: f64| -> Option<Vec<f64>> {
        let mut a = h.to_vec();
        for i in 0..n {
            a[i * n + i] += lambda;
        }
        let l = cholesky(&a, n)?;
        Some(cholesky_solve(
            &l,
            n,
            &g.iter().map(|v| -v).collect::<Vec<_>>(),
        ))
    };
    if let Some(p) = solve(0.0) {
        if norm(&p) <= delta {
            return p;
        }
    }
    // |p(λ)| ≤ |g| / (λ − ‖H‖) ≤ Δ for λ ≥ ‖H‖_F + |g|/Δ
    let hnorm = norm(h);
    let (mut lo, mut hi) = (0.0, hnorm + norm(g) / delta);
    let Some(mut best) = solve(hi).filter(|_| hi.is_finite()) else {
        // a non-finite Hessian or gradient, or an empty region: no step
        return vec![0.0; n];
    };
    for _ in 0..100 {
        let mid = 0.5 * (lo + hi);
        match solve(mid) {
            Some(p) if norm(&p) <= delta => {
                hi = mid;
                best = p;
            }
            _ => lo = mid,
        }
        if hi - lo <= 1e-12 * hi {
            break;
        }
    }
    best
}

/// Newton's trust-region method with exact Hessians (forward-over-reverse), the vertices
/// `fixed` kept in place, for at most `max_iter` iterations (stops early when the loss is
/// below `1e-30`, the gradient vanishes or no step decreases the loss). `tick` is called after
/// each iteration. `losses` holds the loss before each Hessian and the final one.
pub fn train_newton(
    x0: &[f64],
    k: usize,
    fixed: &[usize],
    max_iter: usize,
    mut tick: impl FnMut(),
) -> Training {
    let free = free_coordinates(k, fixed);
    let n = free.len();
    let mut x = x0.to_vec();
    let mut delta = 1.0;
    let mut losses = Vec::with_capacity(max_iter + 1);
    let mut hessians = 0;
    let mut l = loss(&x, k);
    for _ in 0..max_iter {
        let (_, gfull) = gradient(&x, k);
        let g: Vec<f64> = free.iter().map(|&i| gfull[i]).collect();
        if l < 1e-30 || norm(&g) == 0.0 || !norm(&g).is_finite() {
            break;
        }
        let hfull = hessian(&x, k);
        hessians += 1;
        let mut h = vec![0.0; n * n];
        for (a, &i) in free.iter().enumerate() {
            for (b, &j) in free.iter().enumerate() {
                h[a * n + b] = 0.5 * (hfull[i][j] + hfull[j][i]);
            }
        }
        if h.iter().any(|v| !v.is_finite()) {
            break;
        }
        losses.push(l);
        // trial steps with the same Hessian, shrinking the region on rejection
        let mut accepted = false;
        for _ in 0..30 {
            let p = trust_region_step(&h, &g, delta);
            let pn = norm(&p);
            if pn == 0.0 {
                break;
            }
            let mut xn = x.clone();
            for (a, &i) in free.iter().enumerate() {
                xn[i] += p[a];
            }
            let ln = loss(&xn, k);
            let mut hp = 0.0;
            for a in 0..n {
                let row: f64 = (0..n).map(|b| h[a * n + b] * p[b]).sum();
                hp += p[a] * row;
            }
            let pred = -(g.iter().zip(&p).map(|(a, b)| a * b).sum::<f64>() + 0.5 * hp);
            let rho = if pred > 0.0 { (l - ln) / pred } else { -1.0 };
            if rho < 0.25 {
                delta = 0.25 * pn.min(delta);
            } else if rho > 0.75 && pn > 0.99 * delta {
                delta = (2.0 * delta).min(100.0);
            }
            if ln < l && (rho > 1e-4 || pred <= 0.0) {
                x = xn;
                l = ln;
                accepted = true;
                break;
            }
        }
        tick();
        if !accepted {
            // no decrease within the region: converged to rounding
            break;
        }
    }
    losses.push(l);
    Training {
        x,
        losses,
        hessians,
    }
}

/// One panel of [`plot_losses`]: a title and `(k, losses)` curves.
pub type Panel<'a> = (&'a str, Vec<(usize, Vec<f64>)>);

/// Draw the loss against the step (log scale) for each embedding dimension, one panel per
/// optimiser: `panels[p] = (title, [(k, losses)])`. Losses are clamped below at `1e-32`.
pub fn plot_losses(path: &std::path::Path, panels: &[Panel<'_>]) -> Result<(), String> {
    use plotters::prelude::*;
    let err = |e: &dyn std::fmt::Display| format!("{}: {e}", path.display());
    let root = SVGBackend::new(path, (600 * panels.len() as u32, 450)).into_drawing_area();
    root.fill(&WHITE).map_err(|e| err(&e))?;
    let areas = root.split_evenly((1, panels.len()));
    for (area, (title, series)) in areas.iter().zip(panels) {
        let steps = series
            .iter()
            .map(|(_, l)| l.len())
            .max()
            .unwrap_or(1)
            .max(2);
        let floor = 1e-32;
        let top = series
            .iter()
            .flat_map(|(_, l)| l.iter().copied())
            .fold(1.0_f64, f64::max)
            * 2.0;
        let mut chart = ChartBuilder::on(area)
            .caption(*title, ("sans-serif", 20))
            .margin(10)
            .x_label_area_size(35)
            .y_label_area_size(60)
            .build_cartesian_2d(0..steps, (floor..top).log_scale())
            .map_err(|e| err(&e))?;
        chart
            .configure_mesh()
            .x_desc("step")
            .y_desc("loss")
            .y_label_formatter(&|v| format!("{v:.0e}"))
            .draw()
            .map_err(|e| err(&e))?;
        for (idx, (k, losses)) in series.iter().enumerate() {
            let color = Palette99::pick(idx).to_rgba();
            chart
                .draw_series(LineSeries::new(
                    losses.iter().enumerate().map(|(s, &l)| (s, l.max(floor))),
                    color.stroke_width(2),
                ))
                .map_err(|e| err(&e))?
                .label(format!("k = {k}"))
                .legend(move |(x, y)| {
                    PathElement::new(vec![(x, y), (x + 20, y)], color.stroke_width(2))
                });
        }
        chart
            .configure_series_labels()
            .background_style(WHITE.mix(0.8))
            .border_style(BLACK)
            .position(SeriesLabelPosition::LowerLeft)
            .draw()
            .map_err(|e| err(&e))?;
    }
    root.present().map_err(|e| err(&e))?;
    Ok(())
}
