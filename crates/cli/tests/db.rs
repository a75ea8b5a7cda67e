//! The persistent store through the command line: `solve` answers again from the store,
//! `--db`/`GRUNDY_DB`/`--no-db`, `grundy db list|show|verify|prune`, stores of other versions.

mod common;
use common::{grundy_env, with_db};
use std::path::{Path, PathBuf};

fn fresh_store(name: &str) -> PathBuf {
    common::fresh_store("db", name)
}

const PETERSEN: [&str; 4] = ["solve", "graph", "--board", "petersen"];

#[test]
fn asking_again_answers_from_the_store() {
    let db = fresh_store("again");
    let first = with_db(&db, &[&PETERSEN[..], &["--all-moves"]].concat());
    assert_eq!(first.code, 0, "{}", first.stderr);
    // Three stored positions are far too few to solve the Petersen graph...
    let none = grundy_env(
        &[&PETERSEN[..], &["--all-moves", "--max-positions", "3", "--no-db"]].concat(),
        "",
        &[],
    );
    assert_eq!(none.code, 1);
    assert!(none.stderr.contains("gave up"));
    // ...but the store answers without any search, with the same output.
    let again = with_db(
        &db,
        &[&PETERSEN[..], &["--all-moves", "--max-positions", "3"]].concat(),
    );
    assert_eq!(again.code, 0, "{}", again.stderr);
    assert_eq!(again.stdout, first.stdout);
    // JSON from the store too (the record keeps everything).
    let json = with_db(
        &db,
        &[&PETERSEN[..], &["--json", "--all-moves", "--max-positions", "3"]].concat(),
    );
    assert_eq!(json.code, 0);
    assert!(json.stdout.contains("\"moves\":["));
    let list = with_db(&db, &["db", "list"]);
    assert!(
        list.stdout.contains("analysis/graph/normal/-/petersen/"),
        "{}",
        list.stdout
    );
    assert!(list.stdout.contains("1 entries"), "{}", list.stdout);
}

#[test]
fn env_var_option_and_no_db() {
    let a = fresh_store("env-a");
    let b = fresh_store("env-b");
    let env = [("GRUNDY_DB", a.to_str().unwrap())];
    assert_eq!(grundy_env(&["solve", "nim", "1", "2"], "", &env).code, 0);
    // --db wins over GRUNDY_DB; --no-db over both.
    let args = ["--db", b.to_str().unwrap(), "solve", "nim", "4", "4"];
    assert_eq!(grundy_env(&args, "", &env).code, 0);
    assert_eq!(grundy_env(&["--no-db", "solve", "nim", "9"], "", &env).code, 0);
    let list_a = grundy_env(&["db", "list"], "", &env).stdout;
    assert!(
        list_a.contains("nim 1 2") && !list_a.contains("nim 4 4") && !list_a.contains("nim 9"),
        "{list_a}"
    );
    let list_b = with_db(&b, &["db", "list", "--json"]).stdout;
    assert_eq!(list_b.lines().count(), 1);
    assert!(
        list_b.contains("\"key\":\"analysis/nim/normal/-/-/-/-/4 4\""),
        "{list_b}"
    );
    let path = grundy_env(&["db", "path"], "", &env);
    assert_eq!(path.stdout.trim(), a.to_str().unwrap());
    let r = grundy_env(&["--no-db", "db", "list"], "", &[]);
    assert_eq!(r.code, 2);
}

#[test]
fn show_verify_prune() {
    let db = fresh_store("manage");
    assert_eq!(with_db(&db, &["solve", "nim", "3", "5", "7"]).code, 0);
    assert_eq!(with_db(&db, &["solve", "nim", "1", "1", "--misere"]).code, 0);
    let show = with_db(&db, &["db", "show", "analysis/nim/normal/-/-/-/-/3 5 7"]);
    assert_eq!(show.code, 0, "{}", show.stderr);
    assert!(show.stdout.contains("kind:     analysis"));
    assert!(
        show.stdout
            .contains("\"winning_moves\":[\"1:3->2\",\"2:5->4\",\"3:7->6\"]"),
        "{}",
        show.stdout
    );
    let missing = with_db(&db, &["db", "show", "nope"]);
    assert_eq!(missing.code, 2);
    let verify = with_db(&db, &["db", "verify"]);
    assert_eq!(verify.code, 0, "{}", verify.stdout);
    assert!(
        verify
            .stdout
            .contains("2 entries, 2 blocks, 0 orphan blocks, 0 problems"),
        "{}",
        verify.stdout
    );
    assert_eq!(with_db(&db, &["db", "prune"]).code, 2);
    let pruned = with_db(&db, &["db", "prune", "--family", "nim", "--older-than", "1"]);
    assert!(pruned.stdout.contains("removed 2 entries"), "{}", pruned.stdout);
    assert!(with_db(&db, &["db", "list"]).stdout.contains("0 entries"));
}

