//! Snippets: about [`LENGTH`] characters of plain text around the best-matching passage of a
//! call, with every match of the query wrapped in `<mark>…</mark>` (a phrase as one mark) and
//! all other text HTML-escaped. Matching uses the same stems as the index, so "zwrot" marks
//! "zwrotem" and "lodz" marks "Łódź".

use callscope_domain::Language;

use crate::query::Query;
use crate::text::Analyzer;

/// Characters of text in a snippet, not counting the marks.
pub const LENGTH: usize = 200;

/// Characters of context kept before the first match, when there is room.
const LEAD: usize = 50;

/// A match: byte range in the text and the query group it answers.
#[derive(Debug, Clone, Copy)]
struct Span {
    start: usize,
    end: usize,
    group: usize,
}

/// The snippet of a call in `language` whose text is in `parts`, best part first on a tie
/// (the transcript, then the summary, then the title).
pub fn snippet(query: &Query, language: Language, parts: &[&str]) -> String {
    let analyzer = Analyzer::new(language);
    let needles: Vec<(usize, Vec<String>)> = query
        .required
        .iter()
        .enumerate()
        .flat_map(|(group, terms)| terms.iter().map(move |t| (group, t)))
        .map(|(group, term)| (group, analyzer.terms(term.text()).into_iter().map(|t| t.stem).collect::<Vec<_>>()))
        .filter(|(_, stems)| !stems.is_empty())
        .collect();
    // The best part so far: its score, text, matches and the first match of its passage.
    struct Best<'a> {
        score: (usize, usize),
        text: &'a str,
        spans: Vec<Span>,
        first: usize,
    }
    let mut best: Option<Best<'_>> = None;
    for text in parts.iter().copied().filter(|t| !t.trim().is_empty()) {
        let spans = matches(&analyzer, text, &needles);
        if let Some((score, first)) = best_window(text, &spans) {
            if best.as_ref().is_none_or(|b| score > b.score) {
                best = Some(Best { score, text, spans, first });
            }
        }
    }
    match best {
        Some(Best { text, spans, first, .. }) => render(text, &spans, first),
        None => {
            let text = parts.iter().copied().find(|t| !t.trim().is_empty()).unwrap_or_default();
            render(text, &[], 0)
        }
    }
}

/// Every match of the needles in `text`, in order, overlapping ones merged.
fn matches(analyzer: &Analyzer, text: &str, needles: &[(usize, Vec<String>)]) -> Vec<Span> {
    let terms = analyzer.terms(text);
    let mut spans = Vec::new();
    for i in 0..terms.len() {
        for (group, stems) in needles {
            let fits = terms.len() - i >= stems.len() && stems.iter().zip(&terms[i..]).all(|(s, t)| *s == t.stem);
            if fits {
                spans.push(Span { start: terms[i].start, end: terms[i + stems.len() - 1].end, group: *group });
            }
        }
    }
    spans.sort_by_key(|s| (s.start, std::cmp::Reverse(s.end)));
    let mut merged: Vec<Span> = Vec::with_capacity(spans.len());
    for span in spans {
        match merged.last_mut() {
            Some(last) if span.start < last.end => last.end = last.end.max(span.end),
            _ => merged.push(span),
        }
    }
    merged
}

/// The passage with the most different groups matched, then the most matches: its score and
/// the index of its first span.
fn best_window(text: &str, spans: &[Span]) -> Option<((usize, usize), usize)> {
    let mut best: Option<((usize, usize), usize)> = None;
    for (i, anchor) in spans.iter().enumerate() {
        let limit = advance(text, anchor.start, LENGTH - LEAD.min(LENGTH / 4));
        let inside: Vec<&Span> = spans[i..].iter().take_while(|s| s.end <= limit).collect();
        let mut groups: Vec<usize> = inside.iter().map(|s| s.group).collect();
        groups.sort_unstable();
        groups.dedup();
        let score = (groups.len(), inside.len().max(1));
        if best.is_none_or(|(s, _)| score > s) {
            best = Some((score, i));
        }
    }
    best
}

/// The byte offset `chars` characters after `from` (or the end).
fn advance(text: &str, from: usize, chars: usize) -> usize {
    text[from..].char_indices().nth(chars).map_or(text.len(), |(at, _)| from + at)
}

/// The byte offset `chars` characters before `from` (or the start).
fn retreat(text: &str, from: usize, chars: usize) -> usize {
    text[..from].char_indices().rev().nth(chars.saturating_sub(1)).map_or(0, |(at, _)| at)
}

fn render(text: &str, spans: &[Span], first: usize) -> String {
    let anchor = spans.get(first).map_or(0, |s| s.start);
    // Some context before the first match, starting at a word.
    let mut start = if anchor == 0 { 0 } else { retreat(text, anchor, LEAD) };
    if advance(text, start, LENGTH) == text.len() {
        // The end is in reach: spend the room left on context before the match.
        start = start.min(retreat(text, text.len(), LENGTH));
    }
    if start > 0 {
        // Past the whitespace, which may be wider than a byte (a no-break space, say).
        start = text[start..anchor].char_indices().find(|(_, c)| c.is_whitespace()).map_or(anchor, |(ws, c)| start + ws + c.len_utf8());
    }
    let mut end = advance(text, start, LENGTH);
    if end < text.len() {
        // End between words, and never inside a mark.
        if let Some(ws) = text[start..end].rfind(char::is_whitespace).filter(|&ws| ws > 0) {
            end = start + ws;
        }
        if let Some(cut) = spans.iter().find(|s| s.start < end && s.end > end) {
            end = cut.end;
        }
    }
    let mut out = String::new();
    if start > 0 {
        out.push('…');
    }
    let mut at = start;
    for span in spans.iter().filter(|s| s.start >= start && s.end <= end) {
        push_plain(&mut out, &text[at..span.start]);
        out.push_str("<mark>");
        push_plain(&mut out, &text[span.start..span.end]);
        out.push_str("</mark>");
        at = span.end;
    }
    push_plain(&mut out, &text[at..end]);
    let trimmed_len = out.trim_end().len();
    out.truncate(trimmed_len);
    if end < text.len() {
        out.push('…');
    }
    out
}

