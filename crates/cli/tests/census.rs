//! `grundy census`, `grundy verify`, `grundy seq --certificate` and `--format` end to end.

mod common;

use common::{no_db as grundy, stderr_of as stderr, stdout_of as stdout};
use std::process::{Command, Output, Stdio};

/// The JSON rows without the time each took.
fn rows(o: &Output) -> Vec<serde_json::Value> {
    stdout(o)
        .lines()
        .map(|l| {
            let mut v: serde_json::Value = serde_json::from_str(l).unwrap();
            v.as_object_mut().unwrap().remove("seconds");
            v
        })
        .collect()
}

#[test]
fn two_digit_octal_games() {
    let dir = tempfile::tempdir().unwrap();
    let j = dir.path().join("j.jsonl");
    let o = grundy(&[
        "census",
        "0.??",
        "--count",
        "3000",
        "--json",
        "-q",
        "--journal",
        j.to_str().unwrap(),
    ]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let rows = rows(&o);
    assert_eq!(rows.len(), 64);
    let get = |g: &str| rows.iter().find(|r| r["game"] == g).unwrap().clone();
    // Kayles and Dawson's Kayles.
    let k = get("0.77");
    assert_eq!(
        (k["verdict"].as_str(), k["period"].as_u64(), k["n0"].as_u64()),
        (Some("periodic"), Some(12), Some(71))
    );
    assert_eq!(k["count"], 3000);
    for field in [
        "game",
        "period",
        "n0",
        "saltus",
        "max",
        "rare",
        "count",
        "checked_to",
        "verdict",
        "same_as",
    ] {
        assert!(k.get(field).is_some(), "{field}");
    }
    let d = get("0.07");
    assert_eq!((d["period"].as_u64(), d["n0"].as_u64()), (Some(34), Some(53)));
    // 0.6 is unsolved; 0.27 equals 0.26 (tczajka/octal-games, GameLookup.md).
    assert_eq!(get("0.6")["verdict"], "unresolved");
    assert_eq!(get("0.6")["period"], serde_json::Value::Null);
    assert_eq!(get("0.27")["same_as"], "0.26");
    assert_eq!(get("0.26")["same_as"], serde_json::Value::Null);
    // 0.10 is listed once, as 0.1.
    assert!(rows.iter().all(|r| r["game"] != "0.10"));
    // A second run reads everything from the journal; CSV and the table from it too.
    let again = grundy(&[
        "census",
        "0.??",
        "--count",
        "3000",
        "--csv",
        "--journal",
        j.to_str().unwrap(),
    ]);
    assert!(
        stderr(&again).contains("64 done before, 0 to run"),
        "{}",
        stderr(&again)
    );
    let csv = stdout(&again);
    assert!(csv.starts_with(
        "game,verdict,period,n0,saltus,max,rare,rare_count,count,computed,checked_to,same_as\n"
    ));
    assert!(csv.lines().any(|l| l.starts_with("0.77,periodic,12,71,0,")));
    let table = grundy(&[
        "census",
        "0.??",
        "--count",
        "3000",
        "-q",
        "--journal",
        j.to_str().unwrap(),
    ]);
    assert!(stdout(&table).contains("0.26 = 0.27"), "{}", stdout(&table));
    // Another count with this journal: refused.
    let o = grundy(&[
        "census",
        "0.??",
        "--count",
        "3001",
        "--journal",
        j.to_str().unwrap(),
    ]);
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("--count 3000"), "{}", stderr(&o));
}

#[test]
fn killed_census_resumes_exactly() {
    let dir = tempfile::tempdir().unwrap();
    let j = dir.path().join("k.jsonl");
    let js = j.to_str().unwrap();
    let args = ["census", "0.??", "--count", "2^14", "--json", "-q"];
    let mut child = Command::new(env!("CARGO_BIN_EXE_grundy"))
        .arg("--no-db")
        .args(args)
        .args(["--journal", js])
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    // Kill it (SIGKILL) once a few games are in the journal.
    let started = std::time::Instant::now();
    while started.elapsed().as_secs() < 60 {
        let lines = std::fs::read_to_string(&j)
            .map(|t| t.lines().count())
            .unwrap_or(0);
        if lines >= 4 {
            break;
        }
        std::thread::sleep(std::time::Duration::from_millis(5));
    }
    child.kill().unwrap();
    let _ = child.wait();
    let before = std::fs::read_to_string(&j).unwrap().lines().count() - 1;
    assert!(before >= 3);
    let resumed = Command::new(env!("CARGO_BIN_EXE_grundy"))
        .arg("--no-db")
        .args(["census", "0.??", "--count", "2^14", "--json", "--journal", js])
        .output()
        .unwrap();
    assert_eq!(resumed.status.code(), Some(0), "{}", stderr(&resumed));
    assert!(
        stderr(&resumed).contains(&format!("{before} done before")),
        "{}",
        stderr(&resumed)
    );
    let fresh = grundy(&args);
    assert_eq!(rows(&resumed), rows(&fresh));
    // Every game once in the journal.
    let text = std::fs::read_to_string(&j).unwrap();
    assert_eq!(text.lines().count(), 1 + 64);
}

