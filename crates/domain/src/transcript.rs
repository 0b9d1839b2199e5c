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
        TimedWord { text: text.into(), start_ms, end_ms, speaker }
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
}
