//! `grundy seq` and `grundy plot` end to end: outputs, exit codes, checkpoints. These run
//! without a store, so every value is computed (the store's part is in tests/db.rs).

mod common;

use common::{no_db as grundy, stdout_of as stdout};
use std::process::{Command, Stdio};

fn reference(name: &str) -> String {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../tests/data/heap")
        .join(name);
    std::fs::read_to_string(path).expect("reference table")
}

#[test]
fn values_match_reference() {
    for (game, file) in [
        ("0.77", "0.77.txt"),
        ("grundys-game", "grundys-game.txt"),
        ("sub:1,2,3", "subtraction-1-2-3.txt"),
        ("0.6", "0.6.txt"),
    ] {
        let o = grundy(&["seq", game, "--count", "1000", "--values", "-q"]);
        assert_eq!(o.status.code(), Some(0), "{game}");
        let text = reference(file);
        let want: Vec<&str> = text.lines().map(str::trim).collect();
        let out = stdout(&o);
        let got: Vec<&str> = out.lines().collect();
        assert_eq!(got, want, "{game}");
    }
}

#[test]
fn every_heap_prints_the_same() {
    // 0.77 proves its period early, so by default most of the 50 000 values are copied from
    // it; --every-heap computes each one, and both print the same values and summary.
    for extra in [&["--values"][..], &["--json"][..], &[][..]] {
        let args = [&["seq", "0.77", "--count", "50000", "-q"][..], extra].concat();
        let copied = grundy(&args);
        let every = grundy(&[&args[..], &["--every-heap"]].concat());
        assert_eq!(copied.status.code(), Some(0));
        assert_eq!(every.status.code(), Some(0));
        assert_eq!(stdout(&copied), stdout(&every), "{extra:?}");
    }
}

#[test]
fn json_summary() {
    let o = grundy(&["seq", "0.77", "--count", "1000", "--json", "-q"]);
    assert_eq!(o.status.code(), Some(0));
    let v: serde_json::Value = serde_json::from_str(&stdout(&o)).unwrap();
    assert_eq!(v["count"], 1000);
    assert_eq!(v["max"], 8);
    assert_eq!(v["period"], 12);
    assert_eq!(v["n0"], 71);
    assert_eq!(v["checked_to"], 2 * 71 + 12 + 2);
    let o = grundy(&["seq", "0.6", "--count", "1000", "--json", "-q"]);
    let v: serde_json::Value = serde_json::from_str(&stdout(&o)).unwrap();
    assert!(v["period"].is_null() && v["n0"].is_null());
}

#[test]
fn counts_past_2_32_follow_from_a_proven_period() {
    // Dawson's Kayles: period 34 from 53, proven after a few thousand heaps; 2^40 values are
    // answered from it (the summary counted from the period), and the values stream.
    let o = grundy(&["seq", "0.07", "--count", "2^40", "--json", "-q"]);
    assert_eq!(o.status.code(), Some(0));
    let v: serde_json::Value = serde_json::from_str(&stdout(&o)).unwrap();
    assert_eq!(v["count"], 1u64 << 40);
    assert_eq!((v["period"].clone(), v["n0"].clone()), (34.into(), 53.into()));
    assert_eq!(v["max"], 9);
    let mut child = Command::new(env!("CARGO_BIN_EXE_grundy"))
        .args(["--no-db", "seq", "0.07", "--count", "2^40", "--values", "-q"])
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    let mut lines = std::io::BufRead::lines(std::io::BufReader::new(child.stdout.take().unwrap()));
    let first: Vec<String> = (0..200).map(|_| lines.next().unwrap().unwrap()).collect();
    drop(lines);
    let _ = child.wait();
    let text = reference("0.07.txt");
    let want: Vec<&str> = text.lines().map(str::trim).take(200).collect();
    assert_eq!(first, want);
}

#[test]
fn summary_says_no_period() {
    let o = grundy(&["seq", "0.6", "--count", "1000", "-q"]);
    assert!(stdout(&o).contains("no period proven up to 1000"));
}

