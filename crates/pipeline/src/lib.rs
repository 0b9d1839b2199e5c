//! The processing of one call, stage by stage, each behind a small trait so that engines can be
//! swapped by configuration and tests of other parts can use doubles. Stages report their
//! progress through [`Progress`]; the worker turns it into the job's `stage` and `progress`.
//!
//! Today the pipeline decodes ([`Decoder`]), transcribes ([`Transcriber`]) and tells the
//! speakers apart (by channel, or acoustically through a [`Diarizer`]), and finds (and, when the
//! project says so, masks) personal data through a [`PiiScanner`]; analysis and indexing join it
//! as their engines are built.

use std::path::Path;
use std::sync::Arc;

use async_trait::async_trait;
use callscope_analysis::roles::SaidTurn;
use callscope_audio::{AudioError, DecodedAudio};
use callscope_domain::{
    CallCharacteristics, Job, JobStage, Language, PiiRedaction, PiiSpan, PiiStatistics, SpeakerRole, SpeakerStats, TimedWord, TranscriptQuality,
    Turn, Vocabulary,
};

mod characteristics;
mod isolated;
mod pii;
mod speech;

pub use callscope_analysis::classify::CategoryInfo;
pub use callscope_analysis::engine::{AnalysisError, AnalysisInput, Analyzer, CallAnalysis, Lang as AnalysisLang, RulesEngine, TemplateSpec};
pub use callscope_analysis::template::Question;
pub use callscope_audio::Signal;
pub use callscope_pii::Gazetteer;
pub use callscope_speech::{Region, Transcript, Word};
pub use isolated::IsolatedDecoder;
pub use pii::{Found, PiiScanner, RulePii};
pub use speech::{AcousticDiarizer, WhisperTranscriber};

/// Where a job's `errorMessage` sends a person for what it leaves out: the service's log, written
/// under the job's id. The message is shown to API clients and sent to webhooks, so it carries
/// no internals (decisions §2): no database, storage or panic text.
pub const SEE_THE_LOG: &str = "(the service log has the details, under the job's id)";

/// Why a stage failed and whether retrying can help.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum StageError {
    /// A passing problem (I/O, a remote engine timing out): retried with backoff.
    #[error("{0}")]
    Retryable(String),
    /// Bad input: the job fails at once, with this message for a person.
    #[error("{0}")]
    Fatal(String),
}

/// Where a stage reports how far it got.
pub trait Progress: Send + Sync {
    /// `fraction` of `stage` is done (0.0–1.0).
    fn report(&self, stage: JobStage, fraction: f64);

    /// The call lasts `seconds`: known once decoding is done, and what the later stages' time
    /// limits grow with.
    fn call_duration(&self, _seconds: f64) {}
}

/// Turns stored audio into 16 kHz signals per channel.
#[async_trait]
pub trait Decoder: Send + Sync {
    /// Decodes the file at `path`, refusing audio longer than `max_duration_s`, reporting its
    /// progress as it goes.
    async fn decode(&self, path: &Path, max_duration_s: f64, progress: Arc<dyn Progress>) -> Result<DecodedAudio, StageError>;
}

/// The decoder run in this process, on a blocking thread (symphonia through `callscope-audio`):
/// for tools and tests; the service decodes in a child process ([`IsolatedDecoder`]).
#[derive(Debug, Default, Clone, Copy)]
pub struct AudioDecoder;

#[async_trait]
impl Decoder for AudioDecoder {
    async fn decode(&self, path: &Path, max_duration_s: f64, progress: Arc<dyn Progress>) -> Result<DecodedAudio, StageError> {
        let path = path.to_owned();
        let result = tokio::task::spawn_blocking(move || {
            let file = std::fs::File::open(&path)?;
            let mut report = |fraction: f64| progress.report(JobStage::Decoding, fraction);
            callscope_audio::decode(Box::new(file), Some(max_duration_s), &mut report)
        })
        .await
        .map_err(|e| speech::stopped("decoding", &e))?;
        result.map_err(|e| match e {
            AudioError::Io(_) => StageError::Retryable(e.to_string()),
            permanent => StageError::Fatal(permanent.to_string()),
        })
    }
}

