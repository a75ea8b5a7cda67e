//! `grundy census` and `grundy solve --dense` on many MPI ranks (feature `mpi`,
//! docs/cluster.md), against one process:
//! the same bytes on stdout, every sequence in rank 0's store, a killed rank resumed with
//! nothing lost and nothing counted twice, ranks that disagree stopped together.
//!
//! Needs Open MPI's `mpirun` on the PATH (Debian: `apt-get install openmpi-bin
//! libopenmpi-dev libclang-dev`); run with `cargo test -p grundy-cli --features mpi --test mpi`.

#![cfg(feature = "mpi")]

use std::path::Path;
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

const GRUNDY: &str = env!("CARGO_BIN_EXE_grundy");

/// `mpirun -np K grundy ARGS` over loopback, as root if need be, more ranks than cores.
fn mpirun(k: usize) -> Command {
    mpirun_with(k, &[])
}

/// [`mpirun`] with environment variables set for every rank (`-x NAME`, before the program).
fn mpirun_with(k: usize, env: &[(&str, &str)]) -> Command {
    let mut c = Command::new("mpirun");
    c.args([
        "--allow-run-as-root",
        "--oversubscribe",
        "--mca",
        "btl_tcp_if_include",
        "lo",
    ]);
    for (name, value) in env {
        c.env(name, value).args(["-x", name]);
    }
    c.args(["-np", &k.to_string(), GRUNDY]).stdin(Stdio::null());
    c
}

fn run(mut c: Command) -> Output {
    c.output()
        .expect("mpirun runs (is Open MPI installed? see docs/cluster.md)")
}

/// `grundy ARGS` alone: one process.
fn alone(args: &[&str]) -> Output {
    Command::new(GRUNDY)
        .args(args)
        .stdin(Stdio::null())
        .output()
        .expect("grundy runs")
}

fn out(o: &Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned()
}

fn err(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

fn ok(o: &Output) {
    assert_eq!(o.status.code(), Some(0), "stderr: {}", err(o));
}

/// The JSON rows without the time each took (the one field that differs between runs).
fn untimed(o: &Output) -> Vec<serde_json::Value> {
    out(o)
        .lines()
        .map(|l| {
            let mut v: serde_json::Value = serde_json::from_str(l).unwrap();
            v.as_object_mut().unwrap().remove("seconds");
            v
        })
        .collect()
}

fn s(p: &Path) -> &str {
    p.to_str().unwrap()
}

/// The games of a journal: each row's game (the header line left out).
fn journal_games(path: &Path) -> Vec<String> {
    std::fs::read_to_string(path)
        .unwrap_or_default()
        .lines()
        .skip(1)
        .map(|l| {
            let v: serde_json::Value = serde_json::from_str(l).unwrap();
            v["game"].as_str().unwrap().to_string()
        })
        .collect()
}

#[test]
fn three_ranks_print_what_one_process_prints() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let census = ["census", "0.??", "--count", "3000", "-q"];
    for format in [None, Some("--csv"), Some("--json")] {
        let mut args = vec!["--no-db"];
        args.extend(census);
        args.extend(format);
        let one = alone(&args);
        ok(&one);
        let mut c = mpirun(3);
        c.args(&args);
        let three = run(c);
        ok(&three);
        if format == Some("--json") {
            assert_eq!(untimed(&three), untimed(&one));
            assert_eq!(untimed(&one).len(), 64);
        } else {
            assert_eq!(out(&three), out(&one), "{format:?}");
        }
    }
    // With a store: the first run keeps every game's values in rank 0's store (those
    // computed on other ranks included), so a second run, alone, computes nothing: every
    // game takes 0 s, and the JSON is the same byte for byte on one rank and on three.
    let store = d.join("store.redb");
    let with_store = |journal: &str| {
        let mut a: Vec<String> = vec!["--db".into(), s(&store).into()];
        a.extend(census.iter().map(|x| x.to_string()));
        a.extend(["--json".into(), "--journal".into(), s(&d.join(journal)).into()]);
        a
    };
    let mut c = mpirun(3);
    c.args(with_store("first.jsonl"));
    let first = run(c);
    ok(&first);
    let second = alone(
        &with_store("second.jsonl")
            .iter()
            .map(String::as_str)
            .collect::<Vec<_>>(),
    );
    ok(&second);
    assert_eq!(untimed(&second), untimed(&first));
    for l in out(&second).lines() {
        let v: serde_json::Value = serde_json::from_str(l).unwrap();
        assert_eq!(v["seconds"], 0.0, "not from the store: {l}");
    }
    // Rank 0 seeds the other ranks with the stored values: the same bytes again.
    let mut c = mpirun(3);
    c.args(with_store("third.jsonl"));
    let third = run(c);
    ok(&third);
    assert_eq!(out(&third), out(&second));
    // One rank under mpirun: one process.
    let mut c = mpirun(1);
    c.args(with_store("fourth.jsonl"));
    let fourth = run(c);
    ok(&fourth);
    assert_eq!(out(&fourth), out(&second));
}

