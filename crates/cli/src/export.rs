//! Exports of `grundy seq`: the values as an OEIS b-file or as CSV (`--format bfile|csv`),
//! and the periodicity certificate (`--certificate FILE`, checked by `grundy verify`).

use grundy_app::seq::Computed;
use grundy_cli::error::CliError;
use std::io::Write;
use std::path::Path;

/// The formats of `grundy seq --format`.
#[derive(clap::ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
pub enum Format {
    /// An OEIS b-file: lines `n G(n)` from n = 0 (the offset of a Grundy sequence), one
    /// space, LF line ends, the last line ended too; no comment lines.
    Bfile,
    /// CSV with the header `n,g`, then one line `n,G(n)` per heap.
    Csv,
}

/// Writes the values of `c` in `format`.
pub fn write_values(out: &mut impl Write, c: &Computed, format: Format) -> std::io::Result<()> {
    let sep = match format {
        Format::Bfile => ' ',
        Format::Csv => {
            writeln!(out, "n,g")?;
            ','
        }
    };
    for (n, g) in c.values().enumerate() {
        writeln!(out, "{n}{sep}{g}")?;
    }
    Ok(())
}

/// Writes the certificate of the period `c` proves to `path`, with a note on stderr unless
/// `quiet`. No period proven is a failure (exit 1): the run could not prove what was asked.
pub fn certificate(path: &Path, c: &Computed, quiet: bool) -> Result<(), CliError> {
    let n = grundy_app::certificate::write(path, c)
        .map_err(|e| CliError::Failure(anyhow::anyhow!(e.to_string())))?;
    if !quiet {
        eprintln!(
            "grundy: certificate {} written ({n} values); check it with: grundy verify {}",
            path.display(),
            path.display()
        );
    }
    Ok(())
}
