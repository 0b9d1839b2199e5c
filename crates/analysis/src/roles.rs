//! Who is the agent: on a call whose speakers have no roles (a mono recording told apart by
//! voice, or stereo without `channel_roles` or a default preset), the speaker who talks like the
//! company's side. An agent opens with the company's greeting and their name, asks the
//! questions that identify the caller, says what they will do and closes the call; a customer
//! says why they call and what they want. Each turn's phrases score its speaker; the agent is
//! the speaker with the higher score, and the confidence grows with the difference.
//!
//! A phrase counts when it is heard word for word, or, if it has eight letters or more, in a run
//! of words with others than its own, within a slip per three of its letters (a letter
//! inserted, dropped or changed), where every such other word was one the recogniser was unsure
//! of: a small model writes phone-line Polish by ear ("romumiem pana" for "rozumiem pana"), so
//! word for word most phrases are never heard, while a word heard clearly is read as written
//! ("dziękuję panu" said clearly is not "dziękuję pani"). A phrase heard with slips weighs less
//! the more it has. Each run of heard words counts once, for the phrase nearest to it in the
//! lists (at equal nearness the agent's phrases, then the customer's, then what both sides say,
//! which weighs nothing, then the openings), and each phrase once a turn. The company's own
//! names, where the project gives them, weigh once a turn as a greeting in a speaker's first
//! turns (less when heard only with slips).
//!
//! The phrases were written from how contact-centre calls go in English and Polish, then
//! widened by the misses on the corpora's tune calls (never the held-out ones);
//! `examples/roles_quality.rs` measures them.

use std::collections::HashSet;
use std::ops::Range;
use std::sync::LazyLock;

use callscope_text::{edits_within, fold};

/// How much speaking first says: inbound calls are answered by the agent, but outbound calls
/// and recordings that start late are not, so the words outweigh it.
const FIRST_SPEAKER_WEIGHT: f64 = 0.5;
/// Only the first turns carry the greeting.
const OPENING_TURNS: usize = 2;
/// The company's own name in a speaker's first turns weighs as a greeting: the agent answers
/// with it, and a caller says it less often ("dzwonię do Volt Dom").
const COMPANY_NAME_WEIGHT: f64 = 2.0;
/// Letters of a phrase for each slip of the recogniser (a letter inserted, dropped or changed)
/// its heard form may have: a small model writes espeak-like or phone-line Polish a third wrong
/// ("romumiem pana", "poproszę numr aktury"), so a closer bound hears few phrases at all.
const LETTERS_PER_SLIP: usize = 3;
/// How much less a phrase heard with slips weighs, per slip per letter: one heard a tenth wrong
/// weighs three quarters of a phrase, one heard a third wrong (the most [`LETTERS_PER_SLIP`]
/// allows) a sixth, so that the runs of a poor transcript that come near some phrase by chance
/// weigh little beside a phrase heard as written.
const SLIP_DISCOUNT: f64 = 2.5;
/// Shorter phrases are heard only word for word: a letter changes what a few short words say
/// ("i want a" and "i want to", "my bill" and "my pill").
const FEWEST_LETTERS_TO_SLIP: usize = 8;
/// How sure of a word the recogniser must be for it to be read only as written.
const SURE: f32 = 0.8;

