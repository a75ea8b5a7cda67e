//! `grundy seq GAME --count N`: the Grundy sequence G(0), ..., G(N−1) of a heap game, with
//! its summary (largest value, rare/common split, proven period), a progress bar, and
//! checkpoints to stop and resume long runs.

use anyhow::Context;
use grundy_app::store::{self as entries, SEQ_KEEP_MAX};
use grundy_cli::db::DbOptions;
use grundy_games::heap::HeapGame;
use grundy_solve::seq::checkpoint::{self, CheckpointWriter};
use grundy_solve::seq::{self, Period, SeqEngine, SeqError, StoreOptions, Summary, MAX_COUNT};
use std::io::Write;
use std::path::PathBuf;
use std::time::{Duration, Instant};

/// Arguments of `grundy seq`.
#[derive(clap::Args, Debug, Clone)]
pub struct SeqArgs {
    /// The game: an octal or hexadecimal code (0.77, 4.07, 0.F), grundys-game, sub:1,3,4 or
    /// sub-all-but:2,5.
    pub game: String,
    /// How many values: G(0) to G(N-1); with --until-period, the most to compute. Accepts
    /// 1000000, 1e6, 10^6, 2^21.
    #[arg(long, short = 'n', default_value = "1000")]
    pub count: String,
    /// Print the values, one per line, instead of the summary.
    #[arg(long)]
    pub values: bool,
    /// Print the summary as one JSON object (with --values, the values are in it too).
    #[arg(long)]
    pub json: bool,
    /// Keep computing until a period is proven (or --count values are computed).
    #[arg(long)]
    pub until_period: bool,
    /// Save the values to FILE at least once a second, to resume after a stop.
    #[arg(long, value_name = "FILE")]
    pub checkpoint: Option<PathBuf>,
    /// Continue from the checkpoint FILE (and keep saving to it, unless --checkpoint names
    /// another file).
    #[arg(long, value_name = "FILE")]
    pub resume: Option<PathBuf>,
    /// Keep values in memory up to this many MiB; beyond, in a memory-mapped scratch file.
    #[arg(long, value_name = "MIB", default_value_t = 8192)]
    pub memory_mib: u64,
    /// Folder for the scratch file of values that do not fit in memory.
    #[arg(long, value_name = "DIR")]
    pub scratch_dir: Option<PathBuf>,
    /// Threads to use (the rare/common method uses at most 2; default: the cores, up to 2).
    #[arg(long, short = 'j')]
    pub threads: Option<usize>,
    /// No progress bar, and no note when the values come from the store.
    #[arg(long, short = 'q')]
    pub quiet: bool,
    /// Compute every value by the rare/common method, even once the values prove a period
    /// (by default the rest is then copied from one period earlier). Values and output
    /// are the same; for checking a proof, and for timing the method itself.
    #[arg(long)]
    pub every_heap: bool,
}

/// How [`compute`] runs: threads, progress bar, period shortcut.
#[derive(Clone, Copy, Debug)]
pub struct HowToRun {
    /// Threads to use.
    pub threads: usize,
    /// No progress bar and no notes.
    pub quiet: bool,
    /// Compute every value, even once a period is proven.
    pub every_heap: bool,
}

/// The default thread count: the machine's cores, at most 2.
pub fn default_threads() -> usize {
    std::thread::available_parallelism()
        .map(|n| n.get())
        .unwrap_or(1)
        .min(2)
}

/// A bad input: printed as one line, exit code 2.
fn usage(msg: impl std::fmt::Display) -> anyhow::Result<i32> {
    eprintln!("error: {msg}");
    Ok(2)
}

/// Reads a count: digits (underscores allowed), `1e6`, `10^6` or `2^21`.
pub fn parse_count(text: &str) -> Result<u64, String> {
    let t = text.trim().replace('_', "");
    let bad = || format!("invalid count '{text}' (expected a number like 1000, 1e6 or 2^21)");
    let value: Option<u128> = if let Some((b, e)) = t.split_once('^') {
        let b: u128 = b.parse().map_err(|_| bad())?;
        let e: u32 = e.parse().map_err(|_| bad())?;
        if e > 64 {
            None
        } else {
            b.checked_pow(e)
        }
    } else if let Some((m, e)) = t.split_once(['e', 'E']) {
        let m: u128 = m.parse().map_err(|_| bad())?;
        let e: u32 = e.parse().map_err(|_| bad())?;
        if e > 30 {
            None
        } else {
            m.checked_mul(10u128.pow(e))
        }
    } else {
        if t.is_empty() || !t.bytes().all(|b| b.is_ascii_digit()) {
            return Err(bad());
        }
        t.parse::<u128>().ok()
    };
    match value {
        Some(v) if v <= MAX_COUNT as u128 => Ok(v as u64),
        _ => Err(format!(
            "count '{text}' is too large (at most 2^32 = {MAX_COUNT})"
        )),
    }
}

