//! Personal data that follows the dialogue. When one party asks for a kind of data ("can I take
//! the card number?", "poproszę imię, nazwisko i PESEL"), the other party's next turn holds it
//! however speech recognition wrote it ("free one two, time, time, time", "Come, Brandon"),
//! and so does the asker's read-back ("so that's 07700 914326"). The other detectors need a
//! value that looks right by itself; here the question vouches for it, and check digits, where
//! the type has them, raise the confidence further.
//!
//! The lines of the text are the turns, as the pipeline joins them.

use crate::cues::{starts_with_any, token_at};
use crate::numbers::{number_word, NumWord};
use crate::patterns::{dates, postal_code_at};
use crate::text::Token;
use crate::{checksum, spoken_digits, Entity, Gazetteer, PiiType};

/// Words that ask (with the question mark): folded stems, matched at a word's start.
const ASKING: &[&str] = &[
    "can", "could", "may", "what", "whats", "give", "tell", "need", "confirm", "read", "spell", "please", "provide", "take", "poprosz", "prosz",
    "poda", "jaki", "jaka", "jakim", "jakie", "potrzebuj", "potwierdz", "mog", "przeliteruj", "powie", "wymieni",
];

/// What each kind of data is asked for by: every stem of one entry in one sentence.
const ASKED_BY: &[(PiiType, &[&[&str]])] = &[
    (PiiType::Email, &[&["email"], &["mail"], &["mailow"]]),
    (
        PiiType::PaymentCard,
        &[
            &["card", "number"],
            &["card", "digits"],
            &["card", "details"],
            &["long", "number"],
            &["numer", "kart"],
            &["cyfr", "kart"],
            &["dane", "kart"],
        ],
    ),
    (PiiType::Iban, &[&["account", "number"], &["sort", "code"], &["iban"], &["numer", "kont"], &["numer", "rachunk"]]),
    (PiiType::Pesel, &[&["pesel"]]),
    (PiiType::Nip, &[&["nip"]]),
    (PiiType::Regon, &[&["regon"]]),
    (PiiType::Passport, &[&["passport"], &["paszport"], &["dokument", "tozsamosci"], &["identity", "document"]]),
    (
        PiiType::IdCard,
        &[&["dowod"], &["identity", "card"], &["id", "card"], &["id", "number"], &["dokument", "tozsamosci"], &["identity", "document"]],
    ),
    (PiiType::PhoneNumber, &[&["phone"], &["telephone"], &["mobile"], &["contact", "number"], &["telefon"], &["komork"], &["numer", "kontakt"]]),
    (PiiType::DateOfBirth, &[&["birth"], &["born"], &["dob"], &["urodz"]]),
    (PiiType::PostalCode, &[&["postcode"], &["post", "code"], &["postal"], &["zip"], &["kod", "pocztow"]]),
    (PiiType::Address, &[&["address"], &["adres"], &["street"], &["ulic"], &["where", "live"], &["gdzie", "mieszka"]]),
    (PiiType::PersonName, &[&["name"], &["imie"], &["imienia"], &["nazwisk"], &["who", "speaking"], &["kim", "rozmawiam"]]),
];

/// Words before the value that only introduce it ("yes, it's", "tak, to jest", "my name is").
const LEAD_IN: &[&str] = &[
    "yes", "yeah", "yep", "sure", "hi", "hello", "it", "its", "s", "is", "my", "name", "this", "i", "m", "am", "so", "okay", "ok", "of", "course",
    "right", "well", "um", "uh", "that", "ll", "be", "the", "address", "email", "mail", "e", "number", "new", "tak", "oczywiscie", "jasne", "dzien",
    "dobry", "nazywam", "sie", "to", "ja", "mam", "na", "imie", "nazwisko", "jest", "moj", "moje", "moja", "mieszkam", "przy", "adres", "numer",
    "nowy", "juz", "prosze", "bardzo", "and", "i", "a", "thanks", "thank", "you", "dziekuje", "sorry", "przepraszam", "witam", "hej", "no", "nope",
    "nie", "bye", "me", "czyli", "thats", "potwierdzam", "powtarzam",
];

/// Words that open a read-back ("so that's", "czyli").
const READ_BACK: &[&str] = &["so", "czyli", "thats", "confirm", "potwierdzam", "powtarzam"];

/// An address from the answer to a request for it: above the street-shaped part the other rules
/// find inside it ("40 Dale Street" of "Apartment 12, Sefton Court, 40 Dale Street").
const ADDRESS_CONFIDENCE: f32 = 0.92;

