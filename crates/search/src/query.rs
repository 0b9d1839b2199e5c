//! The search query language of decisions §4: words are ANDed; `"…"` is a phrase; `OR` (upper
//! case) joins two terms or phrases; a leading `-` excludes a word or a phrase. Parsing only
//! checks the syntax and keeps the user's words; [`crate::index`] stems them for each language.

use std::fmt;

/// Longest query, in characters.
pub const MAX_QUERY_CHARS: usize = 500;
/// Most words a query holds, counting every word of its phrases and exclusions: each costs a
/// look-up per field and language, and the statistics the score is computed from.
pub const MAX_QUERY_WORDS: usize = 32;

/// A word or a phrase as the user typed it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Term {
    /// One word (which may still split into several, as "e-mail" does).
    Word(String),
    /// Words in quotes, to be found in this order, next to each other.
    Phrase(String),
}

impl Term {
    /// The text typed.
    pub fn text(&self) -> &str {
        match self {
            Term::Word(text) | Term::Phrase(text) => text,
        }
    }
}

/// A parsed query: every group must match (one of its terms at least), no exclusion may.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Query {
    /// Required groups; the terms of one group are alternatives (`a OR b`).
    pub required: Vec<Vec<Term>>,
    /// Excluded terms.
    pub excluded: Vec<Term>,
}

/// Why a query was refused.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum QueryError {
    /// The query cannot be parsed (400 `invalid_query`); `position` counts characters from 1.
    Syntax {
        /// Where the problem is, in characters from 1.
        position: usize,
        /// What is wrong there.
        message: &'static str,
    },
    /// The query has nothing to look for: empty, or exclusions only (422).
    NothingToFind(&'static str),
    /// The query is longer than [`MAX_QUERY_CHARS`] or holds more than [`MAX_QUERY_WORDS`] words
    /// (422).
    TooLarge(String),
}

impl fmt::Display for QueryError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            QueryError::Syntax { position, message } => write!(f, "{message} (at character {position})"),
            QueryError::NothingToFind(message) => f.write_str(message),
            QueryError::TooLarge(message) => f.write_str(message),
        }
    }
}

impl std::error::Error for QueryError {}

/// One lexical piece of a query.
#[derive(Debug)]
enum Token {
    Term { term: Term, excluded: bool, position: usize },
    Or { position: usize },
}

/// Parses `q`. Terms without any letter or digit (a lone "…" or "&") are dropped, as the index
/// has no words for them.
///
/// # Errors
/// [`QueryError::Syntax`] for an unclosed quote, an empty phrase, a `-` with nothing after it,
/// or an `OR` without a term on both sides (or next to an exclusion);
/// [`QueryError::NothingToFind`] for a query without any required term.
pub fn parse(q: &str) -> Result<Query, QueryError> {
    let length = q.chars().count();
    if length > MAX_QUERY_CHARS {
        return Err(QueryError::TooLarge(format!("the query has {length} characters; at most {MAX_QUERY_CHARS} are searched")));
    }
    let tokens = tokenize(q)?;
    let mut query = Query::default();
    let mut pending_or: Option<usize> = None;
    for (i, token) in tokens.iter().enumerate() {
        match token {
            Token::Or { position } => {
                let previous = i.checked_sub(1).map(|p| &tokens[p]);
                match previous {
                    Some(Token::Term { excluded: false, .. }) if pending_or.is_none() => {}
                    Some(Token::Term { excluded: true, .. }) => {
                        return Err(syntax(*position, "OR cannot join an excluded term"));
                    }
                    _ => return Err(syntax(*position, "OR needs a word or phrase before it")),
                }
                pending_or = Some(*position);
            }
            Token::Term { term, excluded, position } => {
                if *excluded {
                    if pending_or.is_some() {
                        return Err(syntax(*position, "OR cannot join an excluded term"));
                    }
                    if has_words(term) {
                        query.excluded.push(term.clone());
                    }
                    continue;
                }
                let joined = pending_or.take().is_some();
                match (joined, query.required.last_mut()) {
                    (true, Some(group)) => group.push(term.clone()),
                    _ => query.required.push(vec![term.clone()]),
                }
            }
        }
    }
    if let Some(position) = pending_or {
        return Err(syntax(position, "OR needs a word or phrase after it"));
    }
    for group in &mut query.required {
        group.retain(has_words);
    }
    query.required.retain(|group| !group.is_empty());
    let words: usize = query.required.iter().flatten().chain(&query.excluded).map(|t| crate::text::words(t.text()).count()).sum();
    if words > MAX_QUERY_WORDS {
        return Err(QueryError::TooLarge(format!("the query has {words} words; at most {MAX_QUERY_WORDS} are searched")));
    }
    if query.required.is_empty() {
        return Err(QueryError::NothingToFind(if query.excluded.is_empty() {
            "the query has no words to search for"
        } else {
            "the query only excludes: add a word or phrase to find"
        }));
    }
    Ok(query)
}

fn syntax(position: usize, message: &'static str) -> QueryError {
    QueryError::Syntax { position, message }
}

