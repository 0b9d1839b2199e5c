//! Personal data in call transcripts, Polish and English: what it is, where it is, how sure we
//! are, and the transcript with it masked.
//!
//! Detection is rules over the words as ASR writes them: numbers are read whether they come as
//! digits or words ("five five five…", "pięćset sześćdziesiąt…"); identifiers with check digits
//! (PESEL, NIP, REGON, IBAN, payment cards, Polish ID cards and passports) must pass them;
//! context words ("PESEL", "my number is", "urodziłem się") raise or decide the type; names
//! come from gazetteers with Polish inflected forms and from cues ("nazywam się", "pani",
//! "my name is").

use std::sync::Arc;

pub mod checksum;
pub mod corpus;
mod cues;
mod dialogue;
mod gazetteer;
mod names;
mod numbers;
mod numeric;
mod patterns;
mod text;

pub use gazetteer::{Gazetteer, GazetteerError};

/// The kinds of personal data found. The names (`as_str`) are stable: they are the keys of a
/// call's `piiStatistics.types` and the placeholders of masked text (`[PHONE_NUMBER]`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "SCREAMING_SNAKE_CASE")]
#[non_exhaustive]
pub enum PiiType {
    /// An e-mail address, written or spelled out ("jan kropka nowak małpa gmail kropka com").
    Email,
    /// A phone number: Polish (9 digits, +48), E.164, US and UK forms, in digits or words.
    PhoneNumber,
    /// Polish personal number (checksum and birth date checked).
    Pesel,
    /// Polish tax id (checksum).
    Nip,
    /// Polish business register number, 9 or 14 digits (checksum).
    Regon,
    /// Bank account: IBAN of any listed country or a Polish 26-digit account number (mod 97).
    Iban,
    /// Payment card number (Luhn and a card scheme's prefix and length).
    PaymentCard,
    /// Polish identity card number (three letters, six digits, check digit).
    IdCard,
    /// Polish passport number (two letters, seven digits, check digit).
    Passport,
    /// A date said to be someone's birth date.
    DateOfBirth,
    /// Polish, UK or US postal code.
    PostalCode,
    /// Street address: street and house/flat number.
    Address,
    /// A person's first name and/or surname.
    PersonName,
}

impl PiiType {
    /// Every type, in a stable order.
    pub const ALL: [PiiType; 13] = [
        Self::Email,
        Self::PhoneNumber,
        Self::Pesel,
        Self::Nip,
        Self::Regon,
        Self::Iban,
        Self::PaymentCard,
        Self::IdCard,
        Self::Passport,
        Self::DateOfBirth,
        Self::PostalCode,
        Self::Address,
        Self::PersonName,
    ];

    /// The stable name.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Email => "EMAIL",
            Self::PhoneNumber => "PHONE_NUMBER",
            Self::Pesel => "PESEL",
            Self::Nip => "NIP",
            Self::Regon => "REGON",
            Self::Iban => "IBAN",
            Self::PaymentCard => "PAYMENT_CARD",
            Self::IdCard => "ID_CARD",
            Self::Passport => "PASSPORT",
            Self::DateOfBirth => "DATE_OF_BIRTH",
            Self::PostalCode => "POSTAL_CODE",
            Self::Address => "ADDRESS",
            Self::PersonName => "PERSON_NAME",
        }
    }

    /// One line on what the type covers, for the API description.
    pub fn description(self) -> &'static str {
        match self {
            Self::Email => "e-mail address, written or spelled out (\"jan kropka nowak małpa wp kropka pl\")",
            Self::PhoneNumber => "phone number: Polish (9 digits, +48), E.164, US and UK forms, in digits or words",
            Self::Pesel => "Polish personal number (check digit and birth date verified)",
            Self::Nip => "Polish tax identification number (check digit verified)",
            Self::Regon => "Polish business register number, 9 or 14 digits (check digits verified)",
            Self::Iban => "bank account: IBAN or Polish 26-digit account number (mod 97 verified)",
            Self::PaymentCard => "payment card number (Luhn and the card scheme's prefix and length)",
            Self::IdCard => "Polish identity card number (check digit verified)",
            Self::Passport => "Polish passport number (check digit verified)",
            Self::DateOfBirth => "a date said to be a birth date",
            Self::PostalCode => "Polish, UK or US postal code",
            Self::Address => "street address with house and flat number",
            Self::PersonName => "a person's first name and/or surname, Polish inflected forms included",
        }
    }

    /// The type of a stable name.
    pub fn parse(name: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|t| t.as_str() == name)
    }

    /// What masked text shows instead of the value.
    pub fn placeholder(self) -> String {
        format!("[{}]", self.as_str())
    }
}

