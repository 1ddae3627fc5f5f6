//! The `--plot` pictures: per suite, `{suite}-ratio.svg` (every tool's min-time ratio to
//! `rust-O` per case, log scale: the paper's tables as a chart) and `{suite}.svg` (time per call
//! against the suite's work measure, [`crate::suites::work_measure`]). Each tool family has its
//! own colour and marker ([`Family`]); the legend sits in a panel right of the data. A time
//! chart's line joins one tool's cases only where they are of one kind ([`case_kind`]) and of
//! different work ([`segments`]): no line joins cases of equal size.

use crate::report::{Cell, Measure};
use plotters::prelude::*;
use std::path::{Path, PathBuf};

/// A tool family: one colour hue and one marker shape in every picture.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Family {
    /// Ours: `nilang*`.
    Ours,
    /// Plain Rust, no AD: `rust*`.
    Plain,
    /// Hand-written derivatives: `manual*`.
    Manual,
    /// Forward mode: `num-dual*`.
    Forward,
    /// Tape-based reverse mode: `echidna*`.
    Tape,
    /// The JAX peer: `jax*`.
    Jax,
    /// The Enzyme peer: `enzyme*`.
    Enzyme,
    /// Our GPU kernels: `gpu*`.
    Gpu,
    /// Anything else (the reversal schedules' names): a colour and marker per tool.
    Other,
}

/// A marker shape.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Shape {
    /// A circle.
    Circle,
    /// A square.
    Square,
    /// A diamond.
    Diamond,
    /// A triangle pointing up.
    TriangleUp,
    /// A triangle pointing down.
    TriangleDown,
    /// A cross.
    Cross,
    /// A hexagon.
    Hexagon,
    /// A star.
    Star,
}

impl Family {
    /// The family of a tool name.
    ///
    /// ```
    /// use nilang_bench::plot::Family;
    /// assert_eq!(Family::of("nilang-x8"), Family::Ours);
    /// assert_eq!(Family::of("jax-jit"), Family::Jax);
    /// assert_eq!(Family::of("treeverse-10"), Family::Other);
    /// ```
    pub fn of(tool: &str) -> Family {
        const PREFIXES: [(&str, Family); 8] = [
            ("nilang", Family::Ours),
            ("rust", Family::Plain),
            ("manual", Family::Manual),
            ("num-dual", Family::Forward),
            ("echidna", Family::Tape),
            ("jax", Family::Jax),
            ("enzyme", Family::Enzyme),
            ("gpu", Family::Gpu),
        ];
        PREFIXES
            .iter()
            .find(|(p, _)| tool.starts_with(p))
            .map_or(Family::Other, |&(_, f)| f)
    }

    /// The family's name in the legend.
    pub fn label(self) -> &'static str {
        match self {
            Family::Ours => "ours (nilang)",
            Family::Plain => "plain Rust",
            Family::Manual => "hand-written",
            Family::Forward => "forward (num-dual)",
            Family::Tape => "tape (echidna)",
            Family::Jax => "JAX",
            Family::Enzyme => "Enzyme",
            Family::Gpu => "GPU",
            Family::Other => "other (a style each)",
        }
    }

    /// The family's base colour (RGB) and marker.
    pub fn base(self) -> ((u8, u8, u8), Shape) {
        match self {
            Family::Ours => ((31, 100, 200), Shape::Circle),
            Family::Plain => ((20, 20, 20), Shape::Square),
            Family::Manual => ((140, 86, 75), Shape::Diamond),
            Family::Forward => ((30, 150, 50), Shape::TriangleUp),
            Family::Tape => ((240, 120, 0), Shape::TriangleDown),
            Family::Jax => ((150, 60, 190), Shape::Star),
            Family::Enzyme => ((215, 30, 40), Shape::Cross),
            Family::Gpu => ((0, 170, 190), Shape::Hexagon),
            Family::Other => ((120, 120, 120), Shape::Circle),
        }
    }
}

