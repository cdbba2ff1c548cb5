//! Line charts of a report: a [`Figure`] is panels of labelled series of
//! points (with an optional ± standard deviation), drawn by `plotters` as an
//! SVG and rasterised to PNG by `resvg` with an embedded DejaVu Sans, so the
//! PNGs have the same readable labels on a machine without any font installed.

use anyhow::Context;
use plotters::prelude::*;
use serde::Serialize;
use std::sync::{Arc, OnceLock};

/// Width and height of one panel, pixels.
const PANEL: (u32, u32) = (560, 400);
/// Height of the figure's title band, pixels.
const TITLE_BAND: u32 = 40;

/// A figure: a title and panels laid out `columns` to a row.
#[derive(Clone, Debug, Serialize)]
pub struct Figure {
    /// The file name without extension (`NAME.svg`, `NAME.png`).
    pub name: String,
    pub title: String,
    pub columns: usize,
    pub panels: Vec<Panel>,
}

/// One chart: axes, and one line per series.
#[derive(Clone, Debug, Serialize)]
pub struct Panel {
    pub title: String,
    pub x_label: String,
    pub y_label: String,
    /// The x values are powers of two apart (areas): drawn on a log₂ axis.
    pub x_log2: bool,
    pub series: Vec<Series>,
}

/// A line: its legend and its points in x order.
#[derive(Clone, Debug, Serialize)]
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

impl Figure {
    /// The figure as an SVG document.
    pub fn svg(&self) -> anyhow::Result<String> {
        let columns = self.columns.clamp(1, self.panels.len().max(1));
        let rows = self.panels.len().div_ceil(columns).max(1);
        let size = (PANEL.0 * columns as u32, PANEL.1 * rows as u32 + TITLE_BAND);
        let mut text = String::new();
        {
            let root = SVGBackend::with_string(&mut text, size).into_drawing_area();
            root.fill(&WHITE).map_err(drawing)?;
            let root = root.titled(&self.title, ("sans-serif", 22)).map_err(drawing)?;
            for (panel, area) in self.panels.iter().zip(root.split_evenly((rows, columns))) {
                panel.draw(&area)?;
            }
            root.present().map_err(drawing)?;
        }
        Ok(text)
    }
}

/// plotters' errors borrow nothing but are not `Sync` for every backend: keep the text.
pub(super) fn drawing<E: std::fmt::Display>(err: E) -> anyhow::Error {
    anyhow::anyhow!("cannot draw the figure: {err}")
}

impl Panel {
    /// The (x, y) bounds of every point and error bar, padded; (0..1) when empty.
    fn bounds(&self) -> ((f64, f64), (f64, f64)) {
        let points = || self.series.iter().flat_map(|s| s.points.iter());
        let x = |p: &Point| {
            if self.x_log2 {
                p.x.max(f64::MIN_POSITIVE).log2()
            } else {
                p.x
            }
        };
        let (mut x0, mut x1) = (f64::INFINITY, f64::NEG_INFINITY);
        let (mut y0, mut y1) = (0.0_f64, f64::NEG_INFINITY);
        for p in points() {
            x0 = x0.min(x(p));
            x1 = x1.max(x(p));
            let sd = p.sd.unwrap_or(0.0);
            y0 = y0.min(p.y - sd);
            y1 = y1.max(p.y + sd);
        }
        if !x0.is_finite() {
            return ((0.0, 1.0), (0.0, 1.0));
        }
        let pad = ((x1 - x0) * 0.05).max(0.5);
        let top = if y1 > y0 { y1 + (y1 - y0) * 0.08 } else { y0 + 1.0 };
        ((x0 - pad, x1 + pad), (y0, top))
    }

    fn draw<DB: DrawingBackend>(&self, area: &DrawingArea<DB, plotters::coord::Shift>) -> anyhow::Result<()>
    where
        DB::ErrorType: 'static,
    {
        let ((x0, x1), (y0, y1)) = self.bounds();
        let title = if self.series.iter().all(|s| s.points.is_empty()) {
            format!("{} (no defined value)", self.title)
        } else {
            self.title.clone()
        };
        let mut chart = ChartBuilder::on(area)
            .caption(title, ("sans-serif", 16))
            .margin(12)
            .x_label_area_size(42)
            .y_label_area_size(64)
            .build_cartesian_2d(x0..x1, y0..y1)
            .map_err(drawing)?;
        let log2 = self.x_log2;
        let x_format = move |v: &f64| {
            if log2 {
                format!("{}", 2f64.powf(*v).round())
            } else {
                format!("{v}")
            }
        };
        chart
            .configure_mesh()
            .x_desc(self.x_label.as_str())
            .y_desc(self.y_label.as_str())
            .x_label_formatter(&x_format)
            .label_style(("sans-serif", 12))
            .axis_desc_style(("sans-serif", 14))
            .draw()
            .map_err(drawing)?;
        for (index, series) in self.series.iter().enumerate() {
            let color = Palette99::pick(index).to_rgba();
            let points: Vec<(f64, f64, Option<f64>)> = series
                .points
                .iter()
                .map(|p| {
                    (
                        if log2 {
                            p.x.max(f64::MIN_POSITIVE).log2()
                        } else {
                            p.x
                        },
                        p.y,
                        p.sd,
                    )
                })
                .collect();
            chart
                .draw_series(LineSeries::new(
                    points.iter().map(|&(x, y, _)| (x, y)),
                    color.stroke_width(2),
                ))
                .map_err(drawing)?
                .label(series.label.as_str())
                .legend(move |(x, y)| PathElement::new(vec![(x, y), (x + 18, y)], color.stroke_width(2)));
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
        }
        if self.series.iter().any(|s| !s.label.is_empty()) {
            chart
                .configure_series_labels()
                .position(SeriesLabelPosition::UpperRight)
                .background_style(WHITE.mix(0.7))
                .border_style(BLACK)
                .label_font(("sans-serif", 11))
                .draw()
                .map_err(drawing)?;
        }
        Ok(())
    }
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
