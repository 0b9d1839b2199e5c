//! Lexicon sentiment for calls, English and Polish, in the manner of VADER (Hutto & Gilbert,
//! 2014): word valences from a lexicon, strengthened by boosters ("very", "bardzo"), weakened by
//! dampeners ("slightly", "trochę"), flipped by a negation in the three words before ("not",
//! "nie"), the clause after "but"/"ale" weighted over the one before, capitals and exclamation
//! marks as emphasis, ritual politeness ("thank you", "przepraszam") discounted; a sentence's
//! sum squashed to −1…1. A call's sentiment is the mean over its sentences that carry any; each
//! turn gets its own, and the progression is read from the customer's turns: where they started,
//! where they ended, and, so that it never contradicts the overall level, that level between
//! them when it is neither. Start and end are the first and last quarter of their turns.

use std::collections::HashMap;
use std::path::Path;

use callscope_domain::{Language, SentimentLevel};

/// Word → valence (−4…4).
#[derive(Debug, Default)]
pub struct Lexicon {
    valence: HashMap<Box<str>, f32>,
}

impl Lexicon {
    /// Reads `word<TAB>valence` lines.
    ///
    /// # Errors
    /// A file that cannot be read.
    pub fn load(path: &Path) -> std::io::Result<Self> {
        Ok(Self::parse(&std::fs::read_to_string(path)?))
    }

    /// Parses `word<TAB>valence` lines (others are skipped).
    pub fn parse(text: &str) -> Self {
        let valence = text
            .lines()
            .filter_map(|l| {
                let (w, v) = l.split_once('\t')?;
                Some((w.to_lowercase().into_boxed_str(), v.trim().parse().ok()?))
            })
            .collect();
        Self { valence }
    }

    /// Entries.
    pub fn len(&self) -> usize {
        self.valence.len()
    }

    /// Whether it has none.
    pub fn is_empty(&self) -> bool {
        self.valence.is_empty()
    }

    fn get(&self, word: &str) -> Option<f32> {
        self.valence.get(word).copied()
    }
}

const BOOST: f32 = 0.293;
const CAPS: f32 = 0.733;
const NEGATION: f32 = -0.74;
const BOOSTERS: &[&str] = &[
    "very", "really", "extremely", "so", "totally", "absolutely", "completely", "incredibly", "highly", "truly", "bardzo", "naprawdę", "niezwykle",
    "strasznie", "ogromnie", "totalnie", "absolutnie", "całkowicie", "mega", "super", "niesamowicie", "wyjątkowo",
];
const DAMPENERS: &[&str] = &[
    "slightly", "somewhat", "barely", "hardly", "kind", "sort", "little", "bit", "marginally", "trochę", "nieco", "lekko", "odrobinę", "raczej",
    "dość",
];
const NEGATORS: &[&str] = &[
    "not", "no", "never", "none", "nobody", "nothing", "neither", "nor", "cannot", "without", "isn't", "aren't", "wasn't", "weren't", "don't",
    "doesn't", "didn't", "won't", "wouldn't", "can't", "couldn't", "shouldn't", "haven't", "hasn't", "nie", "nigdy", "bez", "żaden", "żadna",
    "żadne", "żadnego", "ani", "nikt", "nic",
];
const BUT: &[&str] = &["but", "however", "ale", "jednak", "lecz", "natomiast"];
/// Ritual politeness in calls ("thank you", "przepraszam"): it says little about how the call
/// went, so it counts for less.
const COURTESY: &[&str] = &[
    "thank", "thanks", "please", "sorry", "welcome", "apologise", "apologize", "apologies", "dziękuję", "dziękujemy", "dzięki", "proszę",
    "przepraszam", "przepraszamy", "uprzejmie", "pozdrawiam",
];
const COURTESY_WEIGHT: f32 = 0.3;

