//! `--timeline FILE.svg`: a Gantt chart of the attempts, one row per runner place (a runner
//! of capacity 3 has three rows, named once), one bar per attempt from its claim to its
//! end, colored by how it ended; a black mark where a runner crashed and a grey band while
//! it was down. Drawn with plotters' SVG backend.

use plotters::coord::ranged1d::SegmentValue;
use plotters::prelude::*;

use super::clock::Millis;
use super::engine::{Bar, Ending, RunnerSim};

/// The width of the chart, in pixels.
const WIDTH: u32 = 1_200;
/// The height of one runner's row, in pixels.
const ROW: u32 = 22;
/// The height of the title and the legend above the chart, in pixels.
const HEADER: u32 = 64;
/// The height of the time axis below the chart, in pixels.
const AXIS: u32 = 48;

/// The color of a runner's time down.
const DOWN: RGBColor = RGBColor(208, 215, 222);

/// The color of an ending.
fn color(ending: Ending) -> RGBColor {
    match ending {
        Ending::Succeeded => RGBColor(46, 160, 67),
        Ending::Failed => RGBColor(207, 34, 46),
        Ending::Timeout => RGBColor(219, 130, 0),
        Ending::Canceled => RGBColor(110, 119, 129),
        Ending::Expired => RGBColor(130, 80, 223),
        Ending::Live => RGBColor(9, 105, 218),
    }
}

/// The chart of `bars` on `runners` until `end`, as SVG text.
pub(crate) fn svg(
    bars: &[Bar],
    runners: &[RunnerSim],
    end: Millis,
    title: &str,
) -> Result<String, String> {
    // The first row of each runner, and the rows in all.
    let mut first = Vec::with_capacity(runners.len());
    let mut total: usize = 0;
    for runner in runners {
        first.push(total);
        total = total.saturating_add(usize::try_from(runner.capacity).unwrap_or(1));
    }
    let rows = u32::try_from(total).unwrap_or(u32::MAX).max(1);
    let height = HEADER
        .saturating_add(ROW.saturating_mul(rows))
        .saturating_add(AXIS);
    let mut text = String::new();
    {
        let root = SVGBackend::with_string(&mut text, (WIDTH, height)).into_drawing_area();
        root.fill(&WHITE).map_err(|e| e.to_string())?;
        let (header, body) = root.split_vertically(HEADER);
        draw_header(&header, title)?;
        let label_width = runners
            .iter()
            .map(|r| r.id.as_ref().len())
            .max()
            .unwrap_or(0);
        let label_area = u32::try_from(label_width)
            .unwrap_or(40)
            .saturating_mul(7)
            .saturating_add(16);
        let seconds = (end.max(1) as f64) / 1_000.0;
        let count = i32::try_from(total).unwrap_or(i32::MAX).max(1);
        let mut chart = ChartBuilder::on(&body)
            .margin_right(24)
            .x_label_area_size(AXIS - 8)
            .y_label_area_size(label_area)
            .build_cartesian_2d(0.0..seconds, (0..count - 1).into_segmented())
            .map_err(|e| e.to_string())?;
        // The first runner of the inventory is the top row; a runner is named on its first.
        let name = |value: &SegmentValue<i32>| match value {
            SegmentValue::CenterOf(row) => usize::try_from(count - 1 - *row)
                .ok()
                .and_then(|row| first.binary_search(&row).ok())
                .and_then(|i| runners.get(i))
                .map_or_else(String::new, |r| r.id.to_string()),
            _ => String::new(),
        };
        chart
            .configure_mesh()
            .disable_y_mesh()
            .x_max_light_lines(1)
            .y_labels(total.max(1))
            .y_label_formatter(&name)
            .x_desc("simulated time (s)")
            .x_label_formatter(&|s| format!("{s}"))
            .label_style(("sans-serif", 12))
            .draw()
            .map_err(|e| e.to_string())?;
        // The row of `place` of runner `index`, counted from the bottom.
        let row = |index: usize, place: u32| {
            let at = first.get(index).copied().unwrap_or(0);
            let at = at.saturating_add(usize::try_from(place).unwrap_or(0));
            count - 1 - i32::try_from(at).unwrap_or(count - 1)
        };
        // The grey bands of the times a runner was down, over all its rows, under the bars.
        let down = runners.iter().enumerate().flat_map(|(index, runner)| {
            let top = row(index, 0).saturating_add(1);
            let bottom = row(index, runner.capacity.saturating_sub(1));
            runner.down.iter().map(move |(at, back)| {
                let from = *at as f64 / 1_000.0;
                let to = back.map_or(seconds, |back| back as f64 / 1_000.0);
                Rectangle::new(
                    [
                        (from, SegmentValue::Exact(bottom)),
                        (to.min(seconds), SegmentValue::Exact(top)),
                    ],
                    DOWN.filled(),
                )
            })
        });
        chart.draw_series(down).map_err(|e| e.to_string())?;
        chart
            .draw_series(bars.iter().map(|bar| {
                let from = bar.from as f64 / 1_000.0;
                // A bar of no length is still drawn a pixel wide.
                let to = (bar.to as f64 / 1_000.0).max(from + seconds / f64::from(WIDTH));
                let y = row(bar.runner, bar.place);
                let mut rect = Rectangle::new(
                    [
                        (from, SegmentValue::Exact(y)),
                        (to, SegmentValue::Exact(y.saturating_add(1))),
                    ],
                    color(bar.ending).filled(),
                );
                // A pixel of white between one attempt and the next on a runner.
                rect.set_margin(3, 3, 0, 1);
                rect
            }))
            .map_err(|e| e.to_string())?;
        chart
            .draw_series(runners.iter().enumerate().flat_map(|(index, runner)| {
                let top = row(index, 0).saturating_add(1);
                let bottom = row(index, runner.capacity.saturating_sub(1));
                runner.down.iter().map(move |(at, _)| {
                    let at = *at as f64 / 1_000.0;
                    PathElement::new(
                        vec![
                            (at, SegmentValue::Exact(bottom)),
                            (at, SegmentValue::Exact(top)),
                        ],
                        BLACK.stroke_width(3),
                    )
                })
            }))
            .map_err(|e| e.to_string())?;
        root.present().map_err(|e| e.to_string())?;
    }
    Ok(text)
}

