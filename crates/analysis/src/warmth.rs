//! Whether the customer ends the call warmly: praise for the help, thanks said with feeling,
//! relief, satisfaction said outright, or an apology for an earlier outburst, in a clause of
//! their last two turns. A brief "great, thanks, bye" is courtesy, not satisfaction: the careful
//! reader who labels a call marks a matter-of-fact call that ends so as neutral, and the small
//! model (and the lexicon, which scores "great" and "thanks" as positive) call most such calls
//! positive. Bare adjectives ("fantastic", "świetnie") and the plain formulas ("thanks very
//! much", "dziękuję bardzo") are courtesy too, and phrases that also open a request ("I'd
//! appreciate it if"), a complaint ("nie spałam przez was") or a tax question ("ulga") are left
//! out. On the 228 tuning calls these phrases occur in the closing sentences of 60 of the 84
//! calls labelled positive and of 5 of the 77 labelled neutral.

use callscope_domain::SentimentLevel;

use crate::sentiment::{CallSentiment, Overall};
use crate::summary::Customer;
use crate::text::{phrase_text, sentences};

/// How many of the customer's last turns are read.
const CLOSING_TURNS: usize = 2;

/// English phrases, folded as [`phrase_text`] folds them ("you've" → "you ve"), each matched
/// at the start of a word of one clause and allowed to end inside one ("grateful" finds
/// "gratefully").
#[rustfmt::skip]
const WARM_EN: &[&str] = &[
    // Thanks said with feeling.
    "thank you so much", "thanks so much", "thank you ever so", "thanks ever so", "thanks a million",
    "thank you a million", "thanks loads", "many thanks", "can t thank you enough",
    "really appreciate", "so appreciate", "truly appreciate", "appreciate your help", "appreciate all your",
    "so grateful", "really grateful", "very grateful", "truly grateful",
    // Praise of the agent or of the help.
    "you ve been very helpful", "you ve been so kind", "you ve been very kind", "you ve been really kind",
    "you ve been ever so kind", "you ve been such a help", "you ve been great", "you ve been brilliant",
    "you ve been amazing", "you ve been a star", "you ve been lovely", "you ve been fantastic",
    "you ve been wonderful", "you re a star", "you re a lifesaver", "you re an angel", "you re a diamond",
    "great help", "big help", "huge help", "real help", "so helpful", "really helpful",
    "saved my bacon", "saved my life", "saved my day", "made my day", "you ve sorted it",
    // Relief, and ease beyond what was feared.
    "what a relief", "relieved", "thank god", "thank goodness", "weight off", "mind at rest",
    "that was painless", "so painless", "that was easy", "dead easy",
    "quicker than i thought", "quicker than i expected", "better than i thought", "better than i expected",
    "easier than i thought", "easier than i expected",
    // Satisfaction said outright.
    "very happy", "so happy", "really happy", "very pleased", "so pleased", "really pleased", "so glad",
    "really glad", "delighted",
    // Sorry for an earlier outburst ("Sorry, I snapped": the comma parts the clauses).
    "sorry for having a go", "sorry for shouting", "sorry for snapping", "sorry for being short", "sorry about earlier",
    "i had a go at you", "i snapped at you", "i was short with you", "i was a bit short with you",
];

/// Polish phrases, folded ("dziękuję" → "dziekuje").
#[rustfmt::skip]
const WARM_PL: &[&str] = &[
    // Thanks said with feeling ("dziękuję bardzo" alone is the plain formula).
    "serdecznie dziek", "naprawde dziek", "ogromnie dziek", "bardzo pani dziek", "bardzo panu dziek",
    "dziekuje pani bardzo", "dziekuje panu bardzo", "dziekuje serdecznie", "dziekuje naprawde", "dziekuje ogromnie",
    "dziekuje pani naprawde", "dziekuje panu naprawde", "dzieki wielkie", "wielkie dzieki",
    // Praise of the agent or of the help.
    "pan mi pomogl", "pani mi pomogla", "mi pan pomogl", "mi pani pomogla", "pan mi bardzo pomogl",
    "pani mi bardzo pomogla", "mi pan bardzo pomogl", "mi pani bardzo pomogla", "pan bardzo pomocn",
    "pani bardzo pomocn", "bardzo pan pomocn", "bardzo pani pomocn", "cierpliwy pan", "cierpliwa pani",
    "bardzo pan mil", "bardzo pani mil", "szybko pan to zalatwil", "szybko pani to zalatwila", "szybko poszlo",
    "sprawnie poszlo", "bardzo sprawnie", "tak sprawnie", "szybko i konkretnie", "szybko i porzadnie",
    "szybko i sprawnie", "super obslug", "poszla mi pani na reke", "poszedl mi pan na reke", "poszla mi na reke",
    "poszedl mi na reke", "uratowal", "ulatwi mi zycie", "ulatwi zycie",
    // Relief, and satisfaction said outright.
    "kamien z serca", "co za ulga", "ulzylo", "uspokoil", "ciesze sie", "bardzo sie ciesze", "jestem zadowolon",
    "bardzo zadowolon",
    // Sorry for an earlier outburst ("przepraszam, że na pana naskoczyłam": the comma parts the
    // clauses).
    "na pana naskoczy", "na pania naskoczy", "przepraszam za nerwy", "przepraszam za wczesniej",
];

