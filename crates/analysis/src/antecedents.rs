//! What "it" and "them" stand for in an English action item. "Email them over tonight" and
//! "Upload it this evening" tell a supervisor nothing on their own; the call said what: "could
//! you send us the photos", "we need a copy of the marriage certificate", "I've got the visa
//! letter". The item's words name it ("Email the photos over tonight"); its evidence keeps the
//! words as said.
//!
//! Deliberately narrow, since a wrong name misleads more than a pronoun: only the object of a
//! verb of handing something over ("send it", "upload them"; not "call them", which is people),
//! replaced by a noun phrase led by a determiner ("the", "a", "your"…) that agrees in number and
//! ends where a phrase ends, taken from the sentence just before the item in its own turn, else
//! from what was asked for ("need", "send us", "upload"…) in its turn or the two before it, else
//! from the last sentence of the turn before unless that is a question.
//!
//! Polish has no articles to find a noun phrase by, and its nouns change with their case, so a
//! Polish item keeps its words and gains the document it speaks of in brackets, named in the
//! dictionary form: "Wyślę je (wypowiedzenie) w poniedziałek" after "Wypowiedzenie musi być
//! złożone na piśmie", "Do piętnastego zapłacę (rata)" after "pierwszą ratę proszę opłacić".
//! Only documents and dues of a short list, only when the pronoun agrees with the noun ("ją" a
//! feminine one, "go" a masculine or neuter one, "je" a neuter one or many), and only after a
//! verb of sending or paying.

use crate::text::fold;

/// Pronouns that stand for a thing to be sent, signed or done.
const PRONOUNS: &[&str] = &["it", "one", "them", "those", "these"];
/// What a thing is got done with after "get" ("I'll get one sent out to you").
const GOT_DONE: &[&str] = &["sent", "posted", "signed", "delivered", "done", "emailed", "printed"];
/// Verbs of handing a thing over, whose pronoun object is a thing ("call them" is people).
const HANDING: &[&str] = &[
    "send", "email", "e-mail", "upload", "post", "forward", "sign", "return", "get", "bring", "drop", "scan", "fill", "complete", "submit", "share",
    "print", "pop", "attach", "text", "fax", "resend", "mail", "deliver", "hand", "give", "pass", "take",
];
/// Words that lead a noun phrase.
const DETERMINERS: &[&str] = &["the", "a", "an", "your", "my", "our", "his", "her", "their"];
/// Verbs whose object is the thing asked for.
const ASKING_VERBS: &[&str] = &["need", "needs", "send", "email", "upload", "provide", "post", "return", "sign", "forward", "want"];
/// Words read past between an asking verb and its object ("send us the", "need in a").
const BETWEEN: &[&str] = &["us", "me", "you", "him", "her", "in", "over", "through", "back", "also", "just", "still", "across", "is"];
/// Words that end a noun phrase: function words, and the starts of clauses.
const ENDS: &[&str] = &[
    "and", "or", "but", "so", "to", "for", "by", "with", "on", "in", "at", "from", "into", "as", "if", "before", "after", "when", "while", "that",
    "which", "who", "is", "are", "was", "were", "be", "been", "will", "would", "can", "could", "should", "has", "have", "had", "it", "its", "i",
    "we", "you", "they", "he", "she", "this", "these", "those", "then", "now", "please", "yes", "no", "not", "there", "here", "today", "tomorrow",
    "tonight", "within", "until", "about", "because", "the", "a", "an", "your", "my", "our", "his", "her", "their", "me", "us", "them", "just",
    "also", "up", "through", "over", "back", "out", "off", "away", "straight", "down", "again", "than", "like",
];
/// Words after a pronoun that make it the subject of a clause.
const SUBJECT_OF: &[&str] = &["is", "was", "will", "would", "has", "had", "does", "are", "were", "can", "could", "should", "might", "may", "did"];
/// Nouns that lead to what they hold ("a copy of the certificate", "photos of the damage").
const CONTAINERS: &[&str] =
    &["copy", "copies", "scan", "scans", "photo", "photos", "picture", "pictures", "proof", "letter", "statement", "statements"];
/// Heads that name no thing to hand over.
const NOT_THINGS: &[&str] = &[
    "moment", "minute", "minutes", "second", "seconds", "day", "days", "week", "weeks", "month", "months", "year", "years", "time", "way", "thing",
    "things", "bit", "lot", "end", "start", "morning", "afternoon", "evening", "night", "weekend", "call", "line", "problem", "issue", "question",
];
/// The most content words a noun phrase holds, determiner not counted.
const LONGEST: usize = 4;