/// Speech to words, one channel at a time.
#[async_trait]
pub trait Transcriber: Send + Sync {
    /// The model's name, as `modelUsed`-style fields show it.
    fn model_name(&self) -> String;

    /// Transcribes one 16 kHz channel in `language`, told to expect what `hint` says (see
    /// [`speech_hint`]); `progress` gets the fraction done.
    async fn transcribe(
        &self,
        signal: Signal,
        language: Language,
        hint: Option<&str>,
        progress: Box<dyn FnMut(f64) + Send>,
    ) -> Result<Transcript, StageError>;
}

/// Tells speakers apart in a signal that holds all of them.
#[async_trait]
pub trait Diarizer: Send + Sync {
    /// Sets each word's `speaker` (0-based, in order of first appearance); `progress` gets the
    /// fraction done.
    async fn diarize(
        &self,
        signal: Signal,
        speech: Vec<Region>,
        words: Vec<Word>,
        progress: Box<dyn FnMut(f64) + Send>,
    ) -> Result<Vec<Word>, StageError>;
}

/// How the speakers of a call were told apart.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SpeakerSource {
    /// One speaker per channel.
    Channels,
    /// Acoustic diarization of one signal.
    Diarized,
}

/// What processing heard in a call, before its analysis. A worker keeps it on the job
/// ([`Heard::checkpoint`]), so that an attempt retried after the analysis failed starts here.
#[derive(Debug, Clone)]
pub struct Heard {
    /// The decoded audio: what the file was, and its signals when they were kept for audio
    /// redaction (`keep_audio_for_redaction`; none otherwise).
    pub audio: DecodedAudio,
    /// How speakers were found.
    pub speaker_source: SpeakerSource,
    /// Turns' text, one per line.
    pub full_text: String,
    /// Speaker turns in time order.
    pub turns: Vec<Turn>,
    /// Speakers and their statistics.
    pub speakers: Vec<SpeakerStats>,
    /// Every word with its timing and speaker, in time order.
    pub words: Vec<TimedWord>,
    /// The speech model used.
    pub speech_model: String,
    /// Personal data found, by type.
    pub pii_statistics: PiiStatistics,
    /// Where it was (offsets into the turns as recognised, before masking).
    pub pii_spans: Vec<PiiSpan>,
    /// Whether the transcript's personal data was masked.
    pub pii_masked: bool,
    /// Talk and non-talk time, interruptions, speed and loudness; `None` from a checkpoint kept
    /// before they were measured.
    pub characteristics: Option<CallCharacteristics>,
}

/// What processing found out about a call: what it heard, and what analysis made of it.
#[derive(Debug, Clone)]
pub struct CallResult {
    /// The transcript, its speakers and personal data, and what the audio was.
    pub heard: Heard,
    /// What analysis found (from the masked text when the project masks).
    pub analysis: CallAnalysis,
}

impl std::ops::Deref for CallResult {
    type Target = Heard;

    fn deref(&self) -> &Heard {
        &self.heard
    }
}

impl Heard {
    /// How far the transcript can be trusted, from the recogniser's confidence in its words.
    pub fn quality(&self) -> Option<TranscriptQuality> {
        TranscriptQuality::assess(&self.words, Some(&self.speech_model))
    }

    /// As a job keeps it: everything but the signals.
    pub fn checkpoint(&self) -> serde_json::Value {
        let info = &self.audio.info;
        serde_json::json!({
            "audio": {"container": info.container.extension(), "codec": info.codec, "sourceRate": info.source_rate,
                      "channels": info.channels, "durationS": info.duration_s},
            "speakerSource": match self.speaker_source { SpeakerSource::Channels => "channels", SpeakerSource::Diarized => "diarized" },
            "fullText": self.full_text,
            "turns": self.turns,
            "speakers": self.speakers,
            "words": self.words,
            "speechModel": self.speech_model,
            "piiStatistics": self.pii_statistics,
            "piiSpans": self.pii_spans,
            "piiMasked": self.pii_masked,
            "characteristics": self.characteristics,
        })
    }