#[test]
fn bad_input_is_refused() {
    for (args, needle) in [
        (vec!["census", "0.?x"], "names no game"),
        (vec!["census", "1.?"], "names no game"),
        (vec!["census", "0.???????"], "at most 6"),
        (vec!["census", "0.??", "--count", "many"], "invalid count"),
        (
            vec!["--memory-budget", "1M", "census", "0.??", "--count", "1e6"],
            "memory budget",
        ),
        (vec!["census", "@/nonexistent/list"], "list of games"),
    ] {
        let o = grundy(&args);
        assert_eq!(o.status.code(), Some(2), "{args:?}: {}", stderr(&o));
        assert!(stderr(&o).contains(needle), "{args:?}: {}", stderr(&o));
        assert!(o.stdout.is_empty());
    }
    let dir = tempfile::tempdir().unwrap();
    let list = dir.path().join("games.txt");
    std::fs::write(&list, "# two games\n0.77\n0.8\n").unwrap();
    let o = grundy(&["census", &format!("@{}", list.display())]);
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("line 3"), "{}", stderr(&o));
    std::fs::write(&list, "0.77\n0.137\n0.770\n").unwrap();
    let o = grundy(&[
        "census",
        &format!("@{}", list.display()),
        "-n",
        "1000",
        "--json",
        "-q",
    ]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert_eq!(rows(&o).len(), 2);
}

#[test]
fn bfile_and_csv() {
    let o = grundy(&["seq", "0.77", "-n", "13", "--format", "bfile", "-q"]);
    assert_eq!(o.status.code(), Some(0));
    let b = stdout(&o);
    assert!(b.starts_with("0 0\n1 1\n2 2\n3 3\n4 1\n"));
    assert!(b.ends_with("11 6\n12 4\n"));
    assert_eq!(b.lines().count(), 13);
    let o = grundy(&["seq", "0.77", "-n", "3", "--format", "csv", "-q"]);
    assert_eq!(stdout(&o), "n,g\n0,0\n1,1\n2,2\n");
    let o = grundy(&["seq", "0.77", "--format", "csv", "--json"]);
    assert_eq!(o.status.code(), Some(2));
}

