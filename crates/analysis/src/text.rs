//! Words for matching: folded (lowercase, no Polish diacritics) and stripped of the commonest
//! Polish and English endings, so that "reklamacja", "reklamację" and "reklamacji" match, and
//! "refund", "refunds" and "refunded" do.

/// Lowercase, Polish diacritics removed.
pub fn fold(s: &str) -> String {
    s.chars()
        .flat_map(char::to_lowercase)
        .map(|c| match c {
            'ą' => 'a',
            'ć' => 'c',
            'ę' => 'e',
            'ł' => 'l',
            'ń' => 'n',
            'ó' => 'o',
            'ś' => 's',
            'ź' | 'ż' => 'z',
            c => c,
        })
        .collect()
}

const STOP: &[&str] = &[
    "the", "and", "for", "with", "that", "this", "from", "have", "has", "are", "was", "were", "you", "your", "our", "but", "not", "all", "any",
    "can", "will", "would", "about", "into", "out", "what", "when", "which", "who", "how", "there", "they", "them", "their", "its", "it's", "also",
    "just", "like", "yes", "okay", "thank", "thanks", "please", "hello", "call", "calls", "calling", "customer", "customers", "oraz", "albo", "lub",
    "ale", "jak", "jest", "sie", "nie", "tak", "czy", "ten", "ta", "to", "tego", "tej", "dla", "przy", "przez", "pod", "nad", "jego", "jej", "ich",
    "mam", "ma", "sa", "byl", "byla", "bylo", "bedzie", "moze", "mozna", "juz", "jeszcze", "tylko", "bardzo", "prosze", "dziekuje", "dzien", "dobry",
    "pan", "pani", "panstwo", "klient", "klienta", "klienci", "rozmowa", "rozmowy", "dotyczy", "dotyczace", "sprawa", "sprawy", "sprawie",
    "wszystkie", "inne", "innych",
];
const ENDINGS: &[&str] = &[
    "owania", "owanie", "ami", "ach", "ing", "ied", "ies", "ego", "emu", "ymi", "imi", "ow", "om", "em", "ie", "ed", "es", "a", "e", "i", "o", "u",
    "y", "s",
];

/// The stem of a folded word (`None` for short and stop words).
pub fn stem(folded: &str) -> Option<String> {
    if folded.chars().count() < 3 || STOP.contains(&folded) || folded.chars().all(|c| c.is_ascii_digit()) {
        return None;
    }
    for ending in ENDINGS {
        if let Some(base) = folded.strip_suffix(ending) {
            if base.chars().count() >= 4 {
                return Some(base.to_owned());
            }
        }
    }
    Some(folded.to_owned())
}

/// Stems of the words of `text`.
pub fn stems(text: &str) -> Vec<String> {
    text.split(|c: char| !c.is_alphanumeric()).filter(|w| !w.is_empty()).filter_map(|w| stem(&fold(w))).collect()
}

pub use callscope_domain::is_non_answer;

/// `text` trimmed, or `None` when it is a non-answer ([`is_non_answer`]).
pub fn given(text: &str) -> Option<&str> {
    (!is_non_answer(text)).then(|| text.trim())
}

/// `s` with its first letter in capitals.
pub fn capitalise(s: &str) -> String {
    let mut chars = s.chars();
    chars.next().map(|c| c.to_uppercase().chain(chars).collect()).unwrap_or_default()
}

/// Sentences of a text (split after . ! ? and line ends), trimmed, non-empty.
pub fn sentences(text: &str) -> Vec<&str> {
    text.split_inclusive(['.', '!', '?', '\n']).map(str::trim).filter(|s| !s.is_empty()).collect()
}

/// The parties of a call, in the order they first speak, each once.
pub fn parties<'a>(speakers: impl IntoIterator<Item = &'a str>) -> Vec<&'a str> {
    let mut out: Vec<&str> = Vec::new();
    for speaker in speakers {
        if !out.contains(&speaker) {
            out.push(speaker);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn non_answers_are_told_from_answers() {
        for nothing in
            ["", "  ", "null", "NULL", "None.", "N/A", "n/a", "\"\"", "''", "“”", "\"null\"", "-", "—", "unknown", "Brak", "nie dotyczy", "?"]
        {
            assert!(is_non_answer(nothing), "{nothing:?}");
            assert_eq!(given(nothing), None, "{nothing:?}");
        }
        for something in ["today", "by Friday", "0", "no", "None of the above applied, so we refunded", "na piątek", "Nadia"] {
            assert!(!is_non_answer(something), "{something:?}");
        }
        assert_eq!(given("  by Friday "), Some("by Friday"));
    }

    #[test]
    fn inflected_forms_share_a_stem() {
        assert_eq!(stems("reklamacja reklamację reklamacji"), ["reklamacj"; 3]);
        assert_eq!(stems("zwrot zwrotu zwrotem"), ["zwrot"; 3]);
        assert_eq!(stems("refund refunds refunded"), ["refund"; 3]);
        assert_eq!(stems("Billing bills"), ["bill"; 2]);
        assert!(stems("the and to 2026").is_empty());
    }
}
