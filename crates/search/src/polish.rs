//! A light stemmer for Polish: it strips one inflectional ending so that the forms of a word
//! people search for meet at one stem ("zwrot", "zwrotu", "zwrotem" → "zwrot"; "reklamacja",
//! "reklamację", "reklamacji" → "reklamacj"). It works on folded words (no diacritics, lower
//! case), so a query typed without Polish letters stems the same as the transcript.
//!
//! It does not undo stem alternations ("zwrocie", "fakturze", "pieniędzy"): those would need a
//! dictionary. For search, stripping a little too much costs less than missing a form.

// Endings, longest first so that the longest one that fits is removed: noun and adjective
// case endings, then verb endings (infinitive, present, past); four letters, three, two and
// one, a table each.
const ENDINGS_4: &[&str] = &["iami", "iach", "owie", "acie", "ecie", "icie", "ycie"];
const ENDINGS_3: &[&str] = &[
    "ami", "ach", "iom", "owi", "iem", "ego", "emu", "ymi", "imi", "ych", "ich", "ala", "alo", "ali", "aly", "ila", "ilo", "ili", "ily", "ela",
    "elo", "eli", "ely", "yla", "ylo", "yli", "yly", "amy", "emy", "imy", "ymy", "asz", "esz", "aja",
];
const ENDINGS_2: &[&str] = &["om", "ow", "em", "ym", "im", "ej", "ie", "ia", "iu", "ii", "ac", "ec", "ic", "yc", "al", "il", "el", "yl"];
const ENDINGS_1: &[&str] = &["a", "e", "i", "o", "u", "y"];
const ENDING_GROUPS: [&[&str]; 4] = [ENDINGS_4, ENDINGS_3, ENDINGS_2, ENDINGS_1];

/// Fewest letters a stem keeps: "nie", "tak", "pan" stay whole.
const MIN_STEM: usize = 3;

/// The stem of a folded word.
pub fn stem(word: &str) -> &str {
    let letters = word.chars().count();
    if letters <= MIN_STEM {
        return word;
    }
    let mut best: Option<&str> = None;
    for ending in ENDING_GROUPS.iter().flat_map(|group| group.iter().copied()) {
        if letters.saturating_sub(ending.len()) < MIN_STEM {
            continue;
        }
        if word.ends_with(ending) && best.is_none_or(|b| ending.len() > b.len()) {
            best = Some(ending);
        }
    }
    match best {
        // Endings are ASCII, so the cut is a character boundary.
        Some(ending) => &word[..word.len() - ending.len()],
        None => word,
    }
}

#[cfg(test)]
mod tests {
    use super::stem;

    #[test]
    fn short_words_stay_whole() {
        for word in ["nie", "tak", "pan", "ale", "to"] {
            assert_eq!(stem(word), word);
        }
    }

    #[test]
    fn case_endings_go() {
        assert_eq!(stem("zwrotu"), "zwrot");
        assert_eq!(stem("zwrotem"), "zwrot");
        assert_eq!(stem("zwrotow"), "zwrot");
        assert_eq!(stem("reklamacja"), "reklamacj");
        assert_eq!(stem("reklamacjami"), "reklamacj");
        assert_eq!(stem("zamowienie"), "zamowien");
        assert_eq!(stem("zamowieniu"), "zamowien");
        assert_eq!(stem("zamowien"), "zamowien");
        assert_eq!(stem("nowego"), "now");
        assert_eq!(stem("nowymi"), "now");
        assert_eq!(stem("warszawie"), "warszaw");
    }

    #[test]
    fn verb_endings_go() {
        for form in ["zadzwonic", "zadzwoni", "zadzwonie", "zadzwonimy", "zadzwonila", "zadzwonili", "zadzwonil"] {
            assert_eq!(stem(form), "zadzwon", "{form}");
        }
    }
}
