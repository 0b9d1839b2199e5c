//! An extractive summary: the call's sentences scored by how much of the call's vocabulary they
//! carry (stems that recur, stop words aside), the best kept in their order; the customer's
//! first substantial sentence as the title; the resolution from the last sentence that promises
//! or reports one; next steps from the action items.

use std::collections::HashMap;

use crate::actions::ActionDraft;
use crate::text::{capitalise, fold, sentences, stems};

/// The `summary` object of a call.
#[derive(Debug, Clone, PartialEq)]
pub struct Summary {
    pub executive_summary: String,
    pub key_discussion_points: Vec<String>,
    pub resolution_provided: String,
    pub follow_up_required: bool,
    pub next_steps: Vec<String>,
}

const RESOLUTION: &[&str] = &[
    "refund", "replace", "resolved", "fixed", "solved", "credit", "cancel", "sent", "send", "process", "arrange", "booked", "scheduled", "escalat",
    "zwrot", "zwroc", "wymien", "rozwiaz", "naprawi", "anul", "wysl", "przesl", "umowi", "zglos", "skoryg", "korekt", "rozpatrz",
];

/// One sentence with its turn and speaker.
struct Sentence<'a> {
    text: &'a str,
    speaker: &'a str,
    score: f32,
}

/// Summarises turns given as (speaker, text).
pub fn summarise(turns: &[(&str, &str)], actions: &[ActionDraft]) -> Summary {
    let mut freq: HashMap<String, f32> = HashMap::new();
    for (_, text) in turns {
        for s in stems(text) {
            *freq.entry(s).or_insert(0.0) += 1.0;
        }
    }
    let all: Vec<Sentence<'_>> = turns
        .iter()
        .flat_map(|(speaker, text)| sentences(text).into_iter().map(move |t| (*speaker, t)))
        .map(|(speaker, text)| {
            let st = stems(text);
            // Recurring words count; a sentence of greetings counts for nothing.
            let weight: f32 = st.iter().map(|s| freq.get(s).copied().unwrap_or(0.0) - 1.0).filter(|w| *w > 0.0).sum();
            let score = if st.len() < 3 { 0.0 } else { weight / (st.len() as f32).sqrt() };
            Sentence { text, speaker, score }
        })
        .collect();
    let mut order: Vec<usize> = (0..all.len()).filter(|&i| all[i].score > 0.0).collect();
    order.sort_by(|&a, &b| all[b].score.total_cmp(&all[a].score).then(a.cmp(&b)));
    let mut top3: Vec<usize> = order.iter().copied().take(3).collect();
    top3.sort_unstable();
    let mut executive: Vec<&str> = top3.iter().map(|&i| all[i].text).collect();
    if executive.is_empty() {
        executive = all.iter().map(|s| s.text).filter(|t| t.split_whitespace().count() >= 4).take(2).collect();
    }
    let key_discussion_points = order.iter().take(5).map(|&i| all[i].text.to_owned()).collect();
    let resolution_provided = all
        .iter()
        .rev()
        .find(|s| {
            let f = fold(s.text);
            RESOLUTION.iter().any(|r| f.contains(r)) && !s.text.ends_with('?')
        })
        .map(|s| format!("{}: {}", s.speaker, s.text))
        .unwrap_or_default();
    Summary {
        executive_summary: executive.join(" "),
        key_discussion_points,
        resolution_provided,
        follow_up_required: !actions.is_empty(),
        next_steps: actions.iter().map(|a| format!("{} ({})", a.description, a.responsible_party)).collect(),
    }
}

/// Sentences that are the call's formalities, not its subject: greetings, the company's name,
/// introductions, offers of help (folded, no diacritics).
const FORMALITIES: &[&str] = &[
    "thank you for calling", "thanks for calling", "thank you for contacting", "how can i help", "how may i help", "what can i do for you",
    "my name is", "calling from", "you re through to", "dziekuje za telefon", "dziekujemy za telefon", "dziekuje za kontakt", "w czym moge pomoc",
    "w czym moge panu", "w czym moge pani", "nazywam sie", "z tej strony", "witam w",
];

