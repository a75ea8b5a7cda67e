//! The server's use of the persistent store: tables are kept as dense arrays, and solves
//! that took a while as their answers, so asking again is answered at once. Entries written
//! by another version are not used; a store that fails is worked around, never fatal.

use crate::api::{self, ApiError, Limits, SolveRequest, SolveResponse, TableRequest, TableResponse};
use grundy_store::{NewEntry, Store, NONE};
use std::time::{Duration, Instant};

/// Solves that take at least this long are kept in the store.
pub const KEEP_AFTER: Duration = Duration::from_millis(20);

/// [`api::solve`], answered from the store when it holds the request; answers that took
/// [`KEEP_AFTER`] or more are kept.
pub fn solve(store: Option<&Store>, req: &SolveRequest, limits: &Limits) -> Result<SolveResponse, ApiError> {
    solve_keeping(store, req, limits, KEEP_AFTER)
}

/// [`solve`], keeping answers that took `keep_after` or more (`Duration::ZERO`: all).
pub fn solve_keeping(
    store: Option<&Store>,
    req: &SolveRequest,
    limits: &Limits,
    keep_after: Duration,
) -> Result<SolveResponse, ApiError> {
    let Some(store) = store else {
        return api::solve(req, limits);
    };
    let key = format!("web-solve/{}", serde_json::to_string(req).unwrap_or_default());
    if let Ok(Some((info, bytes))) = store.get(&key) {
        if info.writer == store.writer() {
            if let Ok(r) = serde_json::from_slice(&bytes) {
                return Ok(r);
            }
        }
    }
    let t = Instant::now();
    let r = api::solve(req, limits)?;
    if t.elapsed() >= keep_after {
        if let Ok(bytes) = serde_json::to_vec(&r) {
            let summary = format!(
                "{} {}: {} player wins",
                r.family,
                r.position.chars().take(40).collect::<String>(),
                r.outcome.as_str()
            );
            let entry = NewEntry {
                key: &key,
                kind: "analysis",
                family: &r.family,
                summary: &summary,
            };
            let _ = store.put(&entry, &bytes);
        }
    }
    Ok(r)
}

/// [`api::table`], with the values kept in the store as a dense array (row by row, [`NONE`]
/// where a value is undefined).
pub fn table(store: Option<&Store>, req: &TableRequest, limits: &Limits) -> Result<TableResponse, ApiError> {
    api::check_table_size(req.size, limits)?;
    let layout = api::table_layout(&req.family)?;
    let Some(store) = store else {
        return Ok(api::table_response(
            &layout,
            api::table_values(&layout, req.size, limits)?,
        ));
    };
    // Keyed by the side computed, so a capped table (Cram, Chomp) is found again.
    let n = layout.side(req.size);
    let width = n;
    let height = if layout.kind == grundy_games::family::TableKind::Grid {
        n
    } else {
        1
    };
    let key = format!("table/{}/{n}", layout.family);
    if let Ok(Some((info, values))) = store.get_values(&key) {
        if info.writer == store.writer() && values.len() == width * height {
            let rows = values
                .chunks(width)
                .map(|row| row.iter().map(|&v| (v != NONE).then_some(v)).collect())
                .collect();
            return Ok(api::table_response(&layout, rows));
        }
    }
    let rows = api::table_values(&layout, n, limits)?;
    let flat: Vec<u64> = rows.iter().flatten().map(|v| v.unwrap_or(NONE)).collect();
    let summary = format!("{} {}, {height}x{width}", layout.family, layout.kind.as_str());
    let entry = NewEntry {
        key: &key,
        kind: "table",
        family: &layout.family,
        summary: &summary,
    };
    let _ = store.put_values(&entry, &flat);
    Ok(api::table_response(&layout, rows))
}
