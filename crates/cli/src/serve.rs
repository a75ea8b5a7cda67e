//! `grundy serve`: the web explorer and its JSON API (crate `grundy-web`, docs/api.md).

use crate::db::DbOptions;
use crate::error::{usage, CliError};
use grundy_app::solve::Limits;
use grundy_web::{ServerConfig, DEFAULT_ADDR};
use std::time::Duration;

/// Arguments of `grundy serve`.
#[derive(clap::Args, Debug)]
#[command(
    after_help = "Open the printed address in a browser. The JSON API is described in docs/api.md \
    and at /api/openapi.json. Examples:\n  \
    grundy serve\n  \
    grundy serve --addr 127.0.0.1:9000 --timeout 5"
)]
pub struct ServeArgs {
    /// Address and port to listen on.
    #[arg(long, value_name = "HOST:PORT", default_value = DEFAULT_ADDR)]
    pub addr: String,
    /// Give up on a request (HTTP 422) once its search has stored this many positions.
    #[arg(long, value_name = "N", default_value_t = 2_000_000, value_parser = crate::numbers::max_positions)]
    pub max_positions: usize,
    /// Refuse positions with more moves than this (HTTP 422).
    #[arg(long, value_name = "N", default_value_t = 5_000, value_parser = crate::numbers::max_moves)]
    pub max_moves: u64,
    /// Answer HTTP 504 when a solve takes longer than this many seconds.
    #[arg(long, value_name = "SECONDS", default_value_t = 10.0)]
    pub timeout: f64,
    /// Most quick solves running at once, 1 to 512 (others wait, then get HTTP 429).
    #[arg(long, value_name = "N", default_value_t = 4, value_parser = crate::numbers::lane)]
    pub max_concurrent: usize,
    /// Most slow solves running at once (those that outgrow the quick lane: more than 50000
    /// stored positions or 0.2 s), 1 to 512.
    #[arg(long, value_name = "N", default_value_t = 2, value_parser = crate::numbers::lane)]
    pub max_slow: usize,
}

/// The longest `--timeout` accepted, in seconds.
pub const MAX_TIMEOUT_SECS: f64 = 86_400.0;

/// Runs `grundy serve` until Ctrl-C.
pub fn run(args: ServeArgs, db: &DbOptions) -> Result<(), CliError> {
    let addr = args.addr.parse().map_err(|e| {
        let why = crate::numbers::port_problem(&args.addr).unwrap_or_else(|| format!("{e}"));
        usage(format!(
            "bad --addr '{}': {why} (expected HOST:PORT, e.g. {DEFAULT_ADDR})",
            args.addr
        ))
    })?;
    // A day is far beyond any solve a page waits for, and keeps every deadline computed
    // from it (twice the timeout, for uploads) within what a clock can hold.
    if !(args.timeout.is_finite() && args.timeout > 0.0 && args.timeout <= MAX_TIMEOUT_SECS) {
        return Err(usage(format!(
            "--timeout must be a number of seconds above 0 and at most {MAX_TIMEOUT_SECS} (a day), found {}",
            args.timeout
        )));
    }
    // Every solve running at once gets an equal share of what the budget leaves free now,
    // so together they stay within it; a request that outgrows its share gets 422.
    let budget = grundy_core::memory::budget_or_default();
    let solves = (args.max_concurrent.max(1) + args.max_slow.max(1)) as u64;
    let free = budget.saturating_sub(grundy_core::memory::in_use() as u64);
    let share = free / solves;
    let config = ServerConfig {
        addr,
        limits: Limits {
            max_positions: args.max_positions,
            max_moves: args.max_moves,
            memory: Some(share),
            ..Limits::default()
        },
        timeout: Duration::from_secs_f64(args.timeout),
        max_concurrent: args.max_concurrent.max(1),
        max_slow: args.max_slow.max(1),
        store: db.open_cache().map(std::sync::Arc::new),
        ..ServerConfig::default()
    };
    grundy_web::serve_blocking(config)
        .map_err(|e| CliError::Failure(anyhow::anyhow!("cannot serve on {addr}: {e}")))
}