/// A word of a text and where it stands.
struct Word {
    start: usize,
    end: usize,
    folded: String,
    /// Whether it is followed, past spaces, by a mark that ends a phrase (a comma, a dash).
    broken_after: bool,
}

fn words(text: &str) -> Vec<Word> {
    let mut out = Vec::new();
    let mut start = None;
    for (i, c) in text.char_indices().chain(std::iter::once((text.len(), ' '))) {
        // An apostrophe inside a word keeps it whole ("it's" is not "it").
        let inside = c.is_alphanumeric() || c == '-' || (c == '\'' || c == '’') && start.is_some();
        match (inside, start) {
            (true, None) => start = Some(i),
            (false, Some(s)) => {
                let rest = text[i..].trim_start();
                let broken_after = rest.starts_with([',', ';', ':', '.', '!', '?', '—', '–', '(']) || rest.starts_with("- ");
                out.push(Word { start: s, end: i, folded: fold(&text[s..i]), broken_after });
                start = None;
            }
            _ => {}
        }
    }
    out
}

/// Whether a noun's form is plural ("photos", "receipts"; not "glass", "address").
fn plural(head: &str) -> bool {
    head.ends_with('s') && !head.ends_with("ss") && !head.ends_with("us") && !head.ends_with("is")
}

/// The noun phrase that starts at word `at`, as (start, end, head): led by a determiner, or
/// (with `bare`) by a noun that holds things ("photos of the damage"); `None` unless it names a
/// thing.
fn phrase_at(ws: &[Word], at: usize, bare: bool) -> Option<(usize, usize, String)> {
    let first = ws.get(at)?;
    let led = DETERMINERS.contains(&first.folded.as_str());
    if !(led || bare && CONTAINERS.contains(&first.folded.as_str())) || first.broken_after && led {
        return None;
    }
    let mut end = at;
    let mut content = 0;
    let mut i = at + usize::from(led);
    while let Some(w) = ws.get(i) {
        // A contraction ("doesn't", "we'll") is a verb's, and so, after a noun, is a word in
        // "-ing" or "-ed" ("the router dropping"): the phrase has ended.
        let contracted = w.folded.contains(['\'', '’']);
        let verb_like = content > 0 && (w.folded.ends_with("ing") || w.folded.ends_with("ed"));
        if i > at
            && (ENDS.contains(&w.folded.as_str()) || contracted || verb_like || w.folded.chars().all(|c| c.is_ascii_digit()) || content == LONGEST)
        {
            break;
        }
        end = i;
        content += 1;
        if w.broken_after {
            break;
        }
        // "a copy of the marriage certificate": through "of" to what the copy is of.
        if CONTAINERS.contains(&w.folded.as_str()) && ws.get(i + 1).is_some_and(|n| n.folded == "of") {
            // The copies' number is the phrase's: "photos of the damage" are "them".
            if let Some((_, of_end, _)) = phrase_at(ws, i + 2, false) {
                return Some((first.start, of_end, w.folded.clone()));
            }
            break;
        }
        i += 1;
    }
    // Only a phrase that ends where phrases end: at a mark, a function word or the text's end
    // ("The router keeps dropping out" names no thing, and is not taken as one).
    let bounded = ws[end].broken_after || ws.get(end + 1).is_none_or(|next| ENDS.contains(&next.folded.as_str()));
    if content == 0 || !bounded {
        return None;
    }
    let head = ws[end].folded.clone();
    (!NOT_THINGS.contains(&head.as_str())).then(|| (first.start, ws[end].end, head))
}

/// The phrases asked for in `text` ("we need a copy of the certificate": "a copy of the
/// certificate"), in order.
fn asked_for(text: &str) -> Vec<(&str, String)> {
    let ws = words(text);
    let mut out = Vec::new();
    for (i, w) in ws.iter().enumerate() {
        if !ASKING_VERBS.contains(&w.folded.as_str()) || w.broken_after {
            continue;
        }
        let mut at = i + 1;
        while ws.get(at).is_some_and(|n| BETWEEN.contains(&n.folded.as_str()) && !n.broken_after) {
            at += 1;
        }
        out.extend(phrase_at(&ws, at, true).map(|(start, end, head)| (&text[start..end], head)));
    }
    out
}

/// Every noun phrase of `text` led by a determiner, in order, but for places ("I'm not at the
/// shop", "in the app"): a thing to hand over is no preposition's.
fn phrases(text: &str) -> Vec<(&str, String)> {
    let ws = words(text);
    (0..ws.len())
        .filter(|&i| i == 0 || !PLACES.contains(&ws[i - 1].folded.as_str()))
        .filter_map(|i| phrase_at(&ws, i, false))
        .map(|(start, end, head)| (&text[start..end], head))
        .collect()
}

