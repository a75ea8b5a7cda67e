use super::*;
use grundy_core::Nimber;
use grundy_solve::analysis::Analyzer;
use grundy_solve::{GrundyMemo, SolveError};
use proptest::prelude::*;
use std::sync::Arc;

fn game(text: &str) -> Result<ScriptGame, crate::gamefile::SpecError> {
    ScriptGame::new(Arc::new(GameFile::load("t.lua", text)?))
}

/// The fault a script gives on the first options call of component `c`.
fn fault_of(text: &str, c: Value) -> Fault {
    let g = game(text).unwrap();
    let mut n = 0;
    g.options(&c, |_| n += 1);
    assert!(g.halted(), "no fault: {n} options");
    assert_eq!(GrundyMemo::new(&g).grundy(&c), Err(SolveError::Halted));
    g.fault().unwrap()
}

#[test]
fn kayles_options_and_values() {
    let g = ScriptGame::new(examples()[0].clone()).unwrap();
    let mut got = Vec::new();
    g.options(&Value::Int(3), |o| got.push(o.to_vec()));
    assert_eq!(got, vec![vec![Value::Int(2)], vec![Value::Int(1), Value::Int(1)], vec![Value::Int(1)]]);
    let mut memo = GrundyMemo::new(&g);
    let kayles: Vec<u64> = (0..13).map(|n| memo.grundy(&Value::Int(n)).unwrap().0).collect();
    assert_eq!(kayles, [0, 1, 2, 3, 1, 4, 3, 2, 1, 4, 2, 6, 4]);
    assert!(g.fault().is_none());
    // The same rules returning a table of options.
    let t = game(
        "position = 'integer'\nfunction options(n)\n local out = {}\n for take = 1, 2 do\n  local rest = n - take\n  \
         if rest >= 0 then for i = 0, rest // 2 do\n   local o = {}\n   if i > 0 then o[#o+1] = i end\n   \
         if rest - i > 0 then o[#o+1] = rest - i end\n   out[#out+1] = o\n  end end\n end\n return out\nend\n",
    )
    .unwrap();
    let mut memo = GrundyMemo::new(&t);
    let again: Vec<u64> = (0..13).map(|n| memo.grundy(&Value::Int(n)).unwrap().0).collect();
    assert_eq!(again, kayles);
}

#[test]
fn positions_read_print_and_move() {
    let g = ScriptGame::new(examples()[0].clone()).unwrap();
    let p = g.parse_position(" 5  9 12").unwrap();
    assert_eq!(g.format_position(&p), "5 9 12");
    let mut names = Vec::new();
    g.moves(&p, |m, q| names.push((g.format_move(&m), g.format_position(&q))));
    assert!(names.contains(&("1:5->1+3".to_string(), "1 3 9 12".to_string())), "{names:?}");
    let p = g.parse_position("1").unwrap();
    let mut names = Vec::new();
    g.moves(&p, |m, q| names.push((g.format_move(&m), g.format_position(&q))));
    assert_eq!(names, [("1->0".to_string(), "0".to_string())]);
    let e = g.parse_position("5 x").unwrap_err();
    assert_eq!((e.span.line, e.span.column), (1, 3));
    let cutting = ScriptGame::new(examples()[3].clone()).unwrap();
    let p = cutting.parse_position("4x3 1x5").unwrap();
    assert_eq!(cutting.format_position(&p), "4x3 1x5");
    assert_eq!(cutting.immediate_wins(&p).map(|w| w.len()), Some(2));
    let e = cutting.parse_position("4y3").unwrap_err();
    assert!(e.message.contains("expected a sheet WxH"), "{e}");
    assert_eq!(Analyzer::new(&cutting).grundy(&cutting.parse_position("2x2 4x3").unwrap()).unwrap(), Some(Nimber(1)));
}

