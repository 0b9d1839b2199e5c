//! The real speech stages: Whisper (loaded once per process, shared by every worker) and the
//! acoustic diarizer, both run on blocking threads so that the async runtime stays responsive.

use std::path::Path;
use std::sync::Arc;

use async_trait::async_trait;
use callscope_audio::Signal;
use callscope_domain::Language;
use callscope_speech::{DiarizeSettings, Region, SpeechError, Transcript, Vad, WhisperModel, WhisperSettings, Word};
use tokio::sync::Semaphore;

use crate::{Diarizer, StageError, Transcriber};

fn stage_error(error: SpeechError) -> StageError {
    match error {
        SpeechError::Input(message) => StageError::Fatal(message),
        SpeechError::Audio(error) => crate::unreadable_audio(&error),
        // A model that fails to run will fail again; retrying wastes the queue's time.
        SpeechError::Model(message) | SpeechError::Inference(message) => StageError::Fatal(message),
    }
}

/// A stage's blocking thread that ended without its result (a panic): the log gets what it said,
/// the job a message without it (a JoinError's text carries the panic's).
pub(crate) fn stopped(stage: &str, error: &tokio::task::JoinError) -> StageError {
    tracing::error!(%error, "{stage} stopped");
    StageError::Retryable(format!("{stage} stopped on an internal error {}", crate::SEE_THE_LOG))
}

/// Whisper transcription with bounded concurrency: at most `concurrency` transcriptions run at
/// once in the process, each with the model's configured thread count, so that busy threads
/// never outnumber the cores given to speech.
pub struct WhisperTranscriber {
    model: Arc<WhisperModel>,
    permits: Arc<Semaphore>,
}

impl WhisperTranscriber {
    /// Loads the model in `dir` (on a blocking thread: it takes a moment), finding speech with `vad`.
    ///
    /// # Errors
    /// A missing or broken model.
    pub async fn load(dir: &Path, settings: WhisperSettings, vad: Vad, concurrency: usize) -> Result<Self, SpeechError> {
        let dir = dir.to_owned();
        let model = tokio::task::spawn_blocking(move || WhisperModel::load(&dir, settings).map(|m| m.with_vad(vad)))
            .await
            .map_err(|e| SpeechError::Model(format!("loading stopped: {e}")))??;
        Ok(Self::from_model(Arc::new(model), concurrency))
    }

    /// Wraps a loaded model.
    pub fn from_model(model: Arc<WhisperModel>, concurrency: usize) -> Self {
        Self { model, permits: Arc::new(Semaphore::new(concurrency.max(1))) }
    }
}

#[async_trait]
impl Transcriber for WhisperTranscriber {
    fn model_name(&self) -> String {
        self.model.name().to_string()
    }

    async fn transcribe(
        &self,
        signal: Signal,
        language: Language,
        hint: Option<&str>,
        mut progress: Box<dyn FnMut(f64) + Send>,
    ) -> Result<Transcript, StageError> {
        let hint = hint.map(str::to_owned);
        let permit = self.permits.clone().acquire_owned().await.map_err(|_| StageError::Retryable("shutting down".into()))?;
        let model = self.model.clone();
        // The permit goes with the thread: an attempt abandoned at its limit frees its slot only
        // when its thread has stopped, so threads never outnumber the concurrency.
        tokio::task::spawn_blocking(move || {
            let _permit = permit;
            model.transcribe_hinted(&signal, language.as_str(), hint.as_deref(), &mut *progress)
        })
        .await
        .map_err(|e| stopped("transcription", &e))?
        .map_err(stage_error)
    }
}

/// MFCC-statistics clustering (see `callscope_speech::diarize`).
#[derive(Debug, Clone, Copy, Default)]
pub struct AcousticDiarizer {
    settings: DiarizeSettings,
}

/// A call has two parties: in a recording of 20 s of speech or more, two voices are kept apart
/// even when the information criterion would merge them (two voices on a phone line often sound
/// alike to it), unless one of them says under 2 s. A long recording of one voice (a voicemail)
/// then often comes out as two speakers, which is the lesser harm: two voices as one would leave
/// nothing to tell the agent from.
const CALL_PARTIES: usize = 2;

impl AcousticDiarizer {
    /// A diarizer that finds two speakers, or up to `max_speakers` where it hears more.
    pub fn new(max_speakers: usize) -> Self {
        let max_speakers = max_speakers.max(1);
        Self { settings: DiarizeSettings { max_speakers, min_speakers: CALL_PARTIES.min(max_speakers), ..DiarizeSettings::default() } }
    }
}

#[async_trait]
impl Diarizer for AcousticDiarizer {
    async fn diarize(
        &self,
        signal: Signal,
        speech: Vec<Region>,
        mut words: Vec<Word>,
        mut progress: Box<dyn FnMut(f64) + Send>,
    ) -> Result<Vec<Word>, StageError> {
        let settings = self.settings;
        tokio::task::spawn_blocking(move || {
            let found = callscope_speech::diarize_reporting(&signal, &speech, &settings, &mut *progress)?;
            for word in &mut words {
                word.speaker = found.speaker_at(word.start_s, word.end_s);
            }
            // Speakers numbered by their first word.
            let mut order: Vec<usize> = Vec::new();
            for w in &words {
                if !order.contains(&w.speaker) {
                    order.push(w.speaker);
                }
            }
            for w in &mut words {
                w.speaker = order.iter().position(|&s| s == w.speaker).unwrap_or(0);
            }
            Ok(words)
        })
        .await
        .map_err(|e| stopped("diarization", &e))?
        .map_err(|e: std::io::Error| crate::unreadable_audio(&e))
    }
}
