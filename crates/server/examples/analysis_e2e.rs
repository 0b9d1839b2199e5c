//! Analysis quality end to end, as users see it: each scripted call of the quality corpus is
//! spoken by espeak-ng (the agent on the left channel, the customer on the right, a voice each,
//! 8 kHz like a phone system's stereo), run through the real pipeline (decoding, the configured
//! Whisper model, PII, the configured analysis engine) and scored like the scripts' text, a row
//! per language and split. Held-out mistakes are counted, never shown.
//!
//! ```text
//! cargo run --release -p callscope --example analysis_e2e -- [--config FILE] [--corpus own|new]
//!     [--language en|pl] [--split own|tune|heldout] [--calls N] [--mistakes]
//! ```
//! `--calls N` takes the first N calls of each part. Needs `espeak-ng` and `sox` (`scripts/up`
//! and `scripts/test` install both) and the models of the configuration.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;

use anyhow::Context;
use async_trait::async_trait;
use callscope::Config;
use callscope_analysis::engine::{AnalysisError, AnalysisInput, Analyzer, CallAnalysis, Lang};
use callscope_analysis::quality::{
    evaluate_parts_where, in_order, table_header, table_row, HELDOUT, OWN, TUNE,
};
use callscope_domain::{JobStage, Language};
use callscope_pipeline::{CallContext, Pipeline, Progress};

/// Sample rate of the calls made, a phone system's.
const RATE: u32 = 8_000;
/// Silence between turns, in samples.
const GAP: usize = RATE as usize / 2;

/// Nobody watches the progress.
struct Quiet;

impl Progress for Quiet {
    fn report(&self, _: JobStage, _: f64) {}
}

/// The pipeline over calls spoken from their scripts.
struct Spoken {
    pipeline: Pipeline,
    dir: tempfile::TempDir,
    made: AtomicUsize,
}

/// espeak-ng's voice, pitch and speed for a party in a language.
fn voice(language: Lang, speaker: &str) -> (&'static str, &'static str, &'static str) {
    match (language, speaker == "agent") {
        (Lang::En, true) => ("en-gb", "45", "165"),
        (Lang::En, false) => ("en-us", "70", "150"),
        (Lang::Pl, true) => ("pl", "40", "160"),
        (Lang::Pl, false) => ("pl", "75", "145"),
    }
}

fn run(command: &mut Command) -> anyhow::Result<()> {
    let output = command
        .output()
        .with_context(|| format!("cannot run {command:?}: espeak-ng and sox are needed"))?;
    anyhow::ensure!(
        output.status.success(),
        "{command:?}: {}",
        String::from_utf8_lossy(&output.stderr)
    );
    Ok(())
}

impl Spoken {
    /// The call as a stereo WAV: each turn spoken on its party's channel, one after another.
    fn speak(&self, input: &AnalysisInput) -> anyhow::Result<PathBuf> {
        let n = self.made.fetch_add(1, Ordering::Relaxed);
        let (mut left, mut right): (Vec<i16>, Vec<i16>) = (Vec::new(), Vec::new());
        for (i, (speaker, text)) in input.turns.iter().enumerate() {
            let (name, pitch, speed) = voice(input.language, speaker);
            let raw = self.dir.path().join(format!("{n}-{i}.wav"));
            let phone = self.dir.path().join(format!("{n}-{i}-8k.wav"));
            run(Command::new("espeak-ng")
                .args(["-v", name, "-p", pitch, "-s", speed, "-w"])
                .arg(&raw)
                .arg(text))?;
            run(Command::new("sox")
                .arg(&raw)
                .args(["-r", "8000", "-c", "1", "-b", "16"])
                .arg(&phone))?;
            let samples: Vec<i16> = hound::WavReader::open(&phone)?
                .samples::<i16>()
                .collect::<Result<_, _>>()?;
            let (own, other) = if speaker == "agent" {
                (&mut left, &mut right)
            } else {
                (&mut right, &mut left)
            };
            own.extend(&samples);
            other.extend(std::iter::repeat_n(0, samples.len()));
            left.extend(std::iter::repeat_n(0, GAP));
            right.extend(std::iter::repeat_n(0, GAP));
        }
        let path = self.dir.path().join(format!("call-{n}.wav"));
        let spec = hound::WavSpec {
            channels: 2,
            sample_rate: RATE,
            bits_per_sample: 16,
            sample_format: hound::SampleFormat::Int,
        };
        let mut writer = hound::WavWriter::create(&path, spec)?;
        for (l, r) in left.iter().zip(&right) {
            writer.write_sample(*l)?;
            writer.write_sample(*r)?;
        }
        writer.finalize()?;
        Ok(path)
    }

    async fn process(&self, input: &AnalysisInput) -> anyhow::Result<CallAnalysis> {
        let path = self.speak(input)?;
        let language = if input.language == Lang::Pl {
            Language::Pl
        } else {
            Language::En
        };
        let roles = Some(vec!["agent".into(), "customer".into()]);
        let job = callscope::analyze::local_job(&path, language, roles, Some(input.call_date));
        let context = CallContext {
            categories: input.categories.clone(),
            call_date: input.call_date,
            ..CallContext::default()
        };
        let result = self
            .pipeline
            .run(&job, &path, &context, Arc::new(Quiet))
            .await
            .map_err(|e| anyhow::anyhow!("{e}"))?;
        Ok(result.analysis)
    }
}

#[async_trait]
impl Analyzer for Spoken {
    fn model_used(&self) -> String {
        self.pipeline.model_used()
    }

    async fn analyze(&self, input: &AnalysisInput) -> Result<CallAnalysis, AnalysisError> {
        self.process(input)
            .await
            .map_err(|e| AnalysisError::Unavailable(format!("{e:#}")))
    }
}

#[tokio::main]
async fn main() -> anyhow::Result<()> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let option = |name: &str| {
        args.iter()
            .position(|a| a == name)
            .and_then(|i| args.get(i + 1))
            .cloned()
    };
    let config = Config::load(option("--config").as_deref().map(Path::new))?;
    let corpus = match option("--corpus").as_deref() {
        Some("own") => include_str!("../../analysis/corpus/calls.json"),
        None | Some("new") => include_str!("../../analysis/corpus/heldout.json"),
        Some(other) => anyhow::bail!("--corpus own|new, not {other}"),
    };
    let (language, split) = (option("--language"), option("--split"));
    if let Some(split) = &split {
        anyhow::ensure!(
            [OWN, TUNE, HELDOUT].contains(&split.as_str()),
            "--split own|tune|heldout"
        );
    }
    let limit: usize = option("--calls")
        .map(|n| n.parse())
        .transpose()?
        .unwrap_or(usize::MAX);
    let spoken = Spoken {
        pipeline: callscope::startup::build_pipeline(&config).await?,
        dir: tempfile::tempdir()?,
        made: AtomicUsize::new(0),
    };
    let name = format!("{} + {}", config.speech_model, spoken.model_used());
    println!("{}", table_header("speech + engine"));
    let keep = |part: &callscope_analysis::quality::Part, place: usize| {
        language.as_ref().is_none_or(|l| *l == part.language)
            && split.as_ref().is_none_or(|s| *s == part.split)
            && place < limit
    };
    let parts = evaluate_parts_where(&spoken, corpus, keep)
        .await
        .map_err(|e| anyhow::anyhow!(e))?;
    let mistakes = args.iter().any(|a| a == "--mistakes");
    for (part, report) in in_order(parts) {
        println!("{}", table_row(&name, &part, &report, mistakes));
    }
    Ok(())
}
