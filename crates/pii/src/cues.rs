//! Context words: folded stems matched at the start of the words near a candidate.

use crate::text::Token;

pub(crate) const PHONE_SPECIFIC: &[&str] = &[
    "phone", "telephone", "call", "mobile", "cell", "reach", "ring", "landline", "extension", "contact", "dial", "text", "telefon", "komork",
    "zadzwon", "dzwon", "oddzwon", "kontakt", "sms", "esemes", "whatsapp",
];
pub(crate) const PHONE_GENERIC: &[&str] = &["number", "numer", "no"];
pub(crate) const NOT_PHONE: &[&str] = &[
    "order", "invoice", "reference", "ref", "case", "ticket", "amount", "pln", "zlot", "euro", "dolar", "dollar", "pound", "funt", "policy", "polis",
    "tracking", "parcel", "przesylk", "paczk", "umow", "contract", "zamowien", "faktur", "sprawy", "zgloszeni", "reklamacj", "kwot", "customer",
    "klienta", "account", "konta", "rachunk", "pesel", "nip", "regon", "karty", "card", "serial", "seryjn", "transakcj", "transaction", "kod",
    "code", "pin",
];
pub(crate) const PESEL: &[&str] = &["pesel"];
pub(crate) const NIP: &[&str] = &["nip", "podatkow", "vat", "tax"];
pub(crate) const REGON: &[&str] = &["regon"];
pub(crate) const IBAN: &[&str] = &["iban", "konto", "konta", "kontem", "rachun", "account", "bank", "przelew", "transfer", "wplat", "wyplat"];
pub(crate) const CARD: &[&str] = &["card", "kart", "visa", "mastercard", "credit", "debit", "amex", "kredytow", "debetow", "platnicz"];
pub(crate) const ID_CARD: &[&str] = &["dowod", "osobist", "identity", "id"];
pub(crate) const PASSPORT: &[&str] = &["paszport", "passport"];
pub(crate) const POSTAL: &[&str] = &["kod", "pocztow", "postcode", "postal", "zip"];
pub(crate) const BIRTH: &[&str] = &["urodz", "born", "birth", "dob", "birthday", "urodzin"];

/// Whether a word starts with one of `stems` (a stem of two letters or fewer must be the whole
/// word).
pub(crate) fn starts_with_any(t: &Token<'_>, stems: &[&str]) -> bool {
    stems.iter().any(|s| t.folded.starts_with(s) && (s.len() > 2 || t.folded.len() == s.len()))
}

/// Whether any word in `tokens[from..to]` starts with one of `stems`.
pub(crate) fn any(tokens: &[Token<'_>], from: usize, to: usize, stems: &[&str]) -> bool {
    tokens[from.min(tokens.len())..to.min(tokens.len())].iter().any(|t| starts_with_any(t, stems))
}

/// Whether one of `stems` is among the `window` words before token `first` (or the `after`
/// words after token `last`).
pub(crate) fn near(tokens: &[Token<'_>], first: usize, last: usize, window: usize, after: usize, stems: &[&str]) -> bool {
    any(tokens, first.saturating_sub(window), first, stems) || any(tokens, last + 1, last + 1 + after, stems)
}

/// How many words before token `first` the closest of `stems` is (1 = right before it),
/// within `window` words.
pub(crate) fn distance(tokens: &[Token<'_>], first: usize, window: usize, stems: &[&str]) -> Option<usize> {
    (1..=window.min(first)).find(|&d| any(tokens, first - d, first - d + 1, stems))
}

/// The index of the first token starting at or after byte `offset`.
pub(crate) fn token_at(tokens: &[Token<'_>], offset: usize) -> usize {
    tokens.partition_point(|t| t.end <= offset)
}
