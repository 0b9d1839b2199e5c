//! The `callscope` binary as an operator uses it: admin commands, print-config, and `serve`
//! answering SIGTERM.

use std::path::Path;
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

fn callscope(data_dir: &Path, args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_callscope"))
        .args(args)
        .current_dir(data_dir)
        .env("CALLSCOPE_DATA_DIR", data_dir.join("data"))
        .env_remove("CALLSCOPE_DATABASE_URL")
        .env_remove("CALLSCOPE_CONFIG")
        .output()
        .expect("the binary runs")
}

fn stdout(output: &Output) -> String {
    assert!(output.status.success(), "failed: {}", String::from_utf8_lossy(&output.stderr));
    String::from_utf8(output.stdout.clone()).unwrap()
}

#[test]
fn organizations_and_keys_are_managed_from_the_command_line() {
    let dir = tempfile::tempdir().unwrap();
    let org = stdout(&callscope(dir.path(), &["org", "create", "Acme Sales"])).trim().to_owned();
    assert!(uuid::Uuid::parse_str(&org).is_ok(), "prints the organization id: {org}");
    assert!(stdout(&callscope(dir.path(), &["org", "list"])).contains(&format!("{org}\t")));

    let created = callscope(dir.path(), &["key", "create", "--org", &org, "--name", "crm"]);
    let key = stdout(&created).trim().to_owned();
    assert!(key.starts_with("csk_") && key.len() > 40, "prints the key: {key}");
    assert!(String::from_utf8_lossy(&created.stderr).contains("not shown again"));

    let listed = stdout(&callscope(dir.path(), &["key", "list", "--org", &org]));
    assert!(!listed.contains(&key), "listing never shows keys");
    let line = listed.lines().find(|l| l.ends_with("\tcrm")).expect("the key is listed");
    assert!(line.contains("\tactive\t"));
    let key_id = line.split('\t').next().unwrap().to_owned();

    stdout(&callscope(dir.path(), &["key", "revoke", &key_id]));
    let listed = stdout(&callscope(dir.path(), &["key", "list", "--org", &org]));
    assert!(listed.contains("\trevoked "), "{listed}");

    let unknown_org = callscope(dir.path(), &["key", "create", "--org", &uuid::Uuid::now_v7().to_string()]);
    assert!(!unknown_org.status.success());
    assert!(String::from_utf8_lossy(&unknown_org.stderr).contains("no organization"));
    let bad_id = callscope(dir.path(), &["key", "revoke", "nope"]);
    assert!(!bad_id.status.success());
}

#[test]
fn print_config_layers_file_and_environment_and_masks_secrets() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("callscope.toml"), "listen = \"0.0.0.0:9999\"\nrate_limit_per_minute = 77\n").unwrap();
    let output = Command::new(env!("CARGO_BIN_EXE_callscope"))
        .arg("print-config")
        .current_dir(dir.path())
        .env("CALLSCOPE_RATE_LIMIT_PER_MINUTE", "5")
        .env("CALLSCOPE_DATABASE_URL", "postgres://app:hunter2@db.internal:5432/callscope")
        .env("CALLSCOPE_LLM_API_KEY", "sk-live-secret")
        .env_remove("CALLSCOPE_CONFIG")
        .env_remove("CALLSCOPE_DATA_DIR")
        .output()
        .unwrap();
    let shown = stdout(&output);
    assert!(shown.contains("llm_api_key = \"********\""), "{shown}");
    assert!(!shown.contains("sk-live-secret"), "the LLM key is never shown");
    assert!(shown.contains("listen = \"0.0.0.0:9999\""), "{shown}");
    assert!(shown.contains("rate_limit_per_minute = 5"), "{shown}");
    assert!(shown.contains("postgres://app:********@db.internal:5432/callscope"), "{shown}");
    assert!(!shown.contains("hunter2"));

    let bad =
        Command::new(env!("CARGO_BIN_EXE_callscope")).args(["--config", "missing.toml", "print-config"]).current_dir(dir.path()).output().unwrap();
    assert_eq!(bad.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&bad.stderr).contains("missing.toml"));
}

#[test]
fn every_setting_is_in_the_example_file() {
    let example = std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("../../callscope.example.toml"))
        .expect("callscope.example.toml at the repository root");
    let defaults: toml::Table = toml::from_str(&callscope::Config::default().to_redacted_toml()).unwrap();
    for key in defaults.keys() {
        assert!(example.contains(&format!("\n# {key} = ")) || example.contains(&format!("\n{key} = ")), "{key} is not documented");
    }
    let parsed: toml::Table = toml::from_str(&example).expect("the example is valid TOML");
    for key in parsed.keys() {
        assert!(defaults.contains_key(key), "the example names an unknown setting {key}");
    }
}

/// An installed test artifact (`callscope models install --profile test`).
fn artifact(name: &str) -> std::path::PathBuf {
    std::env::var_os("CALLSCOPE_TEST_MODELS_DIR").map_or_else(callscope_models::default_dir, std::path::PathBuf::from).join(name)
}

