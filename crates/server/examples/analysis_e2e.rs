//! Analysis quality end to end, as users see it: each scripted call of the quality corpus is
//! spoken by espeak-ng (the agent on the left channel, the customer on the right, a voice each,
//! 8 kHz like a phone system's stereo), run through the real pipeline (decoding, the configured
//! Whisper model, PII, the configured analysis engine) and scored like the scripts' text, a row
//! per language and split. Held-out mistakes are counted, never shown.
//!
//! Personal data is scored on the same runs: each value the script marks (a name, a phone number,
//! an e-mail) counts as found when the transcript has a span of that type holding it as ASR wrote
//! it: for a value with four or more digits, a span whose digits (spoken or written) share an
//! unbroken stretch of at least 60 % of the value's digits; for any other value, a span holding at
//! least half of its words. Each span found counts once, for precision.
//!
//! With `--mono` the two parties are mixed into one channel and no roles are given: the
//! diarizer must keep the voices apart and the words tell the agent, which is then scored (a call
//! is right when most of its words are given the party that said them). With `--one-voice` as
//! well, only the agent's turns are spoken, and the table's "two speakers" counts the
//! recordings of one voice that were split in two.
//!
//! ```text
//! cargo run --release -p callscope --example analysis_e2e -- [--config FILE] [--corpus own|new|second|tune2|tune3|tune4]
//!     [--language en|pl] [--split own|tune|heldout] [--calls N] [--mono [--one-voice] [--heard-turns FILE]]
//!     [--mistakes] [--transcripts]
//! ```
//! `--calls N` takes the first N calls of each part; `--transcripts` prints what the speech model
//! wrote for each call that is not held out; `--heard-turns FILE` writes the turns of each mono
//! call that is not held out, as heard, with the speaker who really is the agent, for
//! `roles_quality --heard FILE`. Needs `espeak-ng` and `sox` (`scripts/up`
//! and `scripts/test` install both) and the models of the configuration.

use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};

use async_trait::async_trait;
use callscope_analysis::engine::{AnalysisError, AnalysisInput, Analyzer, CallAnalysis, Lang};
use callscope_analysis::quality::{evaluate_parts_where, held_out, in_order, report_lines, table_header, table_row, wilson, HELDOUT, OWN, SPLITS};
use callscope_domain::{JobStage, Language};
use callscope_pipeline::{CallContext, Pipeline, Progress};
use spoken::{wer_words, word_errors, CommandLine};

#[path = "support/spoken.rs"]
mod spoken;

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
    /// The personal data each call's transcript holds, as (type, text as recognised), by the
    /// call's first line of script.
    pii_found: Mutex<HashMap<String, Values>>,
    /// Each call's transcript as recognised, by the same key (shown for calls not held out).
    transcripts: Mutex<HashMap<String, String>>,
    /// Each call's word errors and words of script, by the same key.
    word_errors: Mutex<HashMap<String, (usize, usize)>>,
    /// Mix both parties into one channel, give no roles, and score who is told to be the agent.
    mono: bool,
    /// Speak only the agent's turns (with `mono`): a recording of one voice.
    one_voice: bool,
    /// Where each call's agent speaks, in milliseconds, by the same key.
    agent_spans: Mutex<HashMap<String, Vec<(i64, i64)>>>,
    /// Each mono call's speakers found and its words whose party came out right, by the same key.
    roles: Mutex<HashMap<String, RoleScore>>,
    /// Each mono call's turns as heard and the speaker who really is the agent, by the same key:
    /// what `roles_quality --heard` reads to tune the guess without running speech again.
    heard: Mutex<HashMap<String, serde_json::Value>>,
    /// Whether to keep them (`--heard-turns`).
    keep_heard: bool,
}

/// How a mono call's parties came out.
#[derive(Debug, Clone, Copy, Default)]
struct RoleScore {
    /// Speakers the pipeline found.
    speakers: usize,
    /// Words given the party that said them (by when they were said).
    words_right: usize,
    /// Words.
    words: usize,
}

