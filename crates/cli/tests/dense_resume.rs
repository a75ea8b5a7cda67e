//! `grundy solve --dense --checkpoint DIR` on one process: each finished tier kept in DIR,
//! a stopped solve resumed from them with the same answer byte for byte, damaged tier files
//! solved again, foreign ones and bad folders refused (docs/cluster.md). Without a folder
//! given, a solve with a store keeps its tiers beside it (STORE.dense-tiers/NAME) until the
//! answer is in the store: a killed or timed-out solve resumes with the same command, `db
//! list` shows it `pending`, `db prune --kind pending` removes it; `--no-db` keeps nothing.

mod common;
use common::{no_db, stderr_of, stdout_of};
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

fn tier_files(dir: &Path) -> Vec<String> {
    let mut v: Vec<String> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    v.sort();
    v
}

#[test]
fn a_dense_solve_keeps_its_tiers_and_resumes_from_them() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("tiers");
    let d = dir.to_str().unwrap();
    let args = ["solve", "cram", "4x4", "--dense", "--json", "--checkpoint", d];
    let plain = no_db(&["solve", "cram", "4x4", "--dense", "--json"]);
    assert_eq!(plain.status.code(), Some(0), "{}", stderr_of(&plain));
    let first = no_db(&args);
    assert_eq!(first.status.code(), Some(0), "{}", stderr_of(&first));
    assert_eq!(stdout_of(&first), stdout_of(&plain));
    // Tiers 16, 14, ..., 0 (the empty cells of the parity class of the whole board).
    let want: Vec<String> = (0..=16)
        .step_by(2)
        .map(|t| format!("tier-{t:03}.grundy-tier"))
        .collect();
    assert_eq!(tier_files(&dir), want);
    // As if stopped after tier 12: the top two tiers gone, a half-written one left.
    std::fs::remove_file(dir.join("tier-016.grundy-tier")).unwrap();
    std::fs::remove_file(dir.join("tier-014.grundy-tier")).unwrap();
    std::fs::write(dir.join("tier-014.grundy-tier.tmp"), b"GRUNDYDT half").unwrap();
    let resumed = no_db(&args);
    assert_eq!(resumed.status.code(), Some(0), "{}", stderr_of(&resumed));
    assert_eq!(stdout_of(&resumed), stdout_of(&plain));
    let e = stderr_of(&resumed);
    assert!(e.contains("tier 12 read back from"), "{e}");
    assert_eq!(e.matches("read back").count(), 1, "only what tier 14 reads: {e}");
    assert_eq!(tier_files(&dir), want, "the temporary file is removed");
    // --resume: the same, the folder must exist.
    std::fs::remove_file(dir.join("tier-016.grundy-tier")).unwrap();
    let mut r = args.to_vec();
    r[5] = "--resume";
    let again = no_db(&r);
    assert_eq!(again.status.code(), Some(0), "{}", stderr_of(&again));
    assert_eq!(stdout_of(&again), stdout_of(&plain));
    assert!(
        stderr_of(&again).contains("tier 14 read back"),
        "{}",
        stderr_of(&again)
    );
    // A damaged tier (one byte of its records changed) is solved again, never used.
    let path = dir.join("tier-012.grundy-tier");
    let mut bytes = std::fs::read(&path).unwrap();
    let last = bytes.len() - 1;
    bytes[last] ^= 0x10;
    std::fs::write(&path, &bytes).unwrap();
    std::fs::remove_file(dir.join("tier-016.grundy-tier")).unwrap();
    std::fs::remove_file(dir.join("tier-014.grundy-tier")).unwrap();
    let fixed = no_db(&args);
    assert_eq!(fixed.status.code(), Some(0), "{}", stderr_of(&fixed));
    assert_eq!(stdout_of(&fixed), stdout_of(&plain));
    assert!(
        stderr_of(&fixed).contains("tier 12 solved again"),
        "{}",
        stderr_of(&fixed)
    );
    // Everything finished: read back, the same answer.
    let done = no_db(&args);
    assert_eq!(stdout_of(&done), stdout_of(&plain));
    assert!(
        stderr_of(&done).contains("tier 16 read back"),
        "{}",
        stderr_of(&done)
    );
}

