//! A project's vocabulary (beyond the spec): the words its calls use that a speech model does
//! not know — product names, the company's name, local place names — each with the ways it is
//! heard ("bright water" for "Brightwater"). A transcript is respelled with it: a run of words
//! that is one of a term's spoken forms, or the term itself in other case or split in two,
//! becomes the term, so that search, personal data, categories and rules see it as written.

use serde::{Deserialize, Serialize};

use crate::{TimedWord, ValidationErrors, Validator};

/// Most terms in a project's vocabulary.
pub const VOCABULARY_TERMS_MAX: usize = 500;
/// Longest term or spoken form, in characters.
pub const VOCABULARY_TERM_MAX: usize = 100;
/// Most spoken forms of a term.
pub const SPOKEN_FORMS_MAX: usize = 10;

/// One term of a vocabulary.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "camelCase")]
pub struct VocabularyTerm {
    /// As it is written, 1–100 characters: `Brightwater`, `Hearthly Pro`, `Łódź Kaliska`.
    pub term: String,
    /// Up to 10 ways it is heard besides itself, 1–100 characters each: `bright water`.
    #[serde(default)]
    pub spoken_forms: Vec<String>,
    /// Whether it is a name the company's side answers the phone with (`Brightwater Energy`):
    /// on a call whose speakers have no roles, saying it in their first two turns weighs for a
    /// speaker being the agent as a greeting does. False when left out.
    #[serde(default)]
    pub company: bool,
}

/// A project's vocabulary.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "camelCase")]
pub struct Vocabulary {
    /// Up to 500 terms, each once (ignoring case).
    pub terms: Vec<VocabularyTerm>,
}

/// Lower-case letters and digits of a word, for comparing words as heard.
fn bare(word: &str) -> String {
    word.chars().filter(|c| c.is_alphanumeric()).flat_map(char::to_lowercase).collect()
}

/// The words of a phrase, bare.
fn bare_words(phrase: &str) -> Vec<String> {
    phrase.split_whitespace().map(bare).filter(|w| !w.is_empty()).collect()
}

impl Vocabulary {
    /// Checks the vocabulary: terms and spoken forms trimmed, non-empty and short enough, each
    /// term once.
    ///
    /// # Errors
    /// Every broken rule, by field (`terms[3].spokenForms`).
    pub fn validate(mut self) -> Result<Self, ValidationErrors> {
        let mut v = Validator::default();
        if self.terms.len() > VOCABULARY_TERMS_MAX {
            v.error("terms", format!("must hold at most {VOCABULARY_TERMS_MAX} terms"));
        }
        let mut seen: Vec<String> = Vec::new();
        for (i, term) in self.terms.iter_mut().enumerate() {
            term.term = v.text(&format!("terms[{i}].term"), &term.term, 1, VOCABULARY_TERM_MAX);
            if bare_words(&term.term).is_empty() && !term.term.is_empty() {
                v.error(format!("terms[{i}].term"), "must hold a letter or a digit");
            }
            let key = term.term.to_lowercase();
            if !key.is_empty() && seen.contains(&key) {
                v.error(format!("terms[{i}].term"), "is in the vocabulary already");
            }
            seen.push(key);
            term.spoken_forms = term.spoken_forms.iter().map(|f| f.trim().to_owned()).filter(|f| !f.is_empty()).collect();
            if term.spoken_forms.len() > SPOKEN_FORMS_MAX {
                v.error(format!("terms[{i}].spokenForms"), format!("must hold at most {SPOKEN_FORMS_MAX} forms"));
            }
            if term.spoken_forms.iter().any(|f| f.chars().count() > VOCABULARY_TERM_MAX || bare_words(f).is_empty()) {
                v.error(format!("terms[{i}].spokenForms"), format!("each must hold a word and be at most {VOCABULARY_TERM_MAX} characters"));
            }
        }
        v.finish()?;
        Ok(self)
    }

