//! Execution diagrams, drawn as in the reference notes: warps down, cycles
//! across, each issued instruction as `I<n>` (its ordinal in the function)
//! in its issue cycle, and brackets around an instruction whose dispatch
//! takes several cycles (`[I0  ]`). Cycles in which none of the chosen warps
//! issue or dispatch collapse into one `..` column. As text, or as a
//! self-contained HTML page with an SVG timeline.

use std::collections::BTreeMap;
use std::fmt::Write;

use super::report::IssueEvent;

const CELL: usize = 5;

/// The columns to draw: runs of busy cycles, with gaps collapsed.
fn columns(events: &[IssueEvent]) -> Vec<Option<u64>> {
    let mut busy: Vec<u64> = Vec::new();
    for e in events {
        for c in e.cycle..e.cycle + e.dispatch.max(1) as u64 {
            busy.push(c);
        }
    }
    busy.sort_unstable();
    busy.dedup();
    let mut cols = Vec::new();
    for (i, &c) in busy.iter().enumerate() {
        if i > 0 && c > busy[i - 1] + 1 {
            cols.push(None);
        }
        cols.push(Some(c));
    }
    cols
}

/// Rows keyed by (SM, scheduler, CTA, warp).
type Rows<'a> = BTreeMap<(u32, u32, u64, u32), Vec<&'a IssueEvent>>;

fn rows(events: &[IssueEvent]) -> Rows<'_> {
    let mut rows: Rows = BTreeMap::new();
    for e in events {
        rows.entry((e.sm, e.scheduler, e.cta, e.warp))
            .or_default()
            .push(e);
    }
    rows
}

/// The diagram as text.
pub fn text(events: &[IssueEvent]) -> String {
    let cols = columns(events);
    let mut out = String::new();
    let header = |out: &mut String| {
        let _ = write!(out, "{:<10}", "# Cycle");
        for c in &cols {
            match c {
                Some(c) => {
                    let _ = write!(out, "{:<CELL$}", c);
                }
                None => {
                    let _ = write!(out, "{:<CELL$}", "..");
                }
            }
        }
        out.truncate(out.trim_end().len());
        out.push('\n');
    };
    header(&mut out);
    let mut last_sched = None;
    for ((sm, sched, cta, warp), evs) in rows(events) {
        if last_sched != Some((sm, sched)) {
            let _ = writeln!(out, "SM {sm} scheduler {sched}:");
            last_sched = Some((sm, sched));
        }
        let mut cells = vec![String::new(); cols.len()];
        for e in evs {
            let d = e.dispatch.max(1) as u64;
            let label = format!("I{}", e.ordinal);
            let first = cols.iter().position(|c| *c == Some(e.cycle));
            let last = cols.iter().position(|c| *c == Some(e.cycle + d - 1));
            let (Some(first), Some(last)) = (first, last) else {
                continue;
            };
            if d == 1 {
                // A second instruction in the same cycle (dual issue) shares the cell.
                if cells[first].is_empty() {
                    cells[first] = label;
                } else {
                    cells[first] = format!("{}+{}", cells[first], label);
                }
            } else {
                cells[first] = format!("[{label}");
                for c in cells.iter_mut().take(last).skip(first + 1) {
                    c.clear();
                }
                cells[last] = format!("{:>w$}", "]", w = CELL - 1);
            }
        }
        let _ = write!(out, "{:<10}", format!("b{cta}w{warp}:"));
        for c in &cells {
            let _ = write!(out, "{:<CELL$}", c);
        }
        out.truncate(out.trim_end().len());
        out.push('\n');
    }
    out
}

fn escape(s: &str) -> String {
    s.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
}

/// The diagram as a self-contained HTML page (inline SVG, no scripts).
pub fn html(title: &str, events: &[IssueEvent]) -> String {
    let cols = columns(events);
    let rows = rows(events);
    let (cw, rh, left, top) = (28.0, 22.0, 90.0, 30.0);
    let width = left + cw * cols.len() as f64 + 20.0;
    let height = top + rh * rows.len() as f64 + 20.0;
    let mut svg = String::new();
    let _ = writeln!(
        svg,
        r#"<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" font-family="monospace" font-size="11">"#
    );
    for (i, c) in cols.iter().enumerate() {
        let x = left + cw * i as f64;
        let label = c.map(|c| c.to_string()).unwrap_or_else(|| "..".into());
        let _ = writeln!(
            svg,
            r##"<text x="{:.1}" y="18" text-anchor="middle" fill="#555">{label}</text>"##,
            x + cw / 2.0
        );
    }
    for (r, ((sm, sched, cta, warp), evs)) in rows.iter().enumerate() {
        let y = top + rh * r as f64;
        let _ = writeln!(
            svg,
            r#"<text x="4" y="{:.1}">SM{sm}.s{sched} b{cta}w{warp}</text>"#,
            y + 15.0
        );
        for e in evs {
            let d = e.dispatch.max(1) as u64;
            let Some(first) = cols.iter().position(|c| *c == Some(e.cycle)) else {
                continue;
            };
            let last = cols
                .iter()
                .position(|c| *c == Some(e.cycle + d - 1))
                .unwrap_or(first);
            let x = left + cw * first as f64;
            let w = cw * (last - first + 1) as f64 - 2.0;
            let _ = writeln!(
                svg,
                r##"<rect x="{x:.1}" y="{:.1}" width="{w:.1}" height="{:.1}" rx="3" fill="#cfe3ff" stroke="#3b6fb6"><title>cycle {} I{} (PTX line {}), dispatch {} cycles</title></rect><text x="{:.1}" y="{:.1}">I{}</text>"##,
                y + 2.0,
                rh - 4.0,
                e.cycle,
                e.ordinal,
                e.line,
                d,
                x + 3.0,
                y + 15.0,
                e.ordinal
            );
        }
    }
    svg.push_str("</svg>\n");
    format!(
        "<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\"><title>{t}</title></head>\n<body>\n<h1>{t}</h1>\n<p>Warps down, cycles across (gaps collapsed into <code>..</code>); a box per issued instruction, as wide as its dispatch. Hover for the PTX line.</p>\n{svg}</body></html>\n",
        t = escape(title)
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ev(cycle: u64, warp: u32, ordinal: u32, dispatch: u32) -> IssueEvent {
        IssueEvent {
            cycle,
            sm: 0,
            scheduler: 0,
            cta: 0,
            warp,
            ordinal,
            line: 1,
            dispatch,
        }
    }

    #[test]
    fn brackets_and_gaps() {
        let events = vec![ev(0, 0, 0, 2), ev(400, 0, 1, 1), ev(2, 2, 0, 2)];
        let t = text(&events);
        let lines: Vec<&str> = t.lines().collect();
        assert!(
            lines[0].starts_with("# Cycle   0    1    2    3    ..   400"),
            "{t}"
        );
        assert!(lines[2].starts_with("b0w0:     [I0     ]"), "{t}");
        assert!(lines[2].ends_with("I1"), "{t}");
        assert!(lines[3].starts_with("b0w2:               [I0     ]"), "{t}");
        let h = html("t", &events);
        assert!(h.contains("<svg") && h.matches("<rect").count() == 3);
    }
}
