//! Turns the registry's word lists into the plain `word<TAB>rank` files PII detection reads:
//! marisa-trie record tries (zxcvbn-pl), the US census name tables (`names`), and the
//! comma-separated frequency lists in zxcvbn's Python source.

use std::collections::HashMap;
use std::fs;
use std::io::Write;
use std::path::Path;

use crate::{io_err, ModelsError};

/// Bumped when the files written here change, so that installed copies are rebuilt.
pub(crate) const LAYOUT: u32 = 2;

/// Words and their rank (1 = most frequent); a word listed twice keeps its best rank.
type Ranked = HashMap<String, u32>;

fn verify(what: &str, detail: impl std::fmt::Display) -> ModelsError {
    ModelsError::Verify(format!("{what}: {detail}"))
}

/// Reads a `marisa_trie.RecordTrie("<I")`: each key is the word's UTF-8, a 0xFF separator, and
/// the rank as a little-endian u32.
fn read_record_trie(path: &Path) -> Result<Ranked, ModelsError> {
    let mut trie = rsmarisa::Trie::new();
    trie.load(&path.to_string_lossy()).map_err(|e| verify(&path.display().to_string(), format!("{e:?}")))?;
    let mut agent = rsmarisa::Agent::new();
    agent.set_query_str("");
    let mut words = Ranked::new();
    while trie.predictive_search(&mut agent) {
        let key = agent.key().as_bytes();
        let Some(split) = key.iter().position(|&b| b == 0xff) else { continue };
        let (Ok(word), Some(rank)) = (std::str::from_utf8(&key[..split]), key.get(split + 1..split + 5)) else { continue };
        let rank = u32::from_le_bytes([rank[0], rank[1], rank[2], rank[3]]);
        merge(&mut words, word.to_lowercase(), rank);
    }
    if words.is_empty() {
        return Err(verify(&path.display().to_string(), "no words in the trie"));
    }
    Ok(words)
}

fn merge(words: &mut Ranked, word: String, rank: u32) {
    words.entry(word).and_modify(|r| *r = (*r).min(rank)).or_insert(rank);
}

/// Reads a census table: `NAME  frequency  cumulative  rank` per line.
fn read_census(path: &Path, words: &mut Ranked) -> Result<(), ModelsError> {
    let text = fs::read_to_string(path).map_err(io_err(path))?;
    for line in text.lines() {
        let fields: Vec<&str> = line.split_whitespace().collect();
        if let [name, _, _, rank] = fields[..] {
            let rank = rank.parse().map_err(|_| verify(&path.display().to_string(), format!("bad line {line:?}")))?;
            merge(words, name.to_lowercase(), rank);
        }
    }
    Ok(())
}

/// Reads the lists named `names` from zxcvbn's `frequency_lists.py`, where each is one
/// comma-separated string literal: `"name": "w1,w2,…",`.
fn read_frequency_lists(path: &Path, names: &[&str]) -> Result<Ranked, ModelsError> {
    let text = fs::read_to_string(path).map_err(io_err(path))?;
    let mut words = Ranked::new();
    for name in names {
        let key = format!("\"{name}\": \"");
        let start = text.find(&key).ok_or_else(|| verify(&path.display().to_string(), format!("no list {name}")))? + key.len();
        let end = start + text[start..].find('"').ok_or_else(|| verify(&path.display().to_string(), "unterminated list"))?;
        for (i, word) in text[start..end].split(',').enumerate() {
            merge(&mut words, word.to_lowercase(), i as u32 + 1);
        }
    }
    Ok(words)
}

fn write_list(path: &Path, words: &Ranked) -> Result<(), ModelsError> {
    let mut sorted: Vec<(&String, &u32)> = words.iter().collect();
    sorted.sort_by(|a, b| a.1.cmp(b.1).then(a.0.cmp(b.0)));
    let mut out = std::io::BufWriter::new(fs::File::create(path).map_err(io_err(path))?);
    for (word, rank) in sorted {
        writeln!(out, "{word}\t{rank}").map_err(io_err(path))?;
    }
    out.flush().map_err(io_err(path))
}

/// Writes the `.txt` lists beside the assembled files in `dir`.
pub(crate) fn write_word_lists(dir: &Path) -> Result<(), ModelsError> {
    for name in ["pl_first_names", "pl_last_names", "pl_common_words"] {
        let words = read_record_trie(&dir.join(format!("{name}.marisa")))?;
        write_list(&dir.join(format!("{name}.txt")), &words)?;
    }
    let mut first = Ranked::new();
    read_census(&dir.join("dist.male.first"), &mut first)?;
    read_census(&dir.join("dist.female.first"), &mut first)?;
    write_list(&dir.join("en_first_names.txt"), &first)?;
    let mut last = Ranked::new();
    read_census(&dir.join("dist.all.last"), &mut last)?;
    write_list(&dir.join("en_last_names.txt"), &last)?;
    let common = read_frequency_lists(&dir.join("frequency_lists.py"), &["us_tv_and_film", "english_wikipedia"])?;
    write_list(&dir.join("en_common_words.txt"), &common)?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn frequency_lists_and_census_tables_are_parsed() {
        let dir = tempfile::tempdir().unwrap();
        let py = dir.path().join("f.py");
        fs::write(&py, "FREQUENCY_LISTS = {\n    \"a\": \"you,I,the\",\n    \"b\": \"the,zebra\",\n}\n").unwrap();
        let words = read_frequency_lists(&py, &["a", "b"]).unwrap();
        assert_eq!(words["the"], 1, "the better rank wins");
        assert_eq!(words["i"], 2);
        assert_eq!(words["zebra"], 2);
        assert!(read_frequency_lists(&py, &["c"]).is_err());

        let census = dir.path().join("dist");
        fs::write(&census, "SMITH          1.006  1.006      1\nJOHNSON        0.810  1.816      2\n").unwrap();
        let mut names = Ranked::new();
        read_census(&census, &mut names).unwrap();
        assert_eq!(names["johnson"], 2);
        let out = dir.path().join("out.txt");
        write_list(&out, &names).unwrap();
        assert_eq!(fs::read_to_string(out).unwrap(), "smith\t1\njohnson\t2\n");
    }
}