    /// What [`Heard::checkpoint`] kept, without the signals; `None` for anything else (a
    /// checkpoint of another version is no checkpoint: the attempt starts over).
    pub fn from_checkpoint(kept: &serde_json::Value) -> Option<Self> {
        fn field<T: serde::de::DeserializeOwned>(kept: &serde_json::Value, name: &str) -> Option<T> {
            serde_json::from_value(kept.get(name)?.clone()).ok()
        }
        let audio = kept.get("audio")?;
        let info = callscope_audio::AudioInfo {
            container: callscope_audio::Container::from_extension(audio.get("container")?.as_str()?)?,
            codec: audio.get("codec")?.as_str()?.to_owned(),
            source_rate: u32::try_from(audio.get("sourceRate")?.as_u64()?).ok()?,
            channels: usize::try_from(audio.get("channels")?.as_u64()?).ok()?,
            duration_s: audio.get("durationS")?.as_f64()?,
        };
        let speaker_source = match kept.get("speakerSource")?.as_str()? {
            "channels" => SpeakerSource::Channels,
            "diarized" => SpeakerSource::Diarized,
            _ => return None,
        };
        Some(Self {
            audio: DecodedAudio { info, channels: Vec::new() },
            speaker_source,
            full_text: field(kept, "fullText")?,
            turns: field(kept, "turns")?,
            speakers: field(kept, "speakers")?,
            words: field(kept, "words")?,
            speech_model: field(kept, "speechModel")?,
            pii_statistics: field(kept, "piiStatistics")?,
            pii_spans: field(kept, "piiSpans")?,
            pii_masked: field(kept, "piiMasked")?,
            characteristics: field(kept, "characteristics"),
        })
    }
}

/// What the pipeline needs to know about the call's project.
#[derive(Debug, Clone, Default)]
pub struct CallContext {
    /// Names of the project's default speaker preset, if it has one.
    pub preset_speakers: Option<Vec<String>>,
    /// Whether personal data is masked in what is stored.
    pub pii_redaction: PiiRedaction,
    /// The project's category tree, for classification.
    pub categories: Vec<CategoryInfo>,
    /// The project's active analysis template.
    pub template: Option<TemplateSpec>,
    /// The date deadlines are resolved against: when the call took place.
    pub call_date: chrono::DateTime<chrono::Utc>,
    /// The project's time zone, the calendar deadlines are resolved on.
    pub time_zone: chrono_tz::Tz,
    /// The project's terms, which the transcript is respelled with.
    pub vocabulary: Vocabulary,
}

/// Settings of the pipeline.
#[derive(Debug, Clone)]
pub struct PipelineSettings {
    /// Longest accepted audio, in seconds.
    pub max_duration_s: f64,
    /// Keep the decoded signals in the result of a call whose project masks personal data, for
    /// the worker to silence it in the stored audio; otherwise they go once speech is done.
    pub keep_audio_for_redaction: bool,
    /// Tell the speech model what to expect ([`speech_hint`]).
    pub speech_hints: bool,
    /// Tell the speech model the project's vocabulary ([`vocabulary_hint`]).
    pub vocabulary_hints: bool,
}

/// What the speech model is told before every window of a call: the project's topics and the
/// way numbers are written when `speech_hints` is on, and the project's terms when
/// `vocabulary_hints` is on and it has any. `None` when there is nothing to tell.
pub fn call_hint(settings: &PipelineSettings, context: &CallContext, language: Language) -> Option<String> {
    let topics = settings.speech_hints.then(|| speech_hint(&context.categories, language));
    let terms = settings.vocabulary_hints.then(|| vocabulary_hint(&context.vocabulary)).flatten();
    match (topics, terms) {
        (Some(topics), Some(terms)) => Some(format!("{topics} {terms}")),
        (topics, terms) => topics.or(terms),
    }
}