impl Spoken {
    /// The call as a WAV: each turn spoken on its party's channel, one after another; with the
    /// call's number in the run (from 0).
    fn speak(&self, input: &AnalysisInput) -> anyhow::Result<(usize, PathBuf)> {
        let n = self.made.fetch_add(1, Ordering::Relaxed);
        let language = if input.language == Lang::Pl { Language::Pl } else { Language::En };
        let turns: Vec<(String, String)> = input.turns.iter().filter(|(speaker, _)| !self.one_voice || speaker == "agent").cloned().collect();
        let call = spoken::speak(self.dir.path(), n, language, &turns, self.mono)?;
        let key = input.turns.first().map(|(_, text)| text.clone()).unwrap_or_default();
        self.agent_spans.lock().expect("not poisoned").insert(key, call.agent_spans);
        Ok((n, call.path))
    }

    async fn process(&self, input: &AnalysisInput) -> anyhow::Result<CallAnalysis> {
        let started = std::time::Instant::now();
        let (n, path) = self.speak(input)?;
        let language = if input.language == Lang::Pl { Language::Pl } else { Language::En };
        let roles = (!self.mono).then(|| vec!["agent".into(), "customer".into()]);
        let job = callscope::analyze::local_job(&path, language, roles, Some(input.call_date));
        let context = CallContext { categories: input.categories.clone(), call_date: input.call_date, ..CallContext::default() };
        let result = self.pipeline.run(&job, &path, &context, Arc::new(Quiet)).await.map_err(|e| anyhow::anyhow!("{e}"))?;
        let spans = result
            .pii_spans
            .iter()
            .filter_map(|span| {
                let text = &result.turns.get(span.turn)?.text;
                let value: String = text.chars().skip(span.start).take(span.end.saturating_sub(span.start)).collect();
                Some((span.kind.clone(), value))
            })
            .collect();
        let key = input.turns.first().map(|(_, text)| text.clone()).unwrap_or_default();
        let transcript = result.turns.iter().map(|t| format!("{}: {}", t.speaker_id, t.text)).collect::<Vec<_>>().join("\n");
        let script = wer_words(&input.turns.iter().map(|(_, text)| text.as_str()).collect::<Vec<_>>().join(" "));
        let heard = wer_words(&result.turns.iter().map(|t| t.text.as_str()).collect::<Vec<_>>().join(" "));
        self.word_errors.lock().expect("not poisoned").insert(key.clone(), (word_errors(&script, &heard), script.len()));
        self.transcripts.lock().expect("not poisoned").insert(key.clone(), transcript);
        if self.mono {
            let agent_spans = self.agent_spans.lock().expect("not poisoned").get(&key).cloned().unwrap_or_default();
            let agent_says = |w: &callscope_domain::TimedWord| {
                let middle = (w.start_ms + w.end_ms) / 2;
                agent_spans.iter().any(|&(start, end)| middle >= start && middle < end)
            };
            let told_agent = |w: &callscope_domain::TimedWord| {
                let id = callscope_domain::speaker_id(w.speaker);
                result.speakers.iter().any(|s| s.speaker_id == id && s.role == Some(callscope_domain::SpeakerRole::Agent))
            };
            let words_right = result.words.iter().filter(|w| agent_says(w) == told_agent(w)).count();
            if self.keep_heard {
                // The speaker most of whose words the agent said.
                let mut agent_words: HashMap<String, i64> = HashMap::new();
                for w in &result.words {
                    *agent_words.entry(callscope_domain::speaker_id(w.speaker)).or_default() += if agent_says(w) { 1 } else { -1 };
                }
                let agent = agent_words.into_iter().max_by_key(|(id, n)| (*n, std::cmp::Reverse(id.clone()))).map(|(id, _)| id);
                // Each turn as [speaker, [its words], [each word's confidence]], a run of one
                // speaker's words as the transcript makes it.
                let turns: Vec<_> = result
                    .words
                    .chunk_by(|a, b| a.speaker == b.speaker)
                    .map(|run| {
                        let words: Vec<&str> = run.iter().map(|w| w.text.as_str()).collect();
                        let confidences: Vec<f32> = run.iter().map(|w| w.confidence.unwrap_or(1.0)).collect();
                        serde_json::json!([callscope_domain::speaker_id(run[0].speaker), words, confidences])
                    })
                    .collect();
                self.heard.lock().expect("not poisoned").insert(key.clone(), serde_json::json!({ "agent": agent, "turns": turns }));
            }
            let score = RoleScore { speakers: result.speakers.len(), words_right, words: result.words.len() };
            self.roles.lock().expect("not poisoned").insert(key.clone(), score);
        }
        self.pii_found.lock().expect("not poisoned").insert(key, spans);
        // A long run shows it is moving; the figures come only at the end.
        eprintln!("call {} analysed in {:.1} s", n + 1, started.elapsed().as_secs_f64());
        Ok(result.analysis)
    }
}