/// The pid of the process of rank `rank` among the children of `parent` (Open MPI sets
/// OMPI_COMM_WORLD_RANK in each rank's environment).
fn rank_pid(parent: u32, rank: usize) -> Option<u32> {
    let want = format!("OMPI_COMM_WORLD_RANK={rank}");
    for entry in std::fs::read_dir("/proc").ok()?.flatten() {
        let Ok(pid) = entry.file_name().to_string_lossy().parse::<u32>() else {
            continue;
        };
        let Ok(stat) = std::fs::read_to_string(format!("/proc/{pid}/stat")) else {
            continue;
        };
        // pid (comm) state ppid ...: comm may hold spaces, ppid follows the last ')'.
        let ppid = stat
            .rsplit_once(')')
            .and_then(|(_, rest)| rest.split_whitespace().nth(1))
            .and_then(|p| p.parse::<u32>().ok());
        if ppid != Some(parent) {
            continue;
        }
        let env = std::fs::read(format!("/proc/{pid}/environ")).unwrap_or_default();
        if env.split(|&b| b == 0).any(|v| v == want.as_bytes()) {
            return Some(pid);
        }
    }
    None
}

/// Waits (polling every `poll`, at most `within`) until `ready()` holds and rank `rank` of the
/// `mpirun` run `child` is found, kills that rank (SIGKILL) and waits up to 60 s for the run
/// to end (killing `mpirun` past that). Returns the run's exit status, `None` when it had to
/// be killed. Panics, naming `what`, when the rank was not found while the run lasted.
fn kill_rank_when(
    child: &mut std::process::Child,
    rank: usize,
    within: Duration,
    poll: Duration,
    what: &str,
    mut ready: impl FnMut() -> bool,
) -> Option<std::process::ExitStatus> {
    let started = Instant::now();
    let mut victim = None;
    while started.elapsed() < within {
        if ready() {
            victim = rank_pid(child.id(), rank);
            if victim.is_some() {
                break;
            }
        }
        if child.try_wait().unwrap().is_some() {
            break;
        }
        std::thread::sleep(poll);
    }
    let victim = victim.unwrap_or_else(|| panic!("rank {rank} found while {what} ran (make it longer?)"));
    let killed = Command::new("kill")
        .args(["-KILL", &victim.to_string()])
        .status()
        .unwrap();
    assert!(killed.success());
    let deadline = Instant::now() + Duration::from_secs(60);
    loop {
        if let Some(st) = child.try_wait().unwrap() {
            return Some(st);
        }
        if Instant::now() > deadline {
            let _ = child.kill();
            let _ = child.wait();
            return None;
        }
        std::thread::sleep(Duration::from_millis(20));
    }
}