fn tamper(db: &Path, f: impl FnOnce(&redb::WriteTransaction)) {
    let d = redb::Database::create(db).unwrap();
    let w = d.begin_write().unwrap();
    f(&w);
    w.commit().unwrap();
}

#[test]
fn entries_of_another_version_are_not_trusted() {
    let db = fresh_store("version");
    assert_eq!(with_db(&db, &["solve", "nim", "3", "5", "7"]).code, 0);
    // Make the entry look written by another grundy, with a wrong answer in it.
    let key = "analysis/nim/normal/-/-/-/-/3 5 7";
    let store = grundy_store::Store::open(&db, "grundy 0.0.1 engine 0").unwrap();
    let fake = br#"{"family":"nim","position":"3 5 7","convention":"normal","grundy":42,"outcome":"second","remoteness":null,"winning_moves":[],"moves":[]}"#;
    let entry = grundy_store::NewEntry {
        key,
        kind: "analysis",
        family: "nim",
        summary: "old",
    };
    store.put(&entry, fake).unwrap();
    drop(store);
    assert!(with_db(&db, &["db", "list"]).stdout.contains("(other version)"));
    let r = with_db(&db, &["solve", "nim", "3", "5", "7"]);
    assert!(r.stdout.contains("grundy value:  1"), "{}", r.stdout);
    // It was recomputed and replaced.
    assert!(!with_db(&db, &["db", "list"]).stdout.contains("(other version)"));
    let stale = with_db(&db, &["db", "prune", "--stale"]);
    assert!(stale.stdout.contains("removed 0 entries"));
}

#[test]
fn a_newer_store_is_left_alone_and_the_answer_still_given() {
    let db = fresh_store("newer");
    assert_eq!(with_db(&db, &["solve", "nim", "2", "3"]).code, 0);
    tamper(&db, |w| {
        let def: redb::TableDefinition<&str, &str> = redb::TableDefinition::new("grundy_meta");
        w.open_table(def).unwrap().insert("format", "7").unwrap();
    });
    let r = with_db(&db, &["solve", "nim", "2", "3"]);
    assert_eq!(r.code, 0);
    assert!(r.stdout.contains("grundy value:  1"));
    assert!(
        r.stderr.contains("not using the store") && r.stderr.contains("newer"),
        "{}",
        r.stderr
    );
    let v = with_db(&db, &["db", "verify"]);
    assert_eq!(v.code, 1);
    assert!(v.stderr.contains("format 7"), "{}", v.stderr);
    // A file that is no database at all: the answer is still given.
    let junk = fresh_store("junk");
    std::fs::create_dir_all(junk.parent().unwrap()).unwrap();
    std::fs::write(&junk, b"not a database").unwrap();
    let r = with_db(&junk, &["solve", "nim", "2", "3"]);
    assert_eq!(r.code, 0);
    assert!(r.stderr.contains("not using the store"), "{}", r.stderr);
}

#[test]
fn damaged_entries_are_reported_and_pruned() {
    let db = fresh_store("damaged");
    assert_eq!(with_db(&db, &["solve", "nim", "3", "5", "7"]).code, 0);
    tamper(&db, |w| {
        let def: redb::TableDefinition<(&str, u32), &[u8]> = redb::TableDefinition::new("grundy_blocks");
        let bogus = [0x28, 0xb5, 0x2f, 0xfd, 0, 0, 0];
        w.open_table(def)
            .unwrap()
            .insert(("analysis/nim/normal/-/-/-/-/3 5 7", 0), &bogus[..])
            .unwrap();
    });
    let v = with_db(&db, &["db", "verify"]);
    assert_eq!(v.code, 1);
    assert!(
        v.stdout
            .contains("problem: store entry 'analysis/nim/normal/-/-/-/-/3 5 7' is damaged"),
        "{}",
        v.stdout
    );
    // solve notices, answers anyway and rewrites the entry.
    let r = with_db(&db, &["solve", "nim", "3", "5", "7"]);
    assert!(r.stdout.contains("grundy value:  1"));
    assert!(r.stderr.contains("damaged"), "{}", r.stderr);
    assert_eq!(with_db(&db, &["db", "verify"]).code, 0);
}