#[async_trait]
impl Analyzer for Spoken {
    fn model_used(&self) -> String {
        self.pipeline.model_used()
    }

    async fn analyze(&self, input: &AnalysisInput) -> Result<CallAnalysis, AnalysisError> {
        self.process(input).await.map_err(|e| AnalysisError::Unavailable(format!("{e:#}")))
    }
}

#[tokio::main]
async fn main() -> anyhow::Result<()> {
    let command_line = CommandLine::read();
    let option = |name: &str| command_line.option(name);
    let config = command_line.config()?;
    let corpus = match option("--corpus").as_deref() {
        Some("own") => include_str!("../../analysis/corpus/calls.json"),
        None | Some("new") => include_str!("../../analysis/corpus/heldout.json"),
        Some("second") => include_str!("../../analysis/corpus/heldout-2.json"),
        Some("tune2") => include_str!("../../analysis/corpus/tune-2.json"),
        Some("tune3") => include_str!("../../analysis/corpus/tune-3.json"),
        Some("tune4") => include_str!("../../analysis/corpus/tune-4.json"),
        Some(other) => anyhow::bail!("--corpus own|new|second|tune2|tune3|tune4, not {other}"),
    };
    let (language, split) = (option("--language"), option("--split"));
    if let Some(split) = &split {
        anyhow::ensure!(SPLITS.contains(&split.as_str()), "--split {}", SPLITS.join("|"));
    }
    let limit: usize = option("--calls").map(|n| n.parse()).transpose()?.unwrap_or(usize::MAX);
    anyhow::ensure!(option("--heard-turns").is_none() || command_line.flag("--mono"), "--heard-turns goes with --mono");
    let spoken = Spoken {
        pipeline: callscope::startup::build_pipeline(&config).await?,
        dir: tempfile::tempdir()?,
        made: AtomicUsize::new(0),
        pii_found: Mutex::new(HashMap::new()),
        transcripts: Mutex::new(HashMap::new()),
        word_errors: Mutex::new(HashMap::new()),
        mono: command_line.flag("--mono"),
        one_voice: command_line.flag("--mono") && command_line.flag("--one-voice"),
        agent_spans: Mutex::new(HashMap::new()),
        roles: Mutex::new(HashMap::new()),
        heard: Mutex::new(HashMap::new()),
        keep_heard: option("--heard-turns").is_some(),
    };
    let name = format!("{} + {}", config.speech_model, spoken.model_used());
    println!("{}", table_header("speech + engine"));
    let keep = |part: &callscope_analysis::quality::Part, place: usize| {
        language.as_ref().is_none_or(|l| *l == part.language) && split.as_ref().is_none_or(|s| *s == part.split) && place < limit
    };
    let parts = evaluate_parts_where(&spoken, corpus, keep).await.map_err(|e| anyhow::anyhow!(e))?;
    let mistakes = command_line.flag("--mistakes");
    let parts = in_order(parts);
    for (part, report) in &parts {
        println!("{}", table_row(&name, part, report));
    }
    println!();
    for (part, report) in &parts {
        println!("{}", report_lines(&name, part, report, mistakes));
    }
    let found = spoken.pii_found.into_inner().expect("not poisoned");
    let transcripts = spoken.transcripts.into_inner().expect("not poisoned");
    print_word_errors(corpus, &spoken.word_errors.into_inner().expect("not poisoned"))?;
    if spoken.mono {
        print_roles(corpus, &spoken.roles.into_inner().expect("not poisoned"), mistakes)?;
        if let Some(path) = option("--heard-turns") {
            write_heard_turns(corpus, &spoken.heard.into_inner().expect("not poisoned"), &path)?;
        }
    }
    print_pii_scores(corpus, &found, &transcripts, mistakes)?;
    if command_line.flag("--transcripts") {
        let corpus: serde_json::Value = serde_json::from_str(corpus)?;
        for call in corpus["calls"].as_array().into_iter().flatten().filter(|c| !held_out(c["split"].as_str().unwrap_or(HELDOUT))) {
            if let Some(text) = transcripts.get(call["turns"][0][1].as_str().unwrap_or_default()) {
                println!("\n== {} ==\n{text}", call["id"].as_str().unwrap_or("?"));
            }
        }
    }
    Ok(())
}