/// What the company's side says when it answers.
const AGENT_OPENINGS: &[&str] = &[
    "thank you for calling", "thanks for calling", "you re through to", "you are through to", "you re speaking to", "you re speaking with",
    "you are speaking with", "you are speaking to", "speaking how can i", "my name is", "my name s", "how can i help", "how may i help",
    "how can i assist", "what can i do for you", "welcome to", "w czym moge pomoc", "w czym moge panu pomoc", "w czym moge pani pomoc",
    "czym moge sluzyc", "dziekuje za telefon", "dziekuje za kontakt", "witam w", "infolinia", "biuro obslugi", "dzial obslugi", "czy rozmawiam z",
    "slucham pana", "slucham pania",
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
    "poprosze nazwisko", "poprosze dane", "dziekuje panie", "widze", "zwrocimy", "wystawimy", "przeslemy", "wyslemy", "sprawdzimy", "przekazemy",
    "oddzwonimy", "cala przyjemnosc", "milego weekendu", "milej soboty", "milego wieczoru", "duzo zdrowia", "przykro mi", "mam pania", "mam pana",
    "cos jeszcze", "przyjme", "zrobimy to razem", "my pleasure", "you re welcome", "let s take a look", "let me look", "got you",
    "zgloszenie przyjmuje", "prosze wejsc", "prosze kliknac", "rozumiem pana", "rozumiem pania", "do weryfikacji", "date urodzenia", "przepraszamy",
    "mi przykro",
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
    "nie otrzymalem", "nie otrzymalam", "nadal czekam", "u was", "kupilem", "kupilam", "zamowilem", "zamowilam", "ja sie na tym nie znam",
    "policy with you", "account with you", "quick question", "quick one", "i need to report", "your contractors", "your people", "your app",
    "your website", "wasz", "wasza", "wasze", "waszej", "waszego", "waszym", "macie", "obiecaliscie", "chcialam zglosic", "chcialem zglosic",
    "dzwonie drugi raz", "dzwonie zapytac", "u panstwa",
];

/// What both sides say: the caller's courtesies to the agent as much as the agent's. Heard,
/// they weigh for neither side but claim their words, so that a near miss of one ("proszę pana"
/// heard unsure) is not read as the nearest phrase of a side ("proszę podać").
const BOTH_SIDES_PHRASES: &[&str] =
    &["prosze pani", "prosze pana", "dziekuje pani", "dziekuje panu", "dziekuje bardzo", "bardzo dziekuje", "dzien dobry", "do widzenia"];

/// A phrase of a list, split and measured once.
struct Phrase {
    /// Its words.
    words: Vec<String>,
    /// Its letters without the spaces, as a run of heard words is compared with it.
    letters: String,
    /// How many letters it has.
    letter_count: usize,
}

impl Phrase {
    /// A phrase of the lists, written folded with single spaces.
    fn new(text: &str) -> Self {
        Self::of_words(text.split(' ').map(str::to_owned).collect())
    }

    /// A name as written (`Volt Dom`, `Brightwater-Energy`): folded and split as heard words
    /// are; `None` without a letter or digit.
    fn named(name: &str) -> Option<Self> {
        let words = folded_words(name);
        (!words.is_empty()).then(|| Self::of_words(words))
    }

    fn of_words(words: Vec<String>) -> Self {
        let letters: String = words.concat();
        Phrase { letter_count: letters.chars().count(), words, letters }
    }

    /// How many slips its heard form may have; `None` where it is heard only word for word.
    fn slips_allowed(&self) -> Option<usize> {
        (self.letter_count >= FEWEST_LETTERS_TO_SLIP).then_some(self.letter_count / LETTERS_PER_SLIP)
    }
}

/// The words of `text` as the phrases are looked for in them: folded and split at anything that
/// is not a letter or digit.
fn folded_words(text: &str) -> Vec<String> {
    fold(text).split(|c: char| !c.is_alphanumeric()).filter(|w| !w.is_empty()).map(str::to_owned).collect()
}

/// A list of phrases, prepared once.
fn prepared(texts: &[&str]) -> Vec<Phrase> {
    texts.iter().map(|text| Phrase::new(text)).collect()
}

static PREPARED_OPENINGS: LazyLock<Vec<Phrase>> = LazyLock::new(|| prepared(AGENT_OPENINGS));
static PREPARED_AGENT: LazyLock<Vec<Phrase>> = LazyLock::new(|| prepared(AGENT_PHRASES));
static PREPARED_CUSTOMER: LazyLock<Vec<Phrase>> = LazyLock::new(|| prepared(CUSTOMER_PHRASES));
static PREPARED_BOTH_SIDES: LazyLock<Vec<Phrase>> = LazyLock::new(|| prepared(BOTH_SIDES_PHRASES));

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

/// A turn's words as the phrases are looked for in them: folded and split at anything that is
/// not a letter or digit, so that a phrase matches whole words only ("my order" is not in "army
/// orders").
struct Heard {
    words: Vec<String>,
    /// Whether the recogniser was sure of each word (see [`SURE`]).
    sure: Vec<bool>,
    /// The letters of the words before each word (and, last, of all of them): a run's length
    /// without building it.
    letters_before: Vec<usize>,
}

