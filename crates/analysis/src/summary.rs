//! A summary a supervisor can read, without a model: who called about what (the customer's
//! sentence that says why they called), what the other side did about it (its last sentence
//! that resolves or reports something), the amounts said, and the next steps, which are the
//! action items; each sentence whole and attributed, numbers in digits, and nothing taken from a
//! sentence that recognition garbled. Key points are the call's other sentences that carry its
//! vocabulary, cut to their clause. The title is the reason, shortened.

use std::collections::HashMap;

use callscope_domain::Language;
use callscope_text::number::{numbers, Number};
use callscope_text::temporal::{deadlines, Expression};

use crate::actions::ActionDraft;
use crate::text::{capitalise, fold, phrase_text, sentences, stems};

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
    "raising", "raised", "waive", "book", "updated", "changed", "reset", "apply", "applied", "added", "booking", "zwrot", "zwroc", "zwroci",
    "wymien", "rozwiaz", "naprawi", "anul", "wysl", "przesl", "umowi", "zglos", "skoryg", "korekt", "rozpatrz", "zmieni", "zaktualiz", "doda",
    "zarezerw", "przywroc", "odblok", "naliczy",
];

/// Words a key point is at most.
const POINT_WORDS: usize = 16;

/// One sentence with its turn and speaker.
struct Sentence<'a> {
    turn: usize,
    text: &'a str,
    speaker: &'a str,
    score: f32,
}

/// The labels of a summary, in the call's language.
struct Labels {
    amounts: &'static str,
    next_steps: &'static str,
}

fn labels(language: Language) -> Labels {
    match language {
        Language::Pl => Labels { amounts: "Kwoty", next_steps: "Dalsze kroki" },
        Language::En => Labels { amounts: "Amounts", next_steps: "Next steps" },
    }
}

/// Summarises turns given as (speaker, text), in `language`.
pub fn summarise(turns: &[(&str, &str)], actions: &[ActionDraft], language: Language) -> Summary {
    let mut freq: HashMap<String, f32> = HashMap::new();
    for (_, text) in turns {
        for s in stems(text) {
            *freq.entry(s).or_insert(0.0) += 1.0;
        }
    }
    let all: Vec<Sentence<'_>> = turns
        .iter()
        .enumerate()
        .flat_map(|(turn, (speaker, text))| sentences(text).into_iter().map(move |t| (turn, *speaker, t)))
        .map(|(turn, speaker, text)| {
            let st = stems(text);
            // Recurring words count; a sentence of greetings counts for nothing.
            let weight: f32 = st.iter().map(|s| freq.get(s).copied().unwrap_or(0.0) - 1.0).filter(|w| *w > 0.0).sum();
            let score = if st.len() < 3 || !readable(text) { 0.0 } else { weight / (st.len() as f32).sqrt() };
            Sentence { turn, text, speaker, score }
        })
        .collect();
    let customer = Customer::of(turns);
    let reason = reason(turns, &customer);
    // What the other side did: its last sentence that resolves something, after the reason.
    let resolves = |s: &&Sentence<'_>| {
        let f = fold(s.text);
        RESOLUTION.iter().any(|r| f.contains(r)) && !s.text.ends_with('?') && readable(s.text) && stems(s.text).len() >= 3
    };
    let after_reason = |s: &&Sentence<'_>| reason.as_ref().is_none_or(|r| s.turn > r.0);
    let outcome = all
        .iter()
        .rev()
        .filter(after_reason)
        .filter(|s| !customer.is(s.speaker))
        .find(resolves)
        .or_else(|| all.iter().rev().filter(after_reason).find(resolves));
    let said = |speaker: &str, text: &str| format!("{}: {}", capitalise(speaker), shown(text));
    let mut executive: Vec<String> = Vec::new();
    if let Some((turn, text)) = reason {
        executive.push(said(turns[turn].0, text));
    }
    if let Some(o) = outcome {
        executive.push(said(o.speaker, o.text));
    }
    if executive.is_empty() {
        // No stated reason and nothing resolved: the two sentences that carry the call most.
        let mut best: Vec<&Sentence<'_>> = all.iter().filter(|s| s.score > 0.0).collect();
        best.sort_by(|a, b| b.score.total_cmp(&a.score));
        best.truncate(2);
        best.sort_by_key(|s| s.turn);
        executive.extend(best.iter().map(|s| said(s.speaker, s.text)));
    }
    let labels = labels(language);
    let amounts = amounts(turns);
    if !amounts.is_empty() {
        executive.push(format!("{}: {}.", labels.amounts, amounts.join(", ")));
    }
    let next_steps: Vec<String> = actions.iter().map(next_step).collect();
    if !next_steps.is_empty() {
        executive.push(format!("{}: {}.", labels.next_steps, next_steps.join("; ")));
    }
    let in_summary: Vec<&str> = reason.iter().map(|r| r.1).chain(outcome.map(|o| o.text)).collect();
    // The reason lost its greeting ("Hello, I have not…"): the sentence it came from is in the
    // summary all the same.
    let mut order: Vec<&Sentence<'_>> =
        all.iter().filter(|s| s.score > 0.0 && point_worthy(s.text) && !in_summary.iter().any(|t| s.text.ends_with(t))).collect();
    order.sort_by(|a, b| b.score.total_cmp(&a.score).then(a.turn.cmp(&b.turn)));
    let mut key_discussion_points: Vec<String> = Vec::new();
    for s in order {
        let point = key_point(s.text, &freq);
        if key_discussion_points.len() < 5 && !key_discussion_points.contains(&point) {
            key_discussion_points.push(point);
        }
    }
    Summary {
        executive_summary: executive.join(" "),
        key_discussion_points,
        resolution_provided: outcome.map(|o| said(o.speaker, o.text)).unwrap_or_default(),
        follow_up_required: !actions.is_empty(),
        next_steps,
    }
}

