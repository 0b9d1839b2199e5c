//! Who is the agent: on a call whose speakers have no roles (a mono recording told apart by
//! voice, or stereo without `channel_roles` or a default preset), the speaker who talks like the
//! company's side. An agent opens with the company's greeting and their name, asks the
//! questions that identify the caller, says what they will do and closes the call; a customer
//! says why they call and what they want. Each turn's phrases score its speaker; the agent is
//! the speaker with the higher score, and the confidence grows with the difference. A phrase
//! counts when it is heard word for word, or a slip or two off where the recogniser was unsure
//! of the words, as a small model is of most Polish on a phone line.
//!
//! The phrases were written from how contact-centre calls go in English and Polish, then
//! widened by the misses on the corpora's tune calls (never the held-out ones);
//! `examples/roles_quality.rs` measures them.

use callscope_text::{fold, within_edits};

/// How much speaking first says: inbound calls are answered by the agent, but outbound calls
/// and recordings that start late are not, so the words outweigh it.
const FIRST_SPEAKER_WEIGHT: f64 = 0.5;
/// Only the first turns carry the greeting.
const OPENING_TURNS: usize = 2;
/// Letters of a phrase for each slip of the recogniser its heard form may have: on a phone line
/// and a small model, Polish comes out spelled by ear ("romumiem" for "rozumiem", "w tym mogę
/// pomóc" for "w czym mogę pomóc"), so a phrase heard only word for word is mostly not heard.
const LETTERS_PER_SLIP: usize = 6;
/// Shorter phrases are heard only word for word: a letter changes what a few short words say
/// ("i want a" and "i want to", "my name s" and "my name is"), and letting one slip through
/// there told two English tune calls wrong that were right.
const FEWEST_LETTERS_TO_SLIP: usize = 8;
/// How sure of a word the recogniser must be for it to be read only as written: a slip is let
/// through only over a run with a word below this.
const SURE: f32 = 0.8;

/// What the company's side says when it answers.
const AGENT_OPENINGS: &[&str] = &[
    "thank you for calling", "thanks for calling", "you re through to", "you are through to", "you re speaking to", "you re speaking with",
    "you are speaking with", "you are speaking to", "speaking how can i", "my name is", "my name s", "how can i help", "how may i help",
    "how can i assist", "what can i do for you", "welcome to", "z tej strony", "w czym moge pomoc", "w czym moge panu pomoc",
    "w czym moge pani pomoc", "czym moge sluzyc", "dziekuje za telefon", "dziekuje za kontakt", "witam w", "infolinia", "biuro obslugi",
    "dzial obslugi",
];

/// What the company's side asks and says through the call.
const AGENT_PHRASES: &[&str] = &[
    "can i take your", "could i take your", "can i have your", "could i have your", "can i get your", "could you confirm", "can you confirm",
    "can i confirm", "for security", "date of birth", "the first line of your address", "account number", "let me check", "let me have a look",
    "let me just", "bear with me", "i can see", "i ve booked", "i ve raised", "i ve logged", "i ll send you", "i will send you", "i ll arrange",
    "i ll book", "i ll escalate", "is there anything else", "anything else i can help", "sorry to hear", "apologies for", "i do apologise",
    "i do apologize", "have a lovely", "have a good day", "have a great day", "czy moge prosic o", "poprosze o", "prosze podac", "prosze o podanie",
    "numer klienta", "data urodzenia", "numer zamowienia", "juz sprawdzam", "sprawdze", "prosze chwile poczekac", "chwileczke sprawdze", "widze ze",
    "wysle panu", "wysle pani", "przekaze", "zglosze", "czy moge w czyms jeszcze pomoc", "czy moge jeszcze w czyms pomoc", "czy cos jeszcze",
    "przepraszam za", "zycze milego dnia", "milego dnia", "i understand", "i ll call you back", "i will call you back", "we ll send", "we will send",
    "we ll refund", "we will refund", "we ll credit", "we ll be in touch", "poprosze imie", "poprosze adres", "poprosze numer", "poprosze pesel",
    "poprosze nazwisko", "poprosze dane", "dziekuje pani", "dziekuje panie", "widze", "zwrocimy", "wystawimy", "przeslemy", "wyslemy", "sprawdzimy",
    "przekazemy", "oddzwonimy", "cala przyjemnosc", "milego weekendu", "milej soboty", "milego wieczoru", "duzo zdrowia", "przykro mi", "mam pania",
    "mam pana", "cos jeszcze", "przyjme", "zrobimy to razem", "my pleasure", "you re welcome", "let s take a look", "let me look", "got you",
    "zgloszenie przyjmuje", "prosze wejsc", "prosze kliknac", "rozumiem pana", "rozumiem pania",
];