/// Word error rate per language and split, over the calls that ran.
fn print_word_errors(corpus: &str, errors: &HashMap<String, (usize, usize)>) -> anyhow::Result<()> {
    let corpus: serde_json::Value = serde_json::from_str(corpus)?;
    let mut parts: Vec<(PartKey, (usize, usize))> = Vec::new();
    for call in corpus["calls"].as_array().into_iter().flatten() {
        let Some(&(wrong, of)) = errors.get(call["turns"][0][1].as_str().unwrap_or_default()) else { continue };
        let part = (call["language"].as_str().unwrap_or("en").to_string(), call["split"].as_str().unwrap_or(OWN).to_string());
        match parts.iter_mut().find(|(p, _)| *p == part) {
            Some((_, totals)) => *totals = (totals.0 + wrong, totals.1 + of),
            None => parts.push((part, (wrong, of))),
        }
    }
    parts.sort();
    println!("\nspeech: word error rate against the scripts (numbers as digits on both sides):");
    println!("{:<4} {:<8} {:>7} {:>7} {:>6}", "lang", "split", "words", "errors", "WER");
    for ((language, split), (wrong, of)) in parts {
        println!("{language:<4} {split:<8} {of:>7} {wrong:>7} {:>6.3}", wrong as f64 / of.max(1) as f64);
    }
    Ok(())
}

/// On mono calls: how many kept both speakers apart, and how many had the agent told right (most
/// of the words given the party that said them), per language and split, with 95 % intervals.
/// With `mistakes`, the tuning calls told wrong are listed first, never a held-out one.
fn print_roles(corpus: &str, scores: &HashMap<String, RoleScore>, mistakes: bool) -> anyhow::Result<()> {
    let corpus: serde_json::Value = serde_json::from_str(corpus)?;
    let mut parts: std::collections::BTreeMap<PartKey, Vec<RoleScore>> = std::collections::BTreeMap::new();
    for call in corpus["calls"].as_array().into_iter().flatten() {
        let Some(score) = scores.get(call["turns"][0][1].as_str().unwrap_or_default()) else { continue };
        let split = call["split"].as_str().unwrap_or(OWN);
        if mistakes && !held_out(split) && score.words_right * 2 <= score.words {
            let id = call["id"].as_str().unwrap_or("?");
            println!("roles wrong: {id} ({split}): {} speakers, {} of {} words right", score.speakers, score.words_right, score.words);
        }
        let part = (call["language"].as_str().unwrap_or("en").to_string(), split.to_string());
        parts.entry(part).or_default().push(*score);
    }
    println!(
        "
roles on mono calls (no channel roles; the diarizer splits the voices, the words tell the agent):"
    );
    println!("{:<4} {:<8} {:>5} {:>16} {:>22} {:>11}", "lang", "split", "calls", "two speakers", "agent told right", "words right");
    for ((language, split), calls) in parts {
        let two = calls.iter().filter(|c| c.speakers == 2).count();
        let right = calls.iter().filter(|c| c.words > 0 && c.words_right * 2 > c.words).count();
        let (words_right, words) = calls.iter().fold((0, 0), |(r, w), c| (r + c.words_right, w + c.words));
        let n = calls.len();
        let (low, high) = wilson(right, n);
        println!(
            "{language:<4} {split:<8} {n:>5} {:>16} {:>10.2} [{low:.2}, {high:.2}] {:>11.3}",
            format!("{two}/{n}"),
            right as f64 / n.max(1) as f64,
            words_right as f64 / words.max(1) as f64
        );
    }
    Ok(())
}

