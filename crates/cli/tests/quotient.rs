//! `grundy quotient` end to end: the table, `--json`, exit codes of bad codes and limits, and
//! misère solves of heap games through the quotient.

mod common;

use common::{no_db as grundy, stderr_of as stderr, stdout_of as stdout};
use std::process::Command;

#[test]
fn the_quotient_of_0_75() {
    let o = grundy(&["quotient", "0.75", "--heaps", "20"]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let out = stdout(&o);
    assert!(out.contains("order:        8"), "{out}");
    assert!(out.contains("P-portion:    {a, b^2}"), "{out}");
    assert!(
        out.contains("<a, b, c | a^2 = 1, b^3 = b, bc = ab, c^2 = b^2>"),
        "{out}"
    );
    let o = grundy(&["quotient", "0.75", "--heaps", "24", "--json"]);
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(v["order"], 8);
    assert_eq!(v["p_portion"], serde_json::json!(["a", "b^2"]));
    assert_eq!(v["heap_elements"].as_array().unwrap().len(), 25);
    assert_eq!(v["finite"], true);
}

#[test]
fn bad_codes_and_limits() {
    let o = grundy(&["quotient", "0.8", "--heaps", "10"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("column"), "{}", stderr(&o));
    let o = grundy(&["quotient", "0.75", "--heaps", "10", "--max-order", "3"]);
    assert_eq!(o.status.code(), Some(1));
    assert!(stderr(&o).contains("complete to heap"), "{}", stderr(&o));
    // Kayles past heap 8 (where old elements split): order 24 from heap 12 on.
    let o = grundy(&["quotient", "0.77", "--heaps", "14", "--json"]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(v["order"], 24);
    assert_eq!(v["stable_from"], 12);
    let o = grundy(&["quotient", "0.77", "--heaps", "14", "--max-order", "20"]);
    assert_eq!(o.status.code(), Some(1));
    assert!(stderr(&o).contains("complete to heap 11"), "{}", stderr(&o));
    let o = grundy(&["quotient", "0.75", "--heaps", "x"]);
    assert_eq!(o.status.code(), Some(2));
    // The states of one heap's search or check: a small limit stops Kayles with what it
    // proved and the flag that raises it; a limit of 0 is refused.
    let o = grundy(&["quotient", "0.77", "--heaps", "30", "--max-states", "50"]);
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
    assert!(stderr(&o).contains("--max-states"), "{}", stderr(&o));
    assert!(stderr(&o).contains("proven correct to heap"), "{}", stderr(&o));
    let o = grundy(&["quotient", "0.77", "--heaps", "14", "--max-states", "0"]);
    assert_eq!(o.status.code(), Some(2));
}

#[test]
fn misere_solves_agree_with_the_search() {
    for args in [
        ["0.75", "9", "12", "5"],
        ["0.75", "4", "4", "7"],
        ["0.77", "3", "9", "2"],
        ["0.77", "7", "9", "12"],
        ["0.07", "5", "11", "14"],
    ] {
        let mut a = vec!["solve"];
        a.extend(args);
        a.extend(["--misere", "--json"]);
        let by_quotient = grundy(&a);
        assert_eq!(by_quotient.status.code(), Some(0), "{}", stderr(&by_quotient));
        let searched = Command::new(env!("CARGO_BIN_EXE_grundy"))
            .env("GRUNDY_NO_QUOTIENT", "1")
            .arg("--no-db")
            .args(&a)
            .output()
            .unwrap();
        let q: serde_json::Value = serde_json::from_slice(&by_quotient.stdout).unwrap();
        let s: serde_json::Value = serde_json::from_slice(&searched.stdout).unwrap();
        assert_eq!(q["outcome"], s["outcome"], "{args:?}");
        assert_eq!(q["winning_moves"], s["winning_moves"], "{args:?}");
    }
}

/// `--game FILE` with a heap spec is the quotient of the code it reads as; a file of
/// another kind, or a code and a file together, is a usage error.
#[test]
fn a_heap_spec_file_is_its_code() {
    let examples = concat!(env!("CARGO_MANIFEST_DIR"), "/../../examples/games/");
    let spec = format!("{examples}kayles.toml");
    let by_file = grundy(&["quotient", "--game", &spec, "--heaps", "8", "--json"]);
    assert_eq!(by_file.status.code(), Some(0), "{}", stderr(&by_file));
    let by_code = grundy(&["quotient", "0.77", "--heaps", "8", "--json"]);
    assert_eq!(stdout(&by_file), stdout(&by_code));
    let wythoff = format!("{examples}wythoff.toml");
    let o = grundy(&["quotient", "--game", &wythoff, "--heaps", "8"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("is not a heap game"), "{}", stderr(&o));
    let o = grundy(&["quotient", "0.77", "--game", &spec, "--heaps", "8"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("not both"), "{}", stderr(&o));
}