/// Distinct colours for the [`Family::Other`] tools, in order of appearance; paired with
/// [`OTHER_SHAPES`] (10 colours × 8 shapes: the first 40 tools get distinct pairs).
const OTHER_COLORS: [(u8, u8, u8); 10] = [
    (31, 100, 200),
    (215, 30, 40),
    (30, 150, 50),
    (240, 120, 0),
    (150, 60, 190),
    (0, 170, 190),
    (140, 86, 75),
    (20, 20, 20),
    (230, 90, 190),
    (150, 150, 20),
];
const OTHER_SHAPES: [Shape; 8] = [
    Shape::Circle,
    Shape::Square,
    Shape::TriangleUp,
    Shape::Diamond,
    Shape::TriangleDown,
    Shape::Hexagon,
    Shape::Star,
    Shape::Cross,
];

/// The `j`-th [`Family::Other`] style: the `j`-th colour-shape pair that no named family uses.
fn other_style(j: usize) -> ((u8, u8, u8), Shape) {
    const NAMED: [Family; 8] = [
        Family::Ours,
        Family::Plain,
        Family::Manual,
        Family::Forward,
        Family::Tape,
        Family::Jax,
        Family::Enzyme,
        Family::Gpu,
    ];
    (0..)
        .map(|i| {
            (
                OTHER_COLORS[i % OTHER_COLORS.len()],
                OTHER_SHAPES[i % OTHER_SHAPES.len()],
            )
        })
        .filter(|pair| !NAMED.iter().any(|f| f.base() == *pair))
        .nth(j)
        .expect("the pairs repeat")
}

/// How one series (a tool and a measure) is drawn.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Style {
    /// The tool family (one colour and one marker per family).
    pub family: Family,
    /// The colour, as red, green and blue.
    pub rgb: (u8, u8, u8),
    /// The marker.
    pub shape: Shape,
    /// Objective-type measures (O, U) are hollow markers, derivatives filled.
    pub filled: bool,
}

/// The series of one suite's cells, in legend order (family, then first appearance), each with
/// its style: a family's members share its hue and marker in shades from dark to light;
/// [`Family::Other`] tools each get their own colour and marker.
///
/// ```
/// use nilang_bench::plot::{series_styles, Family};
/// use nilang_bench::report::{Cell, Measure};
/// let cells = [
///     Cell::skipped("s", "a", 1.0, "echidna", Measure::G),
///     Cell::skipped("s", "a", 1.0, "nilang", Measure::G),
///     Cell::skipped("s", "a", 1.0, "nilang-x4", Measure::G),
/// ];
/// let s = series_styles(&cells);
/// assert_eq!(s[0].0, "nilang");
/// assert_eq!(s[2].2.family, Family::Tape);
/// assert_ne!(s[0].2.rgb, s[1].2.rgb);
/// ```
pub fn series_styles(cells: &[Cell]) -> Vec<(String, Measure, Style)> {
    let mut keys: Vec<(Family, usize, String, Measure)> = Vec::new();
    for c in cells {
        if !keys.iter().any(|k| k.2 == c.tool && k.3 == c.measure) {
            keys.push((Family::of(&c.tool), keys.len(), c.tool.clone(), c.measure));
        }
    }
    keys.sort();
    let mut out = Vec::new();
    let mut other = 0;
    for (i, (family, _, tool, measure)) in keys.iter().enumerate() {
        let filled = !matches!(measure, Measure::O | Measure::U);
        let (rgb, shape) = if *family == Family::Other {
            // one colour per tool: its measures share it
            let first = keys[..i].iter().position(|k| k.2 == *tool);
            let j = first.map_or_else(
                || {
                    other += 1;
                    other - 1
                },
                |p| {
                    keys[..p]
                        .iter()
                        .filter(|k| k.0 == Family::Other)
                        .map(|k| &k.2)
                        .collect::<std::collections::BTreeSet<_>>()
                        .len()
                },
            );
            other_style(j)
        } else {
            let members = keys.iter().filter(|k| k.0 == *family).count();
            let rank = keys[..i].iter().filter(|k| k.0 == *family).count();
            (shade(family.base().0, rank, members), family.base().1)
        };
        let style = Style {
            family: *family,
            rgb,
            shape,
            filled,
        };
        out.push((tool.clone(), *measure, style));
    }
    out
}

