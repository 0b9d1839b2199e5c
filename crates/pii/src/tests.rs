use std::sync::Arc;

use super::*;

fn detector() -> Detector {
    let first = "anna\njan\nannę\nannie\nkatarzyna\njohn\nsarah\nmichael\nwill\npiotr\npiotrem\nmaria";
    let last = "nowak\nkowalski\nkowalskim\nkowalska\nkowalskiej\nsmith\njohnson\nwiśniewski\ndobry\nwilk";
    let common = "will\ndobry\nthe\nyes\nwilk";
    Detector::new(Arc::new(Gazetteer::from_lists(first, last, common)))
}

fn found(text: &str, lang: Lang) -> Vec<(PiiType, String)> {
    detector().detect(text, lang).into_iter().map(|e| (e.kind, text[e.start..e.end].to_owned())).collect()
}

fn one(text: &str, lang: Lang, kind: PiiType, value: &str) {
    let all = found(text, lang);
    assert!(all.contains(&(kind, value.to_owned())), "expected {kind:?} {value:?} in {text:?}, found {all:?}");
}

#[test]
fn phone_numbers_in_digits_and_words() {
    one("Mój numer telefonu to 600 123 456.", Lang::Pl, PiiType::PhoneNumber, "600 123 456");
    one("Proszę dzwonić na +48 601-234-567", Lang::Pl, PiiType::PhoneNumber, "+48 601-234-567");
    one(
        "you can reach me at five five five, two three four, five six seven eight",
        Lang::En,
        PiiType::PhoneNumber,
        "five five five, two three four, five six seven eight",
    );
    one(
        "numer to sześćset jeden, dwieście trzydzieści cztery, pięćset sześćdziesiąt siedem",
        Lang::Pl,
        PiiType::PhoneNumber,
        "sześćset jeden, dwieście trzydzieści cztery, pięćset sześćdziesiąt siedem",
    );
    one("my mobile is 07700 900123", Lang::En, PiiType::PhoneNumber, "07700 900123");
    one("call +1 415 555 2671 tomorrow", Lang::En, PiiType::PhoneNumber, "+1 415 555 2671");
    assert!(found("the order number is 600123456", Lang::En).is_empty(), "an order number is not a phone");
}

#[test]
fn checksum_identifiers() {
    one("PESEL 44051401359", Lang::Pl, PiiType::Pesel, "44051401359");
    one(
        "mój pesel to cztery cztery zero pięć jeden cztery zero jeden trzy pięć dziewięć",
        Lang::Pl,
        PiiType::Pesel,
        "cztery cztery zero pięć jeden cztery zero jeden trzy pięć dziewięć",
    );
    assert!(found("PESEL 44051401358", Lang::Pl).iter().all(|(k, _)| *k != PiiType::Pesel), "bad check digit");
    one("NIP firmy: 526-025-02-74", Lang::Pl, PiiType::Nip, "526-025-02-74");
    one("REGON 010016565", Lang::Pl, PiiType::Regon, "010016565");
    one("numer konta 61 1090 1014 0000 0712 1981 2874", Lang::Pl, PiiType::Iban, "61 1090 1014 0000 0712 1981 2874");
    one("IBAN PL61 1090 1014 0000 0712 1981 2874.", Lang::Pl, PiiType::Iban, "PL61 1090 1014 0000 0712 1981 2874");
    one("my IBAN is GB82 WEST 1234 5698 7654 32", Lang::En, PiiType::Iban, "GB82 WEST 1234 5698 7654 32");
    one("card number 4111 1111 1111 1111 expiring", Lang::En, PiiType::PaymentCard, "4111 1111 1111 1111");
    one("numer dowodu ABA 300000", Lang::Pl, PiiType::IdCard, "ABA 300000");
    one("passport number ZS 0000177", Lang::En, PiiType::Passport, "ZS 0000177");
}

#[test]
fn emails_written_and_spoken() {
    one("write to jan.kowalski@example.com please", Lang::En, PiiType::Email, "jan.kowalski@example.com");
    one("to jan kropka kowalski małpa gmail kropka com", Lang::Pl, PiiType::Email, "jan kropka kowalski małpa gmail kropka com");
    one("it's john dot smith at outlook dot co dot uk", Lang::En, PiiType::Email, "john dot smith at outlook dot co dot uk");
    assert!(found("I'm at home now.", Lang::En).is_empty());
}

#[test]
fn addresses_postal_codes_and_birth_dates() {
    one("mieszkam przy ul. Długiej 5/3, 00-950 Warszawa", Lang::Pl, PiiType::Address, "ul. Długiej 5/3");
    one("mieszkam przy ul. Długiej 5/3, 00-950 Warszawa", Lang::Pl, PiiType::PostalCode, "00-950");
    one("I live at 221B Baker Street, London NW1 6XE", Lang::En, PiiType::Address, "221B Baker Street");
    one("I live at 221B Baker Street, London NW1 6XE", Lang::En, PiiType::PostalCode, "NW1 6XE");
    one("it's twelve Oak Lane, apartment 4", Lang::En, PiiType::Address, "twelve Oak Lane, apartment 4");
    one(
        "urodziłam się piętnastego marca tysiąc dziewięćset osiemdziesiątego piątego",
        Lang::Pl,
        PiiType::DateOfBirth,
        "piętnastego marca tysiąc dziewięćset osiemdziesiątego piątego",
    );
    one("my date of birth is March 15, 1985", Lang::En, PiiType::DateOfBirth, "March 15, 1985");
    one("data urodzenia 15.03.1985", Lang::Pl, PiiType::DateOfBirth, "15.03.1985");
    assert!(found("the meeting is on March 15, 2026", Lang::En).is_empty(), "a date is not a birth date");
}

#[test]
fn names_from_lists_and_cues() {
    one("Dzień dobry, z tej strony Anna Nowak.", Lang::Pl, PiiType::PersonName, "Anna Nowak");
    one("Rozmawiałem wczoraj z panem Kowalskim o tym.", Lang::Pl, PiiType::PersonName, "Kowalskim");
    one("Hi, my name is Sarah Johnson and I'm calling about", Lang::En, PiiType::PersonName, "Sarah Johnson");
    one("Nazywam się Grzegorz Brzęczyszczykiewicz", Lang::Pl, PiiType::PersonName, "Grzegorz Brzęczyszczykiewicz");
    one("thanks, Michael, that helps", Lang::En, PiiType::PersonName, "Michael");
    let none = found("Will you check it? Dobry pomysł. The Wilk family? yes", Lang::En);
    assert!(none.iter().all(|(k, _)| *k != PiiType::PersonName), "{none:?}");
}

#[test]
fn masking_replaces_values_with_placeholders() {
    let text = "Anna Nowak, telefon 600 123 456.";
    let entities = detector().detect(text, Lang::Pl);
    assert_eq!(mask(text, &entities), "[PERSON_NAME], telefon [PHONE_NUMBER].");
    assert_eq!(PiiType::parse("PHONE_NUMBER"), Some(PiiType::PhoneNumber));
    assert_eq!(serde_json::to_string(&PiiType::DateOfBirth).unwrap(), "\"DATE_OF_BIRTH\"");
}