/// The compound score (−1…1) of one sentence.
pub fn sentence_score(lexicon: &Lexicon, sentence: &str) -> f32 {
    let raw: Vec<&str> = sentence.split(|c: char| !(c.is_alphanumeric() || c == '\'')).filter(|w| !w.is_empty()).collect();
    let words: Vec<String> = raw.iter().map(|w| w.to_lowercase()).collect();
    let shouting = raw.iter().any(|w| w.chars().any(char::is_lowercase));
    let but_at = words.iter().position(|w| BUT.contains(&w.as_str()));
    let mut sum = 0.0f32;
    for (i, word) in words.iter().enumerate() {
        if BOOSTERS.contains(&word.as_str()) || DAMPENERS.contains(&word.as_str()) {
            continue;
        }
        let Some(mut v) = lexicon.get(word) else { continue };
        if COURTESY.contains(&word.as_str()) {
            v *= COURTESY_WEIGHT;
        }
        if shouting && raw[i].len() > 1 && raw[i].chars().all(|c| !c.is_lowercase()) && raw[i].chars().any(char::is_alphabetic) {
            v += CAPS * v.signum();
        }
        for back in 1..=3.min(i) {
            let before = words[i - back].as_str();
            let scale = 1.0 - 0.05 * (back - 1) as f32;
            if BOOSTERS.contains(&before) {
                v += BOOST * scale * v.signum();
            } else if DAMPENERS.contains(&before) {
                v -= BOOST * scale * v.signum();
            }
        }
        if (1..=3.min(i)).any(|back| NEGATORS.contains(&words[i - back].as_str()) || words[i - back].ends_with("n't")) {
            v *= NEGATION;
        }
        if let Some(b) = but_at {
            v *= if i < b {
                0.5
            } else if i > b {
                1.5
            } else {
                1.0
            };
        }
        sum += v;
    }
    if sum != 0.0 {
        let bangs = sentence.matches('!').count().min(4) as f32;
        sum += bangs * 0.292 * sum.signum();
    }
    sum / (sum * sum + 15.0).sqrt()
}

/// `overallSentiment` values (decisions §4): the domain's, which the stored analysis carries.
pub use callscope_domain::OverallSentiment as Overall;

/// A call's sentiment.
#[derive(Debug, Clone, PartialEq)]
pub struct CallSentiment {
    pub overall: Overall,
    /// Mean compound score of the sentences with sentiment.
    pub score: f32,
    /// How the customer's sentiment moved over the call, in the call's language.
    pub progression: String,
    pub confidence: f32,
    /// The sentence that shows it best.
    pub evidence: String,
    /// Each turn's score (−1…1), `None` for a turn that carries no sentiment.
    pub turns: Vec<Option<f32>>,
    /// The level the customer started and ended at, from their turns (all turns when theirs
    /// carry none); `None` for a call with no sentiment at all.
    pub arc: Option<(SentimentLevel, SentimentLevel)>,
    /// The language the progression is written in.
    pub language: Language,
}

fn level(score: f32) -> SentimentLevel {
    match score {
        s if s >= 0.15 => SentimentLevel::Positive,
        s if s <= -0.15 => SentimentLevel::Negative,
        _ => SentimentLevel::Neutral,
    }
}

/// The sentences of a text, as the sentiment reads them.
fn sentences_of(text: &str) -> impl Iterator<Item = &str> {
    text.split_inclusive(['.', '?', '!', '\n']).map(str::trim).filter(|s| !s.is_empty())
}

fn mean(xs: impl IntoIterator<Item = f32>) -> Option<f32> {
    let (sum, n) = xs.into_iter().fold((0.0, 0usize), |(s, n), x| (s + x, n + 1));
    (n > 0).then(|| sum / n as f32)
}

/// The sentiment of a call from its turns, given as (speaker, text), in `language`.
pub fn call_sentiment(lexicon: &Lexicon, turns: &[(&str, &str)], language: Language) -> CallSentiment {
    let scored: Vec<(usize, &str, f32)> = turns
        .iter()
        .enumerate()
        .flat_map(|(turn, (_, text))| sentences_of(text).map(move |s| (turn, s)))
        .map(|(turn, s)| (turn, s, sentence_score(lexicon, s)))
        .filter(|(_, _, c)| c.abs() >= 0.05)
        .collect();
    let per_turn: Vec<Option<f32>> = (0..turns.len()).map(|t| mean(scored.iter().filter(|x| x.0 == t).map(|x| x.2))).collect();
    let Some(score) = mean(scored.iter().map(|x| x.2)) else {
        let mut none = CallSentiment {
            overall: Overall::Neutral,
            score: 0.0,
            progression: String::new(),
            confidence: 0.3,
            evidence: String::new(),
            turns: per_turn,
            arc: None,
            language,
        };
        none.describe(None);
        return none;
    };
    let strongest_up = scored.iter().map(|x| x.2).fold(f32::MIN, f32::max);
    let strongest_down = scored.iter().map(|x| x.2).fold(f32::MAX, f32::min);
    let overall = if score >= 0.55 {
        Overall::VeryPositive
    } else if score >= 0.15 {
        Overall::Positive
    } else if score <= -0.55 {
        Overall::VeryNegative
    } else if score <= -0.15 {
        Overall::Negative
    } else if strongest_up >= 0.5 && strongest_down <= -0.5 {
        Overall::Mixed
    } else {
        Overall::Neutral
    };
    // The customer's turns that carry sentiment, in order; everyone's when theirs carry none.
    let customer = crate::summary::Customer::of(turns);
    let theirs: Vec<f32> = per_turn.iter().zip(turns).filter(|(_, t)| customer.is(t.0)).filter_map(|(s, _)| *s).collect();
    let read: Vec<f32> = if theirs.is_empty() { per_turn.iter().filter_map(|s| *s).collect() } else { theirs };
    let part = read.len().div_ceil(4);
    let arc = match (mean(read[..part].iter().copied()), mean(read[read.len() - part..].iter().copied())) {
        (Some(start), Some(end)) => Some((level(start), level(end))),
        _ => None,
    };
    let evidence = if score >= 0.0 { scored.iter().max_by(|a, b| a.2.total_cmp(&b.2)) } else { scored.iter().min_by(|a, b| a.2.total_cmp(&b.2)) }
        .map_or("", |x| x.1);
    // More sentences with sentiment and a clearer mean: more confidence.
    let confidence = (0.4 + 0.4 * score.abs() + 0.04 * scored.len().min(5) as f32).min(0.9);
    let mut call = CallSentiment {
        overall,
        score,
        progression: String::new(),
        confidence: (confidence * 100.0).round() / 100.0,
        evidence: evidence.to_owned(),
        turns: per_turn,
        arc,
        language,
    };
    call.describe(None);
    call
}