/// An action item as a next step: what, who, and by when as said.
fn next_step(action: &ActionDraft) -> String {
    match &action.deadline_mentioned {
        Some(deadline) => format!("{} ({}, {})", shown(&action.description), action.responsible_party, deadline),
        None => format!("{} ({})", shown(&action.description), action.responsible_party),
    }
}

/// The most digits after the point of a decimal said as an amount ("86.40", "2.5"): a longer
/// run is a number read out digit by digit that speech recognition wrote with a point (an
/// account number "four four seven one nine two three" came out "4.471923").
const AMOUNT_FRACTION_DIGITS: usize = 2;

/// Currency signs written before a sum ("£1500", "$20").
const CURRENCY_SIGNS: [char; 3] = ['£', '$', '€'];

/// The amounts of money and the decimals said in the call (at most two digits after the point),
/// in digits, each once, at most four.
fn amounts(turns: &[(&str, &str)]) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for (_, text) in turns {
        for mention in numbers(text) {
            let sign = text[..mention.start_byte].chars().next_back().filter(|c| CURRENCY_SIGNS.contains(c));
            let amount = match (&mention.value, sign) {
                (Number::Money { currency, .. }, _) => format!("{} {currency}", mention.value.digits()),
                (Number::Decimal { fraction, .. }, _) if fraction.len() > AMOUNT_FRACTION_DIGITS => continue,
                (Number::Decimal { .. } | Number::Cardinal(_), Some(sign)) => format!("{sign}{}", mention.value.digits()),
                (Number::Decimal { .. }, None) => mention.value.digits(),
                _ => continue,
            };
            if out.len() < 4 && !out.contains(&amount) {
                out.push(amount);
            }
        }
    }
    out
}

/// `text` with its spoken numbers in digits ("eighty-six pounds forty" → "86.40 pounds"), where
/// digits read better: amounts, decimals, runs of digits and numbers of two words or more;
/// "one" and "two" stay words.
pub(crate) fn shown(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut from = 0;
    for mention in numbers(text) {
        let several_words = mention.end - mention.first > 1;
        let worth = match &mention.value {
            Number::Money { .. } | Number::Decimal { .. } | Number::Digits(_) => true,
            Number::Cardinal(n) => several_words || *n >= 13,
            Number::Ordinal { .. } => false,
        };
        if !worth || text[mention.start_byte..mention.end_byte].chars().all(|c| c.is_ascii_digit() || c == '.' || c == ',') {
            continue;
        }
        out.push_str(&text[from..mention.start_byte]);
        out.push_str(&mention.value.digits());
        if let Number::Money { currency, .. } = &mention.value {
            out.push(' ');
            out.push_str(currency);
        }
        from = mention.end_byte;
    }
    out.push_str(&text[from..]);
    out
}

