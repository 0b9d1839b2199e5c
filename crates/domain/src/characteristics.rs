//! Call characteristics (beyond the spec): what contact-centre analytics measure of a call's
//! shape rather than its words. Talk and non-talk time, overlap and interruptions, talk speed
//! and loudness, per call and per speaker.
//!
//! The timing comes from the words' times. A speaker's words closer together than
//! [`BRIDGED_PAUSE_MS`] are one stretch of talk: a breath inside a sentence is still talking.
//! The same bridge joins the speakers' stretches into the call's talk, so that the moment one
//! hands over to the other is not counted as silence. What the audio says is added by the
//! pipeline, which holds the signals: each speaker's loudness and what fills each long pause
//! (silence, or music and tones on hold). A record without it has those fields null.

use serde::{Deserialize, Serialize};

use crate::{speaker_id, TimedWord};

/// A speaker's words closer together than this are one stretch of talk, and so is the call's
/// talk across speakers: a pause shorter than this is not non-talk time.
pub const BRIDGED_PAUSE_MS: i64 = 500;

/// Non-talk stretches at least this long are listed one by one (and their sound told).
pub const NON_TALK_LISTED_MS: i64 = 3000;

/// At most this many non-talk stretches and interruptions are listed (the totals count all): a
/// four-hour call must not make a record of megabytes.
pub const LISTED_MAX: usize = 200;

/// One speaker starting while another talks is an interruption only when the other has been
/// talking this long already (two starting together is not one cutting in) …
const INTERRUPTION_LEAD_MS: i64 = 500;
/// … and the two overlap at least this long (shorter is the jitter of word times).
const INTERRUPTION_OVERLAP_MS: i64 = 300;
/// A stretch of at most this many words and milliseconds, while the other talks on past its
/// end, is a backchannel ("mhm", "yes"), not an interruption.
const BACKCHANNEL_WORDS: usize = 2;
const BACKCHANNEL_MS: i64 = 1000;
/// Below this much talk, a speaker's words per minute say nothing.
const SPEED_MIN_TALK_MS: i64 = 5000;

/// What fills a stretch nobody talks in, as the audio tells it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "snake_case")]
pub enum PauseSound {
    /// Nothing, or no more than line noise.
    Silence,
    /// Sustained tonal sound: hold music, ringing or other tones.
    Music,
    /// Other sound: noise, or speech the recogniser did not write down.
    Other,
}

text_enum!(PauseSound { Silence = "silence", Music = "music", Other = "other" });

/// A stretch of the call in which nobody talks.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "camelCase")]
pub struct NonTalkStretch {
    /// Start, milliseconds from the start of the recording.
    pub start_ms: i64,
    /// End, milliseconds.
    pub end_ms: i64,
    /// What the audio holds there; null when the audio was not measured.
    pub sound: Option<PauseSound>,
}

/// One speaker cutting into another's talk.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "camelCase")]
pub struct Interruption {
    /// When the interrupting speaker started, milliseconds.
    pub at_ms: i64,
    /// Who interrupted (a `speakerId` of the call's `speakers`).
    pub speaker_id: String,
    /// Whom.
    pub interrupted_speaker_id: String,
    /// How long both talked at once, milliseconds.
    pub overlap_ms: i64,
}

/// One speaker's characteristics.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "camelCase")]
pub struct SpeakerCharacteristics {
    /// The speaker (a `speakerId` of the call's `speakers`).
    pub speaker_id: String,
    /// Milliseconds of talk.
    pub talk_ms: i64,
    /// Share of all the speakers' talk time, 0–1, two decimals.
    #[cfg_attr(feature = "openapi", schema(minimum = 0, maximum = 1))]
    pub talk_share: f64,
    /// Words per minute of the speaker's talk, one decimal; null under 5 s of talk.
    pub words_per_minute: Option<f64>,
    /// How many times the speaker interrupted another.
    pub interruptions_made: u32,
    /// How many times another interrupted the speaker.
    pub interruptions_suffered: u32,
    /// The RMS level of the speaker's talk in dBFS, one decimal; null when the audio was not
    /// measured.
    pub loudness_db: Option<f64>,
    /// The same for each quarter of the call, four entries; null for a quarter the speaker
    /// says nothing in.
    pub loudness_by_quarter_db: Vec<Option<f64>>,
}