#[test]
fn load_errors_name_the_line() {
    let e = game("position = 'integer'\nfunction options(n)\n  return {{n - }}\nend\n").unwrap_err();
    assert_eq!((e.file.as_str(), e.line, e.column), ("t.lua", 3, 1), "{e}");
    assert!(e.to_string().starts_with("t.lua:3:1: unexpected symbol near '}'"), "{e}");
    let e = game("position = 'heap'\nfunction options(n) end\n").unwrap_err();
    assert!(e.message.contains("position = \"heap\" is not one of"), "{e}");
    let e = game("function moved(n) end\n").unwrap_err();
    assert!(e.message.contains("no function options"), "{e}");
    let e = game("function options(n) end\nerror('boom')\n").unwrap_err();
    assert_eq!(e.line, 2, "{e}");
    let e = game("function options(n) end\nwhile true do end\n").unwrap_err();
    assert!(e.message.contains("ran past"), "{e}");
    let e = game("function options(n) end\nformat = 3\n").unwrap_err();
    assert!(e.message.contains("format must be a function"), "{e}");
    // `moves` is accepted for `options`.
    assert!(game("function moves(n) return {} end\n").is_ok());
}

#[test]
fn runtime_errors_and_bad_values_are_faults() {
    let f = fault_of("function options(n)\n  local t = nil\n  return t.x\nend\n", Value::Int(5));
    assert!(!f.limit);
    assert!(f.message.contains("t.lua:3:") && f.message.contains("options(5)"), "{f:?}");
    let f = fault_of("function options(n) return 'x' end\n", Value::Int(5));
    assert_eq!(f.message, "options(5) returned a string \"x\" where a list of options was expected");
    assert!(!f.limit);
    let f = fault_of("function options(n) return {{'x'}} end\n", Value::Int(5));
    assert!(f.message.contains("a string \"x\" where an integer was expected"), "{f:?}");
    let f = fault_of("function options(n, emit)\n  emit(true)\nend\n", Value::Int(5));
    assert!(f.message.contains("a boolean true") && f.message.contains("t.lua:2:"), "{f:?}");
    let f = fault_of("function options(n) return {3} end\n", Value::Int(5));
    assert!(f.message.contains("as option 1 where a list of components was expected"), "{f:?}");
    let f = fault_of("function options(n) return {{1}, {x = 1}} end\n", Value::Int(5));
    assert!(f.message.contains("not a list"), "{f:?}");
    for lib in ["io.open('x')", "os.exit()", "require('x')", "load('x')", "dofile('x')", "debug.getinfo(1)",
        "collectgarbage()", "math.random()", "string.dump(print)", "package.loaded"] {
        let f = fault_of(&format!("function options(n)\n  return {lib}\nend\n"), Value::Int(1));
        assert!(!f.limit && f.message.contains("t.lua:2:"), "{lib}: {f:?}");
    }
}

#[test]
fn limits_are_faults() {
    let f = fault_of("function options(n)\n  while true do end\nend\n", Value::Int(1));
    assert!(f.limit);
    assert_eq!(f.message, format!("the script's options(1) ran past {MAX_OPERATIONS} operations"));
    let f = fault_of("function options(n)\n  local t = {}\n  while true do t[#t + 1] = {} end\nend\n", Value::Int(1));
    assert!(f.limit && f.message.contains("ran out of memory"), "{f:?}");
    let f = fault_of("local function f(n) return 1 + f(n + 1) end\nfunction options(n) return f(n) end\n", Value::Int(1));
    assert!(f.limit && f.message.contains("recursed too deep") && f.message.contains("stack overflow"), "{f:?}");
}

#[test]
fn cycles_are_reported() {
    let g = game("function options(n)\n  if n < 3 then return {{n + 1}} end\n  return {{0}}\nend\n").unwrap();
    let e = GrundyMemo::new(&g).grundy(&Value::Int(0)).unwrap_err();
    assert!(matches!(e, SolveError::Cycle(_)), "{e:?}");
    assert!(e.to_string().contains("a position can be reached from itself"), "{e}");
}