impl CallSentiment {
    /// A judge's reading of the whole call (a model's): `overall`, with its confidence and
    /// evidence, before the turns are read ([`CallSentiment::with_turns_of`]).
    pub fn judged(overall: Overall, confidence: f32, evidence: String, language: Language) -> Self {
        let mut call =
            CallSentiment { overall, score: 0.0, progression: String::new(), confidence, evidence, turns: Vec::new(), arc: None, language };
        call.describe(None);
        call
    }

    /// This reading with the turns of `read` (the lexicon's), and its arc of the customer's
    /// sentiment unless the judge gave one (a long call judged part by part); the overall level
    /// stays, and the progression passes through it.
    #[must_use]
    pub fn with_turns_of(mut self, read: CallSentiment) -> Self {
        self.turns = read.turns;
        self.arc = self.arc.or(read.arc);
        self.describe(None);
        self
    }

    /// Takes `overall` from a judge of how the customer felt by the end of the call: the
    /// progression ends at its level.
    pub fn ended(&mut self, overall: Overall) {
        self.overall = overall;
        self.describe(Some(overall.level()));
    }

    /// Writes the progression: the customer's start, the overall level when it does not lie
    /// between their start and their end (so the two never contradict), and their end, or
    /// `ending` when a judge of the end said it.
    fn describe(&mut self, ending: Option<SentimentLevel>) {
        let overall = self.overall.level();
        let (start, end) = self.arc.unwrap_or((overall, overall));
        let end = ending.unwrap_or(end);
        let rank = |l: SentimentLevel| match l {
            SentimentLevel::Negative => -1,
            SentimentLevel::Positive => 1,
            SentimentLevel::Neutral | SentimentLevel::Unknown => 0,
        };
        // A level between the start and the end is what a mean of the two reads as: no
        // contradiction. One outside them was somewhere in the middle of the call.
        let between = rank(start).min(rank(end)) <= rank(overall) && rank(overall) <= rank(start).max(rank(end));
        let mut steps = vec![start];
        if ending.is_none() && !between {
            steps.push(overall);
        }
        if *steps.last().unwrap_or(&start) != end {
            steps.push(end);
        }
        let mixed = self.overall == Overall::Mixed && steps.len() == 1;
        self.progression = progression(&steps, mixed, self.language);
    }
}