/// Member `rank` of `members`: from the base colour darkened by 45 % to it lightened by 60 %.
fn shade((r, g, b): (u8, u8, u8), rank: usize, members: usize) -> (u8, u8, u8) {
    if members <= 1 {
        return (r, g, b);
    }
    let t = -0.45 + 1.05 * rank as f64 / (members - 1) as f64;
    let mix = |c: u8| {
        let c = c as f64;
        let v = if t < 0.0 {
            c * (1.0 + t)
        } else {
            c + (255.0 - c) * t
        };
        v.round() as u8
    };
    (mix(r), mix(g), mix(b))
}

/// Tick values for a log axis over `lo..hi`: 1-2-5 per decade; 1-2-3-5, then 1…9, when that
/// gives fewer than four; only powers of ten when it gives more than twelve.
///
/// ```
/// use nilang_bench::plot::log_ticks;
/// assert_eq!(log_ticks(0.9, 30.0), [1.0, 2.0, 5.0, 10.0, 20.0]);
/// assert_eq!(log_ticks(2.5, 9.0), [3.0, 4.0, 5.0, 6.0, 7.0, 8.0, 9.0]);
/// ```
pub fn log_ticks(lo: f64, hi: f64) -> Vec<f64> {
    let ticks = |mults: &[f64]| -> Vec<f64> {
        let (d0, d1) = (lo.log10().floor() as i32, hi.log10().ceil() as i32);
        let mut v = Vec::new();
        for d in d0..=d1 {
            for m in mults {
                // round to 12 significant digits: 3 × 0.1 is 0.3, not 0.30000000000000004
                let x = m * 10f64.powi(d);
                let x = format!("{x:.12e}").parse::<f64>().unwrap_or(x);
                if x >= lo && x <= hi {
                    v.push(x);
                }
            }
        }
        v
    };
    let t = ticks(&[1.0, 2.0, 5.0]);
    if t.len() > 12 {
        return ticks(&[1.0]);
    }
    if t.len() >= 4 {
        return t;
    }
    let t = ticks(&[1.0, 2.0, 3.0, 5.0]);
    if t.len() >= 4 {
        return t;
    }
    ticks(&[1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0, 9.0])
}

/// The cases of one suite, ordered by work measure (then name): the x order of both charts.
///
/// ```
/// use nilang_bench::plot::cases_by_work;
/// use nilang_bench::report::{Cell, Measure};
/// let cells = [
///     Cell::skipped("s", "big", 100.0, "rust", Measure::O),
///     Cell::skipped("s", "small", 10.0, "rust", Measure::O),
/// ];
/// assert_eq!(cases_by_work(&cells), [("small".to_string(), 10.0), ("big".to_string(), 100.0)]);
/// ```
pub fn cases_by_work(cells: &[Cell]) -> Vec<(String, f64)> {
    let mut cases: Vec<(String, f64)> = Vec::new();
    for c in cells {
        if !cases.iter().any(|(n, _)| *n == c.case) {
            cases.push((c.case.clone(), c.size));
        }
    }
    cases.sort_by(|a, b| a.1.total_cmp(&b.1).then_with(|| a.0.cmp(&b.0)));
    cases
}

/// The kind of a case: its name without digits. The time chart joins a tool's cases only
/// within one kind (`T=1000` and `T=10000`, not `T=1000` and `pde-128x1000`).
///
/// ```
/// use nilang_bench::plot::case_kind;
/// assert_eq!(case_kind("1k d=2 K=5"), case_kind("10k d=10 K=25"));
/// assert_ne!(case_kind("T=1000"), case_kind("pde-128x1000"));
/// ```
pub fn case_kind(case: &str) -> String {
    case.chars().filter(|c| !c.is_ascii_digit()).collect()
}

/// The line segments of one series and case kind in the time chart: consecutive points (by
/// work) joined only where the work differs, so no line joins cases of equal size.
///
/// ```
/// use nilang_bench::plot::segments;
/// let s = segments(&[(10.0, 1.0), (10.0, 2.0), (100.0, 3.0)]);
/// assert_eq!(s, [((10.0, 2.0), (100.0, 3.0))]);
/// ```
pub fn segments(points: &[(f64, f64)]) -> Vec<((f64, f64), (f64, f64))> {
    let mut p = points.to_vec();
    p.sort_by(|a, b| a.0.total_cmp(&b.0));
    p.windows(2)
        .filter(|w| w[0].0 != w[1].0)
        .map(|w| (w[0], w[1]))
        .collect()
}