/// `characteristics`: the call's shape (beyond the spec).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "camelCase")]
pub struct CallCharacteristics {
    /// The recording's length, milliseconds.
    pub duration_ms: i64,
    /// Milliseconds in which someone talks (pauses under 0.5 s bridged).
    pub talk_ms: i64,
    /// Milliseconds in which nobody talks: the recording less `talkMs`.
    pub non_talk_ms: i64,
    /// `nonTalkMs` over the recording's length, 0–1, two decimals.
    #[cfg_attr(feature = "openapi", schema(minimum = 0, maximum = 1))]
    pub non_talk_share: f64,
    /// The longest stretch nobody talks in, milliseconds.
    pub longest_non_talk_ms: i64,
    /// Of the listed stretches, the milliseconds of silence; null when the audio was not
    /// measured.
    pub silence_ms: Option<i64>,
    /// Of the listed stretches, the milliseconds of music or tones (time on hold); null when the
    /// audio was not measured.
    pub music_ms: Option<i64>,
    /// Every stretch of at least 3 s nobody talks in, in time order (the first 200).
    pub non_talk_stretches: Vec<NonTalkStretch>,
    /// Milliseconds in which two or more speakers talk at once. On a mono recording overlap is
    /// seldom heard: the recogniser writes one voice at a time.
    pub overlap_ms: i64,
    /// How many times a speaker cut into another's talk (backchannels such as "mhm" are not).
    pub interruption_count: u32,
    /// Milliseconds of overlap those interruptions made.
    pub interruption_ms: i64,
    /// The interruptions in time order (the first 200).
    pub interruptions: Vec<Interruption>,
    /// Words per minute of talk over the whole call, one decimal; null with no talk.
    pub words_per_minute: Option<f64>,
    /// Each speaker's, in the order of the call's `speakers`.
    pub speakers: Vec<SpeakerCharacteristics>,
}

/// A stretch of one speaker's talk.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Stretch {
    speaker: usize,
    start_ms: i64,
    end_ms: i64,
    words: usize,
}

fn round_to(x: f64, places: i32) -> f64 {
    let factor = 10f64.powi(places);
    (x * factor).round() / factor
}

fn share(part: i64, whole: i64) -> f64 {
    if whole <= 0 {
        0.0
    } else {
        round_to(part as f64 / whole as f64, 2)
    }
}

/// Which quarter of a call of `duration_ms` the moment `at_ms` falls in, 0–3.
pub fn quarter_of(at_ms: i64, duration_ms: i64) -> usize {
    if duration_ms <= 0 {
        return 0;
    }
    usize::try_from((at_ms.clamp(0, duration_ms - 1) * 4) / duration_ms).unwrap_or(0).min(3)
}

/// Each speaker's stretches of talk, in time order: their words, with pauses under
/// [`BRIDGED_PAUSE_MS`] bridged and times kept inside the recording.
fn talk_stretches(words: &[TimedWord], duration_ms: i64) -> Vec<Stretch> {
    let mut open: Vec<Option<Stretch>> = Vec::new();
    let mut done = Vec::new();
    let mut sorted: Vec<&TimedWord> = words.iter().collect();
    sorted.sort_by_key(|w| (w.start_ms, w.speaker));
    for w in sorted {
        let start = w.start_ms.clamp(0, duration_ms);
        let end = w.end_ms.clamp(start, duration_ms);
        if open.len() <= w.speaker {
            open.resize(w.speaker + 1, None);
        }
        match &mut open[w.speaker] {
            Some(s) if start - s.end_ms < BRIDGED_PAUSE_MS => {
                s.end_ms = s.end_ms.max(end);
                s.words += 1;
            }
            slot => {
                if let Some(s) = slot.take() {
                    done.push(s);
                }
                *slot = Some(Stretch { speaker: w.speaker, start_ms: start, end_ms: end, words: 1 });
            }
        }
    }
    done.extend(open.into_iter().flatten());
    done.sort_by_key(|s| (s.start_ms, s.speaker));
    done
}

/// The milliseconds in which at least two of `stretches` (of different speakers) run at once.
fn overlap_ms(stretches: &[Stretch]) -> i64 {
    let mut edges: Vec<(i64, i32)> = stretches.iter().flat_map(|s| [(s.start_ms, 1), (s.end_ms, -1)]).collect();
    // Ends before starts at the same moment: touching stretches do not overlap.
    edges.sort_unstable();
    let (mut talking, mut since, mut total) = (0, 0, 0);
    for (at, change) in edges {
        if talking >= 2 {
            total += at - since;
        }
        talking += change;
        since = at;
    }
    total
}

