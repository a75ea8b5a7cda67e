//! One brute-force harness for every engine and every family: for each family of the
//! registry (for a family named by codes, each of its presets) and a seed, the family's
//! sample position ([`Description::sample`]) is checked against the reference solver
//! (`grundy_solve::brute`, a full game-tree search) by
//!
//! - the memo engine ([`Analyzer`]): outcome, Grundy value (normal play) and the set of
//!   winning moves, under each convention the family allows;
//! - the pruned search ([`search::analyze_normal_with_progress`], over `NimberSearch`):
//!   outcome, winning moves, Grundy value, and its progress reports, under normal play;
//! - misère play: outcome and winning moves (by the memo engine's misère search), where the
//!   family allows it;
//! - remoteness ([`Analyzer::remote`]) under each convention allowed;
//! - the dense solver ([`DenseSolver`]) through the family's dense form, where it has one:
//!   the position's record (outcome, Grundy value, remoteness) under every record kind and
//!   convention, and the winning moves read from the table.
//!
//! Grundy values are compared where the reference defines them: when no position of the
//! game tree is decided by an immediate win. The harness names no family.

use grundy_core::{Game, Outcome};
use grundy_games::family::{DenseForm, Description, Family, Position, WithDense};
use grundy_games::registry::{self, FamilyInfo, WithGame, DESCRIPTIONS};
use grundy_solve::analysis::Analyzer;
use grundy_solve::dense::{DenseSolver, Record};
use grundy_solve::{brute, search, Convention};
use proptest::prelude::*;
use std::collections::HashSet;

/// Every name the harness runs: each family's name, or for a family named by codes each of
/// its presets.
fn names() -> Vec<(&'static str, &'static Description)> {
    let mut out = Vec::new();
    for d in DESCRIPTIONS {
        if d.code.is_some() {
            out.extend(d.presets.iter().map(|p| (p.0, *d)));
        } else {
            out.push((d.name, *d));
        }
    }
    out
}

/// A mismatch (or a registry error, which a sample must not cause).
#[derive(Debug)]
struct Fail(String);

impl From<grundy_games::family::RegistryError> for Fail {
    fn from(e: grundy_games::family::RegistryError) -> Self {
        Fail(format!("the sample does not build: {e}"))
    }
}

macro_rules! check_eq {
    ($label:expr, $what:expr, $got:expr, $want:expr) => {{
        let (got, want) = ($got, $want);
        if got != want {
            return Err(Fail(format!(
                "{}: {}: engine says {:?}, brute force says {:?}",
                $label, $what, got, want
            )));
        }
    }};
}

/// Whether no position of the tree below `p` (`p` included) is decided by an immediate win:
/// then Grundy values are the mex of the successors', as the reference computes them.
fn no_immediate_wins<G: Game>(game: &G, p: &G::Position) -> bool {
    fn go<G: Game>(game: &G, p: &G::Position, seen: &mut HashSet<String>) -> bool {
        if !seen.insert(game.format_position(p)) {
            return true;
        }
        if game.immediate_wins(p).is_some() {
            return false;
        }
        let mut next = Vec::new();
        game.moves(p, |_, q| next.push(q));
        next.iter().all(|q| go(game, q, seen))
    }
    go(game, p, &mut HashSet::new())
}

/// Sorted, deduplicated move names.
fn set(mut v: Vec<String>) -> Vec<String> {
    v.sort();
    v.dedup();
    v
}

/// What the reference solver says of a position under one convention.
struct Reference {
    convention: Convention,
    outcome: Outcome,
    winning: Vec<String>,
    remote: (Outcome, u32),
}

/// The conventions a family allows.
fn conventions(d: &Description) -> Vec<Convention> {
    if d.misere {
        vec![Convention::Normal, Convention::Misere]
    } else {
        vec![Convention::Normal]
    }
}

/// Checks every engine on one position.
struct Check;

impl WithGame for Check {
    type Output = ();
    type Error = Fail;

