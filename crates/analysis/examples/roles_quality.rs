//! How often the agent is told from the customer by their words (`roles::guess_roles`), on the
//! scripted calls' text with the speakers' roles hidden: `own` (`corpus/calls.json`), `tune`
//! and `heldout` (`corpus/heldout.json`), `tune2`, `tune3` and `tune4` (`corpus/tune-2.json`,
//! `corpus/tune-3.json`, `corpus/tune-4.json`, Polish only) and `heldout2` (`corpus/heldout-2.json`). Every
//! scripted call is answered by its agent, so each is also tried as a recording that starts
//! late: without its first turn, the customer speaking first and the greeting gone. Each figure
//! comes with its 95 % (Wilson) interval.
//!
//! With `--heard FILE` it scores the guess instead on the turns the speech side heard on mono
//! recordings of the tune calls, as `analysis_e2e --mono --heard-turns FILE` wrote them: the
//! diarizer's speakers and the recogniser's words, mistakes and all, which is what the guess
//! meets in use. Those files never hold a held-out call. The ones the guess was last chosen and
//! checked on are kept in `corpus/heard/` (stop 58: whisper base int8, release build,
//! confidences to three decimals), so a change to the guess is scored on them in seconds without
//! hearing the calls again; when the speech side changes they are made again with that command.
//!
//! With `--speed MINUTES` it times the guess on one long Polish call instead: the tune3 calls'
//! turns joined in order up to that length (at 150 spoken words a minute), every word heard
//! unsure, which is the most work the slips can make.
//!
//! ```text
//! cargo run -p callscope-analysis --example roles_quality [-- --misses] [--heard FILE] [--speed MINUTES]
//! ```

use std::collections::BTreeMap;

use callscope_analysis::quality::{held_out, wilson, HELDOUT};
use callscope_analysis::roles::{guess_roles, SaidTurn};

fn main() -> Result<(), Box<dyn std::error::Error>> {
    // `--misses` lists the calls told wrong, of the splits that may be tuned on only.
    let show_misses = std::env::args().any(|a| a == "--misses");
    let arguments: Vec<String> = std::env::args().collect();
    if let Some(at) = arguments.iter().position(|a| a == "--heard") {
        let path = arguments.get(at + 1).ok_or("--heard FILE: which file?")?;
        return score_heard(&std::fs::read_to_string(path)?, show_misses);
    }
    if let Some(at) = arguments.iter().position(|a| a == "--speed") {
        let minutes: f64 = arguments.get(at + 1).ok_or("--speed MINUTES: how long a call?")?.parse()?;
        return time_long_call(minutes);
    }
    let mut misses: Vec<String> = Vec::new();
    let mut tally: Tally = BTreeMap::new();
    for (name, text) in [
        ("own", include_str!("../corpus/calls.json")),
        ("heldout", include_str!("../corpus/heldout.json")),
        ("tune2", include_str!("../corpus/tune-2.json")),
        ("tune3", include_str!("../corpus/tune-3.json")),
        ("tune4", include_str!("../corpus/tune-4.json")),
        ("heldout2", include_str!("../corpus/heldout-2.json")),
    ] {
        let corpus: serde_json::Value = serde_json::from_str(text)?;
        for call in corpus["calls"].as_array().ok_or("no calls")? {
            let split = call["split"].as_str().unwrap_or(if name == "own" { "own" } else { name }).to_owned();
            let language = call["language"].as_str().unwrap_or("?").to_owned();
            // The roles become anonymous speakers, numbered as they first speak.
            let mut turns: Vec<SaidTurn> = Vec::new();
            let mut agent_label = None;
            let mut order: Vec<String> = Vec::new();
            for turn in call["turns"].as_array().ok_or("no turns")? {
                let role = turn[0].as_str().unwrap_or_default().to_owned();
                if !order.contains(&role) {
                    order.push(role.clone());
                }
                let label = format!("speaker_{}", order.iter().position(|r| *r == role).unwrap_or(0) + 1);
                if role == "agent" || role == "konsultant" {
                    agent_label = Some(label.clone());
                }
                turns.push(SaidTurn::written(label, turn[1].as_str().unwrap_or_default()));
            }
            let Some(agent) = agent_label else { continue };
            for (variant, heard) in [("whole", &turns[..]), ("late start", &turns[1.min(turns.len())..])] {
                let entry = tally.entry((split.clone(), language.clone(), variant)).or_default();
                entry.1 += 1;
                if guess_roles(heard, &[]).is_some_and(|g| g.agent == agent) {
                    entry.0 += 1;
                } else if !held_out(&split) {
                    misses.push(format!("{split} {language} {variant}: {}", call["id"].as_str().unwrap_or("?")));
                }
            }
        }
    }
    if show_misses {
        misses.iter().for_each(|m| println!("{m}"));
    }
    print_tally(&tally);
    Ok(())
}

