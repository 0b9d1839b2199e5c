//! `callscope analyze FILE`: one call through the pipeline in this process, no server, no
//! database; the result on stdout, progress on stderr.

use std::io::{IsTerminal, Write};
use std::path::Path;
use std::sync::{Arc, Mutex};
use std::time::Instant;

use anyhow::Context;
use callscope_domain::{parse_channel_roles, Job, JobId, JobStage, JobStatus, Language, PiiRedaction, ProjectId, Vocabulary};
use callscope_pipeline::{CallContext, Progress, SpeakerSource};
use serde_json::json;

use crate::Config;

/// A progress bar on stderr (a line per stage when stderr is not a terminal).
struct Bar {
    tty: bool,
    state: Mutex<(Option<JobStage>, i64)>,
}

impl Progress for Bar {
    fn report(&self, stage: JobStage, fraction: f64) {
        let mut state = self.state.lock().expect("progress lock");
        let percent = (fraction.clamp(0.0, 1.0) * 100.0).round() as i64;
        if state.0 == Some(stage) && state.1 == percent {
            return;
        }
        let new_stage = state.0 != Some(stage);
        *state = (Some(stage), percent);
        let name = format!("{stage:?}").to_lowercase();
        let mut err = std::io::stderr().lock();
        if self.tty {
            let filled = (percent / 5) as usize;
            let _ = write!(err, "\r\x1b[2K{name:<13} [{}{}] {percent:>3}%", "#".repeat(filled), "-".repeat(20 - filled));
            let _ = err.flush();
        } else if new_stage || percent == 100 {
            let _ = writeln!(err, "{name}: {percent}%");
        }
    }
}

fn clock(ms: i64) -> String {
    format!("{:02}:{:02}.{}", ms / 60_000, (ms / 1000) % 60, (ms % 1000) / 100)
}

/// How `analyze` runs and prints.
#[derive(Debug, Clone, Default)]
pub struct Options {
    /// Speaker roles in channel order (`agent,customer`).
    pub channel_roles: Option<String>,
    /// JSON instead of a readable transcript.
    pub json: bool,
    /// Mask personal data.
    pub redact: bool,
    /// A JSON file holding a project's vocabulary, as `PUT /v1/projects/{id}/vocabulary` takes it.
    pub vocabulary: Option<std::path::PathBuf>,
}

/// The vocabulary in `path`, checked as the API checks it.
fn read_vocabulary(path: &Path) -> anyhow::Result<Vocabulary> {
    let text = std::fs::read_to_string(path).with_context(|| format!("cannot read the vocabulary {}", path.display()))?;
    let vocabulary: Vocabulary =
        serde_json::from_str(&text).with_context(|| format!("{}: not a vocabulary ({{\"terms\": [{{\"term\": …}}]}})", path.display()))?;
    vocabulary.validate().map_err(|errors| {
        let broken: Vec<String> = errors.0.iter().map(|e| format!("{} {}", e.field, e.message)).collect();
        anyhow::anyhow!("{}: {}", path.display(), broken.join("; "))
    })
}

/// A job for a file processed here, outside any project and queue (by `analyze` and the
/// quality benchmarks).
pub fn local_job(file: &Path, language: Language, channel_roles: Option<Vec<String>>, recorded_at: Option<chrono::DateTime<chrono::Utc>>) -> Job {
    let now = chrono::Utc::now();
    let filename = file.file_name().map_or_else(|| file.display().to_string(), |n| n.to_string_lossy().into_owned());
    Job {
        id: JobId::new(),
        project_id: ProjectId::new(),
        kind: callscope_domain::JobKind::Transcribe,
        template_id: None,
        status: JobStatus::Processing,
        stage: JobStage::Queued,
        progress: 0.0,
        attempts: 1,
        error_message: None,
        original_filename: filename,
        content_type: String::new(),
        size_bytes: std::fs::metadata(file).map_or(0, |m| i64::try_from(m.len()).unwrap_or(i64::MAX)),
        sha256: String::new(),
        storage_path: file.display().to_string(),
        language,
        channel_roles,
        recorded_at,
        transcript_id: None,
        submitted_at: now,
        started_at: Some(now),
        completed_at: None,
        updated_at: now,
    }
}

