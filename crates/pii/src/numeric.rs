//! Identifiers and phone numbers among the number runs of a text.

use crate::checksum;
use crate::cues::{self, near};
use crate::numbers::{runs, Run};
use crate::text::Token;
use crate::{clamp, Entity, Lang, PiiType};

/// The longest part of a run tried as one identifier (an IBAN said in 2-digit groups).
const MAX_PIECES: usize = 16;

pub(crate) fn numbers(text: &str, tokens: &[Token<'_>], lang: Lang, out: &mut Vec<Entity>) {
    for run in runs(text, tokens) {
        let n = run.pieces.len();
        for i in 0..n {
            for j in i..n.min(i + MAX_PIECES) {
                let digits = run.digits(i, j);
                if digits.len() > 28 {
                    break;
                }
                candidates(tokens, &run, i, j, &digits, lang, out);
            }
        }
    }
}

fn candidates(tokens: &[Token<'_>], run: &Run, i: usize, j: usize, digits: &str, lang: Lang, out: &mut Vec<Entity>) {
    let (first, last) = (run.pieces[i].first, run.pieces[j].last);
    let plus = run.plus && i == 0;
    let start = if plus { tokens[first].start - 1 } else { tokens[first].start };
    let end = tokens[last].end;
    // A part of a longer run is less likely to be the whole of something.
    let partial = if i > 0 || j + 1 < run.pieces.len() { 0.1 } else { 0.0 };
    let near = |stems: &[&str]| near(tokens, first, last, 8, 2, stems);
    let mut push = |kind: PiiType, confidence: f32| out.push(Entity { kind, start, end, confidence: clamp(confidence - partial) });
    let len = digits.len();

    if len == 26 && checksum::nrb(digits) {
        let prefixed = first > 0 && tokens[first - 1].text == "PL";
        push(PiiType::Iban, if near(cues::IBAN) || prefixed { 0.99 } else { 0.93 });
    }
    if (13..=19).contains(&len) && checksum::luhn(digits) {
        match checksum::card_scheme(digits) {
            Some(_) => push(PiiType::PaymentCard, if near(cues::CARD) { 0.98 } else { 0.88 }),
            None if near(cues::CARD) => push(PiiType::PaymentCard, 0.75),
            None => {}
        }
    }
    if len == 11 && checksum::pesel(digits) {
        push(PiiType::Pesel, if near(cues::PESEL) { 0.99 } else { 0.85 });
    }
    if len == 10 && checksum::nip(digits) {
        let confidence = if near(cues::NIP) {
            0.99
        } else if lang == Lang::Pl && !near(cues::PHONE_SPECIFIC) {
            0.7
        } else {
            0.45
        };
        push(PiiType::Nip, confidence);
    }
    if (len == 9 || len == 14) && checksum::regon(digits) {
        let confidence = if near(cues::REGON) {
            0.99
        } else if len == 14 {
            0.75
        } else {
            0.3
        };
        push(PiiType::Regon, confidence);
    }
    if len == 5 && near(cues::POSTAL) {
        push(PiiType::PostalCode, 0.8);
    }

    // Phone numbers: their shape, then the words around them.
    let shape = phone_shape(digits, plus, lang);
    if shape > 0.0 {
        // A phone word ("telefon", "call") closer than another number's word ("zamówienia",
        // "order") decides; "number" alone only helps when no other kind of number is named.
        let specific = cues::distance(tokens, first, 8, cues::PHONE_SPECIFIC).or_else(|| near(cues::PHONE_SPECIFIC).then_some(9));
        let generic = near(cues::PHONE_GENERIC);
        let other = cues::distance(tokens, first, 8, cues::NOT_PHONE).or_else(|| near(cues::NOT_PHONE).then_some(9));
        let confidence = shape
            + match (specific, other) {
                (Some(p), Some(o)) if p < o => 0.3,
                (Some(_), None) => 0.3,
                (_, Some(_)) => -0.5,
                (None, None) if generic => 0.2,
                (None, None) => 0.0,
            };
        push(PiiType::PhoneNumber, confidence);
    }
}

/// How much the digits look like a phone number by themselves (0 = not at all).
fn phone_shape(d: &str, plus: bool, lang: Lang) -> f32 {
    let len = d.len();
    let first = d.as_bytes()[0];
    if plus {
        return if (8..=15).contains(&len) && first != b'0' { 0.85 } else { 0.0 };
    }
    match len {
        // Polish: no trunk prefix, never starts with 0.
        9 if first != b'0' => 0.6,
        // 0048 or 48 + 9 digits.
        13 if d.starts_with("0048") => 0.85,
        11 if d.starts_with("48") && d.as_bytes()[2] != b'0' => 0.75,
        // US (NANP): area code and exchange start with 2–9; UK national numbers start with 0.
        10 if (b'2'..=b'9').contains(&first) && (b'2'..=b'9').contains(&d.as_bytes()[3]) => {
            if lang == Lang::En {
                0.6
            } else {
                0.45
            }
        }
        10 | 11 if first == b'0' && d.as_bytes()[1] != b'0' => 0.6,
        11 if first == b'1' && (b'2'..=b'9').contains(&d.as_bytes()[1]) => 0.65,
        12 if d.starts_with("44") && d.as_bytes()[2] != b'0' => 0.7,
        14 if d.starts_with("0044") => 0.8,
        _ => 0.0,
    }
}
