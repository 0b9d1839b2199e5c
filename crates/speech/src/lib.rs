//! Speech: Whisper transcription through CTranslate2 with word timing, voice activity detection
//! (the Silero network, or frame energy), and acoustic speaker diarization. Synchronous and
//! CPU-bound: callers run it on blocking threads and bound how many run at once.

pub mod diarize;
mod gmm;
pub mod mel;
mod pitch;
pub mod silero;
pub mod vad;
pub mod whisper;

pub use diarize::{diarize, diarize_reporting, Diarization, DiarizeSettings};
pub use silero::SileroVad;
pub use vad::{Region, Vad, VadSettings};
pub use whisper::{WhisperModel, WhisperSettings};

/// What can go wrong in speech processing.
#[derive(Debug, thiserror::Error)]
pub enum SpeechError {
    /// The model is missing, incomplete or does not load.
    #[error("speech model: {0}")]
    Model(String),
    /// The request cannot be served by this model (an unknown language, say).
    #[error("{0}")]
    Input(String),
    /// Inference failed.
    #[error("speech recognition failed: {0}")]
    Inference(String),
    /// The decoded audio could not be read back (its scratch file): may pass.
    #[error("the decoded audio could not be read: {0}")]
    Audio(#[from] std::io::Error),
}

/// One recognised word, placed in the original signal.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct Word {
    /// The word as written, with its punctuation.
    pub text: String,
    /// Start, seconds from the start of the recording.
    pub start_s: f32,
    /// End, seconds.
    pub end_s: f32,
    /// Mean probability of its tokens.
    pub probability: f32,
    /// Speaker label (0-based), filled by whoever knows who spoke.
    pub speaker: usize,
}

/// One channel's transcript.
#[derive(Debug, Clone, Default)]
pub struct Transcript {
    /// Recognised words in order.
    pub words: Vec<Word>,
    /// The speech the voice activity detector found.
    pub speech: Vec<Region>,
}
