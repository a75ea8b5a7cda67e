//! `grundy seq CODE --misere --canonical` (misère canonical forms of heaps), end to end:
//! Plambeck's forms of 0.312 (tests/data/misere-canonical-0312.tsv), Winning Ways' .31,
//! proven periods, the outputs, and bad input.

mod common;

use common::{grundy, reference};
use std::collections::HashMap;

fn json(args: &[&str]) -> serde_json::Value {
    let o = grundy(args, "");
    assert_eq!(o.code, 0, "{args:?}: {}", o.stderr);
    serde_json::from_str(&o.stdout).expect("one JSON object")
}

/// A game written out in full: `k` for *k, `{a,b,...}` with the options written out the
/// same way and sorted (so two names for one game read the same).
fn expand(name: &str, defs: &HashMap<String, Vec<String>>) -> String {
    match defs.get(name) {
        None => {
            name.parse::<u32>().expect("a Nim heap or a defined name");
            name.to_string()
        }
        Some(opts) => {
            let mut o: Vec<String> = opts.iter().map(|x| expand(x, defs)).collect();
            o.sort();
            format!("{{{}}}", o.join(","))
        }
    }
}

#[test]
fn plambecks_forms_of_0312() {
    let text = std::fs::read_to_string(reference("misere-canonical-0312.tsv")).expect("the fixture");
    let v = json(&["seq", "0.312", "--misere", "--canonical", "-n", "14", "--json"]);
    let ours: HashMap<String, Vec<String>> = v["games"]
        .as_object()
        .expect("games")
        .iter()
        .map(|(k, o)| {
            let o = o.as_array().expect("options");
            (
                k.clone(),
                o.iter()
                    .map(|x| x.as_str().expect("a name").to_string())
                    .collect(),
            )
        })
        .collect();
    let mut theirs: HashMap<String, Vec<String>> = HashMap::new();
    let mut rows = 0;
    for line in text.lines().filter(|l| !l.starts_with('#')).skip(1) {
        let cols: Vec<&str> = line.split('\t').collect();
        let heap: usize = cols[0].parse().expect("a heap");
        if !cols[2].is_empty() {
            theirs.insert(cols[1].into(), cols[2].split(',').map(str::to_owned).collect());
        }
        let our_name = v["values"][heap].as_str().expect("a value");
        assert_eq!(
            expand(our_name, &ours),
            expand(cols[1], &theirs),
            "0.312 heap {heap}"
        );
        rows += 1;
    }
    assert_eq!(rows, 13);
    assert_eq!(v["first_non_nim"], 3);
    assert_eq!(v["nim"][2], 2);
    assert!(v["nim"][3].is_null());
}

#[test]
fn stalking_and_a_proven_period() {
    // Winning Ways: .31 (Stalking) heaps 3, 4, 5, ... are {2}, {{2}}, {{{2}}}, ...
    let v = json(&["seq", "0.31", "--misere", "--canonical", "-n", "40", "--json"]);
    assert_eq!(v["first_non_nim"], 3);
    assert!(v["period"].is_null());
    let defs: HashMap<String, Vec<String>> = v["games"]
        .as_object()
        .expect("games")
        .iter()
        .map(|(k, o)| (k.clone(), vec![o[0].as_str().expect("a name").to_string()]))
        .collect();
    let mut want = "2".to_string();
    for n in 3..40 {
        want = format!("{{{want}}}");
        assert_eq!(
            expand(v["values"][n].as_str().expect("a value"), &defs),
            want,
            "heap {n}"
        );
    }
    // 0.33: Nim heaps 0 1 2 0 1 2 ..., proven for every heap.
    let v = json(&[
        "seq",
        "0.33",
        "--misere",
        "--canonical",
        "--until-period",
        "-n",
        "1000",
        "--json",
    ]);
    assert_eq!(v["period"], 3);
    assert!(v["first_non_nim"].is_null());
    assert!(v["theorem"].as_str().expect("a theorem").contains("window"));
}

#[test]
fn summary_and_values() {
    let o = grundy(&["seq", "0.312", "--misere", "--canonical", "-n", "8"], "");
    assert_eq!(o.code, 0, "{}", o.stderr);
    for want in [
        "0.312 (misère): canonical forms of heaps 0 .. 7",
        "     0: 0   1   2   g0  g1  g0  g2  g3",
        "first heap that is not a Nim heap: 3; 3 of 8 heaps are Nim heaps",
        "  g0 = {2}",
        "  g1 = {g0,1}",
        "no period of the forms proven up to 8",
    ] {
        assert!(o.stdout.contains(want), "{want:?} in\n{}", o.stdout);
    }
    let o = grundy(
        &["seq", "0.312", "--misere", "--canonical", "-n", "5", "--values"],
        "",
    );
    assert_eq!(o.code, 0, "{}", o.stderr);
    assert_eq!(o.stdout, "0\n1\n2\ng0\t{2}\ng1\t{g0,1}\n");
    // Kayles splits heaps: heap 5 is its first that is not a Nim heap.
    let v = json(&["seq", "0.77", "--misere", "--canonical", "-n", "12", "--json"]);
    assert_eq!(v["first_non_nim"], 5);
    assert!(v["method"].as_str().expect("a method").contains("sum"));
}

#[test]
fn bad_input_and_the_memory_budget() {
    for args in [
        &["seq", "0.312", "--canonical"][..],
        &["seq", "0.3x", "--misere", "--canonical"],
        &[
            "seq",
            "0.312",
            "--misere",
            "--canonical",
            "--checkpoint",
            "/tmp/x.ckpt",
        ],
    ] {
        let o = grundy(args, "");
        assert_eq!(o.code, 2, "{args:?}: {}", o.stderr);
        assert!(!o.stderr.is_empty());
    }
    let o = grundy(
        &[
            "--memory-budget",
            "16M",
            "seq",
            "0.77",
            "--misere",
            "--canonical",
            "-q",
            "-n",
            "200",
        ],
        "",
    );
    assert_eq!(o.code, 1, "{}", o.stderr);
    assert!(
        o.stderr.contains("after the canonical form of heaps"),
        "{}",
        o.stderr
    );
    assert!(o.stderr.contains("canonical games stored"), "{}", o.stderr);
}
