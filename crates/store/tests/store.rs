//! The store: round trips, prune, verify, versions, foreign files, and crash safety (a
//! writer killed with SIGKILL mid-write loses nothing it had committed).

use grundy_store::{NewEntry, Store, StoreError, BLOCK_VALUES, NONE};
use std::io::{BufRead, BufReader};
use std::path::PathBuf;
use std::process::{Command, Stdio};
use std::time::Duration;

fn temp_path(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("grundy-store-test-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir.join("store.redb")
}

fn entry<'a>(key: &'a str) -> NewEntry<'a> {
    NewEntry {
        key,
        kind: "table",
        family: "test",
        summary: "a test entry",
    }
}

#[test]
fn round_trips_and_replaces() {
    let path = temp_path("roundtrip");
    let store = Store::open(&path, "test-1").unwrap();
    assert!(store.get("nope").unwrap().is_none());
    let payload = b"hello, store".to_vec();
    let info = store
        .put(
            &NewEntry {
                kind: "analysis",
                ..entry("a")
            },
            &payload,
        )
        .unwrap();
    assert_eq!((info.blocks, info.bytes, info.writer.as_str()), (1, 12, "test-1"));
    let (got, bytes) = store.get("a").unwrap().unwrap();
    assert_eq!(bytes, payload);
    assert_eq!(got, info);
    // Several blocks, replaced by a shorter array: no block of the old one survives.
    let long: Vec<u64> = (0..(BLOCK_VALUES as u64 * 2 + 5)).map(|i| i % 7).collect();
    assert_eq!(store.put_values(&entry("t"), &long).unwrap().blocks, 3);
    assert_eq!(store.get_values("t").unwrap().unwrap().1, long);
    let short = vec![1, NONE, 3];
    store.put_values(&entry("t"), &short).unwrap();
    assert_eq!(store.get_values("t").unwrap().unwrap().1, short);
    let report = store.verify().unwrap();
    assert_eq!((report.entries, report.blocks, report.orphan_blocks), (2, 2, 0));
    assert!(report.problems.is_empty());
    // Dense arrays compress: 2 × 65536 values of 8 bytes are far smaller on disk.
    drop(store);
    let store = Store::open(&path, "test-2").unwrap();
    let keys: Vec<String> = store.list().unwrap().into_iter().map(|e| e.key).collect();
    assert_eq!(keys, ["a", "t"]);
    assert_eq!(store.prune(|e| e.writer != "test-2").unwrap(), 2);
    assert!(store.list().unwrap().is_empty());
}

#[test]
fn lists_by_prefix() {
    let path = temp_path("prefix");
    let store = Store::open(&path, "test-1").unwrap();
    for key in [
        "dense/a/1",
        "dense/a/2",
        "dense/ab/1",
        "dense/b",
        "seq/x",
        "dense/",
    ] {
        store.put(&entry(key), b"x").unwrap();
    }
    let keys =
        |p: &str| -> Vec<String> { store.list_prefix(p).unwrap().into_iter().map(|e| e.key).collect() };
    assert_eq!(keys("dense/a/"), ["dense/a/1", "dense/a/2"]);
    assert_eq!(
        keys("dense/"),
        ["dense/", "dense/a/1", "dense/a/2", "dense/ab/1", "dense/b"]
    );
    assert_eq!(keys("seq/"), ["seq/x"]);
    assert!(keys("zzz").is_empty());
    assert_eq!(keys("").len(), 6);
}

#[test]
fn compressed_blocks_are_small() {
    let path = temp_path("compress");
    let store = Store::open(&path, "t").unwrap();
    let values: Vec<u64> = (0..BLOCK_VALUES as u64 * 4).map(|i| i % 3).collect();
    let info = store.put_values(&entry("k"), &values).unwrap();
    assert!(
        info.stored * 20 < info.bytes,
        "{} stored for {} bytes",
        info.stored,
        info.bytes
    );
}

#[test]
fn damaged_blocks_are_detected_not_misread() {
    let path = temp_path("damage");
    {
        let store = Store::open(&path, "t").unwrap();
        store.put_values(&entry("k"), &[1, 2, 3, 4]).unwrap();
        store.put_values(&entry("m"), &[5]).unwrap();
    }
    // Overwrite a block behind the store's back with another valid zstd frame.
    {
        let db = redb::Database::create(&path).unwrap();
        let w = db.begin_write().unwrap();
        {
            let def: redb::TableDefinition<(&str, u32), &[u8]> = redb::TableDefinition::new("grundy_blocks");
            let mut t = w.open_table(def).unwrap();
            let fake = zstd::bulk::compress(&[9u8; 32], 3).unwrap();
            t.insert(("k", 0), fake.as_slice()).unwrap();
            t.insert(("ghost", 0), fake.as_slice()).unwrap();
        }
        w.commit().unwrap();
    }
    let store = Store::open(&path, "t").unwrap();
    match store.get_values("k") {
        Err(StoreError::Corrupt { key, what }) => {
            assert_eq!(key, "k");
            assert!(what.contains("checksum"), "{what}");
        }
        other => panic!("expected a checksum error, got {other:?}"),
    }
    assert_eq!(store.get_values("m").unwrap().unwrap().1, [5]);
    let report = store.verify().unwrap();
    assert_eq!(report.problems.len(), 1, "{:?}", report.problems);
    assert_eq!(report.orphan_blocks, 1);
    // Prune removes the orphan block (and the damaged entry when asked to).
    assert_eq!(store.prune(|e| e.key == "k").unwrap(), 1);
    let report = store.verify().unwrap();
    assert_eq!(
        (report.problems.len(), report.orphan_blocks, report.entries),
        (0, 0, 1)
    );
}

