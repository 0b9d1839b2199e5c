use std::sync::Arc;

use super::*;

fn detector() -> Detector {
    let first = "anna\njan\nannę\nannie\nkatarzyna\njohn\nsarah\nmichael\nwill\npiotr\npiotrem\nmaria";
    let last = "nowak\nkowalski\nkowalskim\nkowalska\nkowalskiej\nsmith\njohnson\nwiśniewski\ndobry\nwilk";
    let common = "will\ndobry\nthe\nyes\nwilk\ndowód\ncome";
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

/// The turns of a call as the pipeline joins them: one line each.
fn dialogue(turns: &[&str], lang: Lang) -> Vec<(PiiType, String)> {
    found(&turns.join("\n"), lang)
}

/// Asserts that the dialogue of `turns` holds each of `expected`, as (type, text).
fn holds(turns: &[&str], lang: Lang, expected: &[(PiiType, &str)]) {
    let said = dialogue(turns, lang);
    for (kind, value) in expected {
        assert!(said.contains(&(*kind, (*value).to_owned())), "{kind:?} {value:?} in {turns:?}: {said:?}");
    }
}

#[test]
fn the_answer_to_a_request_is_that_kind_of_data_however_asr_wrote_it() {
    // The fault: phone-quality ASR turned "three one two, nine nine nine" into words.
    holds(
        &["Can I take the mobile number you're calling about?", "Yes, it's free one two, time, time, time, four five six."],
        Lang::En,
        &[(PiiType::PhoneNumber, "free one two, time, time, time, four five six")],
    );
    // Without the question, the same words are nothing.
    assert!(found("Yes, it's free one two, time, time, time, four five six.", Lang::En).is_empty());
    // A garbled name, which is in no name list.
    let said = dialogue(&["And who am I speaking with?", "Come, Brandon."], Lang::En);
    assert_eq!(said, [(PiiType::PersonName, "Come, Brandon".into())]);
    // A name said before the value, and an address ended by the postcode.
    let said = dialogue(
        &[
            "Can I take your name and the first line of your address, please?",
            "It's Gereth Milz. Twenty-seven Cardigan Road, and the postcode is LS6 2QT.",
        ],
        Lang::En,
    );
    for value in [(PiiType::PersonName, "Gereth Milz"), (PiiType::Address, "Twenty-seven Cardigan Road"), (PiiType::PostalCode, "LS6 2QT")] {
        assert!(said.contains(&(value.0, value.1.into())), "{value:?} in {said:?}");
    }
    // An e-mail spelled out in words, with ASR's capital.
    holds(
        &["Can I get the email you registered with?", "Sure. Its see Brennan seventy four at gmail dot com. All one word."],
        Lang::En,
        &[(PiiType::Email, "see Brennan seventy four at gmail dot com")],
    );
    // Polish: name, then PESEL in words.
    holds(
        &[
            "Poproszę imię, nazwisko i numer PESEL.",
            "Krzysztof Dąbrowski, dziewięćdziesiąt jeden, zero siedem, dwadzieścia pięć, dziewięćset trzy, dziewięćdziesiąt pięć.",
        ],
        Lang::Pl,
        &[
            (PiiType::PersonName, "Krzysztof Dąbrowski"),
            (PiiType::Pesel, "dziewięćdziesiąt jeden, zero siedem, dwadzieścia pięć, dziewięćset trzy, dziewięćdziesiąt pięć"),
        ],
    );
}

#[test]
fn check_digits_raise_the_confidence_and_the_read_back_is_the_same_data() {
    let text = ["Can I take the card number?", "Five three five five, four oh eight five, three six six four, three four six seven.", "Thank you."]
        .join("\n");
    let luhn_fails = detector().detect(&text, Lang::En);
    let text = ["Can I take the card number?", "Five three five five, four oh eight five, three six six four, three four six eight.", "Thank you."]
        .join("\n");
    let luhn_passes = detector().detect(&text, Lang::En);
    assert_eq!(luhn_fails.len(), 1, "{luhn_fails:?}");
    assert_eq!((luhn_fails[0].kind, luhn_passes[0].kind), (PiiType::PaymentCard, PiiType::PaymentCard));
    assert!(luhn_passes[0].confidence > luhn_fails[0].confidence, "{luhn_passes:?} against {luhn_fails:?}");
    // The agent reads a garbled number back in digits: both are the phone number.
    holds(
        &["Could I have a contact number?", "Oh seven seven double oh, nine one for, free to six.", "Okay, so that's 07700 914326. Anything else?"],
        Lang::En,
        &[(PiiType::PhoneNumber, "Oh seven seven double oh, nine one for, free to six"), (PiiType::PhoneNumber, "07700 914326")],
    );
}

#[test]
fn a_question_without_its_answer_marks_nothing() {
    // Answered later, or not at all, or with something else.
    for turns in [
        ["Can I take the card number?", "Just a second, I need to find my wallet."],
        ["Would you like to pay by card?", "Yes, the same one as last time, I've had it for two years."],
        ["Czy mogę prosić o numer telefonu?", "Tak, oczywiście, proszę chwilę poczekać."],
        ["What's your date of birth?", "Why do you need that?"],
    ] {
        assert!(dialogue(&turns, Lang::En).is_empty(), "{turns:?}: {:?}", dialogue(&turns, Lang::En));
    }
}

#[test]
fn only_a_request_is_answered_with_data() {
    // A statement that mentions the name, then a goodbye.
    let said = dialogue(&["If there is anything else, I can't help with the name.", "No, that's it. Bye."], Lang::En);
    assert!(said.is_empty(), "{said:?}");
    // A sentence about an address, answered without a house number.
    let said = dialogue(&["You'll get a letter confirming the change of address.", "Oh, good to know, I'd have panicked."], Lang::En);
    assert!(said.is_empty(), "{said:?}");
    let said = dialogue(&["What's the new address?", "Oh, good to know, I'd have panicked."], Lang::En);
    assert!(said.is_empty(), "{said:?}");
    // Three digits are not a passport number.
    let said = dialogue(&["Could you read me the passport number?", "Sure, it's a Polish passport. PRM and Nielo Nielo 111."], Lang::En);
    assert!(!said.iter().any(|(kind, _)| *kind == PiiType::Passport), "{said:?}");
}

#[test]
fn a_speakers_label_is_not_part_of_the_answer() {
    let said = dialogue(&["[1] Agent: And who am I speaking with?", "[2] Customer: Come, Brandon."], Lang::En);
    assert_eq!(said, [(PiiType::PersonName, "Come, Brandon".into())]);
}

#[test]
fn what_an_answer_holds_must_look_like_the_data_asked_for() {
    let none = |turns: &[&str], lang: Lang| {
        let said = dialogue(turns, lang);
        assert!(said.is_empty(), "{turns:?}: {said:?}");
    };
    // An e-mail has a domain with a dot.
    none(&["Could you email us a couple of photos?", "Sure, I'll send the photos over by Sunday at the latest."], Lang::En);
    // An everyday word opening the answer is not a name.
    none(&["Potrzebuję numer dokumentu z nowym nazwiskiem.", "Dowód jeszcze wyrabiam."], Lang::Pl);
    // An address has a street's name, not only a number.
    none(&["Jaki jest nowy adres?", "Jeszcze jedno, bo moja karta kończy się w grudniu, a nowa poszłaby na stary adres."], Lang::Pl);
    // Two numbers are not a date of birth.
    none(&["Poproszę datę urodzenia.", "Mam dwadzieścia jeden lat."], Lang::Pl);
    // But a name ASR garbled into an everyday word and a name is one.
    assert_eq!(dialogue(&["And who am I speaking with?", "Come, Brandon."], Lang::En), [(PiiType::PersonName, "Come, Brandon".into())]);
}

#[test]
fn a_document_a_date_and_an_address_read_back_are_told_apart() {
    // A date, then a document: the number of the one does not run into the other.
    holds(
        &[
            "Poproszę imię i nazwisko, datę urodzenia i numer dowodu osobistego.",
            "Ewa Jankowska, urodzona siedemnastego września osiemdziesiątego ósmego. Dowód D G R, trzy dziewięć dziewięć, osiem dziewięć dwa.",
        ],
        Lang::Pl,
        &[
            (PiiType::IdCard, "D G R, trzy dziewięć dziewięć, osiem dziewięć dwa"),
            (PiiType::DateOfBirth, "siedemnastego września osiemdziesiątego ósmego"),
        ],
    );
    // Asked for an identity document, the customer names the one they give.
    holds(
        &[
            "Potrzebuję numer dokumentu tożsamości z nowym nazwiskiem.",
            "Dowód jeszcze wyrabiam, ale mam już nowy paszport. E K dziewięć cztery osiem, jeden sześć sześć zero.",
        ],
        Lang::Pl,
        &[(PiiType::Passport, "E K dziewięć cztery osiem, jeden sześć sześć zero")],
    );
    // The agent reads the address back.
    holds(
        &[
            "Jaki jest nowy adres?",
            "Ulica Grunwaldzka sto dwanaście, mieszkania siedem, Gdańsk.",
            "Czyli Grunwaldzka 112 przez 7, 80-309 Gdańsk. Zmieniłem adres.",
        ],
        Lang::Pl,
        &[(PiiType::Address, "Grunwaldzka 112 przez 7"), (PiiType::PostalCode, "80-309")],
    );
}
