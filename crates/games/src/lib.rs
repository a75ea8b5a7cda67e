//! Built-in impartial game families, one module each, with the text notation of their
//! positions (documented in docs/games.md), and the registry that lists them.

/// Declares the family modules and registers their families: for each line `module:
/// Family, ...;` the module `module` and, in [`registry`], the families it defines, in the
/// order given (the order `--help` and the page list them).
macro_rules! families {
    ($($module:ident: $($family:ident),+;)*) => {
        $(pub mod $module;)*

        /// The list of families the registry reads (see [`registry`]).
        mod list {
            use crate::family::{Description, Family, FamilyOptions};
            use crate::registry::{run_family, WithGame};

            /// Every family's description, in the order of the list.
            pub static DESCRIPTIONS: &[&Description] =
                &[$($(&<crate::$module::$family as Family>::DESCRIPTION,)+)*];

            /// Runs `action` on the family at place `index` of the list.
            pub fn dispatch<A: WithGame>(
                index: usize,
                name: &str,
                opts: &FamilyOptions,
                text: &str,
                action: A,
            ) -> Option<Result<A::Output, A::Error>> {
                let mut place = 0usize;
                $($(
                    if index == place {
                        return Some(run_family(&crate::$module::$family, name, opts, text, action));
                    }
                    place += 1;
                )+)*
                let _ = place;
                None
            }
        }
    };
}

pub mod canon;
pub mod family;
pub mod gamefile;
pub mod graph;
pub mod grid;
pub mod heap_spec;
pub mod registry;

// The families. Adding one is its module and one line here.
families! {
    nim: NimFamily;
    darkraft: DarkraftFamily;
    bombs: BombsFamily;
    cutting: CuttingFamily;
    crosses: CrossesFamily;
    cram: CramFamily;
    chomp: ChompFamily;
    graph_game: PointsFamily, GraphFamily;
    heap: HeapFamily;
    coordinates: CoordinatesFamily;
    coins: CoinsFamily;
    placement: PlacementFamily;
    script: ScriptFamily;
}
