//! `grundy solve --dense --checkpoint DIR` on one process: each finished tier kept in DIR,
//! a stopped solve resumed from them with the same answer byte for byte, damaged tier files
//! solved again, foreign ones and bad folders refused (docs/cluster.md).

mod common;
use common::{no_db, stderr_of, stdout_of};
use std::path::Path;

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
