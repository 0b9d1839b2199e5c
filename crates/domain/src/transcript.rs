//! A call's transcript as the API shows it: speaker turns and per-speaker statistics, built from
//! recognised words that carry a speaker label.

use serde::{Deserialize, Serialize};

/// One speaker's contiguous speech.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "camelCase")]
pub struct Turn {
    /// Who spoke (a `speakerId` of the call's `speakers`).
    pub speaker_id: String,
    /// What they said.
    pub text: String,
    /// Start, milliseconds from the start of the recording.
    pub start_ms: i64,
    /// End, milliseconds.
    pub end_ms: i64,
}

/// A speaker of the call and how much they spoke.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "camelCase")]
pub struct SpeakerStats {
    /// Stable within the call: `speaker_1`, `speaker_2`, … in channel order or order of first
    /// appearance.
    pub speaker_id: String,
    /// The channel role, the default preset's name, or `Speaker N`.
    pub name: String,
    /// Share of the call's speaking time (all speakers sum to 1).
    pub talk_ratio: f64,
    /// Number of turns.
    pub turn_count: i64,
    /// Number of words.
    pub word_count: i64,
    /// Seconds of speech.
    pub total_duration_s: f64,
    /// The speaker's part when it was told from their words (beyond the spec): absent when the
    /// names came from channel roles or a preset, or the call has not two speakers.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub role: Option<SpeakerRole>,
    /// How sure that is, 0.5 (a coin toss) to 1.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "openapi", schema(minimum = 0.5, maximum = 1))]
    pub role_confidence: Option<f64>,
}

#[cfg(test)]
impl SpeakerStats {
    /// A speaker of a test call: `id` named `name`, with one turn of one word.
    pub(crate) fn named(id: &str, name: &str) -> Self {
        Self {
            speaker_id: id.into(),
            name: name.into(),
            talk_ratio: 0.5,
            turn_count: 1,
            word_count: 1,
            total_duration_s: 1.0,
            role: None,
            role_confidence: None,
        }
    }
}

/// A speaker's part in a call.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "snake_case")]
pub enum SpeakerRole {
    /// The company's side.
    Agent,
    /// The caller, or the one called.
    Customer,
}

impl SpeakerRole {
    /// The name a speaker of this part is given, in the call's language.
    pub fn name(self, language: crate::Language) -> &'static str {
        match (self, language) {
            (Self::Agent, crate::Language::Pl) => "Konsultant",
            (Self::Customer, crate::Language::Pl) => "Klient",
            (Self::Agent, crate::Language::En) => "Agent",
            (Self::Customer, crate::Language::En) => "Customer",
        }
    }
}

/// A recognised word with its speaker (0-based label), as stored for later stages.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct TimedWord {
    /// The word, with punctuation.
    pub text: String,
    /// Start, milliseconds.
    pub start_ms: i64,
    /// End, milliseconds.
    pub end_ms: i64,
    /// Speaker label.
    pub speaker: usize,
    /// How sure the recogniser was of it (the mean probability of its tokens, 0–1); `None`
    /// for words kept before it was recorded.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub confidence: Option<f32>,
}

/// How far a transcript can be trusted, from the recogniser's confidence in its words: a call
/// whose speech the model could not make out (a weak model on Polish phone audio, noise, a
/// language other than the one set) reads as text all the same, and its title, summary and
/// personal data would look as sound as any other's.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "camelCase")]
pub struct TranscriptQuality {
    /// False when the transcript is too poor to act on: its analysis and personal data are
    /// likely wrong.
    pub reliable: bool,
    /// Mean confidence of the words (0–1).
    pub mean_word_confidence: f32,
    /// Share of the words the recogniser was unsure of (confidence under 0.5).
    pub unsure_word_share: f32,
    /// The speech model that made the transcript.
    pub speech_model: Option<String>,
    /// A speech model that would likely do better, when the one used is a small one.
    pub better_model: Option<String>,
}

