//! The PII stage: finds personal data in the turns, records where it was (type, turn, offsets,
//! time) and, when the project asks for it, masks it in the turns, the full text and the words.

use std::sync::Arc;

use callscope_domain::{Language, PiiSpan, PiiStatistics, TimedWord, Turn, Vocabulary};

/// One piece of personal data in a turn: byte offsets into the turn's text.
#[derive(Debug, Clone, PartialEq)]
pub struct Found {
    /// Stable type name (`PHONE_NUMBER`).
    pub kind: String,
    pub turn: usize,
    pub start: usize,
    pub end: usize,
    pub confidence: f32,
}

/// Finds personal data in a call's turns.
pub trait PiiScanner: Send + Sync {
    /// Detections in `turns` (each turn's text), in order.
    fn scan(&self, turns: &[&str], language: Language) -> Vec<Found>;
}

/// The real scanner: `callscope-pii`'s rules and gazetteers.
#[derive(Debug, Clone)]
pub struct RulePii {
    detector: callscope_pii::Detector,
}

impl RulePii {
    /// A scanner over a loaded gazetteer.
    pub fn new(gazetteer: Arc<callscope_pii::Gazetteer>) -> Self {
        Self { detector: callscope_pii::Detector::new(gazetteer) }
    }
}

impl PiiScanner for RulePii {
    fn scan(&self, turns: &[&str], language: Language) -> Vec<Found> {
        // One text, so that a question in one turn ("your PESEL?") is the cue for the answer in
        // the next.
        let text = turns.join("\n");
        let lang = match language {
            Language::Pl => callscope_pii::Lang::Pl,
            _ => callscope_pii::Lang::En,
        };
        let mut starts = Vec::with_capacity(turns.len());
        let mut at = 0;
        for t in turns {
            starts.push(at);
            at += t.len() + 1;
        }
        self.detector
            .detect(&text, lang)
            .into_iter()
            .filter_map(|e| {
                let turn = starts.partition_point(|&s| s <= e.start).checked_sub(1)?;
                let (begin, len) = (starts[turn], turns[turn].len());
                Some(Found {
                    kind: e.kind.as_str().to_owned(),
                    turn,
                    start: e.start - begin,
                    end: (e.end - begin).min(len),
                    confidence: e.confidence,
                })
            })
            .collect()
    }
}

/// `found` without the names that are the project's own words: a person's name or an address
/// whose every word is a vocabulary term's ("Brightwater" is the company, not a caller).
pub(crate) fn without_terms(found: Vec<Found>, turns: &[&str], vocabulary: &Vocabulary) -> Vec<Found> {
    if vocabulary.terms.is_empty() {
        return found;
    }
    found
        .into_iter()
        .filter(|f| {
            let named = f.kind == "PERSON_NAME" || f.kind == "ADDRESS";
            let text = turns.get(f.turn).and_then(|t| t.get(f.start..f.end)).unwrap_or_default();
            !(named && vocabulary.covers(text))
        })
        .collect()
}

/// What the stage leaves: statistics, spans, and the (possibly masked) transcript.
#[derive(Debug, Clone)]
pub(crate) struct PiiOutcome {
    pub statistics: PiiStatistics,
    pub spans: Vec<PiiSpan>,
}