/// Words that end a value said in an answer ("…, and the postcode is", "ale", "but").
const ENDS_VALUE: &[&str] = &["and", "but", "ale", "oraz", "postcode", "kod", "please", "prosze", "thanks", "thank", "dziekuje"];

/// Words speech recognition writes for a digit said alone on a phone line: in an answer to a
/// question about a number they are that number's digits.
const DIGIT_SOUNDS: &[&str] = &["free", "tree", "won", "ate", "for", "fore", "to", "too", "nil", "nought", "sex", "sicks", "fife", "niner", "heaven"];

/// The fewest digits (a written group counts as its digits, a word as one) an answer must hold to be taken as the number asked for.
fn fewest_digit_words(kind: PiiType) -> usize {
    match kind {
        PiiType::PaymentCard | PiiType::Iban => 6,
        PiiType::PhoneNumber | PiiType::Pesel | PiiType::Nip => 4,
        // Letters and digits: a lone group of three is too little to be the document.
        PiiType::IdCard | PiiType::Passport => 5,
        PiiType::Regon => 3,
        // Day, month and year, at least.
        PiiType::DateOfBirth => 3,
        _ => 2,
    }
}

/// A turn: its byte range in the text and its tokens' index range.
#[derive(Debug, Clone, Copy)]
struct Turn {
    first: usize,
    end: usize,
}