/// Lengths at which `--until-period` looks for a proof: fixed, so a resumed run stops
/// exactly where an uninterrupted one does.
fn check_points(limit: u64) -> impl Iterator<Item = u64> {
    let mut next = 256u64;
    std::iter::from_fn(move || {
        if next >= limit {
            if next == u64::MAX {
                return None;
            }
            next = u64::MAX;
            return Some(limit);
        }
        let here = next;
        next = (next + next / 4).max(next + 1);
        Some(here)
    })
}

/// The result of computing a sequence: the engine and how many of its values count.
pub struct Computed {
    /// The game.
    pub game: HeapGame,
    /// The engine holding the values.
    pub engine: SeqEngine,
    /// Number of values reported (G(0) .. G(count − 1)).
    pub count: u64,
    /// The proven period, when --until-period found one.
    pub period: Option<Period>,
}

/// Computes what `grundy seq` (and `grundy plot`) show. `Ok(Err(message))` is a bad input.
///
/// With a store (`db`), values kept by an earlier run of the same game seed the engine, as a
/// checkpoint would (not with `--resume`, whose file is the seed): a count no larger than
/// the kept one is answered without computing, a larger one continues from the kept values.
/// Afterwards the values are kept (the first [`SEQ_KEEP_MAX`]) when they are more than the
/// store had.
#[allow(clippy::too_many_arguments)]
pub fn compute(
    game_text: &str,
    count_text: &str,
    until_period: bool,
    checkpoint_path: Option<PathBuf>,
    resume_path: Option<PathBuf>,
    store: StoreOptions,
    how: HowToRun,
    db: &DbOptions,
) -> anyhow::Result<Result<Computed, String>> {
    let HowToRun {
        threads,
        quiet,
        every_heap,
    } = how;
    let game = match HeapGame::parse(game_text) {
        Ok(g) => g,
        Err(e) => {
            return Ok(Err(format!(
                "invalid game '{}': column {}: {}",
                grundy_core::parse::shorten(game_text),
                e.span.column,
                e.message
            )))
        }
    };
    let count = match parse_count(count_text) {
        Ok(c) => c,
        Err(e) => return Ok(Err(e)),
    };
    let rules = game.rules().clone();
    let db = db.open_cache();
    let kept = db.as_ref().and_then(|s| entries::load_seq(s, game.name()));
    let kept_len = kept.as_ref().map_or(0, |k| k.len());
    let (mut engine, saved) = match &resume_path {
        Some(path) => match checkpoint::resume_saved(path, game.name(), &rules, count, store) {
            Ok((e, saved)) => (e, Some(saved)),
            Err(e @ SeqError::Checkpoint { .. }) => return Ok(Err(e.to_string())),
            Err(e) => return Err(e.into()),
        },
        None => match &kept {
            Some(k) if count > 0 && !k.is_empty() => {
                let n = k.len().min(count);
                let e = SeqEngine::resume(&rules, count, store, k.values().take(n as usize), k.width())?;
                if !quiet {
                    eprintln!("grundy: G(0) .. G({}) of {} from the store", n - 1, game.name());
                }
                (e, None)
            }
            _ => (SeqEngine::new(&rules, count, store)?, None),
        },
    };
    drop(kept);
    engine.set_threads(threads);
    engine.use_period(!every_heap);
    let save_to = checkpoint_path.or(resume_path.clone());
    let mut writer = match &save_to {
        Some(p) if resume_path.as_ref() == Some(p) => match &saved {
            // Continue the same file, appending.
            Some(saved) => Some(CheckpointWriter::reopen(p, saved)?),
            None => Some(CheckpointWriter::create(p, game.name(), &engine)?),
        },
        Some(p) => Some(
            CheckpointWriter::create(p, game.name(), &engine)
                .with_context(|| format!("cannot write checkpoint {}", p.display()))?,
        ),
        None => None,
    };

    let bar = if quiet {
        indicatif::ProgressBar::hidden()
    } else {
        let b = indicatif::ProgressBar::with_draw_target(
            Some(count),
            indicatif::ProgressDrawTarget::stderr_with_hz(4),
        );
        b.set_style(
            indicatif::ProgressStyle::with_template(
                "{spinner} {msg} [{bar:30}] {human_pos}/{human_len} {rate} ETA {eta}",
            )
            .unwrap_or_else(|_| indicatif::ProgressStyle::default_bar())
            .with_key(
                "rate",
                |state: &indicatif::ProgressState, w: &mut dyn std::fmt::Write| {
                    let _ = write!(w, "{:.0} heaps/s", state.per_sec());
                },
            )
            .progress_chars("=> "),
        );
        b.set_message(game.name().to_string());
        b
    };
    bar.set_position(engine.len().min(count));

    let mut checks = check_points(count).peekable();
    let mut period = None;
    let mut chunk: u64 = 1024;
    let mut last_save = Instant::now();
    let target = Duration::from_millis(150);
    loop {
        // Period checks at fixed lengths already reached.
        if until_period {
            while let Some(&at) = checks.peek() {
                if at > engine.len() {
                    break;
                }
                checks.next();
                if let Some(p) = engine.period_of(at as usize) {
                    period = Some((p, at));
                    break;
                }
            }
            if period.is_some() {
                break;
            }
        }
        if engine.len() >= count {
            break;
        }
        let mut stop = count;
        if until_period {
            if let Some(&at) = checks.peek() {
                stop = stop.min(at);
            }
        }
        let to = (engine.len() + chunk).min(stop);
        let started = Instant::now();
        engine.compute_to(to)?;
        let took = started.elapsed();
        chunk = if took < target / 2 {
            chunk.saturating_mul(2)
        } else if took > target * 2 {
            (chunk / 2).max(1)
        } else {
            chunk
        };
        bar.set_position(engine.len().min(count));
        if let (Some(w), Some(p)) = (&mut writer, &save_to) {
            if last_save.elapsed() >= Duration::from_millis(500) || engine.len() >= count {
                if !w.save(&engine)? {
                    *w = CheckpointWriter::create(p, game.name(), &engine)?;
                }
                last_save = Instant::now();
            }
        }
    }
    if let (Some(w), Some(p)) = (&mut writer, &save_to) {
        if !w.save(&engine)? {
            *w = CheckpointWriter::create(p, game.name(), &engine)?;
        }
    }
    bar.finish_and_clear();
    if let Some(s) = &db {
        let n = engine.len().min(SEQ_KEEP_MAX);
        if n > kept_len {
            entries::save_seq(s, game.name(), engine.width(), &engine.bytes(0, n));
        }
    }
    let (count, period) = match period {
        Some((p, at)) => (at, Some(p)),
        None => (count.min(engine.len()), None),
    };
    Ok(Ok(Computed {
        game,
        engine,
        count,
        period,
    }))
}

