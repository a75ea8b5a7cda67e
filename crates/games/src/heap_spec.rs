//! Specs of heap games (`kind = "take-and-break"` and `kind = "subtraction"`): each says
//! what a game code of the `heap` family says, and reads as that code ([`spec_code`]), so
//! a spec runs on the built-in engines, `grundy seq` included, and shares their store.
//!
//! ```toml
//! kind = "take-and-break"
//! name = "kayles"
//! code = "0.77"            # any code the heap family reads
//! ```
//! ```toml
//! kind = "take-and-break"
//! rules = [ { remove = 1, leave = [0, 1, 2] }, { remove = 2, leave = [0, 1, 2] } ]
//! ```
//! ```toml
//! kind = "take-and-break"  # Grundy's game, then a game with a repeating block
//! rules = [ { remove = 0, leave = 2, unequal = true } ]
//! ```
//! ```toml
//! kind = "take-and-break"
//! rules = [ { remove = "3..", leave = [0, 1] }, { remove = 1, leave = [0, 1, 2, 3, 4] } ]
//! ```
//! ```toml
//! kind = "subtraction"
//! set = [1, 3, 4]          # all-but = true: any count but these; split = true: the rest
//!                          # may also be left as two heaps
//! ```
//!
//! A rule's `remove` is a count, a list of counts or a range (`"2..5"`, `"2..=5"`, `"3.."`:
//! every count from 3 on, which makes a repeating block); `leave` is a number of heaps
//! (0 to 31) or a list; `unequal = true` (on the spec, for every rule, or on one rule) asks
//! the heaps its splits leave to differ in size.

use crate::gamefile::{FileKind, GameFile, SpecError};
use crate::heap::HeapGame;
use grundy_core::heap::{Digit, HeapRules};
use serde::Deserialize;
use toml::Spanned;

/// A count of tokens, a list of them, or a range of them as text (`"3.."`, `"2..=5"`).
#[derive(Deserialize)]
#[serde(untagged)]
enum Counts {
    One(u64),
    Many(Vec<u64>),
    Range(String),
}

/// Counts a rule removes: some finite ones, and maybe every count from some count on.
struct Removals {
    finite: Vec<u64>,
    from: Option<u64>,
}

/// One rule of a take-and-break spec: remove these counts, leaving these numbers of heaps
/// (all different in size with `unequal`).
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Rule {
    remove: Spanned<Counts>,
    leave: Spanned<Counts>,
    unequal: Option<bool>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct TakeAndBreak {
    #[allow(dead_code)]
    kind: String,
    #[allow(dead_code)]
    name: Option<String>,
    #[allow(dead_code)]
    about: Option<String>,
    code: Option<Spanned<String>>,
    rules: Option<Spanned<Vec<Rule>>>,
    #[serde(default)]
    unequal: bool,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields, rename_all = "kebab-case")]
struct Subtraction {
    #[allow(dead_code)]
    kind: String,
    #[allow(dead_code)]
    name: Option<String>,
    #[allow(dead_code)]
    about: Option<String>,
    set: Spanned<Vec<u64>>,
    #[serde(default)]
    all_but: bool,
    #[serde(default)]
    split: bool,
}

/// Most heaps one take-and-break rule may leave.
const MAX_LEAVE: u64 = grundy_core::heap::MAX_LEAVE as u64;
/// Largest count a rule may remove (a code has at most this many digits); a range with no
/// end (`"3.."`) goes on forever.
const MAX_REMOVE: u64 = crate::heap::MAX_CODE_DIGITS as u64;

/// The heap-family code a heap spec stands for (checked by reading it as a code).
pub fn spec_code(file: &GameFile) -> Result<String, SpecError> {
    let code = match file.kind() {
        FileKind::Subtraction => subtraction_code(file)?,
        _ => take_and_break_code(file)?,
    };
    Ok(code)
}

