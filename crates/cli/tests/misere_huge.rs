//! Misère sums of huge heaps of games with a finite quotient (answered by products in the
//! quotient, every move written from the rules): `grundy solve` prints, byte for byte, what
//! it printed before that fast path (tests/data/misere-huge, recorded from main at 8d8c4c0).

mod common;

use common::{fresh_store, no_db, reference, stderr_of};
use std::process::Command;

/// FNV-1a, 64 bits, over every byte (as the fixture's README says).
fn fnv1a64(data: &[u8]) -> u64 {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for &b in data {
        h ^= u64::from(b);
        h = h.wrapping_mul(0x0000_0100_0000_01b3);
    }
    h
}

/// What the fixture expects of one command's stdout.
enum Expected {
    Whole(Vec<u8>),
    Digest { bytes: usize, fnv: u64 },
}

/// The lines of cases.tsv: the arguments of `solve`, and what it printed.
fn cases() -> Vec<(Vec<String>, Expected)> {
    let dir = reference("misere-huge");
    let text = std::fs::read_to_string(dir.join("cases.tsv")).expect("cases.tsv");
    let mut out = Vec::new();
    for line in text
        .lines()
        .filter(|l| !l.starts_with('#') && !l.trim().is_empty())
    {
        let (args, expected) = line.split_once('\t').expect("args TAB expected");
        let expected = if let Some(name) = expected.strip_prefix("file:") {
            Expected::Whole(std::fs::read(dir.join(name)).expect("the recorded output"))
        } else {
            let mut bytes = None;
            let mut fnv = None;
            for part in expected.split_whitespace() {
                if let Some(n) = part.strip_prefix("bytes:") {
                    bytes = Some(n.parse().expect("a length"));
                } else if let Some(h) = part.strip_prefix("fnv1a64:") {
                    fnv = Some(u64::from_str_radix(h, 16).expect("a hash"));
                }
            }
            Expected::Digest {
                bytes: bytes.expect("bytes:"),
                fnv: fnv.expect("fnv1a64:"),
            }
        };
        out.push((args.split_whitespace().map(str::to_string).collect(), expected));
    }
    out
}

fn check(args: &[String], got: &[u8], expected: &Expected, how: &str) {
    match expected {
        Expected::Whole(want) => {
            assert!(
                got == want.as_slice(),
                "{how} solve {}: output differs from the recorded one:\n{}",
                args.join(" "),
                String::from_utf8_lossy(got)
            );
        }
        Expected::Digest { bytes, fnv } => {
            assert_eq!(got.len(), *bytes, "{how} solve {}: length", args.join(" "));
            assert_eq!(fnv1a64(got), *fnv, "{how} solve {}: bytes", args.join(" "));
        }
    }
}

#[test]
fn huge_misere_sums_print_what_they_printed_before() {
    let all = cases();
    assert!(all.len() >= 8, "the fixture has its cases");
    for (args, expected) in &all {
        let mut a = vec!["solve"];
        a.extend(args.iter().map(String::as_str));
        let o = no_db(&a);
        assert_eq!(o.status.code(), Some(0), "{args:?}: {}", stderr_of(&o));
        check(args, &o.stdout, expected, "--no-db");
    }
}

#[test]
fn with_a_store_the_kept_quotient_gives_the_same_bytes() {
    // The first run grows the quotient and keeps it; the second reads it back. Neither
    // keeps the answer (cheaper to compute again than to read a million moves back).
    let db = fresh_store("misere-huge", "kept");
    let (args, expected) = cases()
        .into_iter()
        .find(|(a, _)| a.join(" ") == "0.75 1000000 999999 3 --misere")
        .expect("the case of the benchmark");
    for round in ["first", "second"] {
        let o = Command::new(env!("CARGO_BIN_EXE_grundy"))
            .args(["--db", db.to_str().unwrap(), "solve"])
            .args(&args)
            .output()
            .expect("grundy runs");
        assert_eq!(o.status.code(), Some(0), "{}", stderr_of(&o));
        check(&args, &o.stdout, &expected, round);
    }
    let list = Command::new(env!("CARGO_BIN_EXE_grundy"))
        .args(["--db", db.to_str().unwrap(), "db", "list"])
        .output()
        .expect("grundy runs");
    let listed = String::from_utf8_lossy(&list.stdout);
    assert!(listed.contains("quotient/0.75"), "{listed}");
    assert!(!listed.contains("analysis/"), "{listed}");
}