/// One piece of personal data in a text.
#[derive(Debug, Clone, PartialEq)]
pub struct Entity {
    /// What it is.
    pub kind: PiiType,
    /// Byte offsets in the text.
    pub start: usize,
    pub end: usize,
    /// 0–1.
    pub confidence: f32,
}

/// The language the call was transcribed in: a hint for ambiguous numbers (a 10-digit number
/// is more likely a NIP in Polish, a phone number in English).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Lang {
    #[default]
    En,
    Pl,
}

/// Entities below this confidence are not reported.
pub const DEFAULT_THRESHOLD: f32 = 0.5;

/// The detector: stateless apart from its word lists, cheap to share.
#[derive(Debug, Clone)]
pub struct Detector {
    gazetteer: Arc<Gazetteer>,
    threshold: f32,
}

impl Detector {
    /// A detector over `gazetteer`.
    pub fn new(gazetteer: Arc<Gazetteer>) -> Self {
        Self { gazetteer, threshold: DEFAULT_THRESHOLD }
    }

    /// Finds personal data in `text`, in order, not overlapping.
    pub fn detect(&self, text: &str, lang: Lang) -> Vec<Entity> {
        let tokens = text::tokens(text);
        let mut found = Vec::new();
        patterns::emails(text, &mut found);
        patterns::written_ibans(text, &mut found);
        patterns::documents(text, &tokens, &mut found);
        numeric::numbers(text, &tokens, lang, &mut found);
        patterns::postal_codes(text, &tokens, &mut found);
        patterns::addresses(text, &tokens, &mut found);
        patterns::dates_of_birth(text, &tokens, &mut found);
        names::person_names(text, &tokens, &self.gazetteer, &mut found);
        dialogue::answers(text, &tokens, &self.gazetteer, &mut found);
        resolve(found, self.threshold)
    }
}

/// Keeps the most confident of overlapping candidates (longer first on a tie).
fn resolve(mut candidates: Vec<Entity>, threshold: f32) -> Vec<Entity> {
    candidates.retain(|e| e.confidence >= threshold && e.end > e.start);
    candidates.sort_by(|a, b| b.confidence.total_cmp(&a.confidence).then((b.end - b.start).cmp(&(a.end - a.start))));
    let mut kept: Vec<Entity> = Vec::new();
    for c in candidates {
        if kept.iter().all(|k| c.end <= k.start || c.start >= k.end) {
            kept.push(c);
        }
    }
    kept.sort_by_key(|e| e.start);
    kept
}

/// `text` with each entity replaced by its placeholder.
pub fn mask(text: &str, entities: &[Entity]) -> String {
    let mut sorted: Vec<&Entity> = entities.iter().collect();
    sorted.sort_by_key(|e| e.start);
    let mut out = String::with_capacity(text.len());
    let mut at = 0;
    for e in sorted {
        if e.start < at || e.end > text.len() {
            continue;
        }
        out.push_str(&text[at..e.start]);
        out.push_str(&e.kind.placeholder());
        at = e.end;
    }
    out.push_str(&text[at..]);
    out
}

/// Every digit said in `text`, in order, whether written ("600 123") or spoken ("six oh two",
/// "double seven", "sześćset"): what a number becomes once ASR's spelling is set aside. Used to
/// compare numbers across transcripts of the same call.
pub fn spoken_digits(text: &str) -> String {
    let tokens = text::tokens(text);
    numbers::runs(text, &tokens).iter().map(|run| run.digits(0, run.pieces.len() - 1)).collect()
}

/// Confidence clamped to 0–1.
pub(crate) fn clamp(c: f32) -> f32 {
    c.clamp(0.0, 1.0)
}

#[cfg(test)]
mod tests;