fn err(e: impl std::fmt::Display) -> String {
    e.to_string()
}

/// A marker as a composable element centred on `at`.
fn marker<'b, DB: DrawingBackend + 'b, C: Clone + 'b>(
    at: C,
    style: &Style,
    r: i32,
) -> DynElement<'b, DB, C> {
    let (cr, cg, cb) = style.rgb;
    let color = RGBColor(cr, cg, cb);
    let st = if style.filled {
        color.filled()
    } else {
        color.stroke_width(2)
    };
    let poly = |pts: Vec<(i32, i32)>| {
        let mut closed = pts.clone();
        closed.push(pts[0]);
        if style.filled {
            (EmptyElement::at(at.clone()) + Polygon::new(pts, st)).into_dyn()
        } else {
            (EmptyElement::at(at.clone()) + PathElement::new(closed, st)).into_dyn()
        }
    };
    let f = r as f64;
    let ring = |n: usize, rot: f64, rad: &dyn Fn(usize) -> f64| -> Vec<(i32, i32)> {
        (0..n)
            .map(|i| {
                let a = rot + i as f64 * std::f64::consts::TAU / n as f64;
                let q = rad(i);
                ((q * a.cos()).round() as i32, (q * a.sin()).round() as i32)
            })
            .collect()
    };
    match style.shape {
        Shape::Circle => (EmptyElement::at(at) + Circle::new((0, 0), r, st)).into_dyn(),
        Shape::Square => poly(vec![(-r, -r), (r, -r), (r, r), (-r, r)]),
        Shape::Diamond => poly(ring(4, 0.0, &|_| f * 1.3)),
        Shape::TriangleUp => poly(ring(3, -std::f64::consts::FRAC_PI_2, &|_| f * 1.3)),
        Shape::TriangleDown => poly(ring(3, std::f64::consts::FRAC_PI_2, &|_| f * 1.3)),
        Shape::Hexagon => poly(ring(6, 0.0, &|_| f * 1.15)),
        Shape::Star => poly(ring(10, -std::f64::consts::FRAC_PI_2, &|i| {
            if i % 2 == 0 {
                f * 1.5
            } else {
                f * 0.65
            }
        })),
        Shape::Cross => {
            let s = color.stroke_width(3);
            (EmptyElement::at(at)
                + PathElement::new(vec![(-r, -r), (r, r)], s)
                + PathElement::new(vec![(-r, r), (r, -r)], s))
            .into_dyn()
        }
    }
}

/// A tick label for a work measure or a ratio: `0.05`, `3`, `20k`, `1.5M`, `2e-4`.
///
/// ```
/// use nilang_bench::plot::number;
/// assert_eq!(number(30000.0), "30k");
/// assert_eq!(number(0.5), "0.5");
/// assert_eq!(number(2.5e6), "2.5M");
/// ```
pub fn number(v: f64) -> String {
    let trim = |x: f64| {
        let s = format!("{x:.2}");
        s.trim_end_matches('0').trim_end_matches('.').to_string()
    };
    let a = v.abs();
    if v == 0.0 {
        "0".into()
    } else if a < 1e-2 {
        format!("{v:.0e}")
    } else if a < 1e3 {
        trim(v)
    } else if a < 1e6 {
        format!("{}k", trim(v / 1e3))
    } else if a < 1e9 {
        format!("{}M", trim(v / 1e6))
    } else {
        format!("{}G", trim(v / 1e9))
    }
}

/// A tick label for seconds, in ns / µs / ms / s.
fn seconds(v: f64) -> String {
    let (x, unit) = if v < 1e-6 {
        (v * 1e9, "ns")
    } else if v < 1e-3 {
        (v * 1e6, "µs")
    } else if v < 1.0 {
        (v * 1e3, "ms")
    } else {
        (v, "s")
    };
    format!("{} {unit}", number(x))
}

