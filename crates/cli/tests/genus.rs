//! `grundy seq CODE --misere` (genus sequences) and `grundy solve ... --misere --genus`,
//! end to end: published genera (tests/data/genus-published.tsv), the JSON and value
//! outputs, proven periods, and bad input.

mod common;

use common::{grundy, reference};

/// Expands a genus as the sources print it (see the notes in genus-published.tsv) into
/// `[g, g0, g1, ..., g11]`.
fn expand(text: &str) -> Vec<u64> {
    const TERMS: usize = 12;
    let (g, sup) = match text.split_once('^') {
        None => {
            let v: u64 = text.parse().expect("a number");
            let sup = match v {
                0 => vec![1, 2, 0],
                1 => vec![0, 3, 1],
                v => vec![v, v ^ 2],
            };
            (v, sup)
        }
        Some((g, s)) => {
            let g: u64 = g.parse().expect("a number");
            let sup: Vec<u64> = if let Some(inner) = s.strip_prefix('(') {
                inner
                    .trim_end_matches(')')
                    .split(',')
                    .map(|t| t.parse().expect("a term"))
                    .collect()
            } else {
                s.chars()
                    .map(|c| c.to_digit(10).expect("a digit") as u64)
                    .collect()
            };
            let sup = if sup.len() == 1 {
                assert_eq!(sup[0], g, "one-term genus {text} recorded only where d = g");
                vec![sup[0], sup[0] ^ 2]
            } else {
                sup
            };
            (g, sup)
        }
    };
    let l = sup.len();
    let mut out = vec![g];
    out.extend((0..TERMS).map(|k| if k < l { sup[k] } else { sup[l - 2 + (k - l) % 2] }));
    out
}

/// Our genus list `[g, g0, ...]` (last two terms repeating) expanded the same way.
fn expand_ours(list: &[u64]) -> Vec<u64> {
    let g = list[0];
    let sup = &list[1..];
    let l = sup.len();
    let mut out = vec![g];
    out.extend((0..12).map(|k| if k < l { sup[k] } else { sup[l - 2 + (k - l) % 2] }));
    out
}

fn json(args: &[&str]) -> serde_json::Value {
    let o = grundy(args, "");
    assert_eq!(o.code, 0, "{args:?}: {}", o.stderr);
    serde_json::from_str(&o.stdout).expect("one JSON object")
}

#[test]
fn published_genera_are_reproduced() {
    let text = std::fs::read_to_string(reference("genus-published.tsv")).expect("the fixture");
    let mut rows = 0;
    let mut heaps = 0;
    for line in text
        .lines()
        .filter(|l| !l.starts_with('#') && !l.trim().is_empty())
    {
        let cols: Vec<&str> = line.split('\t').collect();
        assert_eq!(cols.len(), 4, "{line}");
        let (code, first, genera) = (cols[0], cols[1].parse::<usize>().unwrap(), cols[2]);
        let want: Vec<&str> = genera.split(' ').collect();
        let count = (first + want.len()).to_string();
        let out = json(&["seq", code, "--misere", "--json", "-q", "--count", &count]);
        let got = out["genus"].as_array().expect("genus lists");
        for (i, w) in want.iter().enumerate() {
            let list: Vec<u64> = got[first + i]
                .as_array()
                .unwrap()
                .iter()
                .map(|v| v.as_u64().unwrap())
                .collect();
            assert_eq!(
                expand_ours(&list),
                expand(w),
                "{code} heap {}: published {w}, computed {}",
                first + i,
                out["notation"][first + i]
            );
            heaps += 1;
        }
        rows += 1;
    }
    assert!(rows >= 8 && heaps >= 110, "{rows} rows, {heaps} heaps");
}

#[test]
fn json_marks_tame_and_wild_heaps() {
    let out = json(&["seq", "0.77", "--misere", "--json", "-q", "--count", "12"]);
    assert_eq!(out["convention"], "misere");
    assert_eq!(out["count"], 12);
    assert_eq!(out["first_wild"], 5);
    let tame: Vec<bool> = out["tame"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v.as_bool().unwrap())
        .collect();
    assert_eq!(&tame[..6], &[true, true, true, true, true, false]);
    assert_eq!(out["notation"][5], "4^146");
    assert_eq!(out["genus"][0], serde_json::json!([0, 1, 2, 0]));
    // Kayles splits heaps: no theorem, no period.
    assert_eq!(out["period"], serde_json::Value::Null);
    assert_eq!(out["theorem"], serde_json::Value::Null);
}

#[test]
fn subtraction_periods_are_proven_and_hold_further() {
    for set in ["sub:1,2", "sub:2,3,7", "sub:1,3,4", "sub:2,5,6", "sub:3,4,9"] {
        let short = json(&["seq", set, "--misere", "--json", "-q", "--count", "300"]);
        let p = short["period"]
            .as_u64()
            .unwrap_or_else(|| panic!("{set}: no period in 300"));
        let n0 = short["n0"].as_u64().unwrap();
        assert!(short["theorem"].is_string());
        // Computing much further never contradicts the proof.
        let long = json(&["seq", set, "--misere", "--json", "-q", "--count", "5000"]);
        let g = long["genus"].as_array().unwrap();
        let t = long["tame"].as_array().unwrap();
        for n in n0 as usize..5000 - p as usize {
            assert_eq!(
                g[n],
                g[n + p as usize],
                "{set}: period {p} from {n0} fails at {n}"
            );
            assert_eq!(t[n], t[n + p as usize]);
        }
        assert_eq!(long["period"].as_u64(), Some(p), "{set}");
    }
}

