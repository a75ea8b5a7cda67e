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
//! kind = "subtraction"
//! set = [1, 3, 4]          # all-but = true: any count but these; split = true: the rest
//!                          # may also be left as two heaps
//! ```

use crate::gamefile::{FileKind, GameFile, SpecError};
use crate::heap::HeapGame;
use serde::Deserialize;
use toml::Spanned;

/// A count of tokens or a list of them.
#[derive(Deserialize)]
#[serde(untagged)]
enum Counts {
    One(u64),
    Many(Vec<u64>),
}

impl Counts {
    fn list(&self) -> Vec<u64> {
        match self {
            Counts::One(n) => vec![*n],
            Counts::Many(v) => v.clone(),
        }
    }
}

/// One rule of a take-and-break spec: remove these counts, leaving these numbers of heaps.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Rule {
    remove: Spanned<Counts>,
    leave: Spanned<Counts>,
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
const MAX_LEAVE: u64 = 3;
/// Largest count a rule may remove (a code has at most this many digits).
const MAX_REMOVE: u64 = crate::heap::MAX_CODE_DIGITS as u64;

/// The heap-family code a heap spec stands for (checked by reading it as a code).
pub fn spec_code(file: &GameFile) -> Result<String, SpecError> {
    let code = match file.kind() {
        FileKind::Subtraction => subtraction_code(file)?,
        _ => take_and_break_code(file)?,
    };
    Ok(code)
}

fn take_and_break_code(file: &GameFile) -> Result<String, SpecError> {
    let spec: TakeAndBreak = file.spec()?;
    let (code, span) = match (&spec.code, &spec.rules) {
        (Some(code), None) => {
            if spec.unequal {
                return Err(file.error(
                    1,
                    1,
                    "unequal = true goes with rules; in a code, write '!' after the digit",
                ));
            }
            (code.get_ref().trim().to_string(), code.span())
        }
        (None, Some(rules)) => {
            let mut digits: Vec<u8> = Vec::new();
            for rule in rules.get_ref() {
                let mut bits = 0u8;
                for leave in rule.leave.get_ref().list() {
                    if leave > MAX_LEAVE {
                        return Err(file.error_at(
                            rule.leave.span(),
                            format!("a rule leaves at most {MAX_LEAVE} heaps, not {leave}"),
                        ));
                    }
                    bits |= 1 << leave;
                }
                for remove in rule.remove.get_ref().list() {
                    if remove > MAX_REMOVE {
                        return Err(file.error_at(
                            rule.remove.span(),
                            format!("a rule removes at most {MAX_REMOVE} tokens, not {remove}"),
                        ));
                    }
                    let mut b = bits;
                    if remove == 0 {
                        // Removing nothing must split the heap.
                        if b & 0b11 != 0 {
                            return Err(file.error_at(
                                rule.leave.span(),
                                "removing 0 tokens must leave at least 2 heaps",
                            ));
                        }
                        b &= !0b11;
                    }
                    let k = remove as usize;
                    if digits.len() <= k {
                        digits.resize(k + 1, 0);
                    }
                    digits[k] |= b;
                }
            }
            while digits.len() > 1 && digits.last() == Some(&0) {
                digits.pop();
            }
            if digits.iter().all(|&d| d == 0) {
                return Err(file.error_at(rules.span(), "the rules allow no move"));
            }
            if spec.unequal {
                if digits == [4] {
                    return Ok("grundys-game".into());
                }
                return Err(file.error_at(
                    rules.span(),
                    "unequal parts are read only for Grundy's game (remove 0, leave 2) so far",
                ));
            }
            (digits_code(&digits), rules.span())
        }
        (Some(code), Some(_)) => {
            return Err(file.error_at(code.span(), "give either code or rules, not both"));
        }
        (None, None) => {
            return Err(file.error(
                1,
                1,
                "a take-and-break spec needs a code (code = \"0.77\") or rules",
            ));
        }
    };
    HeapGame::parse(&code).map(|g| g.name().to_string()).map_err(|e| {
        file.error_at(
            span,
            format!("bad code '{code}', column {}: {}", e.span.column, e.message),
        )
    })
}

/// The code of take-and-break digits (`digits[0]` before the point).
fn digits_code(digits: &[u8]) -> String {
    let hex = digits.iter().any(|&d| d > 7);
    let mut code = String::new();
    if hex {
        code.push_str("hex:");
    }
    code.push(
        char::from_digit(u32::from(digits[0]), 16)
            .unwrap_or('0')
            .to_ascii_uppercase(),
    );
    code.push('.');
    for &d in &digits[1..] {
        code.push(
            char::from_digit(u32::from(d), 16)
                .unwrap_or('0')
                .to_ascii_uppercase(),
        );
    }
    code
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
    let code = match (spec.all_but, spec.split) {
        (false, false) => format!("sub:{}", join(&set)),
        (true, false) => format!("sub-all-but:{}", join(&set)),
        (false, true) => {
            let max = *set.last().unwrap_or(&0);
            if max > MAX_REMOVE {
                return Err(file.error_at(
                    spec.set.span(),
                    format!("with split, counts go up to {MAX_REMOVE}"),
                ));
            }
            let mut digits = vec![0u8; max as usize + 1];
            for &s in &set {
                digits[s as usize] = 7;
            }
            digits_code(&digits)
        }
        (true, true) => {
            return Err(file.error_at(
                spec.set.span(),
                "all-but with split is not read yet (it needs a code with a repeating block)",
            ))
        }
    };
    HeapGame::parse(&code)
        .map(|g| g.name().to_string())
        .map_err(|e| file.error_at(spec.set.span(), e.message))
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
    fn bad_specs_say_where() {
        let e = code("kind='take-and-break'\ncode='0.7z'").unwrap_err();
        assert_eq!((e.line, e.column), (2, 6), "{e}");
        let e = code("kind='take-and-break'\nrules=[{remove=1, leave=7}]").unwrap_err();
        assert_eq!(e.line, 2, "{e}");
        assert!(e.message.contains("at most 3 heaps"), "{e}");
        let e = code("kind='subtraction'\nset=[0, 1]").unwrap_err();
        assert!(e.message.contains("positive"), "{e}");
        let e = code("kind='subtraction'\nsett=[1]").unwrap_err();
        assert_eq!(e.line, 2, "{e}");
        let e = code("kind='take-and-break'").unwrap_err();
        assert!(e.message.contains("needs a code"), "{e}");
    }
}