#[test]
fn until_period_stops_at_a_proof() {
    let o = grundy(&[
        "seq",
        "0.07",
        "--count",
        "100000",
        "--until-period",
        "--json",
        "-q",
    ]);
    let v: serde_json::Value = serde_json::from_str(&stdout(&o)).unwrap();
    assert_eq!((v["period"].as_u64(), v["n0"].as_u64()), (Some(34), Some(53)));
    assert!(v["count"].as_u64().unwrap() < 1000);
}

#[test]
fn bad_input_exits_2_with_one_line() {
    for args in [
        vec!["seq", "0.8"],
        vec!["seq", "0."],
        vec!["seq", "1.2.3"],
        vec!["seq", ""],
        vec!["seq", "sub:"],
        vec!["seq", "0.77", "--count", "2^41"],
        vec!["seq", "0.77", "--count", "-3"],
        vec!["seq", "0.77", "--count", "lots"],
        vec!["seq", "0.77", "--resume", "/nonexistent/k.ckpt"],
        vec!["plot", "0.77", "-o", "x.gif"],
    ] {
        let o = grundy(&args);
        assert_eq!(o.status.code(), Some(2), "{args:?}");
        let err = String::from_utf8_lossy(&o.stderr);
        if args[0] == "seq" && !args.contains(&"-3") {
            assert_eq!(err.trim().lines().count(), 1, "{args:?}: {err}");
        }
    }
}

#[test]
fn checkpoints_resume_and_refuse_damage() {
    let dir = tempfile::tempdir().unwrap();
    let ck = dir.path().join("k.ckpt");
    let ck = ck.to_str().unwrap();
    let full = grundy(&["seq", "0.6", "-n", "50000", "--values", "-q"]);
    // A first run to 20000, then a resumed one to 50000.
    let o = grundy(&["seq", "0.6", "-n", "20000", "--checkpoint", ck, "-q"]);
    assert_eq!(o.status.code(), Some(0));
    let o = grundy(&["seq", "0.6", "-n", "50000", "--values", "--resume", ck, "-q"]);
    assert_eq!(o.status.code(), Some(0));
    assert_eq!(stdout(&o), stdout(&full));
    // Another game.
    let o = grundy(&["seq", "0.77", "-n", "100", "--resume", ck, "-q"]);
    assert_eq!(o.status.code(), Some(2));
    // Truncated.
    let bytes = std::fs::read(ck).unwrap();
    std::fs::write(ck, &bytes[..bytes.len() / 2]).unwrap();
    let o = grundy(&["seq", "0.6", "-n", "100", "--resume", ck, "-q"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&o.stderr).contains("truncated"));
    // Corrupt.
    let mut bad = bytes.clone();
    let i = bad.len() - 7;
    bad[i] ^= 0x10;
    std::fs::write(ck, &bad).unwrap();
    let o = grundy(&["seq", "0.6", "-n", "100", "--resume", ck, "-q"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&o.stderr).contains("corrupt"));
}

#[test]
fn killed_run_resumes_exactly() {
    let dir = tempfile::tempdir().unwrap();
    let ck = dir.path().join("k.ckpt");
    let ck = ck.to_str().unwrap();
    let n = "1000000";
    let mut child = Command::new(env!("CARGO_BIN_EXE_grundy"))
        .args([
            "--no-db",
            "seq",
            "0.6",
            "-n",
            n,
            "--values",
            "--checkpoint",
            ck,
            "-q",
        ])
        .stdout(Stdio::null())
        .spawn()
        .unwrap();
    std::thread::sleep(std::time::Duration::from_millis(1500));
    child.kill().unwrap(); // SIGKILL
    let _ = child.wait();
    let resumed = grundy(&["seq", "0.6", "-n", n, "--values", "--resume", ck, "-q"]);
    assert_eq!(resumed.status.code(), Some(0));
    let full = grundy(&["seq", "0.6", "-n", n, "--values", "-q"]);
    assert!(stdout(&full) == stdout(&resumed));
}

#[test]
fn plots_png_and_svg() {
    let dir = tempfile::tempdir().unwrap();
    for name in ["k.png", "k.svg"] {
        let path = dir.path().join(name);
        let o = grundy(&["plot", "0.77", "-n", "500", "-o", path.to_str().unwrap(), "-q"]);
        assert_eq!(o.status.code(), Some(0), "{}", String::from_utf8_lossy(&o.stderr));
        assert!(std::fs::metadata(&path).unwrap().len() > 1000);
    }
    let svg = std::fs::read_to_string(dir.path().join("k.svg")).unwrap();
    assert!(svg.contains("period 12"));
    assert!(svg.contains("@font-face") && svg.contains("data:font/ttf;base64,"));
}

