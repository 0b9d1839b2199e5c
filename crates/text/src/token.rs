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

#[cfg(test)]
mod tests {
    use super::*;

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