/// Words that, among the four before an English phrase in its clause, deny it ("not very
/// happy"; "wouldn't" folds to "wouldn t") or make it a request ("I'd be so grateful if", "I
/// would really appreciate"). "No, thank you so much" answers a question: the comma puts the
/// "no" in a clause of its own.
const DENIALS_EN: &[&str] = &["not", "no", "never", "t", "hardly", "d", "would"];

/// The same for a Polish phrase ("nie jestem zadowolona"); "no" is Polish for "well".
const DENIALS_PL: &[&str] = &["nie", "nigdy"];

/// Words after which the words before them no longer deny what follows: an exclamation ("you
/// don't know how relieved I am", "I couldn't be more pleased").
const EXCLAIMS: &[&str] = &["how", "more"];

/// Words that, opening a later clause of the sentence, take the warmth back ("I appreciate
/// your help, but nothing has changed").
const BUT: &[&str] = &["but", "however", "though", "ale", "jednak", "tylko", "natomiast"];

/// A warm closing: the phrase found, and the customer's sentence that says it.
#[derive(Debug, Clone, PartialEq)]
pub struct Warmth {
    pub phrase: &'static str,
    pub sentence: String,
}

/// The first sentence of the customer's last turns, in the order said, with a clause that
/// holds a warm phrase not denied and not taken back by a "but" after it, and the phrase (both
/// languages' phrases are looked for: a call's language setting is not always its speech's).
pub fn closing_warmth(turns: &[(&str, &str)]) -> Option<Warmth> {
    let customer = Customer::of(turns);
    let mut closing: Vec<&str> = turns.iter().rev().filter(|t| customer.is(t.0)).take(CLOSING_TURNS).map(|t| t.1).collect();
    closing.reverse();
    closing.into_iter().flat_map(sentences).find_map(|sentence| {
        let clauses: Vec<String> = sentence.split([',', ';', ':', '–', '—']).flat_map(|c| c.split(" - ")).map(phrase_text).collect();
        let (at, phrase) = clauses.iter().enumerate().find_map(|(at, folded)| {
            let english = WARM_EN.iter().find(|p| said(folded, p, DENIALS_EN));
            english.or_else(|| WARM_PL.iter().find(|p| said(folded, p, DENIALS_PL))).map(|p| (at, *p))
        })?;
        let taken_back = clauses[at + 1..].iter().any(|c| c.split_whitespace().next().is_some_and(|w| BUT.contains(&w)));
        (!taken_back).then(|| Warmth { phrase, sentence: sentence.to_owned() })
    })
}

/// Whether `phrase` starts at a word of `folded` (a [`phrase_text`]) with none of `denials`
/// among the four words before it, up to an exclamation's [`EXCLAIMS`].
fn said(folded: &str, phrase: &str, denials: &[&str]) -> bool {
    let needle = format!(" {phrase}");
    folded
        .match_indices(&needle)
        .any(|(at, _)| !folded[..at].split_whitespace().rev().take(4).take_while(|w| !EXCLAIMS.contains(w)).any(|w| denials.contains(&w)))
}

/// The customer's mood once their closing is read: a positive reading without warmth is
/// neutral (unless its reader is `sure` of it), and a neutral one with warmth is positive. A
/// negative reading stays: thanks at the end of an unresolved complaint ("I appreciate your
/// help, but...") do not make it positive, and on the tuning calls letting warmth overrule it
/// was no better. A mixed reading stays too: it weighed strong words of both kinds already.
pub fn tempered(overall: Overall, warm: bool, sure: bool) -> Overall {
    match overall {
        Overall::Positive | Overall::VeryPositive if !warm && !sure => Overall::Neutral,
        Overall::Neutral if warm => Overall::Positive,
        _ => overall,
    }
}

