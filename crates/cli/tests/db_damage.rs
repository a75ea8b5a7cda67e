//! A store file damaged one byte at a time: a byte flipped at every page boundary of a small
//! store, and one inside every page. Whatever the damage, no command panics (exit 101, or
//! "panicked" on stderr) or dies of a signal; `solve` still answers (going on without the
//! store); `db verify` never says a damaged file is sound when redb's own reading fails; and
//! `db repair` keeps only entries that read back exactly as they were written, including
//! every entry the damaged store could still serve.

mod common;
use common::{fresh_store, with_db, Run};
use std::collections::BTreeMap;
use std::path::Path;

/// redb's page size (its default, part of its file format; not configurable in release
/// builds of redb).
const PAGE: usize = 4096;

/// The command ran to an end of its own: no panic, no signal.
fn no_panic(r: &Run, what: &str) {
    assert!(r.code >= 0, "{what}: killed by a signal; stderr: {}", r.stderr);
    assert_ne!(r.code, 101, "{what}: panicked; stderr: {}", r.stderr);
    assert!(!r.stderr.contains("panicked"), "{what}: {}", r.stderr);
}

/// A small store with several entries: its bytes, and `db show` of each key.
fn pristine() -> (Vec<u8>, BTreeMap<String, String>) {
    let db = fresh_store("damage", "pristine");
    for args in [
        &["solve", "nim", "3", "5", "7"][..],
        &["solve", "nim", "4", "4"],
        &["solve", "nim", "1", "2", "3", "4", "--misere"],
        &["solve", "0.77", "3", "9"],
        &["seq", "0.77", "-n", "3000", "-q"],
        &["seq", "0.137", "-n", "500", "-q"],
    ] {
        let r = with_db(&db, args);
        assert_eq!(r.code, 0, "{args:?}: {}", r.stderr);
    }
    let list = with_db(&db, &["db", "list", "--json"]);
    assert_eq!(list.code, 0, "{}", list.stderr);
    let mut shown = BTreeMap::new();
    for line in list.stdout.lines() {
        let v: serde_json::Value = serde_json::from_str(line).expect("a JSON record");
        let key = v["key"].as_str().expect("a key").to_string();
        let show = with_db(&db, &["db", "show", &key]);
        assert_eq!(show.code, 0, "{}", show.stderr);
        shown.insert(key, show.stdout);
    }
    assert!(shown.len() >= 6, "{shown:?}");
    (std::fs::read(&db).expect("the store"), shown)
}

/// `bytes` with the byte at `at` flipped, written to a store of its own.
fn damaged_copy(bytes: &[u8], at: usize, name: &str) -> std::path::PathBuf {
    let db = fresh_store("damage", name);
    std::fs::create_dir_all(db.parent().unwrap()).unwrap();
    let mut b = bytes.to_vec();
    b[at] ^= 0xff;
    std::fs::write(&db, &b).unwrap();
    db
}

/// The entries `db show` still serves as written, from the store at `db`.
fn served(db: &Path, shown: &BTreeMap<String, String>, what: &str) -> Vec<String> {
    let mut ok = Vec::new();
    for (key, want) in shown {
        let r = with_db(db, &["db", "show", key]);
        no_panic(&r, &format!("{what}: db show {key}"));
        if r.code == 0 && &r.stdout == want {
            ok.push(key.clone());
        }
    }
    ok
}

