//! `--game FILE` on every command: specs give the same answers as the built-in games they
//! describe, bad files are usage errors naming file, line and column, and the store keys file
//! games by their canonical content.

mod common;
use common::{assert_usage_error, grundy, reference};
use std::path::PathBuf;

/// Writes `text` to a file named `name` in a folder of this test process and returns its path.
fn file(name: &str, text: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("grundy-game-files-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join(name);
    std::fs::write(&path, text).unwrap();
    path
}

fn json(args: &[&str]) -> serde_json::Value {
    let r = grundy(args, "");
    assert_eq!(r.code, 0, "{args:?}: {}", r.stderr);
    serde_json::from_str(&r.stdout).unwrap_or_else(|e| panic!("{args:?}: {e}: {}", r.stdout))
}

const KAYLES: &str = "# Kayles as rules\nkind = \"take-and-break\"\nname = \"kayles\"\nrules = [ { remove = [1, 2], leave = [0, 1, 2] } ]\n";

#[test]
fn a_spec_answers_as_the_game_it_describes() {
    let k = file("kayles.toml", KAYLES);
    let k = k.to_str().unwrap();
    for (pos, misere) in [
        ("5 9 12", false),
        ("3 4 7", true),
        ("1 1 2 8", false),
        ("6 6", true),
    ] {
        let mut spec = vec!["solve", "--game", k];
        let mut code = vec!["solve", "0.77"];
        spec.extend(pos.split(' '));
        code.extend(pos.split(' '));
        for a in [&mut spec, &mut code] {
            a.extend(["--json", "--remoteness"]);
            if misere {
                a.push("--misere");
            }
        }
        let (s, c) = (json(&spec), json(&code));
        assert_eq!(s, c, "{pos} misère {misere}");
        assert_eq!(s["family"], "0.77");
    }
    // Play with the file: the engine answers, the game ends.
    let r = grundy(&["play", "--game", k, "2", "--first", "engine"], "");
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert!(r.stdout.contains("engine plays"), "{}", r.stdout);
}

#[test]
fn graph_and_subtraction_specs() {
    let g = file(
        "pk.toml",
        "kind = \"graph\"\nrule = \"node-kayles\"\nboard = \"petersen\"\n",
    );
    let by_file = json(&["solve", "--game", g.to_str().unwrap(), "1111111111", "--json"]);
    let built_in = json(&[
        "solve",
        "points",
        "--board",
        "petersen",
        "--rule",
        "node-kayles",
        "1111111111",
        "--json",
    ]);
    assert_eq!(by_file, built_in);
    let e = file(
        "edges.toml",
        "kind = \"graph\"\nrule = \"arc-kayles\"\npoints = 5\nedges = [[1, 2], [2, 3], [3, 1], [3, 4]]\n",
    );
    let edges = file("edges.txt", "points 5\n1 2\n2 3\n3 1\n3 4\n");
    let v = json(&["solve", "--game", e.to_str().unwrap(), "11111", "--json"]);
    let w = json(&[
        "solve",
        "points",
        "--rule",
        "arc-kayles",
        "--graph",
        edges.to_str().unwrap(),
        "11111",
        "--json",
    ]);
    assert_eq!(v, w);
    let s = file("sub.toml", "kind = \"subtraction\"\nset = [4, 1, 3]\n");
    let v = json(&["solve", "--game", s.to_str().unwrap(), "10", "11", "--json"]);
    assert_eq!(v, json(&["solve", "sub:1,3,4", "10", "11", "--json"]));
}

#[test]
fn tables_of_game_files() {
    let k = file("kayles-t.toml", KAYLES);
    let r = grundy(
        &["table", "--game", k.to_str().unwrap(), "--size", "15", "--csv"],
        "",
    );
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert_eq!(
        r.stdout.lines().nth(1),
        Some("G,0,1,2,3,1,4,3,2,1,4,2,6,4,1,2"),
        "{}",
        r.stdout
    );
    let built_in = grundy(&["table", "0.77", "--size", "15", "--json"], "");
    let by_file = grundy(
        &["table", "--game", k.to_str().unwrap(), "--size", "15", "--json"],
        "",
    );
    assert_eq!(built_in.stdout, by_file.stdout);
    let r = grundy(&["table", "cutting", "--size", "5"], "");
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert!(r.stdout.contains("2: - 0 0 1 1"), "{}", r.stdout);
    let g = file(
        "pk-t.toml",
        "kind = \"graph\"\nrule = \"node-kayles\"\nboard = \"petersen\"\n",
    );
    let r = grundy(&["table", "--game", g.to_str().unwrap()], "");
    assert_usage_error(&r, "has no table");
    assert_usage_error(&grundy(&["table", "darkraft"], ""), "has no table");
    // A script with its own notation declares its table's shape: the Cutting Game's sheets.
    let script = grundy(
        &[
            "table",
            "--game",
            &example("cutting.lua"),
            "--size",
            "12",
            "--csv",
        ],
        "",
    );
    let built_in = grundy(&["table", "cutting", "--size", "12", "--csv"], "");
    assert_eq!(script.code, 0, "{}", script.stderr);
    assert_eq!(
        script.stdout.lines().skip(1).collect::<Vec<_>>(),
        built_in.stdout.lines().skip(1).collect::<Vec<_>>()
    );
}

#[test]
fn judge_with_a_spec_matches_the_samples() {
    let m = file(
        "mao.toml",
        "kind = \"graph\"\nname = \"maoershan\"\nrule = \"one-or-two\"\nboard = \"maoershan\"\n",
    );
    let input = std::fs::read_to_string(reference("judge/maoershan-sample-001.in")).unwrap();
    let want = std::fs::read_to_string(reference("judge/maoershan-sample-001.out")).unwrap();
    let r = grundy(&["judge", "maoershan", "--game", m.to_str().unwrap()], &input);
    assert_eq!((r.code, r.stdout.as_str()), (0, want.as_str()), "{}", r.stderr);
    // A game file that cannot read the judge's positions says which case.
    let p = file(
        "petersen-j.toml",
        "kind = \"graph\"\nrule = \"one-or-two\"\nboard = \"petersen\"\n",
    );
    let r = grundy(&["judge", "maoershan", "--game", p.to_str().unwrap()], &input);
    assert_usage_error(&r, "case 1");
    // One whose positions would be too large is refused before any is solved: the 12-point
    // strings read as heaps of 10^11 tokens.
    let k = file("kayles-j.toml", KAYLES);
    let r = grundy(&["judge", "maoershan", "--game", k.to_str().unwrap()], &input);
    assert_eq!(r.code, 1, "{}", r.stderr);
    assert!(r.stderr.contains("too large"), "{}", r.stderr);
}

#[test]
fn bad_files_name_file_line_and_column() {
    let cases = [
        (
            "k1.toml",
            "kind = \"chess\"\n",
            "k1.toml:1:8: unknown kind 'chess'",
        ),
        (
            "k2.toml",
            "kind = \"take-and-break\"\ncode = \"0.7z\"\n",
            "k2.toml:2:8: bad code '0.7z'",
        ),
        ("k3.toml", "kind = \"subtraction\"\nset = [1, 2\n", "k3.toml:2:"),
        (
            "k4.toml",
            "kind = \"subtraction\"\nsett = [1]\n",
            "k4.toml:2:1: unknown field `sett`",
        ),
        (
            "k5.toml",
            "name = \"x\"\n",
            "k5.toml:1:1: a game spec needs a kind",
        ),
        (
            "k6.toml",
            "kind = \"graph\"\nrule = \"chess\"\nboard = \"petersen\"\n",
            "k6.toml:2:8: unknown rule",
        ),
        ("k7.toml", "", "k7.toml:1:1: the game file is empty"),
    ];
    for (name, text, needle) in cases {
        let f = file(name, text);
        assert_usage_error(
            &grundy(&["solve", "--game", f.to_str().unwrap(), "3"], ""),
            needle,
        );
    }
    let missing = std::env::temp_dir().join("grundy-no-such-game.toml");
    let r = grundy(&["solve", "--game", missing.to_str().unwrap(), "3"], "");
    assert_eq!(r.code, 2, "{}", r.stderr);
    // A bad position of a good file is the family's parse error.
    let k = file("kayles-p.toml", KAYLES);
    assert_usage_error(
        &grundy(&["solve", "--game", k.to_str().unwrap(), "3", "x"], ""),
        "column",
    );
}

/// The examples' folder of the repository.
fn example(name: &str) -> String {
    std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../examples/games")
        .join(name)
        .to_str()
        .unwrap()
        .to_string()
}

#[test]
fn the_scripts_of_the_classic_problems_pass_the_judge_samples() {
    let dir = reference("judge");
    let mut checked = 0;
    for (problem, script) in [
        ("darkraft", "darkraft.lua"),
        ("bomb", "bombs.lua"),
        ("maoershan", "maoershan.lua"),
        ("cutting", "cutting.lua"),
        ("crosses", "crosses.lua"),
    ] {
        for entry in std::fs::read_dir(&dir).unwrap() {
            let path = entry.unwrap().path();
            let name = path.file_name().unwrap().to_str().unwrap().to_string();
            if !(name.starts_with(&format!("{problem}-")) && name.ends_with(".in")) {
                continue;
            }
            let input = std::fs::read_to_string(&path).unwrap();
            let want = std::fs::read_to_string(path.with_extension("out")).unwrap();
            let r = grundy(&["judge", problem, "--game", &example(script)], &input);
            assert_eq!(
                (r.code, r.stdout.as_str()),
                (0, want.as_str()),
                "{name}: {}",
                r.stderr
            );
            let built_in = grundy(&["judge", problem], &input);
            assert_eq!(built_in.stdout, r.stdout, "{name}");
            checked += 1;
        }
    }
    assert!(checked >= 7, "{checked} samples");
}

#[test]
fn scripts_solve_play_and_fail_cleanly() {
    let v = json(&[
        "solve",
        "--game",
        &example("kayles.lua"),
        "5",
        "9",
        "12",
        "--json",
    ]);
    let w = json(&["solve", "0.77", "5", "9", "12", "--json"]);
    assert_eq!(
        (v["grundy"].clone(), v["outcome"].clone()),
        (w["grundy"].clone(), w["outcome"].clone())
    );
    assert!(v["family"].as_str().unwrap().starts_with("kayles@"), "{v}");
    // A script that loops for ever is stopped by its operation limit (exit 1).
    let forever = file("forever.lua", "function options(n)\n  while true do end\nend\n");
    let r = grundy(&["solve", "--game", forever.to_str().unwrap(), "3"], "");
    assert_eq!(r.code, 1, "{}", r.stderr);
    assert!(r.stderr.contains("operations"), "{}", r.stderr);
    // A script error names the file and line (exit 2).
    let broken = file("broken.lua", "function options(n)\n  return n.x\nend\n");
    let r = grundy(&["solve", "--game", broken.to_str().unwrap(), "3"], "");
    assert_usage_error(&r, "broken.lua:2:");
    // A syntax error too.
    let syntax = file("syntax.lua", "function options(n)\n  return {{}\nend\n");
    assert_usage_error(
        &grundy(&["solve", "--game", syntax.to_str().unwrap(), "3"], ""),
        "syntax.lua:",
    );
    // A game whose moves come back is reported with the cycle.
    let cycle = file("cycle.lua", "function options(n, emit)\n  emit(3 - n)\nend\n");
    let r = grundy(&["solve", "--game", cycle.to_str().unwrap(), "1"], "");
    assert_usage_error(&r, "cycle");
    assert!(
        r.stderr.contains("(1 -> 2 -> 1)") || r.stderr.contains("(2 -> 1 -> 2)"),
        "{}",
        r.stderr
    );
}
