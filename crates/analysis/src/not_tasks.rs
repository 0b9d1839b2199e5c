//! What looks like a commitment or a request and is not an action item: a task is something to
//! be done after the call by a party of the call. Each rule here is a kind of sentence that the
//! extraction (and a model's candidates) would otherwise take:
//!
//! - done during the call: "let me read that back", "zaraz to sprawdzę", "I'll update it now";
//! - a request for data answered in the call: "could you give me your postcode", "proszę podać
//!   numer PESEL";
//! - an offer or a question that was not accepted: "would you like to pay by card?", "czy mam
//!   wysłać fakturę?" (when the other party says yes, it is the offerer's task);
//! - a state or a feeling: "I thought I'd have to chase it for a week", "myślałam, że będę się z
//!   tym użerać";
//! - something automatic: "you'll get a confirmation text", "system sam naliczy";
//! - the past: "I've already sent it", "już wysłałam";
//! - someone's words quoted: "'Someone will call you back.' Nobody did."
//!
//! Both the rules engine and the guided model's candidates go through them.

use crate::text::fold;

/// Why a sentence holds no task, or `None` when it may.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum NotATask {
    DoneDuringTheCall,
    DataRequest,
    Offer,
    StateOrFeeling,
    Automatic,
    Past,
    /// Someone's words quoted: "'Someone will call you back.' Nobody did."
    Quoted,
}

/// Words of a text, folded.
fn words(text: &str) -> Vec<String> {
    fold(text).split(|c: char| !c.is_alphanumeric()).filter(|w| !w.is_empty()).map(str::to_owned).collect()
}

fn has_seq(words: &[String], seq: &[&str]) -> bool {
    words.windows(seq.len()).any(|w| w.iter().zip(seq).all(|(a, b)| a == b))
}

fn has_any(words: &[String], list: &[&str]) -> bool {
    words.iter().any(|w| list.contains(&w.as_str()))
}

/// Markers of "now, while we talk".
const NOW: &[&[&str]] = &[
    &["right", "now"],
    &["now"],
    &["straight", "away"],
    &["one", "moment"],
    &["just", "a", "moment"],
    &["just", "a", "second"],
    &["bear", "with", "me"],
    &["zaraz"],
    &["teraz"],
    &["w", "tej", "chwili"],
    &["od", "razu"],
    &["momencik"],
    &["chwileczke"],
    &["moment"],
];

/// Verbs of what an agent does at the keyboard while the customer waits.
const AT_THE_KEYBOARD: &[&str] = &[
    "check", "look", "update", "change", "add", "note", "read", "confirm", "pull", "open", "find", "search", "see", "verify", "sprawdze",
    "sprawdzimy", "sprawdzam", "zaktualizuje", "zmienie", "dodam", "zanotuje", "odczytam", "wyszukam", "poszukam", "zobacze", "zerkne", "potwierdze",
    "przeczytam", "powtorze", "zweryfikuje",
];

/// Handing the caller on within the call, or holding something while they wait.
const IN_THE_CALL: &[&[&str]] = &[
    &["put", "a", "hold", "on"],
    &["put", "you", "through"],
    &["put", "you", "on", "hold"],
    &["pass", "you", "over"],
    &["pass", "you", "to"],
    &["transfer", "you"],
    &["put", "someone"],
    &["put", "him", "on"],
    &["put", "her", "on"],
];

/// Polish verbs of looking something up while the caller waits.
/// ("zweryfikuje" is not one: folded, it is also the third person, "dział zweryfikuje".)
const PL_AT_THE_KEYBOARD: &[&str] = &["sprawdze", "sprawdzimy", "zobacze", "zerkne", "poszukam", "wyszukam"];

/// Polish words that put a look-up off until after the call or promise its result.
const PL_LATER: &[&str] = &[
    "oddzwonie", "oddzwonimy", "oddzwoni", "odezwe", "odezwiemy", "dam", "damy", "poinformuje", "poinformujemy", "mailem", "wysle", "wyslemy",
    "przesle", "przeslemy", "jutro", "pozniej", "potem", "przekaze", "przekazemy", "napisze", "napiszemy", "wroce", "wrocimy",
];

/// Words that put something off until after the call.
const LATER: &[&str] =
    &["later", "tomorrow", "after", "week", "monday", "tuesday", "wednesday", "thursday", "friday", "email", "post", "send", "will", "ll"];

