//! The reference solver: full game-tree search over whole positions, using only
//! [`Game::moves`] and [`Game::immediate_wins`] — no components, no Sprague–Grundy sums, no
//! tables. It is slow on purpose and easy to read; property tests compare every clever
//! engine against it on small positions. (Test-only sizes: it recurses on game depth.)

use grundy_core::{Game, MexSet, Nimber, Outcome};
use std::collections::HashMap;

use crate::Convention;

/// Outcome of `p` by exhaustive search, memoised on the position's text.
pub fn outcome<G: Game>(game: &G, p: &G::Position, convention: Convention) -> Outcome {
    fn go<G: Game>(
        game: &G,
        p: &G::Position,
        conv: Convention,
        memo: &mut HashMap<String, Outcome>,
    ) -> Outcome {
        let key = game.format_position(p);
        if let Some(&o) = memo.get(&key) {
            return o;
        }
        let o = if game.immediate_wins(p).is_some() {
            Outcome::First
        } else {
            let mut next = Vec::new();
            game.moves(p, |_, q| next.push(q));
            if next.is_empty() {
                match conv {
                    Convention::Normal => Outcome::Second,
                    Convention::Misere => Outcome::First,
                }
            } else if next.iter().any(|q| go(game, q, conv, memo) == Outcome::Second) {
                Outcome::First
            } else {
                Outcome::Second
            }
        };
        memo.insert(key, o);
        o
    }
    go(game, p, convention, &mut HashMap::new())
}

/// Grundy value of `p` as the mex of its successors' values, over the whole game tree.
/// Only meaningful for games decided by "no move" (no immediate wins).
pub fn grundy<G: Game>(game: &G, p: &G::Position) -> Nimber {
    fn go<G: Game>(game: &G, p: &G::Position, memo: &mut HashMap<String, Nimber>) -> Nimber {
        let key = game.format_position(p);
        if let Some(&g) = memo.get(&key) {
            return g;
        }
        let mut next = Vec::new();
        game.moves(p, |_, q| next.push(q));
        let mut set = MexSet::new();
        for q in &next {
            set.insert_nimber(go(game, q, memo));
        }
        let g = set.mex();
        memo.insert(key, g);
        g
    }
    go(game, p, &mut HashMap::new())
}

/// The winning moves of `p` by exhaustive search, in the family's notation, sorted.
pub fn winning_moves<G: Game>(game: &G, p: &G::Position, convention: Convention) -> Vec<String> {
    if let Some(w) = game.immediate_wins(p) {
        let mut v: Vec<String> = w.iter().map(|m| game.format_move(m)).collect();
        v.sort();
        return v;
    }
    let mut out = Vec::new();
    game.moves(p, |m, q| {
        if outcome(game, &q, convention) == Outcome::Second {
            out.push(game.format_move(&m));
        }
    });
    out.sort();
    out
}

/// Outcome and remoteness of `p` by exhaustive search over the real game tree: an immediate
/// win has remoteness 1; otherwise the winner takes the fastest win, the loser the slowest loss.
pub fn remote<G: Game>(game: &G, p: &G::Position, convention: Convention) -> (Outcome, u32) {
    fn go<G: Game>(
        game: &G,
        p: &G::Position,
        conv: Convention,
        memo: &mut HashMap<String, (Outcome, u32)>,
    ) -> (Outcome, u32) {
        let key = game.format_position(p);
        if let Some(&r) = memo.get(&key) {
            return r;
        }
        let r = if game.immediate_wins(p).is_some() {
            (Outcome::First, 1)
        } else {
            let mut next = Vec::new();
            game.moves(p, |_, q| next.push(q));
            if next.is_empty() {
                match conv {
                    Convention::Normal => (Outcome::Second, 0),
                    Convention::Misere => (Outcome::First, 0),
                }
            } else {
                let values: Vec<(Outcome, u32)> = next.iter().map(|q| go(game, q, conv, memo)).collect();
                match values
                    .iter()
                    .filter(|v| v.0 == Outcome::Second)
                    .map(|v| v.1)
                    .min()
                {
                    Some(r) => (Outcome::First, r + 1),
                    None => (Outcome::Second, values.iter().map(|v| v.1).max().unwrap_or(0) + 1),
                }
            }
        };
        memo.insert(key, r);
        r
    }
    go(game, p, convention, &mut HashMap::new())
}
