//! Calls spoken from their scripts, for the examples that measure the pipeline end to end: each
//! turn said by espeak-ng in its party's voice, 8 kHz like a phone system's, the agent on the left
//! channel and the customer on the right (or both mixed into one), and word error counted against
//! the script.

use std::path::{Path, PathBuf};
use std::process::Command;

use anyhow::Context;
use callscope::Config;
use callscope_domain::Language;

/// Sample rate of the calls made, a phone system's.
pub const RATE: u32 = 8_000;
/// Silence between turns, in samples.
const GAP: usize = RATE as usize / 2;

/// espeak-ng's voice, pitch and speed for a party in a language.
fn voice(language: Language, agent: bool) -> (&'static str, &'static str, &'static str) {
    match (language, agent) {
        (Language::En, true) => ("en-gb", "45", "165"),
        (Language::En, false) => ("en-us", "70", "150"),
        (Language::Pl, true) => ("pl", "40", "160"),
        (Language::Pl, false) => ("pl", "75", "145"),
    }
}

fn run(command: &mut Command) -> anyhow::Result<()> {
    let output = command.output().with_context(|| format!("cannot run {command:?}: espeak-ng and sox are needed"))?;
    anyhow::ensure!(output.status.success(), "{command:?}: {}", String::from_utf8_lossy(&output.stderr));
    Ok(())
}

/// A call made from a script.
pub struct SpokenCall {
    /// The WAV file.
    pub path: PathBuf,
    /// Where the agent speaks, in milliseconds.
    pub agent_spans: Vec<(i64, i64)>,
}

/// Speaks `turns` (party, text; the party `agent` or anyone else) into `dir/call-{n}.wav`: stereo,
/// or one channel holding both parties when `mono`.
pub fn speak(dir: &Path, n: usize, language: Language, turns: &[(String, String)], mono: bool) -> anyhow::Result<SpokenCall> {
    let (mut left, mut right): (Vec<i16>, Vec<i16>) = (Vec::new(), Vec::new());
    let mut agent_spans = Vec::new();
    for (i, (speaker, text)) in turns.iter().enumerate() {
        let agent = speaker == "agent";
        let (name, pitch, speed) = voice(language, agent);
        let raw = dir.join(format!("{n}-{i}.wav"));
        let phone = dir.join(format!("{n}-{i}-8k.wav"));
        run(Command::new("espeak-ng").args(["-v", name, "-p", pitch, "-s", speed, "-w"]).arg(&raw).arg(text))?;
        // -R: sox's dither noise from a fixed seed, so that a call sounds the same in every run
        // (its default seed differs each time, and so would the transcripts).
        run(Command::new("sox").arg("-R").arg(&raw).args(["-r", "8000", "-c", "1", "-b", "16"]).arg(&phone))?;
        let samples: Vec<i16> = hound::WavReader::open(&phone)?.samples::<i16>().collect::<Result<_, _>>()?;
        if agent {
            let ms = |samples: usize| (samples as i64 * 1000) / i64::from(RATE);
            agent_spans.push((ms(left.len()), ms(left.len() + samples.len())));
        }
        let (own, other) = if agent { (&mut left, &mut right) } else { (&mut right, &mut left) };
        own.extend(&samples);
        other.extend(std::iter::repeat_n(0, samples.len()));
        left.extend(std::iter::repeat_n(0, GAP));
        right.extend(std::iter::repeat_n(0, GAP));
    }
    let path = dir.join(format!("call-{n}.wav"));
    let channels = if mono { 1 } else { 2 };
    let spec = hound::WavSpec { channels, sample_rate: RATE, bits_per_sample: 16, sample_format: hound::SampleFormat::Int };
    let mut writer = hound::WavWriter::create(&path, spec)?;
    for (l, r) in left.iter().zip(&right) {
        if mono {
            writer.write_sample(l.saturating_add(*r))?;
        } else {
            writer.write_sample(*l)?;
            writer.write_sample(*r)?;
        }
    }
    writer.finalize()?;
    Ok(SpokenCall { path, agent_spans })
}

/// The words of a text as word error rate counts them: lower case, punctuation gone, and every
/// number as its digits, one word each ("oh seven seven" and "077" are the same three words), so
/// that writing numbers in digits is neither an error nor a gain by itself.
pub fn wer_words(text: &str) -> Vec<String> {
    let words = text.split(|c: char| !c.is_alphanumeric()).filter(|w| !w.is_empty()).map(str::to_lowercase);
    let mut out: Vec<String> = Vec::new();
    let mut number: Vec<String> = Vec::new();
    let flush = |number: &mut Vec<String>, out: &mut Vec<String>| {
        let digits = callscope_pii::spoken_digits(&number.join(" "));
        if digits.is_empty() {
            out.append(number);
        } else {
            out.extend(digits.chars().map(String::from));
            number.clear();
        }
    };
    for word in words {
        if !callscope_pii::spoken_digits(&word).is_empty() || matches!(word.as_str(), "oh" | "double" | "triple") {
            number.push(word);
        } else {
            flush(&mut number, &mut out);
            out.push(word);
        }
    }
    flush(&mut number, &mut out);
    out
}

/// Substitutions, deletions and insertions that turn `script` into `heard`, in words.
pub fn word_errors(script: &[String], heard: &[String]) -> usize {
    let mut row: Vec<usize> = (0..=heard.len()).collect();
    for (i, wanted) in script.iter().enumerate() {
        let mut diagonal = row[0];
        row[0] = i + 1;
        for (j, got) in heard.iter().enumerate() {
            let substitution = diagonal + usize::from(wanted != got);
            diagonal = row[j + 1];
            row[j + 1] = substitution.min(row[j] + 1).min(row[j + 1] + 1);
        }
    }
    row[heard.len()]
}

/// An example's command line: `--name value` options and `--name` flags.
pub struct CommandLine(Vec<String>);

impl CommandLine {
    pub fn read() -> Self {
        Self(std::env::args().skip(1).collect())
    }

    /// The value after `name`.
    pub fn option(&self, name: &str) -> Option<String> {
        self.0.iter().position(|a| a == name).and_then(|i| self.0.get(i + 1)).cloned()
    }

    /// Whether `name` is given.
    pub fn flag(&self, name: &str) -> bool {
        self.0.iter().any(|a| a == name)
    }

    /// The configuration of `--config FILE` (or the defaults), with the environment over it, for
    /// a pipeline run in this process: the example has no `decode-audio` for a child to run, and
    /// the recordings are our own.
    pub fn config(&self) -> anyhow::Result<Config> {
        let mut config = Config::load(self.option("--config").as_deref().map(Path::new))?;
        config.decode_in_child = false;
        Ok(config)
    }
}