/// Verbs that ask for data.
const ASK_FOR_DATA: &[&str] = &[
    "give", "tell", "spell", "repeat", "read", "confirm", "provide", "podac", "podaj", "przeliterowac", "powtorzyc", "potwierdzic", "przedyktowac",
    "powiedziec",
];

/// How a request to the other party opens.
const ASKING: &[&[&str]] =
    &[&["could", "you"], &["can", "you"], &["would", "you"], &["czy", "moze"], &["moge", "prosic"], &["czy", "moglby"], &["czy", "moglaby"]];

/// What data is asked for.
const DATA: &[&str] = &[
    "name", "surname", "address", "postcode", "number", "date", "birth", "email", "details", "reference", "account", "pesel", "nazwisko", "imie",
    "adres", "kod", "numer", "numeru", "date", "urodzenia", "maila", "email", "dane", "konta", "polisy", "umowy",
];

/// Data said aloud in the call, not a document to send ("umowy", "account statements").
const SAID_DATA: &[&str] = &[
    "name", "surname", "address", "postcode", "number", "date", "birth", "pesel", "nazwisko", "imie", "adres", "kod", "numer", "numeru", "urodzenia",
];

/// Words that send something after the call.
const SENDING: &[&str] = &["send", "email", "post", "upload", "wyslac", "przeslac", "odeslac", "mailem"];

/// How offers and questions open.
const OFFERS: &[&[&str]] = &[
    &["would", "you", "like"],
    &["do", "you", "want"],
    &["shall", "i"],
    &["should", "i"],
    &["do", "you", "need", "me"],
    &["czy", "chce"],
    &["czy", "chcialby"],
    &["czy", "chcialaby"],
    &["czy", "chcieliby"],
    &["czy", "mam"],
    &["czy", "zyczy"],
    &["czy", "wyslac"],
    &["czy", "przeslac"],
    &["moze", "wyslac"],
];

/// Answers that accept an offer.
const ACCEPT: &[&str] =
    &["yes", "yeah", "yep", "please", "sure", "ok", "okay", "tak", "poprosze", "chetnie", "dobrze", "prosze", "jasne", "oczywiscie"];

/// Thoughts and feelings that hold a promise-like clause ("I thought I'd…", "bałam się, że…").
const THOUGHTS: &[&str] = &[
    "thought", "worried", "feared", "hoped", "felt", "assumed", "myslalam", "myslalem", "balam", "balem", "obawiam", "obawialam", "sadzilam",
    "sadzilem", "spodziewalam", "spodziewalem", "liczylam", "liczylem",
];

/// Things no party does.
const AUTOMATIC: &[&[&str]] = &[
    &["automatically"],
    &["automatic"],
    &["automatycznie"],
    &["automatyczny"],
    &["automatyczne"],
    &["automatyczna"],
    &["the", "system", "will"],
    &["system", "sam"],
    &["system", "wysle"],
    &["you", "ll", "get", "a", "text"],
    &["you", "ll", "receive", "a", "text"],
    &["you", "ll", "get", "an", "email"],
    &["you", "ll", "get", "a", "confirmation"],
    &["you", "ll", "receive", "a", "confirmation"],
    &["dostanie", "pan", "sms"],
    &["dostanie", "pani", "sms"],
    &["przyjdzie", "sms"],
    &["przyjdzie", "mail"],
];

/// Exclamations shaped like a request ("Would you look at that!"): nobody is asked anything.
/// Comfort ("Take a breath, we'll sort this") is no task either.
const EXCLAMATIONS: &[&[&str]] = &[
    &["would", "you", "look", "at", "that"],
    &["would", "you", "believe", "it"],
    &["would", "you", "believe", "that"],
    &["take", "a", "breath"],
    &["take", "a", "deep", "breath"],
];

/// Past participles of sending or doing a thing for a caller ("I've just emailed it").
const DONE_FORMS: &[&str] =
    &["sent", "emailed", "posted", "texted", "forwarded", "uploaded", "issued", "raised", "generated", "attached", "done", "resent", "updated"];
