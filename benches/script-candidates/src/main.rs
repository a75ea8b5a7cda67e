//! Measures Rhai and Lua 5.4 (mlua, vendored) as languages for grundy's script games
//! (issue 12): Kayles and the Cutting Game as scripts against native Rust closures, through
//! the same memoising harness; then the safety limits on runaway scripts.
//!
//! `script-candidates all` prints every table; see README.md.

mod harness;
mod lua_game;
mod rhai_game;
mod starlark_game;

use harness::{cutting, cutting_native, kayles, kayles_native, Native, Options};
use lua_game::LuaGame;
use rhai_game::RhaiGame;
use starlark_game::StarlarkGame;
use std::process::Command;
use std::time::{Duration, Instant};

const KAYLES_RHAI: &str = include_str!("../scripts/kayles.rhai");
const CUTTING_RHAI: &str = include_str!("../scripts/cutting.rhai");
const KAYLES_LUA: &str = include_str!("../scripts/kayles.lua");
const KAYLES_STAR: &str = include_str!("../scripts/kayles.star");
const CUTTING_STAR: &str = include_str!("../scripts/cutting.star");
const CUTTING_LUA: &str = include_str!("../scripts/cutting.lua");

const ENGINES: [&str; 6] = ["native", "rhai", "rhai-nosize", "lua", "lua-nohook", "starlark"];
const RUNS: [(&str, i64); 4] = [
    ("kayles", 1000),
    ("kayles", 3000),
    ("cutting", 60),
    ("cutting", 100),
];

/// One computation: the values and the number of calls.
fn compute(engine: &str, game: &str, n: i64) -> Result<(Vec<u32>, u64), String> {
    match game {
        "kayles" => {
            let mut g: Box<dyn Options<i64>> = match engine {
                "native" => Box::new(Native(kayles_native)),
                "rhai" => Box::new(RhaiGame::new(KAYLES_RHAI)?),
                "rhai-nosize" => Box::new(RhaiGame::with_sizes(KAYLES_RHAI, false)?),
                "lua" => Box::new(LuaGame::new("kayles", KAYLES_LUA, true)?),
                "lua-nohook" => Box::new(LuaGame::new("kayles", KAYLES_LUA, false)?),
                "starlark" => Box::new(StarlarkGame::new("kayles", KAYLES_STAR)?),
                _ => return Err(format!("no engine {engine}")),
            };
            kayles(n, g.as_mut())
        }
        "cutting" => {
            let mut g: Box<dyn Options<(i64, i64)>> = match engine {
                "native" => Box::new(Native(cutting_native)),
                "rhai" => Box::new(RhaiGame::new(CUTTING_RHAI)?),
                "rhai-nosize" => Box::new(RhaiGame::with_sizes(CUTTING_RHAI, false)?),
                "lua" => Box::new(LuaGame::new("cutting", CUTTING_LUA, true)?),
                "lua-nohook" => Box::new(LuaGame::new("cutting", CUTTING_LUA, false)?),
                "starlark" => Box::new(StarlarkGame::new("cutting", CUTTING_STAR)?),
                _ => return Err(format!("no engine {engine}")),
            };
            cutting(n, g.as_mut())
        }
        _ => Err(format!("no game {game}")),
    }
}

/// Best of `reps` runs (each builds its engine and compiles the script: included).
fn best(engine: &str, game: &str, n: i64, reps: usize) -> Result<(Duration, u64, u64), String> {
    let mut best = Duration::MAX;
    let mut out = (0, 0);
    for _ in 0..reps {
        let t = Instant::now();
        let (values, calls) = compute(engine, game, n)?;
        best = best.min(t.elapsed());
        let sum = values.iter().enumerate().fold(0u64, |h, (i, &v)| {
            h.wrapping_mul(1_000_003).wrapping_add(v as u64 ^ i as u64)
        });
        out = (calls, sum);
    }
    Ok((best, out.0, out.1))
}