/// The legend panel: the series grouped by family, the family name as a heading.
fn legend(
    area: &DrawingArea<SVGBackend<'_>, plotters::coord::Shift>,
    series: &[(String, Measure, Style)],
    note: &str,
) -> Result<(), String> {
    let mut y = 62;
    let mut last = None;
    let rows = series.len()
        + series
            .iter()
            .map(|s| s.2.family)
            .collect::<std::collections::BTreeSet<_>>()
            .len();
    let step = ((area.dim_in_pixel().1 as i32 - 60) / rows.max(1) as i32).clamp(10, 18);
    let font = ("sans-serif", (step - 3).clamp(9, 14)).into_font();
    for (i, line) in ["hollow: O/U, filled: derivative", note].iter().enumerate() {
        area.draw(&Text::new(
            *line,
            (8, 12 + 14 * i as i32),
            font.clone().color(&RGBColor(90, 90, 90)),
        ))
        .map_err(err)?;
    }
    for (tool, m, st) in series {
        if last != Some(st.family) {
            let (r, g, b) = st.family.base().0;
            area.draw(&Text::new(
                st.family.label(),
                (8, y - step / 2),
                font.clone().color(&RGBColor(r, g, b)),
            ))
            .map_err(err)?;
            y += step;
            last = Some(st.family);
        }
        area.draw(&marker((24, y - step / 3), st, 5)).map_err(err)?;
        area.draw(&Text::new(
            format!("{tool}-{}", m.as_str()),
            (38, y - step / 3 - 6),
            font.clone(),
        ))
        .map_err(err)?;
        y += step;
    }
    Ok(())
}

const SIZE: (u32, u32) = (1100, 620);
const CHART_W: u32 = 840;

/// Write `{suite}-ratio.svg` and `{suite}.svg` for every suite of `cells` into `dir` (the time
/// chart only where the suite has two or more work sizes). Returns the written paths.
pub fn write_plots(cells: &[Cell], dir: &Path) -> Result<Vec<PathBuf>, String> {
    std::fs::create_dir_all(dir).map_err(err)?;
    let suites: std::collections::BTreeSet<&str> = cells.iter().map(|c| c.suite.as_str()).collect();
    let mut written = Vec::new();
    for suite in suites {
        let sc: Vec<Cell> = cells
            .iter()
            .filter(|c| c.suite == suite && c.median_s.is_some())
            .cloned()
            .collect();
        if sc.is_empty() {
            continue;
        }
        if let Some(p) = ratio_chart(suite, &sc, dir)? {
            written.push(p);
        }
        if let Some(p) = time_chart(suite, &sc, dir)? {
            written.push(p);
        }
    }
    Ok(written)
}