/// What the caller says.
const CUSTOMER_PHRASES: &[&str] = &[
    "i m calling", "i am calling", "i m ringing", "i m phoning", "i was wondering", "i ve been charged", "i ve just", "my bill", "my order",
    "my account", "my parcel", "my package", "my contract", "my card", "i d like to", "i would like to", "i want to", "i want a", "i need to",
    "i have a question", "i ve got a question", "i m trying to", "i ve been trying", "i was charged", "i don t understand", "i do not understand",
    "i m not happy", "disappointed with your", "can you tell me", "can you help me", "i haven t received", "i have not received", "it s not working",
    "still waiting", "dzwonie w sprawie", "dzwonie bo", "dzwonie poniewaz", "dzwonie z", "mam problem", "moje zamowienie", "moj rachunek",
    "moja faktura", "moja paczka", "moje konto", "chcialbym", "chcialabym", "ja w sprawie", "mam pytanie", "chcialem zapytac", "chcialam zapytac",
    "chce zapytac", "chce zlozyc", "chce zmienic", "chce rozwiazac", "chce zrezygnowac", "oczekuje", "nie dostalem", "nie dostalam",
    "nie otrzymalem", "nie otrzymalam", "nadal czekam", "czy moze mi pan", "czy moze mi pani", "u was", "kupilem", "kupilam", "zamowilem",
    "zamowilam", "ja sie na tym nie znam", "policy with you", "account with you", "quick question", "quick one", "i need to report",
    "your contractors", "your people", "your app", "your website", "wasz", "wasza", "wasze", "waszej", "waszego", "waszym", "macie", "obiecaliscie",
    "chcialam zglosic", "chcialem zglosic", "dzwonie drugi raz", "dzwonie zapytac",
];

/// The agent among two speakers, and how sure that is.
#[derive(Debug, Clone, PartialEq)]
pub struct RoleGuess {
    /// The speaker who is the agent (the other is the customer).
    pub agent: String,
    /// The customer.
    pub customer: String,
    /// 0.5 (a coin toss) to 1, two decimals.
    pub confidence: f64,
}

/// A turn as the guess reads it: who said it and what, word by word.
#[derive(Debug, Clone, PartialEq)]
pub struct SaidTurn {
    /// The speaker.
    pub speaker: String,
    /// The words, each with how sure the recogniser was of it, from 0 to 1 (1 for a text that
    /// was written, not heard).
    pub words: Vec<(String, f32)>,
}

impl SaidTurn {
    /// A turn whose text is known as written: every word sure.
    pub fn written(speaker: impl Into<String>, text: &str) -> Self {
        SaidTurn { speaker: speaker.into(), words: text.split_whitespace().map(|w| (w.to_owned(), 1.0)).collect() }
    }
}

/// A turn's words as the phrases are looked for in them.
struct Heard {
    /// Folded, in order.
    words: Vec<String>,
    /// Their lengths in characters.
    lengths: Vec<usize>,
    /// Whether the recogniser was unsure of each (see [`SURE`]).
    unsure: Vec<bool>,
    /// Joined by single spaces, between spaces, so that a phrase said word for word matches
    /// whole words only ("my order" in " my order ", not in "army orders").
    padded: String,
}

impl Heard {
    fn new(turn: &SaidTurn) -> Self {
        let (mut words, mut unsure) = (Vec::new(), Vec::new());
        for (word, confidence) in &turn.words {
            for part in fold(word).split(|c: char| !c.is_alphanumeric()).filter(|w| !w.is_empty()) {
                words.push(part.to_owned());
                unsure.push(*confidence < SURE);
            }
        }
        let lengths = words.iter().map(|w| w.chars().count()).collect();
        let padded = format!(" {} ", words.join(" "));
        Heard { words, lengths, unsure, padded }
    }

    /// Whether `phrase` was said: word for word, or (from [`FEWEST_LETTERS_TO_SLIP`] letters)
    /// within a slip per [`LETTERS_PER_SLIP`] letters of a run of as many words, one fewer or
    /// one more, read without the spaces (a recogniser splits and joins words it mishears:
    /// "jań dobry", "jejńgobry"), when the recogniser was unsure of a word of that run. A run
    /// it was sure of is taken as written: "dziękuję panu" heard clearly is not "dziękuję pani".
    fn says(&self, phrase: &str) -> bool {
        if self.padded.contains(&format!(" {phrase} ")) {
            return true;
        }
        let letters: String = phrase.split(' ').collect();
        let length = letters.chars().count();
        let slips = if length < FEWEST_LETTERS_TO_SLIP { 0 } else { length / LETTERS_PER_SLIP };
        if slips == 0 {
            return false;
        }
        let words = phrase.split(' ').count();
        (words.saturating_sub(1).max(1)..=words + 1).any(|run| {
            (0..(self.words.len() + 1).saturating_sub(run)).any(|start| {
                let span = start..start + run;
                let heard_length: usize = self.lengths[span.clone()].iter().sum();
                heard_length.abs_diff(length) <= slips
                    && self.unsure[span.clone()].iter().any(|&unsure| unsure)
                    && within_edits(&letters, &self.words[span].concat(), slips)
            })
        })
    }

