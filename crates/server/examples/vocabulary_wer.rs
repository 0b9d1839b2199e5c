//! What a project's vocabulary does to its transcripts: each scripted call of the vocabulary
//! corpus (`examples/corpus/vocabulary.json`, written by someone who had not seen the code:
//! twelve projects of different industries, their terms, five calls each) is spoken by espeak-ng
//! (8 kHz stereo, a voice per party) and heard by the real pipeline three ways:
//! - `none`: without the vocabulary;
//! - `respelled`: with it, the transcript respelled after speech (`vocabulary_hints = false`);
//! - `hinted`: with it, the terms also told to the speech model before every window.
//!
//! For each way, per language and split: how many of the terms said came out written as the
//! project writes them (recall, with a 95 % Wilson interval over the occurrences), how many
//! were written where none was said (over-correction), and the word error rate of the whole
//! call against the script (numbers as digits on both sides).
//!
//! ```text
//! cargo run --release -p callscope --example vocabulary_wer -- [--config FILE] [--language en|pl]
//!     [--split tune|heldout] [--ways none,respelled,hinted] [--calls N] [--mistakes]
//! ```
//! `--mistakes` prints each term missed or added in the calls that are not held out. Needs
//! `espeak-ng` and `sox` (`scripts/up` and `scripts/test` install both) and the models of the
//! configuration.

use std::collections::BTreeMap;
use std::sync::Arc;
use std::time::Instant;

use callscope_analysis::quality::wilson;
use callscope_domain::{JobStage, Language, Vocabulary, VocabularyTerm};
use callscope_pipeline::{CallContext, Pipeline, Progress};
use serde::Deserialize;
use spoken::{wer_words, word_errors, CommandLine};

// The agent's spans are for scoring roles, which this example does not.
#[allow(dead_code)]
#[path = "support/spoken.rs"]
mod spoken;

/// Nobody watches the progress.
struct Quiet;

impl Progress for Quiet {
    fn report(&self, _: JobStage, _: f64) {}
}

#[derive(Deserialize)]
struct Corpus {
    projects: Vec<Project>,
}

#[derive(Deserialize)]
struct Project {
    id: String,
    language: Language,
    split: String,
    vocabulary: Vec<VocabularyTerm>,
    calls: Vec<Call>,
}

#[derive(Deserialize)]
struct Call {
    id: String,
    turns: Vec<Turn>,
}

#[derive(Deserialize)]
struct Turn {
    speaker: String,
    text: String,
}

/// The three ways a call is heard.
const WAYS: [&str; 3] = ["none", "respelled", "hinted"];

/// Totals of one part (language, split) heard one way.
#[derive(Debug, Default, Clone, Copy)]
struct Tally {
    /// Terms said.
    said: usize,
    /// Of them, written as the project writes them.
    written: usize,
    /// Terms written where none was said.
    added: usize,
    /// Word errors against the script, and the script's words.
    word_errors: usize,
    words: usize,
    /// Seconds of audio, and seconds spent hearing it.
    audio_s: f64,
    hearing_s: f64,
}

/// How often `term` stands in `text` as a word of its own, spelled and cased as the term.
fn occurrences(text: &str, term: &str) -> usize {
    let term = term.trim();
    if term.is_empty() {
        return 0;
    }
    let is_word_char = |c: Option<char>| c.is_some_and(char::is_alphanumeric);
    text.match_indices(term)
        .filter(|(at, _)| {
            let before = text[..*at].chars().next_back();
            let after = text[at + term.len()..].chars().next();
            !is_word_char(before) && !is_word_char(after)
        })
        .count()
}

