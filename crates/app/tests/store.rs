//! The application layer's use of the store: tables kept as dense arrays, answers kept and
//! read back (what is served is what is stored), answers quicker than the front end's
//! threshold not kept.

use grundy_app::solve::{solve_with, Limits, SolveOptions, SolveRequest};
use grundy_app::table::{table_kept, TableRequest};
use grundy_store::{NewEntry, Store, NONE};
use std::time::Duration;

fn store(name: &str) -> Store {
    let dir = std::env::temp_dir().join(format!("grundy-web-cache-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    Store::open(&dir.join("store.redb"), "web-test").unwrap()
}

/// Stores `values` with `values[index]` changed to `v` under the table key `key`, so a test
/// can see that what is served is what is stored.
fn doctor(s: &Store, key: &str, family: &str, values: &[u64], index: usize, v: u64) {
    let mut doctored = values.to_vec();
    doctored[index] = v;
    let entry = NewEntry {
        key,
        kind: "table",
        family,
        summary: "",
    };
    s.put_values(&entry, &doctored).unwrap();
}

#[test]
fn tables_are_kept_as_dense_arrays_and_read_back() {
    let s = store("tables");
    let limits = Limits::default();
    let req = TableRequest {
        family: "cutting".into(),
        size: 8,
        game: None,
    };
    let computed = table_kept(Some(&s), &req, &limits).unwrap();
    let (info, values) = s.get_values("table/cutting/8").unwrap().expect("kept");
    assert_eq!((info.kind.as_str(), values.len()), ("table", 64));
    assert_eq!(values[0], NONE, "1x1 has no value");
    assert_eq!(values[8 + 1], 0, "G(2,2) = 0");
    assert_eq!(table_kept(Some(&s), &req, &limits).unwrap(), computed);
    // What is read back is what is stored: doctor the array and see it served.
    doctor(&s, "table/cutting/8", "cutting", &values, 8 + 1, 77);
    assert_eq!(
        table_kept(Some(&s), &req, &limits).unwrap().values[1][1],
        Some(77)
    );
    // A sequence, and no store at all.
    let nim = TableRequest {
        family: "nim".into(),
        size: 6,
        game: None,
    };
    assert_eq!(
        table_kept(Some(&s), &nim, &limits).unwrap().values,
        vec![(0..6).map(Some).collect::<Vec<_>>()]
    );
    assert_eq!(table_kept(None, &nim, &limits).unwrap().values[0][5], Some(5));
}

fn kept(store: &Store, keep_after: Duration) -> SolveOptions<'_> {
    SolveOptions {
        store: Some(store),
        keep_after,
        ..SolveOptions::default()
    }
}

#[test]
fn answers_are_kept_and_read_back() {
    let s = store("solves");
    let limits = Limits::default();
    let req = SolveRequest {
        family: "graph".into(),
        board: Some("grid:3x3".into()),
        remoteness: true,
        ..SolveRequest::default()
    };
    let first = solve_with(&req, &limits, kept(&s, Duration::ZERO)).unwrap();
    let entries = s.list().unwrap();
    assert_eq!(entries.len(), 1);
    let key = entries[0].key.clone();
    assert!(
        key.starts_with("analysis/graph/normal/remoteness/grid:3x3/"),
        "{key}"
    );
    assert_eq!(
        solve_with(&req, &limits, kept(&s, Duration::ZERO)).unwrap(),
        first
    );
    // What is served is what is stored: doctor the answer and see it served.
    let (info, bytes) = s.get(&key).unwrap().unwrap();
    let mut doctored: serde_json::Value = serde_json::from_slice(&bytes).unwrap();
    doctored["remoteness"] = 77.into();
    let entry = NewEntry {
        key: &key,
        kind: &info.kind,
        family: &info.family,
        summary: &info.summary,
    };
    s.put(&entry, &serde_json::to_vec(&doctored).unwrap()).unwrap();
    let again = solve_with(&req, &limits, kept(&s, Duration::ZERO)).unwrap();
    assert_eq!(again.remoteness, Some(77));
    // The same request without the store computes it again.
    assert_eq!(solve_with(&req, &limits, SolveOptions::default()).unwrap(), first);
}

#[test]
fn answers_quicker_than_the_threshold_are_not_kept() {
    let s = store("quick");
    let quick = SolveRequest {
        family: "nim".into(),
        position: "1 2".into(),
        ..SolveRequest::default()
    };
    let limits = Limits::default();
    solve_with(&quick, &limits, kept(&s, Duration::from_secs(3600))).unwrap();
    assert!(s.list().unwrap().is_empty());
    solve_with(&quick, &limits, kept(&s, Duration::ZERO)).unwrap();
    assert_eq!(s.list().unwrap().len(), 1);
}

#[test]
fn capped_tables_are_kept_under_the_side_computed_and_read_back() {
    // Chomp tables stop at 8x8 whatever the size asked: the store keeps the 8x8 array and a
    // second request (of another size past the cap) is served from it.
    let s = store("capped");
    let limits = Limits::default();
    let ask = |size| TableRequest {
        family: "chomp".into(),
        size,
        game: None,
    };
    let computed = table_kept(Some(&s), &ask(20), &limits).unwrap();
    assert_eq!(computed.values.len(), 8);
    let (_, values) = s
        .get_values("table/chomp/8")
        .unwrap()
        .expect("kept under its side");
    assert_eq!(values.len(), 64);
    doctor(&s, "table/chomp/8", "chomp", &values, 1, 77);
    assert_eq!(
        table_kept(Some(&s), &ask(30), &limits).unwrap().values[0][1],
        Some(77)
    );
}