    fn count(&self, phrases: &[&str]) -> usize {
        phrases.iter().filter(|p| self.says(p)).count()
    }
}

/// Which of the two speakers of `turns` (in order) is the agent; `None` unless there are exactly
/// two.
pub fn guess_roles(turns: &[SaidTurn]) -> Option<RoleGuess> {
    let mut speakers: Vec<&str> = Vec::new();
    for turn in turns {
        if !speakers.contains(&turn.speaker.as_str()) {
            speakers.push(&turn.speaker);
        }
    }
    let [first, second] = speakers[..] else { return None };
    // Each speaker's lean towards the agent's side: positive is agent-like.
    let mut lean = [FIRST_SPEAKER_WEIGHT, 0.0];
    let mut turns_seen = [0usize, 0];
    for turn in turns {
        let who = usize::from(turn.speaker != first);
        let heard = Heard::new(turn);
        let mut score = heard.count(AGENT_PHRASES) as f64 - heard.count(CUSTOMER_PHRASES) as f64;
        if turns_seen[who] < OPENING_TURNS {
            score += 2.0 * heard.count(AGENT_OPENINGS) as f64;
        }
        turns_seen[who] += 1;
        lean[who] += score;
    }
    let difference = lean[0] - lean[1];
    let (agent, customer) = if difference >= 0.0 { (first, second) } else { (second, first) };
    // A difference of one phrase is about 73 % sure, of three about 95 %.
    let confidence = 1.0 / (1.0 + (-difference.abs()).exp());
    Some(RoleGuess { agent: agent.to_owned(), customer: customer.to_owned(), confidence: (confidence * 100.0).round() / 100.0 })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn call(lines: &[(&str, &str)]) -> Vec<SaidTurn> {
        lines.iter().map(|(speaker, text)| SaidTurn::written(*speaker, text)).collect()
    }

    /// A turn as heard, every word with the recogniser's `confidence`.
    fn heard(speaker: &str, text: &str, confidence: f32) -> SaidTurn {
        SaidTurn { speaker: speaker.to_owned(), words: text.split_whitespace().map(|w| (w.to_owned(), confidence)).collect() }
    }

    #[test]
    fn the_agent_is_who_answers_asks_and_closes() {
        let inbound = call(&[
            ("speaker_1", "Good morning, you're through to Acme, my name's Priya, how can I help?"),
            ("speaker_2", "Hi, I'm calling about my bill, it's far too high."),
            ("speaker_1", "Sorry to hear that. Can I take your postcode, please?"),
            ("speaker_2", "It's LS6 2QT."),
        ]);
        let guess = guess_roles(&inbound).unwrap();
        assert_eq!((guess.agent.as_str(), guess.customer.as_str()), ("speaker_1", "speaker_2"));
        assert!(guess.confidence > 0.95, "{guess:?}");
    }

    #[test]
    fn a_customer_who_speaks_first_is_still_the_customer() {
        // A recording that starts with the caller, in Polish.
        let late = call(&[
            ("speaker_1", "Halo? Dzwonię w sprawie mojej paczki, nadal czekam."),
            ("speaker_2", "Dzień dobry, nazywam się Anna Kowalska, w czym mogę pomóc? Poproszę o numer zamówienia."),
            ("speaker_1", "To jest 4471."),
            ("speaker_2", "Już sprawdzam. Czy mogę w czymś jeszcze pomóc?"),
        ]);
        let guess = guess_roles(&late).unwrap();
        assert_eq!(guess.agent, "speaker_2");
        assert!(guess.confidence > 0.9, "{guess:?}");
    }

    #[test]
    fn a_caller_who_introduces_themselves_is_not_taken_for_the_agent() {
        // A recording that starts late: the caller opens with "… z tej strony", as agents do.
        let late = call(&[
            ("speaker_2", "Dzień dobry, Barbara Sowińska z tej strony. Kupiłam u państwa taryfę i faktura jest za wysoka."),
            ("speaker_1", "Rozumiem. Kod pocztowy to trzydzieści jeden, pięćset osiemdziesiąt siedem?"),
            ("speaker_2", "Tak, Kraków."),
            ("speaker_1", "Dziękuję, mam panią. Wpisałam nowy odczyt."),
            ("speaker_2", "To dobrze, dziękuję."),
            ("speaker_1", "Cała przyjemność po mojej stronie. Miłego weekendu!"),
        ]);
        assert_eq!(guess_roles(&late).unwrap().agent, "speaker_1");
    }

    #[test]
    fn a_caller_who_gives_their_name_and_company_first_is_still_the_caller() {
        let english = call(&[
            ("speaker_2", "Hi Hannah, Daniel Okafor, I run Okafor Creative. Quick one: our renewal has gone through twice."),
            ("speaker_1", "Oh, okay, let's take a look. What's the email address on the account?"),
            ("speaker_2", "It's daniel at okafor creative dot com."),
            ("speaker_1", "Got you. I can only see one payment on our side."),
        ]);
        assert_eq!(guess_roles(&english).unwrap().agent, "speaker_1");
        let polish = call(&[
            ("speaker_2", "Dzień dobry pani, nazywam się Halina Bąk. Chciałam zgłosić kradzież roweru z piwnicy."),
            ("speaker_1", "Przykro mi. Czy zgłaszała pani kradzież na policję?"),
            ("speaker_2", "Tak, wczoraj. Obiecaliście, że to będzie w polisie."),
            ("speaker_1", "Dobrze, zgłoszenie przyjmuję."),
        ]);
        assert_eq!(guess_roles(&polish).unwrap().agent, "speaker_1");
        // The caller's commonest opening (a review's case), and phrases both sides say.
        let opening = call(&[
            ("speaker_2", "Dzień dobry, nazywam się Jan Kowalski, dzwonię w sprawie faktury."),
            ("speaker_1", "Rozumiem pana. Poproszę numer klienta."),
            ("speaker_2", "Tak, zgadza się, wpisałam go w formularzu."),
        ]);
        assert_eq!(guess_roles(&opening).unwrap().agent, "speaker_1");
    }

    #[test]
    fn without_cues_the_first_speaker_is_a_weak_guess_and_one_speaker_none() {
        let bare = call(&[("a", "Hello."), ("b", "Hello."), ("a", "Yes."), ("b", "Okay.")]);
        let guess = guess_roles(&bare).unwrap();
        assert_eq!(guess.agent, "a");
        assert!(guess.confidence < 0.65, "{guess:?}");
        assert_eq!(guess_roles(&call(&[("a", "Hello."), ("a", "Anyone?")])), None);
        assert_eq!(guess_roles(&call(&[("a", "Hi."), ("b", "Hi."), ("c", "Hi.")])), None);
        // Whole words only: "army orders" is not "my order".
        assert_eq!(Heard::new(&SaidTurn::written("a", "The army orders it.")).count(CUSTOMER_PHRASES), 0);
    }

    #[test]
    fn phrases_are_heard_through_the_recognisers_slips_where_it_was_unsure() {
        // A late start in Polish as a small model wrote it, unsure of most words: the caller
        // first, and the agent's "rozumiem pana", "w czym mogę pomóc" and "poproszę numer" each a
        // letter or two off.
        let turns = [
            heard("speaker_1", "Halo, jań dobry, tu Kowalski, ja z rachunkiem.", 0.4),
            heard("speaker_2", "Romumiem pana, w tym mogę pomóc? Poproszę numr aktury.", 0.4),
            heard("speaker_1", "Sześć, jeden, cztery.", 0.4),
            heard("speaker_2", "Dziękuje, jusz sprawdzam.", 0.4),
        ];
        let guess = guess_roles(&turns).unwrap();
        assert_eq!(guess.agent, "speaker_2");
        assert!(guess.confidence > 0.95, "{guess:?}");
        // A slip per six letters: a short phrase is heard only as it is, a long one not far off.
        let turn = Heard::new(&heard("a", "Romumiem pana, u wass, w tym mogę pomóc", 0.4));
        assert!(turn.says("rozumiem pana") && turn.says("w czym moge pomoc"));
        assert!(!turn.says("u was") && !turn.says("rozumiem pania ze"));
        // Under eight letters, a letter is a different phrase.
        let english = Heard::new(&heard("a", "I want to make a complaint. My name is Clive.", 0.4));
        assert!(!english.says("i want a") && !english.says("my name s"));
        // Words the recogniser was sure of are taken as written: a customer's thanks to a man
        // is not the agent's thanks to a woman.
        let sure = Heard::new(&heard("a", "No dobrze. Dziękuję panu.", 0.9));
        assert!(!sure.says("dziekuje pani"));
        assert!(Heard::new(&heard("a", "No dobrze. Dziękuję panu.", 0.3)).says("dziekuje pani"));
        assert!(!Heard::new(&SaidTurn::written("a", "Romumiem pana.")).says("rozumiem pana"));
    }
}