/// Every engine gives the native values; Kayles has its known values and period 12 after 70.
fn check() -> Result<(), String> {
    const KAYLES_START: [u32; 24] = [
        0, 1, 2, 3, 1, 4, 3, 2, 1, 4, 2, 6, 4, 1, 2, 7, 1, 4, 3, 2, 1, 4, 6, 7,
    ];
    for (game, n) in RUNS {
        let (native, _) = compute("native", game, n)?;
        for engine in &ENGINES[1..] {
            let (v, _) = compute(engine, game, n)?;
            if v != native {
                return Err(format!("{engine} differs from native on {game} {n}"));
            }
        }
        match game {
            "kayles" => {
                if native[..24] != KAYLES_START
                    || (71..native.len() - 12).any(|i| native[i] != native[i + 12])
                {
                    return Err("Kayles values wrong".into());
                }
            }
            _ => {
                let n = n as usize;
                let at = |w: usize, h: usize| native[(w - 1) * n + (h - 1)];
                let symmetric = (1..=n).all(|w| (1..=n).all(|h| at(w, h) == at(h, w)));
                // POJ 2311: 2×2, 2×3, 3×2 lose; 4×2 (cut into two 2×2) wins.
                if !symmetric || at(2, 2) != 0 || at(2, 3) != 0 || at(4, 2) == 0 {
                    return Err("Cutting Game values wrong".into());
                }
                let max = native.iter().max().unwrap_or(&0);
                println!("cutting {n}: symmetric, G(2,2) = G(2,3) = 0, largest value {max}");
            }
        }
        println!("{game} {n}: {} = native", ENGINES[1..].join(", "));
    }
    Ok(())
}

/// The time of `reps` calls of the smallest function, `f(n) = n`: the cost of one call.
fn overhead() -> Result<(), String> {
    let reps = 200_000;
    let mut r = RhaiGame::new("fn f(n) { n }")?;
    let t = Instant::now();
    for i in 0..reps {
        let _ = r.call("f", rhai::Dynamic::from_int(i))?;
    }
    let rhai = t.elapsed();
    let mut row = vec![("rhai", rhai)];
    for hook in [true, false] {
        let (lua, _) = lua_game::state(hook)?;
        let f: mlua::Function = lua
            .load("return function(n) return n end")
            .eval()
            .map_err(|e| e.to_string())?;
        let t = Instant::now();
        for i in 0..reps {
            f.call::<i64>(i).map_err(|e| e.to_string())?;
        }
        row.push((if hook { "lua" } else { "lua-nohook" }, t.elapsed()));
    }
    println!("\n| engine | empty call `f(n) = n` ({reps} calls) |\n|---|---|");
    for (name, d) in row {
        println!("| {name} | {:.0} ns |", d.as_nanos() as f64 / reps as f64);
    }
    Ok(())
}

/// Peak RSS in KiB of a separate `one` run, from `/usr/bin/time -f %M`.
fn peak_kib(engine: &str, game: &str, n: i64) -> Result<u64, String> {
    let exe = std::env::current_exe().map_err(|e| e.to_string())?;
    let out = Command::new("/usr/bin/time")
        .args(["-f", "%M"])
        .arg(exe)
        .args(["one", engine, game, &n.to_string(), "1"])
        .output()
        .map_err(|e| e.to_string())?;
    let err = String::from_utf8_lossy(&out.stderr);
    err.lines()
        .last()
        .and_then(|l| l.trim().parse().ok())
        .ok_or(format!("no /usr/bin/time output: {err}"))
}

fn table() -> Result<(), String> {
    println!(
        "\n| game | size | engine | calls | best of 3 | × native | per call | peak RSS | × native RSS |"
    );
    println!("|---|---|---|---|---|---|---|---|---|");
    for (game, n) in RUNS {
        let (native, _, _) = best("native", game, n, 3)?;
        let native_rss = peak_kib("native", game, n)?;
        for engine in ENGINES {
            let (d, calls, _) = best(engine, game, n, 3)?;
            let rss = peak_kib(engine, game, n)?;
            let size = if game == "kayles" {
                format!("G(0..={n})")
            } else {
                format!("{n}×{n}")
            };
            println!(
                "| {game} | {size} | {engine} | {calls} | {:.1} ms | {:.1} | {:.2} µs | {:.1} MiB | {:.2} |",
                d.as_secs_f64() * 1e3,
                d.as_secs_f64() / native.as_secs_f64(),
                d.as_secs_f64() * 1e6 / calls as f64,
                rss as f64 / 1024.0,
                rss as f64 / native_rss as f64,
            );
        }
    }
    Ok(())
}

