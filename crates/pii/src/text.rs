//! Words of a transcript with their byte offsets, and the folding that makes look-ups ignore
//! case and Polish diacritics (ASR output and users write "Łódź" and "lodz").

/// A maximal run of letters and digits.
#[derive(Debug, Clone)]
pub(crate) struct Token<'a> {
    pub start: usize,
    pub end: usize,
    pub text: &'a str,
    /// Lowercase, diacritics removed.
    pub folded: String,
    /// Lowercase.
    pub lower: String,
}

impl Token<'_> {
    pub fn is_capitalized(&self) -> bool {
        self.text.chars().next().is_some_and(char::is_uppercase)
    }

    pub fn is_digits(&self) -> bool {
        self.text.bytes().all(|b| b.is_ascii_digit())
    }
}

pub(crate) fn tokens(text: &str) -> Vec<Token<'_>> {
    let mut out = Vec::new();
    let mut start = None;
    for (i, c) in text.char_indices().chain(std::iter::once((text.len(), ' '))) {
        match (start, c.is_alphanumeric()) {
            (None, true) => start = Some(i),
            (Some(s), false) => {
                let word = &text[s..i];
                out.push(Token { start: s, end: i, text: word, folded: fold(word), lower: word.to_lowercase() });
                start = None;
            }
            _ => {}
        }
    }
    out
}

pub(crate) use callscope_text::fold;

/// Whether the text between two tokens is only spacing and the punctuation people and ASR put
/// inside a number ("600-123-456", "85 01 02", "(22) 555").
pub(crate) fn joins_number(gap: &str) -> bool {
    gap.len() <= 3
        && gap.chars().all(|c| c.is_whitespace() || matches!(c, ',' | '.' | '-' | '/' | '(' | ')'))
        && gap.chars().filter(|c| !c.is_whitespace()).count() <= 2
}

/// Whether a token starts a sentence or a turn (its capital letter then says nothing).
pub(crate) fn sentence_initial(text: &str, tokens: &[Token<'_>], index: usize) -> bool {
    let before = match index {
        0 => &text[..tokens[0].start],
        i => &text[tokens[i - 1].end..tokens[i].start],
    };
    index == 0 || before.contains(['.', '?', '!', '\n', ':', '"', '“', '„'])
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tokens_keep_offsets_and_fold() {
        let t = tokens("Łódź, ul. Piotrkowska 12/4");
        let words: Vec<&str> = t.iter().map(|t| t.text).collect();
        assert_eq!(words, ["Łódź", "ul", "Piotrkowska", "12", "4"]);
        assert_eq!(t[0].folded, "lodz");
        assert_eq!(&"Łódź, ul. Piotrkowska 12/4"[t[2].start..t[2].end], "Piotrkowska");
        assert!(joins_number(" - ") && joins_number(", ") && !joins_number(" i ") && !joins_number(". ... "));
    }
}
