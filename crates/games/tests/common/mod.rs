//! Helpers shared by the Cram tests of this folder.

/// A board of `rows` × `cols` with the cells of `holes` (bit r·cols + c) filled.
pub fn holed(rows: u32, cols: u32, holes: u32) -> String {
    (0..rows)
        .map(|r| {
            (0..cols)
                .map(|c| {
                    if holes >> (r * cols + c) & 1 == 1 {
                        '#'
                    } else {
                        '.'
                    }
                })
                .collect::<String>()
        })
        .collect::<Vec<_>>()
        .join("/")
}