/// Prepositions of place and way.
const PLACES: &[&str] = &["at", "in", "on", "into", "onto", "inside", "near", "from", "through", "via"];

/// `description` with the first pronoun that is the object of a verb of handing over replaced
/// by what it stands for, when the call says so plainly. `before` is what was said before the
/// item: the sentences of its own turn before it (nearest last), and `earlier` the two turns
/// before that (nearest last).
pub fn name_the_object(description: &str, before: &[&str], earlier: &[&str]) -> Option<String> {
    let ws = words(description);
    // The first pronoun that is the object of a verb of handing over ("get it to you", "send
    // them"), not the subject of what follows ("…, it is urgent"), nor "those" of "those photos".
    let (_, pronoun) = ws.iter().enumerate().skip(1).find(|&(k, w)| {
        PRONOUNS.contains(&w.folded.as_str())
            && HANDING.contains(&ws[k - 1].folded.as_str())
            && !ws[k - 1].broken_after
            && ws.get(k + 1).is_none_or(|next| {
                w.broken_after || ENDS.contains(&next.folded.as_str()) || ws[k - 1].folded == "get" && GOT_DONE.contains(&next.folded.as_str())
            })
            && !ws.get(k + 1).is_some_and(|next| SUBJECT_OF.contains(&next.folded.as_str()))
    })?;
    let wants_plural = !matches!(pronoun.folded.as_str(), "it" | "one");
    let said = fold(description);
    // Agreeing in number, and not a thing the item names already ("pop it in the bag").
    let fits = |(_, head): &(&str, String)| plural(head) == wants_plural && !said.split(|c: char| !c.is_alphanumeric()).any(|w| w == head);
    // The sentence just before in the item's turn; then what was asked for, nearest first; then
    // the last sentence of the turn before, unless it asks something ("And if the temp money
    // doesn't come?" names no thing to be done).
    let just_before = || before.last().and_then(|s| phrases(s).into_iter().find(fits));
    let asked = || before.iter().rev().chain(earlier.iter().rev()).flat_map(|t| asked_for(t).into_iter().rev()).find(fits);
    let last_said = earlier.last().and_then(|turn| crate::text::sentences(turn).last().copied()).filter(|s| !s.ends_with('?'));
    let named_last = || last_said.and_then(|s| phrases(s).into_iter().find(fits));
    let (phrase, _) = just_before().or_else(asked).or_else(named_last)?;
    // "Send a copy of the form" reads as the item: "the" for what was asked as "a"/"your", and
    // for a bare "photos of the damage"; a phrase that opened its sentence loses its capital.
    let phrase = match phrase.split_once(' ').map(|(det, rest)| (fold(det), det, rest)) {
        Some((det, _, rest)) if matches!(det.as_str(), "a" | "an" | "your" | "my" | "our") => format!("the {rest}"),
        Some((det, _, rest)) if DETERMINERS.contains(&det.as_str()) => format!("{det} {rest}"),
        _ => format!("the {phrase}"),
    };
    Some(format!("{}{phrase}{}", &description[..pronoun.start], &description[pronoun.end..]))
}

/// The gender of a Polish noun, which its pronoun must agree with.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Gender {
    Masculine,
    Feminine,
    Neuter,
}

