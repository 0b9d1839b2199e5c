//! Detectors that read the text's shape: e-mail addresses, written IBANs, Polish documents,
//! postal codes, street addresses and dates of birth.

use std::sync::LazyLock;

use regex::Regex;

use crate::checksum;
use crate::cues::{self, near, token_at};
use crate::numbers::number_word;
use crate::text::{fold, Token};
use crate::{Entity, PiiType};

fn re(pattern: &str) -> Regex {
    Regex::new(pattern).expect("a valid built-in pattern")
}

const TLDS: &str = "com|pl|org|net|eu|io|co|uk|de|info|biz|gov|edu|me|app|dev|us|fr|it|es|nl|cz";

static EMAIL: LazyLock<Regex> = LazyLock::new(|| re(r"(?i)\b[a-z0-9][a-z0-9._%+-]*@[a-z0-9-]+(?:\.[a-z0-9-]+)*\.[a-z]{2,}\b"));
/// "jan dot kowalski at gmail dot com", "anna kropka nowak małpa wp kropka pl".
static SPOKEN_EMAIL: LazyLock<Regex> = LazyLock::new(|| {
    let dot = r"(?:\s+(?:dot|kropka)\s+|\.)";
    let sep = r"(?:\s+(?:dot|kropka|underscore|podkreślnik|dash|myślnik)\s+|[._-])";
    re(&format!(r"(?i)\b[a-z0-9]+(?:{sep}[a-z0-9]+)*\s+(?:at|małpa|malpa|małpka)\s+[a-z0-9-]+(?:{dot}[a-z0-9-]+)*{dot}(?:{TLDS})\b"))
});

pub(crate) fn emails(text: &str, out: &mut Vec<Entity>) {
    for m in EMAIL.find_iter(text) {
        out.push(Entity { kind: PiiType::Email, start: m.start(), end: m.end(), confidence: 0.99 });
    }
    for m in SPOKEN_EMAIL.find_iter(text) {
        out.push(Entity { kind: PiiType::Email, start: m.start(), end: m.end(), confidence: 0.9 });
    }
}

/// "PL61 1090 1014 0000 0712 1981 2874", "GB82 WEST 1234 5698 7654 32".
static WRITTEN_IBAN: LazyLock<Regex> = LazyLock::new(|| re(r"\b[A-Z]{2}\s?\d{2}(?:[ -]?[A-Z0-9]){10,30}"));

pub(crate) fn written_ibans(text: &str, out: &mut Vec<Entity>) {
    for m in WRITTEN_IBAN.find_iter(text) {
        let Some(length) = checksum::iban_length(&m.as_str()[..2]) else { continue };
        // Take exactly the country's length of characters, wherever the spaces fall.
        let mut compact = String::new();
        let mut end = m.start();
        for (i, c) in m.as_str().char_indices() {
            if c.is_ascii_alphanumeric() {
                compact.push(c);
                end = m.start() + i + 1;
                if compact.len() == length {
                    break;
                }
            }
        }
        if compact.len() == length && checksum::iban(&compact) {
            out.push(Entity { kind: PiiType::Iban, start: m.start(), end, confidence: 0.99 });
        }
    }
}

/// Polish ID cards ("ABA 300000", "A B A 300000") and passports ("ZS 0000177").
static ID_CARD: LazyLock<Regex> = LazyLock::new(|| re(r"\b[A-Z][ .-]?[A-Z][ .-]?[A-Z][ .-]?\d(?:[ -]?\d){5}\b"));
static PASSPORT: LazyLock<Regex> = LazyLock::new(|| re(r"\b[A-Z][ .-]?[A-Z][ .-]?\d(?:[ -]?\d){6}\b"));