/// A phrase heard in a run with words other than its own: with slips, or split or joined
/// otherwise.
struct Slip {
    /// Edits per letter of the phrase: the nearer phrase claims a run first.
    edits_per_letter: f64,
    /// Which list the phrase is in, and where in it.
    list: usize,
    phrase_index: usize,
    /// The heard words.
    span: Range<usize>,
}

impl Heard {
    fn new(turn: &SaidTurn) -> Self {
        let (mut words, mut sure, mut letters_before, mut letters) = (Vec::new(), Vec::new(), vec![0], 0);
        for (word, confidence) in &turn.words {
            for part in folded_words(word) {
                letters += part.chars().count();
                letters_before.push(letters);
                words.push(part);
                sure.push(*confidence >= SURE);
            }
        }
        Heard { words, sure, letters_before }
    }

    /// Where `phrase` was said word for word.
    fn word_for_word(&self, phrase: &Phrase) -> Vec<Range<usize>> {
        let count = phrase.words.len();
        (0..(self.words.len() + 1).saturating_sub(count))
            .filter(|&start| self.words[start..start + count].iter().zip(&phrase.words).all(|(heard, want)| heard == want))
            .map(|start| start..start + count)
            .collect()
    }

    /// Each run of as many words as `phrase`, one fewer or one more (a recogniser splits and
    /// joins words it mishears: "jań dobry", "jejńgobry"), within the slips the phrase allows
    /// of it read without spaces, that has at least one word not among the phrase's words (a run
    /// of only its own words is heard as written: word for word, or not at all), whose words not
    /// among them are all ones the recogniser was unsure of, and that holds no word in
    /// `claimed`.
    fn slips(&self, list: usize, index: usize, phrase: &Phrase, claimed: &[bool]) -> Vec<Slip> {
        let Some(limit) = phrase.slips_allowed() else { return Vec::new() };
        let count = phrase.words.len();
        let mut found = Vec::new();
        for run in count.saturating_sub(1).max(1)..=count + 1 {
            for start in 0..(self.words.len() + 1).saturating_sub(run) {
                let span = start..start + run;
                // A run whose length differs by more than the slips allowed cannot be within them.
                let run_letters = self.letters_before[span.end] - self.letters_before[span.start];
                if run_letters.abs_diff(phrase.letter_count) > limit || claimed[span.clone()].iter().any(|&c| c) {
                    continue;
                }
                let mut differing = span.clone().filter(|&i| !phrase.words.iter().any(|w| *w == self.words[i])).peekable();
                if differing.peek().is_none() || differing.any(|i| self.sure[i]) {
                    continue;
                }
                if let Some(edits) = edits_within(&phrase.letters, &self.words[span.clone()].concat(), limit) {
                    found.push(Slip { edits_per_letter: edits as f64 / phrase.letter_count as f64, list, phrase_index: index, span });
                }
            }
        }
        found
    }
}

/// A turn's lean towards the agent's side: each list's phrases said, times the list's weight,
/// and a phrase heard with slips less as it has more (see [`SLIP_DISCOUNT`]). Phrases said word
/// for word count first and claim their words; then runs heard with other words count, nearest
/// first (at equal nearness, the list given first), each run and each phrase once.
fn lean(heard: &Heard, lists: &[(&[Phrase], f64)]) -> f64 {
    let mut score = 0.0;
    let mut claimed = vec![false; heard.words.len()];
    let mut said: HashSet<(usize, usize)> = HashSet::new();
    for (list, (phrases, weight)) in lists.iter().enumerate() {
        for (index, phrase) in phrases.iter().enumerate() {
            let places = heard.word_for_word(phrase);
            if !places.is_empty() {
                score += weight;
                said.insert((list, index));
                places.into_iter().flatten().for_each(|i| claimed[i] = true);
            }
        }
    }
    let mut slips: Vec<Slip> = Vec::new();
    for (list, (phrases, _)) in lists.iter().enumerate() {
        for (index, phrase) in phrases.iter().enumerate().filter(|(index, _)| !said.contains(&(list, *index))) {
            slips.extend(heard.slips(list, index, phrase, &claimed));
        }
    }
    slips.sort_by(|a, b| a.edits_per_letter.total_cmp(&b.edits_per_letter).then(a.list.cmp(&b.list)).then(a.span.start.cmp(&b.span.start)));
    for slip in slips {
        if said.contains(&(slip.list, slip.phrase_index)) || claimed[slip.span.clone()].iter().any(|&c| c) {
            continue;
        }
        score += lists[slip.list].1 * (1.0 - SLIP_DISCOUNT * slip.edits_per_letter).max(0.0);
        said.insert((slip.list, slip.phrase_index));
        slip.span.for_each(|i| claimed[i] = true);
    }
    score
}