/// Runs `grundy seq`; returns the exit code (2 for bad input).
pub fn run(args: SeqArgs, db: &DbOptions) -> anyhow::Result<i32> {
    let store = StoreOptions {
        memory_limit: args.memory_mib.saturating_mul(1 << 20),
        scratch_dir: args.scratch_dir.clone(),
    };
    let c = match compute(
        &args.game,
        &args.count,
        args.until_period,
        args.checkpoint.clone(),
        args.resume.clone(),
        store,
        HowToRun {
            threads: args.threads.unwrap_or_else(default_threads),
            quiet: args.quiet,
            every_heap: args.every_heap,
        },
        db,
    )? {
        Ok(c) => c,
        Err(msg) => return usage(msg),
    };
    let summary = c.engine.summary_of(c.count as usize);
    let stdout = std::io::stdout();
    let mut out = std::io::BufWriter::with_capacity(1 << 16, stdout.lock());
    if args.json {
        let mut obj = summary_json(&c, &summary);
        if args.values {
            obj["values"] = (0..c.count).map(|i| c.engine.get(i)).collect();
        }
        writeln!(out, "{obj}")?;
    } else if args.values {
        for i in 0..c.count {
            writeln!(out, "{}", c.engine.get(i))?;
        }
    } else {
        write_summary(&mut out, &c, &summary)?;
    }
    out.flush()?;
    Ok(0)
}