/// Appends text HTML-escaped, with runs of white space (turn breaks too) as one space.
fn push_plain(out: &mut String, text: &str) {
    let mut space = false;
    for c in text.chars() {
        if c.is_whitespace() {
            if !space {
                out.push(' ');
            }
            space = true;
            continue;
        }
        space = false;
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            other => out.push(other),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::query::parse;

    proptest::proptest! {
        /// Any query a person types, over any text: a parse error or a snippet, never a panic.
        #[test]
        fn any_query_over_any_text_gives_a_snippet_or_an_error(
            q in "[a-zA-Ząęółśżźćń \"()|*:-]{0,30}|.{0,30}",
            text in proptest::prelude::any::<String>(),
            polish in proptest::prelude::any::<bool>(),
        ) {
            if let Ok(query) = parse(&q) {
                let language = if polish { Language::Pl } else { Language::En };
                let _ = snippet(&query, language, &[text.as_str(), "Dzień dobry, İstanbul ẞ straße"]);
            }
        }

        /// Long texts of words between every kind of space, with the searched word somewhere:
        /// the passage is cut at spaces of any width, never inside a character.
        #[test]
        fn passages_are_cut_at_spaces_of_any_width(
            words in proptest::collection::vec(("[a-zł]{1,12}|refund", "[ \u{a0}\u{202f}\u{3000}\t\n]"), 1..200),
        ) {
            let text: String = words.iter().map(|(word, space)| format!("{word}{space}")).collect();
            let _ = snippet(&parse("refund").unwrap(), Language::En, &[text.as_str()]);
        }
    }

    #[test]
    fn a_passage_after_a_no_break_space_starts_after_it() {
        let text = format!("{}\u{a0}the refund was sent {}", "a".repeat(100), "b".repeat(300));
        let s = snippet(&parse("refund").unwrap(), Language::En, &[text.as_str()]);
        assert!(s.starts_with("…the <mark>refund</mark> was sent"), "{s}");
    }

    fn plain(snippet: &str) -> String {
        snippet.replace("<mark>", "").replace("</mark>", "")
    }

    #[test]
    fn marks_inflected_forms_and_folded_spellings() {
        let s = snippet(&parse("zwrot lodz").unwrap(), Language::Pl, &["Klient z Łodzi prosi o zwrot. Zwrotem zajmie się dział."]);
        assert_eq!(s, "Klient z <mark>Łodzi</mark> prosi o <mark>zwrot</mark>. <mark>Zwrotem</mark> zajmie się dział.");
    }

    #[test]
    fn a_phrase_is_one_mark_and_loose_words_are_not_marked_as_it() {
        let s = snippet(&parse("\"credit card\"").unwrap(), Language::En, &["The card was fine. My credit card was charged twice."]);
        assert_eq!(s, "The card was fine. My <mark>credit card</mark> was charged twice.");
    }

    #[test]
    fn text_is_escaped_and_marks_are_not() {
        let s = snippet(&parse("refund").unwrap(), Language::En, &["<b>refund</b> & \"quotes\""]);
        assert_eq!(s, "&lt;b&gt;<mark>refund</mark>&lt;/b&gt; &amp; &quot;quotes&quot;");
    }

    #[test]
    fn the_best_passage_is_chosen_and_cut_to_length() {
        let filler = "lorem ipsum dolor sit amet ".repeat(30);
        let text = format!("refund once. {filler} here the refund of the invoice is discussed. {filler}");
        let s = snippet(&parse("refund invoice").unwrap(), Language::En, &[&text]);
        assert!(s.contains("<mark>refund</mark> of the <mark>invoice</mark>"), "{s}");
        assert!(s.starts_with('…') && s.ends_with('…'), "{s}");
        let length = plain(&s).chars().count();
        assert!((150..=LENGTH + 2).contains(&length), "{length}: {s}");
        // The cut falls between words.
        assert!(plain(&s).trim_end_matches('…').ends_with(|c: char| c.is_alphanumeric() || c == '.'), "{s}");
    }

    #[test]
    fn the_summary_is_used_when_the_transcript_has_no_match() {
        let s = snippet(&parse("chargeback").unwrap(), Language::En, &["hello there", "Customer asked about a chargeback.", "Title"]);
        assert_eq!(s, "Customer asked about a <mark>chargeback</mark>.");
    }

    #[test]
    fn without_a_match_the_start_of_the_transcript() {
        let s = snippet(&parse("zzz").unwrap(), Language::En, &["Good morning & welcome"]);
        assert_eq!(s, "Good morning &amp; welcome");
    }
}