impl TranscriptQuality {
    /// A word under this confidence is one the recogniser was unsure of.
    pub const UNSURE: f32 = 0.5;
    /// A transcript whose words average under this is not reliable.
    pub const MEAN_NEEDED: f32 = 0.6;
    /// Nor is one with more than this share of unsure words.
    pub const UNSURE_ALLOWED: f32 = 0.3;
    /// What a team should pull when a small model was not enough (README, Choosing models).
    pub const BETTER_MODEL: &'static str = "deepdml/faster-whisper-large-v3-turbo-ct2";

    /// The quality of `words` made by `speech_model`; `None` when no word carries a confidence
    /// (nothing to judge by).
    pub fn assess(words: &[TimedWord], speech_model: Option<&str>) -> Option<Self> {
        let confidences: Vec<f32> = words.iter().filter_map(|w| w.confidence).collect();
        if confidences.is_empty() {
            return None;
        }
        let n = confidences.len() as f32;
        let mean = confidences.iter().sum::<f32>() / n;
        let unsure = confidences.iter().filter(|c| **c < Self::UNSURE).count() as f32 / n;
        let reliable = mean >= Self::MEAN_NEEDED && unsure <= Self::UNSURE_ALLOWED;
        let small = speech_model.is_some_and(|m| {
            let m = m.to_ascii_lowercase();
            ["tiny", "base", "small"].iter().any(|size| m.contains(size))
        });
        Some(TranscriptQuality {
            reliable,
            mean_word_confidence: (mean * 100.0).round() / 100.0,
            unsure_word_share: (unsure * 100.0).round() / 100.0,
            speech_model: speech_model.map(str::to_owned),
            better_model: (!reliable && small).then(|| Self::BETTER_MODEL.to_owned()),
        })
    }
}

/// The id of the speaker with 0-based label `label`.
pub fn speaker_id(label: usize) -> String {
    format!("speaker_{}", label + 1)
}

/// Names speakers: a role given per channel wins, then the project's default preset (in
/// channel order or order of first appearance), then `Speaker N`.
pub fn speaker_name(label: usize, channel_roles: Option<&[String]>, preset: Option<&[String]>) -> String {
    channel_roles
        .and_then(|r| r.get(label))
        .or_else(|| preset.and_then(|p| p.get(label)))
        .cloned()
        .unwrap_or_else(|| format!("Speaker {}", label + 1))
}

