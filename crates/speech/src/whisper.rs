//! Whisper through CTranslate2 (`ct2rs`): the model is read as the registry ships it (a
//! CTranslate2 directory: `model.bin`, `config.json`, `tokenizer.json`, optionally
//! `preprocessor_config.json` with the mel filters).
//!
//! The decoding loop is ours, not the binding's fixed 30-second chunks:
//! - voice activity detection first (the Silero network, or frame energy); only speech is
//!   decoded, and windows are cut at pauses, so no word straddles a seam. Speech regions are
//!   packed into windows of up to 30 s (silence between them removed) and every timestamp is
//!   mapped back to the original signal;
//! - timestamps on, so Whisper closes its segments; when a window's output stops at an
//!   unfinished segment, the rest of the window is decoded again from there (nothing lost, and
//!   nothing decoded twice);
//! - word timing from the cross-attention alignment (DTW over the model's alignment heads);
//! - hallucination guards: the no-speech probability, a temperature fallback when the output is
//!   repetitive or improbable, removal of repeated segments and n-gram loops, and of the stock
//!   phrases Whisper invents on silence and music.

use std::collections::HashMap;
use std::io::Write;
use std::path::{Path, PathBuf};

use callscope_audio::SampleSource;
use ct2rs::sys::{ComputeType, Config, Device, StorageView, Whisper, WhisperOptions};
use serde::Deserialize;

use crate::mel::{MelExtractor, MelFilters, HOP, SAMPLE_RATE, WINDOW_SAMPLES};
use crate::vad::{self, Region, Vad, VadSettings};
use crate::{SpeechError, Transcript, Word};

/// The seed of Whisper's fallback sampling (any fixed value: the point is that it is fixed).
const WHISPER_SEED: u32 = 20_261_125;

/// How to run the model.
#[derive(Debug, Clone)]
pub struct WhisperSettings {
    /// Threads: windows decoded side by side, one thread each.
    pub threads: usize,
    /// Beam width.
    pub beam_size: usize,
    /// `float32`, `int8`, `int8_float32`, or `auto`/`default`.
    pub compute_type: String,
}

impl Default for WhisperSettings {
    fn default() -> Self {
        Self { threads: 1, beam_size: 5, compute_type: "int8".into() }
    }
}

fn compute_type(name: &str) -> Result<ComputeType, SpeechError> {
    Ok(match name {
        "float32" => ComputeType::FLOAT32,
        "int8" => ComputeType::INT8,
        "int8_float32" => ComputeType::INT8_FLOAT32,
        "int16" => ComputeType::INT16,
        "auto" => ComputeType::AUTO,
        "default" => ComputeType::DEFAULT,
        other => return Err(SpeechError::Model(format!("unknown compute type {other:?} (float32, int8, int8_float32, int16, auto, default)"))),
    })
}

#[derive(Deserialize)]
struct PreprocessorConfig {
    #[serde(default)]
    mel_filters: Option<Vec<Vec<f64>>>,
    #[serde(default)]
    feature_size: Option<usize>,
}

/// The most hint tokens given before a window: Whisper's text context is 448 tokens, and it was
/// trained with at most half of it as earlier text.
const MAX_HINT_TOKENS: usize = 223;

/// Token ids the decoding loop needs.
#[derive(Debug, Clone)]
struct Tokens {
    sot: u32,
    /// `<|startofprev|>`: what follows it, up to `sot`, is text the window is told came before.
    previous: Option<u32>,
    eot: u32,
    transcribe: Option<u32>,
    timestamp_begin: u32,
    languages: HashMap<String, u32>,
}

/// A loaded Whisper model, shared by every job in the process.
pub struct WhisperModel {
    /// One engine (a CTranslate2 model on one thread) per decoding thread.
    engines: Vec<Whisper>,
    tokenizer: tokenizers::Tokenizer,
    mel: MelExtractor,
    tokens: Tokens,
    settings: WhisperSettings,
    vad: Vad,
    name: String,
    dir: PathBuf,
}

/// One decoded window: where its audio came from, and what it holds.
#[derive(Debug, Clone)]
struct Window {
    /// `(start in the source, length)` of each piece, in samples, in order.
    pieces: Vec<(usize, usize)>,
}

impl Window {
    fn len(&self) -> usize {
        self.pieces.iter().map(|p| p.1).sum()
    }

    /// The window's samples, read piece by piece.
    fn audio<S: SampleSource + ?Sized>(&self, samples: &S) -> std::io::Result<Vec<f32>> {
        let mut out = vec![0.0; self.len()];
        let mut at = 0;
        for &(start, len) in &self.pieces {
            samples.read_into(start, &mut out[at..at + len])?;
            at += len;
        }
        Ok(out)
    }

    /// Maps a time in the window (seconds) to a time in the source (seconds).
    fn to_source(&self, t: f32) -> f32 {
        let mut at = (t.max(0.0) * SAMPLE_RATE as f32) as usize;
        for &(start, len) in &self.pieces {
            if at < len {
                return (start + at) as f32 / SAMPLE_RATE as f32;
            }
            at -= len;
        }
        self.pieces.last().map_or(0.0, |&(s, l)| (s + l) as f32 / SAMPLE_RATE as f32)
    }