#[test]
fn a_killed_rank_loses_only_its_game() {
    let dir = tempfile::tempdir().unwrap();
    let j = dir.path().join("k.jsonl");
    let store = dir.path().join("store.redb");
    let args = [
        "--db",
        s(&store),
        "census",
        "0.??",
        "--count",
        "2^14",
        "--csv",
        "-q",
        "--journal",
        s(&j),
    ];
    let mut c = mpirun(3);
    c.args(args).stdout(Stdio::null()).stderr(Stdio::null());
    let mut child = c.spawn().expect("mpirun runs");
    // Kill rank 1 (SIGKILL) once a few games are in the journal: mpirun then ends the run.
    let status = kill_rank_when(
        &mut child,
        1,
        Duration::from_secs(120),
        Duration::from_millis(5),
        "the census",
        || journal_games(&j).len() >= 3,
    );
    if let Some(st) = status {
        assert!(!st.success(), "the run went on without rank 1");
    }
    let before = journal_games(&j);
    assert!(before.len() >= 3 && before.len() < 64, "{} games", before.len());
    let mut distinct = before.clone();
    distinct.sort();
    distinct.dedup();
    assert_eq!(distinct.len(), before.len(), "a game recorded twice");
    // Resume on three ranks: the games of the journal are not run again.
    let mut c = mpirun(3);
    c.args(args.iter().filter(|&&a| a != "-q"));
    let resumed = run(c);
    ok(&resumed);
    let e = err(&resumed);
    let done_before: usize = e
        .split(" done before")
        .next()
        .and_then(|h| h.rsplit(' ').next())
        .and_then(|n| n.parse().ok())
        .unwrap_or_else(|| panic!("no 'done before' in: {e}"));
    assert!(done_before >= before.len(), "{e}");
    let ran = e.lines().filter(|l| l.contains("] 0.")).count();
    assert_eq!(ran, 64 - done_before, "{e}");
    for g in &before {
        assert!(!e.contains(&format!("] {g}: ")), "{g} ran again: {e}");
    }
    // Every game once, the rows of one process.
    let after = journal_games(&j);
    assert_eq!(after.len(), 64);
    let mut distinct = after.clone();
    distinct.sort();
    distinct.dedup();
    assert_eq!(distinct.len(), 64);
    let one = alone(&["--no-db", "census", "0.??", "--count", "2^14", "--csv", "-q"]);
    ok(&one);
    assert_eq!(out(&resumed), out(&one));
}

#[test]
fn ranks_that_disagree_stop_together() {
    // Rank 0 at one count, ranks 1 and 2 at another (an MPMD launch).
    let mut c = Command::new("mpirun");
    c.args([
        "--allow-run-as-root",
        "--oversubscribe",
        "--mca",
        "btl_tcp_if_include",
        "lo",
    ])
    .args(["-np", "1", GRUNDY, "--no-db", "census", "0.??", "--count", "100"])
    .arg(":")
    .args(["-np", "2", GRUNDY, "--no-db", "census", "0.??", "--count", "200"])
    .stdin(Stdio::null());
    let o = run(c);
    assert_eq!(o.status.code(), Some(2), "{}", err(&o));
    let e = err(&o);
    assert_eq!(e.matches("not started alike").count(), 1, "{e}");
    assert!(e.contains("ranks 1, 2 have"), "{e}");
    assert!(out(&o).is_empty());
}

#[test]
fn bad_input_stops_every_rank_with_one_message() {
    for (args, needle) in [
        (
            vec!["--no-db", "census", "0.?x", "--count", "100"],
            "pattern '0.?x'",
        ),
        (vec!["--no-db", "census", "0.??", "--count", "many"], "many"),
        (
            vec!["--no-db", "--memory-budget", "lots", "census", "0.??"],
            "--memory-budget",
        ),
        (
            vec!["--no-db", "census", "0.??", "--frobnicate"],
            "unexpected argument",
        ),
    ] {
        let mut c = mpirun(3);
        c.args(&args);
        let o = run(c);
        assert_eq!(o.status.code(), Some(2), "{args:?}: {}", err(&o));
        let e = err(&o);
        assert_eq!(e.matches(needle).count(), 1, "{args:?}: {e}");
        assert!(!e.contains("panicked"), "{e}");
    }
}

// --- solve --dense ----------------------------------------------------------------------