/// Documents a Polish call asks to be sent: the start of their folded forms, the dictionary
/// form, its plural and gender.
const PL_DOCUMENTS: &[(&str, &str, &str, Gender)] = &[
    ("wypowiedzen", "wypowiedzenie", "wypowiedzenia", Gender::Neuter),
    ("potwierdzen", "potwierdzenie", "potwierdzenia", Gender::Neuter),
    ("zaswiadczen", "zaświadczenie", "zaświadczenia", Gender::Neuter),
    ("oswiadczen", "oświadczenie", "oświadczenia", Gender::Neuter),
    ("upowaznien", "upoważnienie", "upoważnienia", Gender::Neuter),
    ("pelnomocnictw", "pełnomocnictwo", "pełnomocnictwa", Gender::Neuter),
    ("zdjec", "zdjęcie", "zdjęcia", Gender::Neuter),
    ("formularz", "formularz", "formularze", Gender::Masculine),
    ("wniosek", "wniosek", "wnioski", Gender::Masculine),
    ("wniosk", "wniosek", "wnioski", Gender::Masculine),
    ("paragon", "paragon", "paragony", Gender::Masculine),
    ("rachunek", "rachunek", "rachunki", Gender::Masculine),
    ("rachunk", "rachunek", "rachunki", Gender::Masculine),
    ("raport", "raport", "raporty", Gender::Masculine),
    ("protokol", "protokół", "protokoły", Gender::Masculine),
    ("aneks", "aneks", "aneksy", Gender::Masculine),
    ("dokument", "dokument", "dokumenty", Gender::Masculine),
    ("skan", "skan", "skany", Gender::Masculine),
    ("umow", "umowa", "umowy", Gender::Feminine),
    ("polis", "polisa", "polisy", Gender::Feminine),
    ("faktur", "faktura", "faktury", Gender::Feminine),
    ("korekt", "korekta", "korekty", Gender::Feminine),
    ("kopi", "kopia", "kopie", Gender::Feminine),
    ("akt", "akt", "akty", Gender::Masculine),
    ("zrzut", "zrzut", "zrzuty", Gender::Masculine),
    ("kosztorys", "kosztorys", "kosztorysy", Gender::Masculine),
    ("dowod", "dowód", "dowody", Gender::Masculine),
    ("wycen", "wycena", "wyceny", Gender::Feminine),
    ("ofert", "oferta", "oferty", Gender::Feminine),
];
/// Documents that are of another ("kopia umowy", "skan dowodu"), by their dictionary form.
const PL_CONTAINERS: &[&str] = &["kopia", "skan", "zdjęcie"];
/// Words after a verb of sending that name no object: to whom, when, how, and fillers.
const PL_NO_OBJECT: &[&str] = &[
    "wam", "panu", "pani", "panstwu", "ci", "mu", "jej", "im", "dzisiaj", "dzis", "jutro", "wieczorem", "rano", "jeszcze", "zaraz", "mailem",
    "poczta", "listem", "poleconym", "sms", "smsem", "oczywiscie", "na", "pewno", "od", "razu", "tez", "juz", "potem", "pozniej", "sam", "sama",
    "jasne", "dobrze",
];
/// Words that may open a clause before its verb without being its object.
const PL_LEADS: &[&str] = &["ale", "to", "ja", "my", "no", "tak", "i", "a", "wiec", "dobra", "okej", "zaraz"];
/// Prepositions: a document after one is the way or the place, not the thing sent ("przez
/// formularz", "w umowie").
const PL_PREPOSITIONS: &[&str] = &["przez", "w", "we", "na", "z", "ze", "do", "od", "o", "po", "dla", "bez", "przy", "pod", "nad", "za"];
/// What a Polish call asks to be paid, for a "zapłacę" that names nothing.
const PL_DUES: &[(&str, &str)] = &[
    ("rat", "rata"),
    ("skladk", "składka"),
    ("faktur", "faktura"),
    ("rachunek", "rachunek"),
    ("rachunk", "rachunek"),
    ("zaleglosc", "zaległość"),
    ("doplat", "dopłata"),
];
/// Words that ask for or send a thing: a sentence of the turns before with one of them may
/// name what the item sends (by the start of their folded forms).
const PL_ASKING: &[&str] =
    &["prosz", "potrzeb", "brakuj", "wymag", "trzeba", "musi", "przesl", "wysl", "dosl", "odesl", "dostarcz", "zalacz", "przyda"];
/// Verbs of sending a thing, by the start of their folded forms ("wyślę", "prześlemy",
/// "odeślę", "doślę", "dostarczę", "podpiszę", "zeskanuję").
const PL_SENDING: &[&str] = &["wysl", "przesl", "odesl", "dosl", "dostarcz", "podpisz", "zeskanuj", "przyniose", "zloz"];
/// Verbs of paying, by the start of their folded forms.
const PL_PAYING: &[&str] = &["zaplac", "oplac", "wplac", "przelej"];

/// The document a folded Polish word names, with its forms and gender.
fn pl_document(folded: &str) -> Option<&'static (&'static str, &'static str, &'static str, Gender)> {
    // "Umowa" but not "umówię" (folded "umowie" is both: the noun's locative is taken, as a
    // document is more often named than a meeting).
    if PL_VERB_FORMS.contains(&folded) {
        return None;
    }
    PL_DOCUMENTS.iter().find(|(stem, ..)| folded.strip_prefix(stem).is_some_and(|ending| PL_ENDINGS.contains(&ending)))
}

/// The dictionary form of the first document of [`PL_DOCUMENTS`] that `text` names, if any.
/// A container yields to what it holds: "kopię umowy" names "umowa", "kopię polisy" "polisa".
pub(crate) fn first_polish_document(text: &str) -> Option<&'static str> {
    let named: Vec<&'static str> = words(text).iter().filter_map(|w| pl_document(&w.folded)).map(|(_, name, ..)| *name).collect();
    named.iter().find(|n| !PL_CONTAINERS.contains(n)).or(named.first()).copied()
}