    /// The runs of bare words that stand for each term, longest first (so that "bright water
    /// energy" wins over "bright water"): the term's own words, and each spoken form's.
    fn patterns(&self) -> Vec<(Vec<String>, &str)> {
        let mut patterns: Vec<(Vec<String>, &str)> = Vec::new();
        for term in &self.terms {
            let own = bare_words(&term.term);
            // The term heard as one word ("brightwater") or in its own words in any case.
            let joined = vec![own.concat()];
            for words in std::iter::once(own.clone()).chain(std::iter::once(joined)).chain(term.spoken_forms.iter().map(|f| bare_words(f))) {
                if !words.is_empty() && !patterns.iter().any(|(p, _)| *p == words) {
                    patterns.push((words, &term.term));
                }
            }
        }
        patterns.sort_by_key(|(words, _)| std::cmp::Reverse(words.len()));
        patterns
    }

    /// The company's names as they may be heard: each term marked `company`, and its spoken
    /// forms.
    pub fn company_names(&self) -> Vec<&str> {
        self.terms
            .iter()
            .filter(|t| t.company)
            .flat_map(|t| std::iter::once(t.term.as_str()).chain(t.spoken_forms.iter().map(String::as_str)))
            .collect()
    }

    /// Whether every word of `text` is a word of some term: a name the recogniser found there is
    /// the project's own word (a product, the company), not a person's.
    pub fn covers(&self, text: &str) -> bool {
        let words = bare_words(text);
        !words.is_empty() && words.iter().all(|w| self.terms.iter().any(|t| bare_words(&t.term).contains(w) || bare(&t.term) == *w))
    }