/// `grundy serve` writing tables to its store is killed with SIGKILL while requests are in
/// flight: the store still verifies, and every table answered before the kill is in it.
#[test]
#[cfg(unix)]
fn serve_killed_mid_write_leaves_a_sound_store() {
    use std::process::Command;
    let db = fresh_store("serve-kill");
    let (mut server, addr, _err) = common::serve(Command::new(env!("CARGO_BIN_EXE_grundy")).args([
        "--db",
        db.to_str().unwrap(),
        "serve",
        "--addr",
        "127.0.0.1:0",
    ]));
    let post = |body: &str| common::post(&addr, "/api/table", body);
    let mut answered = Vec::new();
    for size in 1..=12 {
        let body = format!(r#"{{"family":"nim","size":{size}}}"#);
        let out = post(&body).expect("the server answers");
        assert!(out.starts_with("HTTP/1.1 200"), "{out}");
        answered.push(size);
    }
    // Requests in flight while the server is killed.
    let addr2 = addr.clone();
    let flight = std::thread::spawn(move || {
        for size in 13..=40 {
            let body = format!(r#"{{"family":"cutting","size":{size}}}"#);
            if common::post(&addr2, "/api/table", &body).is_none() {
                break;
            }
        }
    });
    std::thread::sleep(std::time::Duration::from_millis(300));
    server.kill().unwrap(); // SIGKILL
    server.wait().unwrap();
    flight.join().unwrap();
    let verify = with_db(&db, &["db", "verify"]);
    assert_eq!(verify.code, 0, "{}{}", verify.stdout, verify.stderr);
    let list = with_db(&db, &["db", "list"]).stdout;
    for size in answered {
        assert!(
            list.contains(&format!("table/nim/{size}\t")),
            "table/nim/{size} lost:\n{list}"
        );
    }
    let show = with_db(&db, &["db", "show", "table/nim/5"]);
    assert!(show.stdout.contains("values:   0 1 2 3 4"), "{}", show.stdout);
}

#[test]
fn play_keeps_the_positions_it_analyses() {
    let db = fresh_store("play");
    let args = ["--db", db.to_str().unwrap(), "play", "nim", "1", "2"];
    let r = grundy_env(&args, "2:2->1\n1:1->0\n", &[]);
    assert!(r.stdout.ends_with("no move left: you win\n"), "{}", r.stdout);
    let list = with_db(&db, &["db", "list"]).stdout;
    // 1 2, then 1 1 (engine to move), then 1; the end (0) is not analysed: the last move's
    // remoteness 0 says no move is left.
    assert!(list.contains("3 entries"), "{list}");
    assert!(list.contains("nim 1 1: grundy 0"), "{list}");
    // Played again, the same game comes from the store: no search needed, so even a limit
    // of one stored position is enough (without the store it is not).
    let tight = [&args[..], &["--max-positions", "1"]].concat();
    let again = grundy_env(&tight, "2:2->1\n1:1->0\n", &[]);
    assert_eq!(again.stdout, r.stdout, "{}", again.stderr);
    let without = grundy_env(&[&["--no-db"], &tight[2..]].concat(), "2:2->1\n1:1->0\n", &[]);
    assert_eq!(without.code, 1, "{}", without.stdout);
    assert!(with_db(&db, &["db", "list"]).stdout.contains("3 entries"));
}

#[test]
fn reading_a_missing_store_creates_nothing() {
    let dir = std::env::temp_dir().join(format!("grundy-db-missing-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let path = dir.join("new").join("x.redb");
    let list = with_db(&path, &["db", "list"]);
    assert_eq!(list.code, 0, "{}", list.stderr);
    assert!(list.stdout.contains("0 entries"), "{}", list.stdout);
    for args in [
        &["db", "show", "seq/0.77"][..],
        &["db", "verify"],
        &["db", "prune", "--all"],
    ] {
        let r = with_db(&path, args);
        common::assert_usage_error(&r, "no store at");
    }
    assert!(!dir.exists(), "a read created {}", dir.display());
}