    /// Maps a word's span in the window to the source. Pieces are separate stretches of speech,
    /// so a word that starts in one piece ends there too: an end that reaches into the next piece
    /// (alignment is coarse at piece joins) is cut at the end of the word's own piece.
    fn span_to_source(&self, start: f32, end: f32) -> (f32, f32) {
        let rate = SAMPLE_RATE as f32;
        let mut offset = 0usize;
        let at = (start.max(0.0) * rate) as usize;
        for &(source, len) in &self.pieces {
            if at < offset + len {
                let piece_end_s = (offset + len) as f32 / rate;
                let s = (source + at - offset) as f32 / rate;
                let e = (source as f32 + (end.min(piece_end_s) * rate - offset as f32)) / rate;
                return (s, e.max(s + 0.02));
            }
            offset += len;
        }
        let s = self.to_source(start);
        (s, s + 0.02)
    }

    /// The part of the window from `offset` samples on.
    fn tail(&self, offset: usize) -> Window {
        let mut skip = offset;
        let mut pieces = Vec::new();
        for &(start, len) in &self.pieces {
            if skip >= len {
                skip -= len;
                continue;
            }
            pieces.push((start + skip, len - skip));
            skip = 0;
        }
        Window { pieces }
    }
}

/// A segment Whisper produced: text tokens between two timestamps.
#[derive(Debug, Clone)]
struct RawSegment {
    start: f32,
    end: f32,
    ids: Vec<u32>,
    pieces: Vec<String>,
    /// Per token: (start, end, probability), in window seconds, when alignment ran.
    timing: Vec<(f32, f32, f32)>,
}

struct Decoded {
    segments: Vec<RawSegment>,
    /// Where, in window samples, decoding must resume (an unfinished segment), if anywhere.
    resume_at: Option<usize>,
    no_speech_prob: f32,
    avg_logprob: f32,
    compression_ratio: f32,
}

/// Phrases Whisper emits for silence, music or noise (from its subtitle training data). A segment
/// that is nothing but one of these is dropped.
const STOCK_PHRASES: &[&str] = &[
    "thank you for watching",
    "thanks for watching",
    "thank you for watching and see you next time",
    "thank you so much for watching",
    "please subscribe",
    "please subscribe to my channel",
    "like and subscribe",
    "subtitles by the amara org community",
    "subtitles by",
    "transcribed by",
    "napisy stworzone przez społeczność amara org",
    "napisy wykonane przez społeczność amara org",
    "dziękuję za obejrzenie",
    "dzięki za obejrzenie",
    "dziękuję za uwagę i do zobaczenia",
    "zapraszam do subskrypcji",
    "subskrybuj",
    "you",
];

