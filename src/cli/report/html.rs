//! The report as one self-contained HTML page: the tables, and every figure
//! inline (SVG), linked to its PNG and SVG files.

use super::chart::Figure;
use super::stats::{Aggregate, Claim, ClassRow, PredictionRow};
use super::Report;
use std::fmt::Write;

/// Text made safe inside HTML.
pub(super) fn escape(text: &str) -> String {
    text.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
}

fn table(out: &mut String, header: &[&str], rows: impl IntoIterator<Item = Vec<String>>) {
    out.push_str("<table>\n<tr>");
    for cell in header {
        let _ = write!(out, "<th>{}</th>", escape(cell));
    }
    out.push_str("</tr>\n");
    for row in rows {
        out.push_str("<tr>");
        for cell in row {
            let _ = write!(out, "<td>{}</td>", escape(&cell));
        }
        out.push_str("</tr>\n");
    }
    out.push_str("</table>\n");
}

fn claims(out: &mut String, claims: &[Claim], left_out: &[String]) {
    out.push_str("<h2>The thesis's numbers beside this sweep's</h2>\n");
    out.push_str(
        "<p>The thesis (chapter 6) replays PIK-IPLEX (2,560 processors, one month); the rows \
         below are this sweep's runs at the same points. The thesis writes its largest violation \
         share as \"0.0018\" and names it a percentage, while its own worked example (34 \
         violations of ≈ 267,840 cloud jobs, 0.0127 %) is larger: both readings are given.</p>\n",
    );
    table(
        out,
        &["claim", "thesis", "here"],
        claims
            .iter()
            .map(|c| vec![c.claim.clone(), c.thesis.clone(), c.here.clone()]),
    );
    if !left_out.is_empty() {
        let _ = writeln!(
            out,
            "<p>Left out, this sweep having no run there: {}.</p>",
            escape(&left_out.join("; "))
        );
    }
}

fn prediction(out: &mut String, rows: &[PredictionRow]) {
    out.push_str("<h2>Prediction quality, the thesis's aggregation</h2>\n");
    out.push_str(
        "<p>Per-run values averaged over the runs (± sample standard deviation), as the thesis \
         does; a run whose value is undefined (no violation predicted or none occurred) is \
         counted apart, not as 0. The thesis's \"accuracy\" is (FP+FN)/predicted violations \
         (lower is better) and its \"precision\" TP/occurred violations (the standard recall). \
         Every run scores every predictor over the same cloud jobs: exact (the plan at walltimes), \
         thesis (F^σ) and learned (the plan corrected by the run times seen, with a calibrated \
         probability, whose Brier score is the last aggregate; a yes/no predictor's Brier score is \
         its error rate). The pooled columns sum the confusion matrices of the scope's runs.</p>\n",
    );
    let text = Aggregate::text;
    table(
        out,
        &[
            "predictor scored",
            "setting (predictor = the one that admitted)",
            "scope",
            "thesis accuracy",
            "thesis precision",
            "precision",
            "recall",
            "F1",
            "accuracy",
            "Brier",
            "TP / FP / FN / TN (pooled)",
        ],
        rows.iter().map(|r| {
            vec![
                r.predictor.clone(),
                r.setting.clone(),
                r.scope.clone(),
                text(&r.thesis_accuracy),
                text(&r.thesis_precision),
                text(&r.precision),
                text(&r.recall),
                text(&r.f1),
                text(&r.accuracy),
                text(&r.brier),
                format!("{} / {} / {} / {}", r.tp, r.fp, r.fn_, r.tn),
            ]
        }),
    );
}

