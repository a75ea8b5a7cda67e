//! `grundy solve cram --checkpoint FILE / --resume FILE`: a run killed with SIGKILL, or
//! stopped by --max-positions, resumes with the same answer; checkpoints of another board,
//! damaged ones and files that are not checkpoints are refused (exit 2).

mod common;
use common::{no_db, stderr_of, stdout_of};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// The board of these tests: a few seconds of search in a debug build, many moves (so the
/// first checkpoint, written once the first move is settled, comes early).
const BOARD: &str = "5x6";

fn path_str(p: &std::path::Path) -> &str {
    p.to_str().expect("a UTF-8 temp path")
}

#[test]
fn killed_run_resumes_with_the_same_answer() {
    let dir = tempfile::tempdir().unwrap();
    let ck = dir.path().join("cram.ckpt");
    let mut child = Command::new(env!("CARGO_BIN_EXE_grundy"))
        .args([
            "--no-db",
            "solve",
            "cram",
            BOARD,
            "--json",
            "--checkpoint",
            path_str(&ck),
        ])
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    // Kill it as soon as a checkpoint is there (or after 20 s whatever happens).
    let start = Instant::now();
    while !ck.exists() && start.elapsed() < Duration::from_secs(20) {
        std::thread::sleep(Duration::from_millis(5));
    }
    child.kill().unwrap(); // SIGKILL
    let _ = child.wait();
    assert!(ck.exists(), "no checkpoint written");
    let resumed = no_db(&["solve", "cram", BOARD, "--json", "--resume", path_str(&ck)]);
    assert_eq!(resumed.status.code(), Some(0), "{}", stderr_of(&resumed));
    let full = no_db(&["solve", "cram", BOARD, "--json"]);
    assert_eq!(stdout_of(&full), stdout_of(&resumed));
    let v: serde_json::Value = serde_json::from_str(&stdout_of(&full)).unwrap();
    // Published (Glop; Beling's table): Cram 5x6 has the value 2.
    assert_eq!(v["grundy"], 2);
    // No temporary file is left behind.
    let names: Vec<_> = std::fs::read_dir(dir.path())
        .unwrap()
        .map(|e| e.unwrap().file_name())
        .collect();
    assert_eq!(names.len(), 1, "{names:?}");
}

#[test]
fn a_limit_stops_with_the_checkpoint_written() {
    let dir = tempfile::tempdir().unwrap();
    let ck = dir.path().join("cram.ckpt");
    let ck = path_str(&ck);
    let board = "3x9";
    let stopped = no_db(&[
        "solve",
        "cram",
        board,
        "--checkpoint",
        ck,
        "--max-positions",
        "300",
    ]);
    assert_eq!(stopped.status.code(), Some(1), "{}", stderr_of(&stopped));
    let err = stderr_of(&stopped);
    assert!(
        err.contains("--max-positions") && err.contains("--resume"),
        "{err}"
    );
    let resumed = no_db(&["solve", "cram", board, "--resume", ck]);
    assert_eq!(resumed.status.code(), Some(0), "{}", stderr_of(&resumed));
    let full = no_db(&["solve", "cram", board]);
    assert_eq!(stdout_of(&full), stdout_of(&resumed));
    assert!(stdout_of(&full).contains("grundy value:  "));
    // A deadline stops the same way (exit 1), the checkpoint still there.
    let timed = no_db(&["solve", "cram", "5x9", "--checkpoint", ck, "--timeout", "0.3"]);
    assert_eq!(timed.status.code(), Some(1), "{}", stderr_of(&timed));
    assert!(stderr_of(&timed).contains("--resume"), "{}", stderr_of(&timed));
}

#[test]
fn wrong_damaged_or_foreign_checkpoints_are_refused() {
    let dir = tempfile::tempdir().unwrap();
    let ck = dir.path().join("cram.ckpt");
    let ck_s = path_str(&ck);
    let o = no_db(&["solve", "cram", "3x5", "--checkpoint", ck_s]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr_of(&o));
    // Another board: refused, exit 2, and the checkpoint left as it was.
    let before = std::fs::read(&ck).unwrap();
    let o = no_db(&["solve", "cram", "3x6", "--resume", ck_s]);
    assert_eq!(o.status.code(), Some(2), "{}", stderr_of(&o));
    assert!(
        stderr_of(&o).contains("is of cram 3x5, not of cram 3x6"),
        "{}",
        stderr_of(&o)
    );
    assert_eq!(std::fs::read(&ck).unwrap(), before);
    // With every move valued is another run.
    let o = no_db(&["solve", "cram", "3x5", "--all-moves", "--resume", ck_s]);
    assert_eq!(o.status.code(), Some(2), "{}", stderr_of(&o));
    // A damaged byte anywhere: refused.
    let mut bad = before.clone();
    let i = bad.len() - 3;
    bad[i] ^= 0x04;
    std::fs::write(&ck, &bad).unwrap();
    let o = no_db(&["solve", "cram", "3x5", "--resume", ck_s]);
    assert_eq!(o.status.code(), Some(2), "{}", stderr_of(&o));
    assert!(stderr_of(&o).contains("damaged checkpoint"), "{}", stderr_of(&o));
    // Not a checkpoint at all: refused as a resume, and as a checkpoint to write over.
    let other = dir.path().join("notes.txt");
    std::fs::write(&other, "my notes").unwrap();
    let o = no_db(&["solve", "cram", "3x5", "--resume", path_str(&other)]);
    assert_eq!(o.status.code(), Some(2), "{}", stderr_of(&o));
    let o = no_db(&["solve", "cram", "3x5", "--checkpoint", path_str(&other)]);
    assert_eq!(o.status.code(), Some(2), "{}", stderr_of(&o));
    assert_eq!(std::fs::read_to_string(&other).unwrap(), "my notes");
    // The memo engine takes no checkpoint.
    let o = no_db(&["solve", "nim", "3", "5", "--checkpoint", ck_s]);
    assert_eq!(o.status.code(), Some(2), "{}", stderr_of(&o));
}