/// Whether `b` (starting after `a` did) cuts into `a`: see the constants above.
fn interrupts(a: &Stretch, b: &Stretch) -> Option<i64> {
    if a.speaker == b.speaker || b.start_ms - a.start_ms < INTERRUPTION_LEAD_MS || b.start_ms >= a.end_ms {
        return None;
    }
    let overlap = a.end_ms.min(b.end_ms) - b.start_ms;
    let backchannel = b.words <= BACKCHANNEL_WORDS && b.end_ms - b.start_ms <= BACKCHANNEL_MS && a.end_ms > b.end_ms;
    (overlap >= INTERRUPTION_OVERLAP_MS && !backchannel).then_some(overlap)
}

impl CallCharacteristics {
    /// What the words' timing tells of a recording of `duration_ms`. The audio's part (loudness,
    /// what fills the pauses) is left null for [`CallCharacteristics::set_pause_sounds`] and
    /// [`CallCharacteristics::set_loudness`].
    pub fn from_words(words: &[TimedWord], duration_ms: i64) -> Self {
        let duration_ms = duration_ms.max(words.iter().map(|w| w.end_ms).max().unwrap_or(0)).max(0);
        let stretches = talk_stretches(words, duration_ms);

        // The call's talk: every speaker's stretches, joined across the same bridge.
        let mut talk: Vec<(i64, i64)> = Vec::new();
        for s in &stretches {
            match talk.last_mut() {
                Some(last) if s.start_ms - last.1 < BRIDGED_PAUSE_MS => last.1 = last.1.max(s.end_ms),
                _ => talk.push((s.start_ms, s.end_ms)),
            }
        }
        let talk_ms: i64 = talk.iter().map(|(a, b)| b - a).sum();
        let mut gaps = Vec::new();
        let mut at = 0;
        for &(start, end) in &talk {
            if start > at {
                gaps.push((at, start));
            }
            at = at.max(end);
        }
        if duration_ms > at {
            gaps.push((at, duration_ms));
        }
        let longest_non_talk_ms = gaps.iter().map(|(a, b)| b - a).max().unwrap_or(0);
        let non_talk_stretches = gaps
            .iter()
            .filter(|(a, b)| b - a >= NON_TALK_LISTED_MS)
            .take(LISTED_MAX)
            .map(|&(start_ms, end_ms)| NonTalkStretch { start_ms, end_ms, sound: None })
            .collect();

        let mut labels: Vec<usize> = stretches.iter().map(|s| s.speaker).collect();
        labels.sort_unstable();
        labels.dedup();
        let mut made = vec![0u32; labels.last().map_or(0, |l| l + 1)];
        let mut suffered = made.clone();
        let mut interruptions = Vec::new();
        let (mut interruption_count, mut interruption_ms) = (0u32, 0i64);
        for (i, b) in stretches.iter().enumerate() {
            // The stretch cut into is the latest-started one still running when `b` starts.
            let Some((a, overlap)) = stretches[..i].iter().rev().find_map(|a| interrupts(a, b).map(|o| (a, o))) else {
                continue;
            };
            interruption_count += 1;
            interruption_ms += overlap;
            made[b.speaker] += 1;
            suffered[a.speaker] += 1;
            if interruptions.len() < LISTED_MAX {
                interruptions.push(Interruption {
                    at_ms: b.start_ms,
                    speaker_id: speaker_id(b.speaker),
                    interrupted_speaker_id: speaker_id(a.speaker),
                    overlap_ms: overlap,
                });
            }
        }

        let speaker_talk = |label: usize| stretches.iter().filter(|s| s.speaker == label).map(|s| s.end_ms - s.start_ms).sum::<i64>();
        let all_talk: i64 = labels.iter().map(|&l| speaker_talk(l)).sum();
        let per_minute = |count: usize, ms: i64| round_to(count as f64 * 60_000.0 / ms as f64, 1);
        let speakers = labels
            .iter()
            .map(|&label| {
                let talk_ms = speaker_talk(label);
                let count = words.iter().filter(|w| w.speaker == label).count();
                SpeakerCharacteristics {
                    speaker_id: speaker_id(label),
                    talk_ms,
                    talk_share: share(talk_ms, all_talk),
                    words_per_minute: (talk_ms >= SPEED_MIN_TALK_MS).then(|| per_minute(count, talk_ms)),
                    interruptions_made: made[label],
                    interruptions_suffered: suffered[label],
                    loudness_db: None,
                    loudness_by_quarter_db: vec![None; 4],
                }
            })
            .collect();
        Self {
            duration_ms,
            talk_ms,
            non_talk_ms: duration_ms - talk_ms,
            non_talk_share: share(duration_ms - talk_ms, duration_ms),
            longest_non_talk_ms,
            silence_ms: None,
            music_ms: None,
            non_talk_stretches,
            overlap_ms: overlap_ms(&stretches),
            interruption_count,
            interruption_ms,
            interruptions,
            words_per_minute: (all_talk > 0).then(|| per_minute(words.len(), all_talk)),
            speakers,
        }
    }

