//! How often the agent is told from the customer by their words (`roles::guess_roles`), on the
//! scripted calls' text with the speakers' roles hidden: `own` (`corpus/calls.json`), `tune`
//! and `heldout` (`corpus/heldout.json`), `tune2` and `tune3` (`corpus/tune-2.json`,
//! `corpus/tune-3.json`) and `heldout2` (`corpus/heldout-2.json`). Every
//! scripted call is answered by its agent, so each is also tried as a recording that starts
//! late: without its first turn, the customer speaking first and the greeting gone. Each figure
//! comes with its 95 % (Wilson) interval.
//!
//! ```text
//! cargo run -p callscope-analysis --example roles_quality [-- --misses]
//! ```

use std::collections::BTreeMap;

use callscope_analysis::quality::{held_out, wilson};
use callscope_analysis::roles::guess_roles;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    // `--misses` lists the calls told wrong, of the splits that may be tuned on only.
    let show_misses = std::env::args().any(|a| a == "--misses");
    let mut misses: Vec<String> = Vec::new();
    // (split, language, variant) → (right, calls)
    let mut tally: BTreeMap<(String, String, &str), (usize, usize)> = BTreeMap::new();
    for (name, text) in [
        ("own", include_str!("../corpus/calls.json")),
        ("heldout", include_str!("../corpus/heldout.json")),
        ("tune2", include_str!("../corpus/tune-2.json")),
        ("tune3", include_str!("../corpus/tune-3.json")),
        ("heldout2", include_str!("../corpus/heldout-2.json")),
    ] {
        let corpus: serde_json::Value = serde_json::from_str(text)?;
        for call in corpus["calls"].as_array().ok_or("no calls")? {
            let split = call["split"].as_str().unwrap_or(if name == "own" { "own" } else { name }).to_owned();
            let language = call["language"].as_str().unwrap_or("?").to_owned();
            // The roles become anonymous speakers, numbered as they first speak.
            let mut turns: Vec<(String, String)> = Vec::new();
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
                turns.push((label, turn[1].as_str().unwrap_or_default().to_owned()));
            }
            let Some(agent) = agent_label else { continue };
            for (variant, heard) in [("whole", &turns[..]), ("late start", &turns[1.min(turns.len())..])] {
                let entry = tally.entry((split.clone(), language.clone(), variant)).or_default();
                entry.1 += 1;
                if guess_roles(heard).is_some_and(|g| g.agent == agent) {
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
    println!("{:<10} {:<4} {:<11} {:>6} {:>8}  95 % interval", "split", "lang", "variant", "calls", "right");
    for ((split, language, variant), (right, n)) in &tally {
        let (low, high) = wilson(*right, *n);
        println!("{split:<10} {language:<4} {variant:<11} {n:>6} {:>8.3}  [{low:.2}, {high:.2}]", *right as f64 / *n as f64);
    }
    Ok(())
}