/// Tempers `sentiment`'s level by the customer's closing ([`tempered`]); where the level moves,
/// the warm sentence becomes the evidence (none for a move to neutral: the old evidence argued
/// for the old level) and the progression ends at the new level.
pub fn read_closing(sentiment: &mut CallSentiment, turns: &[(&str, &str)], sure: bool) {
    let warmth = closing_warmth(turns);
    let level = tempered(sentiment.overall, warmth.is_some(), sure);
    if level == sentiment.overall {
        return;
    }
    sentiment.evidence = match (level.level(), warmth) {
        (SentimentLevel::Positive, Some(warmth)) => warmth.sentence,
        _ => String::new(),
    };
    sentiment.confidence = sentiment.confidence.min(0.7);
    sentiment.ended(level);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_brief_thanks_is_courtesy_and_praise_or_relief_is_warmth() {
        let courteous = [("agent", "It's done, you'll get the email today."), ("customer", "Brilliant. Cheers, Priya."), ("agent", "Bye now.")];
        assert_eq!(closing_warmth(&courteous), None);
        let grateful = [("agent", "It's done."), ("customer", "Well, you've been very kind. Thank you ever so much."), ("agent", "Take care.")];
        // The first warm sentence as said.
        assert_eq!(closing_warmth(&grateful).map(|w| w.sentence), Some("Well, you've been very kind.".into()));
        let relieved = [("agent", "Gotowe."), ("customer", "Dziękuję, kamień z serca."), ("agent", "Do usłyszenia.")];
        let warmth = closing_warmth(&relieved).expect("relief is warm");
        assert_eq!((warmth.phrase, warmth.sentence.as_str()), ("kamien z serca", "Dziękuję, kamień z serca."));
    }

    #[test]
    fn a_denied_phrase_a_request_formula_or_a_bare_adjective_is_no_warmth() {
        let closing = |said: &'static str| closing_warmth(&[("agent", "Anything else?"), ("customer", said)]);
        for cold in [
            "I'm not very happy with any of this.",
            "Nie jestem zadowolona, ale dobrze.",
            "I'd appreciate it if someone called me back.",
            "I wouldn't say I'm relieved.",
            "Fantastic, thanks, bye.",
            "Świetnie, dziękuję bardzo, do widzenia.",
            "Czy przysługuje mi ulga?",
            "Jaka ulga mi przysługuje?",
            "I'd be so grateful if you could call me back.",
            "I appreciate your help, but nothing has changed.",
            "Well, it's better than it was.",
        ] {
            assert_eq!(closing(cold), None, "{cold}");
        }
        // "No" and "Nie" that answer "anything else?" stand in a clause of their own.
        assert_eq!(closing("No, thank you so much.").map(|w| w.phrase), Some("thank you so much"));
        assert_eq!(closing("Nie, dziękuję pani bardzo.").map(|w| w.phrase), Some("dziekuje pani bardzo"));
        // Polish "no" is "well", and a denial before "how" is an exclamation.
        assert_eq!(closing("No to bardzo pani dziękuję.").map(|w| w.phrase), Some("bardzo pani dziek"));
        assert_eq!(closing("You don't know how relieved I am.").map(|w| w.phrase), Some("relieved"));
    }

    #[test]
    fn a_moved_level_ends_the_progression_with_the_warm_sentence_as_evidence() {
        let language = callscope_domain::Language::En;
        let turns = [("agent", "The refund is on its way."), ("customer", "Oh, what a relief. Bye.")];
        let mut neutral = CallSentiment::judged(Overall::Neutral, 0.9, "The refund is on its way.".into(), language);
        read_closing(&mut neutral, &turns, false);
        assert_eq!((neutral.overall, neutral.evidence.as_str(), neutral.confidence), (Overall::Positive, "Oh, what a relief.", 0.7));
        assert!(neutral.progression.contains("positive"), "{}", neutral.progression);
        let brief = [("agent", "The refund is on its way."), ("customer", "Great, thanks. Bye.")];
        let mut positive = CallSentiment::judged(Overall::Positive, 0.9, "Great, thanks.".into(), language);
        read_closing(&mut positive, &brief, false);
        assert_eq!((positive.overall, positive.evidence.as_str()), (Overall::Neutral, ""));
        assert!(!positive.progression.contains("positive"), "{}", positive.progression);
    }

    #[test]
    fn only_the_customer_s_closing_turns_count() {
        // The agent's warmth is not the customer's, and praise early in the call is not how
        // it ended.
        let turns = [
            ("agent", "Thank you so much for calling, you've been wonderful."),
            ("customer", "You're a star, you sorted it last time. It's broken again."),
            ("agent", "I'll send an engineer."),
            ("customer", "Fine."),
            ("agent", "Anything else?"),
            ("customer", "No. Bye."),
            ("agent", "Thank you so much, you've been wonderful."),
        ];
        assert_eq!(closing_warmth(&turns), None);
    }

    #[test]
    fn positive_needs_warmth_and_warmth_lifts_neutral_but_never_a_negative() {
        assert_eq!(tempered(Overall::Positive, false, false), Overall::Neutral);
        assert_eq!(tempered(Overall::VeryPositive, false, true), Overall::VeryPositive);
        assert_eq!(tempered(Overall::VeryPositive, true, false), Overall::VeryPositive);
        assert_eq!(tempered(Overall::Neutral, true, false), Overall::Positive);
        assert_eq!(tempered(Overall::Mixed, true, false), Overall::Mixed);
        assert_eq!(tempered(Overall::Neutral, false, false), Overall::Neutral);
        assert_eq!(tempered(Overall::Negative, true, false), Overall::Negative);
    }
}
