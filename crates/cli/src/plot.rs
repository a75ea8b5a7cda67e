//! `grundy plot GAME --count N -o FILE.png|FILE.svg`: a scatter plot of G(n) against n, with
//! the proven period marked. Text is drawn with the DejaVu Sans font bundled in the binary
//! (assets/, Bitstream Vera licence), never a system font.

use crate::seq::compute;
use grundy_app::seq::SeqRequest;
use grundy_cli::db::DbOptions;
use grundy_cli::error::{usage, CliError};
use plotters::prelude::*;
use plotters::style::FontStyle;
use std::path::{Path, PathBuf};

/// The font of every plot: DejaVu Sans, from Debian's fonts-dejavu-core.
static FONT: &[u8] = include_bytes!("../assets/DejaVuSans.ttf");
const FAMILY: &str = "grundy-sans";

/// Arguments of `grundy plot`.
#[derive(clap::Args, Debug, Clone)]
pub struct PlotArgs {
    /// The game: an octal or hexadecimal code (0.77, 4.07, 0.F), grundys-game, sub:1,3,4 or
    /// sub-all-but:2,5.
    pub game: String,
    /// How many values: G(0) to G(N-1). Accepts 1000000, 1e6, 10^6, 2^21.
    #[arg(long, short = 'n', default_value = "1000")]
    pub count: String,
    /// The picture to write: .png or .svg. An existing FILE must be a PNG or SVG picture (it
    /// is replaced); another file is refused unless --force is given, a folder or a device
    /// always.
    #[arg(long, short = 'o', value_name = "FILE")]
    pub output: PathBuf,
    /// Let --output replace an existing regular file that is not a picture (a folder, a
    /// device, a pipe or a socket is refused even so).
    #[arg(long)]
    pub force: bool,
    /// Keep computing until a period is proven (or --count values are computed).
    #[arg(long)]
    pub until_period: bool,
    /// Width and height in pixels.
    #[arg(long, default_value = "1200x700", value_name = "WxH")]
    pub size: String,
    /// No progress bar, and no note when the values come from the store.
    #[arg(long, short = 'q')]
    pub quiet: bool,
}

enum Format {
    Png,
    Svg,
}

/// Runs `grundy plot`. The values come from the store when it has them, and are kept there,
/// as for `grundy seq`. Bad arguments (picture format, size, game, count, a folder that does
/// not exist) are usage errors; failing to draw or write the picture is a failure.
pub fn run(args: PlotArgs, db: &DbOptions) -> Result<(), CliError> {
    let format = match args
        .output
        .extension()
        .and_then(|e| e.to_str())
        .map(|e| e.to_ascii_lowercase())
        .as_deref()
    {
        Some("png") => Format::Png,
        Some("svg") => Format::Svg,
        _ => {
            return Err(usage(format!(
                "cannot tell the picture format of '{}' (name it .png or .svg)",
                args.output.display()
            )))
        }
    };
    let size = match args
        .size
        .split_once(['x', 'X'])
        .and_then(|(w, h)| Some((w.trim().parse::<u32>().ok()?, h.trim().parse::<u32>().ok()?)))
    {
        Some((w, h)) if (200..=10_000).contains(&w) && (150..=10_000).contains(&h) => (w, h),
        _ => {
            return Err(usage(format!(
                "invalid --size '{}' (expected WxH, each 200 to 10000, like 1200x700)",
                args.size
            )))
        }
    };
    // Checked before computing: a picture that cannot be written is the user's path.
    if let Some(folder) = args.output.parent().filter(|f| !f.as_os_str().is_empty()) {
        if !folder.is_dir() {
            return Err(usage(format!(
                "cannot write {}: no folder {}",
                display(&args.output),
                display(folder)
            )));
        }
    }
    if let Some(why) = refusal(&args.output, args.force) {
        return Err(usage(format!(
            "refusing to write {}: {why}",
            display(&args.output)
        )));
    }
    let request = SeqRequest {
        until_period: args.until_period,
        ..SeqRequest::new(args.game, args.count)
    };
    let c = compute(&request, args.quiet, db)?;
    let summary = &c.summary;
    let period = c.period.or(summary.period);
    let points = thin(c.count, size.0, |i| c.engine.get(i));
    let title = match period {
        Some(p) if p.saltus > 0 => format!(
            "{}: G(n) for n < {} — arithmetic period {} with saltus {} from n0 = {}",
            c.game.name(),
            c.count,
            p.period,
            p.saltus,
            p.n0
        ),
        Some(p) => format!(
            "{}: G(n) for n < {} — period {} from n0 = {}",
            c.game.name(),
            c.count,
            p.period,
            p.n0
        ),
        None => format!("{}: G(n) for n < {} — no period proven", c.game.name(), c.count),
    };
    let spec = Spec {
        title,
        count: c.count,
        max: summary.max,
        points,
        period: period.map(|p| (p.n0, p.period)),
    };
    let drawn = match format {
        Format::Png => draw(BitMapBackend::new(&args.output, size).into_drawing_area(), &spec),
        Format::Svg => draw(SVGBackend::new(&args.output, size).into_drawing_area(), &spec),
    };
    drawn.map_err(|e| CliError::Failure(anyhow::anyhow!("cannot draw {}: {e}", display(&args.output))))?;
    if let Format::Svg = format {
        embed_font(&args.output)?;
    }
    Ok(())
}