fn has_words(term: &Term) -> bool {
    crate::text::words(term.text()).next().is_some()
}

fn tokenize(q: &str) -> Result<Vec<Token>, QueryError> {
    let chars: Vec<char> = q.chars().collect();
    let mut tokens = Vec::new();
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        if c.is_whitespace() {
            i += 1;
            continue;
        }
        let position = i + 1;
        let excluded = c == '-';
        if excluded {
            i += 1;
            if i >= chars.len() || chars[i].is_whitespace() {
                return Err(syntax(position, "'-' must be followed by a word or a phrase"));
            }
        }
        if chars[i] == '"' {
            let open = i + 1;
            let Some(close) = chars[i + 1..].iter().position(|&c| c == '"').map(|p| p + i + 1) else {
                return Err(syntax(open, "unclosed quote: the phrase has no closing \""));
            };
            let text: String = chars[i + 1..close].iter().collect();
            if text.trim().is_empty() {
                return Err(syntax(open, "empty phrase"));
            }
            tokens.push(Token::Term { term: Term::Phrase(text), excluded, position });
            i = close + 1;
            continue;
        }
        let start = i;
        while i < chars.len() && !chars[i].is_whitespace() && chars[i] != '"' {
            i += 1;
        }
        let text: String = chars[start..i].iter().collect();
        if text == "OR" && !excluded {
            tokens.push(Token::Or { position });
        } else {
            tokens.push(Token::Term { term: Term::Word(text), excluded, position });
        }
    }
    Ok(tokens)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn word(text: &str) -> Term {
        Term::Word(text.into())
    }

    fn phrase(text: &str) -> Term {
        Term::Phrase(text.into())
    }

    #[test]
    fn words_are_anded_and_or_binds_closer() {
        let q = parse("refund card OR transfer \"next week\"").unwrap();
        assert_eq!(q.required, vec![vec![word("refund")], vec![word("card"), word("transfer")], vec![phrase("next week")]]);
        assert!(q.excluded.is_empty());
        let chain = parse("a OR b OR \"c d\"").unwrap();
        assert_eq!(chain.required, vec![vec![word("a"), word("b"), phrase("c d")]]);
    }

    #[test]
    fn queries_are_bounded_in_characters_and_words() {
        assert!(parse(&"a".repeat(MAX_QUERY_CHARS)).is_ok());
        assert!(matches!(parse(&"a".repeat(MAX_QUERY_CHARS + 1)), Err(QueryError::TooLarge(m)) if m.contains("501 characters")));
        let words = |n: usize| (0..n).map(|i| format!("w{i}")).collect::<Vec<_>>().join(" ");
        assert!(parse(&words(MAX_QUERY_WORDS)).is_ok());
        assert!(matches!(parse(&words(MAX_QUERY_WORDS + 1)), Err(QueryError::TooLarge(m)) if m.contains("33 words")));
        let phrase = format!("a -\"{}\"", words(MAX_QUERY_WORDS));
        assert!(matches!(parse(&phrase), Err(QueryError::TooLarge(_))), "phrase and exclusion words count");
    }

    #[test]
    fn exclusions_of_words_and_phrases() {
        let q = parse("zwrot -reklamacja -\"karta kredytowa\"").unwrap();
        assert_eq!(q.required, vec![vec![word("zwrot")]]);
        assert_eq!(q.excluded, vec![word("reklamacja"), phrase("karta kredytowa")]);
    }

    #[test]
    fn lower_case_or_and_inner_dashes_are_words() {
        let q = parse("black or white e-mail").unwrap();
        assert_eq!(q.required, vec![vec![word("black")], vec![word("or")], vec![word("white")], vec![word("e-mail")]]);
    }

    #[test]
    fn syntax_errors_say_where() {
        let cases = [
            ("refund \"next week", 8, "unclosed quote"),
            ("OR refund", 1, "before"),
            ("refund OR", 8, "after"),
            ("a OR OR b", 6, "before"),
            ("a OR -b", 6, "excluded"),
            ("-a OR b", 4, "excluded"),
            ("refund -", 8, "'-'"),
            ("refund \"  \"", 8, "empty phrase"),
        ];
        for (q, position, words) in cases {
            match parse(q) {
                Err(QueryError::Syntax { position: at, message }) => {
                    assert_eq!(at, position, "{q}: {message}");
                    assert!(message.contains(words), "{q}: {message}");
                }
                other => panic!("{q}: {other:?}"),
            }
        }
    }

    #[test]
    fn positions_count_characters_not_bytes() {
        assert_eq!(parse("łódź \"zwrot").unwrap_err(), QueryError::Syntax { position: 6, message: "unclosed quote: the phrase has no closing \"" });
    }

    #[test]
    fn nothing_to_find() {
        for q in ["", "   ", "…", "-refund", "-refund -\"card\"", "&& -x"] {
            assert!(matches!(parse(q), Err(QueryError::NothingToFind(_))), "{q}");
        }
    }
}