/// The guess on turns as heard: a row per split, language and variant (whole, or without the
/// first turn heard) of the file's calls.
fn score_heard(text: &str, show_misses: bool) -> Result<(), Box<dyn std::error::Error>> {
    let heard: serde_json::Value = serde_json::from_str(text)?;
    let mut tally: Tally = BTreeMap::new();
    for call in heard["calls"].as_array().ok_or("no calls")? {
        // A call that says no split is taken as held out.
        let split = call["split"].as_str().unwrap_or(HELDOUT).to_owned();
        if held_out(&split) {
            continue;
        }
        let Some(agent) = call["agent"].as_str() else { continue };
        // Each turn is [speaker, [its words], [each word's confidence]].
        let mut turns: Vec<SaidTurn> = Vec::new();
        for turn in call["turns"].as_array().ok_or("no turns")? {
            let words = turn[1].as_array().ok_or("a turn without words")?.iter().map(|w| w.as_str().unwrap_or_default().to_owned());
            let confidences: Vec<f32> =
                turn[2].as_array().ok_or("a turn without confidences")?.iter().map(|c| c.as_f64().unwrap_or(1.0) as f32).collect();
            if words.len() != confidences.len() {
                return Err(format!("{}: {} words and {} confidences", call["id"], words.len(), confidences.len()).into());
            }
            turns.push(SaidTurn { speaker: turn[0].as_str().unwrap_or_default().to_owned(), words: words.zip(confidences).collect() });
        }
        let language = call["language"].as_str().unwrap_or("?").to_owned();
        for (variant, heard) in [("whole", &turns[..]), ("late start", &turns[1.min(turns.len())..])] {
            let entry = tally.entry((split.clone(), language.clone(), variant)).or_default();
            entry.1 += 1;
            let guess = guess_roles(heard, &[]);
            if guess.as_ref().is_some_and(|g| g.agent == agent) {
                entry.0 += 1;
            } else if show_misses {
                println!("{split} {language} {variant}, heard: {} ({guess:?})", call["id"].as_str().unwrap_or("?"));
            }
        }
    }
    print_tally(&tally);
    Ok(())
}

/// Spoken words per minute on a phone call.
const WORDS_PER_MINUTE: f64 = 150.0;

/// Times the guess on a Polish call of about `minutes` minutes, every word heard unsure.
fn time_long_call(minutes: f64) -> Result<(), Box<dyn std::error::Error>> {
    let corpus: serde_json::Value = serde_json::from_str(include_str!("../corpus/tune-3.json"))?;
    let scripted: Vec<(String, Vec<String>)> = corpus["calls"]
        .as_array()
        .ok_or("no calls")?
        .iter()
        .filter(|call| call["language"] == "pl")
        .flat_map(|call| call["turns"].as_array().cloned().unwrap_or_default())
        .map(|turn| {
            (turn[0].as_str().unwrap_or_default().to_owned(), turn[1].as_str().unwrap_or_default().split_whitespace().map(str::to_owned).collect())
        })
        .collect();
    let wanted = (minutes * WORDS_PER_MINUTE).round() as usize;
    let (mut turns, mut words) = (Vec::new(), 0);
    for (role, text) in scripted.iter().cycle() {
        if words >= wanted {
            break;
        }
        words += text.len();
        turns.push(SaidTurn { speaker: role.clone(), words: text.iter().map(|w| (w.clone(), 0.5)).collect() });
    }
    let started = std::time::Instant::now();
    let guess = guess_roles(&turns, &[]);
    println!("{minutes} min ({words} words, {} turns): {:.3} s ({guess:?})", turns.len(), started.elapsed().as_secs_f64());
    Ok(())
}

/// A row per split, language and variant: calls told right, with the 95 % interval.
fn print_tally(tally: &Tally) {
    println!("{:<10} {:<4} {:<11} {:>6} {:>8}  95 % interval", "split", "lang", "variant", "calls", "right");
    for ((split, language, variant), (right, n)) in tally {
        let (low, high) = wilson(*right, *n);
        println!("{split:<10} {language:<4} {variant:<11} {n:>6} {:>8.3}  [{low:.2}, {high:.2}]", *right as f64 / *n as f64);
    }
}

/// (split, language, variant) → (calls told right, calls).
type Tally = BTreeMap<(String, String, &'static str), (usize, usize)>;