/// Words that say why someone called: a sentence with one of them names the call's subject.
const REASONS: &[&str] = &[
    "calling about", "calling because", "calling to", "i want", "i d like", "i would like", "i need", "problem", "issue", "not working",
    "doesn t work", "stopped", "broken", "charged", "refund", "cancel", "complain", "wrong", "missing", "hasn t arrived", "never arrived", "upgrade",
    "change my", "dzwonie", "chcialbym", "chcialabym", "chce", "potrzebuje", "mam problem", "problem z", "nie dziala", "reklamac", "zwrot", "anulow",
    "rezygn", "zmienic", "zmiana", "nie dotarl", "nie doszl", "podwojn", "dwa razy", "awari",
];

/// Greetings and fillers a title does not start with ("Hello, um, my router…" is titled "My
/// router…").
const OPENERS: &[&str] = &[
    "hello", "hi", "hey", "good morning", "good afternoon", "good evening", "yes", "yeah", "ok", "okay", "um", "uh", "erm", "er", "so", "well",
    "right", "dzien dobry", "witam", "halo", "tak", "dobrze", "no", "wiec", "yyy", "eee", "znaczy",
];

/// Speaker names that are the customer's side.
const CUSTOMER_NAMES: &[&str] = &["customer", "caller", "client", "klient", "klientka", "dzwoniacy"];

/// Folded words joined by single spaces, for phrase look-ups.
fn phrase_text(text: &str) -> String {
    let words: Vec<String> = text.split(|c: char| !c.is_alphanumeric()).filter(|w| !w.is_empty()).map(fold).collect();
    format!(" {} ", words.join(" "))
}

/// Whether one of `phrases` starts at a word of `folded` (a phrase may end inside a word, so
/// "reklamac" finds "reklamacja").
fn has_phrase(folded: &str, phrases: &[&str]) -> bool {
    phrases.iter().any(|p| folded.contains(&format!(" {p}")))
}

/// The sentence without a greeting in front of it.
fn without_opener(sentence: &str) -> &str {
    let mut rest = sentence.trim();
    loop {
        let folded = phrase_text(rest);
        let Some(opener) = OPENERS.iter().find(|o| folded.starts_with(&format!(" {o} "))) else { return rest };
        // Skip the opener's words and the punctuation after them.
        let words = opener.split(' ').count();
        let mut seen = 0;
        let mut cut = rest.len();
        let mut in_word = false;
        for (i, c) in rest.char_indices() {
            if c.is_alphanumeric() {
                if !in_word {
                    if seen == words {
                        cut = i;
                        break;
                    }
                    in_word = true;
                }
            } else if in_word {
                in_word = false;
                seen += 1;
            }
        }
        if cut >= rest.len() || cut == 0 {
            return rest;
        }
        rest = rest[cut..].trim();
    }
}

