//! Helpers shared by the CLI integration tests: run the built `grundy` binary.

#![allow(dead_code)]

use std::io::Write;
use std::process::{Command, Stdio};

/// What a run of `grundy` produced.
pub struct Run {
    pub code: i32,
    pub stdout: String,
    pub stderr: String,
}

/// The store the tests use: one per test process, never the user's.
pub fn test_store() -> std::path::PathBuf {
    std::env::temp_dir()
        .join(format!("grundy-cli-tests-{}", std::process::id()))
        .join("store.redb")
}

/// Runs `grundy ARGS` with `input` on stdin (with the tests' store).
pub fn grundy(args: &[&str], input: &str) -> Run {
    grundy_env(
        args,
        input,
        &[("GRUNDY_DB", test_store().to_str().expect("a UTF-8 temp path"))],
    )
}

/// Runs `grundy ARGS` with `input` on stdin and the given environment variables.
pub fn grundy_env(args: &[&str], input: &str, env: &[(&str, &str)]) -> Run {
    let mut child = Command::new(env!("CARGO_BIN_EXE_grundy"))
        .args(args)
        .envs(env.iter().copied())
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("grundy runs");
    let mut stdin = child.stdin.take().expect("stdin");
    let input = input.to_owned();
    let writer = std::thread::spawn(move || {
        let _ = stdin.write_all(input.as_bytes());
    });
    let out = child.wait_with_output().expect("grundy finishes");
    writer.join().expect("stdin writer");
    Run {
        code: out.status.code().unwrap_or(-1),
        stdout: String::from_utf8_lossy(&out.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
    }
}

/// The test fixtures folder of the repository (tests/data).
pub fn reference(sub: &str) -> std::path::PathBuf {
    std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../tests/data")
        .join(sub)
}

/// Asserts a usage error: exit 2, one line on stderr naming `needle`, nothing on stdout.
pub fn assert_usage_error(r: &Run, needle: &str) {
    assert_eq!(r.code, 2, "exit code; stderr: {}", r.stderr);
    assert!(r.stdout.is_empty(), "no partial answer, got: {}", r.stdout);
    assert_eq!(
        r.stderr.trim_end().lines().count(),
        1,
        "one-line error: {}",
        r.stderr
    );
    assert!(
        r.stderr.contains(needle),
        "stderr {:?} should contain {needle:?}",
        r.stderr
    );
    assert!(!r.stderr.contains("panicked"), "{}", r.stderr);
    assert!(r.stderr.len() < 400, "short error: {}", r.stderr);
}

/// `grundy solve ARGS --json`, checked to succeed, as a JSON value.
pub fn solve_json(args: &[&str]) -> serde_json::Value {
    let mut all = vec!["solve"];
    all.extend_from_slice(args);
    all.push("--json");
    let r = grundy(&all, "");
    assert_eq!(r.code, 0, "{}", r.stderr);
    serde_json::from_str(&r.stdout).expect("valid JSON")
}

/// A path for a store of its own in a fresh folder (removed first): `KIND-PID-NAME`.
pub fn fresh_store(kind: &str, name: &str) -> std::path::PathBuf {
    let dir = std::env::temp_dir().join(format!("grundy-{kind}-test-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    dir.join("store.redb")
}

/// Runs grundy with `--db PATH` before `args`.
pub fn with_db(path: &std::path::Path, args: &[&str]) -> Run {
    let mut all = vec!["--db", path.to_str().unwrap()];
    all.extend_from_slice(args);
    grundy_env(&all, "", &[])
}

/// Starts `command` (a `grundy ... serve --addr 127.0.0.1:0`) and reads the address it
/// serves on from its first line on stderr ("grundy: serving the explorer on
/// http://127.0.0.1:PORT/ ..."); the rest of stderr stays to be read.
pub fn serve(
    command: &mut Command,
) -> (
    std::process::Child,
    String,
    std::io::BufReader<std::process::ChildStderr>,
) {
    use std::io::BufRead;
    let mut server = command
        .stderr(Stdio::piped())
        .stdout(Stdio::null())
        .spawn()
        .expect("grundy serve starts");
    let mut err = std::io::BufReader::new(server.stderr.take().expect("stderr"));
    let mut line = String::new();
    err.read_line(&mut line).expect("the server's first line");
    let addr = line
        .split("http://")
        .nth(1)
        .and_then(|rest| rest.split('/').next())
        .unwrap_or_else(|| panic!("no address in {line:?}"))
        .to_string();
    (server, addr, err)
}

/// `POST path` with a JSON `body` to the server at `addr`: the whole raw answer (status
/// line, headers, body), or `None` when the server is not there.
pub fn post(addr: &str, path: &str, body: &str) -> Option<String> {
    use std::io::Read;
    let mut s = std::net::TcpStream::connect(addr).ok()?;
    let req = format!(
        "POST {path} HTTP/1.1\r\nHost: {addr}\r\nContent-Type: application/json\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
        body.len()
    );
    s.write_all(req.as_bytes()).ok()?;
    let mut out = String::new();
    s.read_to_string(&mut out).ok()?;
    Some(out)
}

/// Runs `grundy --no-db ARGS` with nothing on stdin: every value computed, nothing kept.
pub fn no_db(args: &[&str]) -> std::process::Output {
    Command::new(env!("CARGO_BIN_EXE_grundy"))
        .arg("--no-db")
        .args(args)
        .stdin(Stdio::null())
        .output()
        .expect("grundy runs")
}

/// The standard output of a run, as text.
pub fn stdout_of(o: &std::process::Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned()
}

/// The standard error of a run, as text.
pub fn stderr_of(o: &std::process::Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}