fn normalise(text: &str) -> String {
    let cleaned: String =
        text.chars().map(|c| if c.is_alphanumeric() || c.is_whitespace() { c.to_lowercase().next().unwrap_or(c) } else { ' ' }).collect();
    cleaned.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// zlib compression ratio of a text: above ~2.4, Whisper is looping.
fn compression_ratio(text: &str) -> f32 {
    if text.is_empty() {
        return 0.0;
    }
    let mut encoder = flate2::write::ZlibEncoder::new(Vec::new(), flate2::Compression::default());
    let _ = encoder.write_all(text.as_bytes());
    let compressed = encoder.finish().map(|v| v.len()).unwrap_or(text.len());
    text.len() as f32 / compressed.max(1) as f32
}

impl WhisperModel {
    /// Loads the CTranslate2 Whisper model in `dir`.
    ///
    /// # Errors
    /// When a file is missing or the model does not load.
    pub fn load(dir: &Path, settings: WhisperSettings) -> Result<Self, SpeechError> {
        for file in ["model.bin", "config.json", "tokenizer.json"] {
            if !dir.join(file).is_file() {
                return Err(SpeechError::Model(format!(
                    "{} has no {file}: not a CTranslate2 Whisper model (run `callscope models install`)",
                    dir.display()
                )));
            }
        }
        let tokenizer = tokenizers::Tokenizer::from_file(dir.join("tokenizer.json"))
            .map_err(|e| SpeechError::Model(format!("{}: {e}", dir.join("tokenizer.json").display())))?;
        // One engine per thread, one thread each: windows are decoded side by side. Each engine
        // loads the model itself. (CTranslate2's own replicas, asked for with the device index
        // repeated, are copies of the first one's weights, and a copy of MKL's packed int8
        // weights makes MKL's matrix product fail with SIGFPE.)
        let compute_type = compute_type(&settings.compute_type)?;
        // Whisper's temperature fallback samples, with a generator CTranslate2 keeps per thread
        // and seeds from the process-wide seed (else from `random_device`). A fixed seed, and each
        // window decoded by the same engine in every run (see `transcribe`), make a process
        // transcribe the same files the same way every time.
        ct2rs::set_random_seed(WHISPER_SEED);
        let engines = (0..settings.threads.max(1))
            .map(|_| {
                let config = Config { device: Device::CPU, compute_type, device_indices: vec![0], num_threads_per_replica: 1, ..Config::default() };
                Whisper::new(dir, config).map_err(|e| SpeechError::Model(format!("{}: {e}", dir.display())))
            })
            .collect::<Result<Vec<_>, _>>()?;
        let whisper = &engines[0];
        let n_mels = whisper.n_mels();
        let filters = match std::fs::read(dir.join("preprocessor_config.json")) {
            Ok(bytes) => {
                let pre: PreprocessorConfig =
                    serde_json::from_slice(&bytes).map_err(|e| SpeechError::Model(format!("preprocessor_config.json: {e}")))?;
                match pre.mel_filters {
                    Some(rows) => MelFilters::from_rows(&rows).map_err(SpeechError::Model)?,
                    None => MelFilters::slaney(pre.feature_size.unwrap_or(n_mels)),
                }
            }
            Err(_) => MelFilters::slaney(n_mels),
        };
        if filters.n_mels() != n_mels {
            return Err(SpeechError::Model(format!("the model wants {n_mels} mel bands, the filters have {}", filters.n_mels())));
        }
        let id = |t: &str| tokenizer.token_to_id(t);
        let sot = id("<|startoftranscript|>").ok_or_else(|| SpeechError::Model("tokenizer lacks <|startoftranscript|>".into()))?;
        let eot = id("<|endoftext|>").ok_or_else(|| SpeechError::Model("tokenizer lacks <|endoftext|>".into()))?;
        let no_timestamps = id("<|notimestamps|>").ok_or_else(|| SpeechError::Model("tokenizer lacks <|notimestamps|>".into()))?;
        let timestamp_begin = id("<|0.00|>").unwrap_or(no_timestamps + 1);
        let multilingual = whisper.is_multilingual();
        let mut languages = HashMap::new();
        if multilingual {
            for code in ["en", "pl", "de", "fr", "es", "it", "uk", "ru", "cs", "nl", "pt"] {
                if let Some(t) = id(&format!("<|{code}|>")) {
                    languages.insert(code.to_string(), t);
                }
            }
        }
        let tokens = Tokens {
            sot,
            previous: id("<|startofprev|>"),
            eot,
            transcribe: if multilingual { id("<|transcribe|>") } else { None },
            timestamp_begin,
            languages,
        };
        let name = dir.file_name().map_or_else(|| "whisper".to_string(), |n| n.to_string_lossy().into_owned());
        Ok(Self { engines, tokenizer, mel: MelExtractor::new(filters), tokens, settings, vad: Vad::Energy, name, dir: dir.to_owned() })
    }

    /// Uses `vad` to find the speech (the energy detector until this is called).
    #[must_use]
    pub fn with_vad(mut self, vad: Vad) -> Self {
        self.vad = vad;
        self
    }

    /// The voice activity detector in use.
    pub fn vad(&self) -> &Vad {
        &self.vad
    }

    /// The model's name (its directory's name).
    pub fn name(&self) -> &str {
        &self.name
    }

    /// Where it was loaded from.
    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// Whether it knows other languages than English.
    pub fn is_multilingual(&self) -> bool {
        !self.tokens.languages.is_empty()
    }

    /// The decoder's prompt: the hint as text said before (when there is one), then the start
    /// of the transcript in `language`.
    fn prompt(&self, language: &str, hint: Option<&str>) -> Result<Vec<u32>, SpeechError> {
        let mut prompt = Vec::new();
        if let (Some(previous), Some(hint)) = (self.tokens.previous, hint.map(str::trim).filter(|h| !h.is_empty())) {
            let encoded = self.tokenizer.encode(format!(" {hint}"), false).map_err(|e| SpeechError::Model(format!("tokenizer: {e}")))?;
            let ids = encoded.get_ids();
            // Whisper was trained with at most half its text context before the transcript; the
            // end of a long hint is kept, as the end of earlier text would be.
            prompt.push(previous);
            prompt.extend_from_slice(&ids[ids.len().saturating_sub(MAX_HINT_TOKENS)..]);
        }
        prompt.push(self.tokens.sot);
        if self.is_multilingual() {
            let lang = self
                .tokens
                .languages
                .get(language)
                .ok_or_else(|| SpeechError::Input(format!("the speech model {} does not know the language {language:?}", self.name)))?;
            prompt.push(*lang);
            prompt.extend(self.tokens.transcribe);
        } else if language != "en" {
            return Err(SpeechError::Input(format!(
                "the speech model {} is English-only and cannot transcribe {language:?}; configure a multilingual model",
                self.name
            )));
        }
        Ok(prompt)
    }

    /// Transcribes one channel (16 kHz mono) in `language` (`en`, `pl`, …). `on_progress` gets
    /// the fraction done.
    ///
    /// # Errors
    /// An unknown language for this model, or an inference failure.
    pub fn transcribe<S: SampleSource + ?Sized>(
        &self,
        samples: &S,
        language: &str,
        on_progress: &mut dyn FnMut(f64),
    ) -> Result<Transcript, SpeechError> {
        self.transcribe_hinted(samples, language, None, on_progress)
    }

    /// [`transcribe`](Self::transcribe), with `hint` given to every window as the text said
    /// before it: the words and the way of writing them the call is likely to hold (the
    /// project's topics, numbers in digits).
    ///
    /// # Errors
    /// An unknown language for this model, or an inference failure.
    pub fn transcribe_hinted<S: SampleSource + ?Sized>(
        &self,
        samples: &S,
        language: &str,
        hint: Option<&str>,
        on_progress: &mut dyn FnMut(f64),
    ) -> Result<Transcript, SpeechError> {
        let prompt = self.prompt(language, hint)?;
        // Whisper gets speech with room around it and short pauses kept (words are not clipped,
        // and a window's text reads on); diarization gets the speech alone (every frame it
        // models is a speaker's).
        let raw = self.vad.speech(samples, &VadSettings::default())?;
        let len = samples.sample_count();
        let regions = vad::shape(&raw, len, &VadSettings::default());
        let speech = vad::shape(&raw, len, &VadSettings::SPEECH_ONLY);
        let windows = pack_windows(samples, &regions)?;
        let total: usize = windows.iter().map(Window::len).sum::<usize>().max(1);
        // Windows are independent: with several engines they are decoded side by side, each on
        // one thread (small matrix products scale badly across threads; windows scale well).
        // Window i goes to engine i mod n, not to whichever is free: the sampling generator of
        // an engine's thread then sees the same windows in the same order in every run.
        let workers = self.engines.len().min(windows.len().max(1));
        let (tx, rx) = std::sync::mpsc::channel();
        let mut decoded: Vec<Option<Vec<(RawSegment, Window, f32)>>> = vec![None; windows.len()];
        std::thread::scope(|scope| -> Result<(), SpeechError> {
            for (k, engine) in self.engines[..workers].iter().enumerate() {
                let (tx, windows, prompt) = (tx.clone(), &windows, &prompt);
                scope.spawn(move || {
                    for (i, window) in windows.iter().enumerate().skip(k).step_by(workers) {
                        let result = self.decode_whole_window(engine, samples, window, prompt);
                        let failed = result.is_err();
                        if tx.send((i, result)).is_err() || failed {
                            break;
                        }
                    }
                });
            }
            drop(tx);
            let mut done = 0usize;
            for (i, result) in rx {
                decoded[i] = Some(result?);
                done += windows[i].len();
                on_progress(done as f64 / total as f64);
            }
            Ok(())
        })?;
        let mut words: Vec<Word> = Vec::new();
        let mut last_text: Option<String> = None;
        for (segment, window, no_speech_prob) in decoded.into_iter().flatten().flatten() {
            let text = self.segment_text(&segment);
            let norm = normalise(&text);
            if norm.is_empty() || STOCK_PHRASES.contains(&norm.as_str()) && no_speech_prob > 0.2 {
                continue;
            }
            if last_text.as_deref() == Some(norm.as_str()) && norm.split(' ').count() > 2 {
                continue; // a repeated line
            }
            last_text = Some(norm);
            words.extend(segment_words(&segment, &window, &self.tokenizer));
        }
        if windows.is_empty() {
            on_progress(1.0);
        }
        let mut words = collapse_loops(words);
        if let Some(hint) = hint {
            words = without_hint_echo(words, hint);
        }
        Ok(Transcript { words, speech })
    }

    /// Decodes a window, and again from where its output stopped when it stopped at an
    /// unfinished segment (at most a few times). Each segment comes with the (part of the)
    /// window it was decoded from and that decoding's no-speech probability.
    fn decode_whole_window<S: SampleSource + ?Sized>(
        &self,
        engine: &Whisper,
        samples: &S,
        window: &Window,
        prompt: &[u32],
    ) -> Result<Vec<(RawSegment, Window, f32)>, SpeechError> {
        let mut out = Vec::new();
        let mut current = window.clone();
        for _ in 0..8 {
            if current.len() < SAMPLE_RATE / 4 {
                break;
            }
            let audio = current.audio(samples)?;
            let features = self.mel.whisper_features(&audio);
            let decoded = self.decode_window(engine, features, prompt, audio.len())?;
            out.extend(decoded.segments.into_iter().map(|s| (s, current.clone(), decoded.no_speech_prob)));
            match decoded.resume_at {
                Some(at) if at + SAMPLE_RATE < current.len() && at > 0 => current = current.tail(at),
                _ => break,
            }
        }
        Ok(out)
    }

    fn segment_text(&self, segment: &RawSegment) -> String {
        self.tokenizer.decode(&segment.ids, true).unwrap_or_default().trim().to_string()
    }

    fn options(&self, temperature: f32) -> WhisperOptions {
        let mut options = WhisperOptions {
            beam_size: self.settings.beam_size.max(1),
            return_scores: true,
            return_no_speech_prob: true,
            ..WhisperOptions::default()
        };
        if temperature > 0.0 {
            options.beam_size = 1;
            options.sampling_topk = 0;
            options.sampling_temperature = temperature;
            options.num_hypotheses = 3;
        }
        options
    }

    /// Decodes one window (features of 30 s), falling back to sampling at rising temperatures
    /// when the output loops or is improbable.
    fn decode_window(&self, engine: &Whisper, mut features: Vec<f32>, prompt: &[u32], content_len: usize) -> Result<Decoded, SpeechError> {
        let n_mels = self.mel.n_mels();
        let frames = features.len() / n_mels;
        let infer = |e: anyhow::Error| SpeechError::Inference(e.to_string());
        let view = StorageView::new(&[1, n_mels, frames], &mut features, Device::CPU).map_err(infer)?;
        let started = std::time::Instant::now();
        let encoded = engine.encode(&view, false).map_err(infer)?;
        let encode_s = started.elapsed().as_secs_f64();
        let prompt_tokens: Vec<String> = prompt.iter().map(|&id| self.tokenizer.id_to_token(id).unwrap_or_default()).collect();
        let prompts = vec![prompt_tokens];
        let mut best: Option<Decoded> = None;
        let mut attempts = 0;
        for temperature in [0.0f32, 0.2, 0.5, 0.8] {
            attempts += 1;
            let results = engine.generate(&encoded, &prompts, &self.options(temperature)).map_err(infer)?;
            let Some(result) = results.into_iter().next() else { break };
            // Among sampled hypotheses, the most probable.
            let mut candidates: Vec<Decoded> = result
                .sequences_ids
                .iter()
                .zip(&result.sequences)
                .zip(result.scores.iter().copied().chain(std::iter::repeat(0.0)))
                .map(|((ids, pieces), score)| self.parse(ids, pieces, score, result.no_speech_prob, content_len))
                .collect();
            candidates.sort_by(|a, b| b.avg_logprob.total_cmp(&a.avg_logprob));
            let Some(candidate) = candidates.into_iter().next() else { break };
            let silent = candidate.no_speech_prob > 0.6 && candidate.avg_logprob < -1.0;
            if silent {
                return Ok(Decoded { segments: Vec::new(), resume_at: None, ..candidate });
            }
            let looping = candidate.compression_ratio > 2.4;
            if !looping && candidate.avg_logprob >= -1.0 {
                best = Some(candidate);
                break;
            }
            // When every temperature fails, a text that does not loop beats a more probable one
            // that does: a loop is confident nonsense ("8-8-8-8…" for a spoken phone number),
            // which the rest of the pipeline would read as data.
            let better = |b: &Decoded| {
                let b_looping = b.compression_ratio > 2.4;
                if looping != b_looping {
                    b_looping
                } else {
                    candidate.avg_logprob > b.avg_logprob
                }
            };
            if best.as_ref().is_none_or(better) {
                best = Some(candidate);
            }
        }
        let mut decoded =
            best.unwrap_or(Decoded { segments: Vec::new(), resume_at: None, no_speech_prob: 1.0, avg_logprob: 0.0, compression_ratio: 0.0 });
        let generate_s = started.elapsed().as_secs_f64() - encode_s;
        self.add_word_timing(engine, &encoded, prompt, &mut decoded, content_len)?;
        tracing::debug!(
            audio_s = content_len as f64 / SAMPLE_RATE as f64,
            encode_s,
            generate_s,
            align_s = started.elapsed().as_secs_f64() - encode_s - generate_s,
            attempts,
            avg_logprob = decoded.avg_logprob,
            compression_ratio = decoded.compression_ratio,
            "window decoded"
        );
        Ok(decoded)
    }

    fn parse(&self, ids: &[usize], pieces: &[String], score: f32, no_speech_prob: f32, content_len: usize) -> Decoded {
        let ts_begin = self.tokens.timestamp_begin as usize;
        let eot = self.tokens.eot as usize;
        let content_s = content_len as f32 / SAMPLE_RATE as f32;
        let mut segments = Vec::new();
        let mut start: Option<f32> = None;
        let mut text: Vec<u32> = Vec::new();
        let mut text_pieces: Vec<String> = Vec::new();
        let mut last_two_timestamps = false;
        let mut previous_was_timestamp = false;
        let mut last_timestamp = 0.0f32;
        for (i, &id) in ids.iter().enumerate() {
            if id >= ts_begin {
                let t = (id - ts_begin) as f32 * 0.02;
                if !text.is_empty() {
                    segments.push(RawSegment {
                        start: start.unwrap_or(0.0),
                        end: t.min(content_s),
                        ids: std::mem::take(&mut text),
                        pieces: std::mem::take(&mut text_pieces),
                        timing: Vec::new(),
                    });
                }
                start = Some(t);
                last_two_timestamps = previous_was_timestamp && i + 1 == ids.len();
                previous_was_timestamp = true;
                last_timestamp = t;
            } else if id < eot {
                text.push(id as u32);
                text_pieces.push(pieces.get(i).cloned().unwrap_or_default());
                previous_was_timestamp = false;
            }
        }
        let mut resume_at = None;
        if !text.is_empty() {
            // Output that ran out before closing its segment: keep it up to the window's end.
            segments.push(RawSegment { start: start.unwrap_or(0.0), end: content_s, ids: text, pieces: text_pieces, timing: Vec::new() });
        } else if last_two_timestamps || (ids.last().is_some_and(|&id| id >= ts_begin) && ids.len() >= 440) {
            resume_at = Some((last_timestamp * SAMPLE_RATE as f32) as usize);
        }
        let all_text: String = segments.iter().map(|s| self.tokenizer.decode(&s.ids, true).unwrap_or_default()).collect();
        let len = ids.len().max(1) as f32;
        Decoded { segments, resume_at, no_speech_prob, avg_logprob: score * len / (len + 1.0), compression_ratio: compression_ratio(all_text.trim()) }
    }

    /// Word start and end times from the cross-attention alignment of the text tokens.
    fn add_word_timing(
        &self,
        engine: &Whisper,
        encoded: &StorageView,
        prompt: &[u32],
        decoded: &mut Decoded,
        content_len: usize,
    ) -> Result<(), SpeechError> {
        let text: Vec<usize> = decoded.segments.iter().flat_map(|s| s.ids.iter().map(|&i| i as usize)).collect();
        if text.is_empty() {
            return Ok(());
        }
        // Alignment starts at the transcript's start: the hint before it is not in the audio.
        let sot_at = prompt.iter().position(|&t| t == self.tokens.sot).unwrap_or(0);
        let start: Vec<usize> = prompt[sot_at..].iter().map(|&i| i as usize).collect();
        let frames = (content_len / HOP).clamp(1, WINDOW_SAMPLES / HOP);
        let aligned = engine
            .align(encoded, &start, std::slice::from_ref(&text), &[frames], 7)
            .map_err(|e| SpeechError::Inference(format!("word alignment: {e}")))?;
        let Some(alignment) = aligned.into_iter().next() else { return Ok(()) };
        // The alignment path: (token index, frame index) pairs; the time of a token is the frame
        // where the path first reaches it.
        let mut jump_times = Vec::with_capacity(text.len() + 1);
        let mut previous: Option<i64> = None;
        for pair in &alignment.alignments {
            if previous != Some(pair.token_x) {
                jump_times.push(pair.frame_x as f32 / 50.0);
                previous = Some(pair.token_x);
            }
        }
        if jump_times.len() < text.len() + 1 {
            return Ok(()); // leave the segment-level fallback
        }
        let mut index = 0usize;
        for segment in &mut decoded.segments {
            let n = segment.ids.len();
            segment.timing = (0..n)
                .map(|i| {
                    let prob = alignment.text_token_probs.get(index + i).copied().unwrap_or(1.0);
                    (jump_times[index + i], jump_times[index + i + 1], prob)
                })
                .collect();
            index += n;
        }
        Ok(())
    }
}

/// Groups a segment's tokens into words (a piece that starts with a space, `Ġ` in the byte-level
/// vocabulary, starts a word; punctuation sticks to the word before) and places them in the
/// source signal.
fn segment_words(segment: &RawSegment, window: &Window, tokenizer: &tokenizers::Tokenizer) -> Vec<Word> {
    struct Building {
        ids: Vec<u32>,
        start: Option<f32>,
        end: Option<f32>,
        probs: Vec<f32>,
    }
    let mut groups: Vec<Building> = Vec::new();
    for (i, (id, text)) in segment.ids.iter().zip(&segment.pieces).enumerate() {
        let timing = segment.timing.get(i).copied();
        let starts_word = text.starts_with('Ġ') || text.starts_with(' ') || text.starts_with('▁');
        let is_punct = !text.is_empty() && text.chars().all(|c| c.is_ascii_punctuation());
        if groups.is_empty() || (starts_word && !is_punct) {
            groups.push(Building { ids: Vec::new(), start: None, end: None, probs: Vec::new() });
        }
        let g = groups.last_mut().expect("a group exists");
        g.ids.push(*id);
        if let Some((s, e, p)) = timing {
            if !is_punct || g.start.is_none() {
                g.start.get_or_insert(s);
                g.end = Some(e);
            }
            g.probs.push(p);
        }
    }
    let texts: Vec<String> = groups.iter().map(|g| tokenizer.decode(&g.ids, true).unwrap_or_default().trim().to_string()).collect();
    // Without alignment, spread the segment's time over its words by their length.
    let total_chars: usize = texts.iter().map(|t| t.chars().count().max(1)).sum::<usize>().max(1);
    let span = (segment.end - segment.start).max(0.0);
    let mut cursor = segment.start;
    let mut words = Vec::new();
    for (g, text) in groups.iter().zip(texts) {
        let share = span * text.chars().count().max(1) as f32 / total_chars as f32;
        let (mut start, mut end) = match (g.start, g.end) {
            (Some(s), Some(e)) => (s, e),
            _ => (cursor, cursor + share),
        };
        cursor += share;
        if text.is_empty() {
            continue;
        }
        // Keep words inside their segment and give each at least 20 ms.
        start = start.clamp(segment.start, segment.end.max(segment.start));
        end = end.clamp(start + 0.02, segment.end.max(start + 0.02));
        let probability = if g.probs.is_empty() { 1.0 } else { g.probs.iter().sum::<f32>() / g.probs.len() as f32 };
        let (start_s, end_s) = window.span_to_source(start, end);
        words.push(Word { text, start_s, end_s, probability, speaker: 0 });
    }
    words
}

/// Removes n-gram loops (the same 1–8 words over and over): a run of more than three repeats is
/// cut back to one. A loop inside one word (Whisper joins digits with hyphens: "20-6-8-8-8-8-…")
/// is cut back too.
fn collapse_loops(words: Vec<Word>) -> Vec<Word> {
    let words: Vec<Word> = words.into_iter().map(|w| Word { text: collapse_loop_in_word(&w.text), ..w }).collect();
    let key = |w: &Word| normalise(&w.text);
    let mut out: Vec<Word> = Vec::with_capacity(words.len());
    let mut i = 0;
    while i < words.len() {
        let mut skipped = false;
        for n in 1..=8usize {
            if i + n * 4 > words.len() {
                break;
            }
            let unit: Vec<String> = words[i..i + n].iter().map(key).collect();
            let mut repeats = 1;
            while i + (repeats + 1) * n <= words.len() && words[i + repeats * n..i + (repeats + 1) * n].iter().map(key).eq(unit.iter().cloned()) {
                repeats += 1;
            }
            if repeats > 3 {
                out.extend(words[i..i + n].iter().cloned());
                i += repeats * n;
                skipped = true;
                break;
            }
        }
        if !skipped {
            out.push(words[i].clone());
            i += 1;
        }
    }
    out
}

/// The fewest words copied from the hint, in its order, that are taken for an echo of it when they
/// run across two of its items ("Sunvault, EcoTrack 2, Keighley"); a run inside one item (a term
/// of several words said in the call) is an echo only from `HINT_ECHO_ONE_ITEM` words.
const HINT_ECHO_WORDS: usize = 4;
const HINT_ECHO_ONE_ITEM: usize = 6;

/// Removes what Whisper copied from the hint instead of hearing it. Told a list of terms before a
/// window, the model sometimes goes on writing the list where the audio ends or is unclear
/// ("…and Voltaryn will handle Sunvault, EcoTrack 2, Keighley, Slaithwaite, MPAN, Economy 7."):
/// every run of words that stands in the hint in the same order, across two of its items (split
/// at its punctuation) and at least [`HINT_ECHO_WORDS`] long, or [`HINT_ECHO_ONE_ITEM`] long
/// within one, is dropped. A term said in the call is one item, so it stays.
fn without_hint_echo(words: Vec<Word>, hint: &str) -> Vec<Word> {
    let mut hint_words: Vec<(String, usize)> = Vec::new();
    let mut item = 0;
    for raw in hint.split_whitespace() {
        let key = normalise(raw);
        if !key.is_empty() {
            hint_words.push((key, item));
        }
        if raw.ends_with([',', '.', ';', ':', '!', '?']) {
            item += 1;
        }
    }
    let keys: Vec<String> = words.iter().map(|w| normalise(&w.text)).collect();
    let mut echo = vec![false; words.len()];
    let mut i = 0;
    while i < words.len() {
        // The longest run from word i that the hint holds, and whether it crosses an item.
        let mut longest = (0, false);
        for j in 0..hint_words.len() {
            let run = keys[i..].iter().zip(&hint_words[j..]).take_while(|(k, (h, _))| !k.is_empty() && *k == h).count();
            if run > 0 {
                let crosses = hint_words[j].1 != hint_words[j + run - 1].1;
                longest = longest.max((run, crosses));
            }
        }
        let (run, crosses) = longest;
        if run >= HINT_ECHO_ONE_ITEM || (run >= HINT_ECHO_WORDS && crosses) {
            echo[i..i + run].iter_mut().for_each(|e| *e = true);
            i += run;
        } else {
            i += 1;
        }
    }
    words.into_iter().zip(echo).filter(|(_, echoed)| !echoed).map(|(w, _)| w).collect()
}

/// The most times a piece of 1–4 characters may follow itself inside one word before it counts as
/// a loop: "8-8-8-8-8-8-8-8" (eight eights) is still a number someone could say, and a loop runs
/// to dozens.
const WORD_LOOP_REPEATS: usize = 8;

/// `text` with every run of a 1–4 character piece repeated more than `WORD_LOOP_REPEATS` times in
/// a row cut back to one piece, and a trailing hyphen left by the cut dropped.
fn collapse_loop_in_word(text: &str) -> String {
    let chars: Vec<char> = text.chars().collect();
    if chars.len() <= WORD_LOOP_REPEATS {
        return text.to_string();
    }
    let mut out = String::with_capacity(text.len());
    let mut i = 0;
    'outer: while i < chars.len() {
        for n in 1..=4usize {
            let unit = &chars[i..(i + n).min(chars.len())];
            if unit.len() < n {
                break;
            }
            let mut repeats = 1;
            while chars.get(i + repeats * n..i + (repeats + 1) * n) == Some(unit) {
                repeats += 1;
            }
            if repeats > WORD_LOOP_REPEATS {
                out.extend(unit);
                i += repeats * n;
                continue 'outer;
            }
        }
        out.push(chars[i]);
        i += 1;
    }
    if out.len() < text.len() {
        let kept = out.trim_end_matches('-').len();
        // A word that was nothing but hyphens keeps one.
        out.truncate(kept.max(1));
    }
    out
}

