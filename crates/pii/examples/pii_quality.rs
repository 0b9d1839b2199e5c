//! Precision and recall per PII type on the labeled corpus, and detection speed on an hour of
//! transcript.
//!
//! ```text
//! cargo run --release -p callscope-pii --example pii_quality -- GAZETTEER_DIR [CORPUS] [--errors]
//! ```

use std::sync::Arc;
use std::time::Instant;

use callscope_pii::corpus::{parse, score};
use callscope_pii::{Detector, Gazetteer, Lang};

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