    /// Records what fills each listed non-talk stretch (`sounds` in their order) and the
    /// totals of silence and music.
    pub fn set_pause_sounds(&mut self, sounds: &[PauseSound]) {
        let (mut silence, mut music) = (0, 0);
        for (stretch, &sound) in self.non_talk_stretches.iter_mut().zip(sounds) {
            stretch.sound = Some(sound);
            match sound {
                PauseSound::Silence => silence += stretch.end_ms - stretch.start_ms,
                PauseSound::Music => music += stretch.end_ms - stretch.start_ms,
                PauseSound::Other => {}
            }
        }
        self.silence_ms = Some(silence);
        self.music_ms = Some(music);
    }

    /// Records a speaker's loudness over the call and per quarter, in dBFS (rounded to one
    /// decimal); a speaker not in the record is ignored.
    pub fn set_loudness(&mut self, speaker: usize, overall_db: Option<f64>, by_quarter_db: [Option<f64>; 4]) {
        let id = speaker_id(speaker);
        if let Some(s) = self.speakers.iter_mut().find(|s| s.speaker_id == id) {
            s.loudness_db = overall_db.map(|db| round_to(db, 1));
            s.loudness_by_quarter_db = by_quarter_db.iter().map(|q| q.map(|db| round_to(db, 1))).collect();
        }
    }
}

