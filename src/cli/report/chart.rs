//! The report's charts: a [`Figure`] is panels of labelled series, each panel
//! drawn as lines (points with an optional ± standard deviation, by a numeric
//! x) or as grouped bars (a group per category, a bar per series), by
//! `plotters` as an SVG, and rasterised to PNG by `resvg` with an embedded
//! DejaVu Sans, so the PNGs have the same readable labels on a machine
//! without any font installed.
//!
//! The numbers stay in the sweep's units (seconds, fractions); each panel's
//! [`Unit`] picks what its axis shows (minutes, hours or days; percentages)
//! and tick labels are written as people write numbers (`2`, `0.25`,
//! `12,000`), never `600000.0`. One legend per figure, right of the panels,
//! gives every series the same colour in every panel and covers no data.

use anyhow::Context;
use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, Pos, VPos};
use serde::Serialize;
use std::sync::{Arc, OnceLock};

/// Width and height of one panel, pixels.
const PANEL: (u32, u32) = (560, 400);
/// Height of the figure's title band, pixels.
const TITLE_BAND: u32 = 40;
/// Height of one line of the figure's notes, pixels.
const NOTE_LINE: u32 = 18;
/// Height of one legend entry, pixels.
const LEGEND_LINE: u32 = 20;
/// Width of one character of the 12 px labels, pixels (DejaVu Sans, a little over its mean).
const CHAR_WIDTH: f64 = 7.0;

/// A figure: a title, panels laid out `columns` to a row, and notes (what
/// was left out of it, and why) under the title.
#[derive(Clone, Debug, Serialize)]
pub struct Figure {
    /// The file name without extension (`NAME.svg`, `NAME.png`).
    pub name: String,
    pub title: String,
    pub columns: usize,
    pub panels: Vec<Panel>,
    pub notes: Vec<String>,
}

/// One chart: axes, and one line (or one bar per category) per series.
#[derive(Clone, Debug, Serialize)]
pub struct Panel {
    pub title: String,
    pub x_label: String,
    pub y_label: String,
    /// The x values are powers of two apart (areas): drawn on a log₂ axis.
    pub x_log2: bool,
    /// What the y values are, which decides the unit the axis shows.
    pub y_unit: Unit,
    /// Bars: the categories' names, a point's x being its category's index.
    /// Empty: lines by a numeric x.
    pub categories: Vec<String>,
    pub series: Vec<Series>,
}

/// A line, or a bar in each category: its legend and its points in x order.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Series {
    pub label: String,
    pub points: Vec<Point>,
}

/// A point; `sd` draws an error bar of ± one standard deviation.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct Point {
    pub x: f64,
    pub y: f64,
    pub sd: Option<f64>,
}

/// The values of a panel's y axis; the figure files show them in the unit
/// that suits their size, `report.json` keeps them as the sweep wrote them.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Unit {
    /// Plain numbers (counts, ratios), drawn as they are.
    Number,
    /// Percentages (0–100), drawn as they are.
    Percent,
    /// Fractions (0–1), drawn as percentages.
    Fraction,
    /// Durations in seconds, drawn in seconds, minutes, hours or days.
    Seconds,
}

impl Unit {
    /// The factor values are drawn multiplied by, and the axis's unit, for
    /// values up to `largest` in absolute value.
    fn scale(self, largest: f64) -> (f64, &'static str) {
        match self {
            Unit::Number => (1.0, ""),
            Unit::Percent => (1.0, "%"),
            Unit::Fraction => (100.0, "%"),
            Unit::Seconds if largest < 180.0 => (1.0, "seconds"),
            Unit::Seconds if largest < 3.0 * 3600.0 => (1.0 / 60.0, "minutes"),
            Unit::Seconds if largest < 3.0 * 86_400.0 => (1.0 / 3600.0, "hours"),
            Unit::Seconds => (1.0 / 86_400.0, "days"),
        }
    }
}