#[test]
fn states_are_per_thread() {
    let g = ScriptGame::new(examples()[1].clone()).unwrap();
    let values: Vec<Vec<u64>> = std::thread::scope(|s| {
        let hs: Vec<_> = (0..3)
            .map(|_| s.spawn(|| (0..30).map(|n| GrundyMemo::new(&g).grundy(&Value::Int(n)).unwrap().0).collect()))
            .collect();
        hs.into_iter().map(|h| h.join().unwrap()).collect()
    });
    assert!(values.windows(2).all(|w| w[0] == w[1]));
    // Dawson's Kayles: 0.07 is 0.137 shifted by one.
    assert_eq!(&values[0][..12], &[0, 0, 1, 1, 2, 0, 3, 1, 1, 0, 3, 3]);
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]
    #[test]
    fn arbitrary_scripts_and_positions_never_panic(script in "\\PC{0,80}", text in "\\PC{0,30}") {
        if let Ok(g) = game(&format!("function options(n)\n{script}\nend\n")) {
            if let Ok(p) = g.parse_position(&text) {
                let _ = g.format_position(&p);
                let _ = Analyzer::new(&g).grundy(&p);
            }
        }
        let _ = game(&script);
        for file in examples() {
            let g = ScriptGame::new(file.clone()).unwrap();
            if let Ok(p) = g.parse_position(&text) {
                let _ = g.format_position(&p);
            }
        }
    }
}

/// The script of a heap game whose moves take `take` tokens and leave the rest as
/// `split(rest, emit, how)` does, for each `(take, how)`; `wrap` passes `split` a function
/// of the script's own (called per option) instead of `emit`; `heaps` declares the layout.
fn split_script(moves: &[(i64, &str)], wrap: bool, heaps: bool) -> String {
    let mut s = String::from("position = 'integer'\n");
    if heaps {
        s.push_str("layout = 'heaps'\n");
    }
    s.push_str("function options(n, emit)\n");
    if wrap {
        s.push_str("  local e = function(...) emit(...) end\n");
    } else {
        s.push_str("  local e = emit\n");
    }
    for (take, how) in moves {
        s.push_str(&format!("  if n >= {take} then split(n - {take}, e, '{how}') end\n"));
    }
    s.push_str("end\n");
    s
}

/// The same games' values by the definition: each option written out, the mex taken.
fn split_reference(moves: &[(i64, &str)], count: usize) -> Vec<u64> {
    let mut g: Vec<u64> = Vec::new();
    for n in 0..count as i64 {
        let mut seen = Vec::new();
        for &(take, how) in moves {
            let rest = n - take;
            if rest < 0 {
                continue;
            }
            if how == "any" {
                seen.push(if rest == 0 { 0 } else { g[rest as usize] });
            }
            for i in 1..rest {
                let j = rest - i;
                if i <= j && (how != "unequal" || i < j) {
                    seen.push(g[i as usize] ^ g[j as usize]);
                }
            }
        }
        g.push((0..).find(|v| !seen.contains(v)).unwrap());
    }
    g
}

#[test]
fn split_gives_families_of_options() {
    let kayles = [(1, "any"), (2, "any")];
    let g = game(&split_script(&kayles, false, false)).unwrap();
    let mut got = Vec::new();
    g.options(&Value::Int(4), |o| got.push(o.to_vec()));
    let v = |xs: &[i64]| xs.iter().map(|&x| Value::Int(x)).collect::<Vec<_>>();
    assert_eq!(got, [v(&[3]), v(&[1, 2]), v(&[2]), v(&[1, 1])]);
    // Grundy's game, and "two" rows only.
    let g = game("function options(n, emit) split(n, emit, 'unequal') emit(0, 0) end\n").unwrap();
    let mut got = Vec::new();
    g.options(&Value::Int(6), |o| got.push(o.to_vec()));
    assert_eq!(got, [v(&[1, 5]), v(&[2, 4]), v(&[0, 0])]);
    let g = game("function options(n, emit) emit(7) split(n, emit, 'two') end\n").unwrap();
    let mut got = Vec::new();
    g.options(&Value::Int(4), |o| got.push(o.to_vec()));
    assert_eq!(got, [v(&[7]), v(&[1, 3]), v(&[2, 2])]);
    // A script may define its own split.
    let g = game("function split(a) return a end\nfunction options(n) return {{split(n - 1)}} end\n").unwrap();
    let mut got = Vec::new();
    g.options(&Value::Int(4), |o| got.push(o.to_vec()));
    assert_eq!(got, [v(&[3])]);
}

