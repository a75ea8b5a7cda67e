//! The registry: the one list of families, and the lookup every front end uses to turn a
//! name, options and a position's text into a game, handed to a [`WithGame`] action generic
//! over the family.
//!
//! The list itself is the `families!` invocation in the crate's lib.rs: adding a family is
//! its module (a type implementing [`Family`]) and one line there; no other code names it.

use crate::family::{Description, Family, FamilyOptions, Opt, RegistryError};
use grundy_core::Game;

pub use crate::list::DESCRIPTIONS;

/// Something to do with a game and a position of it, whatever the family.
pub trait WithGame {
    /// What the action returns.
    type Output;
    /// Its error, which registry errors convert into.
    type Error: From<RegistryError>;
    /// Runs the action on `game` (built by `family`) and the parsed `position`.
    fn run<F: Family>(
        self,
        family: &F,
        game: &F::Game,
        position: <F::Game as Game>::Position,
        info: &FamilyInfo,
    ) -> Result<Self::Output, Self::Error>;
}

/// What a front end knows of the family of a built game.
#[derive(Debug, Clone)]
pub struct FamilyInfo {
    /// The canonical name of the game (for heap games, its code: `0.77`).
    pub name: String,
    /// The family's description.
    pub description: &'static Description,
    /// Whether misère play is defined for this game ([`Family::misere`]).
    pub misere: bool,
    /// The game's table, if it has one ([`Family::table`]).
    pub table: Option<crate::family::Table>,
}

/// A family found by name: its place in the list and its description.
#[derive(Clone, Copy, Debug)]
pub struct Found {
    index: usize,
    /// The family's description.
    pub description: &'static Description,
}

/// The family a name stands for: a canonical name or an alias, else a family named by codes
/// that takes the name as one of its codes (which may still be a bad one).
pub fn find(name: &str) -> Result<Found, RegistryError> {
    let found = |index: usize| Found {
        index,
        description: DESCRIPTIONS[index],
    };
    if let Some(i) = DESCRIPTIONS
        .iter()
        .position(|d| d.name == name || d.aliases.contains(&name))
    {
        return Ok(found(i));
    }
    if let Some(i) = DESCRIPTIONS.iter().position(|d| d.code.is_some_and(|c| c(name))) {
        return Ok(found(i));
    }
    Err(RegistryError::UnknownFamily {
        name: name.to_string(),
        known: named().map(|d| d.name).collect::<Vec<_>>().join(", "),
    })
}

/// The family that builds the game of `name` with `opts`: with a game file, the family its
/// kind names (see [`crate::gamefile::GameFile::resolve`]), else [`find`].
pub fn find_for(name: &str, opts: &FamilyOptions) -> Result<Found, RegistryError> {
    match &opts.game {
        Some(file) => find(&file.resolve(opts)?.0),
        None => find(name),
    }
}

/// The families with a fixed name (all but those named by codes).
pub fn named() -> impl Iterator<Item = &'static Description> {
    DESCRIPTIONS.iter().copied().filter(|d| d.code.is_none())
}

/// The families that take option `o`, as "a, b".
fn takers(o: Opt) -> String {
    let names: Vec<&str> = DESCRIPTIONS
        .iter()
        .filter(|d| d.options.contains(&o))
        .map(|d| d.name)
        .collect();
    names.join(", ")
}

/// Runs `action` on the game `family` builds (the list's dispatch calls it).
pub(crate) fn run_family<F: Family, A: WithGame>(
    family: &F,
    name: &str,
    opts: &FamilyOptions,
    text: &str,
    action: A,
) -> Result<A::Output, A::Error> {
    let d = &F::DESCRIPTION;
    if let Some(o) = opts.given().into_iter().find(|o| !d.options.contains(o)) {
        let msg = format!("{o} applies to {}, not {name}", takers(o));
        return Err(RegistryError::option(o, msg).into());
    }
    // The family's parser has its own words for an empty text; this is the rule for all.
    let (game, p) = family.build(name, opts, text)?;
    if text.trim().is_empty() && !family.position_from_options(opts) {
        let error =
            grundy_core::ParseError::new(1, 1, format!("empty position (for example: {})", d.example));
        return Err(RegistryError::position(name, error).into());
    }
    let info = FamilyInfo {
        name: family.name(&game),
        description: d,
        misere: family.misere(&game),
        table: family.table(&game),
    };
    action.run(family, &game, p, &info)
}

/// Builds the game of the family named `name` with `opts`, reads `text` as one of its
/// positions and runs `action` on them.
pub fn with_game<A: WithGame>(
    name: &str,
    opts: &FamilyOptions,
    text: &str,
    action: A,
) -> Result<A::Output, A::Error> {
    if let Some(file) = &opts.game {
        let (name, opts) = file.resolve(opts).map_err(RegistryError::from)?;
        let found = find(&name)?;
        return match crate::list::dispatch(found.index, &name, &opts, text, action) {
            Some(result) => result,
            None => Err(RegistryError::Unsupported(format!("no family at place {}", found.index)).into()),
        };
    }
    let found = find(name)?;
    match crate::list::dispatch(found.index, name, opts, text, action) {
        Some(result) => result,
        None => Err(RegistryError::Unsupported(format!("no family at place {}", found.index)).into()),
    }
}