/// The title and a legend of the colors.
fn draw_header<DB: DrawingBackend>(
    area: &DrawingArea<DB, plotters::coord::Shift>,
    title: &str,
) -> Result<(), String> {
    let err = |e: DrawingAreaErrorKind<DB::ErrorType>| e.to_string();
    area.draw(&Text::new(
        title.to_owned(),
        (16, 10),
        ("sans-serif", 16).into_font(),
    ))
    .map_err(err)?;
    let mut x = 16;
    let legend = [
        Ending::Succeeded,
        Ending::Failed,
        Ending::Timeout,
        Ending::Canceled,
        Ending::Expired,
        Ending::Live,
    ];
    for ending in legend {
        area.draw(&Rectangle::new(
            [(x, 38), (x + 14, 52)],
            color(ending).filled(),
        ))
        .map_err(err)?;
        area.draw(&Text::new(
            ending.as_str(),
            (x + 20, 38),
            ("sans-serif", 13).into_font(),
        ))
        .map_err(err)?;
        x += 110;
    }
    area.draw(&Rectangle::new([(x, 38), (x + 14, 52)], DOWN.filled()))
        .map_err(err)?;
    area.draw(&PathElement::new(
        vec![(x, 36), (x, 54)],
        BLACK.stroke_width(3),
    ))
    .map_err(err)?;
    area.draw(&Text::new(
        "runner crashed, down",
        (x + 20, 38),
        ("sans-serif", 13).into_font(),
    ))
    .map_err(err)?;
    Ok(())
}