/// Polish past forms of the same, by their start (folded: "wysłałam", "przesłałem", "zrobiłam").
const PL_DONE_FORMS: &[&str] = &["wyslal", "przeslal", "zrobil", "wystawil", "zalaczyl", "dolaczyl", "zaktualizowal", "wprowadzil"];

/// Whether an answer says the thing asked for was done there and then: "I've just emailed it to
/// the address on your account", "Właśnie wysłałam", "Już wysłałem". A promise ("I'll send it
/// now") is not: it may still wait for after the call, nor an answer that promises beside it
/// ("I've just sent the form, and I'll post the card").
fn done_at_once(answer: &[String]) -> bool {
    if has_any(answer, &["ll", "will", "wysle", "wyslemy", "przesle", "przeslemy"]) {
        return false;
    }
    let english = answer.windows(3).any(|x| matches!(x[0].as_str(), "ve" | "have") && x[1] == "just" && DONE_FORMS.contains(&x[2].as_str()));
    let polish = answer.windows(2).any(|x| matches!(x[0].as_str(), "wlasnie" | "juz") && PL_DONE_FORMS.iter().any(|f| x[1].starts_with(f)));
    english || polish
}

/// Why `sentence` (said by the speaker, with the other party's next turn `answer`) is no task.
pub fn not_a_task(sentence: &str, answer: Option<&str>) -> Option<NotATask> {
    // An opening quote hugs its first word; a closing quote left at the start of the next
    // sentence by the split ("He said "fine." I'll send it") stands apart from it.
    let quotes = ['\'', '"', '„', '“', '”', '‘', '’', '«', '»'];
    let mut chars = sentence.trim_start().chars();
    let opens = chars.next().is_some_and(|c| quotes.contains(&c)) && chars.next().is_some_and(char::is_alphanumeric);
    if opens {
        return Some(NotATask::Quoted);
    }
    let w = words(sentence);
    if AUTOMATIC.iter().any(|p| has_seq(&w, p)) {
        return Some(NotATask::Automatic);
    }
    // The whole sentence, or its end: "Would you look at that invoice again" asks something.
    // "Take a breath" opens its sentence.
    let exclaims = |p: &&[&str]| {
        let p: Vec<String> = p.iter().map(|x| (*x).to_owned()).collect();
        w.ends_with(&p) || (p[0] == "take" && w.starts_with(&p))
    };
    if EXCLAMATIONS.iter().any(exclaims) {
        return Some(NotATask::StateOrFeeling);
    }
    // "Yes please, let's do that": taking up the other party's offer, which holds the task
    // (only when it ends the sentence: "Let's do that then — I'll email you the form" promises).
    if ["that", "it", "this"].iter().any(|o| w.ends_with(&["let".to_owned(), "s".to_owned(), "do".to_owned(), (*o).to_owned()])) {
        return Some(NotATask::Offer);
    }
    if has_any(&w, &["already", "juz"])
        && (has_any(&w, &["ve", "have", "has", "had"]) || w.iter().any(|x| x.ends_with("lem") || x.ends_with("lam") || x.ends_with("ed")))
    {
        return Some(NotATask::Past);
    }
    if has_any(&w, THOUGHTS) {
        return Some(NotATask::StateOrFeeling);
    }
    // Asked of the other party ("could you confirm your address"), not promised ("I'll confirm
    // your new address in writing").
    let asks = has_any(&w, &["please", "prosze", "poprosze", "podaj"]) || ASKING.iter().any(|p| has_seq(&w, p));
    if asks && has_any(&w, ASK_FOR_DATA) && has_any(&w, DATA) && !has_any(&w, &["send", "email", "post", "wyslac", "przeslac", "odeslac"]) {
        return Some(NotATask::DataRequest);
    }
    // "Can you send me that in writing?" answered "I've just emailed it to you": done while the
    // caller waits.
    // Only a request to the other party: "please" alone also ends promises ("I'll post the card
    // tomorrow, please check the address").
    let asks_them = ASKING.iter().any(|p| has_seq(&w, p)) || has_seq(&w, &["prosze", "przeslac"]) || has_seq(&w, &["prosze", "wyslac"]);
    if asks_them && answer.map(words).is_some_and(|a| done_at_once(&a)) {
        return Some(NotATask::DoneDuringTheCall);
    }
    // "Potrzebuję numer dokumentu", "I need your date of birth": the data itself, given in the
    // call (not "potrzebuję skanu", a thing to send).
    let needs_data = w.windows(2).any(|x| matches!(x[0].as_str(), "potrzebuje" | "potrzebujemy") && SAID_DATA.contains(&x[1].as_str()))
        || w.windows(3).any(|x| x[0] == "need" && x[1] == "your" && SAID_DATA.contains(&x[2].as_str()));
    if needs_data && !has_any(&w, SENDING) {
        return Some(NotATask::DataRequest);
    }
    // "I'll put you through to the keypad", "I'll pass you to billing": the call moves on;
    // "I'll put a hold on the cancellation now": done as said.
    if IN_THE_CALL.iter().any(|p| has_seq(&w, p)) {
        return Some(NotATask::DoneDuringTheCall);
    }
    let now = NOW.iter().any(|p| has_seq(&w, p));
    if now && has_any(&w, AT_THE_KEYBOARD) {
        return Some(NotATask::DoneDuringTheCall);
    }
    // "Let me read that back", "let me look": said and done while the other party waits, unless
    // the sentence puts something off ("let me check with billing and call you back tomorrow").
    let let_me = w.windows(3).any(|x| x[0] == "let" && x[1] == "me" && AT_THE_KEYBOARD.contains(&x[2].as_str()));
    // "Back" alone is no delay ("read that back"); "call you back" is.
    if let_me && !has_any(&w, LATER) && !has_seq(&w, &["you", "back"]) {
        return Some(NotATask::DoneDuringTheCall);
    }
    // "Sprawdzę to", "Sprawdzę polisę", "Zweryfikuję pana": the Polish agent's "let me check",
    // done while the caller waits, unless the sentence puts something off ("sprawdzę i
    // oddzwonię", "sprawdzę to do jutra").
    // Another first-person verb makes the look-up part of a task ("Sprawdzę to i wystawię
    // korektę", "…jak wrócę z pracy").
    let checks = w.iter().any(|x| PL_AT_THE_KEYBOARD.contains(&x.as_str()));
    let another_verb = w.iter().any(|x| crate::actions::PL_PROMISE.contains(&x.as_str()) && !PL_AT_THE_KEYBOARD.contains(&x.as_str()));
    if checks && !another_verb && !has_any(&w, PL_LATER) && callscope_text::temporal::deadlines(sentence).is_empty() {
        return Some(NotATask::DoneDuringTheCall);
    }
    if OFFERS.iter().any(|p| has_seq(&w, p)) {
        let accepted = answer.map(words).and_then(|a| a.first().cloned()).is_some_and(|first| ACCEPT.contains(&first.as_str()));
        if !accepted {
            return Some(NotATask::Offer);
        }
    }
    None
}