#[tokio::main]
async fn main() -> anyhow::Result<()> {
    let command_line = CommandLine::read();
    let option = |name: &str| command_line.option(name);
    let mut config = command_line.config()?;
    let corpus: Corpus = serde_json::from_str(include_str!("corpus/vocabulary.json"))?;
    let (language, split) = (option("--language"), option("--split"));
    let limit: usize = option("--calls").map(|n| n.parse()).transpose()?.unwrap_or(usize::MAX);
    let ways: Vec<String> =
        option("--ways").map_or_else(|| WAYS.iter().map(|w| (*w).to_string()).collect(), |w| w.split(',').map(str::to_owned).collect());
    anyhow::ensure!(ways.iter().all(|w| WAYS.contains(&w.as_str())), "--ways takes none, respelled and hinted, separated by commas");
    let mistakes = command_line.flag("--mistakes");

    config.vocabulary_hints = false;
    let plain = callscope::startup::build_pipeline(&config).await?;
    config.vocabulary_hints = true;
    let hinted = callscope::startup::build_pipeline(&config).await?;
    let dir = tempfile::tempdir()?;
    let vocabulary_of = |project: &Project| Vocabulary { terms: project.vocabulary.clone() };
    let mut made = 0;
    let mut tallies: BTreeMap<(String, String, String), Tally> = BTreeMap::new();
    for project in &corpus.projects {
        let lang = project.language.as_str();
        if language.as_ref().is_some_and(|l| l != lang) || split.as_ref().is_some_and(|s| *s != project.split) {
            continue;
        }
        let held_out = project.split != "tune";
        for call in project.calls.iter().take(limit) {
            let turns: Vec<(String, String)> = call.turns.iter().map(|t| (t.speaker.clone(), t.text.clone())).collect();
            let spoken = spoken::speak(dir.path(), made, project.language, &turns, false)?;
            made += 1;
            let script: String = call.turns.iter().map(|t| t.text.as_str()).collect::<Vec<_>>().join("\n");
            let job = callscope::analyze::local_job(&spoken.path, project.language, Some(vec!["agent".into(), "customer".into()]), None);
            for way in &ways {
                let (pipeline, vocabulary): (&Pipeline, Vocabulary) = match way.as_str() {
                    "none" => (&plain, Vocabulary::default()),
                    "respelled" => (&plain, vocabulary_of(project)),
                    _ => (&hinted, vocabulary_of(project)),
                };
                let context = CallContext { vocabulary, ..CallContext::default() };
                let started = Instant::now();
                let heard = pipeline.hear(&job, &spoken.path, &context, Arc::new(Quiet)).await.map_err(|e| anyhow::anyhow!("{}: {e}", call.id))?;
                let hearing_s = started.elapsed().as_secs_f64();
                let text = heard.turns.iter().map(|t| t.text.as_str()).collect::<Vec<_>>().join("\n");
                let tally = tallies.entry((lang.to_string(), project.split.clone(), way.clone())).or_default();
                for term in &project.vocabulary {
                    let (said, written) = (occurrences(&script, &term.term), occurrences(&text, &term.term));
                    tally.said += said;
                    tally.written += said.min(written);
                    tally.added += written.saturating_sub(said);
                    if mistakes && !held_out && said != written {
                        println!("{} {way}: {:?} said {said}, written {written}", call.id, term.term);
                    }
                }
                let (wanted, got) = (wer_words(&script), wer_words(&text));
                tally.word_errors += word_errors(&wanted, &got);
                tally.words += wanted.len();
                tally.audio_s += heard.audio.info.duration_s;
                tally.hearing_s += hearing_s;
                if mistakes && !held_out && way == "hinted" {
                    println!("{} hinted transcript:\n{text}\n", call.id);
                }
            }
        }
        eprintln!("{}: {} calls heard", project.id, project.calls.len().min(limit));
    }

    println!("speech model {}; terms written as the project writes them, of those said:", config.speech_model);
    println!("{:<4} {:<8} {:<10} {:>6} {:>22} {:>7} {:>7} {:>8}", "lang", "split", "way", "terms", "written [95 % CI]", "added", "WER", "RTF");
    for ((lang, split, way), t) in &tallies {
        let (low, high) = wilson(t.written, t.said);
        println!(
            "{lang:<4} {split:<8} {way:<10} {:>6} {:>8.2} [{low:.2}, {high:.2}] {:>7} {:>7.3} {:>8.3}",
            t.said,
            t.written as f64 / t.said.max(1) as f64,
            t.added,
            t.word_errors as f64 / t.words.max(1) as f64,
            t.hearing_s / t.audio_s.max(f64::EPSILON)
        );
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::occurrences;

    #[test]
    fn a_term_counts_only_as_a_word_of_its_own_and_as_written() {
        assert_eq!(occurrences("Brightwater, and Brightwater's plan", "Brightwater"), 2);
        assert_eq!(occurrences("brightwater or Brightwaters", "Brightwater"), 0);
        assert_eq!(occurrences("pakiet Flexa 300 i Flexa 3000", "Flexa 300"), 1);
        assert_eq!(occurrences("w Łodzi", "Łódź"), 0);
    }
}
