//! Lexicon sentiment for calls, English and Polish, in the manner of VADER (Hutto & Gilbert,
//! 2014): word valences from a lexicon, strengthened by boosters ("very", "bardzo"), weakened by
//! dampeners ("slightly", "trochę"), flipped by a negation in the three words before ("not",
//! "nie"), the clause after "but"/"ale" weighted over the one before, capitals and exclamation
//! marks as emphasis, ritual politeness ("thank you", "przepraszam") discounted; a sentence's
//! sum squashed to −1…1. A call's sentiment is the mean over its
//! sentences that carry any, with the progression from its first to its last third.

use std::collections::HashMap;
use std::path::Path;

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
    /// How the sentiment moved from the first third of the call to the last.
    pub progression: String,
    pub confidence: f32,
    /// The sentence that shows it best.
    pub evidence: String,
}

fn label(score: f32) -> &'static str {
    match score {
        s if s >= 0.15 => "positive",
        s if s <= -0.15 => "negative",
        _ => "neutral",
    }
}

/// The sentiment of a call from its turns' text.
pub fn call_sentiment(lexicon: &Lexicon, turns: &[&str]) -> CallSentiment {
    let sentences: Vec<&str> = turns.iter().flat_map(|t| t.split_inclusive(['.', '?', '!', '\n'])).map(str::trim).filter(|s| !s.is_empty()).collect();
    let scored: Vec<(usize, f32)> =
        sentences.iter().enumerate().map(|(i, s)| (i, sentence_score(lexicon, s))).filter(|(_, c)| c.abs() >= 0.05).collect();
    if scored.is_empty() {
        return CallSentiment {
            overall: Overall::Neutral,
            score: 0.0,
            progression: "neutral throughout".into(),
            confidence: 0.3,
            evidence: String::new(),
        };
    }
    let mean = |xs: &[(usize, f32)]| if xs.is_empty() { 0.0 } else { xs.iter().map(|x| x.1).sum::<f32>() / xs.len() as f32 };
    let score = mean(&scored);
    let strongest_up = scored.iter().map(|x| x.1).fold(f32::MIN, f32::max);
    let strongest_down = scored.iter().map(|x| x.1).fold(f32::MAX, f32::min);
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
    let n = sentences.len();
    let third = |range: std::ops::Range<usize>| mean(&scored.iter().copied().filter(|(i, _)| range.contains(i)).collect::<Vec<_>>());
    let (start, end) = (third(0..n.div_ceil(3)), third(n - n.div_ceil(3)..n));
    let progression = match (label(start), label(end)) {
        (a, b) if a == b => format!("{a} throughout"),
        (a, b) => format!("started {a}, ended {b}"),
    };
    let evidence_index =
        if score >= 0.0 { scored.iter().max_by(|a, b| a.1.total_cmp(&b.1)) } else { scored.iter().min_by(|a, b| a.1.total_cmp(&b.1)) }
            .map_or(0, |x| x.0);
    // More sentences with sentiment and a clearer mean: more confidence.
    let confidence = (0.4 + 0.4 * score.abs() + 0.04 * scored.len().min(5) as f32).min(0.9);
    CallSentiment { overall, score, progression, confidence: (confidence * 100.0).round() / 100.0, evidence: sentences[evidence_index].to_owned() }
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
            &["I have a problem, the kettle is bad.", "I am sorry. We will send a new one.", "Great, I am very happy, thank you!"],
        );
        assert_eq!(call.progression, "started negative, ended positive");
        assert_eq!(call.evidence, "Great, I am very happy, thank you!");
        let angry = call_sentiment(&l, &["This is terrible.", "The service is bad, very bad."]);
        assert_eq!(angry.overall.level(), SentimentLevel::Negative);
        assert_eq!(angry.progression, "negative throughout");
        let nothing = call_sentiment(&l, &["The parcel arrived on Tuesday."]);
        assert_eq!(nothing.overall, Overall::Neutral);
    }
}