    fn run<F: Family>(
        self,
        family: &F,
        game: &F::Game,
        p: Position<F>,
        info: &FamilyInfo,
    ) -> Result<(), Fail> {
        let label = format!("{} {:?}", info.name, game.format_position(&p));
        let names =
            |moves: &[<F::Game as Game>::Move]| set(moves.iter().map(|m| game.format_move(m)).collect());
        let grundy = no_immediate_wins(game, &p).then(|| brute::grundy(game, &p));
        let refs: Vec<Reference> = conventions(info.description)
            .into_iter()
            .map(|c| Reference {
                convention: c,
                outcome: brute::outcome(game, &p, c),
                winning: set(brute::winning_moves(game, &p, c)),
                remote: brute::remote(game, &p, c),
            })
            .collect();
        for r in &refs {
            let conv = r.convention;
            let label = format!("{label} ({conv:?})");
            // The memo engine (and, under misère play, the misère search).
            let a = Analyzer::new(game)
                .analyze(&p, conv)
                .map_err(|e| Fail(format!("{label}: memo: {e}")))?;
            check_eq!(label, "memo outcome", a.outcome, r.outcome);
            check_eq!(
                label,
                "memo winning moves",
                names(&a.winning_moves),
                r.winning.clone()
            );
            if conv == Convention::Normal {
                if let Some(g) = grundy {
                    check_eq!(label, "memo grundy", a.grundy, Some(g));
                }
            }
            // Remoteness.
            let rem = Analyzer::new(game)
                .remote(&p, conv)
                .map_err(|e| Fail(format!("{label}: remoteness: {e}")))?;
            check_eq!(label, "remoteness", (rem.outcome, rem.remoteness), r.remote);
            // The pruned search, normal play.
            if conv == Convention::Normal {
                let mut seen = Vec::new();
                let s = search::analyze_normal_with_progress(game, &p, true, usize::MAX, |pr| {
                    seen.push((pr.moves_done, pr.moves))
                })
                .map_err(|e| Fail(format!("{label}: search: {e}")))?;
                check_eq!(label, "search outcome", s.outcome, r.outcome);
                check_eq!(
                    label,
                    "search winning moves",
                    names(&s.winning_moves),
                    r.winning.clone()
                );
                if let Some(g) = grundy {
                    check_eq!(label, "search grundy", s.grundy, Some(g));
                    let moves = s.moves.len();
                    let expect: Vec<(usize, usize)> = (0..=moves).map(|i| (i, moves)).collect();
                    // Reports within a move (every 2^16 nodes) repeat the moves settled.
                    seen.dedup();
                    check_eq!(label, "search progress reports", seen, expect);
                }
            }
        }
        match family.with_dense(game, &p, Dense { grundy, refs: &refs }) {
            Some(result) => result.map_err(|e| Fail(format!("{label}: {}", e.0))),
            None => Ok(()),
        }
    }
}

/// Checks the dense solver on one position.
struct Dense<'a> {
    grundy: Option<grundy_core::Nimber>,
    refs: &'a [Reference],
}

impl WithDense for Dense<'_> {
    type Output = Result<(), Fail>;

    fn run<F: DenseForm>(self, family: &F, game: &F::Game, p: &Position<F>) -> Result<(), Fail> {
        let d = family
            .dense(game, p)
            .map_err(|e| Fail(format!("no dense view: {e}")))?;
        let top = family.top_tier(&d);
        let Some((t, i)) = family.locate(&d, p) else {
            return Err(Fail("dense: the position is not in its own view".into()));
        };
        check_eq!("dense", "tier of the position", t, top);
        for r in self.refs {
            let conv = r.convention;
            let records: &[Record] = match conv {
                Convention::Normal => &[Record::Outcome, Record::Grundy, Record::Remoteness],
                Convention::Misere => &[Record::Outcome, Record::Remoteness],
            };
            for &rec in records {
                let label = format!("dense ({conv:?}, {} records)", rec.as_str());
                let table = DenseSolver::new(&d)
                    .record(rec)
                    .convention(conv)
                    .solve(top)
                    .map_err(|e| Fail(format!("{label}: {e}")))?;
                let v = table.value(t, i).map_err(|e| Fail(format!("{label}: {e}")))?;
                check_eq!(label, "outcome", v.outcome, r.outcome);
                if rec == Record::Grundy {
                    if let Some(g) = self.grundy {
                        check_eq!(label, "grundy", v.grundy.map(u64::from), Some(g.0));
                    }
                }
                if rec == Record::Remoteness {
                    check_eq!(label, "remoteness", v.remoteness.map(u32::from), Some(r.remote.1));
                }
                let mut wins = Vec::new();
                let mut lost = None;
                game.moves(p, |m, q| match family.locate(&d, &q) {
                    Some((tq, iq)) => {
                        if table.outcome(tq, iq).ok() == Some(Outcome::Second) {
                            wins.push(game.format_move(&m));
                        }
                    }
                    None => lost = Some(game.format_move(&m)),
                });
                if let Some(m) = lost {
                    return Err(Fail(format!("{label}: move {m} leaves the dense view")));
                }
                check_eq!(label, "winning moves", set(wins), r.winning.clone());
            }
        }
        Ok(())
    }
}

/// Checks every engine on the sample of `seed` of family `name`.
fn check(name: &str, d: &Description, seed: u64) -> Result<(), String> {
    let sample = (d.sample)(seed);
    registry::with_game(name, &sample.options, &sample.text, Check)
        .map_err(|e| format!("{name} (seed {seed}, sample {:?}): {}", sample.text, e.0))
}

proptest! {
    // Each case runs every family once: 128 cases take a few seconds.
    #![proptest_config(ProptestConfig::with_cases(128))]

    #[test]
    fn every_engine_of_every_family_matches_brute_force(seed in any::<u64>()) {
        for (name, d) in names() {
            if let Err(e) = check(name, d, seed) {
                prop_assert!(false, "{}", e);
            }
        }
    }
}

#[test]
fn every_family_has_samples_that_build_and_vary() {
    for (name, d) in names() {
        let texts: HashSet<String> = (0..16).map(|s| (d.sample)(s).text).collect();
        assert!(texts.len() > 1, "{name}: the samples do not vary");
        for seed in 0..4 {
            check(name, d, seed).unwrap_or_else(|e| panic!("{e}"));
        }
    }
}
