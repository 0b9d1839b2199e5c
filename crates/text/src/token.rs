//! Words with their byte offsets, and the folding that makes look-ups ignore case and
//! diacritics (ASR output and people write "Łódź" and "lodz").

/// A word: a maximal run of letters and digits, except that digits joined by one `.`, `,`, `:`
/// or `/` stay one word ("86.40", "86,40", "5:30", "15.12.2026").
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Token<'a> {
    /// Byte offset of the first character.
    pub start: usize,
    /// Byte offset after the last character.
    pub end: usize,
    /// The word as written.
    pub text: &'a str,
    /// Lowercase, diacritics removed.
    pub folded: String,
}

impl Token<'_> {
    /// Whether the word is digits only.
    pub fn is_digits(&self) -> bool {
        !self.text.is_empty() && self.text.bytes().all(|b| b.is_ascii_digit())
    }
}

/// The words of `text`, in order.
pub fn tokens(text: &str) -> Vec<Token<'_>> {
    let chars: Vec<(usize, char)> = text.char_indices().collect();
    let mut out = Vec::new();
    let mut i = 0;
    while i < chars.len() {
        if !chars[i].1.is_alphanumeric() {
            i += 1;
            continue;
        }
        let start = chars[i].0;
        let mut j = i;
        loop {
            while j < chars.len() && chars[j].1.is_alphanumeric() {
                j += 1;
            }
            // A separator between digits keeps the number whole.
            let joins = j + 1 < chars.len()
                && matches!(chars[j].1, '.' | ',' | ':' | '/')
                && chars[j - 1].1.is_ascii_digit()
                && chars[j + 1].1.is_ascii_digit();
            if !joins {
                break;
            }
            j += 1;
        }
        let end = chars.get(j).map_or(text.len(), |c| c.0);
        let word = &text[start..end];
        out.push(Token { start, end, text: word, folded: fold(word) });
        i = j;
    }
    out
}

/// Lowercase with Polish (and common Latin) diacritics removed.
pub fn fold(s: &str) -> String {
    s.chars()
        .flat_map(char::to_lowercase)
        .map(|c| match c {
            'ą' | 'á' | 'à' | 'â' | 'ä' | 'ã' => 'a',
            'ć' | 'č' | 'ç' => 'c',
            'ę' | 'é' | 'è' | 'ê' | 'ë' | 'ě' => 'e',
            'ł' => 'l',
            'ń' | 'ñ' | 'ň' => 'n',
            'ó' | 'ò' | 'ô' | 'ö' | 'õ' => 'o',
            'ś' | 'š' => 's',
            'ź' | 'ż' | 'ž' => 'z',
            'í' | 'ì' | 'î' | 'ï' => 'i',
            'ú' | 'ù' | 'û' | 'ü' | 'ů' => 'u',
            'ý' => 'y',
            'ř' => 'r',
            other => other,
        })
        .collect()
}

/// The edits (a character inserted, dropped or replaced) that make `a` into `b`, if there are at
/// most `limit`: the Levenshtein distance, given up on as soon as every way through is past the
/// limit, so that comparing a phrase with the many runs of a transcript that are nothing like it
/// is cheap.
pub fn edits_within(a: &str, b: &str, limit: usize) -> Option<usize> {
    let (a, b): (Vec<char>, Vec<char>) = (a.chars().collect(), b.chars().collect());
    if a.len().abs_diff(b.len()) > limit {
        return None;
    }
    // The edits from a prefix of `a` to each prefix of `b`, a row per prefix of `a`.
    let mut row: Vec<usize> = (0..=b.len()).collect();
    for (i, &x) in a.iter().enumerate() {
        let mut diagonal = row[0];
        row[0] = i + 1;
        let mut best = row[0];
        for (j, &y) in b.iter().enumerate() {
            let replaced = diagonal + usize::from(x != y);
            diagonal = row[j + 1];
            row[j + 1] = replaced.min(row[j] + 1).min(diagonal + 1);
            best = best.min(row[j + 1]);
        }
        if best > limit {
            return None;
        }
    }
    Some(row[b.len()]).filter(|&edits| edits <= limit)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn edits_are_counted_up_to_the_limit() {
        assert_eq!(edits_within("rozumiem", "romumiem", 1), Some(1));
        assert_eq!(edits_within("rozumiem", "romumiem", 0), None);
        assert_eq!(edits_within("wczymmogepomoc", "wtymmogepomoc", 2), Some(2));
        assert_eq!(edits_within("dziendobry", "jejngobry", 5), Some(5));
        assert_eq!(edits_within("dziendobry", "jejngobry", 4), None);
        // Letters are characters, not bytes; lengths apart by more than the limit are never close.
        assert_eq!(edits_within("łódź", "lodz", 3), Some(3));
        assert_eq!(edits_within("łódź", "lodz", 2), None);
        assert_eq!(edits_within("abc", "abcdef", 2), None);
        assert_eq!(edits_within("", "ab", 2), Some(2));
        assert_eq!(edits_within("same", "same", 0), Some(0));
    }

    #[test]
    fn words_keep_offsets_and_numbers_their_separators() {
        let text = "Łódź: 86,40 zł, o 5:30, do 15.12.2026 (ul. Piotrkowska 12/4).";
        let t = tokens(text);
        let words: Vec<&str> = t.iter().map(|t| t.text).collect();
        assert_eq!(words, ["Łódź", "86,40", "zł", "o", "5:30", "do", "15.12.2026", "ul", "Piotrkowska", "12/4"]);
        assert_eq!(t[0].folded, "lodz");
        assert!(t.iter().all(|w| &text[w.start..w.end] == w.text));
        assert_eq!(tokens("the end. 5").iter().map(|t| t.text).collect::<Vec<_>>(), ["the", "end", "5"]);
    }
}