/// A tick label as people write it: `0`, `2`, `2.5`, `0.025`, `12,000`
/// (at most four significant digits after the point, no trailing zeros).
pub fn tick(value: f64) -> String {
    if !value.is_finite() {
        return String::new();
    }
    let magnitude = value.abs();
    if magnitude < 1e-12 {
        return "0".to_string();
    }
    let decimals = match magnitude {
        m if m >= 100.0 => 0,
        m if m >= 10.0 => 1,
        m if m >= 1.0 => 2,
        m => (3.0 - m.log10().floor()).clamp(0.0, 12.0) as usize,
    };
    let text = format!("{value:.decimals$}");
    let text = if text.contains('.') {
        text.trim_end_matches('0').trim_end_matches('.').to_string()
    } else {
        text
    };
    // Thousands separators in the integer part from 10,000 on.
    let (sign, digits) = text
        .strip_prefix('-')
        .map_or(("", text.as_str()), |rest| ("-", rest));
    let (integer, fraction) = digits.split_once('.').map_or((digits, ""), |(i, f)| (i, f));
    if integer.len() <= 4 {
        return text;
    }
    let mut grouped = String::new();
    for (index, digit) in integer.chars().enumerate() {
        if index > 0 && (integer.len() - index) % 3 == 0 {
            grouped.push(',');
        }
        grouped.push(digit);
    }
    match fraction {
        "" => format!("{sign}{grouped}"),
        fraction => format!("{sign}{grouped}.{fraction}"),
    }
}

/// The colour of the `index`th series of a figure: Tableau's ten, then plotters' palette.
fn color(index: usize) -> RGBAColor {
    const TABLEAU: [(u8, u8, u8); 10] = [
        (78, 121, 167),
        (242, 142, 43),
        (225, 87, 89),
        (118, 183, 178),
        (89, 161, 79),
        (237, 201, 72),
        (176, 122, 161),
        (255, 157, 167),
        (156, 117, 95),
        (186, 176, 172),
    ];
    match TABLEAU.get(index) {
        Some(&(r, g, b)) => RGBColor(r, g, b).to_rgba(),
        None => Palette99::pick(index).to_rgba(),
    }
}

/// How a legend entry shows its series.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Swatch {
    Line,
    Box,
}

/// A legend, one entry a line, from the top left of `area` (outside any plot).
pub(super) fn legend<DB: DrawingBackend>(
    area: &DrawingArea<DB, plotters::coord::Shift>,
    entries: &[(String, RGBAColor)],
    swatch: Swatch,
) -> anyhow::Result<()>
where
    DB::ErrorType: 'static,
{
    let style = ("sans-serif", 12)
        .into_font()
        .color(&BLACK)
        .pos(Pos::new(HPos::Left, VPos::Center));
    for (index, (label, color)) in entries.iter().enumerate() {
        let y = (TITLE_BAND / 2 + LEGEND_LINE * index as u32) as i32;
        match swatch {
            Swatch::Line => area.draw(&PathElement::new(vec![(8, y), (28, y)], color.stroke_width(3))),
            Swatch::Box => area
                .draw(&Rectangle::new([(10, y - 6), (26, y + 6)], color.filled()))
                .and_then(|()| area.draw(&Rectangle::new([(10, y - 6), (26, y + 6)], BLACK.stroke_width(1)))),
        }
        .map_err(drawing)?;
        area.draw_text(label, &style, (34, y)).map_err(drawing)?;
    }
    Ok(())
}

/// The width of a legend of `labels`, pixels (0 without any label).
pub(super) fn legend_width<'a>(labels: impl IntoIterator<Item = &'a String>) -> u32 {
    let longest = labels.into_iter().map(|l| l.chars().count()).max();
    longest.map_or(0, |chars| (48.0 + CHAR_WIDTH * chars as f64) as u32)
}

/// A title's font size, pixels: `largest` unless the text is wider than `width` then.
fn title_size(text: &str, largest: u32, width: u32) -> u32 {
    let chars = text.chars().count().max(1) as f64;
    let fits = (f64::from(width.saturating_sub(24)) / (0.6 * chars)).floor() as u32;
    fits.clamp(11, largest)
}

impl Figure {
    /// Every series label of the figure, in order of first appearance (its legend).
    fn labels(&self) -> Vec<String> {
        let mut labels: Vec<String> = Vec::new();
        for series in self.panels.iter().flat_map(|p| p.series.iter()) {
            if !series.label.is_empty() && !labels.contains(&series.label) {
                labels.push(series.label.clone());
            }
        }
        labels
    }

