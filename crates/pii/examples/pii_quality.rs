//! Precision and recall per PII type on the labeled corpus, then on the scripts of the analysis
//! quality corpus's calls per language and split (both held-out sets) (their held-out errors are never shown), and
//! detection speed on an hour of transcript.
//!
//! ```text
//! cargo run --release -p callscope-pii --example pii_quality -- GAZETTEER_DIR [CORPUS] [--errors]
//! ```

use std::sync::Arc;
use std::time::Instant;

use callscope_pii::corpus::{parse, score, Example};
use callscope_pii::{Detector, Entity, Gazetteer, Lang, PiiType};

/// A call of the analysis corpus: its language, its split, and its text with the gold spans.
type ScriptedCall = (String, String, Example);

/// The analysis corpus's calls as examples: each call's turns joined by line ends (as the
/// pipeline scans them), with each annotated value at its first place not already taken.
fn scripted_calls(json: &str) -> Result<Vec<ScriptedCall>, Box<dyn std::error::Error>> {
    let corpus: serde_json::Value = serde_json::from_str(json)?;
    let mut out = Vec::new();
    for call in corpus["calls"].as_array().ok_or("no calls")? {
        let text: Vec<&str> = call["turns"].as_array().ok_or("no turns")?.iter().filter_map(|t| t[1].as_str()).collect();
        let text = text.join("\n");
        let language = call["language"].as_str().unwrap_or("en").to_owned();
        let mut gold: Vec<Entity> = Vec::new();
        for pii in call["pii"].as_array().into_iter().flatten() {
            let (Some(kind), Some(value)) = (pii["type"].as_str().and_then(PiiType::parse), pii["text"].as_str()) else {
                return Err(format!("{}: unreadable pii {pii}", call["id"]).into());
            };
            let free = text
                .match_indices(value)
                .map(|(start, _)| (start, start + value.len()))
                .find(|&(start, end)| !gold.iter().any(|g| start < g.end && g.start < end));
            let (start, end) = free.ok_or_else(|| format!("{}: {value:?} is not in the call", call["id"]))?;
            gold.push(Entity { kind, start, end, confidence: 1.0 });
        }
        let lang = if language == "pl" { Lang::Pl } else { Lang::En };
        out.push((language, call["split"].as_str().unwrap_or("own").to_owned(), Example { lang, text, gold }));
    }
    Ok(out)
}

/// Wilson's 95 % interval for `hits` of `of`.
fn wilson(hits: usize, of: usize) -> (f64, f64) {
    if of == 0 {
        return (0.0, 1.0);
    }
    let (n, p, z) = (of as f64, hits as f64 / of as f64, 1.96_f64);
    let centre = (p + z * z / (2.0 * n)) / (1.0 + z * z / n);
    let half = z * (p * (1.0 - p) / n + z * z / (4.0 * n * n)).sqrt() / (1.0 + z * z / n);
    ((centre - half).max(0.0), (centre + half).min(1.0))
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let show_errors = args.iter().any(|a| a == "--errors");
    let positional: Vec<&String> = args.iter().filter(|a| !a.starts_with("--")).collect();
    let dir = positional.first().ok_or("usage: pii_quality GAZETTEER_DIR [CORPUS] [--errors]")?;
    let corpus_path = positional.get(1).map_or_else(|| concat!(env!("CARGO_MANIFEST_DIR"), "/corpus/calls.txt").to_owned(), |p| p.to_string());

    let started = Instant::now();
    let gazetteer = Arc::new(Gazetteer::load(std::path::Path::new(dir.as_str()))?);
    println!("gazetteers: {} words, loaded in {:.2} s", gazetteer.len(), started.elapsed().as_secs_f64());
    let detector = Detector::new(gazetteer);
    let examples = parse(&std::fs::read_to_string(&corpus_path)?)?;
    let s = score(&detector, &examples);

    println!("\ncorpus: {} utterances ({corpus_path})", examples.len());
    println!("{:<15} {:>5} {:>5} {:>5} {:>9} {:>7}", "type", "gold", "found", "right", "precision", "recall");
    for (kind, c) in &s.by_type {
        println!("{:<15} {:>5} {:>5} {:>5} {:>9.3} {:>7.3}", kind.as_str(), c.gold, c.predicted, c.correct, c.precision(), c.recall());
    }
    let t = s.total();
    println!("{:<15} {:>5} {:>5} {:>5} {:>9.3} {:>7.3}", "all", t.gold, t.predicted, t.correct, t.precision(), t.recall());
    if show_errors {
        println!();
        for m in &s.misses {
            println!("{} {:<14} {:?}  in  {}", if m.spurious { "FALSE" } else { "MISSED" }, m.kind.as_str(), m.value, m.text);
        }
    }

    // The scripted calls of the analysis corpus, per language and split: the first set's tune
    // and held-out halves, then the second held-out set (52 calls per language).
    let mut calls = scripted_calls(include_str!("../../analysis/corpus/heldout.json"))?;
    calls.extend(scripted_calls(include_str!("../../analysis/corpus/heldout-2.json"))?);
    println!("\nscripted calls (crates/analysis/corpus/heldout.json, heldout-2.json), text of the scripts, Wilson 95 % intervals:");
    println!("{:<4} {:<8} {:>5} {:>5} {:>5} {:>9} {:>14} {:>7} {:>14}", "lang", "split", "gold", "found", "right", "precision", "", "recall", "");
    for language in ["en", "pl"] {
        for split in ["tune", "heldout", "heldout2"] {
            let part: Vec<Example> = calls.iter().filter(|(l, s, _)| l == language && s == split).map(|(_, _, e)| e.clone()).collect();
            let s = score(&detector, &part);
            let t = s.total();
            let interval = |hits: usize, of: usize| {
                let (low, high) = wilson(hits, of);
                format!("[{low:.2}, {high:.2}]")
            };
            println!(
                "{language:<4} {split:<8} {:>5} {:>5} {:>5} {:>9.3} {:>14} {:>7.3} {:>14}",
                t.gold,
                t.predicted,
                t.correct,
                t.precision(),
                interval(t.correct, t.predicted),
                t.recall(),
                interval(t.correct, t.gold)
            );
            if show_errors && split == "tune" {
                for m in &s.misses {
                    println!("    {} {:<14} {:?}", if m.spurious { "FALSE" } else { "MISSED" }, m.kind.as_str(), m.value);
                }
            }
        }
    }

    // Speed: an hour of call (about 9,000 words at 150 words a minute) built from the corpus.
    let mut hour = String::new();
    let mut words = 0;
    'fill: loop {
        for ex in &examples {
            hour.push_str(&ex.text);
            hour.push('\n');
            words += ex.text.split_whitespace().count();
            if words >= 9000 {
                break 'fill;
            }
        }
    }
    let runs = 20;
    let started = Instant::now();
    let mut found = 0;
    for _ in 0..runs {
        found = detector.detect(&hour, Lang::Pl).len();
    }
    let per_run = started.elapsed().as_secs_f64() / f64::from(runs);
    println!("\nspeed: one hour of transcript ({words} words, {} KiB) in {:.1} ms ({found} entities)", hour.len() / 1024, per_run * 1000.0);
    Ok(())
}
