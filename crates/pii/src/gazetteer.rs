//! Word lists: first names and surnames (Polish with inflected forms, English) and the most common words of each language (a capitalised "Will" or "Wilk" is more often a
//! word than a name).

use std::collections::HashMap;
use std::path::Path;

/// Lowercase word → rank (1 = most frequent).
type Ranks = HashMap<Box<str>, u32>;

/// The lists PII detection consults.
#[derive(Debug, Default)]
pub struct Gazetteer {
    first_pl: Ranks,
    last_pl: Ranks,
    first_en: Ranks,
    last_en: Ranks,
    common_pl: Ranks,
    common_en: Ranks,
}

/// A gazetteer file that is missing or unreadable.
#[derive(Debug, thiserror::Error)]
#[error("cannot read the PII word list {path}: {source} (install it with `callscope models install`)")]
pub struct GazetteerError {
    path: String,
    source: std::io::Error,
}

fn parse(text: &str) -> Ranks {
    text.lines()
        .enumerate()
        .filter_map(|(i, line)| {
            let mut parts = line.split('\t');
            let word = parts.next()?.trim();
            let rank = parts.next().and_then(|r| r.trim().parse().ok()).unwrap_or(i as u32 + 1);
            (!word.is_empty()).then(|| (word.to_lowercase().into_boxed_str(), rank))
        })
        .collect()
}

/// How common a name is: a rank in one of the lists.
#[derive(Debug, Clone, Copy, Default)]
pub(crate) struct NameInfo {
    pub first: Option<u32>,
    pub last: Option<u32>,
    /// Rank as a common word (of either language).
    pub common: Option<u32>,
}

impl Gazetteer {
    /// Reads the `*.txt` lists of the `pii-gazetteers` artifact (`word<TAB>rank` lines).
    ///
    /// # Errors
    /// A list that cannot be read.
    pub fn load(dir: &Path) -> Result<Self, GazetteerError> {
        let read = |name: &str| {
            let path = dir.join(format!("{name}.txt"));
            std::fs::read_to_string(&path).map(|t| parse(&t)).map_err(|source| GazetteerError { path: path.display().to_string(), source })
        };
        Ok(Self {
            first_pl: read("pl_first_names")?,
            last_pl: read("pl_last_names")?,
            first_en: read("en_first_names")?,
            last_en: read("en_last_names")?,
            common_pl: read("pl_common_words")?,
            common_en: read("en_common_words")?,
        })
    }

    /// A gazetteer from inline lists (one word per line, ranked by position), for tests and
    /// small deployments.
    pub fn from_lists(first_names: &str, last_names: &str, common_words: &str) -> Self {
        Self { first_pl: parse(first_names), last_pl: parse(last_names), common_en: parse(common_words), ..Self::default() }
    }

    /// Number of words across all lists.
    pub fn len(&self) -> usize {
        [&self.first_pl, &self.last_pl, &self.first_en, &self.last_en, &self.common_pl, &self.common_en].iter().map(|m| m.len()).sum()
    }

    /// Whether every list is empty.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    pub(crate) fn name(&self, lower: &str) -> NameInfo {
        let best = |a: Option<&u32>, b: Option<&u32>| match (a, b) {
            (Some(&x), Some(&y)) => Some(x.min(y)),
            (x, y) => x.or(y).copied(),
        };
        NameInfo {
            first: best(self.first_pl.get(lower), self.first_en.get(lower)),
            last: best(self.last_pl.get(lower), self.last_en.get(lower)),
            common: best(self.common_pl.get(lower), self.common_en.get(lower)),
        }
    }
}