/// Reads `remove` of a rule.
fn removals(file: &GameFile, remove: &Spanned<Counts>) -> Result<Removals, SpecError> {
    let too_many = |n: u64| {
        file.error_at(
            remove.span(),
            format!("a rule removes at most {MAX_REMOVE} tokens, not {n} (write \"{n}..\" for every count from {n} on)"),
        )
    };
    let check = |v: Vec<u64>| match v.iter().find(|&&n| n > MAX_REMOVE) {
        Some(&n) => Err(too_many(n)),
        None => Ok(v),
    };
    match remove.get_ref() {
        Counts::One(n) => Ok(Removals {
            finite: check(vec![*n])?,
            from: None,
        }),
        Counts::Many(v) => Ok(Removals {
            finite: check(v.clone())?,
            from: None,
        }),
        Counts::Range(text) => {
            let bad = || {
                file.error_at(
                    remove.span(),
                    format!(
                        "remove must be a count, a list of counts or a range like \"3..\", \"2..=5\" or \"2..5\", not '{}'",
                        grundy_core::parse::shorten(text)
                    ),
                )
            };
            let t = text.trim();
            let (lo, hi) = t.split_once("..").ok_or_else(bad)?;
            let num = |s: &str| -> Result<u64, SpecError> {
                let s = s.trim();
                if s.is_empty() || !s.bytes().all(|b| b.is_ascii_digit()) {
                    return Err(bad());
                }
                s.parse::<u64>().map_err(|_| too_many(u64::MAX))
            };
            let lo = num(lo)?;
            if hi.trim().is_empty() {
                if lo > MAX_REMOVE {
                    return Err(too_many(lo));
                }
                return Ok(Removals {
                    finite: Vec::new(),
                    from: Some(lo),
                });
            }
            let (hi, inclusive) = match hi.strip_prefix('=') {
                Some(h) => (num(h)?, true),
                None => (num(hi)?, false),
            };
            let end = if inclusive { hi } else { hi.saturating_sub(1) };
            if end > MAX_REMOVE {
                return Err(too_many(end));
            }
            if lo > end || (!inclusive && hi == 0) {
                return Err(file.error_at(remove.span(), format!("the range '{t}' is empty")));
            }
            Ok(Removals {
                finite: (lo..=end).collect(),
                from: None,
            })
        }
    }
}

/// A digit's bits and its unequal flag (`None` until a rule with a split sets it).
#[derive(Clone, Copy, Default)]
struct Slot {
    bits: Digit,
    unequal: Option<bool>,
}

impl Slot {
    /// Adds a rule's bits; `Err(())` when the rule disagrees on the unequal flag with an
    /// earlier rule splitting by the same count.
    fn add(&mut self, bits: Digit, unequal: bool) -> Result<(), ()> {
        self.bits |= bits;
        if bits & !3 != 0 {
            match self.unequal {
                Some(u) if u != unequal => return Err(()),
                _ => self.unequal = Some(unequal),
            }
        }
        Ok(())
    }
}

fn take_and_break_code(file: &GameFile) -> Result<String, SpecError> {
    let spec: TakeAndBreak = file.spec()?;
    match (&spec.code, &spec.rules) {
        (Some(code), None) => {
            if spec.unequal {
                return Err(file.error(
                    1,
                    1,
                    "unequal = true goes with rules; in a code, write '!' after the digit",
                ));
            }
            let text = code.get_ref().trim();
            HeapGame::parse(text).map(|g| g.name().to_string()).map_err(|e| {
                file.error_at(
                    code.span(),
                    format!("bad code '{text}', column {}: {}", e.span.column, e.message),
                )
            })
        }
        (None, Some(rules)) => rules_code(file, rules, spec.unequal),
        (Some(code), Some(_)) => Err(file.error_at(code.span(), "give either code or rules, not both")),
        (None, None) => Err(file.error(
            1,
            1,
            "a take-and-break spec needs a code (code = \"0.77\") or rules",
        )),
    }
}