#[test]
fn split_errors_are_faults() {
    for (body, says) in [
        ("split(-1, emit)", "n must be 0 or more, not -1"),
        ("split('x', emit)", "n must be an integer, not a string \"x\""),
        ("split(3, 4)", "emit must be a function, not the number 4"),
        ("split(3, emit, 'odd')", "how = \"odd\" is not one of: any, two, unequal"),
        ("split(3, emit, 2)", "how must be a string"),
    ] {
        let f = fault_of(&format!("function options(n, emit)\n  {body}\nend\n"), Value::Int(5));
        assert!(!f.limit && f.message.contains(says) && f.message.contains("t.lua:2:"), "{body}: {f:?}");
    }
    let f = fault_of("position = 'string'\nfunction options(s, emit) split(3, emit) end\n", Value::Str("a".into()));
    assert!(f.message.contains("this script's positions are"), "{f:?}");
    // Each option of a family counts as an operation.
    let f = fault_of("function options(n, emit) split(1000000000000, emit) end\n", Value::Int(5));
    assert!(f.limit && f.message.contains("operations"), "{f:?}");
    // Also when the options go to a function of Lua's libraries, which the hook never sees.
    let f = fault_of("function options(n, emit) split(1000000000000, math.abs) end\n", Value::Int(5));
    assert!(f.limit && f.message.contains("operations"), "{f:?}");
}

#[test]
fn the_heap_table_turns_off_when_options_are_not_smaller_heaps() {
    // Odd heaps below 9 may grow by one: not a heap game, but a game all the same.
    let text = "function options(n, emit)\n  if n % 2 == 1 and n < 9 then emit(n + 1) end\n  \
                if n >= 2 then split(n - 2, emit) end\nend\n";
    let plain = game(text).unwrap();
    let table = game(&format!("layout = 'heaps'\n{text}")).unwrap();
    let a: Vec<u64> = (0..20).map(|n| GrundyMemo::new(&plain).grundy(&Value::Int(n)).unwrap().0).collect();
    let b: Vec<u64> = (0..20).map(|n| GrundyMemo::new(&table).grundy(&Value::Int(n)).unwrap().0).collect();
    assert_eq!(a, b);
    assert_eq!(table.known_grundy(&Value::Int(0)), Some(Nimber(0)));
    assert_eq!(table.known_grundy(&Value::Int(15)), None);
    // A cycle is still found as one.
    let g = game("layout = 'heaps'\nfunction options(n)\n  if n < 3 then return {{n + 1}} end\n  return {{0}}\nend\n").unwrap();
    assert!(matches!(GrundyMemo::new(&g).grundy(&Value::Int(0)), Err(SolveError::Cycle(_))));
    // A stopped view gets no value.
    let g = ScriptGame::new(examples()[0].clone()).unwrap();
    assert_eq!(g.known_grundy_until(&Value::Int(50), &|| true), None);
    assert_eq!(g.known_grundy_until(&Value::Int(11), &|| false), Some(Nimber(6)));
}

fn split_moves() -> impl Strategy<Value = Vec<(i64, &'static str)>> {
    prop::collection::vec((1i64..5, prop::sample::select(vec!["any", "two", "unequal"])), 1..4)
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(48))]
    /// `split` handed `emit` (a family), handed another function (one call per option),
    /// with and without the heap table: the same values as the options written out.
    #[test]
    fn split_and_the_heap_table_agree_with_the_definition(moves in split_moves()) {
        let want = split_reference(&moves, 40);
        for (wrap, heaps) in [(false, true), (false, false), (true, true), (true, false)] {
            let g = game(&split_script(&moves, wrap, heaps)).unwrap();
            let mut memo = GrundyMemo::new(&g);
            let got: Vec<u64> = (0..40).map(|n| memo.grundy(&Value::Int(n)).unwrap().0).collect();
            prop_assert_eq!(&got, &want, "wrap {} heaps {}", wrap, heaps);
        }
    }
}
