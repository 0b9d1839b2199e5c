//! Turns the sentiment lexicons into plain `word<TAB>valence` files (valence on VADER's −4…4
//! scale): VADER's own list as it is, and polvader's Python pickles (word → valence dicts)
//! merged: the hand-built base lexicon first, then the inflected forms of its words, then the
//! coverage-expanded list for words neither has.

use std::collections::HashMap;
use std::fs;
use std::io::Write;
use std::path::Path;

use crate::{io_err, ModelsError};

/// Bumped when the files written here change.
pub(crate) const LAYOUT: u32 = 1;

fn read_pickle(path: &Path) -> Result<HashMap<String, f64>, ModelsError> {
    let bytes = fs::read(path).map_err(io_err(path))?;
    serde_pickle::from_slice(&bytes, serde_pickle::DeOptions::new())
        .map_err(|e| ModelsError::Verify(format!("{}: not a word → valence pickle: {e}", path.display())))
}

fn write(path: &Path, words: &HashMap<String, f64>) -> Result<(), ModelsError> {
    let mut sorted: Vec<(&String, &f64)> = words.iter().collect();
    sorted.sort_by(|a, b| a.0.cmp(b.0));
    let mut out = std::io::BufWriter::new(fs::File::create(path).map_err(io_err(path))?);
    for (word, valence) in sorted {
        writeln!(out, "{word}\t{valence:.4}").map_err(io_err(path))?;
    }
    out.flush().map_err(io_err(path))
}

/// Writes `pl_valence.txt` and `en_valence.txt` beside the assembled files in `dir`.
pub(crate) fn write_lexicons(dir: &Path) -> Result<(), ModelsError> {
    let mut polish = read_pickle(&dir.join("pl_base.pkl"))?;
    for source in ["pl_forms.pkl", "pl_expanded.pkl"] {
        for (word, valence) in read_pickle(&dir.join(source))? {
            polish.entry(word.to_lowercase()).or_insert(valence);
        }
    }
    write(&dir.join("pl_valence.txt"), &polish)?;

    // VADER: `token<TAB>mean<TAB>sd<TAB>[ratings]`.
    let path = dir.join("vader_lexicon.txt");
    let text = fs::read_to_string(&path).map_err(io_err(&path))?;
    let english: HashMap<String, f64> = text
        .lines()
        .filter_map(|line| {
            let mut fields = line.split('\t');
            let word = fields.next()?;
            let valence = fields.next()?.trim().parse().ok()?;
            Some((word.to_owned(), valence))
        })
        .collect();
    if english.len() < 1000 {
        return Err(ModelsError::Verify(format!("{}: only {} entries", path.display(), english.len())));
    }
    write(&dir.join("en_valence.txt"), &english)
}