/// Why the picture may not be written at `path` (`None` when it may): a folder, a device, a
/// pipe or a socket never; an existing regular file only when it is a picture (PNG, or SVG
/// text), or with `force`.
fn refusal(path: &Path, force: bool) -> Option<&'static str> {
    let meta = std::fs::metadata(path).ok()?;
    if meta.is_dir() {
        return Some("it is a folder");
    }
    if !meta.is_file() {
        return Some("it is not a regular file (a device, a pipe or a socket)");
    }
    if force || meta.len() == 0 || is_picture(path) {
        return None;
    }
    Some("it is an existing file that is not a PNG or SVG picture (--force replaces it)")
}

/// Whether the file at `path` starts as a PNG or an SVG picture does.
fn is_picture(path: &Path) -> bool {
    use std::io::Read;
    let mut head = Vec::with_capacity(512);
    let read = std::fs::File::open(path).and_then(|f| f.take(512).read_to_end(&mut head));
    if read.is_err() {
        return false;
    }
    if head.starts_with(b"\x89PNG\r\n\x1a\n") {
        return true;
    }
    let text = String::from_utf8_lossy(&head);
    let text = text.trim_start_matches('\u{feff}').trim_start();
    (text.starts_with("<svg") || text.starts_with("<?xml")) && text.contains("<svg")
}

/// Makes an SVG carry its font: the text was laid out with the bundled DejaVu Sans, so the
/// file embeds it (`@font-face` with a data URL) instead of trusting the viewer's fonts.
fn embed_font(path: &Path) -> std::io::Result<()> {
    let svg = std::fs::read_to_string(path)?;
    let Some(start) = svg.find("<svg") else {
        return Ok(());
    };
    let Some(open_end) = svg[start..].find('>').map(|i| start + i + 1) else {
        return Ok(());
    };
    let style = format!(
        "<defs><style>@font-face{{font-family:\"{FAMILY}\";src:url(data:font/ttf;base64,{})}}</style></defs>",
        base64(FONT)
    );
    let body = svg[open_end..].replace(
        &format!("font-family=\"{FAMILY}\""),
        &format!("font-family=\"{FAMILY}, DejaVu Sans, sans-serif\""),
    );
    let out = format!("{}{}{}", &svg[..open_end], style, body);
    std::fs::write(path, out)?;
    Ok(())
}

/// Standard base64 with padding.
fn base64(bytes: &[u8]) -> String {
    const ALPHABET: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    let mut out = String::with_capacity(bytes.len().div_ceil(3) * 4);
    for chunk in bytes.chunks(3) {
        let b = [chunk[0], *chunk.get(1).unwrap_or(&0), *chunk.get(2).unwrap_or(&0)];
        let n = (b[0] as u32) << 16 | (b[1] as u32) << 8 | b[2] as u32;
        for i in 0..4 {
            if i <= chunk.len() {
                out.push(ALPHABET[(n >> (18 - 6 * i) & 63) as usize] as char);
            } else {
                out.push('=');
            }
        }
    }
    out
}