/// Whether a Polish text has a verb of sending or preparing a thing ("wyślę", "przygotuję"), not
/// of arranging a meeting ("umówię").
pub(crate) fn sends_or_prepares(text: &str) -> bool {
    words(text).iter().any(|w| PL_SENDING.iter().chain(&["przygot"]).any(|v| w.folded.starts_with(v)))
}

/// Verbs that read as a document's case form once folded ("wyceni": will value; "umówi").
const PL_VERB_FORMS: &[&str] = &["wyceni", "umowi"];

/// The case endings a document's stem in [`PL_DOCUMENTS`] takes (folded), so that "akt" is not
/// "aktywny" nor "skan" "skandal".
const PL_ENDINGS: &[&str] = &["", "a", "e", "i", "y", "u", "o", "ie", "ia", "iu", "iem", "em", "om", "ow", "ami", "ach", "iach", "iami", "ze"];

/// Whether the word at `i` follows a preposition, which makes it a way or a place ("przez
/// formularz", "w umowie"), not a thing sent.
fn governed(ws: &[Word], i: usize) -> bool {
    i > 0 && PL_PREPOSITIONS.contains(&ws[i - 1].folded.as_str())
}

/// Whether a Polish noun's form is plural, by its ending: "paragony", "formularze", "zdjęcia"
/// (a neuter noun's genitive singular reads the same, and either agrees with "je").
fn pl_plural(folded: &str, gender: Gender) -> bool {
    match gender {
        Gender::Neuter => folded.ends_with('a'),
        Gender::Masculine => folded.ends_with(['y', 'i', 'e']),
        Gender::Feminine => folded.ends_with(['y', 'e']),
    }
}

/// A Polish `description` with the document its pronoun object stands for, the document a bare
/// "wyślę" sends, or the due its "zapłacę" pays, named in brackets after it, when what was said
/// before (as for [`name_the_object`]) names one that agrees.
pub fn name_the_polish_object(description: &str, before: &[&str], earlier: &[&str]) -> Option<String> {
    let ws = words(description);
    let sends = |w: &Word| PL_SENDING.iter().any(|v| w.folded.starts_with(v));
    let near = |k: usize| (k.saturating_sub(2)..(k + 3).min(ws.len())).any(|j| j != k && sends(&ws[j]));
    // An item that names a document already needs no name ("Wyślę to zaświadczenie").
    // ("Wyślę go przez formularz": the form is the way, not the thing.)
    if (0..ws.len()).any(|i| pl_document(&ws[i].folded).is_some() && !governed(&ws, i)) {
        return None;
    }
    // The sentences before in the item's turn, then the turns before, nearest first.
    let context: Vec<&str> = before.iter().rev().chain(earlier.iter().rev()).copied().collect();
    // A pronoun object next to a verb of sending: "Wyślę je", "to ja go doślę", "prześlę ją",
    // "wyślę to"; else a verb of sending with nothing after it in its clause but whom, when
    // and how ("Wyślę wam dzisiaj wieczorem, jak…", "Wyślę, oczywiście, że wyślę").
    // "To" before the verb is the particle ("To ja wyślę"), after it the pronoun ("wyślę to").
    let pronoun = ws.iter().enumerate().find(|&(k, w)| match description[w.start..w.end].to_lowercase().as_str() {
        "je" | "go" | "ją" => near(k),
        // Not the demonstrative ("wyślę to potwierdzenie"), nor across a comma ("Prześlę, to
        // żaden problem").
        "to" => {
            k > 0
                && sends(&ws[k - 1])
                && !ws[k - 1].broken_after
                && ws.get(k + 1).is_none_or(|next| {
                    w.broken_after || PL_NO_OBJECT.contains(&next.folded.as_str()) || PL_PREPOSITIONS.contains(&next.folded.as_str())
                })
        }
        _ => false,
    });
    let (at, said) = match pronoun {
        Some((_, w)) => (w.end, description[w.start..w.end].to_lowercase()),
        None => {
            let Some(verb) = ws.iter().position(sends) else { return name_the_due(description, &ws, &context) };
            // "Ale zdjęcie wyślę": the object came first; "… proszę przesłać do poniedziałku":
            // a request's object stands before it in its own sentence, not in the context.
            if ws[verb].folded.ends_with('c')
                || !ws[..verb].iter().all(|w| PL_NO_OBJECT.contains(&w.folded.as_str()) || PL_LEADS.contains(&w.folded.as_str()))
            {
                return None;
            }
            let timed = callscope_text::temporal::deadlines(description);
            let mut clause = Vec::new();
            if !ws[verb].broken_after {
                for w in &ws[verb + 1..] {
                    clause.push(w);
                    if w.broken_after {
                        break;
                    }
                }
            }
            let bare = clause.iter().all(|w| PL_NO_OBJECT.contains(&w.folded.as_str()) || timed.iter().any(|d| (d.start..d.end).contains(&w.start)));
            if !bare {
                return None;
            }
            (ws[verb].end, String::new())
        }
    };
    // A feminine "-y" or "-i" is the genitive singular as often as the plural ("podpisanej
    // umowy"), and a neuter "-a" too, so only a masculine ending tells many.
    let agrees = |folded: &str, gender: Gender| match said.as_str() {
        "ją" => gender == Gender::Feminine,
        "go" => gender == Gender::Neuter || gender == Gender::Masculine && !pl_plural(folded, gender),
        "je" => gender != Gender::Masculine || pl_plural(folded, gender),
        _ => true,
    };
    // The last document named in the nearest sentence that names one that agrees, not one a
    // preposition governs ("przez formularz": the way, not the thing), with what a copy or a
    // scan is of ("kopii umowy" → "kopia umowy").
    // For a verb with no pronoun, of the turns before only the sentences that ask for or send
    // something: "Umowa jest aktywna" names no thing to send.
    let searched: Vec<&str> = if said.is_empty() {
        let asking = |s: &&str| words(s).iter().any(|w| PL_ASKING.iter().any(|a| w.folded.starts_with(a)));
        before
            .iter()
            .rev()
            .copied()
            .chain(earlier.iter().rev().flat_map(|turn| crate::text::sentences(turn).into_iter().rev().filter(asking)))
            .collect()
    } else {
        context
    };
    let named = searched.iter().find_map(|s| {
        let xs = words(s);
        (0..xs.len()).rev().find_map(|mut i| {
            pl_document(&xs[i].folded).filter(|d| agrees(&xs[i].folded, d.3))?;
            // "Kopii umowy": the copy is what is sent.
            if i > 0 && pl_document(&xs[i - 1].folded).is_some_and(|d| PL_CONTAINERS.contains(&d.1) && agrees(&xs[i - 1].folded, d.3)) {
                i -= 1;
            }
            let document = pl_document(&xs[i].folded)?;
            if governed(&xs, i) {
                return None;
            }
            let of = xs.get(i + 1).filter(|next| PL_CONTAINERS.contains(&document.1) && pl_document(&next.folded).is_some());
            Some((xs[i].folded.clone(), document, of.map(|next| s[next.start..next.end].to_lowercase())))
        })
    })?;
    let (folded, &(_, singular, plural, gender), of) = named;
    // "Je" of a masculine or feminine noun is many of them; otherwise one, unless a masculine
    // ending says many ("paragony").
    let many = match said.as_str() {
        "je" => gender != Gender::Neuter || pl_plural(&folded, gender),
        "go" | "ją" => false,
        _ => gender == Gender::Masculine && pl_plural(&folded, gender),
    };
    let form = if many { plural } else { singular };
    let form = of.map_or(form.to_owned(), |of| format!("{form} {of}"));
    Some(format!("{} ({form}){}", &description[..at], &description[at..]))
}