/// Records `found` as spans with character offsets and timing; with `mask`, replaces each
/// value by `[TYPE]` in the turns, the words (which keep their timing) and the full text.
pub(crate) fn apply(found: &[Found], turns: &mut [Turn], words: &mut [TimedWord], full_text: &mut String, mask: bool) -> PiiOutcome {
    // Where each word sits: the turns were built by joining a speaker's consecutive words
    // with spaces.
    let mut places = Vec::with_capacity(words.len());
    let (mut turn, mut offset) = (0usize, 0usize);
    for (i, w) in words.iter().enumerate() {
        if i > 0 {
            if w.speaker != words[i - 1].speaker {
                turn += 1;
                offset = 0;
            } else {
                offset += 1;
            }
        }
        places.push((turn, offset, offset + w.text.len()));
        offset += w.text.len();
    }
    let spans: Vec<PiiSpan> = found
        .iter()
        .filter(|f| f.turn < turns.len())
        .map(|f| {
            let text = &turns[f.turn].text;
            let chars = |byte: usize| text.get(..byte.min(text.len())).map_or(0, |s| s.chars().count());
            let mut timing = places
                .iter()
                .zip(words.iter())
                .filter(|((t, s, e), _)| *t == f.turn && *s < f.end && *e > f.start)
                .map(|(_, w)| (w.start_ms, w.end_ms));
            let (start_ms, end_ms) = timing
                .next()
                .map_or((turns[f.turn].start_ms, turns[f.turn].end_ms), |first| timing.fold(first, |(a, b), (s, e)| (a.min(s), b.max(e))));
            PiiSpan { kind: f.kind.clone(), turn: f.turn, start: chars(f.start), end: chars(f.end), confidence: f.confidence, start_ms, end_ms }
        })
        .collect();
    if mask {
        for (w, (t, s, e)) in words.iter_mut().zip(&places) {
            if let Some(f) = found.iter().find(|f| f.turn == *t && f.start < *e && f.end > *s) {
                w.text = format!("[{}]", f.kind);
            }
        }
        for (index, turn) in turns.iter_mut().enumerate() {
            let mut mine: Vec<&Found> = found.iter().filter(|f| f.turn == index).collect();
            mine.sort_by_key(|f| f.start);
            let mut masked = String::with_capacity(turn.text.len());
            let mut at = 0;
            for f in mine {
                if f.start < at || f.end > turn.text.len() || !turn.text.is_char_boundary(f.start) || !turn.text.is_char_boundary(f.end) {
                    continue;
                }
                masked.push_str(&turn.text[at..f.start]);
                masked.push_str(&format!("[{}]", f.kind));
                at = f.end;
            }
            masked.push_str(&turn.text[at..]);
            turn.text = masked;
        }
        *full_text = turns.iter().map(|t| t.text.as_str()).collect::<Vec<_>>().join("\n");
    }
    PiiOutcome { statistics: PiiStatistics::of(&spans), spans }
}

#[cfg(test)]
mod vocabulary_tests {
    use super::*;
    use callscope_domain::VocabularyTerm;

    #[test]
    fn a_name_that_is_a_term_is_no_personal_data() {
        let turns = ["You are through to Brightwater, I am Anna Brightwater.", "Call Brightwater on 0113 496 0000."];
        let found = |kind: &str, turn: usize, text: &str| {
            let start = turns[turn].find(text).unwrap();
            Found { kind: kind.into(), turn, start, end: start + text.len(), confidence: 0.8 }
        };
        let all = vec![
            found("PERSON_NAME", 0, "Brightwater"),
            found("PERSON_NAME", 0, "Anna Brightwater"),
            found("PHONE_NUMBER", 1, "0113 496 0000"),
            found("ADDRESS", 1, "Brightwater"),
        ];
        let vocabulary = Vocabulary { terms: vec![VocabularyTerm { term: "Brightwater".into(), spoken_forms: vec![], company: false }] };
        let kept: Vec<(String, usize, usize)> =
            without_terms(all.clone(), &turns, &vocabulary).into_iter().map(|f| (f.kind, f.turn, f.start)).collect();
        assert_eq!(kept, [("PERSON_NAME".to_owned(), 0, all[1].start), ("PHONE_NUMBER".to_owned(), 1, all[2].start)]);
        assert_eq!(without_terms(all.clone(), &turns, &Vocabulary::default()), all);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn word(text: &str, start_ms: i64, speaker: usize) -> TimedWord {
        TimedWord { text: text.into(), start_ms, end_ms: start_ms + 300, speaker, confidence: None }
    }

    #[test]
    fn spans_get_character_offsets_and_timing_and_masking_reaches_every_copy() {
        let mut words = vec![word("Numer?", 0, 0), word("Łódź", 1000, 1), word("600", 1400, 1), word("123", 1800, 1), word("456.", 2200, 1)];
        let (mut full_text, mut turns, _) = callscope_domain::build_transcript(&words, |l| format!("S{l}"));
        assert_eq!(turns[1].text, "Łódź 600 123 456.");
        let found = vec![Found { kind: "PHONE_NUMBER".into(), turn: 1, start: 8, end: 19, confidence: 0.9 }];
        let outcome = apply(&found, &mut turns, &mut words, &mut full_text, true);
        let span = &outcome.spans[0];
        assert_eq!((span.start, span.end), (5, 16), "character offsets, not bytes");
        assert_eq!((span.start_ms, span.end_ms), (1400, 2500));
        assert_eq!(outcome.statistics.total_detected, 1);
        assert_eq!(outcome.statistics.types["PHONE_NUMBER"], 1);
        assert_eq!(turns[1].text, "Łódź [PHONE_NUMBER].");
        assert_eq!(full_text, "Numer?\nŁódź [PHONE_NUMBER].");
        let texts: Vec<&str> = words.iter().map(|w| w.text.as_str()).collect();
        assert_eq!(texts, ["Numer?", "Łódź", "[PHONE_NUMBER]", "[PHONE_NUMBER]", "[PHONE_NUMBER]"]);
    }
}