#[test]
fn foreign_tiers_and_bad_folders_are_refused() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("tiers");
    let d = dir.to_str().unwrap();
    let o = no_db(&["solve", "cram", "3x3", "--dense", "--checkpoint", d]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr_of(&o));
    // Another board, another record: the folder is another solve's.
    for other in [
        vec!["solve", "cram", "3x4", "--dense", "--checkpoint", d],
        vec![
            "solve",
            "cram",
            "3x3",
            "--dense",
            "--record",
            "outcome",
            "--checkpoint",
            d,
        ],
        vec!["solve", "cram", "3x3", "--dense", "--misere", "--resume", d],
    ] {
        let o = no_db(&other);
        assert_eq!(o.status.code(), Some(2), "{other:?}: {}", stderr_of(&o));
        assert!(stderr_of(&o).contains("another solve"), "{}", stderr_of(&o));
        assert!(stdout_of(&o).is_empty());
    }
    let missing = tmp.path().join("none");
    let o = no_db(&[
        "solve",
        "cram",
        "3x3",
        "--dense",
        "--resume",
        missing.to_str().unwrap(),
    ]);
    assert_eq!(o.status.code(), Some(2), "{}", stderr_of(&o));
    assert!(stderr_of(&o).contains("no such folder"), "{}", stderr_of(&o));
    assert!(!missing.exists());
    let file = tmp.path().join("file");
    std::fs::write(&file, "x").unwrap();
    let o = no_db(&[
        "solve",
        "cram",
        "3x3",
        "--dense",
        "--checkpoint",
        file.to_str().unwrap(),
    ]);
    assert_eq!(o.status.code(), Some(2), "{}", stderr_of(&o));
    assert!(stderr_of(&o).contains("not a folder"), "{}", stderr_of(&o));
    let o = no_db(&[
        "solve",
        "cram",
        "3x3",
        "--dense",
        "--checkpoint",
        d,
        "--resume",
        "elsewhere",
    ]);
    assert_eq!(o.status.code(), Some(2), "{}", stderr_of(&o));
    assert!(stderr_of(&o).contains("the same folder"), "{}", stderr_of(&o));
}

/// A lock file as grundy writes it, for a process `pid` on this host (no start time: a pid
/// that runs is taken to be that run).
fn lock_of(pid: u32) -> String {
    let host = std::fs::read_to_string("/proc/sys/kernel/hostname").unwrap_or_default();
    format!("grundy dense solve\npid {pid}\nhost {}\n", host.trim())
}

#[test]
fn two_runs_never_share_a_folder_of_tiers() {
    if !Path::new("/proc/self").exists() {
        return; // (processes are looked up in /proc)
    }
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("tiers");
    let d = dir.to_str().unwrap();
    let args = ["solve", "cram", "3x4", "--dense", "--checkpoint", d];
    let plain = no_db(&["solve", "cram", "3x4", "--dense"]);
    assert_eq!(plain.status.code(), Some(0), "{}", stderr_of(&plain));
    let first = no_db(&args);
    assert_eq!(first.status.code(), Some(0), "{}", stderr_of(&first));
    assert!(
        !dir.join("grundy-dense.lock").exists(),
        "the lock is removed at the end"
    );
    // A run holding the folder (this test's own process, alive on this host): refused, exit
    // 2, naming the folder and that run; its lock and the tiers are left alone.
    let live = lock_of(std::process::id());
    std::fs::write(dir.join("grundy-dense.lock"), &live).unwrap();
    let before = tier_files(&dir);
    let o = no_db(&args);
    assert_eq!(o.status.code(), Some(2), "{}", stderr_of(&o));
    let e = stderr_of(&o);
    assert!(e.contains(&format!("the folder {d} is in use")), "{e}");
    assert!(e.contains(&format!("pid {}", std::process::id())), "{e}");
    assert!(stdout_of(&o).is_empty());
    assert_eq!(
        std::fs::read_to_string(dir.join("grundy-dense.lock")).unwrap(),
        live
    );
    assert_eq!(tier_files(&dir), before);
    // The lock of a run that was killed (a pid no process has): taken over, with a message.
    std::fs::write(dir.join("grundy-dense.lock"), lock_of(999_999_999)).unwrap();
    std::fs::remove_file(dir.join("tier-012.grundy-tier")).unwrap();
    let o = no_db(&args);
    assert_eq!(o.status.code(), Some(0), "{}", stderr_of(&o));
    assert_eq!(stdout_of(&o), stdout_of(&plain));
    let e = stderr_of(&o);
    assert!(
        e.contains("took over the lock") && e.contains("pid 999999999"),
        "{e}"
    );
    assert!(!dir.join("grundy-dense.lock").exists());
}

