//! Action items from what people commit to in a call, without a model: first-person promises
//! ("I'll send you the form by Friday", "wyślę jutro potwierdzenie", "oddzwonimy do piątku") are
//! the speaker's; requests ("could you send us the photos", "proszę przesłać zdjęcia") are the
//! other party's. The deadline said with it is kept verbatim and resolved against the call's
//! date; urgency words and near deadlines set the priority.

use chrono::{DateTime, Utc};

use crate::deadline::resolve_deadline;
use crate::text::{capitalise, fold};

/// `LOW`, `MEDIUM`, `HIGH` (decisions §5).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Priority {
    Low,
    Medium,
    High,
}

impl Priority {
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Low => "LOW",
            Self::Medium => "MEDIUM",
            Self::High => "HIGH",
        }
    }
}

/// An action item found in the call.
#[derive(Debug, Clone, PartialEq)]
pub struct ActionDraft {
    pub description: String,
    /// The speaker's name or role.
    pub responsible_party: String,
    /// The deadline as said, verbatim.
    pub deadline_mentioned: Option<String>,
    pub due_at: Option<DateTime<Utc>>,
    pub priority: Priority,
    /// The sentence it comes from.
    pub evidence: String,
    /// Index of the turn.
    pub turn: usize,
}

/// One speaker's turn.
#[derive(Debug, Clone, Copy)]
pub struct SpokenTurn<'a> {
    pub speaker: &'a str,
    pub text: &'a str,
}

const EN_PROMISE: &[&[&str]] = &[
    &["i", "will"], &["i", "ll"], &["we", "will"], &["we", "ll"], &["i", "am", "going", "to"], &["i", "m", "going", "to"],
    &["we", "are", "going", "to"], &["we", "re", "going", "to"], &["let", "me"], &["i", "shall"], &["i", "promise", "to"],
    &["i", "need", "to"], &["i", "have", "to"], &["we", "need", "to"],
];
const EN_REQUEST: &[&[&str]] = &[
    &["could", "you"], &["can", "you"], &["would", "you"], &["please"], &["you", "need", "to"], &["you", "will", "need", "to"],
    &["make", "sure", "you"],
];
/// Verbs that make a promise an action (not "I'll be honest", "I'll take a seat").
const EN_VERBS: &[&str] = &[
    "send", "email", "e", "call", "ring", "phone", "check", "look", "arrange", "book", "schedule", "process", "refund",
    "issue", "cancel", "update", "forward", "prepare", "contact", "follow", "confirm", "review", "fix", "replace",
    "deliver", "ship", "escalate", "investigate", "get", "reply", "transfer", "post", "order", "pay", "sign", "return",
    "submit", "upload", "share", "visit", "remind", "let", "text", "write", "provide", "organise", "organize", "raise",
    "resend", "credit", "reset", "activate", "install", "repair", "collect", "notify", "inform", "chase", "sort",
];
/// First-person future forms of Polish verbs of action (folded: no diacritics).
const PL_PROMISE: &[&str] = &[
    "wysle", "wyslemy", "zadzwonie", "zadzwonimy", "oddzwonie", "oddzwonimy", "sprawdze", "sprawdzimy", "przygotuje",
    "przygotujemy", "przesle", "przeslemy", "skontaktuje", "skontaktujemy", "zwroce", "zwrocimy", "umowie", "umowimy",
    "zamowie", "zamowimy", "wystawie", "wystawimy", "anuluje", "anulujemy", "przekaze", "przekazemy", "potwierdze",
    "potwierdzimy", "naprawie", "naprawimy", "wymienie", "wymienimy", "dostarcze", "dostarczymy", "odesle", "odeslemy",
    "zglosze", "zglosimy", "poinformuje", "poinformujemy", "odezwe", "odezwiemy", "przyjade", "przyjedziemy",
    "zaplace", "zaplacimy", "oplace", "podpisze", "podpiszemy", "zalatwie", "zalatwimy", "rozpatrzymy", "rozpatrze",
    "wyjasnie", "wyjasnimy", "dosle", "doslemy", "zweryfikuje", "zweryfikujemy", "zaktualizuje", "zaktualizujemy",
    "uruchomie", "uruchomimy", "zlece", "zlecimy", "zarezerwuje", "zarezerwujemy", "przypomne", "przypomnimy",
    "napisze", "napiszemy", "dam", "damy", "postaram", "postaramy", "musze", "musimy", "bede", "bedziemy",
];
/// Polish requests to the other party: "proszę przesłać", "czy może pan wysłać", "musi pan".
const PL_REQUEST: &[&[&str]] = &[
    &["prosze", "przeslac"], &["prosze", "wyslac"], &["prosze", "o"], &["prosze", "zadzwonic"], &["prosze", "podpisac"],
    &["prosze", "sprawdzic"], &["prosze", "dostarczyc"], &["prosze", "odeslac"], &["prosze", "uzupelnic"],
    &["prosze", "wypelnic"], &["prosze", "oplacic"], &["czy", "moze", "pan"], &["czy", "moze", "pani"],
    &["czy", "mogliby", "panstwo"], &["musi", "pan"], &["musi", "pani"], &["trzeba", "bedzie"],
];
const URGENT: &[&str] = &[
    "urgent", "urgently", "asap", "immediately", "pilne", "pilna", "pilny", "pilnej", "pilnego", "pilnie", "natychmiast",
    "priorytet", "priorytetowo",
];
const URGENT_PHRASES: &[&[&str]] = &[&["as", "soon", "as", "possible"], &["right", "away"], &["jak", "najszybciej"], &["od", "razu"]];
/// Words that start a deadline phrase ("by Friday", "do piątku", "jutro").
const DEADLINE_STARTS: &[&str] = &[
    "by", "before", "until", "till", "within", "end", "tomorrow", "today", "tonight", "next", "this", "do", "przed",
    "za", "jutro", "dzisiaj", "dzis", "pojutrze", "najpozniej", "ciagu", "monday", "tuesday", "wednesday", "thursday",
    "friday", "saturday", "sunday",
];
/// Prepositions that start a deadline only when the phrase needs them ("on Friday", "w
/// przyszłym tygodniu"), not in "in the system tomorrow".
const WEAK_STARTS: &[&str] = &["on", "in", "w", "we"];
const CONDITIONAL: &[&str] = &["if", "unless", "jesli", "jezeli", "gdyby", "jakby"];