/// The code of a list of rules (`unequal`: the spec's default for every rule).
fn rules_code(file: &GameFile, rules: &Spanned<Vec<Rule>>, unequal: bool) -> Result<String, SpecError> {
    // Per rule: its bits, its flag, its removals.
    let mut read = Vec::new();
    for rule in rules.get_ref() {
        let leaves = match rule.leave.get_ref() {
            Counts::One(n) => vec![*n],
            Counts::Many(v) => v.clone(),
            Counts::Range(_) => {
                return Err(file.error_at(
                    rule.leave.span(),
                    "leave is a number of heaps or a list of them (like [0, 1, 2])",
                ))
            }
        };
        let mut bits: Digit = 0;
        for leave in leaves {
            if leave > MAX_LEAVE {
                return Err(file.error_at(
                    rule.leave.span(),
                    format!("a rule leaves at most {MAX_LEAVE} heaps, not {leave}"),
                ));
            }
            bits |= 1 << leave;
        }
        let r = removals(file, &rule.remove)?;
        let covers_zero = r.finite.contains(&0) || r.from == Some(0);
        if covers_zero && bits & 3 != 0 {
            // Removing nothing must split the heap.
            return Err(file.error_at(rule.leave.span(), "removing 0 tokens must leave at least 2 heaps"));
        }
        read.push((bits, rule.unequal.unwrap_or(unequal), r, rule.remove.span()));
    }
    // Explicit digits below `block`, then every count from `block` on has the open ranges'
    // digit.
    let from = read.iter().filter_map(|(_, _, r, _)| r.from).max();
    let top = read
        .iter()
        .flat_map(|(_, _, r, _)| r.finite.iter().copied())
        .max();
    let block = match (from, top) {
        (Some(f), Some(t)) => Some(f.max(t + 1)),
        (Some(f), None) => Some(f),
        (None, _) => None,
    };
    let len = match (block, top) {
        (Some(b), _) => b + 1,
        (None, Some(t)) => t + 1,
        (None, None) => 1,
    } as usize;
    let mut slots = vec![Slot::default(); len];
    for (bits, unequal, r, span) in &read {
        let conflict = || {
            file.error_at(
                span.clone(),
                "rules splitting after removing the same count must agree on unequal",
            )
        };
        for &k in &r.finite {
            slots[k as usize].add(*bits, *unequal).map_err(|_| conflict())?;
        }
        if let Some(f) = r.from {
            for slot in &mut slots[f as usize..] {
                slot.add(*bits, *unequal).map_err(|_| conflict())?;
            }
        }
    }
    let digits: Vec<Digit> = slots.iter().map(|s| s.bits).collect();
    let flags: Vec<bool> = slots.iter().map(|s| s.unequal == Some(true)).collect();
    if digits.iter().all(|&d| d == 0) {
        return Err(file.error_at(rules.span(), "the rules allow no move"));
    }
    let repeat = usize::from(block.is_some());
    let rules_read = HeapRules::take_break(&digits, &flags, repeat)
        .ok_or_else(|| file.error_at(rules.span(), "these rules make no take-and-break code"))?;
    checked_name(file, rules.span(), HeapGame::from_rules(rules_read))
}

/// The name of `game`, checked to read back as the same game.
fn checked_name(file: &GameFile, span: std::ops::Range<usize>, game: HeapGame) -> Result<String, SpecError> {
    match HeapGame::parse(game.name()) {
        Ok(again) if again == game => Ok(game.name().to_string()),
        Ok(_) => Err(file.error_at(span, format!("the code '{}' reads as another game", game.name()))),
        Err(e) => Err(file.error_at(span, e.message)),
    }
}