/// Writes the mono calls' heard turns, each with its call's id, language and split and the
/// speaker who really is the agent, as JSON to `path`; never a held-out call's.
fn write_heard_turns(corpus: &str, heard: &HashMap<String, serde_json::Value>, path: &str) -> anyhow::Result<()> {
    let corpus: serde_json::Value = serde_json::from_str(corpus)?;
    let mut calls = Vec::new();
    for call in corpus["calls"].as_array().into_iter().flatten() {
        // A call that says no split is taken as held out: never written.
        let split = call["split"].as_str().unwrap_or(HELDOUT);
        let Some(entry) = heard.get(call["turns"][0][1].as_str().unwrap_or_default()) else { continue };
        if held_out(split) {
            continue;
        }
        let mut entry = entry.clone();
        entry["id"] = call["id"].clone();
        entry["language"] = call["language"].clone();
        entry["split"] = split.into();
        calls.push(entry);
    }
    std::fs::write(path, serde_json::to_string_pretty(&serde_json::json!({ "calls": calls }))?)?;
    Ok(())
}

/// Personal data said in a call, as (type, value).
type Values = Vec<(String, String)>;

/// A part of the corpus: (language, split).
type PartKey = (String, String);

/// Words of a value, lowercase, with "at"/"dot" and their Polish forms left out (how an e-mail
/// address is said, not what it is).
fn words(value: &str) -> Vec<String> {
    value
        .split(|c: char| !c.is_alphanumeric())
        .filter(|w| !w.is_empty())
        .map(str::to_lowercase)
        .filter(|w| !["at", "dot", "małpa", "malpa", "kropka"].contains(&w.as_str()))
        .collect()
}

/// The longest run of digits two strings share.
fn longest_common_run(a: &str, b: &str) -> usize {
    let (a, b) = (a.as_bytes(), b.as_bytes());
    let mut best = 0;
    let mut previous = vec![0usize; b.len() + 1];
    for &x in a {
        let mut row = vec![0usize; b.len() + 1];
        for (j, &y) in b.iter().enumerate() {
            if x == y {
                row[j + 1] = previous[j] + 1;
                best = best.max(row[j + 1]);
            }
        }
        previous = row;
    }
    best
}

/// Edit distance between two words, in characters.
fn edit_distance(a: &str, b: &str) -> usize {
    let b: Vec<char> = b.chars().collect();
    let mut row: Vec<usize> = (0..=b.len()).collect();
    for (i, x) in a.chars().enumerate() {
        let mut diagonal = row[0];
        row[0] = i + 1;
        for (j, y) in b.iter().enumerate() {
            let substitution = diagonal + usize::from(x != *y);
            diagonal = row[j + 1];
            row[j + 1] = substitution.min(row[j] + 1).min(row[j + 1] + 1);
        }
    }
    row[b.len()]
}

/// Whether ASR's spelling of a word is the word ("Carolina" for "Karolina", "Milne" for
/// "Mills"): at most a third of its letters differ.
fn same_word(wanted: &str, heard: &str) -> bool {
    let longest = wanted.chars().count().max(heard.chars().count());
    edit_distance(wanted, heard) * 3 <= longest
}

/// Whether a span as recognised holds the value the script marks.
fn holds(value: &str, span: &str) -> bool {
    let digits = callscope_pii::spoken_digits(value);
    if digits.len() >= 4 {
        return longest_common_run(&digits, &callscope_pii::spoken_digits(span)) * 10 >= digits.len() * 6;
    }
    let wanted = words(value);
    let have = words(span);
    let held = wanted.iter().filter(|w| have.iter().any(|h| same_word(w, h))).count();
    !wanted.is_empty() && held * 2 >= wanted.len()
}