/// Words of a sentence with their byte offsets.
fn words(sentence: &str) -> Vec<(usize, usize, String)> {
    let mut out = Vec::new();
    let mut start = None;
    for (i, c) in sentence.char_indices().chain(std::iter::once((sentence.len(), ' '))) {
        match (start, c.is_alphanumeric()) {
            (None, true) => start = Some(i),
            (Some(s), false) => {
                out.push((s, i, fold(&sentence[s..i])));
                start = None;
            }
            _ => {}
        }
    }
    out
}

fn starts_with(ws: &[(usize, usize, String)], at: usize, phrase: &[&str]) -> bool {
    ws.len() >= at + phrase.len() && ws[at..at + phrase.len()].iter().zip(phrase).all(|(w, p)| w.2 == *p)
}

/// The first deadline phrase in the sentence: from a deadline word, the fewest words that
/// resolve to a day.
fn deadline(sentence: &str, ws: &[(usize, usize, String)], call: DateTime<Utc>) -> Option<(String, DateTime<Utc>)> {
    let resolve = |i: usize, j: usize| resolve_deadline(&sentence[ws[i].0..ws[j].1], call);
    for i in 0..ws.len() {
        let word = ws[i].2.as_str();
        let weak = WEAK_STARTS.contains(&word);
        if !DEADLINE_STARTS.contains(&word) && !weak && !word.starts_with(|c: char| c.is_ascii_digit()) {
            continue;
        }
        let Some((j, due)) = (i..ws.len().min(i + 6)).find_map(|j| resolve(i, j).map(|d| (j, d))) else { continue };
        // A weak start with a deadline word later in its phrase is not part of it ("in the
        // system tomorrow" is "tomorrow"; "w przyszłym tygodniu" stays whole).
        if weak && ws[i + 1..=j].iter().any(|w| DEADLINE_STARTS.contains(&w.2.as_str())) {
            continue;
        }
        // "w ciągu trzech dni" resolves already, but "roboczych" after it changes the day.
        if ws.get(j + 1).is_some_and(|w| w.2.starts_with("robocz")) {
            if let Some(working) = resolve(i, j + 1) {
                return Some((sentence[ws[i].0..ws[j + 1].1].to_owned(), working));
            }
        }
        return Some((sentence[ws[i].0..ws[j].1].to_owned(), due));
    }
    None
}