/// Turns, speaker statistics and the full text from words in time order.
pub fn build_transcript(words: &[TimedWord], names: impl Fn(usize) -> String) -> (String, Vec<Turn>, Vec<SpeakerStats>) {
    let mut turns: Vec<(usize, Turn, i64)> = Vec::new();
    for w in words {
        match turns.last_mut() {
            Some((speaker, turn, count)) if *speaker == w.speaker => {
                turn.text.push(' ');
                turn.text.push_str(&w.text);
                turn.end_ms = turn.end_ms.max(w.end_ms);
                *count += 1;
            }
            _ => turns.push((w.speaker, Turn { speaker_id: speaker_id(w.speaker), text: w.text.clone(), start_ms: w.start_ms, end_ms: w.end_ms }, 1)),
        }
    }
    let mut labels: Vec<usize> = turns.iter().map(|t| t.0).collect();
    labels.sort_unstable();
    labels.dedup();
    let total_ms: i64 = turns.iter().map(|(_, t, _)| t.end_ms - t.start_ms).sum();
    let speakers = labels
        .iter()
        .map(|&label| {
            let mine = turns.iter().filter(|t| t.0 == label);
            let ms: i64 = mine.clone().map(|(_, t, _)| t.end_ms - t.start_ms).sum();
            SpeakerStats {
                speaker_id: speaker_id(label),
                name: names(label),
                talk_ratio: if total_ms > 0 { (ms as f64 / total_ms as f64 * 1000.0).round() / 1000.0 } else { 0.0 },
                turn_count: mine.clone().count() as i64,
                word_count: mine.map(|t| t.2).sum(),
                total_duration_s: ms as f64 / 1000.0,
                role: None,
                role_confidence: None,
            }
        })
        .collect();
    let full_text = turns.iter().map(|(_, t, _)| t.text.as_str()).collect::<Vec<_>>().join("\n");
    (full_text, turns.into_iter().map(|t| t.1).collect(), speakers)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn w(text: &str, start_ms: i64, end_ms: i64, speaker: usize) -> TimedWord {
        TimedWord { text: text.into(), start_ms, end_ms, speaker, confidence: None }
    }

    #[test]
    fn words_become_turns_and_statistics() {
        let words = [
            w("Hello,", 0, 400, 0),
            w("how", 450, 600, 0),
            w("can", 600, 800, 0),
            w("I", 800, 900, 0),
            w("help?", 900, 1000, 0),
            w("My", 1500, 1700, 1),
            w("bill", 1700, 2000, 1),
            w("is", 2000, 2100, 1),
            w("wrong.", 2100, 3500, 1),
            w("Sorry.", 3600, 4000, 0),
        ];
        let roles = vec!["agent".to_string(), "customer".to_string()];
        let (text, turns, speakers) = build_transcript(&words, |l| speaker_name(l, Some(&roles), None));
        assert_eq!(text, "Hello, how can I help?\nMy bill is wrong.\nSorry.");
        assert_eq!(turns.len(), 3);
        assert_eq!((turns[1].speaker_id.as_str(), turns[1].start_ms, turns[1].end_ms), ("speaker_2", 1500, 3500));
        assert_eq!(speakers[0].name, "agent");
        assert_eq!((speakers[0].turn_count, speakers[0].word_count), (2, 6));
        assert_eq!((speakers[1].turn_count, speakers[1].word_count), (1, 4));
        assert!((speakers[0].total_duration_s - 1.4).abs() < 1e-9);
        assert!((speakers[0].talk_ratio + speakers[1].talk_ratio - 1.0).abs() < 1e-3);
        assert!((speakers[1].talk_ratio - 0.588).abs() < 1e-3);
    }

    #[test]
    fn names_fall_back_from_roles_to_preset_to_numbers() {
        let preset = vec!["Agent".to_string()];
        assert_eq!(speaker_name(0, None, Some(&preset)), "Agent");
        assert_eq!(speaker_name(1, None, Some(&preset)), "Speaker 2");
        assert_eq!(speaker_name(0, Some(&["bot".to_string()]), Some(&preset)), "bot");
        assert_eq!(speaker_name(2, None, None), "Speaker 3");
    }

    #[test]
    fn a_transcript_the_recogniser_was_unsure_of_is_not_reliable_and_a_bigger_model_is_named() {
        let sure = |c: f32| TimedWord { confidence: Some(c), ..w("słowo", 0, 100, 0) };
        let clear: Vec<TimedWord> = [0.9, 0.95, 0.8, 0.45, 0.9].into_iter().map(sure).collect();
        let q = TranscriptQuality::assess(&clear, Some("whisper-base")).unwrap();
        assert!(q.reliable && q.better_model.is_none(), "{q:?}");
        assert_eq!((q.mean_word_confidence, q.unsure_word_share), (0.8, 0.2));
        // Near-gibberish: low on average, and many words the model all but guessed.
        let garbled: Vec<TimedWord> = [0.3, 0.55, 0.2, 0.7, 0.4, 0.6].into_iter().map(sure).collect();
        let q = TranscriptQuality::assess(&garbled, Some("whisper-base")).unwrap();
        assert!(!q.reliable, "{q:?}");
        assert_eq!(q.better_model.as_deref(), Some(TranscriptQuality::BETTER_MODEL));
        // A big model that still failed: nothing bigger to name.
        let q = TranscriptQuality::assess(&garbled, Some("deepdml--faster-whisper-large-v3-turbo-ct2")).unwrap();
        assert!(!q.reliable && q.better_model.is_none());
        // Words kept before confidences were: nothing to judge by.
        assert_eq!(TranscriptQuality::assess(&[w("a", 0, 1, 0)], Some("whisper-base")), None);
    }
}