/// Each speaker's words' spans, as the loudness is measured over: `(speaker, start_ms, end_ms)`
/// of every stretch of talk.
pub fn talk_spans(words: &[TimedWord], duration_ms: i64) -> Vec<(usize, i64, i64)> {
    talk_stretches(words, duration_ms).into_iter().map(|s| (s.speaker, s.start_ms, s.end_ms)).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn word(speaker: usize, start_ms: i64, end_ms: i64) -> TimedWord {
        TimedWord { text: "word".into(), start_ms, end_ms, speaker, confidence: None }
    }

    /// `count` words of `speaker` filling `start..end` evenly, 100 ms apart.
    fn talk(speaker: usize, start: i64, end: i64, count: usize) -> Vec<TimedWord> {
        let step = (end - start) / count as i64;
        (0..count as i64).map(|i| word(speaker, start + i * step, start + (i + 1) * step - 100)).collect()
    }

    #[test]
    fn talk_and_non_talk_add_up_and_long_pauses_are_listed_in_order() {
        // 0–2 s nobody; A 2–10 s; 0.3 s handover; B 10.3–20 s; 6 s of nothing; A 26–30 s; 4 s
        // to the end.
        let mut words = talk(0, 2000, 10_000, 16);
        words.extend(talk(1, 10_300, 20_000, 20));
        words.extend(talk(0, 26_000, 30_000, 8));
        let c = CallCharacteristics::from_words(&words, 34_000);
        assert_eq!(c.duration_ms, 34_000);
        // The last word of each stretch ends 100 ms before its slot does.
        assert_eq!(c.talk_ms, (19_900 - 2000) + (29_900 - 26_000));
        assert_eq!(c.talk_ms + c.non_talk_ms, 34_000);
        assert_eq!(c.longest_non_talk_ms, 26_000 - 19_900);
        let listed: Vec<(i64, i64)> = c.non_talk_stretches.iter().map(|s| (s.start_ms, s.end_ms)).collect();
        // The first 2 s are a pause too, but under the 3 s listed.
        assert_eq!(listed, vec![(19_900, 26_000), (29_900, 34_000)]);
        assert!(c.non_talk_stretches.iter().all(|s| s.sound.is_none()));
        assert_eq!((c.silence_ms, c.music_ms), (None, None));
        assert_eq!(c.interruption_count, 0);
        assert_eq!(c.overlap_ms, 0);
        assert_eq!(c.speakers.len(), 2);
        assert_eq!(c.speakers[0].talk_ms, (9900 - 2000) + (29_900 - 26_000));
        assert_eq!(c.speakers[0].talk_share + c.speakers[1].talk_share, 1.0);
        // 24 words in 11.8 s of talk.
        assert_eq!(c.speakers[0].words_per_minute, Some(122.0));
    }

    #[test]
    fn cutting_in_is_an_interruption_and_a_backchannel_is_not() {
        // A talks 0–20 s. B says "mhm" at 5 s (a backchannel: A goes on), then at 12 s cuts in
        // and talks over A until A stops at 20 s, and goes on to 25 s.
        let mut words = talk(0, 0, 20_000, 40);
        words.push(word(1, 5000, 5400));
        words.extend(talk(1, 12_000, 25_000, 26));
        let c = CallCharacteristics::from_words(&words, 25_000);
        assert_eq!(c.interruption_count, 1, "{:?}", c.interruptions);
        let cut = &c.interruptions[0];
        assert_eq!((cut.at_ms, cut.speaker_id.as_str(), cut.interrupted_speaker_id.as_str()), (12_000, "speaker_2", "speaker_1"));
        assert_eq!(cut.overlap_ms, 19_900 - 12_000);
        assert_eq!(c.interruption_ms, cut.overlap_ms);
        // The backchannel overlaps too, but is not an interruption.
        assert_eq!(c.overlap_ms, 400 + (19_900 - 12_000));
        assert_eq!((c.speakers[1].interruptions_made, c.speakers[0].interruptions_suffered), (1, 1));
        assert_eq!((c.speakers[0].interruptions_made, c.speakers[1].interruptions_suffered), (0, 0));
    }

    #[test]
    fn starting_together_or_on_a_word_boundary_is_not_an_interruption() {
        // B starts 0.2 s after A (together), then A answers 0.1 s before B's last word ends.
        let mut words = talk(0, 0, 3000, 6);
        words.extend(talk(1, 200, 8000, 12));
        words.extend(talk(0, 7_800, 12_000, 8));
        let c = CallCharacteristics::from_words(&words, 12_000);
        assert_eq!(c.interruption_count, 0, "{:?}", c.interruptions);
    }

    #[test]
    fn measured_sounds_and_loudness_are_recorded_and_totalled() {
        let mut words = talk(0, 0, 10_000, 20);
        words.extend(talk(1, 40_000, 60_000, 40));
        let mut c = CallCharacteristics::from_words(&words, 80_000);
        assert_eq!(c.non_talk_stretches.len(), 2);
        c.set_pause_sounds(&[PauseSound::Music, PauseSound::Silence]);
        assert_eq!(c.music_ms, Some(40_000 - 9900));
        assert_eq!(c.silence_ms, Some(80_000 - 59_900));
        c.set_loudness(1, Some(-20.04), [None, None, Some(-19.96), Some(-21.0)]);
        c.set_loudness(7, Some(-1.0), [None; 4]);
        assert_eq!(c.speakers[1].loudness_db, Some(-20.0));
        assert_eq!(c.speakers[1].loudness_by_quarter_db, vec![None, None, Some(-20.0), Some(-21.0)]);
        assert_eq!(c.speakers[0].loudness_db, None);
        let json = serde_json::to_value(&c).unwrap();
        assert_eq!(json["nonTalkStretches"][0]["sound"], "music");
        assert_eq!(serde_json::from_value::<CallCharacteristics>(json).unwrap(), c);
    }

    #[test]
    fn quarters_split_the_recording_evenly() {
        assert_eq!([0, 24_999, 25_000, 74_999, 99_999, 150_000].map(|at| quarter_of(at, 100_000)), [0, 0, 1, 2, 3, 3]);
        assert_eq!(quarter_of(5, 0), 0);
    }

    #[test]
    fn a_call_without_words_is_all_non_talk() {
        let c = CallCharacteristics::from_words(&[], 5000);
        assert_eq!((c.talk_ms, c.non_talk_ms, c.non_talk_share, c.longest_non_talk_ms), (0, 5000, 1.0, 5000));
        assert_eq!(c.words_per_minute, None);
        assert!(c.speakers.is_empty());
    }
}