#[test]
fn newer_formats_and_foreign_files_are_refused() {
    let path = temp_path("newer");
    drop(Store::open(&path, "t").unwrap());
    {
        let db = redb::Database::create(&path).unwrap();
        let w = db.begin_write().unwrap();
        {
            let def: redb::TableDefinition<&str, &str> = redb::TableDefinition::new("grundy_meta");
            w.open_table(def).unwrap().insert("format", "99").unwrap();
        }
        w.commit().unwrap();
    }
    match Store::open(&path, "t") {
        Err(e @ StoreError::NewerFormat { found: 99, .. }) => assert!(e.to_string().contains("newer")),
        Err(e) => panic!("expected NewerFormat, got {e}"),
        Ok(_) => panic!("expected NewerFormat, got a store"),
    }
    // Another program's redb file.
    let other = temp_path("foreign");
    {
        let db = redb::Database::create(&other).unwrap();
        let w = db.begin_write().unwrap();
        {
            let def: redb::TableDefinition<&str, u64> = redb::TableDefinition::new("their_table");
            w.open_table(def).unwrap().insert("x", 1).unwrap();
        }
        w.commit().unwrap();
    }
    assert!(matches!(Store::open(&other, "t"), Err(StoreError::NotAStore(_))));
    // Not a database at all.
    let junk = temp_path("junk");
    std::fs::write(&junk, vec![0x5a; 10_000]).unwrap();
    let e = Store::open(&junk, "t").expect_err("junk is refused");
    assert!(matches!(e, StoreError::Open { .. }), "{e}");
}

#[test]
fn two_handles_share_one_store() {
    let path = temp_path("shared");
    let a = Store::open(&path, "t").unwrap();
    let b = Store::open(&path, "t");
    // Within one process redb allows one handle; across processes (the server and the CLI)
    // both may write. Here we only require a clean answer either way.
    if let Ok(b) = b {
        b.put_values(&entry("x"), &[1]).unwrap();
    }
    a.put_values(&entry("y"), &[2]).unwrap();
    assert!(a.get_values("y").unwrap().is_some());
}

/// The child side of the crash test: writes committed entries forever, reporting each.
#[test]
fn crash_child_writer() {
    let Some(path) = std::env::var_os("GRUNDY_STORE_CRASH_CHILD") else {
        return; // only runs when the crash test starts it
    };
    let store = Store::open(std::path::Path::new(&path), "crash").unwrap();
    for i in 0u64.. {
        // Entries of varying size, some over several blocks.
        let n = 1 + (i as usize * 7919) % (BLOCK_VALUES * 2);
        let values: Vec<u64> = (0..n as u64).map(|v| v.wrapping_mul(i + 1) % 1000).collect();
        store.put_values(&entry(&format!("e{i:06}")), &values).unwrap();
        println!("committed {i} {n}");
    }
}

#[test]
#[cfg(unix)]
fn sigkill_during_writes_loses_nothing_committed() {
    let path = temp_path("crash");
    let exe = std::env::current_exe().unwrap();
    let mut committed: Vec<(u64, usize)> = Vec::new();
    for round in 0..6u64 {
        let mut child = Command::new(&exe)
            .args(["--exact", "crash_child_writer", "--nocapture", "--test-threads=1"])
            .env("GRUNDY_STORE_CRASH_CHILD", &path)
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        let mut lines = BufReader::new(child.stdout.take().unwrap()).lines();
        // Let it commit a few entries (more each round), then kill it mid-write.
        let want = 3 + round as usize * 4;
        let mut seen = 0;
        while seen < want {
            let Some(Ok(line)) = lines.next() else { break };
            if let Some(rest) = line.strip_prefix("committed ") {
                let mut it = rest.split(' ');
                let i: u64 = it.next().unwrap().parse().unwrap();
                let n: usize = it.next().unwrap().parse().unwrap();
                committed.push((i, n));
                seen += 1;
            }
        }
        std::thread::sleep(Duration::from_millis(3 * round));
        child.kill().unwrap(); // SIGKILL
        child.wait().unwrap();
        // Lines written before the kill but not yet read are commits too.
        for line in lines.map_while(Result::ok) {
            if let Some(rest) = line.strip_prefix("committed ") {
                let mut it = rest.split(' ');
                committed.push((
                    it.next().unwrap().parse().unwrap(),
                    it.next().unwrap().parse().unwrap(),
                ));
            }
        }
        assert!(seen >= want, "the writer stopped early in round {round}");
        // The store opens (repairing if needed), verifies clean, and holds every commit.
        let store = Store::open(&path, "check").unwrap();
        let report = store.verify().unwrap();
        assert!(report.problems.is_empty(), "round {round}: {:?}", report.problems);
        for &(i, n) in &committed {
            let key = format!("e{i:06}");
            let (_, values) = store
                .get_values(&key)
                .unwrap()
                .unwrap_or_else(|| panic!("{key} lost"));
            assert_eq!(values.len(), n, "{key}");
            assert!(values
                .iter()
                .enumerate()
                .all(|(v, &x)| x == (v as u64).wrapping_mul(i + 1) % 1000));
        }
    }
}