/// Runs the pipeline on `file` and prints the call.
///
/// # Errors
/// Unreadable or unsupported audio, bad roles, a missing model.
pub async fn run(config: &Config, file: &Path, language: &str, options: &Options) -> anyhow::Result<()> {
    let (channel_roles, as_json) = (options.channel_roles.as_deref(), options.json);
    let language: Language = language.parse().map_err(|_| anyhow::anyhow!("language must be en or pl"))?;
    let roles = channel_roles
        .map(parse_channel_roles)
        .transpose()
        .map_err(|e| anyhow::anyhow!("--channel-roles: {}", e.0.first().map_or("invalid", |f| f.message.as_str())))?;
    let vocabulary = options.vocabulary.as_deref().map(read_vocabulary).transpose()?.unwrap_or_default();
    let bytes = std::fs::metadata(file).with_context(|| format!("cannot read {}", file.display()))?.len();
    let filename = file.file_name().map_or_else(|| file.display().to_string(), |n| n.to_string_lossy().into_owned());
    let pipeline = crate::startup::build_pipeline(config).await?;
    let job = Job { size_bytes: i64::try_from(bytes).unwrap_or(i64::MAX), ..local_job(file, language, roles, None) };
    let bar = Arc::new(Bar { tty: std::io::stderr().is_terminal(), state: Mutex::new((None, -1)) });
    let started = Instant::now();
    let redaction = if options.redact { PiiRedaction::Mask } else { PiiRedaction::None };
    let context = CallContext { pii_redaction: redaction, call_date: chrono::Utc::now(), vocabulary, ..CallContext::default() };
    let result = pipeline.run(&job, file, &context, bar.clone()).await;
    if bar.tty {
        eprintln!();
    }
    let result = result.map_err(|e| anyhow::anyhow!("{e}"))?;
    let elapsed = started.elapsed().as_secs_f64();
    let info = &result.audio.info;
    if as_json {
        let call = json!({
            "filename": filename,
            "language": language,
            "durationS": info.duration_s,
            "sizeBytes": bytes,
            "audio": {
                "codec": info.codec,
                "sampleRate": info.source_rate,
                "channels": info.channels,
                "contentType": info.container.media_type(),
            },
            "speakerSource": match result.speaker_source { SpeakerSource::Channels => "channels", SpeakerSource::Diarized => "diarization" },
            "fullText": result.full_text,
            "speakers": result.speakers,
            "turns": result.turns,
            "piiStatistics": result.pii_statistics,
            "piiSpans": result.pii_spans,
            "title": result.analysis.title,
            "summary": result.analysis.summary_record(),
            "actionItems": result.analysis.actions.iter().map(|a| json!({
                "description": a.description,
                "responsibleParty": a.responsible_party,
                "deadlineMentioned": a.deadline_mentioned,
                "dueAt": a.due_at,
                "priority": a.priority.as_str(),
                "evidence": a.evidence,
            })).collect::<Vec<_>>(),
            "speechModel": result.speech_model,
            "transcriptQuality": result.quality(),
            "characteristics": result.characteristics,
            "processingS": (elapsed * 1000.0).round() / 1000.0,
        });
        println!("{}", serde_json::to_string_pretty(&call)?);
    } else {
        let names: std::collections::HashMap<&str, &str> = result.speakers.iter().map(|s| (s.speaker_id.as_str(), s.name.as_str())).collect();
        let mut out = std::io::stdout().lock();
        for turn in &result.turns {
            writeln!(out, "[{}] {}: {}", clock(turn.start_ms), names.get(turn.speaker_id.as_str()).unwrap_or(&"?"), turn.text)?;
        }
        writeln!(out)?;
        for s in &result.speakers {
            writeln!(
                out,
                "{}: {:.0} % of the talk, {} turns, {} words, {:.1} s",
                s.name,
                s.talk_ratio * 100.0,
                s.turn_count,
                s.word_count,
                s.total_duration_s
            )?;
        }
        if let Some(c) = &result.characteristics {
            let sounds = |ms: Option<i64>| ms.map_or("?".to_owned(), |ms| format!("{:.1}", ms as f64 / 1000.0));
            writeln!(
                out,
                "non-talk: {:.1} s ({:.0} %), longest {:.1} s, on hold {} s, silence {} s; {} interruptions; {} words a minute",
                c.non_talk_ms as f64 / 1000.0,
                c.non_talk_share * 100.0,
                c.longest_non_talk_ms as f64 / 1000.0,
                sounds(c.music_ms),
                sounds(c.silence_ms),
                c.interruption_count,
                c.words_per_minute.map_or("?".to_owned(), |w| format!("{w:.0}")),
            )?;
        }
        if let Some(q) = result.quality() {
            let verdict = if q.reliable { "reliable" } else { "UNRELIABLE" };
            let better = q.better_model.map(|m| format!("; try {m}")).unwrap_or_default();
            writeln!(
                out,
                "transcript: {verdict} (mean word confidence {:.2}, unsure words {:.0} %{better})",
                q.mean_word_confidence,
                q.unsure_word_share * 100.0
            )?;
        }
        let analysis = &result.analysis;
        let block = analysis.summary_record();
        writeln!(out, "title: {}", analysis.title.as_deref().unwrap_or(&filename))?;
        writeln!(out, "summary: {}", block.summary.executive_summary)?;
        writeln!(out, "sentiment: {} ({}), {}", block.sentiment.overall_sentiment, block.sentiment_level, block.sentiment.sentiment_progression)?;
        for a in &analysis.actions {
            let due = a.deadline_mentioned.as_deref().map(|d| format!(", due {d}")).unwrap_or_default();
            writeln!(out, "action ({}, {}{due}): {}", a.responsible_party, a.priority.as_str(), a.description)?;
        }
        let pii = &result.pii_statistics;
        if pii.total_detected > 0 {
            let types: Vec<String> = pii.types.iter().map(|(k, n)| format!("{k} {n}")).collect();
            writeln!(out, "personal data: {} ({})", pii.total_detected, types.join(", "))?;
        }
        writeln!(
            out,
            "\n{:.1} s of audio processed in {:.1} s ({:.2}x real time) with {}",
            info.duration_s,
            elapsed,
            elapsed / info.duration_s.max(1e-9),
            result.speech_model
        )?;
    }
    Ok(())
}