const GRUNDY: &str = env!("CARGO_BIN_EXE_grundy");

/// `grundy --db STORE ARGS`.
fn with_store(store: &Path, args: &[&str]) -> Output {
    Command::new(GRUNDY)
        .arg("--db")
        .arg(store)
        .args(args)
        .stdin(Stdio::null())
        .output()
        .expect("grundy runs")
}

/// The folders of unfinished solves beside the store.
fn pending_folders(store: &Path) -> Vec<PathBuf> {
    let root = PathBuf::from(format!("{}.dense-tiers", store.display()));
    let mut v: Vec<PathBuf> = std::fs::read_dir(root)
        .map(|d| d.flatten().map(|e| e.path()).collect())
        .unwrap_or_default();
    v.sort();
    v
}

/// The finished tier files of a folder.
fn finished(dir: &Path) -> usize {
    std::fs::read_dir(dir)
        .map(|d| {
            d.flatten()
                .filter(|e| e.file_name().to_string_lossy().ends_with(".grundy-tier"))
                .count()
        })
        .unwrap_or(0)
}

/// The board solved and stopped: long enough (a second or more) to be stopped between
/// tiers, short enough for a test.
const BOARD: &str = "5x5";

#[test]
fn a_killed_store_backed_dense_solve_resumes_with_the_same_command() {
    let tmp = tempfile::tempdir().unwrap();
    let store = tmp.path().join("store.redb");
    let args = ["solve", "cram", BOARD, "--dense", "--json"];
    let plain = no_db(&args);
    assert_eq!(plain.status.code(), Some(0), "{}", stderr_of(&plain));
    // Killed (SIGKILL) once a few tiers are finished beside the store.
    let mut child = Command::new(GRUNDY)
        .arg("--db")
        .arg(&store)
        .args(args)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let started = Instant::now();
    let mut killed = false;
    while started.elapsed() < Duration::from_secs(300) {
        if pending_folders(&store).first().is_some_and(|d| finished(d) >= 6) {
            child.kill().unwrap();
            killed = true;
            break;
        }
        if child.try_wait().unwrap().is_some() {
            break;
        }
        std::thread::sleep(Duration::from_millis(2));
    }
    let status = child.wait().unwrap();
    assert!(
        killed && !status.success(),
        "the solve finished before the kill (make it longer?)"
    );
    let folders = pending_folders(&store);
    assert_eq!(folders.len(), 1, "{folders:?}");
    let dir = &folders[0];
    let name = dir.file_name().unwrap().to_string_lossy().into_owned();
    assert!(
        name.starts_with(&format!("cram-{BOARD}-normal-grundy-")),
        "{name}"
    );
    let kept = finished(dir);
    assert!(kept >= 6, "{kept}");
    // `db list` shows it as pending: its table's key, its tiers, its bytes.
    let list = with_store(&store, &["db", "list"]);
    assert_eq!(list.status.code(), Some(0), "{}", stderr_of(&list));
    let out = stdout_of(&list);
    let line = out
        .lines()
        .find(|l| l.contains("\tpending\t"))
        .unwrap_or_else(|| panic!("no pending line in {out}"));
    assert!(
        line.starts_with(&format!("dense/cram/{BOARD}/-/normal/grundy/")),
        "{line}"
    );
    assert!(
        line.contains(&format!("{kept} finished tiers in {}", dir.display())),
        "{line}"
    );
    assert!(out.contains("1 pending dense solves in"), "{out}");
    let json = with_store(&store, &["db", "list", "--json"]);
    let v: serde_json::Value = stdout_of(&json)
        .lines()
        .map(|l| serde_json::from_str::<serde_json::Value>(l).unwrap())
        .find(|v| v["kind"] == "pending")
        .expect("a pending object");
    assert_eq!(v["tiers"], kept);
    assert!(v["bytes"].as_u64().unwrap() > 0);
    assert_eq!(v["name"], name.as_str());
    // The same command resumes (the lock of the killed run taken over), prints what one
    // process from nothing prints, and removes the folder once the answer is in the store.
    let resumed = with_store(&store, &args);
    assert_eq!(resumed.status.code(), Some(0), "{}", stderr_of(&resumed));
    assert_eq!(stdout_of(&resumed), stdout_of(&plain));
    let e = stderr_of(&resumed);
    assert!(e.contains(&format!("read back from {}", dir.display())), "{e}");
    assert!(e.contains("took over the lock"), "{e}");
    assert!(!dir.exists(), "the folder is removed once the answer is kept");
    assert!(pending_folders(&store).is_empty());
    // Asked again: the store answers, no folder is made.
    let again = with_store(&store, &args);
    assert_eq!(stdout_of(&again), stdout_of(&plain));
    assert!(
        stderr_of(&again).contains("answered from the store"),
        "{}",
        stderr_of(&again)
    );
    assert!(pending_folders(&store).is_empty());
    let list = with_store(&store, &["db", "list"]);
    assert!(!stdout_of(&list).contains("pending"), "{}", stdout_of(&list));
}