/// The ratio chart: cases left to right by work, one marker per tool and measure, spread
/// sideways within the case, a line at 1 (`rust-O`).
fn ratio_chart(suite: &str, sc: &[Cell], dir: &Path) -> Result<Option<PathBuf>, String> {
    let rc: Vec<Cell> = sc
        .iter()
        .filter(|c| c.ratio.is_some() && !(c.tool == "rust" && c.measure == Measure::O))
        .cloned()
        .collect();
    if rc.is_empty() {
        return Ok(None);
    }
    let cases = cases_by_work(sc);
    let series = series_styles(&rc);
    let (mut lo, mut hi) = (1.0f64, 1.0f64);
    for c in &rc {
        let r = c.ratio.unwrap();
        lo = lo.min(r);
        hi = hi.max(r);
    }
    let (lo, hi) = (lo / 1.6, hi * 1.6);
    let path = dir.join(format!("{suite}-ratio.svg"));
    {
        let root = SVGBackend::new(&path, SIZE).into_drawing_area();
        root.fill(&WHITE).map_err(err)?;
        let (left, right) = root.split_horizontally(CHART_W);
        let n = cases.len();
        let mut chart = ChartBuilder::on(&left)
            .caption(
                format!("{suite}: min time ÷ rust-O min time, per case (log)"),
                ("sans-serif", 20),
            )
            .margin(12)
            .x_label_area_size(50)
            .y_label_area_size(70)
            .build_cartesian_2d(
                -0.5..n as f64 - 0.5,
                (lo..hi).log_scale().with_key_points(log_ticks(lo, hi)),
            )
            .map_err(err)?;
        chart
            .configure_mesh()
            .disable_x_mesh()
            .x_labels(0)
            .light_line_style(TRANSPARENT)
            .y_desc("ratio to rust-O")
            .y_label_formatter(&|v| number(*v))
            .draw()
            .map_err(err)?;
        chart
            .draw_series(std::iter::once(PathElement::new(
                vec![(-0.5, 1.0), (n as f64 - 0.5, 1.0)],
                BLACK.stroke_width(1),
            )))
            .map_err(err)?;
        for i in 1..n {
            let x = i as f64 - 0.5;
            chart
                .draw_series(std::iter::once(PathElement::new(
                    vec![(x, lo), (x, hi)],
                    RGBColor(200, 200, 200).stroke_width(1),
                )))
                .map_err(err)?;
        }
        let k = series.len();
        for (j, (tool, m, st)) in series.iter().enumerate() {
            let off = if k > 1 {
                -0.38 + 0.76 * j as f64 / (k - 1) as f64
            } else {
                0.0
            };
            let pts: Vec<(f64, f64)> = rc
                .iter()
                .filter(|c| c.tool == *tool && c.measure == *m)
                .filter_map(|c| {
                    let i = cases.iter().position(|(n, _)| *n == c.case)?;
                    Some((i as f64 + off, c.ratio.unwrap()))
                })
                .collect();
            // markers in pixels on the panel (its origin is the picture's)
            for p in pts {
                left.draw(&marker(chart.backend_coord(&p), st, 5))
                    .map_err(err)?;
            }
        }
        for (i, (name, _)) in cases.iter().enumerate() {
            let (x, y) = chart.backend_coord(&(i as f64, lo));
            let row = if n > 3 { (i % 2) as i32 * 16 } else { 0 };
            left.draw(&Text::new(
                name.clone(),
                (x, y + 8 + row),
                ("sans-serif", 13).into_font().color(&BLACK).pos(
                    plotters::style::text_anchor::Pos::new(
                        plotters::style::text_anchor::HPos::Center,
                        plotters::style::text_anchor::VPos::Top,
                    ),
                ),
            ))
            .map_err(err)?;
        }
        legend(&right, &series, "in a case: left to right as listed")?;
        root.present().map_err(err)?;
    }
    Ok(Some(path))
}

