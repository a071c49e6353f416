//! A [`Report`] drawn as an SVG: the weight each submitter holds over time, after every
//! negotiation cycle ([`Report::trace`], at most [`MAX_POINTS`] of them, evenly chosen),
//! stacked, with the pool's weight as a dashed line. Written by hand: a few paths and texts.

use std::fmt::Write as _;

use super::report::trim_number;
use super::{Kind, Report, TracePoint};

const WIDTH: f64 = 960.0;
const HEIGHT: f64 = 540.0;
const LEFT: f64 = 70.0;
const RIGHT: f64 = 270.0;
const TOP: f64 = 50.0;
const BOTTOM: f64 = 60.0;
/// The most points a submitter's area has.
pub const MAX_POINTS: usize = 2000;

/// Distinct colours, used in turn.
const PALETTE: &[&str] = &[
    "#4e79a7", "#f28e2b", "#e15759", "#76b7b2", "#59a14f", "#edc948", "#b07aa1", "#ff9da7",
    "#9c755f", "#bab0ac", "#1f77b4", "#8c564b",
];

/// Text for XML.
fn escape(s: &str) -> String {
    s.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
}

/// A time as `1d6h30m`, `45s`, `0`.
fn label(t: i64) -> String {
    if t == 0 {
        return "0".into();
    }
    let mut s = String::new();
    let (d, h, m, sec) = (t / 86400, t % 86400 / 3600, t % 3600 / 60, t % 60);
    for (n, unit) in [(d, "d"), (h, "h"), (m, "m"), (sec, "s")] {
        if n != 0 {
            let _ = write!(s, "{n}{unit}");
        }
    }
    s
}

/// A round step giving at most about `max` ticks over `span`: 1, 2 or 5 times a power of ten.
fn value_step(span: f64, max: f64) -> f64 {
    if span <= 0.0 {
        return 1.0;
    }
    let raw = span / max;
    let mag = 10f64.powf(raw.log10().floor());
    for m in [1.0, 2.0, 5.0, 10.0] {
        if m * mag >= raw {
            return m * mag;
        }
    }
    10.0 * mag
}

/// A round time step giving at most `max` ticks over `span` seconds.
fn time_step(span: i64, max: i64) -> i64 {
    const STEPS: &[i64] = &[
        1, 5, 10, 30, 60, 300, 600, 1800, 3600, 7200, 10800, 21600, 43200, 86400, 172800, 604800,
    ];
    STEPS
        .iter()
        .copied()
        .find(|&s| span / s <= max)
        .unwrap_or_else(|| (span / max / 604800 + 1) * 604800)
}