/// The project's terms as a line said before the call ("Brightwater, Kelvix, Flexa 300."):
/// Whisper writes a word the way the text before it does, so a term it has just "heard" comes
/// out spelled as the project spells it. The terms alone, in their order: the prompt keeps the
/// end of a long hint, so a vocabulary longer than the prompt loses its first terms.
pub fn vocabulary_hint(vocabulary: &Vocabulary) -> Option<String> {
    let terms: Vec<&str> = vocabulary.terms.iter().map(|t| t.term.trim()).filter(|t| !t.is_empty()).collect();
    (!terms.is_empty()).then(|| format!("{}.", terms.join(", ")))
}

/// What the speech model is told a call of this project sounds like, as text said before it:
/// the project's topics (its category names) and a line of the numbers callers read out,
/// written in digits, so that they come out as digits rather than words.
pub fn speech_hint(categories: &[CategoryInfo], language: Language) -> String {
    let polish = language == Language::Pl;
    let mut topics: Vec<&str> = Vec::new();
    for category in categories {
        let name = category.name.trim();
        if !name.is_empty() && !topics.iter().any(|t| t.eq_ignore_ascii_case(name)) {
            topics.push(name);
        }
    }
    let numbers = if polish {
        "Mój numer telefonu to 600 123 456, PESEL 85010212345, kod pocztowy 80-309."
    } else {
        "My number is 07700 914326, the postcode is LS6 2QT and the card is 5355 4085 3664 3468."
    };
    if topics.is_empty() {
        return numbers.to_string();
    }
    let label = if polish { "Tematy" } else { "Topics" };
    format!("{label}: {}. {numbers}", topics.join(", "))
}

/// One implementation of each stage.
#[derive(Clone)]
pub struct Stages {
    /// Audio bytes to samples.
    pub decoder: Arc<dyn Decoder>,
    /// Samples to timed words.
    pub transcriber: Arc<dyn Transcriber>,
    /// Who said which word, in a one-signal recording.
    pub diarizer: Arc<dyn Diarizer>,
    /// Personal data in the text.
    pub pii: Arc<dyn PiiScanner>,
    /// Categories, summary, sentiment, action items and template answers.
    pub analyzer: Arc<dyn Analyzer>,
}

/// The stages, wired.
#[derive(Clone)]
pub struct Pipeline {
    stages: Stages,
    settings: PipelineSettings,
}

impl Pipeline {
    /// A pipeline of the given stages.
    pub fn new(stages: Stages, settings: PipelineSettings) -> Self {
        Self { stages, settings }
    }

    /// The pipeline with the real engines around a decoder, a loaded speech model and
    /// gazetteers.
    pub fn real(
        decoder: Arc<dyn Decoder>,
        transcriber: Arc<WhisperTranscriber>,
        diarizer: AcousticDiarizer,
        pii: RulePii,
        analyzer: Arc<dyn Analyzer>,
        settings: PipelineSettings,
    ) -> Self {
        let stages = Stages { decoder, transcriber, diarizer: Arc::new(diarizer), pii: Arc::new(pii), analyzer };
        Self::new(stages, settings)
    }

    /// The analysis engine's `modelUsed` when it does not fall back.
    pub fn model_used(&self) -> String {
        self.stages.analyzer.model_used()
    }

    /// Processes the job's audio, stored at `audio`.
    ///
    /// # Errors
    /// The first stage that fails.
    pub async fn run(&self, job: &Job, audio: &Path, context: &CallContext, progress: Arc<dyn Progress>) -> Result<CallResult, StageError> {
        let heard = self.hear(job, audio, context, progress.clone()).await?;
        self.conclude(heard, job, context, progress).await
    }

