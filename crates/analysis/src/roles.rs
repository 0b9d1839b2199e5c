//! Who is the agent: on a call whose speakers have no roles (a mono recording told apart by
//! voice, or stereo without `channel_roles` or a default preset), the speaker who talks like the
//! company's side. An agent opens with the company's greeting and their name, asks the
//! questions that identify the caller, says what they will do and closes the call; a customer
//! says why they call and what they want. Each turn's phrases score its speaker; the agent is
//! the speaker with the higher score, and the confidence grows with the difference.
//!
//! The phrases were written from how contact-centre calls go in English and Polish, then
//! widened by the misses on the corpora's tune calls (never the held-out ones);
//! `examples/roles_quality.rs` measures them.

use callscope_text::fold;

/// How much speaking first says: inbound calls are answered by the agent, but outbound calls
/// and recordings that start late are not, so the words outweigh it.
const FIRST_SPEAKER_WEIGHT: f64 = 0.5;
/// Only the first turns carry the greeting.
const OPENING_TURNS: usize = 2;

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

/// Folded words joined by single spaces, between spaces, so that a phrase matches whole words
/// only ("my order" in " my order ", not in "army orders").
fn padded_words(text: &str) -> String {
    let folded = fold(text);
    let words: Vec<&str> = folded.split(|c: char| !c.is_alphanumeric()).filter(|w| !w.is_empty()).collect();
    format!(" {} ", words.join(" "))
}

fn count(text: &str, phrases: &[&str]) -> usize {
    phrases.iter().filter(|p| text.contains(&format!(" {p} "))).count()
}

/// Which of the two speakers of `turns` (`(speaker, text)` in order) is the agent; `None` unless
/// there are exactly two.
pub fn guess_roles(turns: &[(String, String)]) -> Option<RoleGuess> {
    let mut speakers: Vec<&str> = Vec::new();
    for (speaker, _) in turns {
        if !speakers.contains(&speaker.as_str()) {
            speakers.push(speaker);
        }
    }
    let [first, second] = speakers[..] else { return None };
    // Each speaker's lean towards the agent's side: positive is agent-like.
    let mut lean = [FIRST_SPEAKER_WEIGHT, 0.0];
    let mut turns_seen = [0usize, 0];
    for (speaker, text) in turns {
        let who = usize::from(speaker != first);
        let words = padded_words(text);
        let mut score = count(&words, AGENT_PHRASES) as f64 - count(&words, CUSTOMER_PHRASES) as f64;
        if turns_seen[who] < OPENING_TURNS {
            score += 2.0 * count(&words, AGENT_OPENINGS) as f64;
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

    fn call(lines: &[(&str, &str)]) -> Vec<(String, String)> {
        lines.iter().map(|(s, t)| ((*s).to_owned(), (*t).to_owned())).collect()
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
        assert_eq!(count(&padded_words("The army orders it."), CUSTOMER_PHRASES), 0);
    }
}