/// A usage error as every command reports it: exit 2, nothing on stdout, one line on stderr
/// that starts with `grundy: ` and says `needle`.
fn assert_usage(args: &[&str], needle: &str) {
    let o = grundy(args);
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(2), "{args:?}: {err}");
    assert!(o.stdout.is_empty(), "{args:?}: {}", stdout(&o));
    assert_eq!(err.trim_end().lines().count(), 1, "{args:?}: {err}");
    assert!(
        err.starts_with("grundy: ") && err.contains(needle),
        "{args:?}: {err}"
    );
}

#[test]
fn a_bad_game_code_is_a_usage_error() {
    assert_usage(&["seq", "0.8"], "invalid game '0.8': column 3");
    assert_usage(&["seq", "sub:"], "invalid game 'sub:'");
    assert_usage(&["plot", "0.8", "-o", "x.png"], "invalid game '0.8'");
}

#[test]
fn a_bad_count_is_a_usage_error() {
    assert_usage(
        &["seq", "0.77", "--count", "lots"],
        "invalid count 'lots' (expected a number like 1000, 1e6 or 2^21)",
    );
    assert_usage(&["seq", "0.77", "-n", "2^41"], "count '2^41' is too large");
    assert_usage(
        &["plot", "0.77", "-n", "1e99", "-o", "x.svg"],
        "count '1e99' is too large",
    );
}

#[test]
fn a_path_that_cannot_be_used_is_a_usage_error() {
    let dir = tempfile::tempdir().unwrap();
    let missing = dir.path().join("no-such-folder");
    let ck = missing.join("k.ckpt");
    let ck = ck.to_str().unwrap();
    assert_usage(
        &["seq", "0.77", "-n", "100", "--checkpoint", ck, "-q"],
        "cannot write checkpoint",
    );
    assert_usage(&["seq", "0.77", "-n", "100", "--resume", ck, "-q"], "checkpoint");
    let m = missing.to_str().unwrap();
    assert_usage(
        &["seq", "0.77", "-n", "100", "--scratch-dir", m, "-q"],
        "no folder",
    );
    let pic = missing.join("k.png");
    assert_usage(
        &["plot", "0.77", "-n", "100", "-o", pic.to_str().unwrap(), "-q"],
        "no folder",
    );
    // Nothing was created on the way.
    assert!(!missing.exists());
}

#[cfg(target_os = "linux")]
#[test]
fn a_failure_to_write_exits_1() {
    // /dev/full refuses every write: the values cannot be printed. Not the user's input:
    // a failure, exit 1, one line.
    let full = std::fs::OpenOptions::new().write(true).open("/dev/full").unwrap();
    let o = Command::new(env!("CARGO_BIN_EXE_grundy"))
        .args(["--no-db", "seq", "0.77", "-n", "1000", "--values", "-q"])
        .stdin(Stdio::null())
        .stdout(full)
        .output()
        .expect("grundy runs");
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(1), "{err}");
    assert!(err.starts_with("grundy: "), "{err}");
    assert_eq!(err.trim_end().lines().count(), 1, "{err}");
}

fn example(name: &str) -> String {
    std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../examples/games")
        .join(name)
        .display()
        .to_string()
}