    /// The figure as an SVG document.
    pub fn svg(&self) -> anyhow::Result<String> {
        let columns = self.columns.clamp(1, self.panels.len().max(1));
        let rows = self.panels.len().div_ceil(columns).max(1);
        let labels = self.labels();
        let legend_width = legend_width(&labels);
        let band = TITLE_BAND + NOTE_LINE * self.notes.len() as u32;
        let legend_height = TITLE_BAND + LEGEND_LINE * labels.len() as u32;
        // Panels wide enough for their bars' names, and together for the title at 18 px.
        let title_width = (0.6 * 18.0 * self.title.chars().count() as f64) as u32 + 40;
        let panel_width = self
            .panels
            .iter()
            .map(Panel::width)
            .max()
            .unwrap_or(PANEL.0)
            .max(title_width.saturating_sub(legend_width).div_ceil(columns as u32));
        let size = (
            panel_width * columns as u32 + legend_width,
            (PANEL.1 * rows as u32).max(legend_height) + band,
        );
        let colors: Vec<(String, RGBAColor)> = labels
            .iter()
            .enumerate()
            .map(|(index, label)| (label.clone(), color(index)))
            .collect();
        let color_of = |label: &str| {
            colors
                .iter()
                .find(|(l, _)| l == label)
                .map_or_else(|| color(0), |(_, c)| *c)
        };
        let mut text = String::new();
        {
            let root = SVGBackend::with_string(&mut text, size).into_drawing_area();
            root.fill(&WHITE).map_err(drawing)?;
            let (top, body) = root.split_vertically(band);
            let title_style = ("sans-serif", title_size(&self.title, 22, size.0))
                .into_font()
                .color(&BLACK)
                .pos(Pos::new(HPos::Center, VPos::Top));
            top.draw_text(&self.title, &title_style, (size.0 as i32 / 2, 8))
                .map_err(drawing)?;
            let note_style = ("sans-serif", 13).into_font().color(&RGBColor(80, 80, 80));
            for (index, note) in self.notes.iter().enumerate() {
                let y = (TITLE_BAND + NOTE_LINE * index as u32) as i32 - 6;
                top.draw_text(note, &note_style, (16, y)).map_err(drawing)?;
            }
            let (plots, legend_area) = body.split_horizontally(panel_width * columns as u32);
            for (panel, area) in self.panels.iter().zip(plots.split_evenly((rows, columns))) {
                panel.draw(&area, &color_of)?;
            }
            let bars = self.panels.iter().any(|p| !p.categories.is_empty());
            let swatch = if bars { Swatch::Box } else { Swatch::Line };
            legend(&legend_area, &colors, swatch)?;
            root.present().map_err(drawing)?;
        }
        Ok(text)
    }
}

/// plotters' errors borrow nothing but are not `Sync` for every backend: keep the text.
pub(super) fn drawing<E: std::fmt::Display>(err: E) -> anyhow::Error {
    anyhow::anyhow!("cannot draw the figure: {err}")
}

/// A series' points as drawn: (x, y, sd) with x on the axis's scale and y, sd in the axis's unit.
type Drawn = Vec<(f64, f64, Option<f64>)>;

impl Panel {
    /// The panel's width, pixels: wider than [`PANEL`] when its bars' names need it.
    fn width(&self) -> u32 {
        if self.categories.is_empty() {
            return PANEL.0;
        }
        let longest = self
            .categories
            .iter()
            .map(|c| c.chars().count())
            .max()
            .unwrap_or(0);
        let bars = self.series.len().max(1);
        let per_category = (CHAR_WIDTH * longest as f64 + 12.0).max(18.0 * bars as f64);
        PANEL
            .0
            .max((110.0 + per_category * self.categories.len() as f64) as u32)
    }

    /// The points of every series as drawn, and the y axis's label with its unit.
    fn drawn(&self) -> (Vec<Drawn>, String) {
        let largest = self
            .series
            .iter()
            .flat_map(|s| s.points.iter())
            .map(|p| p.y.abs() + p.sd.unwrap_or(0.0))
            .fold(0.0, f64::max);
        let (factor, unit) = self.y_unit.scale(largest);
        let log2 = self.x_log2;
        let series = self
            .series
            .iter()
            .map(|s| {
                s.points
                    .iter()
                    .map(|p| {
                        let x = if log2 {
                            p.x.max(f64::MIN_POSITIVE).log2()
                        } else {
                            p.x
                        };
                        (x, p.y * factor, p.sd.map(|sd| sd * factor))
                    })
                    .collect()
            })
            .collect();
        let label = if unit.is_empty() || self.y_label.contains(unit) {
            self.y_label.clone()
        } else {
            format!("{} ({unit})", self.y_label)
        };
        (series, label)
    }