/// Which of the two speakers of `turns` (in order) is the agent; `None` unless there are exactly
/// two. `company_names` are the names the company's side answers with (the project's vocabulary
/// terms marked as such, and their spoken forms): said in a speaker's opening turns, they weigh
/// as a greeting. Reads every run of every turn against every phrase: a long call takes a while,
/// so call it off the async threads.
pub fn guess_roles(turns: &[SaidTurn], company_names: &[&str]) -> Option<RoleGuess> {
    let mut speakers: Vec<&str> = Vec::new();
    for turn in turns {
        if !speakers.contains(&turn.speaker.as_str()) {
            speakers.push(&turn.speaker);
        }
    }
    let [first, second] = speakers[..] else { return None };
    // Each speaker's lean towards the agent's side: positive is agent-like.
    let mut leans = [FIRST_SPEAKER_WEIGHT, 0.0];
    let mut turns_seen = [0usize, 0];
    let company: Vec<Phrase> = company_names.iter().filter_map(|name| Phrase::named(name)).collect();
    // What both sides say weighs nothing. The openings count only in a speaker's first turns,
    // so they come last.
    let lists = [
        (PREPARED_AGENT.as_slice(), 1.0),
        (PREPARED_CUSTOMER.as_slice(), -1.0),
        (PREPARED_BOTH_SIDES.as_slice(), 0.0),
        (PREPARED_OPENINGS.as_slice(), 2.0),
    ];
    for turn in turns {
        let who = usize::from(turn.speaker != first);
        let heard = Heard::new(turn);
        let opening = turns_seen[who] < OPENING_TURNS;
        turns_seen[who] += 1;
        leans[who] += lean(&heard, if opening { &lists[..] } else { &lists[..3] });
        // The company named once or in several forms ("Volt Dom", "Volt-Dom Energia") is one
        // greeting, weighed by the name heard best: less as far as it was heard only with
        // slips, and the same however many spoken forms the vocabulary lists.
        if opening {
            let best = company.iter().map(|name| lean(&heard, &[(std::slice::from_ref(name), 1.0)])).fold(0.0, f64::max);
            leans[who] += COMPANY_NAME_WEIGHT * best;
        }
    }
    let difference = leans[0] - leans[1];
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

    /// What a phrase of `letters` letters weighs, heard with `edits` slips.
    fn slipped(edits: usize, letters: usize) -> f64 {
        1.0 - SLIP_DISCOUNT * (edits as f64 / letters as f64)
    }

    /// The lean of one turn heard with the given confidence of each word.
    fn lean_of(words: &[(&str, f32)], lists: &[(&[&'static str], f64)]) -> f64 {
        let turn = SaidTurn { speaker: "a".into(), words: words.iter().map(|(w, c)| ((*w).to_owned(), *c)).collect() };
        lean_of_turn(&turn, lists)
    }

    /// The lean of a turn, its phrases from `lists` as written.
    fn lean_of_turn(turn: &SaidTurn, lists: &[(&[&'static str], f64)]) -> f64 {
        let phrases: Vec<(Vec<Phrase>, f64)> = lists.iter().map(|(texts, weight)| (prepared(texts), *weight)).collect();
        let lists: Vec<(&[Phrase], f64)> = phrases.iter().map(|(list, weight)| (list.as_slice(), *weight)).collect();
        lean(&Heard::new(turn), &lists)
    }

    #[test]
    fn the_agent_is_who_answers_asks_and_closes() {
        let inbound = call(&[
            ("speaker_1", "Good morning, you're through to Acme, my name's Priya, how can I help?"),
            ("speaker_2", "Hi, I'm calling about my bill, it's far too high."),
            ("speaker_1", "Sorry to hear that. Can I take your postcode, please?"),
            ("speaker_2", "It's LS6 2QT."),
        ]);
        let guess = guess_roles(&inbound, &[]).unwrap();
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
        let guess = guess_roles(&late, &[]).unwrap();
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
        assert_eq!(guess_roles(&late, &[]).unwrap().agent, "speaker_1");
    }

    #[test]
    fn a_caller_who_gives_their_name_and_company_first_is_still_the_caller() {
        let english = call(&[
            ("speaker_2", "Hi Hannah, Daniel Okafor, I run Okafor Creative. Quick one: our renewal has gone through twice."),
            ("speaker_1", "Oh, okay, let's take a look. What's the email address on the account?"),
            ("speaker_2", "It's daniel at okafor creative dot com."),
            ("speaker_1", "Got you. I can only see one payment on our side."),
        ]);
        assert_eq!(guess_roles(&english, &[]).unwrap().agent, "speaker_1");
        let polish = call(&[
            ("speaker_2", "Dzień dobry pani, nazywam się Halina Bąk. Chciałam zgłosić kradzież roweru z piwnicy."),
            ("speaker_1", "Przykro mi. Czy zgłaszała pani kradzież na policję?"),
            ("speaker_2", "Tak, wczoraj. Obiecaliście, że to będzie w polisie."),
            ("speaker_1", "Dobrze, zgłoszenie przyjmuję."),
        ]);
        assert_eq!(guess_roles(&polish, &[]).unwrap().agent, "speaker_1");
        // The caller's commonest opening (a review's case), and phrases both sides say.
        let opening = call(&[
            ("speaker_2", "Dzień dobry, nazywam się Jan Kowalski, dzwonię w sprawie faktury."),
            ("speaker_1", "Rozumiem pana. Poproszę numer klienta."),
            ("speaker_2", "Tak, zgadza się, wpisałam go w formularzu."),
        ]);
        assert_eq!(guess_roles(&opening, &[]).unwrap().agent, "speaker_1");
    }

    #[test]
    fn an_outbound_call_answered_by_the_customer_is_told_by_who_checks_whom() {
        // The customer picks up; the agent asks whether it is the right person and says why
        // they call, with the caller's "dzwonię w sprawie".
        let outbound = call(&[
            ("speaker_1", "Halo, słucham?"),
            ("speaker_2", "Dzień dobry, Dominika Walczak z firmy Volt Dom. Czy rozmawiam z panem Pawłem Jabłońskim?"),
            ("speaker_1", "Tak, to ja."),
            ("speaker_2", "Dzwonię w sprawie pana zgłoszenia. Do weryfikacji poproszę datę urodzenia."),
            ("speaker_1", "Trzeci maja osiemdziesiątego drugiego. Mam u państwa umowę od lat."),
        ]);
        let guess = guess_roles(&outbound, &[]).unwrap();
        assert_eq!(guess.agent, "speaker_2");
        assert!(guess.confidence > 0.9, "{guess:?}");
    }

    #[test]
    fn the_speaker_who_answers_with_the_company_s_name_is_the_agent() {
        // A late start with no formula on either side: the caller speaks first, so without the
        // name the first speaker is taken for the agent.
        let late = call(&[
            ("speaker_1", "No więc ten licznik stoi od wczoraj."),
            ("speaker_2", "Volt-Dom, tak. Który to adres?"),
            ("speaker_1", "Lipowa czternaście."),
        ]);
        assert_eq!(guess_roles(&late, &[]).unwrap().agent, "speaker_1");
        let guess = guess_roles(&late, &["Volt Dom", "wolt dom"]).unwrap();
        assert_eq!(guess.agent, "speaker_2");
        assert!(guess.confidence > 0.8, "{guess:?}");
        // Heard as a spoken form, and only in a speaker's opening turns.
        assert_eq!(guess_roles(&late, &["Elektra", "volt dom"]).unwrap().agent, "speaker_2");
        let said_late =
            call(&[("a", "Dzień dobry."), ("b", "Dzień dobry."), ("a", "Tak?"), ("b", "Tak."), ("a", "Słucham."), ("b", "Mam umowę w Volt Dom.")]);
        assert_eq!(guess_roles(&said_late, &["Volt Dom"]).unwrap().agent, "a");
        // Named in several forms, or by several names, in one turn: one greeting.
        let many = guess_roles(&late, &["Volt Dom", "volt-dom", "VOLT DOM", "Volt", "Dom"]).unwrap();
        assert_eq!((many.agent.as_str(), many.confidence), ("speaker_2", guess.confidence));
        // Heard a slip off, unsure, the name weighs less than heard as written; and no more for
        // being heard in two of its spoken forms.
        let heard_late = |name: &str| {
            [
                heard("speaker_1", "The meter has been stuck since yesterday.", 0.4),
                heard("speaker_2", name, 0.4),
                heard("speaker_1", "Lime Street.", 0.4),
            ]
        };
        let as_written = guess_roles(&heard_late("Brightwater, yes."), &["Brightwater"]).unwrap();
        let slipped = guess_roles(&heard_late("Brightwatr, yes."), &["Brightwater"]).unwrap();
        assert_eq!((as_written.agent.as_str(), slipped.agent.as_str()), ("speaker_2", "speaker_2"));
        assert!(as_written.confidence > slipped.confidence, "{as_written:?} {slipped:?}");
        let in_two_forms = guess_roles(&heard_late("Brightwatr, bright watr, yes."), &["Brightwater", "bright water"]).unwrap();
        assert_eq!(in_two_forms.confidence, slipped.confidence, "{in_two_forms:?}");
        // A name without a letter or digit is no name.
        assert!(Phrase::named("?!").is_none() && Phrase::named(" ").is_none());
        assert_eq!(Phrase::named("Volt-Dom Energia").unwrap().words, ["volt", "dom", "energia"]);
    }

    #[test]
    fn what_both_sides_say_is_in_no_sides_list() {
        // "z tej strony" opens a caller's turn as often as an agent's, and the caller thanks the
        // agent as the agent thanks the caller.
        let both = [
            SaidTurn::written("a", "Dzień dobry, z tej strony Henryk Sobczak."),
            SaidTurn::written("a", "Dziękuję pani bardzo."),
            SaidTurn::written("a", "Czy może mi pan podać numer?"),
        ];
        let lists = [(AGENT_OPENINGS, 2.0), (AGENT_PHRASES, 1.0), (CUSTOMER_PHRASES, -1.0)];
        for turn in &both {
            assert_eq!(lean_of_turn(turn, &lists), 0.0, "{turn:?}");
        }
    }

    #[test]
    fn without_cues_the_first_speaker_is_a_weak_guess_and_one_speaker_none() {
        let bare = call(&[("a", "Hello."), ("b", "Hello."), ("a", "Yes."), ("b", "Okay.")]);
        let guess = guess_roles(&bare, &[]).unwrap();
        assert_eq!(guess.agent, "a");
        assert!(guess.confidence < 0.65, "{guess:?}");
        assert_eq!(guess_roles(&call(&[("a", "Hello."), ("a", "Anyone?")]), &[]), None);
        assert_eq!(guess_roles(&call(&[("a", "Hi."), ("b", "Hi."), ("c", "Hi.")]), &[]), None);
        // Whole words only: "army orders" is not "my order".
        assert_eq!(lean_of_turn(&SaidTurn::written("a", "The army orders it."), &[(CUSTOMER_PHRASES, -1.0)]), 0.0);
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
        let guess = guess_roles(&turns, &[]).unwrap();
        assert_eq!(guess.agent, "speaker_2");
        assert!(guess.confidence > 0.95, "{guess:?}");
        // A slip per three letters, and only from eight letters: "u wass" is not "u was".
        let agent = lean_of(&[("Romumiem", 0.4), ("pana,", 0.9), ("u", 0.9), ("wass", 0.4)], &[(AGENT_PHRASES, 1.0), (CUSTOMER_PHRASES, -1.0)]);
        assert_eq!(agent, slipped(1, 12));
        // Written text is read only as written.
        assert_eq!(lean_of_turn(&SaidTurn::written("a", "Romumiem pana."), &[(AGENT_PHRASES, 1.0)]), 0.0);
    }

    #[test]
    fn only_words_the_recogniser_was_unsure_of_may_differ_from_a_phrase() {
        let thanks: &[(&[&'static str], f64)] = &[(&["dziekuje pani"], 1.0)];
        // "panu" heard clearly is a thanks to a man, whatever the words beside it.
        assert_eq!(lean_of(&[("Dziękuję", 0.3), ("panu.", 0.3)], thanks), slipped(1, 12));
        assert_eq!(lean_of(&[("Dziękuję", 0.3), ("panu.", 0.9)], thanks), 0.0);
        assert_eq!(lean_of(&[("I", 0.3), ("dziękuję", 0.3), ("panu.", 0.9)], thanks), 0.0);
        // A word of the phrase heard clearly does not stop a slip in the word beside it.
        assert_eq!(lean_of(&[("Dziękuję", 0.9), ("panii.", 0.3)], thanks), slipped(1, 12));
    }

    #[test]
    fn a_run_heard_counts_once_for_the_phrase_nearest_it() {
        // Two variants of one phrase in the same list: one run, one phrase, the nearer one.
        let thanks: &[(&[&'static str], f64)] = &[(&["dziekuje pani", "dziekuje panie"], 1.0)];
        assert_eq!(lean_of(&[("Dziękuję", 0.4), ("paniie.", 0.4)], thanks), slipped(1, 13));
        // One side's phrase a letter off and the other's two: the nearer one takes the run.
        let sides: &[(&[&'static str], f64)] = &[(&["dziekuje pani"], 1.0), (&["dziekuje panu"], -1.0)];
        assert_eq!(lean_of(&[("Dziękuję", 0.4), ("panuu.", 0.4)], sides), -slipped(1, 12));
        assert_eq!(lean_of(&[("Dziękuję", 0.4), ("paniii.", 0.4)], sides), slipped(2, 12));
        // Said word for word, it claims its words before any slip is looked for.
        assert_eq!(lean_of(&[("Dziękuję", 0.4), ("panu.", 0.4)], sides), -1.0);
    }

    #[test]
    fn only_phrases_of_eight_letters_or_more_are_heard_a_slip_off() {
        // "my order" has seven letters, "my parcel" eight: a letter off, unsure.
        assert_eq!(lean_of(&[("my", 0.4), ("ordr", 0.4)], &[(&["my order"], 1.0)]), 0.0);
        assert_eq!(lean_of(&[("my", 0.4), ("parcl", 0.4)], &[(&["my parcel"], 1.0)]), slipped(1, 8));
    }

    #[test]
    fn a_phrase_may_be_heard_joined_or_split_and_in_part_weighs_as_far_as_it_is() {
        let understood: &[(&[&'static str], f64)] = &[(&["rozumiem pana"], 1.0)];
        // Joined into one word, or split into three: the same letters, no slip.
        assert_eq!(lean_of(&[("rozumiempana", 0.4)], understood), 1.0);
        assert_eq!(lean_of(&[("rozu", 0.4), ("miem", 0.4), ("pana", 0.4)], understood), 1.0);
        // Its first word alone is read as written, not as the phrase a third short.
        assert_eq!(lean_of(&[("rozumiem", 0.4)], understood), 0.0);
        // A word heard in part is a slip, as far off as the letters it lacks.
        assert_eq!(lean_of(&[("rozumiem", 0.4), ("pa", 0.4)], understood), slipped(2, 12));
        // Split into one word a letter, far more words than it has, it is not looked for.
        let letters: Vec<(&str, f32)> = ["r", "o", "z", "u", "m", "i", "e", "m", "p", "a", "n", "a"].iter().map(|l| (*l, 0.4)).collect();
        assert_eq!(lean_of(&letters, understood), 0.0);
    }

    #[test]
    fn a_phrase_heard_with_slips_weighs_less_the_more_it_has() {
        let understood: &[(&[&'static str], f64)] = &[(&["rozumiem pana"], 1.0)];
        let one_off = lean_of(&[("Romumiem", 0.4), ("pana", 0.4)], understood);
        let two_off = lean_of(&[("Romumiem", 0.4), ("pama", 0.4)], understood);
        let three_off = lean_of(&[("Rabumiem", 0.4), ("pama", 0.4)], understood);
        assert!(1.0 > one_off && one_off > two_off && two_off > three_off && three_off > 0.0, "{one_off} {two_off} {three_off}");
        // Heard as written, unsure or not, it weighs a whole phrase; a tenth wrong, three quarters.
        assert_eq!(lean_of(&[("Rozumiem", 0.4), ("pana", 0.4)], understood), 1.0);
        let farewell = lean_of(&[("Miłego", 0.4), ("dna", 0.4)], &[(&["milego dnia"], 1.0)]);
        assert!((farewell - 0.75).abs() < 1e-9, "{farewell}");
    }

    #[test]
    fn a_courtesy_heard_unsure_after_the_opening_does_not_make_the_caller_the_agent() {
        // Nothing else said: the first speaker is the weak guess, and the caller's "proszę pana"
        // twice, heard unsure, is no reason to change it.
        let turns = [
            heard("a", "Halo.", 0.9),
            heard("b", "Tak.", 0.9),
            heard("a", "Tak.", 0.9),
            heard("b", "No.", 0.9),
            heard("a", "Dobrze.", 0.9),
            heard("b", "Proszę pana.", 0.4),
            heard("a", "Tak.", 0.9),
            heard("b", "Proszę pana.", 0.4),
        ];
        assert_eq!(guess_roles(&turns, &[]).unwrap().agent, "a");
    }

    #[test]
    fn what_both_sides_say_claims_its_words_for_neither_side() {
        // The caller's "proszę pana" heard unsure is three letters from the agent's "proszę
        // podać": without the courtesies, it would count for the agent.
        let courtesy = [("Proszę", 0.4), ("pana", 0.4)];
        assert_eq!(lean_of(&courtesy, &[(AGENT_PHRASES, 1.0), (CUSTOMER_PHRASES, -1.0)]), slipped(3, 11));
        assert_eq!(lean_of(&courtesy, &[(AGENT_PHRASES, 1.0), (CUSTOMER_PHRASES, -1.0), (BOTH_SIDES_PHRASES, 0.0)]), 0.0);
        // Nor does a courtesy hide a side's phrase said word for word beside it.
        let asked = [("Proszę", 0.4), ("pana,", 0.4), ("poproszę", 0.4), ("o", 0.4), ("numer", 0.4)];
        assert_eq!(lean_of(&asked, &[(AGENT_PHRASES, 1.0), (CUSTOMER_PHRASES, -1.0), (BOTH_SIDES_PHRASES, 0.0)]), 1.0);
    }

    #[test]
    fn a_phrase_counts_once_a_turn_however_often_it_is_heard() {
        let understood: &[(&[&'static str], f64)] = &[(&["rozumiem pana"], 1.0)];
        let twice_off = [("Romumiem", 0.4), ("pana,", 0.9), ("tak,", 0.9), ("rozumiem", 0.9), ("pamna.", 0.4)];
        assert_eq!(lean_of(&twice_off, understood), slipped(1, 12));
        let twice_exactly = [("Rozumiem", 0.9), ("pana,", 0.9), ("tak,", 0.9), ("rozumiem", 0.9), ("pana.", 0.9)];
        assert_eq!(lean_of(&twice_exactly, understood), 1.0);
    }

    #[test]
    fn no_list_holds_a_phrase_twice() {
        // A phrase counts once a turn by its place in its list, so a repeated one would count twice.
        for list in [AGENT_OPENINGS, AGENT_PHRASES, CUSTOMER_PHRASES, BOTH_SIDES_PHRASES] {
            let distinct: HashSet<&str> = list.iter().copied().collect();
            assert_eq!(distinct.len(), list.len(), "a phrase repeated in {list:?}");
        }
        // What both sides say is in no side's list.
        for phrase in BOTH_SIDES_PHRASES {
            assert!(![AGENT_OPENINGS, AGENT_PHRASES, CUSTOMER_PHRASES].iter().any(|list| list.contains(phrase)), "{phrase}");
        }
    }
}
