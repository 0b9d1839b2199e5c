//! An extractive summary: the call's sentences scored by how much of the call's vocabulary they
//! carry (stems that recur, stop words aside), the best kept in their order; the customer's
//! first substantial sentence as the title; the resolution from the last sentence that promises
//! or reports one; next steps from the action items.

use std::collections::HashMap;

use crate::actions::ActionDraft;
use crate::text::{fold, sentences, stems};

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
    "refund", "replace", "resolved", "fixed", "solved", "credit", "cancel", "sent", "send", "process", "arrange",
    "booked", "scheduled", "escalat", "zwrot", "zwroc", "wymien", "rozwiaz", "naprawi", "anul", "wysl", "przesl",
    "umowi", "zglos", "skoryg", "korekt", "rozpatrz",
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

/// A short title (under 80 characters): the first sentence of substance from the speaker who
/// is not the first to talk (usually the customer), else from anyone; `None` for an empty call.
pub fn title(turns: &[(&str, &str)]) -> Option<String> {
    let first_speaker = turns.first().map(|t| t.0);
    fn substantial(text: &str) -> Option<&str> {
        sentences(text).into_iter().find(|s| stems(s).len() >= 3 && !s.ends_with('?'))
    }
    let pick = turns
        .iter()
        .filter(|t| Some(t.0) != first_speaker)
        .find_map(|t| substantial(t.1))
        .or_else(|| turns.iter().find_map(|t| substantial(t.1)))?;
    let clean = pick.trim_end_matches(['.', '!', ',']).trim();
    if clean.chars().count() < 78 {
        return Some(clean.to_owned());
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
        let long = [("a", "Hello?"), ("b", "I am calling because the internet connection in my flat has been dropping every evening for three weeks now.")];
        let t = title(&long).unwrap();
        assert!(t.chars().count() < 80 && t.ends_with('…'), "{t}");
        assert_eq!(title(&[]), None);
    }
}
