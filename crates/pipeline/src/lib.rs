//! The processing of one call, stage by stage, each behind a small trait so that engines can be
//! swapped by configuration and tests of other parts can use doubles. Stages report their
//! progress through [`Progress`]; the worker turns it into the job's `stage` and `progress`.
//!
//! Today the pipeline decodes (the [`Decoder`] stage); transcription, diarization, PII,
//! analysis and indexing join it as their engines are built.

use std::path::Path;
use std::sync::Arc;

use async_trait::async_trait;
use callscope_audio::{AudioError, DecodedAudio};
use callscope_domain::{Job, JobStage};

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
}

/// Turns stored audio into 16 kHz signals per channel.
#[async_trait]
pub trait Decoder: Send + Sync {
    /// Decodes the file at `path`, refusing audio longer than `max_duration_s`, reporting its
    /// progress as it goes.
    async fn decode(&self, path: &Path, max_duration_s: f64, progress: Arc<dyn Progress>) -> Result<DecodedAudio, StageError>;
}

/// The real decoder (symphonia through `callscope-audio`), run on a blocking thread.
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
            .map_err(|e| StageError::Retryable(format!("the decoder stopped: {e}")))?;
        result.map_err(|e| match e {
            AudioError::Io(_) => StageError::Retryable(e.to_string()),
            permanent => StageError::Fatal(permanent.to_string()),
        })
    }
}

/// What processing found out about a call.
#[derive(Debug, Clone)]
pub struct CallResult {
    /// The decoded audio.
    pub audio: DecodedAudio,
}

/// Settings of the pipeline.
#[derive(Debug, Clone)]
pub struct PipelineSettings {
    /// Longest accepted audio, in seconds.
    pub max_duration_s: f64,
}

/// The stages, wired.
#[derive(Clone)]
pub struct Pipeline {
    decoder: Arc<dyn Decoder>,
    settings: PipelineSettings,
}

impl Pipeline {
    /// A pipeline of the given stages.
    pub fn new(decoder: Arc<dyn Decoder>, settings: PipelineSettings) -> Self {
        Self { decoder, settings }
    }

    /// The pipeline with the real engines.
    pub fn real(settings: PipelineSettings) -> Self {
        Self::new(Arc::new(AudioDecoder), settings)
    }

    /// Processes the job's audio, stored at `audio`.
    ///
    /// # Errors
    /// The first stage that fails.
    pub async fn run(&self, job: &Job, audio: &Path, progress: Arc<dyn Progress>) -> Result<CallResult, StageError> {
        progress.report(JobStage::Decoding, 0.0);
        let decoded = self.decoder.decode(audio, self.settings.max_duration_s, progress.clone()).await?;
        check_channel_roles(job, &decoded)?;
        progress.report(JobStage::Decoding, 1.0);
        Ok(CallResult { audio: decoded })
    }
}

/// With `channel_roles`, each channel is one speaker: the counts must agree.
fn check_channel_roles(job: &Job, audio: &DecodedAudio) -> Result<(), StageError> {
    let Some(roles) = &job.channel_roles else { return Ok(()) };
    let channels = audio.channels.len();
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