/// `solve ARGS --dense` on 3 ranks and alone: the same stdout, byte for byte, exit 0, and
/// the plan line of the ranks says each solves a third of every tier.
fn dense_alike(args: &[&str]) {
    let mut all = vec!["--no-db", "solve"];
    all.extend_from_slice(args);
    let one = alone(&all);
    ok(&one);
    let mut c = mpirun(3);
    c.args(&all);
    let three = run(c);
    ok(&three);
    assert_eq!(out(&three), out(&one), "{args:?}");
    assert!(!out(&one).is_empty());
    let plan = err(&three);
    assert!(
        plan.starts_with("grundy: dense solve: ")
            && plan.contains("per rank on 3 ranks (each rank solves 1/3 of every tier"),
        "{plan}"
    );
    assert_eq!(
        plan.matches("dense solve:").count(),
        1,
        "one plan line, from rank 0: {plan}"
    );
}

#[test]
fn dense_cram_on_three_ranks_is_one_process() {
    dense_alike(&["cram", "4x4", "--dense"]);
    dense_alike(&["cram", "3x5", "--dense", "--misere", "--json"]);
    dense_alike(&["cram", "4x4", "--dense", "--record", "outcome"]);
}

#[test]
fn dense_graph_games_on_three_ranks_are_one_process() {
    dense_alike(&[
        "graph",
        "--board",
        "grid:3x4",
        "--rule",
        "node-kayles",
        "--dense",
        "--misere",
    ]);
    dense_alike(&[
        "graph",
        "--board",
        "grid:3x4",
        "--rule",
        "arc-kayles",
        "--dense",
        "--json",
    ]);
    dense_alike(&[
        "points",
        "1111111111",
        "--board",
        "petersen",
        "--rule",
        "node-kayles",
        "--dense",
    ]);
}

#[test]
fn dense_refusals_stop_every_rank_once() {
    // Over the budget: refused by the plan on every rank, one message from rank 0, exit 1.
    let mut c = mpirun(3);
    c.args([
        "--no-db",
        "--memory-budget",
        "1K",
        "solve",
        "cram",
        "4x5",
        "--dense",
    ]);
    let o = run(c);
    assert_eq!(o.status.code(), Some(1), "{}", err(&o));
    assert_eq!(
        err(&o).matches("the memory budget is 1.0 KiB").count(),
        1,
        "{}",
        err(&o)
    );
    assert!(out(&o).is_empty());
    // Bad input: exit 2, one message.
    let mut c = mpirun(3);
    c.args(["--no-db", "solve", "cram", "4x5x", "--dense"]);
    let o = run(c);
    assert_eq!(o.status.code(), Some(2), "{}", err(&o));
    assert_eq!(err(&o).matches("bad cram position").count(), 1, "{}", err(&o));
}

#[test]
fn dense_answer_kept_by_rank_zero_is_served_to_all() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("store.redb");
    let db = db.to_str().unwrap();
    let args = ["--db", db, "solve", "cram", "3x4", "--dense"];
    let mut c = mpirun(3);
    c.args(args);
    let first = run(c);
    ok(&first);
    let mut c = mpirun(3);
    c.args(args);
    let again = run(c);
    ok(&again);
    assert_eq!(out(&again), out(&first));
    assert!(err(&again).contains("answered from the store"), "{}", err(&again));
}

#[test]
fn dense_exchanges_in_small_rounds_are_one_process() {
    // Blocks of 64 states: every large tier of cram 4x4 (and of the graph) goes in rounds.
    for args in [
        vec!["--no-db", "solve", "cram", "4x4", "--dense"],
        vec![
            "--no-db", "solve", "cram", "4x4", "--dense", "--record", "outcome",
        ],
        vec![
            "--no-db",
            "solve",
            "graph",
            "--board",
            "grid:3x4",
            "--rule",
            "node-kayles",
            "--dense",
            "--misere",
        ],
    ] {
        let one = alone(&args);
        ok(&one);
        let mut c2 = mpirun_with(3, &[("GRUNDY_DENSE_ROUND_STATES", "64")]);
        c2.args(&args);
        let three = run(c2);
        ok(&three);
        assert_eq!(out(&three), out(&one), "{args:?}");
        assert!(err(&three).contains("exchange rounds a tier"), "{}", err(&three));
    }
}

/// Whether the tier file `tier` of a dense checkpoint folder is there (finished).
fn tier_done(dir: &Path, tier: u32) -> bool {
    dir.join(format!("tier-{tier:03}.grundy-tier")).exists()
}