    /// Everything before analysis: decoding, speech, speakers and personal data.
    ///
    /// # Errors
    /// The first stage that fails.
    pub async fn hear(&self, job: &Job, audio: &Path, context: &CallContext, progress: Arc<dyn Progress>) -> Result<Heard, StageError> {
        progress.report(JobStage::Decoding, 0.0);
        let mut decoded = self.stages.decoder.decode(audio, self.settings.max_duration_s, progress.clone()).await?;
        check_channel_roles(job, &decoded)?;
        progress.call_duration(decoded.info.duration_s);
        progress.report(JobStage::Decoding, 1.0);

        // Channels that differ hold one speaker each (decisions §4); with roles they are split
        // whatever they hold.
        let per_channel = decoded.channels.len() > 1 && (job.channel_roles.is_some() || !channels_identical(&decoded).await?);
        // The signals are shared with the stages, never copied: a four-hour call is large, and
        // the service's are read from scratch files a window at a time.
        let signals = std::mem::take(&mut decoded.channels);
        let hint = call_hint(&self.settings, context, job.language);
        let mut words: Vec<Word> = Vec::new();
        let source;
        progress.report(JobStage::Transcribing, 0.0);
        if per_channel {
            let n = signals.len();
            for (channel, signal) in signals.iter().enumerate() {
                let reporter = progress.clone();
                let report = Box::new(move |f: f64| reporter.report(JobStage::Transcribing, (channel as f64 + f) / n as f64));
                let transcript = self.stages.transcriber.transcribe(signal.clone(), job.language, hint.as_deref(), report).await?;
                words.extend(transcript.words.into_iter().map(|w| Word { speaker: channel, ..w }));
            }
            progress.report(JobStage::Diarizing, 1.0);
            source = SpeakerSource::Channels;
        } else {
            // One signal: the file's only one, or the first of two that carry the same.
            let Some(signal) = signals.first().cloned() else {
                return Err(StageError::Fatal("the file contains no audio".into()));
            };
            let reporter = progress.clone();
            let report = Box::new(move |f: f64| reporter.report(JobStage::Transcribing, f));
            let transcript = self.stages.transcriber.transcribe(signal.clone(), job.language, hint.as_deref(), report).await?;
            progress.report(JobStage::Diarizing, 0.0);
            let reporter = progress.clone();
            let report = Box::new(move |f: f64| reporter.report(JobStage::Diarizing, f));
            words = self.stages.diarizer.diarize(signal, transcript.speech, transcript.words, report).await?;
            progress.report(JobStage::Diarizing, 1.0);
            source = SpeakerSource::Diarized;
        }
        words.sort_by(|a, b| a.start_s.total_cmp(&b.start_s).then(a.speaker.cmp(&b.speaker)));
        let timed: Vec<TimedWord> = words
            .into_iter()
            .map(|w| TimedWord {
                text: w.text,
                start_ms: (f64::from(w.start_s) * 1000.0).round() as i64,
                end_ms: (f64::from(w.end_s) * 1000.0).round() as i64,
                speaker: w.speaker,
                confidence: Some((w.probability * 1000.0).round() / 1000.0),
            })
            .collect();
        let mut timed = timed;
        // The project's terms as they are written, before anything reads the words.
        context.vocabulary.respell(&mut timed);
        let duration_ms = (decoded.info.duration_s * 1000.0).round() as i64;
        let characteristics = measure_characteristics(timed.clone(), signals.clone(), per_channel, duration_ms).await?;
        // Past this, the signals are needed only to silence personal data in the stored audio;
        // otherwise they (and their scratch files) go here.
        let keep = self.settings.keep_audio_for_redaction && context.pii_redaction == PiiRedaction::Mask;
        decoded.channels = if keep { signals } else { Vec::new() };
        let roles = job.channel_roles.as_deref();
        let preset = context.preset_speakers.as_deref();
        let (mut full_text, mut turns, mut speakers) =
            callscope_domain::build_transcript(&timed, |label| callscope_domain::speaker_name(label, roles, preset));
        // Speakers nobody named get their part from their words.
        if roles.is_none() && preset.is_none() {
            name_by_role(&timed, &mut speakers, job.language, &context.vocabulary).await?;
        }

        let texts: Vec<&str> = turns.iter().map(|t| t.text.as_str()).collect();
        let found = pii::without_terms(self.stages.pii.scan(&texts, job.language), &texts, &context.vocabulary);
        let mask = context.pii_redaction == PiiRedaction::Mask;
        let pii = pii::apply(&found, &mut turns, &mut timed, &mut full_text, mask);
        Ok(Heard {
            audio: decoded,
            speaker_source: source,
            full_text,
            turns,
            speakers,
            words: timed,
            speech_model: self.stages.transcriber.model_name(),
            pii_statistics: pii.statistics,
            pii_spans: pii.spans,
            pii_masked: mask,
            characteristics: Some(characteristics),
        })
    }