    /// The (x, y) bounds of every drawn point and error bar, padded; (0..1) when empty.
    fn bounds(&self, drawn: &[Drawn]) -> ((f64, f64), (f64, f64)) {
        let (mut x0, mut x1) = (f64::INFINITY, f64::NEG_INFINITY);
        let (mut y0, mut y1) = (0.0_f64, 0.0_f64);
        for &(x, y, sd) in drawn.iter().flatten() {
            x0 = x0.min(x);
            x1 = x1.max(x);
            let sd = sd.unwrap_or(0.0);
            y0 = y0.min(y - sd);
            y1 = y1.max(y + sd);
        }
        let (x0, x1) = if !self.categories.is_empty() {
            (-0.5, self.categories.len() as f64 - 0.5)
        } else if x0.is_finite() {
            let pad = ((x1 - x0) * 0.05).max(0.5);
            (x0 - pad, x1 + pad)
        } else {
            (0.0, 1.0)
        };
        let span = if y1 > y0 { y1 - y0 } else { 1.0 };
        let bottom = if y0 < 0.0 { y0 - span * 0.08 } else { y0 };
        ((x0, x1), (bottom, y1 + span * 0.08))
    }

    fn draw<DB: DrawingBackend>(
        &self,
        area: &DrawingArea<DB, plotters::coord::Shift>,
        color_of: &dyn Fn(&str) -> RGBAColor,
    ) -> anyhow::Result<()>
    where
        DB::ErrorType: 'static,
    {
        let (drawn, y_label) = self.drawn();
        let ((x0, x1), (y0, y1)) = self.bounds(&drawn);
        let mut chart = ChartBuilder::on(area)
            .caption(
                self.title.as_str(),
                ("sans-serif", title_size(&self.title, 16, area.dim_in_pixel().0)),
            )
            .margin(12)
            .x_label_area_size(42)
            .y_label_area_size(64)
            .build_cartesian_2d(x0..x1, y0..y1)
            .map_err(drawing)?;
        let log2 = self.x_log2;
        let categories = &self.categories;
        let x_format = move |v: &f64| {
            if !categories.is_empty() {
                let index = v.round();
                let named = (v - index).abs() < 1e-6 && index >= 0.0;
                named
                    .then(|| categories.get(index as usize).cloned())
                    .flatten()
                    .unwrap_or_default()
            } else if log2 {
                tick(2f64.powf(*v).round())
            } else {
                tick(*v)
            }
        };
        let y_format = |v: &f64| tick(*v);
        let mut mesh = chart.configure_mesh();
        mesh.x_desc(self.x_label.as_str())
            .y_desc(y_label.as_str())
            .x_label_formatter(&x_format)
            .y_label_formatter(&y_format)
            .label_style(("sans-serif", 12))
            .axis_desc_style(("sans-serif", 14))
            .bold_line_style(RGBColor(215, 215, 215))
            .light_line_style(RGBColor(242, 242, 242));
        if !categories.is_empty() {
            mesh.disable_x_mesh().x_labels(categories.len());
        }
        mesh.draw().map_err(drawing)?;
        let colors: Vec<RGBAColor> = self.series.iter().map(|s| color_of(&s.label)).collect();
        let width = 0.8 / drawn.len().max(1) as f64;
        for (index, (points, &color)) in drawn.iter().zip(&colors).enumerate() {
            if categories.is_empty() {
                draw_line(&mut chart, points, color)?;
            } else {
                let left = move |x: f64| x - 0.4 + width * index as f64;
                draw_bars(&mut chart, points, color, left, width)?;
            }
        }
        Ok(())
    }
}

/// The chart of a panel, in drawn coordinates.
type Chart<'a, DB> = ChartContext<
    'a,
    DB,
    Cartesian2d<plotters::coord::types::RangedCoordf64, plotters::coord::types::RangedCoordf64>,
>;

/// One series as a line through its points, with its error bars.
fn draw_line<DB: DrawingBackend>(
    chart: &mut Chart<'_, DB>,
    points: &[(f64, f64, Option<f64>)],
    color: RGBAColor,
) -> anyhow::Result<()>
where
    DB::ErrorType: 'static,
{
    chart
        .draw_series(LineSeries::new(
            points.iter().map(|&(x, y, _)| (x, y)),
            color.stroke_width(2),
        ))
        .map_err(drawing)?;
    chart
        .draw_series(
            points
                .iter()
                .map(|&(x, y, _)| Circle::new((x, y), 3, color.filled())),
        )
        .map_err(drawing)?;
    chart
        .draw_series(points.iter().filter_map(|&(x, y, sd)| {
            sd.map(|sd| PathElement::new(vec![(x, y - sd), (x, y + sd)], color.stroke_width(1)))
        }))
        .map_err(drawing)?;
    Ok(())
}