#[test]
fn a_dense_solve_killed_on_a_rank_resumes_from_its_finished_tiers() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("tiers");
    let args = [
        "--no-db",
        "solve",
        "cram",
        "5x5",
        "--dense",
        "--json",
        "--checkpoint",
        s(&dir),
    ];
    let mut c = mpirun(3);
    c.args(args).stdout(Stdio::null()).stderr(Stdio::null());
    let mut child = c.spawn().expect("mpirun runs");
    // Kill rank 1 once tier 11 is finished (tiers 13 to 25, most of the work, remain).
    let status = kill_rank_when(
        &mut child,
        1,
        Duration::from_secs(300),
        Duration::from_millis(2),
        "the solve",
        || tier_done(&dir, 11),
    );
    if let Some(st) = status {
        assert!(!st.success(), "the run went on without rank 1");
    }
    assert!(!tier_done(&dir, 25), "the solve finished before the kill");
    // The killed run's rank 0 still holds the folder until it has ended (mpirun may return
    // first): wait for it, as a user re-running at once would be told to.
    let lock = std::fs::read_to_string(dir.join("grundy-dense.lock")).unwrap_or_default();
    if let Some(pid) = lock.lines().find_map(|l| l.strip_prefix("pid ")) {
        let proc_dir = format!("/proc/{pid}");
        let until = Instant::now() + Duration::from_secs(60);
        let running = || {
            std::fs::read_to_string(format!("{proc_dir}/stat")).is_ok_and(|st| {
                st.rsplit(')')
                    .next()
                    .is_some_and(|r| !r.trim_start().starts_with('Z'))
            })
        };
        while running() && Instant::now() < until {
            std::thread::sleep(Duration::from_millis(50));
        }
    }
    // Resume with the same command: only finished tiers read back, the answer of one process.
    let mut c = mpirun(3);
    c.args(args);
    let resumed = run(c);
    ok(&resumed);
    let e = err(&resumed);
    assert!(e.contains("read back from"), "{e}");
    assert!(tier_done(&dir, 25));
    let one = alone(&["--no-db", "solve", "cram", "5x5", "--dense", "--json"]);
    ok(&one);
    assert_eq!(out(&resumed), out(&one));
    // Alone, from the folder the ranks wrote: every tier finished, the same answer.
    let mut r = args.to_vec();
    r[6] = "--resume";
    let again = alone(&r);
    ok(&again);
    assert_eq!(out(&again), out(&one));
    // A foreign folder is refused once, on every rank (exit 2).
    let mut c = mpirun(3);
    c.args([
        "--no-db",
        "solve",
        "cram",
        "4x4",
        "--dense",
        "--checkpoint",
        s(&dir),
    ]);
    let o = run(c);
    assert_eq!(o.status.code(), Some(2), "{}", err(&o));
    assert_eq!(err(&o).matches("another solve").count(), 1, "{}", err(&o));
}

/// The names and bytes of the files of a folder, sorted by name.
fn folder_files(dir: &Path) -> Vec<(String, Vec<u8>)> {
    let mut v: Vec<(String, Vec<u8>)> = std::fs::read_dir(dir)
        .unwrap()
        .flatten()
        .map(|e| {
            (
                e.file_name().to_string_lossy().into_owned(),
                std::fs::read(e.path()).unwrap(),
            )
        })
        .collect();
    v.sort();
    v
}

/// A lock file as grundy writes it, for a process `pid` on this host (no start time: a pid
/// that runs is taken to be that run).
fn lock_of(pid: u32) -> String {
    let host = std::fs::read_to_string("/proc/sys/kernel/hostname").unwrap_or_default();
    format!("grundy dense solve\npid {pid}\nhost {}\n", host.trim())
}