/// "Do piętnastego zapłacę": what is paid, when the item names no due itself.
fn name_the_due(description: &str, ws: &[Word], context: &[&str]) -> Option<String> {
    let pays = ws.iter().find(|w| PL_PAYING.iter().any(|v| w.folded.starts_with(v)))?;
    let names_due = |text: &str| {
        words(text).iter().rev().find_map(|x| {
            PL_DUES.iter().find(|(stem, _)| x.folded.strip_prefix(stem).is_some_and(|ending| PL_ENDINGS.contains(&ending))).map(|d| d.1)
        })
    };
    if names_due(description).is_some() || ws.iter().any(|w| pl_document(&w.folded).is_some()) {
        return None;
    }
    let due = context.iter().find_map(|s| names_due(s))?;
    Some(format!("{} ({due}){}", &description[..pays.end], &description[pays.end..]))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The items users met without their object, with what the call said before them.
    #[test]
    fn a_pronoun_is_named_by_what_was_asked_for_or_just_named() {
        let cases = [
            ("Upload it this evening when I'm home", &["Great."][..], &["For a surname change we need a copy of the marriage certificate. I'm sending you an upload link by email now, it should be with you in the next five minutes."][..], Some("Upload the copy of the marriage certificate this evening when I'm home")),
            ("Ring the police on Monday and get it to you", &["Fine."][..], &["We will need the crime reference before we can settle anything, though."][..], Some("Ring the police on Monday and get the crime reference to you")),
            ("Email it over on Monday, it's on my work laptop", &["Oh, brilliant.", "I've got the visa letter."][..], &["Okay, we can waive that with proof, like a visa or a work permit."][..], Some("Email the visa letter over on Monday, it's on my work laptop")),
            ("Email it to you before we close today at four", &["And the no-claims letter — I can generate that now, it shows eleven years."][..], &[][..], Some("Email the no-claims letter to you before we close today at four")),
            ("Email them over tonight", &[][..], &["Could you send us photos of the damage?", "Yes, I'll send them."][..], Some("Email the photos of the damage over tonight")),
            ("Send them over by Tuesday", &["What I need is photos of your fuse box and the spot where you'd like the charger."][..], &[][..], Some("Send the photos of your fuse box over by Tuesday")),
            ("Post it to you this afternoon", &["I'll put the form through the system straight away."][..], &[][..], Some("Post the form to you this afternoon")),
            ("Post it to you tonight", &["The replacement card is ready."][..], &[][..], Some("Post the replacement card to you tonight")),
            ("Forward those to us", &["That would really help."][..], &["Well. I've also got the emails I had with him, where he says the same sort of thing."][..], Some("Forward the emails to us")),
            // A place is no thing to send (tune3).
            ("Send it this afternoon when I'm back", &["I'm not at the shop now, the iPad's there."][..], &["Could you send me the crash log? It's under Help."][..], Some("Send the crash log this afternoon when I'm back")),
            // "One" of a thing asked about, got sent (tune2).
            ("Get one sent out to you", &["It does, the new hub handles the higher speed."][..], &["Yes, let's do that. Does it need a new box?"][..], Some("Get the new box sent out to you")),
        ];
        for (description, before, earlier, want) in cases {
            assert_eq!(name_the_object(description, before, earlier).as_deref(), want, "{description}");
        }
    }

    /// A pronoun that agrees with nothing said, or a sentence without one, stays as it is.
    #[test]
    fn an_unclear_pronoun_is_left_alone() {
        // "Them" is the lender (one), not the policy: nothing plural was named.
        assert_eq!(name_the_object("Send them on Tuesday", &["Fine."], &["It's best to let your lender know about the new policy, yes."]), None);
        assert_eq!(name_the_object("Send you the form by Friday", &[], &["Could you send us the receipts?"]), None, "no pronoun");
        // Not the thing the item names already, nor one asked about in a question.
        assert_eq!(name_the_object("Pop it in the bag and post it back", &[], &["I'll send you a prepaid bag.", "Great, and the old router?"]), None);
        // "Call them" is people; "these pictures" is no pronoun; a phrase running into a verb
        // names nothing.
        assert_eq!(name_the_object("Call them tomorrow", &["We'll need the invoices from your builders."], &[]), None);
        assert_eq!(name_the_object("Email these pictures tonight", &[], &["Could you send us photos of the damage?"]), None);
        assert_eq!(name_the_object("Replace it this week", &["Right."], &["The router keeps dropping out."]), None);
        // The subject of another clause, and a thing named only in a question, are not it.
        assert_eq!(name_the_object("Send this to my manager, it is urgent", &["I see."], &["I sent the form."]), None);
        assert_eq!(name_the_object("Send it again", &[], &["Right. And if the temp money doesn't come?"]), None);
        // A time is no thing to send.
        assert_eq!(name_the_object("Send it over", &["Give me a moment."], &[]), None);
        // "It's" is not the object.
        assert_eq!(name_the_object("Get it's gone through", &["I've sent the form."], &[]), None);
    }

    /// The Polish items met without their object.
    #[test]
    fn a_polish_pronoun_or_payment_gains_the_document_or_due_in_brackets() {
        let cases = [
            (
                "Wyślę je w poniedziałek listem poleconym",
                &["Do recepcji to ja już nie wejdę."][..],
                &["Płatność przyjęta. Wypowiedzenie musi być jeszcze złożone na piśmie, z podpisem."][..],
                "Wyślę je (wypowiedzenie) w poniedziałek listem poleconym",
            ),
            (
                "Do piętnastego zapłacę, przelewem jak zawsze",
                &["Dobrze."][..],
                &["Nową polisę wyślę panu do poniedziałku, a pierwszą ratę proszę opłacić do piętnastego."][..],
                "Do piętnastego zapłacę (rata), przelewem jak zawsze",
            ),
            ("Prześlę ją jutro", &[][..], &["Potrzebujemy kopii umowy sprzedaży."][..], "Prześlę ją (kopia umowy) jutro"),
            ("Jutro je doślę", &[][..], &["Proszę przesłać paragony za leki."][..], "Jutro je (paragony) doślę"),
            ("Wyślę go dziś", &["Mam już wypełniony formularz."][..], &[][..], "Wyślę go (formularz) dziś"),
            // "To" stands for anything; a document a preposition governs is the way, not the thing.
            (
                "Wyślę to w poniedziałek",
                &["Dobra."][..],
                &["Potrzebujemy podpisanego wypowiedzenia. Wzór wypowiedzenia jest na stronie, można to przesłać przez formularz."][..],
                "Wyślę to (wypowiedzenie) w poniedziałek",
            ),
            // A verb of sending with nothing after it in its clause but whom, when and how.
            (
                "Wyślę wam dzisiaj wieczorem, jak przyjdzie",
                &["Zrzut ekranu... to syn umie."][..],
                &[][..],
                "Wyślę (zrzut) wam dzisiaj wieczorem, jak przyjdzie",
            ),
            (
                "Wyślę, oczywiście, że wyślę",
                &[][..],
                &["A kosztorys z ASO proszę dosłać do końca przyszłego tygodnia."][..],
                "Wyślę (kosztorys), oczywiście, że wyślę",
            ),
            (
                "Zapłacę, nie ma sprawy",
                &[][..],
                &["Aneks wyślę jeszcze dziś, a dopłatę proszę zrobić do końca miesiąca."][..],
                "Zapłacę (dopłata), nie ma sprawy",
            ),
        ];
        for (description, before, earlier, want) in cases {
            assert_eq!(name_the_polish_object(description, before, earlier).as_deref(), Some(want), "{description}");
        }
    }

    /// A pronoun that agrees with no document, "ja" (I), a verb that sends nothing, and a
    /// payment that names its due stay as they are.
    #[test]
    fn an_unclear_polish_pronoun_is_left_alone() {
        // "Ją" is feminine; the only document named is neuter.
        assert_eq!(name_the_polish_object("Wyślę ją jutro", &[], &["Potrzebne jest zaświadczenie."]), None);
        // "Ja" (I) is not "ją"; the particle "to" is no pronoun, so the verb is bare.
        assert_eq!(
            name_the_polish_object("To ja wyślę jutro", &[], &["Potrzebne jest zaświadczenie."]).as_deref(),
            Some("To ja wyślę (zaświadczenie) jutro")
        );
        assert_eq!(name_the_polish_object("Zadzwonię do niego jutro", &[], &["Formularz jest gotowy."]), None);
        assert_eq!(name_the_polish_object("Zapłacę fakturę w piątek", &[], &["Rata jest zaległa."]), None);
        assert_eq!(name_the_polish_object("Zapłacę w piątek", &[], &["Dziękuję, to wszystko."]), None);
        // The object said before the verb, an object that is no document, a request's
        // infinitive, and a word that only begins like a document.
        assert_eq!(name_the_polish_object("Ale zdjęcie wyślę, jasne", &[], &["Potrzebny jest formularz."]), None);
        assert_eq!(name_the_polish_object("Wyślę pani link do zgłoszenia", &[], &["Potrzebny jest formularz."]), None);
        assert_eq!(name_the_polish_object("Przesłać do poniedziałku", &[], &["Wniosek już mamy."]), None);
        assert_eq!(name_the_polish_object("Wyślę go dziś", &[], &["Konto jest aktywne."]), None);
        // Found by a review: a demonstrative "to", "to" across a comma, a verb that reads as a
        // document, a surname that begins as a due, and a document the turn before only
        // mentions.
        assert_eq!(name_the_polish_object("Wyślę to zaświadczenie jutro", &[], &["Potrzebujemy zaświadczenia."]), None);
        assert_eq!(name_the_polish_object("Wyślę to potwierdzenie przelewu", &[], &["Umowa jest już aktywna."]), None);
        assert_eq!(name_the_polish_object("Prześlę, to żaden problem", &[], &["Umowa jest już aktywna."]), None);
        assert_eq!(
            name_the_polish_object("Prześlę dzisiaj", &[], &["Proszę przesłać zdjęcia szkody, rzeczoznawca ją wyceni."]).as_deref(),
            Some("Prześlę (zdjęcie) dzisiaj")
        );
        assert_eq!(name_the_polish_object("Zapłacę jutro", &[], &["Dziękuję, pani Ratajczak, kwota to 120 zł."]), None);
        assert_eq!(name_the_polish_object("Dobrze, wyślę wieczorem", &[], &["Umowa jest aktywna. Proszę przesłać odczyt licznika."]), None);
        // A feminine "-y" is one as often as many.
        assert_eq!(name_the_polish_object("Wyślę dzisiaj", &[], &["Brakuje jeszcze podpisanej umowy."]).as_deref(), Some("Wyślę (umowa) dzisiaj"));
        assert_eq!(name_the_polish_object("Wyślę ją jutro", &[], &["Brakuje jeszcze podpisanej umowy."]).as_deref(), Some("Wyślę ją (umowa) jutro"));
    }
}