/// One series as a bar in each category (the point's x), `width` wide from
/// `left(x)` so that the series stand side by side, outlined, with its error
/// bar.
fn draw_bars<DB: DrawingBackend>(
    chart: &mut Chart<'_, DB>,
    points: &[(f64, f64, Option<f64>)],
    color: RGBAColor,
    left: impl Fn(f64) -> f64,
    width: f64,
) -> anyhow::Result<()>
where
    DB::ErrorType: 'static,
{
    let rectangle = |&(x, y, _): &(f64, f64, Option<f64>)| [(left(x), 0.0), (left(x) + width, y)];
    chart
        .draw_series(
            points
                .iter()
                .map(|p| Rectangle::new(rectangle(p), color.filled())),
        )
        .map_err(drawing)?;
    chart
        .draw_series(
            points
                .iter()
                .map(|p| Rectangle::new(rectangle(p), BLACK.stroke_width(1))),
        )
        .map_err(drawing)?;
    chart
        .draw_series(points.iter().filter_map(|&(x, y, sd)| {
            let middle = left(x) + width / 2.0;
            sd.map(|sd| PathElement::new(vec![(middle, y - sd), (middle, y + sd)], BLACK.stroke_width(1)))
        }))
        .map_err(drawing)?;
    Ok(())
}

/// DejaVu Sans, the only font the rasteriser knows (SVG `sans-serif` maps to it).
fn fonts() -> Arc<resvg::usvg::fontdb::Database> {
    static FONTS: OnceLock<Arc<resvg::usvg::fontdb::Database>> = OnceLock::new();
    FONTS
        .get_or_init(|| {
            let mut fonts = resvg::usvg::fontdb::Database::new();
            fonts.load_font_data(dejavu::sans::regular().to_vec());
            fonts.load_font_data(dejavu::sans::bold().to_vec());
            fonts.set_sans_serif_family("DejaVu Sans");
            Arc::new(fonts)
        })
        .clone()
}

/// Rasterise an SVG document to PNG bytes, on white.
pub fn png(svg: &str) -> anyhow::Result<Vec<u8>> {
    let options = resvg::usvg::Options {
        fontdb: fonts(),
        font_family: "DejaVu Sans".to_string(),
        ..Default::default()
    };
    let tree = resvg::usvg::Tree::from_str(svg, &options).context("cannot read the figure's SVG")?;
    let size = tree.size().to_int_size();
    let mut pixmap =
        resvg::tiny_skia::Pixmap::new(size.width(), size.height()).context("the figure has no pixels")?;
    pixmap.fill(resvg::tiny_skia::Color::WHITE);
    resvg::render(
        &tree,
        resvg::tiny_skia::Transform::default(),
        &mut pixmap.as_mut(),
    );
    pixmap.encode_png().context("cannot encode the figure as PNG")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ticks_are_written_as_people_write_numbers() {
        let cases = [
            (0.0, "0"),
            (-0.0, "0"),
            (2.0, "2"),
            (2.5, "2.5"),
            (0.30000000000000004, "0.3"),
            (0.025, "0.025"),
            (12.5, "12.5"),
            (600_000.0, "600,000"),
            (-12_345.0, "-12,345"),
            (1_000.0, "1000"),
        ];
        for (value, text) in cases {
            assert_eq!(tick(value), text, "{value}");
        }
        assert_eq!(tick(f64::NAN), "");
    }

    #[test]
    fn durations_are_drawn_in_the_unit_of_their_size() {
        assert_eq!(Unit::Seconds.scale(90.0).1, "seconds");
        assert_eq!(Unit::Seconds.scale(1_162.0).1, "minutes");
        assert_eq!(Unit::Seconds.scale(20_000.0).1, "hours");
        assert_eq!(Unit::Seconds.scale(651_080.0), (1.0 / 86_400.0, "days"));
        assert_eq!(Unit::Fraction.scale(0.58), (100.0, "%"));
    }
}