    /// Respells `words` (in time order): each run that is a term heard becomes one word, the
    /// term as written, spanning the run's time and keeping the punctuation after its last word.
    /// Runs never cross from one speaker to another. How many runs were respelled.
    pub fn respell(&self, words: &mut Vec<TimedWord>) -> usize {
        if self.terms.is_empty() || words.is_empty() {
            return 0;
        }
        let patterns = self.patterns();
        let bares: Vec<String> = words.iter().map(|w| bare(&w.text)).collect();
        let mut out: Vec<TimedWord> = Vec::with_capacity(words.len());
        let mut respelled = 0;
        let mut i = 0;
        while i < words.len() {
            let found = patterns.iter().find(|(pattern, _)| {
                let end = i + pattern.len();
                end <= words.len() && bares[i..end] == pattern[..] && words[i..end].iter().all(|w| w.speaker == words[i].speaker)
            });
            let Some((pattern, term)) = found else {
                out.push(words[i].clone());
                i += 1;
                continue;
            };
            let run = &words[i..i + pattern.len()];
            let last = &run[run.len() - 1];
            let trailing: String = last.text.chars().rev().take_while(|c| !c.is_alphanumeric()).collect::<Vec<_>>().into_iter().rev().collect();
            let text = format!("{term}{trailing}");
            if run.len() > 1 || run[0].text != text {
                respelled += 1;
            }
            let confidence = run.iter().filter_map(|w| w.confidence).reduce(f32::min);
            out.push(TimedWord { text, start_ms: run[0].start_ms, end_ms: last.end_ms, speaker: run[0].speaker, confidence });
            i += pattern.len();
        }
        *words = out;
        respelled
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn said(text: &str) -> Vec<TimedWord> {
        text.split_whitespace()
            .enumerate()
            .map(|(i, w)| TimedWord { text: w.into(), start_ms: i as i64 * 400, end_ms: i as i64 * 400 + 300, speaker: 0, confidence: Some(0.8) })
            .collect()
    }

    fn text(words: &[TimedWord]) -> String {
        words.iter().map(|w| w.text.as_str()).collect::<Vec<_>>().join(" ")
    }

    fn vocabulary() -> Vocabulary {
        let term = |term: &str, forms: &[&str]| VocabularyTerm {
            term: term.into(),
            spoken_forms: forms.iter().map(|f| (*f).to_owned()).collect(),
            company: false,
        };
        Vocabulary {
            terms: vec![term("Brightwater", &["bright water"]), term("Hearthly Pro", &["hearth lee pro", "hartley pro"]), term("Łódź Kaliska", &[])],
        }
        .validate()
        .unwrap()
    }

    #[test]
    fn terms_heard_in_pieces_or_other_forms_are_written_as_the_term() {
        let mut words = said("You are through to bright water, how can I help? My Hartley pro is broken. I live near łódź kaliska.");
        let respelled = vocabulary().respell(&mut words);
        assert_eq!(text(&words), "You are through to Brightwater, how can I help? My Hearthly Pro is broken. I live near Łódź Kaliska.");
        assert_eq!(respelled, 3);
        // The term spans the run's time and keeps the lowest confidence.
        let term = words.iter().find(|w| w.text == "Brightwater,").unwrap();
        assert_eq!((term.start_ms, term.end_ms), (1600, 2300));
        let mut one_word = said("brightwater and BRIGHTWATER");
        vocabulary().respell(&mut one_word);
        assert_eq!(text(&one_word), "Brightwater and Brightwater");
    }

    #[test]
    fn a_run_never_crosses_speakers_and_an_empty_vocabulary_changes_nothing() {
        let mut words = said("bright water");
        words[1].speaker = 1;
        assert_eq!(vocabulary().respell(&mut words), 0);
        assert_eq!(text(&words), "bright water");
        let mut words = said("bright water");
        assert_eq!(Vocabulary::default().respell(&mut words), 0);
    }

    #[test]
    fn text_made_of_terms_is_covered_and_text_with_other_words_is_not() {
        let vocabulary = vocabulary();
        assert!(vocabulary.covers("Brightwater"));
        assert!(vocabulary.covers("Hearthly Pro,"));
        assert!(vocabulary.covers("Kaliska"));
        assert!(!vocabulary.covers("Anna Brightwater"));
        assert!(!vocabulary.covers("  "));
        assert!(!Vocabulary::default().covers("Brightwater"));
    }

    #[test]
    fn the_company_s_names_are_its_marked_terms_and_their_spoken_forms() {
        let mut vocabulary = vocabulary();
        assert!(vocabulary.company_names().is_empty());
        vocabulary.terms[0].company = true;
        assert_eq!(vocabulary.company_names(), ["Brightwater", "bright water"]);
        let json: Vocabulary = serde_json::from_value(serde_json::json!({"terms": [{"term": "Acme", "company": true}, {"term": "Flexa"}]})).unwrap();
        assert_eq!(json.company_names(), ["Acme"]);
        assert_eq!(serde_json::to_value(&json).unwrap()["terms"][1], serde_json::json!({"term": "Flexa", "spokenForms": [], "company": false}));
    }

    #[test]
    fn a_vocabulary_is_checked() {
        let bad = Vocabulary {
            terms: vec![
                VocabularyTerm { term: " ".into(), spoken_forms: vec![], company: false },
                VocabularyTerm { term: "Acme".into(), spoken_forms: vec!["a".repeat(101)], company: false },
                VocabularyTerm { term: "ACME".into(), spoken_forms: vec![], company: false },
                VocabularyTerm { term: "?!".into(), spoken_forms: vec![], company: false },
            ],
        };
        let fields: Vec<String> = bad.validate().unwrap_err().0.into_iter().map(|e| e.field).collect();
        assert_eq!(fields, ["terms[0].term", "terms[1].spokenForms", "terms[2].term", "terms[3].term"]);
        let json: Vocabulary = serde_json::from_value(serde_json::json!({"terms": [{"term": " Acme ", "spokenForms": [" ack me ", ""]}]})).unwrap();
        let checked = json.validate().unwrap();
        assert_eq!(checked.terms[0], VocabularyTerm { term: "Acme".into(), spoken_forms: vec!["ack me".into()], company: false });
    }
}