#[test]
fn game_files() {
    // A spec computes the sequence of its code: the same values.
    let o = grundy(&[
        "seq",
        "--game",
        &example("officers.toml"),
        "-n",
        "1000",
        "--values",
        "-q",
    ]);
    assert_eq!(o.status.code(), Some(0), "{}", String::from_utf8_lossy(&o.stderr));
    let want: Vec<String> = reference("0.6.txt")
        .lines()
        .map(|l| l.trim().to_string())
        .collect();
    let got: Vec<String> = stdout(&o).lines().map(str::to_string).collect();
    assert_eq!(got, want);
    let o = grundy(&["seq", "--game", &example("kayles.toml"), "-n", "1000", "-q"]);
    assert!(stdout(&o).starts_with("0.77: "), "{}", stdout(&o));
    assert!(stdout(&o).contains("period 12 from n0 = 71"), "{}", stdout(&o));
    // No theorem for a repeating block: said so.
    let o = grundy(&[
        "seq",
        "--game",
        &example("kayles-any-but.toml"),
        "-n",
        "500",
        "-q",
    ]);
    assert_eq!(o.status.code(), Some(0));
    assert!(
        stdout(&o).contains("no periodicity theorem applies"),
        "{}",
        stdout(&o)
    );
    // The new codes directly.
    let o = grundy(&["seq", "0.[3]", "-n", "100", "--values", "-q"]);
    let got: Vec<String> = stdout(&o).lines().map(str::to_string).collect();
    assert_eq!(got, (0..100).map(|i| i.to_string()).collect::<Vec<_>>());
    let o = grundy(&["seq", "4!.0", "-n", "1000", "--values", "-q"]);
    assert_eq!(
        stdout(&o),
        reference("grundys-game.txt")
            .lines()
            .map(|l| format!("{}\n", l.trim()))
            .collect::<String>()
    );
    // Both a code and a file, a file of another kind, a missing file: usage errors.
    let o = grundy(&["seq", "0.77", "--game", &example("kayles.toml")]);
    assert_eq!(o.status.code(), Some(2));
    let dir = tempfile::tempdir().unwrap();
    let graph = dir.path().join("g.toml");
    std::fs::write(
        &graph,
        "kind = \"graph\"\nrule = \"node-kayles\"\nedges = \"1-2\"\n",
    )
    .unwrap();
    let o = grundy(&["seq", "--game", &graph.display().to_string()]);
    assert_eq!(o.status.code(), Some(2), "{}", String::from_utf8_lossy(&o.stderr));
    let o = grundy(&["seq", "--game", "/nonexistent/x.toml"]);
    assert_eq!(o.status.code(), Some(2));
    let bad = dir.path().join("bad.toml");
    std::fs::write(
        &bad,
        "kind = \"take-and-break\"\nrules = [{remove = 1, leave = 40}]\n",
    )
    .unwrap();
    let o = grundy(&["seq", "--game", &bad.display().to_string()]);
    assert_eq!(o.status.code(), Some(2));
    assert!(
        String::from_utf8_lossy(&o.stderr).contains(":2:"),
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );
}

/// A reader that goes away early (`grundy seq ... --values | head -1`) ends the process as
/// it ends other tools, silently (SIGPIPE on Unix), not with a panic about stdout.
#[test]
fn a_closed_pipe_ends_quietly() {
    use std::io::Read;
    let mut child = Command::new(env!("CARGO_BIN_EXE_grundy"))
        .args(["--no-db", "seq", "0.77", "--values", "-n", "1000000", "-q"])
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("grundy runs");
    let mut out = child.stdout.take().expect("stdout");
    let mut first = [0u8; 2];
    out.read_exact(&mut first).expect("the first value");
    assert_eq!(&first, b"0\n");
    drop(out);
    let o = child.wait_with_output().expect("grundy ends");
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(!err.contains("panicked") && !err.contains("Broken pipe"), "{err}");
    #[cfg(unix)]
    {
        use std::os::unix::process::ExitStatusExt;
        assert_eq!(o.status.signal(), Some(13), "{:?}", o.status);
    }
}

#[test]
fn heap_parity_split_is_reported() {
    // 0.106: with one split for every heap, about half the heaps are rare.
    let o = grundy(&["seq", "0.106", "--count", "20000", "--json", "-q"]);
    assert_eq!(o.status.code(), Some(0));
    let v: serde_json::Value = serde_json::from_str(&stdout(&o)).unwrap();
    assert!(v["split_mask"].is_u64(), "{v}");
    assert!(v["rare_count"].as_u64().unwrap() < 1000, "{v}");
    let o = grundy(&["seq", "0.106", "--count", "20000", "-q"]);
    assert!(stdout(&o).contains("split by the heap's parity"));
    let o = grundy(&["seq", "0.77", "--count", "1000", "--json", "-q"]);
    let v: serde_json::Value = serde_json::from_str(&stdout(&o)).unwrap();
    assert!(v["split_mask"].is_null());
}

