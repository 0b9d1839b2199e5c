//! How text becomes searchable terms, the same way for indexing, for queries and for snippets:
//! words are runs of letters and digits; each is lower-cased, stripped of diacritics ("Łódź"
//! → "lodz") and reduced to a stem in the call's language (English: the Snowball stemmer;
//! Polish: our light suffix stripper in [`polish`](crate::polish)).

use callscope_domain::Language;
use rust_stemmers::{Algorithm, Stemmer};
use unicode_normalization::char::is_combining_mark;
use unicode_normalization::UnicodeNormalization;

/// One word of a text: its stem and where it is (byte offsets into the text).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Term {
    /// The stem, as indexed.
    pub stem: String,
    /// Byte offset of the word's first character.
    pub start: usize,
    /// Byte offset just after the word.
    pub end: usize,
}

/// Splits and stems texts of one language.
pub struct Analyzer {
    language: Language,
    english: Stemmer,
}

impl Analyzer {
    /// An analyzer for `language`.
    pub fn new(language: Language) -> Self {
        Self { language, english: Stemmer::create(Algorithm::English) }
    }

    /// The terms of `text`, in order. Each distinct spelling is stemmed once (a call repeats
    /// its words).
    pub fn terms(&self, text: &str) -> Vec<Term> {
        let mut stems: std::collections::HashMap<&str, String> = std::collections::HashMap::new();
        words(text)
            .map(|(start, end)| {
                let word = &text[start..end];
                let stem = stems.entry(word).or_insert_with(|| self.stem(word)).clone();
                Term { stem, start, end }
            })
            .collect()
    }

    /// The stem of one word.
    pub fn stem(&self, word: &str) -> String {
        let folded = if word.is_ascii() { word.to_ascii_lowercase() } else { fold(word) };
        if folded.chars().any(|c| c.is_ascii_digit()) {
            return folded;
        }
        match self.language {
            Language::En => self.english.stem(&folded).into_owned(),
            Language::Pl => crate::polish::stem(&folded).to_owned(),
        }
    }
}

/// Byte ranges of the words of `text`: maximal runs of alphanumeric characters, counting the
/// combining marks that follow a letter as part of it.
pub fn words(text: &str) -> impl Iterator<Item = (usize, usize)> + '_ {
    let mut chars = text.char_indices().peekable();
    std::iter::from_fn(move || {
        let (start, _) = chars.find(|(_, c)| c.is_alphanumeric())?;
        let mut end = text.len();
        while let Some(&(at, c)) = chars.peek() {
            if c.is_alphanumeric() || is_combining_mark(c) {
                chars.next();
            } else {
                end = at;
                break;
            }
        }
        Some((start, end))
    })
}

/// Lower case without diacritics: decomposes, drops combining marks, and maps the letters that
/// do not decompose (ł, ø, đ, ß, æ, œ …) to their plain Latin spelling.
pub fn fold(word: &str) -> String {
    let mut out = String::with_capacity(word.len());
    for c in word.nfd() {
        if is_combining_mark(c) {
            continue;
        }
        for lower in c.to_lowercase() {
            match lower {
                'ł' => out.push('l'),
                'ø' => out.push('o'),
                'đ' | 'ð' => out.push('d'),
                'ħ' => out.push('h'),
                'ı' => out.push('i'),
                'ß' => out.push_str("ss"),
                'æ' => out.push_str("ae"),
                'œ' => out.push_str("oe"),
                'þ' => out.push_str("th"),
                other => out.push(other),
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn stems(language: Language, text: &str) -> Vec<String> {
        Analyzer::new(language).terms(text).into_iter().map(|t| t.stem).collect()
    }

    #[test]
    fn words_keep_their_offsets() {
        let text = "Dzień dobry, Łódź—ul. Piotrkowska 12/3!";
        let found: Vec<&str> = words(text).map(|(s, e)| &text[s..e]).collect();
        assert_eq!(found, ["Dzień", "dobry", "Łódź", "ul", "Piotrkowska", "12", "3"]);
    }

    #[test]
    fn folding_removes_polish_diacritics() {
        assert_eq!(fold("ŁÓDŹ"), "lodz");
        assert_eq!(fold("zażółć gęślą jaźń"), "zazolc gesla jazn");
        assert_eq!(fold("Straße"), "strasse");
        // Decomposed input folds the same as composed.
        assert_eq!(fold("Lo\u{301}dz\u{301}"), "lodz");
    }

    #[test]
    fn english_words_are_stemmed() {
        assert_eq!(stems(Language::En, "Refunds refunded REFUNDING"), ["refund", "refund", "refund"]);
        assert_eq!(stems(Language::En, "cancellation cancelled"), stems(Language::En, "cancellations cancelled"));
        assert_eq!(stems(Language::En, "order 12345"), ["order", "12345"]);
    }

    #[test]
    fn polish_inflections_meet_at_one_stem() {
        let stem = |w: &str| Analyzer::new(Language::Pl).stem(w);
        for form in ["zwrotu", "zwrotem", "zwroty", "zwrotów", "zwrotami", "zwrotach", "zwrotowi"] {
            assert_eq!(stem(form), stem("zwrot"), "{form}");
        }
        for form in ["reklamację", "reklamacji", "reklamacją", "reklamacje", "reklamacjami", "reklamacjach"] {
            assert_eq!(stem(form), stem("reklamacja"), "{form}");
        }
        for form in ["Łódź", "Łodzi", "LODZ"] {
            assert_eq!(stem(form), stem("lodz"), "{form}");
        }
    }
}