    /// The analysis of what was heard.
    ///
    /// # Errors
    /// The analysis engine failing (retryable).
    pub async fn conclude(&self, heard: Heard, job: &Job, context: &CallContext, progress: Arc<dyn Progress>) -> Result<CallResult, StageError> {
        progress.report(JobStage::Analyzing, 0.0);
        let analysis = self.analyze(&heard.turns, &heard.speakers, job.language, context, heard.quality().as_ref()).await?;
        progress.report(JobStage::Analyzing, 1.0);
        Ok(CallResult { heard, analysis })
    }
}

impl Pipeline {
    /// Analyses a transcript: each turn under its speaker's name; the analysis of one too poor
    /// to act on says so ([`CallAnalysis::doubted`]).
    async fn analyze(
        &self,
        turns: &[Turn],
        speakers: &[SpeakerStats],
        language: Language,
        context: &CallContext,
        quality: Option<&TranscriptQuality>,
    ) -> Result<CallAnalysis, StageError> {
        let names: std::collections::HashMap<&str, &str> = speakers.iter().map(|s| (s.speaker_id.as_str(), s.name.as_str())).collect();
        let input = AnalysisInput {
            turns: turns.iter().map(|t| (names.get(t.speaker_id.as_str()).copied().unwrap_or("?").to_owned(), t.text.clone())).collect(),
            language,
            call_date: context.call_date,
            time_zone: context.time_zone,
            categories: context.categories.clone(),
            template: context.template.clone(),
        };
        let analysis = self.stages.analyzer.analyze(&input).await.map_err(|e| StageError::Retryable(e.to_string()))?;
        let analysis = if quality.is_some_and(|q| !q.reliable) { analysis.doubted(language) } else { analysis };
        Ok(analysis.without_non_answers().bounded())
    }

    /// Re-runs only the analysis, on a stored call's transcript (as stored: masked text stays
    /// masked).
    ///
    /// # Errors
    /// The analysis engine failing (retryable).
    pub async fn reanalyze(
        &self,
        turns: &[Turn],
        speakers: &[SpeakerStats],
        language: Language,
        context: &CallContext,
        quality: Option<&TranscriptQuality>,
        progress: Arc<dyn Progress>,
    ) -> Result<CallAnalysis, StageError> {
        progress.report(JobStage::Analyzing, 0.0);
        let analysis = self.analyze(turns, speakers, language, context, quality).await?;
        progress.report(JobStage::Analyzing, 1.0);
        Ok(analysis)
    }
}

/// Whether a stereo call's two channels carry the same recording, read on a blocking thread (a
/// long call's signals are read from their files).
async fn channels_identical(audio: &DecodedAudio) -> Result<bool, StageError> {
    let audio = audio.clone();
    tokio::task::spawn_blocking(move || audio.channels_identical())
        .await
        .map_err(|e| speech::stopped("comparing the channels", &e))?
        .map_err(|e| unreadable_audio(&e))
}