fn subtraction_code(file: &GameFile) -> Result<String, SpecError> {
    let spec: Subtraction = file.spec()?;
    let mut set = spec.set.get_ref().clone();
    set.sort_unstable();
    set.dedup();
    if set.first() == Some(&0) {
        return Err(file.error_at(spec.set.span(), "a subtraction set holds positive counts"));
    }
    if set.is_empty() && !spec.all_but {
        return Err(file.error_at(spec.set.span(), "an empty subtraction set allows no move"));
    }
    let join = |s: &[u64]| s.iter().map(u64::to_string).collect::<Vec<_>>().join(",");
    let max = *set.last().unwrap_or(&0);
    if spec.split && max > MAX_REMOVE {
        return Err(file.error_at(
            spec.set.span(),
            format!("with split, counts go up to {MAX_REMOVE}"),
        ));
    }
    let game = match (spec.all_but, spec.split) {
        (false, false) => {
            return HeapGame::parse(&format!("sub:{}", join(&set)))
                .map(|g| g.name().to_string())
                .map_err(|e| file.error_at(spec.set.span(), e.message))
        }
        (true, false) => {
            return HeapGame::parse(&format!("sub-all-but:{}", join(&set)))
                .map(|g| g.name().to_string())
                .map_err(|e| file.error_at(spec.set.span(), e.message))
        }
        (false, true) => {
            // Remove a count of the set, leaving no heap, one or two.
            let mut digits = vec![0; max as usize + 1];
            for &s in &set {
                digits[s as usize] = 7;
            }
            HeapGame::take_break(digits)
        }
        (true, true) => {
            // Remove any count but those of the set, leaving no heap, one or two: digits
            // up to the largest excluded count, then a block [7].
            let mut digits = vec![7; max as usize + 2];
            digits[0] = 0;
            for &s in &set {
                digits[s as usize] = 0;
            }
            HeapRules::take_break(&digits, &[], 1).map(HeapGame::from_rules)
        }
    };
    let game = game.ok_or_else(|| file.error_at(spec.set.span(), "this set makes no game"))?;
    checked_name(file, spec.set.span(), game)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn code(text: &str) -> Result<String, SpecError> {
        spec_code(&GameFile::load("t.toml", text)?)
    }

    #[test]
    fn specs_read_as_codes() {
        assert_eq!(code("kind='take-and-break'\ncode='0.77'").unwrap(), "0.77");
        let kayles = "kind = 'take-and-break'\nrules = [{remove = [1, 2], leave = [0, 1, 2]}]";
        assert_eq!(code(kayles).unwrap(), "0.77");
        let dawson =
            "kind = 'take-and-break'\nrules = [{remove = 1, leave = 0}, {remove = 2, leave = [0,1,2]}]";
        assert_eq!(code(dawson).unwrap(), "0.17");
        let grundy = "kind = 'take-and-break'\nunequal = true\nrules = [{remove = 0, leave = 2}]";
        assert_eq!(code(grundy).unwrap(), "grundys-game");
        let grundy = "kind = 'take-and-break'\nrules = [{remove = 0, leave = 2, unequal = true}]";
        assert_eq!(code(grundy).unwrap(), "grundys-game");
        assert_eq!(
            code("kind='take-and-break'\ncode='4!.0'").unwrap(),
            "grundys-game"
        );
        assert_eq!(code("kind='subtraction'\nset=[4,1,3]").unwrap(), "sub:1,3,4");
        assert_eq!(
            code("kind='subtraction'\nset=[2,5]\nall-but=true").unwrap(),
            "sub-all-but:2,5"
        );
        assert_eq!(code("kind='subtraction'\nset=[1,2]\nsplit=true").unwrap(), "0.77");
        let hex = "kind='take-and-break'\nrules=[{remove=1, leave=3}]";
        assert_eq!(code(hex).unwrap(), "hex:0.8");
    }

    #[test]
    fn wider_specs() {
        let tb = |rules: &str| code(&format!("kind='take-and-break'\nrules={rules}"));
        // Up to 31 heaps.
        assert_eq!(tb("[{remove=1, leave=[0,1,4]}]").unwrap(), "0.{0,1,4}");
        assert_eq!(tb("[{remove=2, leave=31}]").unwrap(), "0.0{31}");
        // Unequal on one rule only.
        assert_eq!(
            tb("[{remove=1, leave=[1,2], unequal=true}, {remove=2, leave=[0,1,2]}]").unwrap(),
            "0.6!7"
        );
        assert_eq!(
            code("kind='take-and-break'\nunequal=true\nrules=[{remove=1, leave=[0,3]}]").unwrap(),
            "hex:0.9!"
        );
        // Ranges: "3.." repeats forever.
        assert_eq!(tb("[{remove='1..', leave=[0,1]}]").unwrap(), "0.[3]");
        assert_eq!(tb("[{remove='2..', leave=[0,1,2]}]").unwrap(), "0.0[7]");
        assert_eq!(
            tb("[{remove=0, leave=2}, {remove='2..', leave=[1, 2]}, {remove='1..', leave=0}]").unwrap(),
            "4.1[7]"
        );
        assert_eq!(tb("[{remove='1..=3', leave=[0,1,2]}]").unwrap(), "0.777");
        assert_eq!(tb("[{remove='1..3', leave=[0,1,2]}]").unwrap(), "0.77");
        assert_eq!(
            tb("[{remove=[5], leave=1}, {remove='3..', leave=0}]").unwrap(),
            "0.00113[1]"
        );
        // Code notations.
        assert_eq!(code("kind='take-and-break'\ncode='4.0[37]'").unwrap(), "4.0[37]");
        assert_eq!(
            code("kind='take-and-break'\ncode='0.{0,1,2,3,4}'").unwrap(),
            "0.{0,1,2,3,4}"
        );
        // Subtraction: all-but with split is a repeating block.
        let sub = |rest: &str| code(&format!("kind='subtraction'\n{rest}"));
        assert_eq!(sub("set=[]\nall-but=true\nsplit=true").unwrap(), "0.[7]");
        assert_eq!(sub("set=[2,5]\nall-but=true\nsplit=true").unwrap(), "0.70770[7]");
        assert_eq!(sub("set=[1]\nall-but=true\nsplit=true").unwrap(), "0.0[7]");
    }

    #[test]
    fn bad_wider_specs() {
        let tb = |rules: &str| code(&format!("kind='take-and-break'\nrules={rules}")).unwrap_err();
        let e = tb("[{remove='x..', leave=1}]");
        assert!(e.message.contains("range like"), "{e}");
        assert_eq!((e.line, e.column), (2, 16), "{e}");
        let e = tb("[{remove='5..2', leave=1}]");
        assert!(e.message.contains("empty"), "{e}");
        let e = tb("[{remove='0..', leave=1}]");
        assert!(e.message.contains("at least 2 heaps"), "{e}");
        let e = tb("[{remove=1, leave=32}]");
        assert!(e.message.contains("at most 31 heaps"), "{e}");
        let e = tb("[{remove=1, leave='1..'}]");
        assert!(e.message.contains("number of heaps"), "{e}");
        let e = tb("[{remove=5000, leave=1}]");
        assert!(e.message.contains("5000.."), "{e}");
        let e = tb("[{remove=1, leave=2, unequal=true}, {remove=1, leave=3}]");
        assert!(e.message.contains("agree on unequal"), "{e}");
        let e = tb("[{remove='1..99999999999999999999999', leave=1}]");
        assert!(e.message.contains("at most"), "{e}");
    }

    #[test]
    fn bad_specs_say_where() {
        let e = code("kind='take-and-break'\ncode='0.7z'").unwrap_err();
        assert_eq!((e.line, e.column), (2, 6), "{e}");
        let e = code("kind='take-and-break'\nrules=[{remove=1, leave=40}]").unwrap_err();
        assert_eq!(e.line, 2, "{e}");
        assert!(e.message.contains("at most 31 heaps"), "{e}");
        let e = code("kind='subtraction'\nset=[0, 1]").unwrap_err();
        assert!(e.message.contains("positive"), "{e}");
        let e = code("kind='subtraction'\nsett=[1]").unwrap_err();
        assert_eq!(e.line, 2, "{e}");
        let e = code("kind='take-and-break'").unwrap_err();
        assert!(e.message.contains("needs a code"), "{e}");
    }

    proptest::proptest! {
        /// Arbitrary values in a spec's fields: an answer or an error, never a panic; an
        /// answer reads back as the same code.
        #[test]
        fn any_spec_reads_or_errs(
            remove in "[0-9\\[\\], .=\"'a-z]{0,14}",
            leave in "[0-9\\[\\], .\"'-]{0,10}",
            code in "\\PC{0,16}",
            unequal: bool,
        ) {
            let text = format!("kind='take-and-break'\nunequal={unequal}\nrules=[{{remove={remove}, leave={leave}}}]");
            if let Ok(c) = code_of(&text) {
                let again = HeapGame::parse(&c).unwrap();
                proptest::prop_assert_eq!(again.name(), c.as_str());
            }
            let text = format!("kind='take-and-break'\ncode={code:?}");
            let _ = code_of(&text);
            let text = format!("kind='subtraction'\nset=[{leave}]\nall-but={unequal}\nsplit=true");
            let _ = code_of(&text);
        }
    }

    fn code_of(text: &str) -> Result<String, SpecError> {
        code(text)
    }
}
