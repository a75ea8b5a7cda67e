//! Sequences (`grundy seq`, `grundy plot`) and dense tables (`grundy solve --dense`) kept in
//! the store: asked again they come from it with the same output, `--no-db` keeps nothing,
//! entries of another game, count, space or version are not misused, damage is detected by
//! `grundy db verify` and worked around, and `grundy db list|show|prune` know the new kinds.

mod common;
use common::{assert_usage_error, grundy_env, with_db, Run};
use grundy_app::store::encode_seq;
use grundy_app::store::writer;
use std::path::{Path, PathBuf};

fn fresh_store(name: &str) -> PathBuf {
    common::fresh_store("bulk", name)
}

fn no_db(args: &[&str]) -> Run {
    let mut all = vec!["--no-db"];
    all.extend_from_slice(args);
    let r = grundy_env(&all, "", &[]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    r
}

/// Replaces block `block` of entry `key` by a zstd frame header with nothing after it.
fn damage_block(db: &Path, key: &str, block: u32) {
    let d = redb::Database::create(db).unwrap();
    let w = d.begin_write().unwrap();
    {
        let def: redb::TableDefinition<(&str, u32), &[u8]> = redb::TableDefinition::new("grundy_blocks");
        let bogus = [0x28, 0xb5, 0x2f, 0xfd, 0, 0, 0];
        w.open_table(def)
            .unwrap()
            .insert((key, block), &bogus[..])
            .unwrap();
    }
    w.commit().unwrap();
}

/// Writes a sequence entry as grundy would, with the values given (16-bit).
fn plant_seq(db: &Path, game: &str, values: &[u16], writer: &str) {
    let store = grundy_store::Store::open(db, writer).unwrap();
    let data: Vec<u8> = values.iter().flat_map(|v| v.to_le_bytes()).collect();
    let key = format!("seq/{game}");
    let entry = grundy_store::NewEntry {
        key: &key,
        kind: "seq",
        family: game,
        summary: "planted",
    };
    store.put(&entry, &encode_seq(2, &data)).unwrap();
}

fn from_store(r: &Run) -> bool {
    r.stderr.contains("from the store")
}

#[test]
fn a_sequence_asked_again_comes_from_the_store_with_the_same_output() {
    let db = fresh_store("seq-again");
    let first = with_db(&db, &["seq", "0.77", "-n", "1000"]);
    assert_eq!(first.code, 0, "{}", first.stderr);
    assert!(!from_store(&first), "{}", first.stderr);
    let again = with_db(&db, &["seq", "0.77", "-n", "1000"]);
    assert_eq!(again.stdout, first.stdout);
    assert!(
        again.stderr.contains("G(0) .. G(999) of 0.77 from the store"),
        "{}",
        again.stderr
    );
    // Every output, for the stored count and for smaller ones, is the one computed without
    // a store; another spelling of the same game finds the same entry.
    for count in ["1000", "600", "1"] {
        for flags in [
            &[][..],
            &["--values"],
            &["--json"],
            &["--json", "--values"],
            &["--until-period"],
        ] {
            let mut args = vec!["seq", "0.77", "-n", count];
            args.extend_from_slice(flags);
            let stored = with_db(&db, &args);
            assert_eq!(stored.code, 0, "{}", stored.stderr);
            assert!(from_store(&stored), "{args:?}: {}", stored.stderr);
            assert_eq!(stored.stdout, no_db(&args).stdout, "{args:?}");
        }
    }
    let other_spelling = with_db(&db, &["seq", "0.770", "-n", "10"]);
    assert!(from_store(&other_spelling), "{}", other_spelling.stderr);
    let list = with_db(&db, &["db", "list"]).stdout;
    assert!(list.contains("seq/0.77\tseq\t"), "{list}");
    assert!(
        list.contains("0.77: G(0) .. G(999), 1000 values, largest 8"),
        "{list}"
    );
    assert!(list.contains("1 entries"), "{list}");
    let show = with_db(&db, &["db", "show", "seq/0.77"]);
    assert_eq!(show.code, 0, "{}", show.stderr);
    assert!(show.stdout.contains("kind:     seq"), "{}", show.stdout);
    assert!(
        show.stdout.contains("count:    1000 values, 2 bytes each"),
        "{}",
        show.stdout
    );
    assert!(
        show.stdout.contains("values:   0 1 2 3 1 4 3 2 1 4 2 6"),
        "{}",
        show.stdout
    );
    let verify = with_db(&db, &["db", "verify"]);
    assert_eq!(verify.code, 0, "{}", verify.stdout);
}

#[test]
fn the_values_shown_are_the_stored_ones() {
    // Evidence that does not rest on a message: values planted in the store (wrong ones, by
    // this version's writer) are what a quiet run prints.
    let db = fresh_store("seq-planted");
    plant_seq(&db, "sub:1,2", &[9; 100], &writer());
    let r = with_db(&db, &["seq", "sub:1,2", "-n", "50", "--values", "-q"]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert_eq!(r.stdout, "9\n".repeat(50));
    assert!(r.stderr.is_empty(), "{}", r.stderr);
    // Another version's entry is not trusted: computed, and replaced.
    plant_seq(&db, "sub:1,3", &[9; 100], "grundy 0.0.1 engine 0");
    let args = ["seq", "sub:1,3", "-n", "50", "--values"];
    let r = with_db(&db, &args);
    assert_eq!(r.stdout, no_db(&args).stdout);
    assert!(!from_store(&r), "{}", r.stderr);
    let list = with_db(&db, &["db", "list"]).stdout;
    assert!(list.contains("sub:1,3: G(0) .. G(49), 50 values"), "{list}");
    assert!(!list.contains("other version"), "{list}");
}

#[test]
fn a_larger_count_or_another_game_is_computed() {
    let db = fresh_store("seq-other");
    assert_eq!(with_db(&db, &["seq", "0.6", "-n", "500", "-q"]).code, 0);
    // More than stored: the stored values are continued, and the result is the same as
    // without a store, with the period found where a fresh run finds it.
    for args in [
        &["seq", "0.6", "-n", "3000", "--values"][..],
        &["seq", "0.6", "-n", "5000", "--json"],
        &["seq", "0.77", "-n", "3000", "--until-period"],
    ] {
        let r = with_db(&db, args);
        assert_eq!(r.code, 0, "{}", r.stderr);
        assert_eq!(r.stdout, no_db(args).stdout, "{args:?}");
    }
    let list = with_db(&db, &["db", "list"]).stdout;
    assert!(list.contains("0.6: G(0) .. G(4999), 5000 values"), "{list}");
    // 0.77 stopped at its proof, 256 values.
    assert!(list.contains("0.77: G(0) .. G(255), 256 values"), "{list}");
    // Another code never matches (0.6 is kept, 0.06 and 4.6 are not it).
    for game in ["0.06", "4.6", "0.61"] {
        let args = ["seq", game, "-n", "100", "--values"];
        let r = with_db(&db, &args);
        assert!(!from_store(&r), "{game}: {}", r.stderr);
        assert_eq!(r.stdout, no_db(&args).stdout, "{game}");
    }
}

#[test]
fn no_db_reads_and_writes_nothing() {
    let db = fresh_store("seq-nodb");
    let path = db.to_str().unwrap();
    let env = [("GRUNDY_DB", path)];
    for args in [
        &["--no-db", "seq", "0.77", "-n", "100"][..],
        &["--db", path, "--no-db", "seq", "0.77", "-n", "100"],
        &["--no-db", "solve", "cram", "3x3", "--dense"],
    ] {
        let r = grundy_env(args, "", &env);
        assert_eq!(r.code, 0, "{}", r.stderr);
    }
    std::fs::create_dir_all(db.parent().unwrap()).unwrap();
    let plot = db.with_file_name("p.svg");
    let args = [
        "--no-db",
        "plot",
        "0.77",
        "-n",
        "100",
        "-o",
        plot.to_str().unwrap(),
    ];
    assert_eq!(grundy_env(&args, "", &env).code, 0);
    assert!(!db.exists(), "the store was created");
    // With values in the store, --no-db does not read them either.
    plant_seq(&db, "0.77", &[9; 100], &writer());
    let r = grundy_env(&["--no-db", "seq", "0.77", "-n", "5", "--values"], "", &env);
    assert_eq!(r.stdout, "0\n1\n2\n3\n1\n");
}

#[test]
fn a_damaged_sequence_is_reported_and_computed_again() {
    let db = fresh_store("seq-damaged");
    let args = ["seq", "0.77", "-n", "2000", "--values"];
    assert_eq!(with_db(&db, &args).code, 0);
    damage_block(&db, "seq/0.77", 0);
    let v = with_db(&db, &["db", "verify"]);
    assert_eq!(v.code, 1);
    assert!(
        v.stdout.contains("problem: store entry 'seq/0.77' is damaged"),
        "{}",
        v.stdout
    );
    let r = with_db(&db, &args);
    assert_eq!(r.code, 0);
    assert_eq!(r.stdout, no_db(&args).stdout);
    assert!(
        r.stderr.contains("damaged") && !r.stderr.contains(" from the store"),
        "{}",
        r.stderr
    );
    assert_eq!(with_db(&db, &["db", "verify"]).code, 0);
    // Damage inside a payload whose checksums hold (a layout this grundy does not know):
    // verify finds it, seq does not use it.
    let store = grundy_store::Store::open(&db, &writer()).unwrap();
    let entry = grundy_store::NewEntry {
        key: "seq/0.77",
        kind: "seq",
        family: "0.77",
        summary: "bad layout",
    };
    store.put(&entry, b"GSEQ\x07\x02\0\0\x09\0").unwrap();
    drop(store);
    let v = with_db(&db, &["db", "verify"]);
    assert_eq!(v.code, 1);
    assert!(v.stdout.contains("unknown sequence layout 7"), "{}", v.stdout);
    let r = with_db(&db, &args);
    assert_eq!(r.stdout, no_db(&args).stdout);
    assert_eq!(with_db(&db, &["db", "verify"]).code, 0);
}

#[test]
fn plot_uses_and_fills_the_store() {
    let db = fresh_store("plot");
    let dir = db.parent().unwrap().to_path_buf();
    std::fs::create_dir_all(&dir).unwrap();
    let pic = |name: &str| dir.join(name).to_str().unwrap().to_string();
    let (a, b, c) = (pic("a.svg"), pic("b.svg"), pic("c.svg"));
    let r = with_db(&db, &["plot", "0.77", "-n", "700", "-o", &a]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert!(!from_store(&r));
    let r = with_db(&db, &["plot", "0.77", "-n", "700", "-o", &b]);
    assert!(from_store(&r), "{}", r.stderr);
    no_db(&["plot", "0.77", "-n", "700", "-o", &c]);
    let read = |p: &str| std::fs::read(p).unwrap();
    assert!(read(&a) == read(&b) && read(&b) == read(&c));
    // seq finds what plot kept.
    assert!(from_store(&with_db(&db, &["seq", "0.77", "-n", "700"])));
}

fn dense_json(db: Option<&Path>, args: &[&str]) -> Run {
    let mut all = vec!["solve"];
    all.extend_from_slice(args);
    all.extend(["--dense", "--json"]);
    match db {
        Some(db) => with_db(db, &all),
        None => no_db(&all),
    }
}

#[test]
fn a_dense_solve_asked_again_comes_from_the_store() {
    let db = fresh_store("dense-again");
    let text = ["solve", "cram", "4x4", "--dense", "--all-moves"];
    let first = with_db(&db, &text);
    assert_eq!(first.code, 0, "{}", first.stderr);
    assert!(
        first.stderr.contains("every tier kept for the store"),
        "{}",
        first.stderr
    );
    let again = with_db(&db, &text);
    assert_eq!(again.stdout, first.stdout);
    assert!(
        again.stderr.contains("answered from the store"),
        "{}",
        again.stderr
    );
    assert_eq!(first.stdout, no_db(&text).stdout);
    // JSON too, and the kept answer needs no memory: even a budget of 1 KiB is enough.
    let json = dense_json(
        Some(&db),
        &["cram", "4x4", "--all-moves", "--memory-budget", "1K"],
    );
    assert_eq!(json.code, 0, "{}", json.stderr);
    assert_eq!(
        json.stdout,
        dense_json(None, &["cram", "4x4", "--all-moves"]).stdout
    );
    let list = with_db(&db, &["db", "list"]).stdout;
    assert!(
        list.contains("dense/cram/4x4/-/normal/grundy/ffff\tdense\t"),
        "{list}"
    );
    assert!(
        list.contains("cram 4x4, normal play, grundy records, from cells ffff: 32768 states in 9 tiers"),
        "{list}"
    );
    assert!(
        list.contains("dense-analysis/cram/4x4/-/normal/grundy/4x4\tanalysis\t"),
        "{list}"
    );
    let show = with_db(&db, &["db", "show", "dense/cram/4x4/-/normal/grundy/ffff"]);
    assert!(
        show.stdout.contains("states:   32768 in 9 tiers"),
        "{}",
        show.stdout
    );
    assert!(
        show.stdout.contains("tiers:    0:1 2:120 4:1820"),
        "{}",
        show.stdout
    );
    assert_eq!(with_db(&db, &["db", "verify"]).code, 0);
}

#[test]
fn positions_below_a_kept_table_are_answered_from_it() {
    let db = fresh_store("dense-sub");
    assert_eq!(with_db(&db, &["solve", "cram", "4x4", "--dense"]).code, 0);
    // Two cells filled: tier 14 of the 4x4 table. Too little memory to solve it, yet it is
    // answered, exactly as a solve of its own would.
    for sub in [
        "##../..../..../....",
        "..../.#../..#./....",
        "#.../..../..../...#",
    ] {
        let r = dense_json(Some(&db), &["cram", sub, "--all-moves", "--memory-budget", "1K"]);
        assert_eq!(r.code, 0, "{sub}: {}", r.stderr);
        assert!(r.stderr.contains("answered from the dense table"), "{}", r.stderr);
        assert_eq!(
            r.stdout,
            dense_json(None, &["cram", sub, "--all-moves"]).stdout,
            "{sub}"
        );
    }
    // Not misused: an odd number of cells filled is in no tier of the table; another record,
    // convention or board size is another table.
    for args in [
        &["cram", "#.../..../..../....", "--memory-budget", "1K"][..],
        &[
            "cram",
            "##../..../..../....",
            "--record",
            "outcome",
            "--memory-budget",
            "1K",
        ],
        &["cram", "##../..../..../....", "--misere", "--memory-budget", "1K"],
        &["cram", "##../..../..../..../....", "--memory-budget", "1K"],
    ] {
        let r = dense_json(Some(&db), args);
        assert_eq!(r.code, 1, "{args:?}: {}", r.stdout);
        assert!(r.stderr.contains("memory budget is 1.0 KiB"), "{}", r.stderr);
    }
    // Graph games: a position below a kept one, same graph and rule; another rule is not it.
    let points = ["points", "110111000011"];
    assert_eq!(dense_json(Some(&db), &points).code, 0);
    let sub = ["points", "110011000011", "--all-moves", "--memory-budget", "1K"];
    let r = dense_json(Some(&db), &sub);
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert!(r.stderr.contains("answered from the dense table"), "{}", r.stderr);
    assert_eq!(r.stdout, dense_json(None, &sub[..3]).stdout);
    let other_rule = ["points", "110011000011", "--rule", "take-vertex"];
    let r = dense_json(Some(&db), &other_rule);
    assert!(!r.stderr.contains("answered from"), "{}", r.stderr);
    assert_eq!(r.stdout, dense_json(None, &other_rule).stdout);
}

#[test]
fn a_damaged_dense_table_is_reported_and_not_used() {
    let db = fresh_store("dense-damaged");
    assert_eq!(with_db(&db, &["solve", "cram", "4x4", "--dense"]).code, 0);
    let key = "dense/cram/4x4/-/normal/grundy/ffff";
    damage_block(&db, key, 0);
    let v = with_db(&db, &["db", "verify"]);
    assert_eq!(v.code, 1);
    assert!(
        v.stdout
            .contains(&format!("problem: store entry '{key}' is damaged")),
        "{}",
        v.stdout
    );
    // Not used for a position below it: solved instead (so the tight budget fails)...
    let sub = ["cram", "##../..../..../...."];
    let tight = dense_json(Some(&db), &[&sub[..], &["--memory-budget", "1K"]].concat());
    assert_eq!(tight.code, 1, "{}", tight.stdout);
    assert!(tight.stderr.contains("damaged"), "{}", tight.stderr);
    // ...and with room, solved right.
    let r = dense_json(Some(&db), &sub);
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert_eq!(r.stdout, dense_json(None, &sub).stdout);
    // Prune removes damaged entries whatever the filter; --kind dense the other tables.
    let pruned = with_db(&db, &["db", "prune", "--kind", "dense"]);
    assert!(pruned.stdout.contains("removed 2 entries"), "{}", pruned.stdout);
    let list = with_db(&db, &["db", "list"]).stdout;
    assert!(
        !list.contains("\tdense\t") && list.contains("2 entries"),
        "{list}"
    );
    assert_eq!(with_db(&db, &["db", "verify"]).code, 0);
}

#[test]
fn prune_by_kind() {
    let db = fresh_store("prune-kind");
    assert_eq!(with_db(&db, &["seq", "0.77", "-n", "100"]).code, 0);
    assert_eq!(with_db(&db, &["seq", "0.6", "-n", "100"]).code, 0);
    assert_eq!(with_db(&db, &["solve", "nim", "1", "2"]).code, 0);
    assert_usage_error(
        &with_db(&db, &["db", "prune", "--kind", "tables"]),
        "unknown kind 'tables'",
    );
    let r = with_db(&db, &["db", "prune", "--kind", "seq"]);
    assert!(r.stdout.contains("removed 2 entries"), "{}", r.stdout);
    let list = with_db(&db, &["db", "list"]).stdout;
    assert!(
        list.contains("1 entries") && list.contains("analysis/nim/"),
        "{list}"
    );
    // A heap game's sequence is pruned by its code, as its family.
    assert_eq!(with_db(&db, &["seq", "0.77", "-n", "100"]).code, 0);
    let r = with_db(&db, &["db", "prune", "--family", "0.77"]);
    assert!(r.stdout.contains("removed 1 entries"), "{}", r.stdout);
}