#[test]
fn a_timeout_stops_a_dense_solve_between_tiers_and_the_same_command_resumes() {
    let tmp = tempfile::tempdir().unwrap();
    let store = tmp.path().join("store.redb");
    let args = ["solve", "cram", BOARD, "--dense", "--json"];
    let plain = no_db(&args);
    assert_eq!(plain.status.code(), Some(0), "{}", stderr_of(&plain));
    let mut timed = args.to_vec();
    timed.extend(["--timeout", "0.2"]);
    let stopped = with_store(&store, &timed);
    assert_eq!(stopped.status.code(), Some(1), "{}", stderr_of(&stopped));
    assert!(stdout_of(&stopped).is_empty());
    let folders = pending_folders(&store);
    assert_eq!(folders.len(), 1, "{folders:?}");
    let dir = &folders[0];
    let e = stderr_of(&stopped);
    assert!(
        e.contains("the dense solve was stopped after tier")
            && e.contains(&format!(
                "by --timeout; the finished tiers are kept in {}: the same command resumes from them",
                dir.display()
            )),
        "{e}"
    );
    assert!(finished(dir) > 0);
    assert!(!dir.join("grundy-dense.lock").exists(), "the lock is released");
    // The same command, given the time, resumes and finishes.
    let resumed = with_store(&store, &args);
    assert_eq!(resumed.status.code(), Some(0), "{}", stderr_of(&resumed));
    assert_eq!(stdout_of(&resumed), stdout_of(&plain));
    assert!(
        stderr_of(&resumed).contains("read back from"),
        "{}",
        stderr_of(&resumed)
    );
    assert!(pending_folders(&store).is_empty());
    // Without a store: stopped the same way, nothing kept anywhere.
    let o = Command::new(GRUNDY)
        .arg("--no-db")
        .args(&timed)
        .env("GRUNDY_DB", tmp.path().join("other.redb"))
        .stdin(Stdio::null())
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(1), "{}", stderr_of(&o));
    assert!(stderr_of(&o).contains("nothing is kept"), "{}", stderr_of(&o));
    let names: Vec<String> = std::fs::read_dir(tmp.path())
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    assert!(names.iter().all(|n| !n.starts_with("other")), "{names:?}");
    // A bad timeout is refused before anything runs.
    let o = with_store(&store, &["solve", "cram", "3x3", "--dense", "--timeout", "0"]);
    assert_eq!(o.status.code(), Some(2), "{}", stderr_of(&o));
    assert!(pending_folders(&store).is_empty());
}