/// A short title (under 80 characters) naming what the call was about: the customer's first
/// sentence that says why they called ("my router stopped working", "chciałbym zrezygnować"),
/// else their first sentence of substance that is not a formality, else anyone's; greetings in
/// front of it are left out. The customer is the speaker named so, else the one who did not
/// speak first. `None` for a call with nothing to title.
pub fn title(turns: &[(&str, &str)]) -> Option<String> {
    let first_speaker = turns.first().map(|t| t.0);
    let named_customer = turns.iter().map(|t| t.0).find(|s| CUSTOMER_NAMES.contains(&fold(s).as_str()));
    let is_customer = |speaker: &str| match named_customer {
        Some(customer) => speaker == customer,
        None => Some(speaker) != first_speaker,
    };
    let candidates = |customer_only: bool| {
        turns
            .iter()
            .filter(move |t| !customer_only || is_customer(t.0))
            .flat_map(|t| sentences(t.1))
            .map(without_opener)
            .filter(|s| stems(s).len() >= 3 && !s.ends_with('?') && !has_phrase(&phrase_text(s), FORMALITIES))
    };
    let pick = candidates(true)
        .take(6)
        .find(|s| has_phrase(&phrase_text(s), REASONS))
        .or_else(|| candidates(true).next())
        .or_else(|| candidates(false).find(|s| has_phrase(&phrase_text(s), REASONS)))
        .or_else(|| candidates(false).next())?;
    let clean = capitalise(pick.trim_end_matches(['.', '!', ',']).trim());
    if clean.chars().count() < 78 {
        return Some(clean);
    }
    let mut out = String::new();
    for word in clean.split_whitespace() {
        if out.chars().count() + word.chars().count() + 2 > 76 {
            break;
        }
        if !out.is_empty() {
            out.push(' ');
        }
        out.push_str(word);
    }
    Some(format!("{out}…"))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn call() -> Vec<(&'static str, &'static str)> {
        vec![
            ("agent", "Good morning, thank you for calling, how can I help?"),
            ("customer", "Hi. My kettle stopped working after two days and I want a refund for the kettle."),
            ("agent", "I am sorry about the kettle. I can offer a refund or a replacement kettle."),
            ("customer", "A refund please, the kettle was expensive."),
            ("agent", "Okay, I have processed the refund, you will see it in five days."),
        ]
    }

    #[test]
    fn the_summary_keeps_the_sentences_that_carry_the_call() {
        let s = summarise(&call(), &[]);
        assert!(s.executive_summary.contains("refund"), "{}", s.executive_summary);
        assert!(!s.executive_summary.contains("Good morning"), "greetings are not the summary");
        assert!(s.key_discussion_points.len() <= 5 && !s.key_discussion_points.is_empty());
        assert_eq!(s.resolution_provided, "agent: Okay, I have processed the refund, you will see it in five days.");
        assert!(!s.follow_up_required && s.next_steps.is_empty());
    }

    #[test]
    fn the_title_is_the_customer_s_first_real_sentence_under_80_characters() {
        assert_eq!(title(&call()).as_deref(), Some("My kettle stopped working after two days and I want a refund for the kettle"));
        let long =
            [("a", "Hello?"), ("b", "I am calling because the internet connection in my flat has been dropping every evening for three weeks now.")];
        let t = title(&long).unwrap();
        assert!(t.chars().count() < 80 && t.ends_with('…'), "{t}");
        assert_eq!(title(&[]), None);
    }

    #[test]
    fn the_title_skips_formalities_and_prefers_the_reason_for_the_call() {
        // The customer is named and speaks first; the agent's greeting is no title.
        let call = [
            ("customer", "Hello?"),
            ("agent", "Thank you for calling North Wind Electronics, my name is Sam. How can I help you today?"),
            ("customer", "Hi, this is Dana Reyes. Yes, hello. I was charged twice for my headphones order."),
            ("agent", "I can see both payments."),
        ];
        assert_eq!(title(&call).as_deref(), Some("I was charged twice for my headphones order"));
        let polish = [
            ("konsultant", "Dzień dobry, z tej strony Anna, w czym mogę pomóc?"),
            ("klient", "Dzień dobry, nazywam się Jan Nowak. Dzwonię, bo internet nie działa od wczoraj."),
        ];
        assert_eq!(title(&polish).as_deref(), Some("Dzwonię, bo internet nie działa od wczoraj"));
        // Without a stated reason, the customer's first sentence of substance.
        let plain = [("agent", "Good morning, how can I help?"), ("caller", "Good morning. The parcel with the blue lamp is at the depot.")];
        assert_eq!(title(&plain).as_deref(), Some("The parcel with the blue lamp is at the depot"));
    }
}