#[test]
fn certificates_verify_and_tampering_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let cert = dir.path().join("k.cert");
    let c = cert.to_str().unwrap();
    let o = grundy(&[
        "seq",
        "0.77",
        "-n",
        "1e5",
        "--until-period",
        "--certificate",
        c,
        "-q",
    ]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let text = std::fs::read_to_string(&cert).unwrap();
    assert!(text.starts_with("grundy-certificate 1\n"));
    assert!(text.contains("\ngame 0.77\nclaim periodic\nperiod 12\nn0 71\nsaltus 0\ntheorem take-and-break h=2 t=2\nbound 156\nvalues 168\n"), "{text}");
    let v = grundy(&["verify", c]);
    assert_eq!(v.status.code(), Some(0), "{}", stderr(&v));
    assert!(
        stdout(&v).starts_with("valid: 0.77 has period 12 from n0 = 71"),
        "{}",
        stdout(&v)
    );
    // The separate binary agrees.
    let tamper = |from: &str, to: &str| -> Output {
        let t = dir.path().join("t.cert");
        assert!(text.contains(from), "{from}");
        std::fs::write(&t, text.replacen(from, to, 1)).unwrap();
        grundy(&["verify", t.to_str().unwrap()])
    };
    // A value changed (G(5) of Kayles is 4).
    let line = text.lines().find(|l| l.starts_with("0 1 2 3 1 4 ")).unwrap();
    let o = tamper(line, &line.replacen("0 1 2 3 1 4 ", "0 1 2 3 1 5 ", 1));
    assert_eq!(o.status.code(), Some(1));
    assert!(
        stderr(&o).contains("G(5) is 5 in the certificate"),
        "{}",
        stderr(&o)
    );
    // Claims the values do not show, or a bound too small.
    for (from, to, needle) in [
        ("period 12\n", "period 6\n", "theorem"),
        ("n0 71\n", "n0 60\n", "bound"),
        ("bound 156\n", "bound 150\n", "bound 150 stated"),
        ("game 0.77\n", "game 0.137\n", "for 0.137 it is"),
        ("claim periodic\n", "claim arithmetic-periodic\n", "saltus"),
    ] {
        let o = tamper(from, to);
        assert_eq!(o.status.code(), Some(1), "{from}: {}", stderr(&o));
        assert!(stderr(&o).contains(needle), "{from}: {}", stderr(&o));
    }
    // Not a certificate: cut short, garbage, a missing file.
    for (from, to) in [
        ("end\n", ""),
        ("values 168\n", "values many\n"),
        ("grundy-certificate 1", "hello"),
    ] {
        let o = tamper(from, to);
        assert_eq!(o.status.code(), Some(2), "{from}: {}", stderr(&o));
    }
    assert_eq!(grundy(&["verify", "/nonexistent.cert"]).status.code(), Some(2));
    // No period proven: no certificate, exit 1.
    let o = grundy(&[
        "seq",
        "0.6",
        "-n",
        "500",
        "--until-period",
        "--certificate",
        c,
        "-q",
    ]);
    assert_eq!(o.status.code(), Some(1));
    assert!(stderr(&o).contains("no period proven"), "{}", stderr(&o));
}

#[test]
fn published_equivalences_are_checked() {
    // The built-in table: every pair among 0.0? agrees, and the JSON rows say under which shift.
    let o = grundy(&[
        "census",
        "0.0?",
        "--count",
        "400",
        "--equivalences",
        "--json",
        "-q",
    ]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let rows = rows(&o);
    let dawson = rows.iter().find(|r| r["game"] == "0.07").unwrap();
    assert_eq!(dawson["published_same_as"], "0.4");
    assert_eq!(dawson["shift"], 1);
    assert_eq!(dawson["agrees_from"], 0);
    assert!(dawson["first_difference"].is_null());
    // A game the table does not map gets none of the fields.
    let unmapped = rows.iter().find(|r| r["game"] == "0.06").unwrap();
    assert!(unmapped.get("published_same_as").is_none());

    // A table of the user's with a false pair: the table reports its first difference.
    let dir = tempfile::tempdir().unwrap();
    let table = dir.path().join("eq.tsv");
    std::fs::write(&table, "# mine\n0.07\t0.4\n0.77\t0.07\n").unwrap();
    let o = grundy(&[
        "census",
        "0.?7",
        "--count",
        "300",
        "--equivalences",
        table.to_str().unwrap(),
        "-q",
    ]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let out = stdout(&o);
    assert!(out.contains("2 among these games; 1 agree up to 300"), "{out}");
    assert!(out.contains("0.77 = 0.07 (shift"), "{out}");
    assert!(out.contains("first difference at heap"), "{out}");
    // CSV: the four columns, empty for games the table does not map.
    let o = grundy(&[
        "census",
        "0.?7",
        "--count",
        "300",
        "--equivalences",
        table.to_str().unwrap(),
        "--csv",
        "-q",
    ]);
    let csv = stdout(&o);
    assert!(csv
        .lines()
        .next()
        .unwrap()
        .ends_with(",published_same_as,shift,agrees_from,first_difference"));
    assert!(
        csv.lines()
            .any(|l| l.starts_with("0.07,") && l.ends_with(",0.4,1,0,")),
        "{csv}"
    );

    // A table that does not read: refused up front with its line and column (exit 2).
    std::fs::write(&table, "0.07 0.4\n0.1 0.8x\n").unwrap();
    let o = grundy(&[
        "census",
        "0.0?",
        "--count",
        "100",
        "--equivalences",
        table.to_str().unwrap(),
    ]);
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("line 2, column 7"), "{}", stderr(&o));
}