pub(crate) fn documents(text: &str, tokens: &[Token<'_>], out: &mut Vec<Entity>) {
    for (pattern, kind, check, stems) in [
        (&*ID_CARD, PiiType::IdCard, checksum::pl_id_card as fn(&str) -> bool, cues::ID_CARD),
        (&*PASSPORT, PiiType::Passport, checksum::pl_passport, cues::PASSPORT),
    ] {
        for m in pattern.find_iter(text) {
            let compact: String = m.as_str().chars().filter(char::is_ascii_alphanumeric).collect();
            if check(&compact) {
                let (first, last) = (token_at(tokens, m.start()), token_at(tokens, m.end().saturating_sub(1)));
                let confidence = if near(tokens, first, last, 8, 2, stems) { 0.99 } else { 0.85 };
                out.push(Entity { kind, start: m.start(), end: m.end(), confidence });
            }
        }
    }
}

static PL_POSTAL: LazyLock<Regex> = LazyLock::new(|| re(r"\b\d{2}-\d{3}\b"));
static UK_POSTAL: LazyLock<Regex> = LazyLock::new(|| re(r"\b[A-Z]{1,2}\d[A-Z\d]? ?\d[ABD-HJLNP-UW-Z]{2}\b"));
/// A US state's abbreviation and a ZIP code.
static US_ZIP: LazyLock<Regex> = LazyLock::new(|| {
    re(
        r"\b(?:A[KLRZ]|C[AOT]|D[CE]|FL|GA|HI|I[ADLN]|K[SY]|LA|M[ADEINOST]|N[CDEHJMVY]|O[HKR]|PA|RI|S[CD]|T[NX]|UT|V[AT]|W[AIVY])\s+(\d{5}(?:-\d{4})?)\b",
    )
});
static BARE_ZIP: LazyLock<Regex> = LazyLock::new(|| re(r"\b\d{5}(?:-\d{4})?\b"));

/// Whether a Polish or UK postal code starts at byte `offset` ("80-309", "L2 5TF").
pub(crate) fn postal_code_at(text: &str, offset: usize) -> bool {
    [&*PL_POSTAL, &*UK_POSTAL].iter().any(|pattern| pattern.find_at(text, offset).is_some_and(|m| m.start() == offset))
}

pub(crate) fn postal_codes(text: &str, tokens: &[Token<'_>], out: &mut Vec<Entity>) {
    let cue = |start: usize, end: usize| near(tokens, token_at(tokens, start), token_at(tokens, end.saturating_sub(1)), 4, 0, cues::POSTAL);
    for m in PL_POSTAL.find_iter(text) {
        // "00-950 Warszawa": a capitalised word after it is the town.
        let town = text[m.end()..].trim_start().chars().next().is_some_and(char::is_uppercase);
        let confidence = if cue(m.start(), m.end()) || town { 0.95 } else { 0.75 };
        out.push(Entity { kind: PiiType::PostalCode, start: m.start(), end: m.end(), confidence });
    }
    for m in UK_POSTAL.find_iter(text) {
        out.push(Entity { kind: PiiType::PostalCode, start: m.start(), end: m.end(), confidence: 0.9 });
    }
    for c in US_ZIP.captures_iter(text) {
        let m = c.get(1).expect("group 1");
        out.push(Entity { kind: PiiType::PostalCode, start: m.start(), end: m.end(), confidence: 0.9 });
    }
    for m in BARE_ZIP.find_iter(text) {
        if cue(m.start(), m.end()) {
            out.push(Entity { kind: PiiType::PostalCode, start: m.start(), end: m.end(), confidence: 0.85 });
        }
    }
}

/// Number words (cardinal and ordinal forms the address patterns accept as house numbers).
fn number_words() -> String {
    const WORDS: &[&str] = &[
        "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten", "eleven", "twelve", "thirteen", "fourteen", "fifteen",
        "sixteen", "seventeen", "eighteen", "nineteen", "twenty", "thirty", "forty", "fifty", "sixty", "seventy", "eighty", "ninety", "hundred",
        "jeden", "dwa", "trzy", "cztery", "pięć", "sześć", "siedem", "osiem", "dziewięć", "dziesięć", "jedenaście", "dwanaście", "trzynaście",
        "czternaście", "piętnaście", "szesnaście", "siedemnaście", "osiemnaście", "dziewiętnaście", "dwadzieścia", "trzydzieści", "czterdzieści",
        "pięćdziesiąt", "sześćdziesiąt", "siedemdziesiąt", "osiemdziesiąt", "dziewięćdziesiąt", "sto", "dwieście", "trzysta", "czterysta", "pięćset",
    ];
    let mut sorted = WORDS.to_vec();
    sorted.sort_by_key(|w| std::cmp::Reverse(w.len()));
    sorted.join("|")
}

/// A house number: "12", "12a", "12/4", "15 m. 3", or up to three number words.
fn house_number() -> String {
    let words = number_words();
    format!(
        r"(?:\d+[a-zA-Z]?(?:\s?/\s?\d+[a-zA-Z]?)?|(?i:(?:{words})(?:[\s-]+(?:{words})){{0,2}})\b)(?:,?\s+(?i:m\.|mieszkani[ae]|lok\.|lokal[u]?|apartment|apt\.?|flat|unit|suite)\s*(?:\d+[a-zA-Z]?|(?i:(?:{words})(?:[\s-]+(?:{words})){{0,1}})\b))?"
    )
}

/// "ul. Długa 5/3", "ulicy Marszałkowskiej 12 m. 4", "al. Jana Pawła II 27", "os. Tysiąclecia 3".
static PL_ADDRESS: LazyLock<Regex> = LazyLock::new(|| {
    let name = r"(?:\p{Lu}[\p{L}.'-]*|\d{1,2}|[IVX]+)";
    re(&format!(
        r"\b(?i:ul\.|ulica|ulicy|ulicę|ulicą|al\.|aleja|alei|aleję|aleją|os\.|osiedle|osiedlu|pl\.|plac|placu)\s+(?:{name}\s+){{1,4}}?{}",
        house_number()
    ))
});
/// "mieszkam na Długiej 5", "adres to Piękna 12": a street without "ulica" after a cue.
static PL_ADDRESS_CUED: LazyLock<Regex> = LazyLock::new(|| {
    let name = r"\p{Lu}[\p{L}.'-]*";
    re(&format!(
        r"(?i:mieszkam|mieszka|zamieszkał[ay]?|adres(?:em|u)?(?:\s+to)?|zameldowan[ya])(?:\s+\p{{Ll}}+){{0,3}}?\s+(?i:na|przy)?\s*((?:{name}\s+){{1,3}}?{})",
        house_number()
    ))
});
/// "221B Baker Street", "twelve Oak Lane, apartment 4".
static EN_ADDRESS: LazyLock<Regex> = LazyLock::new(|| {
    let words = number_words();
    re(&format!(
        r"\b(?:\d+[A-Za-z]?|(?i:(?:{words})(?:[\s-]+(?:{words})){{0,2}}))\s+(?:\p{{Lu}}[\p{{L}}'-]*\s+){{1,3}}(?:Street|St\.?|Road|Rd\.?|Avenue|Ave\.?|Lane|Ln\.?|Drive|Dr\.?|Boulevard|Blvd\.?|Court|Ct\.?|Place|Way|Close|Crescent|Terrace|Square|Parkway|Highway|Gardens|Grove|Row|Mews|Walk|Park)\b(?:,?\s+(?i:apartment|apt\.?|flat|unit|suite)\s+(?:\d+[A-Za-z]?|[A-Za-z]\b|(?i:(?:{words})\b)))?"
    ))
});

pub(crate) fn addresses(text: &str, tokens: &[Token<'_>], out: &mut Vec<Entity>) {
    let _ = tokens;
    for m in PL_ADDRESS.find_iter(text) {
        out.push(Entity { kind: PiiType::Address, start: m.start(), end: m.end(), confidence: 0.9 });
    }
    for c in PL_ADDRESS_CUED.captures_iter(text) {
        let m = c.get(1).expect("group 1");
        out.push(Entity { kind: PiiType::Address, start: m.start(), end: m.end(), confidence: 0.8 });
    }
    for m in EN_ADDRESS.find_iter(text) {
        out.push(Entity { kind: PiiType::Address, start: m.start(), end: m.end(), confidence: 0.9 });
    }
}

/// The month (1–12) of an English or Polish month name in any case form.
fn month(folded: &str) -> Option<u32> {
    const NAMES: &[(&str, u32)] = &[
        ("january", 1),
        ("february", 2),
        ("march", 3),
        ("april", 4),
        ("may", 5),
        ("june", 6),
        ("july", 7),
        ("august", 8),
        ("september", 9),
        ("october", 10),
        ("november", 11),
        ("december", 12),
        ("jan", 1),
        ("feb", 2),
        ("mar", 3),
        ("apr", 4),
        ("jun", 6),
        ("jul", 7),
        ("aug", 8),
        ("sep", 9),
        ("sept", 9),
        ("oct", 10),
        ("nov", 11),
        ("dec", 12),
    ];
    const PL_STEMS: &[(&str, u32)] = &[
        ("stycz", 1),
        ("styczen", 1),
        ("lut", 2),
        ("marz", 3),
        ("marc", 3),
        ("kwie", 4),
        ("maj", 5),
        ("czerw", 6),
        ("lip", 7),
        ("sierp", 8),
        ("wrzes", 9),
        ("pazdziernik", 10),
        ("listopad", 11),
        ("grud", 12),
    ];
    if let Some(&(_, m)) = NAMES.iter().find(|(n, _)| *n == folded) {
        return Some(m);
    }
    PL_STEMS.iter().find(|(s, _)| folded.starts_with(s) && folded.len() <= s.len() + 4).map(|&(_, m)| m)
}

static NUMERIC_DATE: LazyLock<Regex> = LazyLock::new(|| re(r"\b(?:\d{1,2}[./-]\d{1,2}[./-](?:\d{4}|\d{2})|\d{4}-\d{2}-\d{2})\b"));

fn is_numberish(t: &Token<'_>) -> bool {
    t.is_digits() || number_word(&t.folded).is_some() || {
        let d: String = t.lower.chars().take_while(char::is_ascii_digit).collect();
        !d.is_empty() && matches!(&t.lower[d.len()..], "st" | "nd" | "rd" | "th")
    }
}

/// Dates (written or spoken) said to be a birth date.
pub(crate) fn dates_of_birth(text: &str, tokens: &[Token<'_>], out: &mut Vec<Entity>) {
    for (first, last) in dates(text, tokens) {
        let birth = near(tokens, first, last, 8, 0, cues::BIRTH) || fold(&text[tokens[last].end..]).trim_start().starts_with("urodz");
        if birth {
            out.push(Entity { kind: PiiType::DateOfBirth, start: tokens[first].start, end: tokens[last].end, confidence: 0.9 });
        }
    }
}

/// Every date written ("15.03.1985") or spoken around a month's name ("the fifteenth of March
/// nineteen eighty five"), as its first and last token.
pub(crate) fn dates(text: &str, tokens: &[Token<'_>]) -> Vec<(usize, usize)> {
    let mut dates: Vec<(usize, usize)> = Vec::new();
    for m in NUMERIC_DATE.find_iter(text) {
        dates.push((token_at(tokens, m.start()), token_at(tokens, m.end() - 1)));
    }
    for (k, t) in tokens.iter().enumerate() {
        if month(&t.folded).is_none() || (t.folded == "may" && !t.is_capitalized()) || t.folded == "mar" {
            continue;
        }
        // Numbers (and "the", "of") before and after the month's name.
        let mut first = k;
        while first > 0 && k - first < 4 {
            let p = &tokens[first - 1];
            if is_numberish(p) || (matches!(p.folded.as_str(), "the" | "of") && first >= 2 && is_numberish(&tokens[first - 2])) {
                first -= 1;
            } else {
                break;
            }
        }
        while first < k && !is_numberish(&tokens[first]) {
            first += 1;
        }
        let mut last = k;
        while last + 1 < tokens.len() && last - k < 6 {
            let n = &tokens[last + 1];
            if is_numberish(n) || (n.folded == "and" && last + 2 < tokens.len() && is_numberish(&tokens[last + 2])) {
                last += 1;
            } else {
                break;
            }
        }
        if first == k && last == k {
            continue;
        }
        dates.push((first, last));
    }
    dates
}
