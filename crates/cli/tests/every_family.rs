//! Every registered family, without naming any: its example position solved by the
//! command line (`grundy solve --json --all-moves`) and by the web API's solve, under each
//! convention it supports, must give the same answer, move by move; a family with a table
//! answers `/api/table`. A new family is covered by this test as soon as it is registered.

mod common;

use common::grundy;
use grundy_app::solve::{self as api, Limits, SolveRequest};
use grundy_app::table::{table, TableRequest};
use grundy_games::family::Description;
use grundy_games::registry::DESCRIPTIONS;
use serde_json::Value;

/// Every registered family by a name it answers to: its name, or for a family named by
/// codes, each of its named games.
fn names(d: &Description) -> Vec<&'static str> {
    match d.code {
        None => vec![d.name],
        Some(_) => d.presets.iter().map(|p| p.0).collect(),
    }
}

/// The command line's answer for `name` and `position`, as JSON.
fn cli(name: &str, position: &str, misere: bool, whole_file: bool) -> Value {
    let dir = std::env::temp_dir().join(format!("grundy-every-family-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let mut args = vec!["--no-db", "solve", name];
    // A family whose position is a whole file takes its path.
    let path = dir.join(format!("{}.txt", name.replace([':', ','], "_")));
    let path_text = path.to_str().unwrap().to_string();
    if whole_file {
        std::fs::write(&path, position).unwrap();
        args.push(&path_text);
    } else {
        args.push(position);
    }
    args.extend(["--json", "--all-moves"]);
    if misere {
        args.push("--misere");
    }
    let r = grundy(&args, "");
    assert_eq!(r.code, 0, "grundy {args:?}: {}", r.stderr);
    serde_json::from_str(&r.stdout).expect("JSON")
}

#[test]
fn cli_and_web_answer_alike_for_every_family() {
    let mut checked = 0;
    for d in DESCRIPTIONS {
        for name in names(d) {
            let conventions: &[bool] = if d.misere { &[false, true] } else { &[false] };
            for &misere in conventions {
                let whole_file = d.continues_as.is_some();
                let c = cli(name, d.example, misere, whole_file);
                let req = SolveRequest {
                    family: name.to_string(),
                    position: d.example.to_string(),
                    misere,
                    ..SolveRequest::default()
                };
                let w = api::solve(&req, &Limits::default()).unwrap_or_else(|e| panic!("{name}: {e}"));
                let w = serde_json::to_value(&w).unwrap();
                let what = format!("{name} {:?} misere={misere}", d.example);
                for field in [
                    "family",
                    "position",
                    "convention",
                    "grundy",
                    "outcome",
                    "winning_moves",
                ] {
                    assert_eq!(c[field], w[field], "{what}: {field}");
                }
                let moves = |v: &Value| -> Vec<(Value, Value, Value)> {
                    let mut m: Vec<_> = v["moves"]
                        .as_array()
                        .unwrap()
                        .iter()
                        .map(|m| (m["move"].clone(), m["grundy"].clone(), m["outcome"].clone()))
                        .collect();
                    m.sort_by_key(|t| t.0.to_string());
                    m
                };
                assert_eq!(moves(&c), moves(&w), "{what}: moves");
                assert!(!moves(&c).is_empty(), "{what}: the example has moves");
                // The page draws the position from its structure, never from its text.
                assert!(w["board"]["kind"].is_string(), "{what}: board {}", w["board"]);
                checked += 1;
            }
            if d.table.is_some() {
                let t = table(
                    &TableRequest {
                        family: name.to_string(),
                        size: 3,
                        game: None,
                    },
                    &Limits::default(),
                )
                .unwrap_or_else(|e| panic!("{name} table: {e}"));
                assert!(
                    t.values.iter().flatten().any(|v| v.is_some()),
                    "{name}: table {t:?}"
                );
            }
        }
    }
    assert!(checked >= DESCRIPTIONS.len(), "{checked} answers compared");
}

#[test]
fn unknown_family_is_a_usage_error_and_a_404() {
    let r = grundy(&["solve", "no-such-family", "1"], "");
    common::assert_usage_error(&r, "unknown family 'no-such-family'");
    let req = SolveRequest {
        family: "no-such-family".into(),
        position: "1".into(),
        ..SolveRequest::default()
    };
    let e = api::solve(&req, &Limits::default()).unwrap_err();
    assert_eq!(grundy_web::status_of(e.kind), 404);
    assert_eq!(r.stderr.trim_end(), format!("grundy: {}", e.message));
}