fn display(p: &Path) -> String {
    p.display().to_string()
}

/// At most a few points per pixel column: every distinct value seen in each column.
fn thin(count: u64, width: u32, get: impl Fn(u64) -> u64) -> Vec<(u64, u64)> {
    let columns = (width as u64 * 2).max(1);
    if count <= columns * 4 {
        return (0..count).map(|i| (i, get(i))).collect();
    }
    let mut out = Vec::new();
    let mut seen: Vec<u64> = Vec::new();
    let mut col_start = 0;
    for col in 0..columns {
        let end = ((col + 1) * count / columns).max(col_start);
        seen.clear();
        for i in col_start..end {
            let v = get(i);
            if !seen.contains(&v) {
                if seen.len() < 512 {
                    seen.push(v);
                }
                out.push((i, v));
            }
        }
        col_start = end;
    }
    out
}

struct Spec {
    title: String,
    count: u64,
    max: u64,
    points: Vec<(u64, u64)>,
    period: Option<(u64, u64)>,
}

type DrawResult = Result<(), Box<dyn std::error::Error>>;

fn draw<DB: DrawingBackend>(root: DrawingArea<DB, plotters::coord::Shift>, s: &Spec) -> DrawResult
where
    DB::ErrorType: 'static,
{
    // Registering twice is harmless; the font is valid (checked by a test).
    plotters::style::register_font(FAMILY, FontStyle::Normal, FONT)
        .map_err(|_| "the bundled font is invalid")?;
    root.fill(&WHITE)?;
    let x_max = s.count.max(2) as f64;
    let y_max = (s.max as f64 + 1.0).max(2.0);
    let mut chart = ChartBuilder::on(&root)
        .caption(&s.title, (FAMILY, 22))
        .margin(16)
        .x_label_area_size(50)
        .y_label_area_size(60)
        .build_cartesian_2d(0f64..x_max, -0.5f64..y_max)?;
    chart
        .configure_mesh()
        .x_desc("heap size n")
        .y_desc("G(n)")
        .label_style((FAMILY, 15))
        .axis_desc_style((FAMILY, 17))
        .x_label_formatter(&|v| format!("{}", *v as u64))
        .y_label_formatter(&|v| format!("{}", *v as i64))
        .light_line_style(WHITE.mix(0.0))
        .draw()?;
    let dot = BLUE.mix(0.6).filled();
    let radius = if s.points.len() > 20_000 { 1 } else { 2 };
    chart.draw_series(
        s.points
            .iter()
            .map(|&(n, v)| Circle::new((n as f64, v as f64), radius, dot)),
    )?;
    if let Some((n0, p)) = s.period {
        let red = RED.stroke_width(2);
        for (x, label) in [
            (n0, format!("n0 = {n0}")),
            (n0 + p, format!("n0 + p = {}", n0 + p)),
        ] {
            if (x as f64) <= x_max {
                chart
                    .draw_series(LineSeries::new([(x as f64, -0.5), (x as f64, y_max)], red))?
                    .label(label)
                    .legend(|(x, y)| PathElement::new([(x, y), (x + 20, y)], RED.stroke_width(2)));
            }
        }
        chart
            .configure_series_labels()
            .position(SeriesLabelPosition::UpperRight)
            .label_font((FAMILY, 15))
            .background_style(WHITE.mix(0.8))
            .border_style(BLACK)
            .draw()?;
    }
    root.present()?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn font_is_valid() {
        assert!(plotters::style::register_font(FAMILY, FontStyle::Normal, FONT).is_ok());
    }

    #[test]
    fn base64_matches_the_standard() {
        assert_eq!(base64(b""), "");
        assert_eq!(base64(b"f"), "Zg==");
        assert_eq!(base64(b"fo"), "Zm8=");
        assert_eq!(base64(b"foo"), "Zm9v");
        assert_eq!(base64(b"foobar"), "Zm9vYmFy");
    }

    #[test]
    fn thinning_keeps_every_value_of_every_column() {
        let pts = thin(1_000_000, 100, |i| i % 7);
        assert!(pts.len() <= 200 * 7);
        assert!(pts.len() >= 200 * 7 - 7);
    }
}