/// Adds what the answers to requests for personal data hold, and their read-backs.
pub(crate) fn answers(text: &str, tokens: &[Token<'_>], gazetteer: &Gazetteer, out: &mut Vec<Entity>) {
    let turns = turns(text, tokens);
    for (index, turn) in turns.iter().enumerate() {
        let Some(answer) = turns.get(index + 1) else { break };
        let mut kinds = asked(text, tokens, *turn);
        // A name is said before the rest ("Gareth Mills. Twenty-seven Cardigan Road…"): the
        // other values are looked for after it.
        kinds.sort_by_key(|kind| *kind != PiiType::PersonName);
        let mut rest = *answer;
        for kind in kinds {
            let Some(found) = value(text, tokens, gazetteer, rest, kind) else { continue };
            if kind == PiiType::PersonName {
                rest.first = token_at(tokens, found.end).min(rest.end);
            }
            let digits = spoken_digits(&text[found.start..found.end]);
            out.push(found);
            // The asker reading an address back ("Czyli Grunwaldzka 112 przez 7").
            if let Some(read_back) = turns.get(index + 2).filter(|_| kind == PiiType::Address) {
                let opening = &tokens[read_back.first..read_back.end.min(read_back.first + 3)];
                if opening.iter().any(|t| starts_with_any(t, READ_BACK)) {
                    if let Some((first, last)) = address(text, tokens, *read_back) {
                        out.push(Entity { kind, start: tokens[first].start, end: tokens[last].end, confidence: ADDRESS_CONFIDENCE });
                    }
                }
            }
            // The asker repeating the number back.
            if let Some(read_back) = turns.get(index + 2).filter(|_| digits.len() >= 4) {
                if let Some((first, last)) = stretches(text, tokens, *read_back, kind).into_iter().find(|&(first, last)| {
                    let said = spoken_digits(&text[tokens[first].start..tokens[last].end]);
                    common_run(&digits, &said) * 10 >= digits.len() * 6
                }) {
                    out.push(Entity { kind, start: tokens[first].start, end: tokens[last].end, confidence: found_confidence(kind, &digits) });
                }
            }
        }
    }
}

/// The turns (lines) of the text as token ranges, without a speaker's label ("[3] Agent:",
/// as a transcript sent to a model has them).
fn turns(text: &str, tokens: &[Token<'_>]) -> Vec<Turn> {
    let mut out = Vec::new();
    let mut first = 0;
    for k in 1..=tokens.len() {
        if k == tokens.len() || text[tokens[k - 1].end..tokens[k].start].contains('\n') {
            let label = (first..k.min(first + 3)).find(|&j| text[tokens[j].end..].starts_with(':'));
            out.push(Turn { first: label.map_or(first, |j| j + 1).min(k), end: k });
            first = k;
        }
    }
    out.retain(|turn| turn.first < turn.end);
    out
}

/// The kinds of data a turn asks for, in its sentences that ask.
fn asked(text: &str, tokens: &[Token<'_>], turn: Turn) -> Vec<PiiType> {
    let mut kinds = Vec::new();
    for (first, end) in sentences(text, tokens, turn) {
        let words = &tokens[first..end];
        // A question, or a sentence that opens by asking ("so, can I just get…", "poproszę…");
        // "I can't help with the name" further in is neither.
        let question = text[tokens[end - 1].end..].trim_start().starts_with('?');
        if !question && !words.iter().take(5).any(|t| starts_with_any(t, ASKING)) {
            continue;
        }
        for (kind, entries) in ASKED_BY {
            let said = entries.iter().any(|entry| entry.iter().all(|stem| words.iter().any(|t| starts_with_any(t, &[stem]))));
            if said && !kinds.contains(kind) {
                kinds.push(*kind);
            }
        }
    }
    // "Your e-mail address" asks for an e-mail, not a street address, unless a second
    // "address" is said.
    if kinds.contains(&PiiType::Email) {
        let addresses = tokens[turn.first..turn.end].iter().filter(|t| matches!(t.folded.as_str(), "address" | "adres")).count();
        if addresses < 2 {
            kinds.retain(|k| *k != PiiType::Address);
        }
    }
    kinds
}

/// The sentences of a turn as token ranges (`first..end`).
fn sentences(text: &str, tokens: &[Token<'_>], turn: Turn) -> Vec<(usize, usize)> {
    let mut out = Vec::new();
    let mut first = turn.first;
    for k in turn.first + 1..turn.end {
        let gap = &text[tokens[k - 1].end..tokens[k].start];
        if sentence_end(gap) {
            out.push((first, k));
            first = k;
        }
    }
    if first < turn.end {
        out.push((first, turn.end));
    }
    out
}

/// Whether the text between two words ends a sentence ("Okay. Nine", not "wp.pl").
fn sentence_end(gap: &str) -> bool {
    gap.contains(['.', '?', '!']) && gap.contains(char::is_whitespace)
}

/// How sure a number taken from an answer is: its check digits or its length vouch for it.
fn found_confidence(kind: PiiType, digits: &str) -> f32 {
    let checked = match kind {
        PiiType::PaymentCard => checksum::luhn(digits) && (13..=19).contains(&digits.len()),
        PiiType::Pesel => checksum::pesel(digits),
        PiiType::Nip => checksum::nip(digits),
        PiiType::Regon => checksum::regon(digits),
        PiiType::Iban => checksum::nrb(digits),
        PiiType::PhoneNumber => (9..=15).contains(&digits.len()),
        PiiType::PostalCode => digits.len() == 5,
        _ => false,
    };
    if checked {
        0.98
    } else {
        0.85
    }
}

/// The value of `kind` in the answer turn, if it holds one.
fn value(text: &str, tokens: &[Token<'_>], gazetteer: &Gazetteer, answer: Turn, kind: PiiType) -> Option<Entity> {
    let entity = |first: usize, last: usize, confidence: f32| Entity { kind, start: tokens[first].start, end: tokens[last].end, confidence };
    match kind {
        PiiType::PersonName => name(text, tokens, gazetteer, answer).map(|(first, last)| entity(first, last, 0.85)),
        PiiType::Email => email(text, tokens, answer).map(|(first, last)| entity(first, last, 0.9)),
        PiiType::Address => address(text, tokens, answer).map(|(first, last)| entity(first, last, ADDRESS_CONFIDENCE)),
        // "Dowód jeszcze wyrabiam, ale mam paszport": the document the answer names.
        PiiType::IdCard | PiiType::Passport if names_only_the_other_document(tokens, answer, kind) => None,
        PiiType::DateOfBirth => dates(text, tokens)
            .into_iter()
            .find(|&(first, _)| (answer.first..answer.end).contains(&first))
            .or_else(|| stretches(text, tokens, answer, kind).into_iter().next())
            .map(|(first, last)| entity(first, last.min(answer.end - 1), 0.9)),
        _ => {
            let (first, last) = stretches(text, tokens, answer, kind).into_iter().next()?;
            let digits = spoken_digits(&text[tokens[first].start..tokens[last].end]);
            Some(entity(first, last, found_confidence(kind, &digits)))
        }
    }
}

/// Whether the answer's last word for an identity document names the other one ("dowód jeszcze
/// wyrabiam, ale mam już paszport" when an ID card or a passport was asked for).
fn names_only_the_other_document(tokens: &[Token<'_>], answer: Turn, kind: PiiType) -> bool {
    const PASSPORT: &[&str] = &["passport", "paszport"];
    const ID_CARD: &[&str] = &["dowod", "id"];
    let last = tokens[answer.first..answer.end].iter().rev().find_map(|t| {
        if starts_with_any(t, PASSPORT) {
            Some(PiiType::Passport)
        } else if starts_with_any(t, ID_CARD) {
            Some(PiiType::IdCard)
        } else {
            None
        }
    });
    last.is_some_and(|named| named != kind)
}

/// A word that says a digit or a number, as written or as phone-quality speech recognition
/// writes it; for codes with letters ("LS6 2QT", "E R seven"), single capitals and short
/// letter-digit mixes too.
fn digit_like(t: &Token<'_>, kind: PiiType) -> bool {
    if t.is_digits() || number_word(&t.folded).is_some() || DIGIT_SOUNDS.contains(&t.folded.as_str()) {
        return true;
    }
    let letters_too = matches!(kind, PiiType::PostalCode | PiiType::Passport | PiiType::IdCard | PiiType::Iban);
    let single_capital = t.text.chars().count() == 1 && t.is_capitalized();
    let mixed = t.text.len() <= 4 && t.text.bytes().any(|b| b.is_ascii_digit()) && t.text.bytes().all(|b| b.is_ascii_alphanumeric());
    letters_too && (single_capital || mixed)
}

/// The stretches of digit-like words in a turn, most digit-like words first: a gap of up to
/// two other short words inside a number is speech recognition's ("nine, time, four"), and a
/// word it repeats next to the number ("time, time, time") is part of it.
fn stretches(text: &str, tokens: &[Token<'_>], turn: Turn, kind: PiiType) -> Vec<(usize, usize)> {
    let words = &tokens[turn.first..turn.end];
    let mut found: Vec<(usize, usize, usize)> = Vec::new();
    let mut k = 0;
    while k < words.len() {
        if !digit_like(&words[k], kind) {
            k += 1;
            continue;
        }
        // A written group counts as its digits ("07700" as five).
        let weight = |w: &Token<'_>| if w.is_digits() { w.text.len() } else { 1 };
        let (first, mut last, mut count) = (k, k, weight(&words[k]));
        let mut next = k + 1;
        while next < words.len() {
            if digit_like(&words[next], kind) {
                count += weight(&words[next]);
                last = next;
                next += 1;
                continue;
            }
            // A word said again and again: the digit speech recognition could not spell.
            let repeats = words[next..].iter().take_while(|w| w.folded == words[next].folded).count();
            if repeats >= 2 {
                count += repeats;
                last = next + repeats - 1;
                next += repeats;
                continue;
            }
            // Bridged only inside a sentence: "…osiemdziesiątego ósmego. Dowód D G R…" is a date,
            // then a document.
            let gap = next;
            let bridged = (gap..words.len().min(gap + 3)).find(|&j| digit_like(&words[j], kind));
            let inside = |j: usize| !sentence_end(&text[words[gap - 1].end..words[j].start]);
            match bridged {
                Some(j) if j - gap <= 2 && inside(j) && words[gap..j].iter().all(|w| w.text.len() <= 6 && !starts_with_any(w, ENDS_VALUE)) => {
                    next = j
                }
                _ => break,
            }
        }
        found.push((count, turn.first + first, turn.first + last));
        k = last + 1;
    }
    found.retain(|&(count, _, _)| count >= fewest_digit_words(kind));
    found.sort_by_key(|&(count, first, _)| (std::cmp::Reverse(count), first));
    found.into_iter().map(|(_, first, last)| (first, last)).collect()
}

/// The first token after the words that only introduce a value, from `first` on.
fn past_lead_in(tokens: &[Token<'_>], first: usize, end: usize) -> usize {
    (first..end).find(|&k| !LEAD_IN.contains(&tokens[k].folded.as_str())).unwrap_or(end)
}

/// A name said in answer: capitalised words at the start of the answer, after the lead-in
/// ("It's Gareth Mills", "Colm Brennan. Email's…", ASR's "Come, Brandon").
fn name(text: &str, tokens: &[Token<'_>], gazetteer: &Gazetteer, answer: Turn) -> Option<(usize, usize)> {
    // The first sentence that says more than "thank you" or "yes".
    let (first, end) =
        sentences(text, tokens, answer).into_iter().map(|(start, end)| (past_lead_in(tokens, start, end), end)).find(|&(first, end)| first < end)?;
    let word = |k: usize| tokens[k].is_capitalized() && tokens[k].text.chars().count() > 1 && !tokens[k].is_digits();
    if !word(first) {
        return None;
    }
    let mut last = first;
    while last + 1 < end && last - first < 2 && word(last + 1) {
        // A comma only between the first two words: ASR's "Come, Brandon", not "Anna Nowak, PESEL".
        let gap = &text[tokens[last].end..tokens[last + 1].start];
        if !(matches!(gap, " " | "-" | " - ") || (gap == ", " && last == first)) {
            break;
        }
        last += 1;
    }
    // "Dowód jeszcze wyrabiam": an everyday word is not a name; one of the words must be in the
    // name lists or rare enough to be one (ASR's "Come, Brandon" has "Brandon").
    let everyday = |t: &Token<'_>| {
        let info = gazetteer.name(&t.lower);
        info.first.is_none() && info.last.is_none() && info.common.is_some_and(|rank| rank <= 20_000)
    };
    (!tokens[first..=last].iter().all(everyday)).then_some((first, last))
}

/// An e-mail address said in answer: the words around "at" / "małpa" up to the end of its
/// sentence, "dot" and "kropka" included.
fn email(text: &str, tokens: &[Token<'_>], answer: Turn) -> Option<(usize, usize)> {
    for (first, end) in sentences(text, tokens, answer) {
        let Some(at) = (first..end).find(|&k| matches!(tokens[k].folded.as_str(), "at" | "malpa")) else {
            if let Some(k) = (first..end).find(|&k| text[tokens[k].end..].starts_with('@')) {
                let start = past_lead_in(tokens, first, k);
                return Some((start, end - 1));
            }
            continue;
        };
        // The name part is short ("c brennan seventy four"): four words at most.
        let start = past_lead_in(tokens, first.max(at.saturating_sub(4)), at);
        if start == at || at + 1 >= end {
            continue;
        }
        // The domain: up to the sentence's end or a word that plainly is not part of it. It has
        // a dot ("gmail dot com", "wp.pl"); "photos by Sunday at the latest" has none.
        let mut last = at + 1;
        while last + 1 < end && last - at < 8 && !starts_with_any(&tokens[last + 1], &["all", "please", "thanks", "thank", "dziekuj", "prosz"]) {
            last += 1;
        }
        let dotted = tokens[at + 1..=last].iter().any(|t| matches!(t.folded.as_str(), "dot" | "kropka" | "kropke"))
            || text[tokens[at + 1].start..tokens[last].end].contains('.');
        if dotted {
            return Some((start, last));
        }
    }
    None
}

/// A street address said in answer: the first sentence holding a number and a street's name,
/// from its first word past the lead-in.
fn address(text: &str, tokens: &[Token<'_>], answer: Turn) -> Option<(usize, usize)> {
    for (first, end) in sentences(text, tokens, answer) {
        // A house number said as a number, not a word that only sounds like one.
        let number = |t: &Token<'_>| t.is_digits() || number_word(&t.folded).is_some_and(|n| n != NumWord::Oh);
        // And a street's name, in capitals past the sentence's first word, or a street word
        // ("moja karta kończy się w grudniu, a nowa poszłaby na stary adres" has neither).
        let street = |k: usize| {
            (k > first && tokens[k].is_capitalized() && !tokens[k].is_digits())
                || starts_with_any(&tokens[k], &["ulic", "ul", "street", "road", "lane", "alej", "osiedl", "plac"])
        };
        if !tokens[first..end].iter().any(number) || !(first..end).any(street) {
            continue;
        }
        let start = past_lead_in(tokens, first, end);
        // It ends where "and the postcode", "kod" or "but" start, or the postal code itself.
        let stop = (start + 1..end).find(|&k| starts_with_any(&tokens[k], ENDS_VALUE) || postal_code_at(text, tokens[k].start)).unwrap_or(end);
        if stop > start {
            return Some((start, stop - 1));
        }
    }
    None
}

/// The length of the longest run of characters two digit strings share.
fn common_run(a: &str, b: &str) -> usize {
    let (a, b) = (a.as_bytes(), b.as_bytes());
    let mut best = 0;
    let mut row = vec![0usize; b.len() + 1];
    for x in a {
        let mut previous = 0;
        for (j, y) in b.iter().enumerate() {
            let here = row[j + 1];
            row[j + 1] = if x == y { previous + 1 } else { 0 };
            best = best.max(row[j + 1]);
            previous = here;
        }
    }
    best
}