/// Names two speakers Agent and Customer (in the call's language) by who talks like the
/// company's side, and answers with its names from the project's vocabulary, with how sure that
/// is; more or fewer speakers keep their names. The words are read on a blocking thread: on a
/// long call that is millions of runs against the phrases.
async fn name_by_role(words: &[TimedWord], speakers: &mut [SpeakerStats], language: Language, vocabulary: &Vocabulary) -> Result<(), StageError> {
    // The turns as the transcript makes them (a run of one speaker's words), each word with
    // how sure the recogniser was of it.
    let said: Vec<SaidTurn> = words
        .chunk_by(|a, b| a.speaker == b.speaker)
        .map(|run| SaidTurn {
            speaker: callscope_domain::speaker_id(run[0].speaker),
            words: run.iter().map(|w| (w.text.clone(), w.confidence.unwrap_or(1.0))).collect(),
        })
        .collect();
    let company: Vec<String> = vocabulary.company_names().into_iter().map(str::to_owned).collect();
    let guess = tokio::task::spawn_blocking(move || {
        let company: Vec<&str> = company.iter().map(String::as_str).collect();
        callscope_analysis::roles::guess_roles(&said, &company)
    })
    .await
    .map_err(|e| speech::stopped("telling the agent from the customer", &e))?;
    let Some(guess) = guess else { return Ok(()) };
    for speaker in speakers.iter_mut() {
        let role = if speaker.speaker_id == guess.agent { SpeakerRole::Agent } else { SpeakerRole::Customer };
        speaker.name = role.name(language).to_owned();
        speaker.role = Some(role);
        speaker.role_confidence = Some(guess.confidence);
    }
    Ok(())
}

/// The call's characteristics, measured on a blocking thread (the pauses are read from the
/// signals' files).
async fn measure_characteristics(
    words: Vec<TimedWord>,
    signals: Vec<Signal>,
    per_channel: bool,
    duration_ms: i64,
) -> Result<CallCharacteristics, StageError> {
    tokio::task::spawn_blocking(move || characteristics::measure(&words, &signals, per_channel, duration_ms))
        .await
        .map_err(|e| speech::stopped("measuring the call's characteristics", &e))?
        .map_err(|e| unreadable_audio(&e))
}

/// A decoded signal that could not be read back from its scratch file: worth another attempt.
pub(crate) fn unreadable_audio(error: &std::io::Error) -> StageError {
    tracing::error!(%error, "cannot read the decoded audio");
    StageError::Retryable(format!("could not read the decoded audio {SEE_THE_LOG}"))
}