/// Whether the transcript holds a value at all: in one of its lines, or (said across turns) in
/// the whole.
fn heard(value: &str, transcript: &str) -> bool {
    transcript.lines().any(|line| holds(value, line.split_once(": ").map_or(line, |(_, text)| text))) || holds(value, transcript)
}

/// Gold values found, spans found, spans right; and the misses as lines.
fn score_call(gold: &Values, found: &Values, transcript: &str) -> (usize, usize, usize, Vec<String>) {
    let mut used = vec![false; found.len()];
    let mut lines = Vec::new();
    for (kind, value) in gold {
        let hit = found.iter().enumerate().position(|(i, (k, span))| !used[i] && k == kind && holds(value, span));
        match hit {
            Some(i) => used[i] = true,
            None if heard(value, transcript) => lines.push(format!("MISSED {kind:<14} {value:?} (the transcript has it)")),
            None => lines.push(format!("MISSED {kind:<14} {value:?} (not heard)")),
        }
    }
    for (i, (kind, span)) in found.iter().enumerate() {
        if !used[i] {
            lines.push(format!("FALSE  {kind:<14} {span:?}"));
        }
    }
    let right = used.iter().filter(|u| **u).count();
    (gold.len(), found.len(), right, lines)
}

/// Precision and recall of personal data per language and split, over the calls that ran.
fn print_pii_scores(corpus: &str, found: &HashMap<String, Values>, transcripts: &HashMap<String, String>, mistakes: bool) -> anyhow::Result<()> {
    let corpus: serde_json::Value = serde_json::from_str(corpus)?;
    // (language, split) → (gold values, spans found, spans right)
    let mut parts: Vec<(PartKey, (usize, usize, usize, usize))> = Vec::new();
    println!("\npersonal data, end to end (\"heard\": values the transcript holds at all, the bound on recall):");
    println!(
        "{:<4} {:<8} {:>5} {:>5} {:>5} {:>5} {:>9} {:>7} {:>7}",
        "lang", "split", "gold", "heard", "found", "right", "precision", "recall", "of heard"
    );
    for call in corpus["calls"].as_array().into_iter().flatten() {
        let key = call["turns"][0][1].as_str().unwrap_or_default();
        let Some(spans) = found.get(key) else { continue };
        let gold: Values = call["pii"]
            .as_array()
            .into_iter()
            .flatten()
            .map(|p| (p["type"].as_str().unwrap_or_default().to_string(), p["text"].as_str().unwrap_or_default().to_string()))
            .collect();
        let part = (call["language"].as_str().unwrap_or("en").to_string(), call["split"].as_str().unwrap_or(OWN).to_string());
        let transcript = transcripts.get(key).map_or("", String::as_str);
        let (g, f, r, lines) = score_call(&gold, spans, transcript);
        let heard = gold.iter().filter(|(_, value)| heard(value, transcript)).count();
        if mistakes && !held_out(&part.1) {
            for line in lines {
                println!("    {} {line}", call["id"].as_str().unwrap_or("?"));
            }
        }
        match parts.iter_mut().find(|(p, _)| *p == part) {
            Some((_, totals)) => *totals = (totals.0 + g, totals.1 + heard, totals.2 + f, totals.3 + r),
            None => parts.push((part, (g, heard, f, r))),
        }
    }
    parts.sort();
    for ((language, split), (gold, heard, spans, right)) in parts {
        let ratio = |a: usize, b: usize| if b == 0 { 1.0 } else { a as f64 / b as f64 };
        println!(
            "{language:<4} {split:<8} {gold:>5} {heard:>5} {spans:>5} {right:>5} {:>9.3} {:>7.3} {:>7.3}",
            ratio(right, spans),
            ratio(right, gold),
            ratio(right.min(heard), heard)
        );
    }
    Ok(())
}