/// Whether a process is gone (exited, or a zombie nobody has reaped yet).
fn gone(pid: u32) -> bool {
    std::fs::read_to_string(format!("/proc/{pid}/stat"))
        .map_or(true, |stat| stat.rsplit(')').next().is_some_and(|rest| rest.trim_start().starts_with('Z')))
}

#[test]
fn serve_bootstraps_logs_no_key_and_stops_on_sigterm() {
    let dir = tempfile::tempdir().unwrap();
    let port = std::net::TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port();
    // The default analysis engine is the local one: its sidecar starts with the server (here
    // with the smallest model) and stops with it.
    let child = Command::new(env!("CARGO_BIN_EXE_callscope"))
        .arg("serve")
        .current_dir(dir.path())
        .env("CALLSCOPE_DATA_DIR", dir.path().join("data"))
        .env("CALLSCOPE_LISTEN", format!("127.0.0.1:{port}"))
        .env("CALLSCOPE_LOG_FORMAT", "json")
        .env("CALLSCOPE_LOCAL_LLM_MODEL", artifact("smollm2-135m"))
        .env("CALLSCOPE_LOCAL_LLM_THREADS", "1")
        .env("CALLSCOPE_LOCAL_LLM_CONTEXT", "2048")
        .env_remove("CALLSCOPE_ANALYSIS_ENGINE")
        .env_remove("CALLSCOPE_DATABASE_URL")
        .env_remove("CALLSCOPE_CONFIG")
        .stderr(Stdio::piped())
        .stdout(Stdio::null())
        .spawn()
        .unwrap();
    let key_file = dir.path().join("data/bootstrap-api-key");
    let deadline = Instant::now() + Duration::from_secs(30);
    while std::net::TcpStream::connect(("127.0.0.1", port)).is_err() {
        assert!(Instant::now() < deadline, "the server did not start");
        std::thread::sleep(Duration::from_millis(50));
    }
    let key = std::fs::read_to_string(&key_file).unwrap().trim().to_owned();
    // The server holds its search index: a reindex now is refused, and says why.
    let refused = callscope(dir.path(), &["reindex"]);
    assert!(!refused.status.success());
    assert!(String::from_utf8_lossy(&refused.stderr).contains("in use by another process"), "{}", String::from_utf8_lossy(&refused.stderr));

    let status = Command::new("kill").args(["-TERM", &child.id().to_string()]).status().unwrap();
    assert!(status.success());
    let output = child.wait_with_output().unwrap();
    assert!(output.status.success(), "SIGTERM is a clean stop: {:?}", output.status);
    let log = String::from_utf8(output.stderr).unwrap();
    assert!(log.contains("bootstrap-api-key"), "the log names the key file: {log}");
    assert!(!log.contains(&key), "the key itself is never logged");
    assert!(log.lines().all(|l| serde_json::from_str::<serde_json::Value>(l).is_ok()), "json logs: {log}");
    assert!(log.contains("shutting down"));
    let started = log
        .lines()
        .filter_map(|l| serde_json::from_str::<serde_json::Value>(l).ok())
        .find(|l| l["message"] == "local LLM started")
        .unwrap_or_else(|| panic!("the local LLM sidecar started: {log}"));
    assert_eq!(started["url"].as_str().map(|u| u.starts_with("http://127.0.0.1:")), Some(true), "{started}");
    let pid = u32::try_from(started["pid"].as_u64().expect("the sidecar's pid is logged")).unwrap();
    let deadline = Instant::now() + Duration::from_secs(10);
    while !gone(pid) {
        assert!(Instant::now() < deadline, "the sidecar {pid} outlived the server");
        std::thread::sleep(Duration::from_millis(50));
    }
    // Stopped, the index is free to rebuild.
    let rebuilt = callscope(dir.path(), &["reindex"]);
    assert!(rebuilt.status.success(), "{}", String::from_utf8_lossy(&rebuilt.stderr));
    assert!(String::from_utf8_lossy(&rebuilt.stderr).contains("search index rebuilt"));
}

#[test]
fn analyze_refuses_a_vocabulary_it_cannot_use_before_any_work() {
    let dir = tempfile::tempdir().unwrap();
    let audio = dir.path().join("call.wav");
    std::fs::write(&audio, b"RIFF").unwrap();
    let refused = |vocabulary: &str, says: &str| {
        let file = dir.path().join("vocabulary.json");
        std::fs::write(&file, vocabulary).unwrap();
        let output = callscope(dir.path(), &["analyze", "--language", "pl", "--vocabulary", file.to_str().unwrap(), audio.to_str().unwrap()]);
        let stderr = String::from_utf8_lossy(&output.stderr).into_owned();
        assert!(!output.status.success() && stderr.contains(says), "{vocabulary}: {stderr}");
    };
    refused("{\"terms\": [{\"term\": \"Volt Dom\", \"company\": true}, {\"term\": \"VOLT DOM\"}]}", "terms[1].term is in the vocabulary already");
    refused("[\"Volt Dom\"]", "not a vocabulary");
    let missing = callscope(dir.path(), &["analyze", "--vocabulary", "nowhere.json", audio.to_str().unwrap()]);
    assert!(String::from_utf8_lossy(&missing.stderr).contains("cannot read the vocabulary nowhere.json"), "{missing:?}");
}
