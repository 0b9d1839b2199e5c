//! Requests a second of `GET …/calls/{id}` (the call detail) against the real server, for a call
//! with a word list of a long call: what the detail costs when it reads, or does not read, the
//! timed words it does not serve. `GET …/calls/{id}/words`, which serves them, is timed beside it.
//!
//!   cargo run --release --example bench_call_detail -- [WORDS] [SECONDS]
//!
//! WORDS defaults to 9000 (an hour of talk at 150 words a minute), SECONDS to 10 per route.
//! Requests go one at a time over one kept-alive connection, on SQLite.

use std::sync::Arc;
use std::time::{Duration, Instant};

use callscope::{Application, Config};
use callscope_domain::{ApiKeySecret, CallTranscript, Language, NewProject, SystemClock, TimedWord, Turn};
use callscope_store::testing::{store_call, text_call};

#[tokio::main]
async fn main() -> anyhow::Result<()> {
    let args: Vec<String> = std::env::args().collect();
    let words: usize = args.get(1).map_or(Ok(9_000), |a| a.parse())?;
    let seconds: u64 = args.get(2).map_or(Ok(10), |a| a.parse())?;
    let temp = tempfile::tempdir()?;
    let config = Config {
        listen: "127.0.0.1:0".into(),
        data_dir: temp.path().join("data"),
        rate_limit_per_minute: 0,
        workers: 0,
        analysis_engine: callscope::config::AnalysisEngine::Rules,
        ..Config::default()
    };
    std::fs::create_dir_all(&config.data_dir)?;
    let clock = Arc::new(SystemClock);
    let store = callscope::startup::open_store(&config, clock.clone()).await?;
    let org = store.create_organization("bench").await?;
    let project = store.create_project(org.id, &NewProject::parse("bench", None, None, None)?).await?.id;

    // Turns of twenty words, the words 400 ms apart, as a transcription stores them.
    const SAID: &[&str] = &["I", "would", "like", "to", "check", "the", "invoice", "from", "last", "month,", "please."];
    let timed: Vec<TimedWord> = (0..words)
        .map(|i| {
            let start_ms = i64::try_from(i).unwrap_or(0) * 400;
            TimedWord { text: SAID[i % SAID.len()].into(), start_ms, end_ms: start_ms + 350, speaker: (i / 20) % 2, confidence: None }
        })
        .collect();
    let turns: Vec<Turn> = timed
        .chunks(20)
        .map(|chunk| Turn {
            speaker_id: callscope_domain::speaker_id(chunk[0].speaker),
            text: chunk.iter().map(|w| w.text.as_str()).collect::<Vec<_>>().join(" "),
            start_ms: chunk[0].start_ms,
            end_ms: chunk[chunk.len() - 1].end_ms,
        })
        .collect();
    let full_text = turns.iter().map(|t| t.text.as_str()).collect::<Vec<_>>().join("\n");
    let mut call = text_call(Language::En, "An hour about an invoice", &full_text, "The customer asked about an invoice.");
    call.transcript = CallTranscript { full_text, turns, words: timed, ..call.transcript };
    let id = store_call(store.as_ref(), project, &call).await;
    let secret = ApiKeySecret::generate();
    store.create_api_key(org.id, "bench", &secret.digest()).await?;
    store.close().await;

    let app = Application::build(&config, clock).await?;
    let base = format!("http://{}/v1/projects/{}/calls/{}", app.local_addr(), project.0, id.0);
    let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
    let server = tokio::spawn(app.run_until_stopped(async {
        let _ = stopped.await;
    }));
    let client = reqwest::Client::new();
    println!("a call of {words} timed words; requests one at a time for {seconds} s each");
    println!("| request | requests/s | mean ms | bytes |");
    println!("|---|---|---|---|");
    for (name, url) in [("GET …/calls/{id}", base.clone()), ("GET …/calls/{id}/words", format!("{base}/words"))] {
        let fetch = || async {
            let response = client.get(&url).header("X-API-Key", secret.expose()).send().await.expect("request");
            assert!(response.status().is_success(), "{}", response.status());
            response.bytes().await.expect("body").len()
        };
        let bytes = fetch().await; // warm-up
        let (started, mut n) = (Instant::now(), 0u32);
        while started.elapsed() < Duration::from_secs(seconds) {
            fetch().await;
            n += 1;
        }
        let elapsed = started.elapsed().as_secs_f64();
        println!("| {name} | {:.0} | {:.2} | {bytes} |", f64::from(n) / elapsed, elapsed * 1000.0 / f64::from(n));
    }
    let _ = stop.send(());
    server.await??;
    Ok(())
}