/// The deadline said in one sentence, as said and resolved against the call's date.
pub(crate) fn deadline_in(sentence: &str, call: DateTime<Utc>) -> Option<(String, DateTime<Utc>)> {
    deadline(sentence, &words(sentence), call)
}

/// Action items in the call's turns. A request is the other party's when the call has two
/// speakers (with more, whom it is addressed to is unknown and it is left out).
pub fn extract_actions(turns: &[SpokenTurn<'_>], call: DateTime<Utc>) -> Vec<ActionDraft> {
    let mut speakers: Vec<&str> = Vec::new();
    for t in turns {
        if !speakers.contains(&t.speaker) {
            speakers.push(t.speaker);
        }
    }
    let other = |me: &str| if speakers.len() == 2 { speakers.iter().find(|s| **s != me).copied() } else { None };
    let mut out: Vec<ActionDraft> = Vec::new();
    for (turn_index, turn) in turns.iter().enumerate() {
        for sentence in turn.text.split_inclusive(['.', '!', '?']).map(str::trim).filter(|s| !s.is_empty()) {
            let ws = words(sentence);
            if ws.iter().any(|w| CONDITIONAL.contains(&w.2.as_str())) {
                continue;
            }
            let question = sentence.ends_with('?');
            // (where the action's words start, who does it)
            let mut found: Option<(usize, &str)> = None;
            for i in 0..ws.len() {
                if !question {
                    if let Some(p) = EN_PROMISE.iter().find(|p| starts_with(&ws, i, p)) {
                        let verb = i + p.len();
                        if ws.get(verb).is_some_and(|w| EN_VERBS.contains(&w.2.as_str())) {
                            found = Some((verb, turn.speaker));
                            break;
                        }
                    }
                    if PL_PROMISE.contains(&ws[i].2.as_str()) && (i == 0 || !matches!(ws[i - 1].2.as_str(), "nie" | "czy")) {
                        // "muszę", "będę", "postaram się" need an action after them.
                        let modal = matches!(ws[i].2.as_str(), "musze" | "musimy" | "bede" | "bedziemy" | "postaram" | "postaramy" | "dam" | "damy");
                        let next_is_action = ws.get(i + 1).is_some_and(|w| w.2.ends_with("c") || w.2 == "sie" || w.2 == "znac");
                        if !modal || next_is_action {
                            found = Some((i, turn.speaker));
                            break;
                        }
                    }
                }
                if let Some(p) = EN_REQUEST.iter().find(|p| starts_with(&ws, i, p)) {
                    let verb = i + p.len();
                    if let (Some(w), Some(them)) = (ws.get(verb), other(turn.speaker)) {
                        if EN_VERBS.contains(&w.2.as_str()) {
                            found = Some((verb, them));
                            break;
                        }
                    }
                }
                if let Some(p) = PL_REQUEST.iter().find(|p| starts_with(&ws, i, p)) {
                    if let Some(them) = other(turn.speaker) {
                        if ws.len() > i + p.len() {
                            found = Some((i + p.len().min(1), them));
                            break;
                        }
                    }
                }
            }
            let Some((from, who)) = found else { continue };
            let clause = sentence[ws[from].0..].trim_end_matches(['.', '!', '?', ',']).trim();
            let description = capitalise(clause);
            if description.split_whitespace().count() < 2 {
                continue;
            }
            let due = deadline(sentence, &ws, call);
            let urgent = ws.iter().any(|w| URGENT.contains(&w.2.as_str())) || (0..ws.len()).any(|i| URGENT_PHRASES.iter().any(|p| starts_with(&ws, i, p)));
            let soon = due.as_ref().is_some_and(|(_, d)| (d.date_naive() - call.date_naive()).num_days() <= 1);
            let priority = if urgent || soon { Priority::High } else if due.is_some() { Priority::Medium } else { Priority::Low };
            if out.iter().any(|a| fold(&a.description) == fold(&description)) {
                continue;
            }
            out.push(ActionDraft {
                description,
                responsible_party: who.to_owned(),
                deadline_mentioned: due.as_ref().map(|d| d.0.clone()),
                due_at: due.map(|d| d.1),
                priority,
                evidence: sentence.to_owned(),
                turn: turn_index,
            });
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use chrono::TimeZone;

    use super::*;

    fn call() -> DateTime<Utc> {
        Utc.with_ymd_and_hms(2026, 11, 18, 10, 0, 0).unwrap()
    }

    fn t<'a>(speaker: &'a str, text: &'a str) -> SpokenTurn<'a> {
        SpokenTurn { speaker, text }
    }

    #[test]
    fn english_promises_and_requests() {
        let items = extract_actions(
            &[
                t("agent", "Thank you for calling. I'll send you the return label by Friday."),
                t("customer", "Great. I'll be honest, I was worried."),
                t("agent", "Could you email us a photo of the damage? We will process the refund within five days."),
                t("customer", "Sure. If it doesn't arrive I will call again."),
                t("agent", "I will check in the system tomorrow."),
                t("agent", "Let me escalate this to my manager, it is urgent."),
            ],
            call(),
        );
        let summary: Vec<(&str, &str, Option<&str>, &str)> =
            items.iter().map(|a| (a.description.as_str(), a.responsible_party.as_str(), a.deadline_mentioned.as_deref(), a.priority.as_str())).collect();
        assert_eq!(
            summary,
            [
                ("Send you the return label by Friday", "agent", Some("by Friday"), "MEDIUM"),
                ("Email us a photo of the damage", "customer", None, "LOW"),
                ("Process the refund within five days", "agent", Some("within five days"), "MEDIUM"),
                ("Check in the system tomorrow", "agent", Some("tomorrow"), "HIGH"),
                ("Escalate this to my manager, it is urgent", "agent", None, "HIGH"),
            ]
        );
        assert_eq!(items[0].due_at.unwrap().to_rfc3339(), "2026-11-20T23:59:59+00:00");
        assert_eq!(items[0].evidence, "I'll send you the return label by Friday.");
        assert_eq!(items[1].turn, 2);
    }

    #[test]
    fn polish_promises_and_requests() {
        let items = extract_actions(
            &[
                t("konsultant", "Dzień dobry. Wyślę jutro potwierdzenie mailem."),
                t("klient", "Dobrze, a kiedy będzie zwrot?"),
                t("konsultant", "Zwrócimy pieniądze do piątku. Proszę przesłać zdjęcia uszkodzenia."),
                t("klient", "Jeśli nie dostanę maila, zadzwonię jeszcze raz."),
                t("konsultant", "Oddzwonimy w przyszłym tygodniu, sprawa jest pilna."),
            ],
            call(),
        );
        let summary: Vec<(&str, &str, Option<&str>, &str)> =
            items.iter().map(|a| (a.description.as_str(), a.responsible_party.as_str(), a.deadline_mentioned.as_deref(), a.priority.as_str())).collect();
        assert_eq!(
            summary,
            [
                ("Wyślę jutro potwierdzenie mailem", "konsultant", Some("jutro"), "HIGH"),
                ("Zwrócimy pieniądze do piątku", "konsultant", Some("do piątku"), "MEDIUM"),
                ("Przesłać zdjęcia uszkodzenia", "klient", None, "LOW"),
                ("Oddzwonimy w przyszłym tygodniu, sprawa jest pilna", "konsultant", Some("w przyszłym tygodniu"), "HIGH"),
            ]
        );
        assert_eq!(items[1].due_at.unwrap().to_rfc3339(), "2026-11-20T23:59:59+00:00");
    }
}