/// The SVG document.
pub fn render(report: &Report) -> String {
    let stride = report.trace.len().div_ceil(MAX_POINTS).max(1);
    let points: Vec<&TracePoint> = report
        .trace
        .iter()
        .enumerate()
        .filter(|(k, _)| k % stride == 0 || *k + 1 == report.trace.len())
        .map(|(_, p)| p)
        .collect();
    let users: Vec<usize> = report
        .series
        .iter()
        .enumerate()
        .filter(|(i, s)| s.kind == Kind::User && points.iter().any(|p| p.in_use[*i] > 0.0))
        .map(|(i, _)| i)
        .collect();
    let end = report.end.max(1);
    let peak = points
        .iter()
        .map(|p| users.iter().map(|&i| p.in_use[i]).sum::<f64>())
        .fold(report.pool_weight, f64::max);
    let ymax = if peak > 0.0 { peak } else { 1.0 };
    let pw = WIDTH - LEFT - RIGHT;
    let ph = HEIGHT - TOP - BOTTOM;
    let x = |t: i64| LEFT + pw * t as f64 / end as f64;
    let y = |v: f64| TOP + ph - ph * v / ymax;

    let mut s = String::new();
    let _ = writeln!(
        s,
        r#"<?xml version="1.0" encoding="UTF-8"?>
<svg xmlns="http://www.w3.org/2000/svg" width="{WIDTH}" height="{HEIGHT}" viewBox="0 0 {WIDTH} {HEIGHT}" font-family="sans-serif" font-size="12">
<rect width="{WIDTH}" height="{HEIGHT}" fill="white"/>
<text x="{LEFT}" y="28" font-size="15">{}</text>"#,
        escape(&format!(
            "condor_sim {}: weight in use per submitter",
            report.file
        ))
    );

    // Grid and axes.
    let vstep = value_step(ymax, 6.0);
    let mut v = 0.0;
    while v <= ymax + 1e-9 {
        let yy = y(v);
        let _ = writeln!(
            s,
            r##"<line x1="{LEFT}" y1="{yy:.1}" x2="{:.1}" y2="{yy:.1}" stroke="#dddddd"/><text x="{:.1}" y="{:.1}" text-anchor="end">{}</text>"##,
            LEFT + pw,
            LEFT - 6.0,
            yy + 4.0,
            trim_number(v)
        );
        v += vstep;
    }
    let tstep = time_step(end, 8);
    let mut t = 0;
    while t <= end {
        let xx = x(t);
        let _ = writeln!(
            s,
            r##"<line x1="{xx:.1}" y1="{TOP}" x2="{xx:.1}" y2="{:.1}" stroke="#eeeeee"/><text x="{xx:.1}" y="{:.1}" text-anchor="middle">{}</text>"##,
            TOP + ph,
            TOP + ph + 18.0,
            label(t)
        );
        t += tstep;
    }
    let _ = writeln!(
        s,
        r##"<line x1="{LEFT}" y1="{TOP}" x2="{LEFT}" y2="{:.1}" stroke="black"/><line x1="{LEFT}" y1="{:.1}" x2="{:.1}" y2="{:.1}" stroke="black"/>"##,
        TOP + ph,
        TOP + ph,
        LEFT + pw,
        TOP + ph
    );
    let _ = writeln!(
        s,
        r#"<text x="{:.1}" y="{:.1}" text-anchor="middle">time</text><text x="18" y="{:.1}" text-anchor="middle" transform="rotate(-90 18 {:.1})">weight in use</text>"#,
        LEFT + pw / 2.0,
        HEIGHT - 18.0,
        TOP + ph / 2.0,
        TOP + ph / 2.0
    );

    // The stacked areas.
    let mut lower = vec![0.0f64; points.len()];
    for (n, &i) in users.iter().enumerate() {
        let upper: Vec<f64> = points
            .iter()
            .zip(&lower)
            .map(|(p, l)| l + p.in_use[i])
            .collect();
        let mut d = String::new();
        for (k, p) in points.iter().enumerate() {
            let _ = write!(
                d,
                "{}{:.1},{:.1} ",
                if k == 0 { "M" } else { "L" },
                x(p.time),
                y(upper[k])
            );
        }
        for (k, p) in points.iter().enumerate().rev() {
            let _ = write!(d, "L{:.1},{:.1} ", x(p.time), y(lower[k]));
        }
        d.push('Z');
        let colour = PALETTE[n % PALETTE.len()];
        let _ = writeln!(
            s,
            r#"<path d="{d}" fill="{colour}" fill-opacity="0.85" stroke="{colour}"><title>{}</title></path>"#,
            escape(&report.series[i].name)
        );
        // The legend lists the areas top down.
        let ly = TOP + 10.0 + 20.0 * (users.len() - 1 - n) as f64;
        let _ = writeln!(
            s,
            r#"<rect x="{:.1}" y="{:.1}" width="12" height="12" fill="{colour}"/><text x="{:.1}" y="{:.1}">{}</text>"#,
            LEFT + pw + 16.0,
            ly - 10.0,
            LEFT + pw + 34.0,
            ly,
            escape(&report.series[i].name)
        );
        lower = upper;
    }

    // The pool.
    let py = y(report.pool_weight);
    let ly = TOP + 10.0 + 20.0 * users.len() as f64;
    let _ = writeln!(
        s,
        r#"<line x1="{LEFT}" y1="{py:.1}" x2="{:.1}" y2="{py:.1}" stroke="black" stroke-dasharray="6 4"/>
<line x1="{:.1}" y1="{:.1}" x2="{:.1}" y2="{:.1}" stroke="black" stroke-dasharray="6 4"/><text x="{:.1}" y="{:.1}">pool ({})</text>"#,
        LEFT + pw,
        LEFT + pw + 16.0,
        ly - 4.0,
        LEFT + pw + 28.0,
        ly - 4.0,
        LEFT + pw + 34.0,
        ly,
        trim_number(report.pool_weight)
    );
    s.push_str("</svg>\n");
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn labels_and_steps() {
        assert_eq!(label(0), "0");
        assert_eq!(label(5400), "1h30m");
        assert_eq!(label(86400 + 45), "1d45s");
        assert_eq!(time_step(86400, 8), 10800);
        assert_eq!(time_step(600, 8), 300);
        assert_eq!(value_step(28.0, 6.0), 5.0);
        assert_eq!(value_step(1000.0, 6.0), 200.0);
        assert_eq!(escape("<none>"), "&lt;none&gt;");
    }
}