fn classes(out: &mut String, rows: &[ClassRow]) {
    if rows.is_empty() {
        return;
    }
    out.push_str("<h2>Service classes</h2>\n");
    out.push_str(
        "<p>One line per eviction policy, area and class, averaged over the runs there \
         (sweep-classes.csv). Penalty in slot-hours (the seeds' credit table); Gini of the \
         availability inside the class, averaged over 10-minute windows; the QoS deficit of a \
         request is its SLO minus its availability when positive.</p>\n",
    );
    let text = Aggregate::text;
    table(
        out,
        &[
            "eviction",
            "m_conv",
            "setting",
            "class",
            "runs",
            "requests",
            "penalty",
            "Gini (mean)",
            "SLO fulfilment",
            "availability (mean)",
            "availability (p10)",
            "availability (min)",
            "QoS deficit (mean)",
            "preemptions",
        ],
        rows.iter().map(|r| {
            vec![
                r.eviction.clone().unwrap_or_else(|| "-".to_string()),
                r.conv.to_string(),
                r.setting.clone(),
                r.class.clone(),
                r.runs.to_string(),
                r.requests.to_string(),
                text(&r.penalty),
                text(&r.gini_mean),
                text(&r.slo_fulfilment),
                text(&r.availability_mean),
                text(&r.availability_p10),
                text(&r.availability_min),
                text(&r.mean_deficit),
                r.preemptions.to_string(),
            ]
        }),
    );
}

fn figure(out: &mut String, figure: &Figure, svg: &str) {
    let _ = write!(
        out,
        "<h2>{title}</h2>\n<p><a href=\"figures/{name}.png\">PNG</a> · \
         <a href=\"figures/{name}.svg\">SVG</a></p>\n<div class=\"figure\">{svg}</div>\n",
        title = escape(&figure.title),
        name = escape(&figure.name),
        // From the `<svg` element: an XML declaration has no place inside HTML.
        svg = svg.find("<svg").map_or(svg, |start| &svg[start..]),
    );
    for note in &figure.notes {
        let _ = writeln!(out, "<p class=\"note\">{}</p>", escape(note));
    }
}

/// The figures and, once, those not drawn and why.
fn figures(out: &mut String, report: &Report, svgs: &[String]) {
    for (f, svg) in report.figures.iter().zip(svgs) {
        figure(out, f, svg);
    }
    if !report.figures_left_out.is_empty() {
        out.push_str("<h2>Figures not drawn</h2>\n<ul>\n");
        for why in &report.figures_left_out {
            let _ = writeln!(out, "<li>{}</li>", escape(why));
        }
        out.push_str("</ul>\n");
    }
}

/// The page: `svgs` are the figures' SVG documents, in the order of `report.figures`.
pub fn page(report: &Report, svgs: &[String]) -> String {
    let mut out = String::new();
    let _ = write!(
        out,
        "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n\
         <title>Interstice report: {source}</title>\n<style>\n\
         body {{ font-family: sans-serif; margin: 2em; max-width: 1800px; }}\n\
         table {{ border-collapse: collapse; margin: 1em 0; font-size: 90%; }}\n\
         th, td {{ border: 1px solid #999; padding: 0.25em 0.5em; text-align: left; }}\n\
         th {{ background: #eee; }}\n.note {{ color: #555; }}\n.figure svg {{ max-width: 100%; height: auto; }}\n\
         </style>\n</head>\n<body>\n<h1>Interstice report</h1>\n\
         <p>Sweep <code>{source}</code>: {runs} runs{varying}. Generated by <code>interstice report</code> \
         from sweep.csv{classes}; the numbers are also in <a href=\"report.json\">report.json</a>.</p>\n",
        source = escape(&report.source),
        runs = report.runs,
        varying = if report.varying.is_empty() {
            String::new()
        } else {
            format!(
                "; settings that vary besides area, width, slack and seed: {}",
                escape(&report.varying.join(", "))
            )
        },
        classes = if report.classes.is_empty() {
            ""
        } else {
            " and sweep-classes.csv"
        },
    );
    figures(&mut out, report, svgs);
    claims(&mut out, &report.claims, &report.claims_left_out);
    prediction(&mut out, &report.prediction);
    classes(&mut out, &report.classes);
    out.push_str("</body>\n</html>\n");
    out
}