/// Arithmetic periods of hexadecimal games (the level argument, docs/games.md): in the
/// summary, the JSON (`period`, `saltus`, `n0`, `checked_to`), the plot, and a census of a
/// list.
#[test]
fn arithmetic_periods_of_hexadecimal_games() {
    let o = grundy(&["seq", "hex:8.0", "--until-period", "-q"]);
    assert_eq!(o.status.code(), Some(0), "{}", String::from_utf8_lossy(&o.stderr));
    let text = stdout(&o);
    assert!(
        text.contains("arithmetic period 2 with saltus 1 from n0 = 1, proven by the level argument"),
        "{text}"
    );
    let o = grundy(&["seq", "0.8F", "--count", "2000", "--json", "-q"]);
    let j: serde_json::Value = serde_json::from_str(&stdout(&o)).unwrap();
    assert_eq!(
        (j["period"].as_u64(), j["saltus"].as_u64(), j["n0"].as_u64()),
        (Some(7), Some(4), Some(7)),
        "{j}"
    );
    assert!(j["checked_to"].as_u64().unwrap() + 7 <= 2000);
    // Past its proof an arithmetic period does not answer for uncomputed heaps (only a
    // plain period does): the largest value grows with the count, G(n) = (n - 1) / 3.
    let o = grundy(&["seq", "hex:0.8", "--count", "100000", "--json", "-q"]);
    let j: serde_json::Value = serde_json::from_str(&stdout(&o)).unwrap();
    assert_eq!(
        (
            j["max"].as_u64(),
            j["first_max_at"].as_u64(),
            j["saltus"].as_u64()
        ),
        (Some(33332), Some(99997), Some(1)),
        "{j}"
    );
    // Too few values: no claim.
    let o = grundy(&["seq", "0.8F", "--count", "60", "--json", "-q"]);
    let j: serde_json::Value = serde_json::from_str(&stdout(&o)).unwrap();
    assert!(j["period"].is_null(), "{j}");

    let dir = tempfile::tempdir().unwrap();
    let svg = dir.path().join("a.svg");
    let o = grundy(&["plot", "0.BF", "-n", "300", "-o", svg.to_str().unwrap(), "-q"]);
    assert_eq!(o.status.code(), Some(0), "{}", String::from_utf8_lossy(&o.stderr));
    let svg = std::fs::read_to_string(svg).unwrap();
    assert!(svg.contains("arithmetic period 1 with saltus 1 from n0 = 4"));

    let list = dir.path().join("games.txt");
    std::fs::write(&list, "0.FF\nhex:0.C\n0.77\n").unwrap();
    let o = grundy(&[
        "census",
        &format!("@{}", list.display()),
        "--count",
        "1000",
        "--json",
        "-q",
    ]);
    assert_eq!(o.status.code(), Some(0), "{}", String::from_utf8_lossy(&o.stderr));
    let rows: Vec<serde_json::Value> = stdout(&o)
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    let verdict = |g: &str| {
        let r = rows
            .iter()
            .find(|r| r["game"] == g)
            .unwrap_or_else(|| panic!("{g}: {rows:?}"));
        (
            r["verdict"].as_str().map(String::from),
            r["period"].as_u64(),
            r["saltus"].as_u64(),
        )
    };
    assert_eq!(
        verdict("0.FF"),
        (Some("arithmetic-periodic".into()), Some(1), Some(1))
    );
    assert_eq!(
        verdict("0.C"),
        (Some("arithmetic-periodic".into()), Some(2), Some(1))
    );
    assert_eq!(verdict("0.77"), (Some("periodic".into()), Some(12), Some(0)));

    // Past the proof, values are the ones a period earlier plus the saltus: the same as
    // computing every heap.
    let a = grundy(&["seq", "0.8F", "-n", "3000", "--values", "-q"]);
    let b = grundy(&["seq", "0.8F", "-n", "3000", "--values", "--every-heap", "-q"]);
    assert_eq!(stdout(&a), stdout(&b));
    // Certificates of these claims (theorem `level ...`): tests/certificates.rs.
}