#[test]
fn pending_dense_solves_are_pruned_unless_in_use() {
    let tmp = tempfile::tempdir().unwrap();
    let store = tmp.path().join("store.redb");
    let stopped = with_store(&store, &["solve", "cram", BOARD, "--dense", "--timeout", "0.2"]);
    assert_eq!(stopped.status.code(), Some(1), "{}", stderr_of(&stopped));
    let dir = pending_folders(&store).pop().expect("a pending solve");
    // A small solve answered whole: never pending.
    let small = with_store(&store, &["solve", "cram", "3x3", "--dense"]);
    assert_eq!(small.status.code(), Some(0), "{}", stderr_of(&small));
    assert_eq!(pending_folders(&store), vec![dir.clone()]);
    // Another kind, another family: the pending solve stays.
    for other in [&["--kind", "seq"][..], &["--family", "graph"]] {
        let mut a = vec!["db", "prune"];
        a.extend_from_slice(other);
        let o = with_store(&store, &a);
        assert_eq!(o.status.code(), Some(0), "{}", stderr_of(&o));
        assert!(dir.exists());
    }
    // In use by a run (this test's own process, alive): kept, saying why.
    let host = std::fs::read_to_string("/proc/sys/kernel/hostname").unwrap_or_default();
    let live = format!(
        "grundy dense solve\npid {}\nhost {}\n",
        std::process::id(),
        host.trim()
    );
    std::fs::write(dir.join("grundy-dense.lock"), &live).unwrap();
    let list = with_store(&store, &["db", "list"]);
    assert!(
        stdout_of(&list).contains(&format!("(in use by pid {}", std::process::id())),
        "{}",
        stdout_of(&list)
    );
    // The same solve meanwhile: it goes on without keeping tiers, and leaves the folder be.
    let before = std::fs::read_dir(&dir).unwrap().count();
    let o = with_store(&store, &["solve", "cram", BOARD, "--dense"]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr_of(&o));
    assert!(
        stderr_of(&o).contains("note: the finished tiers are not kept: the folder"),
        "{}",
        stderr_of(&o)
    );
    assert_eq!(std::fs::read_dir(&dir).unwrap().count(), before);
    let o = with_store(&store, &["db", "prune", "--kind", "pending"]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr_of(&o));
    assert!(
        stdout_of(&o).contains("removed 0 of 1 pending dense solves"),
        "{}",
        stdout_of(&o)
    );
    assert!(
        stderr_of(&o).contains("is in use by another grundy run"),
        "{}",
        stderr_of(&o)
    );
    assert!(dir.join("tier-001.grundy-tier").exists());
    assert_eq!(
        std::fs::read_to_string(dir.join("grundy-dense.lock")).unwrap(),
        live
    );
    // Free: removed; the store's entries stay.
    std::fs::remove_file(dir.join("grundy-dense.lock")).unwrap();
    let o = with_store(&store, &["db", "prune", "--kind", "pending"]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr_of(&o));
    assert!(
        stdout_of(&o).contains("removed 1 of 1 pending dense solves"),
        "{}",
        stdout_of(&o)
    );
    assert!(!dir.exists());
    let small = with_store(&store, &["solve", "cram", "3x3", "--dense"]);
    assert!(
        stderr_of(&small).contains("answered from the store"),
        "{}",
        stderr_of(&small)
    );
    // An unknown kind names pending among the known ones.
    let o = with_store(&store, &["db", "prune", "--kind", "pendings"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr_of(&o).contains("dense, pending"), "{}", stderr_of(&o));
}

#[test]
fn a_checkpoint_folder_is_the_users_even_with_a_store() {
    let tmp = tempfile::tempdir().unwrap();
    let store = tmp.path().join("store.redb");
    let dir = tmp.path().join("tiers");
    let o = with_store(
        &store,
        &[
            "solve",
            "cram",
            "3x4",
            "--dense",
            "--checkpoint",
            dir.to_str().unwrap(),
        ],
    );
    assert_eq!(o.status.code(), Some(0), "{}", stderr_of(&o));
    assert!(finished(&dir) > 0, "kept after the solve");
    assert!(pending_folders(&store).is_empty());
}