#[test]
fn a_flipped_byte_anywhere_never_panics_and_repair_keeps_what_is_sound() {
    let start = std::time::Instant::now();
    let (bytes, shown) = pristine();
    assert_eq!(bytes.len() % PAGE, 0, "a redb file is whole pages");
    let pages = bytes.len() / PAGE;
    let mut damaged_found = 0;
    let mut kept_total = 0;
    let mut cases = 0;
    for page in 0..pages {
        for at in [page * PAGE, page * PAGE + PAGE / 2 + 17] {
            cases += 1;
            let what = format!("byte {at} (page {page})");
            // Reading: list, every entry, verify; then a solve that saves a new entry.
            let db = damaged_copy(&bytes, at, "read");
            let list = with_db(&db, &["db", "list"]);
            no_panic(&list, &format!("{what}: db list"));
            let before = served(&db, &shown, &what);
            let verify = with_db(&db, &["db", "verify"]);
            no_panic(&verify, &format!("{what}: db verify"));
            assert!(
                verify.code == 0 || verify.code == 1,
                "{what}: verify exit {}",
                verify.code
            );
            if verify.code == 1 {
                damaged_found += 1;
                assert!(
                    verify.stderr.contains("grundy db repair") || verify.stderr.contains("prune"),
                    "{what}: {}",
                    verify.stderr
                );
            }
            if before.len() < shown.len() {
                // An entry the store no longer serves: verify must have seen it.
                assert_eq!(verify.code, 1, "{what}: {}{}", verify.stdout, verify.stderr);
            }
            let solve = with_db(&db, &["solve", "nim", "2", "3"]);
            no_panic(&solve, &format!("{what}: solve"));
            assert_eq!(solve.code, 0, "{what}: {}", solve.stderr);
            assert!(
                solve.stdout.contains("grundy value:  1"),
                "{what}: {}",
                solve.stdout
            );
            no_panic(
                &with_db(&db, &["db", "list"]),
                &format!("{what}: db list after solve"),
            );
            let _ = std::fs::remove_dir_all(db.parent().unwrap());

            // Repair of a fresh damaged copy: keeps only sound entries, and every one the
            // damaged store still served; the damaged file is kept as it was.
            let db = damaged_copy(&bytes, at, "repair");
            let flipped = std::fs::read(&db).unwrap();
            let r = with_db(&db, &["db", "repair", "--json"]);
            no_panic(&r, &format!("{what}: db repair"));
            assert_eq!(r.code, 0, "{what}: {}", r.stderr);
            let report: serde_json::Value = serde_json::from_str(&r.stdout).expect("JSON");
            let kept: Vec<String> = report["kept"]
                .as_array()
                .unwrap()
                .iter()
                .map(|k| k.as_str().unwrap().to_string())
                .collect();
            let backup = report["backup"].as_str().unwrap();
            assert_eq!(
                std::fs::read(backup).unwrap(),
                flipped,
                "{what}: the damaged file is kept"
            );
            for key in &before {
                assert!(kept.contains(key), "{what}: repair lost {key}: {}", r.stdout);
            }
            let after = served(&db, &shown, &what);
            for key in &kept {
                assert!(after.contains(key), "{what}: {key} kept but not as written");
            }
            let v = with_db(&db, &["db", "verify"]);
            assert_eq!(
                v.code, 0,
                "{what}: the repaired store verifies: {}{}",
                v.stdout, v.stderr
            );
            kept_total += kept.len();
            let _ = std::fs::remove_dir_all(db.parent().unwrap());
        }
    }
    eprintln!(
        "{cases} damaged copies of a {pages}-page store: verify found damage in {damaged_found}, \
         repair kept {kept_total} of {} entries; {:.1} s",
        cases * shown.len(),
        start.elapsed().as_secs_f64()
    );
    assert!(damaged_found > 0);
}

#[test]
fn repair_of_a_sound_store_keeps_everything_and_of_a_missing_one_creates_nothing() {
    let db = fresh_store("damage", "sound");
    assert_eq!(with_db(&db, &["solve", "nim", "3", "5", "7"]).code, 0);
    assert_eq!(with_db(&db, &["seq", "0.77", "-n", "200", "-q"]).code, 0);
    let before = with_db(&db, &["db", "list", "--json"]).stdout;
    let r = with_db(&db, &["db", "repair"]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert!(r.stdout.contains("2 entries kept, 0 lost"), "{}", r.stdout);
    assert!(r.stdout.contains("kept: seq/0.77"), "{}", r.stdout);
    // The records are kept as they were (writer, date).
    assert_eq!(with_db(&db, &["db", "list", "--json"]).stdout, before);
    let backups: Vec<_> = std::fs::read_dir(db.parent().unwrap())
        .unwrap()
        .filter_map(|e| e.ok())
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .filter(|n| n.starts_with("store.redb.damaged-"))
        .collect();
    assert_eq!(backups.len(), 1, "{backups:?}");
    assert_eq!(with_db(&db, &["db", "verify"]).code, 0);

    let missing = fresh_store("damage", "missing");
    let r = with_db(&missing, &["db", "repair"]);
    common::assert_usage_error(&r, "no store at");
    assert!(!missing.parent().unwrap().exists(), "repair created the folder");
    let r = with_db(&missing, &["db", "verify"]);
    assert_eq!(r.code, 2);
    assert!(!missing.parent().unwrap().exists(), "verify created the folder");
}

#[test]
fn verify_changes_nothing() {
    let db = fresh_store("damage", "verify-ro");
    assert_eq!(with_db(&db, &["solve", "nim", "3", "5", "7"]).code, 0);
    let mut bytes = std::fs::read(&db).unwrap();
    let at = bytes.len() / 2;
    bytes[at] ^= 0x55;
    std::fs::write(&db, &bytes).unwrap();
    let r = with_db(&db, &["db", "verify"]);
    no_panic(&r, "verify");
    assert_eq!(std::fs::read(&db).unwrap(), bytes);
    let files = std::fs::read_dir(db.parent().unwrap()).unwrap().count();
    assert_eq!(files, 1, "verify made no file");
}