/// Packs speech regions into windows of at most 30 s; a region longer than that is cut at its
/// quietest 100 ms in the last third of the window.
fn pack_windows<S: SampleSource + ?Sized>(samples: &S, regions: &[Region]) -> std::io::Result<Vec<Window>> {
    // Leave room for Whisper's closing timestamp.
    let limit = WINDOW_SAMPLES - SAMPLE_RATE / 2;
    let mut pieces: Vec<(usize, usize)> = Vec::new();
    for region in regions {
        let mut start = region.start;
        while region.end - start > limit {
            let cut = quietest_point(samples, start + limit * 2 / 3, start + limit)?;
            pieces.push((start, cut - start));
            start = cut;
        }
        if region.end > start {
            pieces.push((start, region.end - start));
        }
    }
    let mut windows: Vec<Window> = Vec::new();
    let mut current = Window { pieces: Vec::new() };
    for piece in pieces {
        if current.len() + piece.1 > limit && !current.pieces.is_empty() {
            windows.push(std::mem::replace(&mut current, Window { pieces: Vec::new() }));
        }
        current.pieces.push(piece);
    }
    if !current.pieces.is_empty() {
        windows.push(current);
    }
    Ok(windows)
}

/// The middle of the quietest tenth of a second between `from` and `to`, where a long stretch
/// of speech is cut into windows.
fn quietest_point<S: SampleSource + ?Sized>(samples: &S, from: usize, to: usize) -> std::io::Result<usize> {
    let step = SAMPLE_RATE / 10;
    let heard = samples.window(from..to)?;
    let mut best = (f32::MAX, to);
    let mut at = 0;
    while at + step <= heard.len() {
        let energy: f32 = heard[at..at + step].iter().map(|x| x * x).sum();
        if energy < best.0 {
            best = (energy, from + at + step / 2);
        }
        at += step / 2;
    }
    Ok(best.1)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn word(text: &str, t: f32) -> Word {
        Word { text: text.into(), start_s: t, end_s: t + 0.1, probability: 1.0, speaker: 0 }
    }

    #[test]
    fn loops_are_cut_back_and_ordinary_repeats_kept() {
        let mut words = vec![word("I", 0.0), word("said", 0.1), word("no", 0.2), word("no", 0.3)];
        for i in 0..10 {
            words.push(word("thank", 1.0 + i as f32));
            words.push(word("you.", 1.1 + i as f32));
        }
        words.push(word("bye", 20.0));
        let kept: Vec<String> = collapse_loops(words).into_iter().map(|w| w.text).collect();
        assert_eq!(kept, ["I", "said", "no", "no", "thank", "you.", "bye"]);
    }

    #[test]
    fn the_hint_written_back_as_a_list_is_dropped_and_its_terms_said_in_the_call_kept() {
        let hint = "Voltaryn, Flexa 300, Nova S, Sunvault, EcoTrack 2, Keighley, Slaithwaite, MPAN, Economy 7.";
        let said = "I'll end the contract and Voltaryn will handle Sunvault, EcoTrack 2, Keighley, Slaithwaite, MPAN, Economy 7.";
        let words: Vec<Word> = said.split(' ').enumerate().map(|(i, w)| word(w, i as f32)).collect();
        let kept: Vec<String> = without_hint_echo(words, hint).into_iter().map(|w| w.text).collect();
        assert_eq!(kept.join(" "), "I'll end the contract and Voltaryn will handle");

        // Terms said one at a time, a term of two words, and two terms in another order stay.
        let said = "Flexa 300 is cheaper than Nova S. Sunvault and Flexa 300, Voltaryn.";
        let words: Vec<Word> = said.split(' ').enumerate().map(|(i, w)| word(w, i as f32)).collect();
        let kept: Vec<String> = without_hint_echo(words, hint).into_iter().map(|w| w.text).collect();
        assert_eq!(kept.join(" "), said);
    }

    #[test]
    fn loops_inside_a_word_are_cut_back_and_numbers_kept() {
        let looping = format!("20-6{}-", "-8".repeat(60));
        let kept: Vec<String> = collapse_loops(vec![word(&looping, 0.0), word("bye", 1.0)]).into_iter().map(|w| w.text).collect();
        assert_eq!(kept, ["20-6-8", "bye"]);
        for said in ["8-8-8-8-8-8-8-8", "07700-900-000", "555-0000-0000", "Hmmmmm", "aaaaaaaa"] {
            assert_eq!(collapse_loop_in_word(said), said, "{said} is not a loop");
        }
        assert_eq!(collapse_loop_in_word(&"ha".repeat(20)), "ha");
        assert_eq!(collapse_loop_in_word(&"-".repeat(20)), "-", "never an empty word");
    }

    #[test]
    fn windows_hold_at_most_thirty_seconds_and_map_back_to_the_source() {
        let samples = vec![0.01f32; SAMPLE_RATE * 100];
        let regions = [
            Region { start: SAMPLE_RATE, end: SAMPLE_RATE * 11 },
            Region { start: SAMPLE_RATE * 20, end: SAMPLE_RATE * 35 },
            Region { start: SAMPLE_RATE * 40, end: SAMPLE_RATE * 95 },
        ];
        let windows = pack_windows(&samples, &regions).unwrap();
        assert!(windows.iter().all(|w| w.len() <= WINDOW_SAMPLES));
        let covered: usize = windows.iter().map(Window::len).sum();
        assert_eq!(covered, SAMPLE_RATE * (10 + 15 + 55), "every speech sample is in exactly one window");
        // The first window joins the first two regions; 12 s into it is 2 s into the second.
        assert_eq!(windows[0].pieces.len(), 2);
        assert!((windows[0].to_source(12.0) - 22.0).abs() < 1e-3);
        // A word that runs past the end of the first piece (10 s) is cut there.
        let (s, e) = windows[0].span_to_source(9.5, 10.6);
        assert!((s - 10.5).abs() < 1e-3 && (e - 11.0).abs() < 1e-3, "{s} {e}");
        let tail = windows[0].tail(SAMPLE_RATE * 12);
        assert!((tail.to_source(0.0) - 22.0).abs() < 1e-3);
        assert_eq!(tail.len(), SAMPLE_RATE * 13);
    }

    #[test]
    fn stock_phrases_are_recognised_whatever_the_punctuation() {
        assert!(STOCK_PHRASES.contains(&normalise(" Thank you for watching!").as_str()));
        assert!(STOCK_PHRASES.contains(&normalise("Napisy stworzone przez społeczność Amara.org").as_str()));
        assert!(compression_ratio(&"to jest test ".repeat(30)) > 2.4);
        assert!(compression_ratio("The quick brown fox jumps over the lazy dog.") < 2.4);
    }
}
