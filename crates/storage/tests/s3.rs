//! The S3 backend against a real S3-compatible server on loopback: `moto_server` (PyPI `moto`,
//! installed by `scripts/test`; `CALLSCOPE_TEST_MOTO_SERVER` names it).

use std::io::{Read, Write};
use std::net::TcpStream;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use callscope_storage::{Storage, StorageError};
use futures::StreamExt;

struct Server(std::process::Child);

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port()
}

fn raw_request(port: u16, request: &str) -> String {
    let mut stream = TcpStream::connect(("127.0.0.1", port)).unwrap();
    stream.write_all(request.as_bytes()).unwrap();
    let mut answer = String::new();
    stream.read_to_string(&mut answer).unwrap();
    answer
}

#[tokio::test]
async fn objects_round_trip_through_an_s3_compatible_server() {
    let program = std::env::var("CALLSCOPE_TEST_MOTO_SERVER").unwrap_or_else(|_| "moto_server".into());
    let port = free_port();
    let child = Command::new(&program)
        .args(["-H", "127.0.0.1", "-p", &port.to_string()])
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap_or_else(|e| panic!("{program} is needed for the S3 test ({e}); scripts/test installs it"));
    let _server = Server(child);
    let deadline = Instant::now() + Duration::from_secs(30);
    while TcpStream::connect(("127.0.0.1", port)).is_err() {
        assert!(Instant::now() < deadline, "moto_server did not start");
        std::thread::sleep(Duration::from_millis(100));
    }
    let created = raw_request(port, &format!("PUT /calls HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nContent-Length: 0\r\nConnection: close\r\n\r\n"));
    assert!(created.starts_with("HTTP/1.1 200"), "create bucket: {created}");

    // Each test runs in its own process under nextest, so the environment is ours.
    for (name, value) in [
        ("AWS_ACCESS_KEY_ID", "test".to_owned()),
        ("AWS_SECRET_ACCESS_KEY", "test".to_owned()),
        ("AWS_REGION", "us-east-1".to_owned()),
        ("AWS_ENDPOINT", format!("http://127.0.0.1:{port}")),
        ("AWS_ALLOW_HTTP", "true".to_owned()),
    ] {
        std::env::set_var(name, value);
    }
    let storage = Storage::open("s3://calls/callscope/audio").unwrap();
    assert_eq!(storage.describe(), "s3://calls/callscope/audio");

    let data: Vec<u8> = (0..12_000_000u32).map(|i| (i % 241) as u8).collect();
    let mut writer = storage.writer("projects/p/j.mp3").await.unwrap();
    for chunk in data.chunks(1 << 20) {
        writer.write(chunk).await.unwrap();
    }
    writer.finish().await.unwrap();
    assert_eq!(storage.size("projects/p/j.mp3").await.unwrap(), data.len() as u64);

    let mut range = storage.read_range("projects/p/j.mp3", 5_000_000..5_000_500).await.unwrap();
    let mut read = Vec::new();
    while let Some(chunk) = range.next().await {
        read.extend_from_slice(&chunk.unwrap());
    }
    assert_eq!(read, data[5_000_000..5_000_500]);

    let scratch = tempfile::tempdir().unwrap();
    let copy = storage.local_copy("projects/p/j.mp3", scratch.path()).await.unwrap();
    assert!(copy.is_temporary(), "remote objects are downloaded for processing");
    assert_eq!(std::fs::read(copy.path()).unwrap(), data);
    let downloaded = copy.path().to_owned();
    drop(copy);
    assert!(!downloaded.exists(), "the download goes away with its guard");

    let mut aborted = storage.writer("projects/p/gone.mp3").await.unwrap();
    aborted.write(b"partial").await.unwrap();
    aborted.abort().await;
    assert!(matches!(storage.size("projects/p/gone.mp3").await, Err(StorageError::NotFound(_))));

    storage.delete("projects/p/j.mp3").await.unwrap();
    assert!(matches!(storage.size("projects/p/j.mp3").await, Err(StorageError::NotFound(_))));
}