#[test]
fn values_and_summary() {
    let o = grundy(
        &["seq", "0.07", "--misere", "--values", "-q", "--count", "12"],
        "",
    );
    assert_eq!(o.code, 0, "{}", o.stderr);
    let lines: Vec<&str> = o.stdout.lines().collect();
    assert_eq!(lines.len(), 12);
    assert_eq!(lines[0], "0^120\ttame");
    assert_eq!(lines[10], "3^1431\twild");
    let o = grundy(&["seq", "sub:1,3,4", "--misere", "-q"], "");
    assert_eq!(o.code, 0, "{}", o.stderr);
    assert!(
        o.stdout.contains("genus of heaps 0 .. 999 (1000 heaps"),
        "{}",
        o.stdout
    );
    assert!(o.stdout.contains("genus period"), "{}", o.stdout);
    let o = grundy(&["seq", "0.77", "--misere", "-q", "--count", "10"], "");
    assert!(o.stdout.contains("4^146*"), "{}", o.stdout);
    assert!(o.stdout.contains("first wild heap 5"), "{}", o.stdout);
    assert!(o.stdout.contains("no periodicity theorem"), "{}", o.stdout);
}

#[test]
fn until_period_stops_at_a_proof() {
    let out = json(&[
        "seq",
        "sub:1,3,4",
        "--misere",
        "--json",
        "-q",
        "--until-period",
        "--count",
        "100000",
    ]);
    assert!(out["period"].is_u64());
    assert!(out["count"].as_u64().unwrap() < 100000);
}

#[test]
fn solve_shows_each_heaps_genus() {
    let out = json(&["solve", "0.77", "3", "4", "--misere", "--genus", "--json"]);
    let heaps = out["genus"]["heaps"].as_array().unwrap();
    assert_eq!(heaps.len(), 2);
    assert_eq!(heaps[0]["heap"], 3);
    assert_eq!(heaps[0]["notation"], "3^31");
    assert_eq!(out["genus"]["tame"], true);
    // The tame rule and the search agree.
    assert_eq!(out["genus"]["tame_outcome"], out["outcome"]);
    let out = json(&["solve", "0.77", "5", "2", "--misere", "--genus", "--json"]);
    assert_eq!(out["genus"]["tame"], false);
    assert_eq!(out["genus"]["heaps"][0]["notation"], "4^146");
    let o = grundy(&["solve", "sub:1,3,4", "10", "11", "--misere", "--genus"], "");
    assert_eq!(o.code, 0, "{}", o.stderr);
    assert!(o.stdout.contains("genus of each heap"), "{}", o.stdout);
    assert!(o.stdout.contains("sum:"), "{}", o.stdout);
}

#[test]
fn solve_genus_past_a_proven_period() {
    // Heap 5000 of S(1,3,4): the genus comes from one period earlier (the period is proven
    // long before), and agrees with the sequence computed all the way.
    let out = json(&["solve", "sub:1,3,4", "5000", "7", "--misere", "--genus", "--json"]);
    let seq = json(&["seq", "sub:1,3,4", "--misere", "--json", "-q", "--count", "5001"]);
    assert_eq!(out["genus"]["heaps"][0]["genus"], seq["genus"][5000]);
    assert_eq!(out["genus"]["heaps"][1]["genus"], seq["genus"][7]);
    assert_eq!(out["genus"]["heaps"][0]["tame"], seq["tame"][5000]);
    if out["genus"]["tame"] == true {
        assert_eq!(out["genus"]["tame_outcome"], out["outcome"]);
    }
}

#[test]
fn bad_input_exits_2() {
    for args in [
        &["seq", "0.9x", "--misere"][..],
        &["seq", "0.77", "--misere", "--count", "many"],
        &["seq", "0.77", "--misere", "--checkpoint", "/tmp/x.ckpt"],
        // Normal-play outputs, not for genus runs.
        &["seq", "0.312", "--misere", "--format", "csv"],
        &["seq", "0.312", "--misere", "--certificate", "/tmp/x.cert"],
        &["solve", "0.77", "3", "--genus"],
        &["solve", "cram", "3x3", "--misere", "--genus"],
        &["solve", "0.77", "3", "x", "--misere", "--genus"],
    ] {
        let o = grundy(args, "");
        assert_eq!(o.code, 2, "{args:?}: {}", o.stderr);
        assert!(!o.stderr.is_empty());
    }
}

#[test]
fn memory_budget_stops_cleanly() {
    let o = grundy(
        &[
            "--memory-budget",
            "8M",
            "seq",
            "0.77",
            "--misere",
            "-q",
            "--count",
            "200",
        ],
        "",
    );
    assert_eq!(o.code, 1, "{}", o.stderr);
    assert!(o.stderr.contains("after the genus of heaps"), "{}", o.stderr);
}