fn list(v: &[u64]) -> String {
    let shown: Vec<String> = v.iter().take(40).map(|x| x.to_string()).collect();
    let more = if v.len() > 40 {
        format!(", … ({} in all)", v.len())
    } else {
        String::new()
    };
    format!("{{{}{more}}}", shown.join(", "))
}

fn write_summary(out: &mut impl Write, c: &Computed, s: &Summary) -> std::io::Result<()> {
    if s.count == 0 {
        return writeln!(out, "{}: no values (count 0)", c.game.name());
    }
    writeln!(
        out,
        "{}: G(0) .. G({}) ({} values, {})",
        c.game.name(),
        s.count - 1,
        s.count,
        seq::method_name(c.engine.rules())
    )?;
    writeln!(out, "largest value {}, first at heap {}", s.max, s.first_max_at)?;
    match (&s.common, &s.rare, s.rare_count) {
        (Some(common), Some(rare), Some(rc)) => writeln!(
            out,
            "common values {} ; rare values {} on {} of {} heaps",
            list(common),
            list(rare),
            rc,
            s.count
        )?,
        _ => writeln!(
            out,
            "rare/common split not computed (more than {} distinct values)",
            seq::SPLIT_MAX_VALUES
        )?,
    }
    match &s.period {
        Some(p) if p.saltus > 0 => writeln!(
            out,
            "arithmetic period {} with saltus {} from n0 = {}, proven: G(n+{}) = G(n) + {} for {} <= n < {} and the values below n0 + p are 0..{} and those below n0 shifted by {}",
            p.period, p.saltus, p.n0, p.period, p.saltus, p.n0, p.checked_to, p.saltus - 1, p.saltus
        ),
        Some(p) => writeln!(
            out,
            "period {} from n0 = {} ({}), proven: G(n+{}) = G(n) for {} <= n < {}",
            p.period,
            p.n0,
            match p.n0 {
                0 => "purely periodic".to_string(),
                n => format!("last exception at heap {}", n - 1),
            },
            p.period,
            p.n0,
            p.checked_to
        ),
        None => match seq::period::theorem(c.engine.rules()) {
            Some(_) => writeln!(out, "no period proven up to {}", s.count),
            None if matches!(c.engine.rules(), grundy_core::HeapRules::AllBut(_)) => {
                writeln!(out, "no period proven up to {}", s.count)
            }
            None => writeln!(
                out,
                "no period proven up to {} (no periodicity theorem applies to this game)",
                s.count
            ),
        },
    }
}

fn summary_json(c: &Computed, s: &Summary) -> serde_json::Value {
    serde_json::json!({
        "game": c.game.name(),
        "count": s.count,
        "max": s.max,
        "first_max_at": if s.count == 0 { None } else { Some(s.first_max_at) },
        "period": s.period.map(|p| p.period),
        "n0": s.period.map(|p| p.n0),
        "checked_to": s.period.map(|p| p.checked_to),
        "saltus": s.period.map(|p| p.saltus),
        "common": s.common,
        "rare": s.rare,
        "rare_count": s.rare_count,
        "method": seq::method_name(c.engine.rules()),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counts() {
        assert_eq!(parse_count("1000"), Ok(1000));
        assert_eq!(parse_count("1_000"), Ok(1000));
        assert_eq!(parse_count("1e6"), Ok(1_000_000));
        assert_eq!(parse_count("10^6"), Ok(1_000_000));
        assert_eq!(parse_count("2^21"), Ok(1 << 21));
        assert_eq!(parse_count("2^32"), Ok(1 << 32));
        assert!(parse_count("2^33").is_err());
        assert!(parse_count("-5").is_err());
        assert!(parse_count("").is_err());
        assert!(parse_count("99999999999999999999999999999").is_err());
        assert!(parse_count("1e99").is_err());
    }

    #[test]
    fn check_points_are_fixed() {
        let v: Vec<u64> = check_points(1000).collect();
        assert_eq!(v, vec![256, 320, 400, 500, 625, 781, 976, 1000]);
    }
}
