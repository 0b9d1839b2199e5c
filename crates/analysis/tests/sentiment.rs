//! Sentiment with the real lexicons (installed by `callscope models install --profile test`):
//! call-centre sentences in English and Polish get the sentiment a person would give them.

use std::path::PathBuf;

use callscope_analysis::sentiment::{call_sentiment, sentence_score, Lexicon, Overall};
use callscope_domain::Language;

fn lexicon(name: &str) -> Lexicon {
    let dir = std::env::var_os("CALLSCOPE_TEST_MODELS_DIR").map_or_else(callscope_models::default_dir, PathBuf::from).join("sentiment-lexicons");
    assert!(dir.join(".installed").is_file(), "{} is missing: run `callscope models install --profile test`", dir.display());
    let l = Lexicon::load(&dir.join(name)).unwrap();
    assert!(l.len() > 5000, "{name} has {} entries", l.len());
    l
}

#[test]
fn english_sentences_and_calls() {
    let en = lexicon("en_valence.txt");
    for (text, sign) in [
        ("Thank you so much, that was really helpful, I am very happy with the service.", 1.0),
        ("This is the third time I am calling, I am extremely disappointed and angry.", -1.0),
        ("The product is broken and nobody helped me, this is awful.", -1.0),
        ("I'm not happy with this at all.", -1.0),
        ("Great, that works perfectly now!", 1.0),
    ] {
        let s = sentence_score(&en, text);
        assert!(s * sign > 0.2, "{text:?} scored {s}");
    }
    assert_eq!(sentence_score(&en, "The parcel will arrive on Thursday."), 0.0);
    let call = call_sentiment(
        &en,
        &[
            ("customer", "I have been waiting for two weeks and the order still has not arrived, this is terrible."),
            ("agent", "I am sorry to hear that. I have sent a replacement with express delivery today."),
            ("customer", "Oh, great, thank you, that is very kind of you."),
        ],
        Language::En,
    );
    assert_eq!(call.progression, "started negative, ended positive", "{call:?}");
}

#[test]
fn polish_sentences_and_calls() {
    let pl = lexicon("pl_valence.txt");
    for (text, sign) in [
        ("Dziękuję bardzo, jestem bardzo zadowolona, wszystko działa świetnie.", 1.0),
        ("Jestem bardzo rozczarowany, to jest skandal.", -1.0),
        ("Niestety produkt jest uszkodzony i fatalnie zapakowany.", -1.0),
        ("Nie jestem zadowolony z obsługi.", -1.0),
        ("Super, dziękuję za szybką pomoc!", 1.0),
    ] {
        let s = sentence_score(&pl, text);
        assert!(s * sign > 0.2, "{text:?} scored {s}");
    }
    let call = call_sentiment(
        &pl,
        &[
            ("klientka", "Dzwonię trzeci raz, jestem bardzo zła, nikt mi nie pomógł, to skandal."),
            ("konsultant", "Bardzo przepraszam, jeszcze dziś wyślemy nowy telefon."),
            ("klientka", "Dobrze, dziękuję."),
        ],
        Language::Pl,
    );
    // An angry customer calmed down at the end: not a positive call.
    assert!(matches!(call.overall, Overall::Mixed | Overall::Negative | Overall::VeryNegative), "{call:?}");
    assert_eq!(call.progression, "na początku negatywny, na końcu pozytywny", "{call:?}");
}