/// A family's upper estimate of the moves of a position (see
/// [`Description::estimate_moves`]); `None` for an unknown family.
pub fn estimate_moves(name: &str, opts: &FamilyOptions, text: &str) -> Option<u64> {
    find_for(name, opts)
        .ok()
        .map(|f| (f.description.estimate_moves)(text))
}

/// The game of `name` read from `text`, formatted back (a position's canonical text).
pub fn format(name: &str, opts: &FamilyOptions, text: &str) -> Result<String, RegistryError> {
    struct Format;
    impl WithGame for Format {
        type Output = String;
        type Error = RegistryError;
        fn run<F: Family>(
            self,
            _: &F,
            game: &F::Game,
            p: <F::Game as Game>::Position,
            _: &FamilyInfo,
        ) -> Result<String, RegistryError> {
            Ok(game.format_position(&p))
        }
    }
    with_game(name, opts, text, Format)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_and_aliases_are_unique() {
        let mut seen = std::collections::HashSet::new();
        for d in DESCRIPTIONS {
            for n in std::iter::once(&d.name).chain(d.aliases) {
                assert!(seen.insert(*n), "{n} names two families");
            }
        }
    }

    #[test]
    fn every_example_reads_and_prints_back() {
        for d in DESCRIPTIONS {
            let name = d.presets.first().map_or(d.name, |p| p.0);
            let shown = format(name, &FamilyOptions::default(), d.example)
                .unwrap_or_else(|e| panic!("{}: {e}", d.name));
            if d.continues_as.is_some() {
                continue;
            }
            let again = format(name, &FamilyOptions::default(), &shown).unwrap();
            assert_eq!(shown, again, "{}", d.name);
        }
    }

    #[test]
    fn dense_is_stated_exactly_by_the_families_with_a_dense_form() {
        use crate::family::{DenseForm, Position, WithDense};
        struct HasDense;
        impl WithDense for HasDense {
            type Output = ();
            fn run<F: DenseForm>(self, _: &F, _: &F::Game, _: &Position<F>) {}
        }
        struct Answers;
        impl WithGame for Answers {
            type Output = bool;
            type Error = RegistryError;
            fn run<F: Family>(
                self,
                family: &F,
                game: &F::Game,
                p: <F::Game as Game>::Position,
                _: &FamilyInfo,
            ) -> Result<bool, RegistryError> {
                Ok(family.with_dense(game, &p, HasDense).is_some())
            }
        }
        for d in DESCRIPTIONS {
            let name = d.presets.first().map_or(d.name, |p| p.0);
            let answers = with_game(name, &FamilyOptions::default(), d.example, Answers)
                .unwrap_or_else(|e| panic!("{}: {e}", d.name));
            assert_eq!(
                answers, d.dense,
                "{}: dense is {} but with_dense answers {answers}",
                d.name, d.dense
            );
        }
    }

    #[test]
    fn an_empty_position_is_refused_by_every_family() {
        for d in DESCRIPTIONS {
            let name = d.presets.first().map_or(d.name, |p| p.0);
            for text in ["", "  ", "\n\t \r\n"] {
                let e = format(name, &FamilyOptions::default(), text).unwrap_err();
                assert!(
                    matches!(&e, RegistryError::BadPosition { error, .. } if error.span.line == 1 && error.span.column == 1),
                    "{}: {e:?}",
                    d.name
                );
            }
        }
        // The graph family's board is its whole position.
        let board = FamilyOptions {
            board: Some("path:4".into()),
            ..FamilyOptions::default()
        };
        assert_eq!(format("graph", &board, "").unwrap(), "1111");
        // The position with no token is written 0, never as an empty text.
        assert_eq!(format("nim", &FamilyOptions::default(), "0").unwrap(), "0");
        assert_eq!(crate::nim::format_heaps(&[]), "0");
    }

    #[test]
    fn unknown_names_and_bad_codes() {
        assert!(matches!(find("chess"), Err(RegistryError::UnknownFamily { .. })));
        let e = format("0.7z", &FamilyOptions::default(), "3").unwrap_err();
        assert!(matches!(e, RegistryError::BadCode { .. }), "{e:?}");
        let opts = FamilyOptions {
            board: Some("petersen".into()),
            ..FamilyOptions::default()
        };
        let e = format("nim", &opts, "3").unwrap_err();
        assert!(
            matches!(
                e,
                RegistryError::BadOption {
                    option: Opt::Board,
                    ..
                }
            ),
            "{e:?}"
        );
        assert!(
            e.to_string()
                .contains("--board applies to points, graph, not nim"),
            "{e}"
        );
    }
}