/// Whether a sentence reads as language, not as recognition's stutter ("time, time, time",
/// "2 1 FM"): most of its words are words, and few of them repeat.
fn readable(sentence: &str) -> bool {
    let words: Vec<String> = sentence.split(|c: char| !c.is_alphanumeric()).filter(|w| !w.is_empty()).map(fold).collect();
    if words.is_empty() {
        return false;
    }
    let alphabetic = words.iter().filter(|w| w.chars().count() >= 2 && w.chars().all(char::is_alphabetic)).count();
    let mut distinct: Vec<&str> = words.iter().map(String::as_str).collect();
    distinct.sort_unstable();
    distinct.dedup();
    let repeats_in_a_row = words.windows(3).any(|w| w[0] == w[1] && w[1] == w[2]);
    !repeats_in_a_row && alphabetic * 2 >= words.len() && (words.len() < 6 || distinct.len() * 5 >= words.len() * 3)
}

/// Whether a sentence can be a key point: it states something (no question, no formality) in
/// four content words or more, and is not data read out: a postcode, a meter reading, a date
/// of birth or an e-mail address spelled ("C F fifteen, seven Q R", "it's four five two one
/// eight", "the twenty-second of July 1964", "dan underscore okafor at fernmail dot co dot
/// uk"). Those recur when read back, which is what made them look central.
fn point_worthy(sentence: &str) -> bool {
    stems(sentence).len() >= 4 && says_no_data(sentence)
}

/// Whether a sentence or clause asks nothing, is no formality and reads out no data (see
/// [`point_worthy`]).
fn says_no_data(sentence: &str) -> bool {
    let words: Vec<String> = sentence.split(|c: char| !c.is_alphanumeric()).filter(|w| !w.is_empty()).map(fold).collect();
    let spelled = words.iter().any(|w| SPELLING.contains(&w.as_str()));
    // Digits read one by one are data; an amount or a count is what a key point may say.
    let digit_words: usize = numbers(sentence).iter().filter(|n| matches!(n.value, Number::Digits(_))).map(|n| n.end - n.first).sum();
    // Spelled letters come in runs ("C F", "Q R"); a lone letter is a word ("a", "w") or a
    // piece of a contraction ("it's").
    let letter = |i: usize| words.get(i).is_some_and(|w| w.chars().count() == 1 && !w.chars().all(|c| c.is_ascii_digit()));
    let letters = (0..words.len())
        .filter(|&i| letter(i) && (i > 0 && letter(i - 1) || letter(i + 1)) && !ONE_LETTER_WORDS.contains(&words[i].as_str()))
        .count();
    // A date with a year long past is a date of birth or of a contract's start, read out.
    let long_past = deadlines(sentence).iter().any(|d| matches!(d.expression, Expression::Date { year: Some(year), .. } if year < 2010));
    let phrased = phrase_text(sentence);
    let introduces = phrased.trim_end().ends_with(" speaking");
    !sentence.trim_end().ends_with('?')
        && !spelled
        && !long_past
        && !introduces
        && !has_phrase(&phrased, FORMALITIES)
        && (digit_words + letters) * 3 <= words.len()
}

/// Words of one letter, and the pieces contractions leave ("it's" → "it", "s").
const ONE_LETTER_WORDS: &[&str] = &["a", "i", "w", "z", "o", "u", "s", "m", "t", "d"];

/// Words that only spelling an address out uses.
const SPELLING: &[&str] = &["dot", "underscore", "hyphen", "kropka", "malpa", "podkreslnik"];

/// A key point: the sentence, or, when it is long, its clause that carries most of the call's
/// vocabulary, cut to [`POINT_WORDS`] words; numbers in digits.
fn key_point(sentence: &str, freq: &HashMap<String, f32>) -> String {
    let text = sentence.trim_end_matches(['.', '!', ',', ';']).trim();
    let weight = |clause: &str| stems(clause).iter().map(|s| freq.get(s).copied().unwrap_or(0.0) - 1.0).filter(|w| *w > 0.0).sum::<f32>();
    let chosen = if text.split_whitespace().count() <= POINT_WORDS {
        text
    } else {
        text.split([',', ';', ':', '—'])
            .map(str::trim)
            .filter(|c| c.split_whitespace().count() >= 3 && says_no_data(c))
            .max_by(|a, b| weight(a).total_cmp(&weight(b)))
            .unwrap_or(text)
    };
    let words: Vec<&str> = chosen.split_whitespace().collect();
    let cut = if words.len() > POINT_WORDS { format!("{}…", words[..POINT_WORDS].join(" ")) } else { chosen.to_owned() };
    capitalise(&shown(&cut))
}