/// Runaway and forbidden scripts: each must fail with a message.
fn safety() {
    let rhai_cases = [
        ("infinite loop", "fn options(n) { let x = 0; loop { x += 1; } }"),
        (
            "unbounded array",
            "fn options(n) { let a = []; loop { a.push(n); } }",
        ),
        (
            "arrays of arrays",
            "fn options(n) { let a = []; loop { let b = []; b.pad(50000, 0); a.push(b); } }",
        ),
        (
            "doubling string",
            "fn options(n) { let s = \"x\"; loop { s += s; } }",
        ),
        (
            "unbounded recursion",
            "fn f(n) { f(n + 1) + 1 }\nfn options(n) { f(n) }",
        ),
        ("clock", "fn options(n) { timestamp() }"),
        ("eval", "fn options(n) { eval(\"1\") }"),
        ("file", "fn options(n) { open_file(\"/etc/passwd\") }"),
        (
            "runtime error",
            "fn options(n) {\n    let x = [1, 2];\n    x[n] + 1\n}",
        ),
        ("syntax error", "fn options(n) {\n    let x = ;\n}"),
    ];
    println!("\n| Rhai script | stopped with | time |\n|---|---|---|");
    for (what, src) in rhai_cases {
        let t = Instant::now();
        let r = RhaiGame::new(src).and_then(|mut g| g.call("options", rhai::Dynamic::from_int(7)));
        let msg = match r {
            Ok(v) => format!("NOT STOPPED: returned {v}"),
            Err(e) => e,
        };
        println!(
            "| {what} | {} | {:.2} s |",
            msg.replace('\n', " "),
            t.elapsed().as_secs_f64()
        );
    }
    let lua_cases = [
        ("infinite loop", "while true do end"),
        (
            "infinite tail calls",
            "local function f(n) return f(n + 1) end\nf(1)",
        ),
        (
            "unbounded table",
            "local t, i = {}, 0\nwhile true do i = i + 1; t[i] = i end",
        ),
        ("doubling string", "local s = 'x'\nwhile true do s = s .. s end"),
        (
            "unbounded recursion",
            "local function f(n) return 1 + f(n + 1) end\nf(1)",
        ),
        ("clock", "return os.clock()"),
        ("file", "return io.open('/etc/passwd')"),
        ("load", "return load('return 1')()"),
        ("require", "return require('os')"),
        ("random", "return math.random()"),
        (
            "runtime error",
            "local x = {1, 2}\nlocal y = nil\nreturn x[1] + y",
        ),
        ("syntax error", "local x = \nlocal y = 2"),
    ];
    println!("\n| Lua script | stopped with | time |\n|---|---|---|");
    for (what, src) in lua_cases {
        let t = Instant::now();
        let msg = match lua_game::run("script", src) {
            Ok(()) => "NOT STOPPED".to_string(),
            Err(e) => e,
        };
        let msg = msg.lines().next().unwrap_or("").to_string();
        println!("| {what} | {msg} | {:.2} s |", t.elapsed().as_secs_f64());
    }
}

/// Starlark: no operation or memory limit in its public API; the dialect forbids `while`
/// and recursion, and the call stack has a size.
fn safety_starlark() {
    let cases = [
        ("while loop", "def f():\n    while True:\n        pass\nf()"),
        ("unbounded recursion", "def f(n):\n    return f(n + 1)\nf(1)"),
        (
            "10^7 loop steps (no limit)",
            "def f():\n    for i in range(10000000):\n        pass\nf()",
        ),
        ("10^8-byte string (no limit)", "x = 'x' * 100000000"),
        ("load", "load('os.star', 'x')"),
        ("clock", "x = time.now()"),
        ("runtime error", "x = [1, 2]\ny = x[7]"),
        ("syntax error", "x = \ny = 2"),
    ];
    println!("\n| Starlark script | stopped with | time |\n|---|---|---|");
    for (what, src) in cases {
        let t = Instant::now();
        let msg = match starlark_game::run("script.star", src) {
            Ok(()) => "NOT STOPPED (ran to the end)".to_string(),
            Err(e) => e,
        };
        // The error and its position; the traceback and the source excerpt are left out.
        let msg: Vec<&str> = msg
            .lines()
            .map(str::trim)
            .skip_while(|l| !l.starts_with("error:") && !l.starts_with("NOT"))
            .filter(|l| l.starts_with("error:") || l.starts_with("-->") || l.starts_with("NOT"))
            .collect();
        println!(
            "| {what} | {} | {:.2} s |",
            msg.join(" "),
            t.elapsed().as_secs_f64()
        );
    }
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    let r = match args.as_slice() {
        ["one", engine, game, n, reps] => {
            let n = n.parse().expect("size");
            let reps = reps.parse().expect("runs");
            best(engine, game, n, reps).map(|(d, calls, sum)| {
                println!(
                    "{engine} {game} {n}: {:.1} ms, {calls} calls, values {sum:x}",
                    d.as_secs_f64() * 1e3
                )
            })
        }
        ["check"] => check(),
        ["overhead"] => overhead(),
        ["table"] => table(),
        ["safety"] => {
            safety();
            safety_starlark();
            Ok(())
        }
        ["all"] | [] => check()
            .and_then(|()| overhead())
            .and_then(|()| table())
            .map(|()| {
                safety();
                safety_starlark()
            }),
        _ => Err(
            "usage: script-candidates [all | check | overhead | table | safety | one ENGINE GAME N RUNS]"
                .into(),
        ),
    };
    if let Err(e) = r {
        eprintln!("error: {e}");
        std::process::exit(1);
    }
}