/// Whether `sentence` is an offer ("would you like me to send…"): when accepted, the task is
/// the offerer's, not the other party's.
pub fn is_offer(sentence: &str) -> bool {
    let w = words(sentence);
    OFFERS.iter().any(|p| has_seq(&w, p))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_kind_of_non_task_is_told() {
        let cases = [
            ("Let me just check that for you right now.", None, Some(NotATask::DoneDuringTheCall)),
            ("Zaraz to sprawdzę w systemie.", None, Some(NotATask::DoneDuringTheCall)),
            ("Let me read that back to you.", None, Some(NotATask::DoneDuringTheCall)),
            ("Could you give me your postcode, please?", None, Some(NotATask::DataRequest)),
            ("Proszę podać numer PESEL.", None, Some(NotATask::DataRequest)),
            ("Potrzebuję numer dokumentu tożsamości z nowym nazwiskiem.", None, Some(NotATask::DataRequest)),
            ("I need your date of birth as well.", None, Some(NotATask::DataRequest)),
            ("Would you like to pay by card?", Some("No, by transfer."), Some(NotATask::Offer)),
            ("Czy mam wysłać fakturę mailem?", Some("Nie trzeba."), Some(NotATask::Offer)),
            ("I thought I'd have to chase it for a week.", None, Some(NotATask::StateOrFeeling)),
            ("Myślałam, że będę się z tym użerać tydzień.", None, Some(NotATask::StateOrFeeling)),
            ("You'll get a confirmation text automatically.", None, Some(NotATask::Automatic)),
            ("I've already sent the form.", None, Some(NotATask::Past)),
            ("Już wysłałam formularz.", None, Some(NotATask::Past)),
            ("Sprawdzę to, panie Kazimierzu.", None, Some(NotATask::DoneDuringTheCall)),
            ("I'll put you through to our secure keypad now for the three digits.", None, Some(NotATask::DoneDuringTheCall)),
            ("I'll put a hold on the cancellation now.", None, Some(NotATask::DoneDuringTheCall)),
            ("Can you put someone from the admissions desk on for a minute?", None, Some(NotATask::DoneDuringTheCall)),
            ("Sprawdzę, co mogę zaproponować.", None, Some(NotATask::DoneDuringTheCall)),
            // Annotated so in the tuning calls: a look-up that names no later step.
            ("Sprawdzę, kiedy będzie technik.", None, Some(NotATask::DoneDuringTheCall)),
            // Tuning calls (tune3): asked and done before the caller hangs up, and an exclamation.
            (
                "Can you send me that in writing?",
                Some("I'm generating it now... and I've just emailed it to the address on your account. Can you see it?"),
                Some(NotATask::DoneDuringTheCall),
            ),
            ("Czy może pani przesłać mi to mailem?", Some("Właśnie wysłałam, proszę sprawdzić skrzynkę."), Some(NotATask::DoneDuringTheCall)),
            ("Would you look at that.", None, Some(NotATask::StateOrFeeling)),
            ("Take a breath, we'll sort this.", None, Some(NotATask::StateOrFeeling)),
            ("'Someone will call you back.'", None, Some(NotATask::Quoted)),
            ("Yes please, let's do that.", None, Some(NotATask::Offer)),
            ("„Technik oddzwoni jutro”, tak mi powiedzieli.", None, Some(NotATask::Quoted)),
        ];
        for (sentence, answer, want) in cases {
            assert_eq!(not_a_task(sentence, answer), want, "{sentence}");
        }
    }

    #[test]
    fn tasks_stay_tasks() {
        for (sentence, answer) in [
            ("I'll send you the form by Friday.", None),
            ("Could you email us a photo of the damage?", None),
            ("Would you like me to send the contract by email?", Some("Yes, please.")),
            ("Czy mam wysłać fakturę mailem?", Some("Tak, poproszę.")),
            ("I'm raising a refund for the duplicate right now, and you'll have it back within five working days.", None),
            ("Proszę przesłać skan dowodu do piątku.", None),
            ("I'll email you your account details today.", None),
            ("I'll confirm your new address in writing by Friday.", None),
            ("I'm afraid I'll have to send an engineer on Monday.", None),
            ("Let me check with billing and call you back tomorrow.", None),
            ("Sprawdzę to z działem technicznym i oddzwonię.", None),
            ("Sprawdzę to do piątku.", None),
            ("Sprawdzę to i wystawię korektę faktury.", None),
            ("Once it's in, I'll put the refund for April through.", None),
            ("Sprawdzę to w piwnicy, jak wrócę z pracy.", None),
            ("Sprawdzimy to i zwrócimy pieniądze.", None),
            ("Dział reklamacji zweryfikuje zgłoszenie i skontaktuje się z panem.", None),
            ("Potrzebuję jeszcze skanu odpisu aktu małżeństwa.", None),
            ("I need your signature on the form by Friday.", None),
            ("Potrzebujemy umowy najmu do końca tygodnia.", None),
            ("I need your account statements for the last three months.", None),
            // Answered with a promise, or with something done earlier: the request still stands.
            ("Can you send me that in writing?", Some("Sure, I'll email it over this afternoon.")),
            ("Could you email me the policy wording?", Some("Yes, I've just checked and it's not on file.")),
            ("I'll post the new card tomorrow, please check the address.", Some("Oh, I've just moved, actually.")),
            ("Czy może pani przesłać kopię polisy?", Some("Już mówiłam, że system nie działa.")),
            ("Would you look at that invoice again and confirm the total?", None),
            ("Let's do that then — I'll email you the form today.", None),
            // What the sentence split leaves after `My husband said "fine."`.
            ("\" I'll send the form tomorrow.", None),
            ("Would you look at the meter reading I sent?", None),
        ] {
            assert_eq!(not_a_task(sentence, answer), None, "{sentence}");
        }
    }
}