#[test]
fn dense_tiers_written_by_every_rank_are_one_process_files_and_rank_zero_locks() {
    let tmp = tempfile::tempdir().unwrap();
    for args in [
        vec!["cram", "4x4", "--dense"],
        vec!["cram", "4x4", "--dense", "--record", "outcome"],
        vec![
            "graph",
            "--board",
            "grid:3x4",
            "--rule",
            "node-kayles",
            "--dense",
            "--misere",
        ],
    ] {
        let name = args.join("-").replace(':', "");
        let (one_dir, three_dir) = (
            tmp.path().join(format!("{name}-1")),
            tmp.path().join(format!("{name}-3")),
        );
        let with = |dir: &Path| {
            let mut a: Vec<String> = ["--no-db", "solve"].iter().map(|s| s.to_string()).collect();
            a.extend(args.iter().map(|s| s.to_string()));
            a.extend(["--checkpoint".to_string(), s(dir).to_string()]);
            a
        };
        let one = alone(&with(&one_dir).iter().map(String::as_str).collect::<Vec<_>>());
        ok(&one);
        // Blocks of 64 states: each rank writes several pieces of each large tier.
        let mut c = mpirun_with(3, &[("GRUNDY_DENSE_ROUND_STATES", "64")]);
        c.args(with(&three_dir));
        let three = run(c);
        ok(&three);
        assert_eq!(out(&three), out(&one), "{args:?}");
        let e = err(&three);
        assert_eq!(
            e.matches("each rank writes its share of the finished tiers")
                .count(),
            1,
            "{e}"
        );
        // The same tier files, byte for byte (and no lock left: only rank 0 took one, and
        // removed it; a lock per rank would have refused ranks 1 and 2).
        let files = folder_files(&three_dir);
        assert!(
            files.iter().all(|(n, _)| n.ends_with(".grundy-tier")),
            "{files:?}"
        );
        assert_eq!(files, folder_files(&one_dir), "{args:?}");
    }
    // A run holding the folder: all ranks stop, one message, exit 2, the lock kept.
    let dir = tmp.path().join("cram-4x4---dense-3");
    let live = lock_of(std::process::id());
    std::fs::write(dir.join("grundy-dense.lock"), &live).unwrap();
    let args = [
        "--no-db",
        "solve",
        "cram",
        "4x4",
        "--dense",
        "--checkpoint",
        s(&dir),
    ];
    let mut c = mpirun(3);
    c.args(args);
    let o = run(c);
    assert_eq!(o.status.code(), Some(2), "{}", err(&o));
    assert_eq!(
        err(&o).matches("is in use by another grundy run").count(),
        1,
        "{}",
        err(&o)
    );
    assert!(err(&o).contains(s(&dir)), "{}", err(&o));
    assert!(out(&o).is_empty());
    assert_eq!(
        std::fs::read_to_string(dir.join("grundy-dense.lock")).unwrap(),
        live
    );
    // A stale lock (a pid no process has): taken over once, by rank 0, and the solve resumes.
    std::fs::write(dir.join("grundy-dense.lock"), lock_of(999_999_999)).unwrap();
    std::fs::remove_file(dir.join("tier-016.grundy-tier")).unwrap();
    let mut c = mpirun(3);
    c.args(args);
    let o = run(c);
    ok(&o);
    assert_eq!(err(&o).matches("took over the lock").count(), 1, "{}", err(&o));
    assert!(!dir.join("grundy-dense.lock").exists());
    assert!(tier_done(&dir, 16));
}

/// The folders of unfinished dense solves beside the store `db`.
fn pending_folders(db: &Path) -> Vec<std::path::PathBuf> {
    let root = std::path::PathBuf::from(format!("{}.dense-tiers", db.display()));
    std::fs::read_dir(root)
        .map(|d| d.flatten().map(|e| e.path()).collect())
        .unwrap_or_default()
}

/// Waits (up to a minute) for the run whose lock is in `dir` to end: mpirun may return
/// before rank 0 of a killed run has.
fn wait_for_lock_holder(dir: &Path) {
    let lock = std::fs::read_to_string(dir.join("grundy-dense.lock")).unwrap_or_default();
    let Some(pid) = lock.lines().find_map(|l| l.strip_prefix("pid ")) else {
        return;
    };
    let stat = format!("/proc/{pid}/stat");
    let until = Instant::now() + Duration::from_secs(60);
    let running = || {
        std::fs::read_to_string(&stat).is_ok_and(|st| {
            st.rsplit(')')
                .next()
                .is_some_and(|r| !r.trim_start().starts_with('Z'))
        })
    };
    while running() && Instant::now() < until {
        std::thread::sleep(Duration::from_millis(50));
    }
}