/// Sentences that are the call's formalities, not its subject: greetings, the company's name,
/// introductions, offers of help (folded, no diacritics).
const FORMALITIES: &[&str] = &[
    "thank you for calling", "thanks for calling", "thank you for contacting", "how can i help", "how may i help", "what can i do for you",
    "my name is", "calling from", "you re through to", "you re speaking to", "you re speaking with", "dziekuje za telefon", "dziekujemy za telefon",
    "dziekuje za kontakt", "w czym moge pomoc", "w czym moge panu", "w czym moge pani", "nazywam sie", "z tej strony", "witam w",
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

/// Which speaker is the customer: the one named so, else the one who did not speak first.
pub(crate) struct Customer<'a> {
    named: Option<&'a str>,
    first: Option<&'a str>,
}

impl<'a> Customer<'a> {
    pub(crate) fn of(turns: &[(&'a str, &str)]) -> Self {
        Customer { named: turns.iter().map(|t| t.0).find(|s| CUSTOMER_NAMES.contains(&fold(s).as_str())), first: turns.first().map(|t| t.0) }
    }

    pub(crate) fn is(&self, speaker: &str) -> bool {
        match self.named {
            Some(customer) => speaker == customer,
            None => Some(speaker) != self.first,
        }
    }
}

/// The sentence that says why the call was made, with its turn: the customer's first sentence
/// that states a reason ("my router stopped working", "chciałbym zrezygnować"), else their first
/// sentence of substance that is not a formality, else anyone's; greetings in front of it are
/// left out, and a sentence recognition garbled is never it.
fn reason<'a>(turns: &[(&'a str, &'a str)], customer: &Customer<'_>) -> Option<(usize, &'a str)> {
    let candidates = |customer_only: bool| {
        turns
            .iter()
            .enumerate()
            .filter(move |(_, t)| !customer_only || customer.is(t.0))
            .flat_map(|(turn, t)| sentences(t.1).into_iter().map(move |s| (turn, without_opener(s))))
            .filter(|(_, s)| stems(s).len() >= 3 && !s.ends_with('?') && !has_phrase(&phrase_text(s), FORMALITIES) && readable(s))
    };
    candidates(true)
        .take(6)
        .find(|(_, s)| has_phrase(&phrase_text(s), REASONS))
        .or_else(|| candidates(true).next())
        .or_else(|| candidates(false).find(|(_, s)| has_phrase(&phrase_text(s), REASONS)))
        .or_else(|| candidates(false).next())
}

/// A short title (under 80 characters) naming what the call was about: the reason for the call
/// ([`reason`]), numbers in digits. `None` for a call with nothing to title.
pub fn title(turns: &[(&str, &str)]) -> Option<String> {
    let (_, pick) = reason(turns, &Customer::of(turns))?;
    let clean = capitalise(&shown(pick.trim_end_matches(['.', '!', ',']).trim()));
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
    fn the_summary_says_why_they_called_and_what_was_done_whole_and_attributed() {
        let s = summarise(&call(), &[], Language::En);
        assert_eq!(
            s.executive_summary,
            "Customer: My kettle stopped working after two days and I want a refund for the kettle. \
             Agent: Okay, I have processed the refund, you will see it in five days."
        );
        assert_eq!(s.resolution_provided, "Agent: Okay, I have processed the refund, you will see it in five days.");
        assert!(!s.key_discussion_points.is_empty() && s.key_discussion_points.len() <= 5);
        assert!(s.key_discussion_points.iter().all(|p| !s.executive_summary.contains(p.as_str())), "{:?}", s.key_discussion_points);
        assert!(!s.follow_up_required && s.next_steps.is_empty());
    }

    #[test]
    fn amounts_are_in_digits_and_next_steps_are_the_action_items_with_their_deadlines() {
        let turns = [
            ("Agent", "Brightwell Energy, Priya speaking, how can I help?"),
            ("Customer", "You've taken my direct debit twice this month, eighty-six pounds forty each time."),
            ("Agent", "I'm sorry. I'm raising a refund for the duplicate eighty-six pounds forty right now."),
        ];
        let refund = ActionDraft {
            description: "Raise a refund for the duplicate eighty-six pounds forty".into(),
            responsible_party: "Agent".into(),
            deadline_mentioned: Some("within five working days".into()),
            due_at: None,
            priority: crate::actions::Priority::Medium,
            evidence: turns[2].1.into(),
            turn: 2,
        };
        let s = summarise(&turns, &[refund], Language::En);
        assert_eq!(
            s.executive_summary,
            "Customer: You've taken my direct debit twice this month, 86.40 pounds each time. \
             Agent: I'm raising a refund for the duplicate 86.40 pounds right now. Amounts: 86.40 pounds. \
             Next steps: Raise a refund for the duplicate 86.40 pounds (Agent, within five working days)."
        );
        assert!(s.follow_up_required);
        let polish = summarise(&[("klient", "Zapłaciłam dwa razy po siedemdziesiąt cztery złote.")], &[], Language::Pl);
        assert_eq!(polish.executive_summary, "Klient: Zapłaciłam dwa razy po 74 złote. Kwoty: 74 złote.");
    }

    /// An account number read out, as whisper base wrote it on a call page (stop 52), was listed
    /// among the amounts.
    #[test]
    fn digits_written_with_a_point_are_no_amount() {
        let turns = [
            ("Customer", "You've taken my direct debit twice this month, 92.50 both times."),
            ("Agent", "Can I take your account number, please?"),
            ("Customer", "It's 4.471923."),
            ("Agent", "Your data allowance is 2.5 gigabytes, and the bill was £1,240."),
        ];
        let s = summarise(&turns, &[], Language::En);
        assert!(s.executive_summary.ends_with("Amounts: 92.50, 2.5, £1240."), "{}", s.executive_summary);
    }

    #[test]
    fn a_sentence_recognition_garbled_is_never_summarised() {
        let turns = [
            ("agent", "Thank you for calling."),
            ("customer", "2 1 FM, time, time, time."),
            ("customer", "I need a new contract for the flat because the old contract ends."),
            ("agent", "And an email address for the contract."),
            ("agent", "I have sent the new contract to your email address."),
        ];
        let s = summarise(&turns, &[], Language::En);
        assert!(!s.executive_summary.contains("time, time"), "{}", s.executive_summary);
        assert!(s.executive_summary.starts_with("Customer: I need a new contract"), "{}", s.executive_summary);
        assert!(s.key_discussion_points.iter().all(|p| !p.contains("time, time")), "{:?}", s.key_discussion_points);
        assert!(!readable("free one two, time, time, time") && readable("I have sent the new contract to your email address."));
    }

    #[test]
    fn the_reason_is_not_repeated_as_a_key_point_for_its_greeting() {
        let turns = [
            ("agent", "Good morning, how can I help you today?"),
            ("customer", "Hello, I have not received the invoice for November."),
            ("agent", "I am sorry about the invoice. I will send you the invoice on Friday."),
        ];
        let s = summarise(&turns, &[], Language::En);
        assert!(s.executive_summary.starts_with("Customer: I have not received the invoice for November."), "{}", s.executive_summary);
        assert!(s.key_discussion_points.iter().all(|p| !p.contains("not received")), "{:?}", s.key_discussion_points);
    }

    #[test]
    fn data_read_out_greetings_and_questions_are_no_key_points() {
        let turns = [
            ("agent", "Good morning, Brightwell Energy, Priya speaking."),
            ("customer", "Hi. I've had my January bill and it says it's an estimated reading."),
            ("agent", "Can I take the postcode on the account and your date of birth? Which meter reading do you have?"),
            ("customer", "It's C F fifteen, seven Q R. The twenty-second of July 1964."),
            ("agent", "So that's C F fifteen, seven Q R, the twenty-second of July 1964. And your email?"),
            ("customer", "It's gareth underscore lloyd at brightmail dot com. Er... it's four five two one eight."),
            ("agent", "Four five two one eight, perfect. The last two readings on the account were estimated."),
            ("agent", "That reading brings the January bill down to ninety-eight pounds sixty."),
        ];
        let s = summarise(&turns, &[], Language::En);
        let points = s.key_discussion_points.join(" | ");
        for data in ["Q R", "July", "underscore", "45218", "speaking", "?"] {
            assert!(!points.contains(data), "{data:?} in {points}");
        }
        assert!(points.contains("readings on the account were estimated"), "{points}");
        assert!(points.contains("98.60 pounds"), "{points}");
        // Lone letters are words, and a floor is no spelling (a review's cases).
        for sentence in [
            "Technik przyjdzie w piątek o 9 i wymieni licznik.",
            "I'm told it's a 3 day wait for a new card.",
            "Cała podłoga w łazience jest zalana.",
        ] {
            assert!(point_worthy(sentence), "{sentence}");
        }
    }

    #[test]
    fn a_key_point_is_short() {
        let freq: HashMap<String, f32> = stems("router router router reset reset").into_iter().map(|s| (s, 3.0)).collect();
        let point = key_point(
            "Well I was going to say that on Monday and again on Tuesday, the router needed a reset every single hour of the day and night.",
            &freq,
        );
        assert_eq!(point, "The router needed a reset every single hour of the day and night");
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