/// The words for a progression through `steps` (one to three levels).
fn progression(steps: &[SentimentLevel], mixed: bool, language: Language) -> String {
    let word = |l: SentimentLevel| match (language, l) {
        (Language::En, l) => l.as_str(),
        (Language::Pl, SentimentLevel::Positive) => "pozytywny",
        (Language::Pl, SentimentLevel::Neutral) => "neutralny",
        (Language::Pl, SentimentLevel::Negative) => "negatywny",
        (Language::Pl, SentimentLevel::Unknown) => "nieznany",
    };
    match (language, steps) {
        (Language::En, _) if mixed => "mixed throughout".into(),
        (Language::Pl, _) if mixed => "mieszany przez całą rozmowę".into(),
        (Language::En, [only]) => format!("{} throughout", word(*only)),
        (Language::Pl, [only]) => format!("{} przez całą rozmowę", word(*only)),
        (Language::En, [a, b]) => format!("started {}, ended {}", word(*a), word(*b)),
        (Language::Pl, [a, b]) => format!("na początku {}, na końcu {}", word(*a), word(*b)),
        (Language::En, [a, m, b, ..]) => format!("started {}, turned {}, ended {}", word(*a), word(*m), word(*b)),
        (Language::Pl, [a, m, b, ..]) => format!("na początku {}, potem {}, na końcu {}", word(*a), word(*m), word(*b)),
        (_, []) => String::new(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use callscope_domain::SentimentLevel;

    fn lexicon() -> Lexicon {
        Lexicon::parse("good\t1.9\ngreat\t3.1\nbad\t-2.5\nterrible\t-2.1\nhappy\t2.7\ndobrze\t1.5\nźle\t-2.24\nzadowolony\t2.87\nproblem\t-1.67\n")
    }

    #[test]
    fn modifiers_change_a_sentence_the_way_vader_does() {
        let l = lexicon();
        let plain = sentence_score(&l, "The service was good.");
        assert!(plain > 0.3);
        assert!(sentence_score(&l, "The service was very good.") > plain, "boosted");
        assert!(sentence_score(&l, "The service was slightly good.") < plain, "dampened");
        assert!(sentence_score(&l, "The service was not good.") < 0.0, "negated");
        assert!(sentence_score(&l, "The service was GOOD.") > plain, "capitals");
        assert!(sentence_score(&l, "The service was good!!") > plain, "exclamation");
        assert!(sentence_score(&l, "The food was good, but the service was terrible.") < 0.0, "the clause after but weighs more");
        assert!(sentence_score(&l, "Nie jestem zadowolony.") < 0.0, "Polish negation");
        assert!(sentence_score(&l, "Bardzo dobrze.") > sentence_score(&l, "Dobrze."), "Polish booster");
        assert_eq!(sentence_score(&l, "The parcel arrived on Tuesday."), 0.0);
    }

    #[test]
    fn a_call_gets_a_label_a_progression_and_evidence() {
        let l = lexicon();
        let call = call_sentiment(
            &l,
            &[
                ("customer", "I have a problem, the kettle is bad."),
                ("agent", "I am sorry. We will send a new one."),
                ("customer", "Great, I am very happy, thank you!"),
            ],
            Language::En,
        );
        assert_eq!(call.progression, "started negative, ended positive");
        assert_eq!(call.evidence, "Great, I am very happy, thank you!");
        assert_eq!(call.turns.len(), 3);
        assert!(call.turns[0].unwrap() < 0.0 && call.turns[1].is_none() && call.turns[2].unwrap() > 0.0, "{:?}", call.turns);
        let angry = call_sentiment(&l, &[("customer", "This is terrible."), ("agent", "The service is bad, very bad.")], Language::En);
        assert_eq!(angry.overall.level(), SentimentLevel::Negative);
        assert_eq!(angry.progression, "negative throughout");
        let nothing = call_sentiment(&l, &[("customer", "The parcel arrived on Tuesday.")], Language::Pl);
        assert_eq!((nothing.overall, nothing.progression.as_str()), (Overall::Neutral, "neutralny przez całą rozmowę"));
    }

    #[test]
    fn the_progression_follows_the_customer_and_never_contradicts_the_overall_level() {
        let l = lexicon();
        // The agent's warmth is not the customer's mood: the customer was negative throughout.
        let call = call_sentiment(
            &l,
            &[
                ("agent", "Good morning, happy to help, great to hear from you."),
                ("customer", "This is terrible, the service is bad."),
                ("agent", "Great, I am happy to fix it, very good."),
                ("customer", "It is still bad."),
            ],
            Language::En,
        );
        assert_eq!(call.arc, Some((SentimentLevel::Negative, SentimentLevel::Negative)));
        assert!(call.progression.ends_with("negative"), "{}", call.progression);
        // A judge of the end (the model) said negative where the customer's words read
        // positive: the progression ends where the judge said, and says where it started.
        let mut polite = call_sentiment(&l, &[("customer", "Good, good."), ("agent", "Fine."), ("customer", "Good, thank you.")], Language::En);
        assert_eq!(polite.progression, "positive throughout");
        polite.ended(Overall::Negative);
        assert_eq!(polite.progression, "started positive, ended negative");
        // The overall level sits between a start and an end that are both something else.
        let dip = call_sentiment(
            &l,
            &[
                ("customer", "Good."),
                ("customer", "Terrible, terrible, bad, terrible."),
                ("customer", "Bad, terrible, really bad."),
                ("customer", "Good."),
            ],
            Language::Pl,
        );
        assert_eq!(dip.overall.level(), SentimentLevel::Negative);
        assert_eq!(dip.progression, "na początku pozytywny, potem negatywny, na końcu pozytywny");
    }
}