/// With `channel_roles`, each channel is one speaker: the counts must agree.
fn check_channel_roles(job: &Job, audio: &DecodedAudio) -> Result<(), StageError> {
    let Some(roles) = &job.channel_roles else { return Ok(()) };
    let channels = audio.channels.len();
    if audio.info.channels > channels {
        return Err(StageError::Fatal(format!(
            "channel_roles needs one channel per speaker, but the file has {} channels: more than {} are mixed down to one \
             signal and its speakers told apart by voice; upload it without channel_roles",
            audio.info.channels,
            callscope_audio::MAX_SEPARATE_CHANNELS
        )));
    }
    if roles.len() != channels {
        let plural = |n: usize, word: &str| format!("{n} {word}{}", if n == 1 { "" } else { "s" });
        return Err(StageError::Fatal(format!(
            "channel_roles names {} but the file has {}",
            plural(roles.len(), "role"),
            plural(channels, "channel")
        )));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_speech_hint_names_the_topics_once_and_writes_numbers_in_digits_in_the_calls_language() {
        let category = |name: &str| CategoryInfo { id: callscope_domain::CategoryId::new(), parent: None, name: name.into(), description: None };
        let categories = [category("Billing"), category(" Refunds "), category("billing"), category("Zwroty")];
        assert_eq!(
            speech_hint(&categories, Language::En),
            "Topics: Billing, Refunds, Zwroty. My number is 07700 914326, the postcode is LS6 2QT and the card is 5355 4085 3664 3468."
        );
        assert_eq!(speech_hint(&[], Language::Pl), "Mój numer telefonu to 600 123 456, PESEL 85010212345, kod pocztowy 80-309.");
    }

    #[test]
    fn the_vocabulary_is_told_after_the_topics_and_only_when_asked_for() {
        let vocabulary = Vocabulary {
            terms: vec![
                callscope_domain::VocabularyTerm { term: "Brightwater".into(), spoken_forms: vec!["bright water".into()], company: false },
                callscope_domain::VocabularyTerm { term: "Flexa 300".into(), spoken_forms: Vec::new(), company: false },
            ],
        };
        let context = CallContext { vocabulary, ..CallContext::default() };
        let settings = |speech_hints, vocabulary_hints| PipelineSettings {
            max_duration_s: 60.0,
            keep_audio_for_redaction: false,
            speech_hints,
            vocabulary_hints,
        };
        assert_eq!(call_hint(&settings(false, true), &context, Language::En).as_deref(), Some("Brightwater, Flexa 300."));
        assert_eq!(call_hint(&settings(false, false), &context, Language::En), None);
        assert_eq!(
            call_hint(&settings(true, true), &context, Language::Pl).as_deref(),
            Some("Mój numer telefonu to 600 123 456, PESEL 85010212345, kod pocztowy 80-309. Brightwater, Flexa 300.")
        );
        assert_eq!(call_hint(&settings(false, true), &CallContext::default(), Language::En), None);
    }

    #[test]
    fn what_was_heard_comes_back_from_its_checkpoint_whole() {
        let words = vec![
            TimedWord { text: "Dzień".into(), start_ms: 0, end_ms: 400, speaker: 0, confidence: None },
            TimedWord { text: "dobry.".into(), start_ms: 400, end_ms: 900, speaker: 1, confidence: None },
        ];
        let (full_text, turns, speakers) = callscope_domain::build_transcript(&words, |label| format!("speaker {label}"));
        let characteristics = Some(CallCharacteristics::from_words(&words, 1250));
        let heard = Heard {
            audio: DecodedAudio {
                info: callscope_audio::AudioInfo {
                    container: callscope_audio::Container::Flac,
                    codec: "flac".into(),
                    source_rate: 8_000,
                    channels: 2,
                    duration_s: 1.25,
                },
                channels: vec![Signal::from_samples(vec![0.5; 10]); 2],
            },
            speaker_source: SpeakerSource::Channels,
            full_text,
            turns,
            speakers,
            words,
            speech_model: "whisper-base".into(),
            pii_statistics: PiiStatistics::default(),
            pii_spans: vec![PiiSpan { kind: "PERSON_NAME".into(), turn: 0, start: 0, end: 5, confidence: 0.8, start_ms: 0, end_ms: 400 }],
            pii_masked: true,
            characteristics,
        };
        let kept = heard.checkpoint();
        let back = Heard::from_checkpoint(&kept).expect("read back");
        assert_eq!(back.checkpoint(), kept, "everything but the signals");
        assert!(back.audio.channels.is_empty(), "the signals are not kept");
        assert_eq!((back.turns, back.words, back.pii_spans), (heard.turns, heard.words, heard.pii_spans));
        assert_eq!(back.characteristics, heard.characteristics);
        // A checkpoint kept before characteristics were measured still serves.
        let mut older = kept.clone();
        older.as_object_mut().unwrap().remove("characteristics");
        assert_eq!(Heard::from_checkpoint(&older).expect("read back").characteristics, None);
        assert!(Heard::from_checkpoint(&serde_json::json!({"audio": {}})).is_none(), "anything else is no checkpoint");
    }
}