#[test]
fn a_store_backed_dense_solve_on_three_ranks_resumes_with_the_same_command() {
    let tmp = tempfile::tempdir().unwrap();
    let db = tmp.path().join("store.redb");
    let args = ["--db", s(&db), "solve", "cram", "5x5", "--dense", "--json"];
    let one = alone(&["--no-db", "solve", "cram", "5x5", "--dense", "--json"]);
    ok(&one);
    // Kill rank 1 once a few tiers are finished in the store's folder.
    let mut c = mpirun(3);
    c.args(args).stdout(Stdio::null()).stderr(Stdio::null());
    let mut child = c.spawn().expect("mpirun runs");
    kill_rank_when(
        &mut child,
        1,
        Duration::from_secs(300),
        Duration::from_millis(2),
        "the solve",
        || pending_folders(&db).first().is_some_and(|d| tier_done(d, 11)),
    );
    let folders = pending_folders(&db);
    assert_eq!(folders.len(), 1, "{folders:?}");
    let dir = folders[0].clone();
    assert!(!tier_done(&dir, 25), "the solve finished before the kill");
    wait_for_lock_holder(&dir);
    // The same command: every rank learns rank 0's folder, reads back, and the answer is
    // one process's; the folder goes once the answer is in rank 0's store.
    let mut c = mpirun(3);
    c.args(args);
    let resumed = run(c);
    ok(&resumed);
    assert_eq!(out(&resumed), out(&one));
    let e = err(&resumed);
    assert!(e.contains(&format!("read back from {}", s(&dir))), "{e}");
    assert_eq!(
        e.matches("each rank writes its share of the finished tiers")
            .count(),
        1,
        "{e}"
    );
    assert!(!dir.exists(), "the folder is removed once the answer is kept");
    // The answer in rank 0's store: every rank ends, none makes a folder.
    let mut c = mpirun(3);
    c.args(args);
    let again = run(c);
    ok(&again);
    assert_eq!(out(&again), out(&one));
    assert!(err(&again).contains("answered from the store"), "{}", err(&again));
    assert!(pending_folders(&db).is_empty());
}

#[test]
fn a_timeout_stops_every_rank_after_the_same_tier() {
    let tmp = tempfile::tempdir().unwrap();
    let db = tmp.path().join("store.redb");
    let args = [
        "--db",
        s(&db),
        "solve",
        "cram",
        "5x5",
        "--dense",
        "--json",
        "--timeout",
        "0.3",
    ];
    let mut c = mpirun(3);
    c.args(args);
    let o = run(c);
    assert_eq!(o.status.code(), Some(1), "{}", err(&o));
    assert!(out(&o).is_empty());
    let e = err(&o);
    assert_eq!(e.matches("by --timeout").count(), 1, "{e}");
    assert!(e.contains("the same command resumes from them"), "{e}");
    let dir = pending_folders(&db).pop().expect("the store's folder");
    assert!(tier_done(&dir, 1));
    wait_for_lock_holder(&dir);
    // One process resumes from what the ranks kept: the same answer as from nothing.
    let resumed = alone(&["--db", s(&db), "solve", "cram", "5x5", "--dense", "--json"]);
    ok(&resumed);
    let one = alone(&["--no-db", "solve", "cram", "5x5", "--dense", "--json"]);
    assert_eq!(out(&resumed), out(&one));
    assert!(err(&resumed).contains("read back from"), "{}", err(&resumed));
    assert!(!dir.exists());
    // --no-db on three ranks: nothing kept, every rank stops.
    let mut c = mpirun(3);
    c.args(["--no-db", "solve", "cram", "5x5", "--dense", "--timeout", "0.3"]);
    let o = run(c);
    assert_eq!(o.status.code(), Some(1), "{}", err(&o));
    assert_eq!(err(&o).matches("nothing is kept").count(), 1, "{}", err(&o));
}