/// The time chart: seconds per call against the work measure, log-log; a series' points are
/// joined only between different work sizes ([`segments`]).
fn time_chart(suite: &str, sc: &[Cell], dir: &Path) -> Result<Option<PathBuf>, String> {
    let tc: Vec<Cell> = sc.iter().filter(|c| c.size > 0.0).cloned().collect();
    let sizes: std::collections::BTreeSet<u64> = tc.iter().map(|c| c.size.to_bits()).collect();
    if sizes.len() < 2 {
        return Ok(None);
    }
    let (mut x0, mut x1, mut y0, mut y1) = (f64::MAX, f64::MIN, f64::MAX, f64::MIN);
    for c in &tc {
        let y = c.median_s.unwrap();
        x0 = x0.min(c.size);
        x1 = x1.max(c.size);
        y0 = y0.min(y);
        y1 = y1.max(y);
    }
    let (x0, x1, y0, y1) = (x0 / 1.5, x1 * 1.5, y0 / 2.0, y1 * 2.0);
    let series = series_styles(&tc);
    let work = crate::suites::work_measure(suite);
    let path = dir.join(format!("{suite}.svg"));
    {
        let root = SVGBackend::new(&path, SIZE).into_drawing_area();
        root.fill(&WHITE).map_err(err)?;
        let (left, right) = root.split_horizontally(CHART_W);
        let mut chart = ChartBuilder::on(&left)
            .caption(format!("{suite}: median time per call"), ("sans-serif", 20))
            .margin(12)
            .x_label_area_size(45)
            .y_label_area_size(70)
            .build_cartesian_2d(
                (x0..x1).log_scale().with_key_points(log_ticks(x0, x1)),
                (y0..y1).log_scale().with_key_points(log_ticks(y0, y1)),
            )
            .map_err(err)?;
        chart
            .configure_mesh()
            .x_desc(format!("work: {work}"))
            .y_desc("time per call")
            .light_line_style(TRANSPARENT)
            .x_label_formatter(&|v| number(*v))
            .y_label_formatter(&|v| seconds(*v))
            .draw()
            .map_err(err)?;
        for (tool, m, st) in &series {
            let mine: Vec<&Cell> = tc
                .iter()
                .filter(|c| c.tool == *tool && c.measure == *m)
                .collect();
            let pts: Vec<(f64, f64)> = mine.iter().map(|c| (c.size, c.median_s.unwrap())).collect();
            let (r, g, b) = st.rgb;
            let line = RGBColor(r, g, b).mix(0.6).stroke_width(1);
            let kinds: std::collections::BTreeSet<String> =
                mine.iter().map(|c| case_kind(&c.case)).collect();
            for kind in kinds {
                let of_kind: Vec<(f64, f64)> = mine
                    .iter()
                    .filter(|c| case_kind(&c.case) == kind)
                    .map(|c| (c.size, c.median_s.unwrap()))
                    .collect();
                chart
                    .draw_series(
                        segments(&of_kind)
                            .into_iter()
                            .map(|(a, b)| PathElement::new(vec![a, b], line)),
                    )
                    .map_err(err)?;
            }
            // markers in pixels on the panel (its origin is the picture's)
            for p in pts {
                left.draw(&marker(chart.backend_coord(&p), st, 5))
                    .map_err(err)?;
            }
        }
        legend(&right, &series, "lines join cases of one kind")?;
        root.present().map_err(err)?;
    }
    Ok(Some(path))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cell(case: &str, tool: &str, m: Measure, t: f64, size: f64) -> Cell {
        Cell {
            median_s: Some(t),
            min_s: Some(t),
            ratio: Some(t / 1e-3),
            ..Cell::skipped("s", case, size, tool, m)
        }
    }

    #[test]
    fn every_family_has_its_own_colour_and_marker() {
        let tools = [
            "nilang", "rust", "manual", "num-dual", "echidna", "jax", "enzyme", "gpu",
        ];
        let fams: Vec<Family> = tools.iter().map(|t| Family::of(t)).collect();
        for (i, a) in fams.iter().enumerate() {
            assert_ne!(*a, Family::Other, "{}", tools[i]);
            for b in &fams[i + 1..] {
                assert_ne!(a, b);
                assert_ne!(a.base().0, b.base().0, "{a:?} and {b:?} share a colour");
                assert_ne!(a.base().1, b.base().1, "{a:?} and {b:?} share a marker");
            }
        }
        assert_eq!(Family::of("nilang-t1"), Family::Ours);
        assert_eq!(Family::of("jax-mt"), Family::Jax);
        assert_eq!(Family::of("gpu-rows"), Family::Gpu);
        assert_eq!(Family::of("enzyme-fwd"), Family::Enzyme);
        assert_eq!(Family::of("store-all"), Family::Other);
    }

    #[test]
    fn every_series_of_a_suite_is_drawn_differently() {
        let mut tools: Vec<(String, Measure)> = vec![
            ("nilang".into(), Measure::O),
            ("nilang".into(), Measure::U),
            ("nilang".into(), Measure::G),
            ("nilang-t1".into(), Measure::G),
            ("nilang-x4".into(), Measure::G),
            ("rust".into(), Measure::O),
            ("num-dual".into(), Measure::G),
            ("num-dual".into(), Measure::H),
            ("echidna".into(), Measure::G),
            ("jax".into(), Measure::G),
            ("jax-mt".into(), Measure::G),
            ("enzyme".into(), Measure::G),
            ("gpu".into(), Measure::G),
        ];
        tools.extend((0..14).map(|i| (format!("schedule-{i}"), Measure::G)));
        let cells: Vec<Cell> = tools
            .iter()
            .map(|(t, m)| cell("a", t, *m, 1e-3, 1.0))
            .collect();
        let s = series_styles(&cells);
        assert_eq!(s.len(), tools.len());
        for (i, a) in s.iter().enumerate() {
            assert_eq!(a.2.family, Family::of(&a.0));
            assert_eq!(a.2.filled, !matches!(a.1, Measure::O | Measure::U));
            for b in &s[i + 1..] {
                let (ka, kb) = (
                    (a.2.rgb, a.2.shape, a.2.filled),
                    (b.2.rgb, b.2.shape, b.2.filled),
                );
                assert_ne!(ka, kb, "{}-{:?} and {}-{:?}", a.0, a.1, b.0, b.1);
            }
        }
        // legend order: by family, ours first, then plain Rust
        assert_eq!(s[0].0, "nilang");
        assert!(s.iter().position(|x| x.0 == "rust") < s.iter().position(|x| x.0 == "echidna"));
        // a family's members share its marker
        assert!(s
            .iter()
            .filter(|x| x.2.family == Family::Ours)
            .all(|x| x.2.shape == Shape::Circle));
    }

    #[test]
    fn cases_ordered_by_work_and_equal_sizes_never_joined() {
        // the GMM cases of a quick run: 1k d=2 K=5 (n·K·d² = 20000), 10k d=2 K=5 (200000),
        // 1k d=10 K=25 (2500000), listed out of order
        let cells = [
            cell("1k d=10 K=25", "rust", Measure::O, 3e-3, 2.5e6),
            cell("10k d=2 K=5", "rust", Measure::O, 2e-3, 2e5),
            cell("1k d=2 K=5", "rust", Measure::O, 1e-3, 2e4),
        ];
        let order: Vec<String> = cases_by_work(&cells).into_iter().map(|c| c.0).collect();
        assert_eq!(order, ["1k d=2 K=5", "10k d=2 K=5", "1k d=10 K=25"]);
        let pts = [(5.0, 1.0), (1.0, 1.0), (5.0, 2.0), (3.0, 1.0), (1.0, 3.0)];
        let segs = segments(&pts);
        assert_eq!(segs.len(), 2);
        for (a, b) in &segs {
            assert!(a.0 < b.0, "{a:?} {b:?}");
        }
        assert!(segments(&[(2.0, 1.0), (2.0, 5.0)]).is_empty());
        assert_eq!(case_kind("ba1 p=31843"), case_kind("ba5 p=225911"));
        assert_ne!(
            case_kind("dot 1000x1000 d=0.05"),
            case_kind("mul! complex 1000x1000 d=0.05")
        );
    }

    #[test]
    fn every_suite_documents_its_work_measure() {
        for s in crate::cli::SUITES {
            assert_ne!(crate::suites::work_measure(s), "problem size", "{s}");
        }
        assert_eq!(crate::suites::work_measure("nope"), "problem size");
    }

    #[test]
    fn log_ticks_cover_the_range() {
        assert_eq!(log_ticks(15000.0, 4e6), [2e4, 5e4, 1e5, 2e5, 5e5, 1e6, 2e6]);
        assert_eq!(log_ticks(21000.0, 340000.0), [3e4, 5e4, 1e5, 2e5, 3e5]);
        assert_eq!(log_ticks(1e-9, 1e3).len(), 13);
        assert_eq!(seconds(2e-4), "200 µs");
        assert_eq!(seconds(1.5), "1.5 s");
    }

    #[test]
    fn writes_a_ratio_and_a_time_chart_per_suite_with_the_work_axis_and_legend() {
        let dir = std::env::temp_dir().join(format!("nilang-plot-test-{}", std::process::id()));
        let mut cells = vec![
            cell("a", "rust", Measure::O, 1e-3, 10.0),
            cell("a", "nilang", Measure::G, 3e-3, 10.0),
            cell("b", "rust", Measure::O, 2e-3, 100.0),
            cell("b", "echidna", Measure::G, 9e-3, 100.0),
        ];
        for c in &mut cells {
            c.suite = "gmm".into();
        }
        let written = write_plots(&cells, &dir).unwrap();
        let names: Vec<String> = written
            .iter()
            .map(|p| p.file_name().unwrap().to_string_lossy().into_owned())
            .collect();
        assert_eq!(names, ["gmm-ratio.svg", "gmm.svg"]);
        let time = std::fs::read_to_string(dir.join("gmm.svg")).unwrap();
        assert!(time.contains("n·K·d²"), "work axis missing");
        assert!(time.contains("echidna-G") && time.contains("tape (echidna)"));
        let ratio = std::fs::read_to_string(dir.join("gmm-ratio.svg")).unwrap();
        assert!(ratio.contains("nilang-G") && ratio.contains("ratio to rust-O"));
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
