//! The decoder the service runs: `callscope decode-audio` in a child process (see
//! `callscope_audio::isolated`), so that a file that makes the decoder abort, overflow its stack
//! or run out of memory fails its job and nothing else.
//!
//! The child runs under limits the parent sets before it starts: address space (a header that
//! asks for gigabytes fails an allocation in the child), file size (what it may write for the
//! longest accepted call) and no core files. It is killed when the attempt ends without it (the
//! stage's time limit, a lost lease, a shutdown).

use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

use async_trait::async_trait;
use callscope_audio::isolated::{self, ChildReport};
use callscope_audio::{DecodedAudio, MAX_SEPARATE_CHANNELS, TARGET_RATE};
use callscope_domain::JobStage;
use tokio::io::{AsyncBufReadExt, BufReader};

use crate::{Decoder, Progress, StageError, SEE_THE_LOG};

/// Decodes each file in a child process of `program`.
#[derive(Debug, Clone)]
pub struct IsolatedDecoder {
    program: PathBuf,
    scratch: PathBuf,
    memory_limit_bytes: u64,
}

impl IsolatedDecoder {
    /// A decoder that runs `program decode-audio`, writes the decoded signals under `scratch`,
    /// and lets the child use at most `memory_limit_bytes` of address space.
    pub fn new(program: PathBuf, scratch: PathBuf, memory_limit_bytes: u64) -> Self {
        Self { program, scratch, memory_limit_bytes }
    }

    /// A name for this attempt's scratch files, unique in the process and among processes.
    fn scratch_base(&self) -> PathBuf {
        static NEXT: AtomicU64 = AtomicU64::new(0);
        let n = NEXT.fetch_add(1, Ordering::Relaxed);
        self.scratch.join(format!("decoding-{}-{n}", std::process::id()))
    }
}

/// Removes an attempt's scratch files, however the attempt ends.
struct ScratchFiles(PathBuf);

impl Drop for ScratchFiles {
    fn drop(&mut self) {
        isolated::remove(&self.0, MAX_SEPARATE_CHANNELS);
    }
}

#[async_trait]
impl Decoder for IsolatedDecoder {
    async fn decode(&self, path: &Path, max_duration_s: f64, progress: Arc<dyn Progress>) -> Result<DecodedAudio, StageError> {
        std::fs::create_dir_all(&self.scratch).map_err(|e| {
            tracing::error!(error = %e, dir = %self.scratch.display(), "cannot make the scratch directory");
            StageError::Retryable(format!("could not prepare the decoding {SEE_THE_LOG}"))
        })?;
        let base = self.scratch_base();
        let scratch = ScratchFiles(base.clone());
        let mut command = tokio::process::Command::new(&self.program);
        command
            .arg("decode-audio")
            .arg("--max-duration")
            .arg(max_duration_s.to_string())
            .arg(path)
            .arg(&base)
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            // What the child says beyond its report (a panic's message) goes to the service's
            // log, where the job's message sends people.
            .stderr(Stdio::inherit())
            .kill_on_drop(true);
        limit_child(&mut command, self.memory_limit_bytes, written_limit(max_duration_s));
        let mut child = command.spawn().map_err(|e| {
            tracing::error!(error = %e, program = %self.program.display(), "cannot start the decoder");
            StageError::Retryable(format!("could not start the decoder {SEE_THE_LOG}"))
        })?;
        let mut report = None;
        if let Some(stdout) = child.stdout.take() {
            let mut lines = BufReader::new(stdout).lines();
            while let Ok(Some(line)) = lines.next_line().await {
                match isolated::parse_report(&line) {
                    Some(ChildReport::Progress(fraction)) => progress.report(JobStage::Decoding, fraction),
                    Some(ended) => report = Some(ended),
                    None => tracing::debug!(line, "the decoder said something else"),
                }
            }
        }
        let status = child.wait().await.map_err(|e| {
            tracing::error!(error = %e, "lost the decoder");
            StageError::Retryable(format!("the decoder could not be waited for {SEE_THE_LOG}"))
        })?;
        match report {
            Some(ChildReport::Done(spilled)) if status.success() => {
                // The signals take their files over (they are read a window at a time, and go
                // when the signals do); whatever is left is removed with `scratch`.
                let adopted = tokio::task::spawn_blocking(move || {
                    let adopted = isolated::adopt(&base, &spilled);
                    drop(scratch);
                    adopted
                })
                .await
                .map_err(|e| crate::speech::stopped("decoding", &e))?;
                adopted.map_err(|e| crate::unreadable_audio(&e))
            }
            Some(ChildReport::Failed { permanent: true, message }) => Err(StageError::Fatal(message)),
            Some(ChildReport::Failed { permanent: false, message }) => Err(StageError::Retryable(message)),
            _ => {
                tracing::error!(%status, "the decoder ended without a result");
                Err(StageError::Fatal(format!(
                    "the decoder stopped on this file ({}): it is damaged, or needs more memory to decode than the limit allows \
                     (CALLSCOPE_DECODER_MEMORY_LIMIT_MB)",
                    describe_status(status)
                )))
            }
        }
    }
}

/// The most a child may write: both signals of the longest accepted call, and a little more.
fn written_limit(max_duration_s: f64) -> u64 {
    let seconds = if max_duration_s.is_nan() { 0.0 } else { max_duration_s.clamp(0.0, 1e7) };
    let frames = (seconds * f64::from(TARGET_RATE)).ceil() as u64;
    frames.saturating_add(u64::from(TARGET_RATE)).saturating_mul(4).saturating_add(1 << 20)
}

/// How a child ended, for a person.
fn describe_status(status: std::process::ExitStatus) -> String {
    #[cfg(unix)]
    {
        use std::os::unix::process::ExitStatusExt;
        if let Some(signal) = status.signal() {
            let name = match signal {
                libc::SIGABRT => "it aborted",
                libc::SIGSEGV | libc::SIGBUS => "it crashed",
                libc::SIGKILL => "it was killed, as when memory runs out",
                libc::SIGXFSZ => "it wrote more than the longest accepted call",
                _ => "it was stopped by a signal",
            };
            return format!("{name}, signal {signal}");
        }
    }
    match status.code() {
        Some(code) => format!("it exited with code {code} without a result"),
        None => "it ended without a result".into(),
    }
}

/// Sets the child's limits before it runs.
#[cfg(unix)]
fn limit_child(command: &mut tokio::process::Command, memory_bytes: u64, file_bytes: u64) {
    let limits = [(libc::RLIMIT_AS, memory_bytes), (libc::RLIMIT_FSIZE, file_bytes), (libc::RLIMIT_CORE, 0)];
    // SAFETY: the closure runs in the child between fork and exec, and calls only setrlimit,
    // which is async-signal-safe; it touches no memory the parent's other threads hold.
    unsafe {
        command.pre_exec(move || {
            for (resource, value) in limits {
                let limit = libc::rlimit { rlim_cur: value as libc::rlim_t, rlim_max: value as libc::rlim_t };
                if libc::setrlimit(resource, &limit) != 0 {
                    return Err(std::io::Error::last_os_error());
                }
            }
            Ok(())
        });
    }
}

#[cfg(not(unix))]
fn limit_child(_: &mut tokio::process::Command, _: u64, _: u64) {}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_child_may_write_the_longest_call_and_no_more() {
        let limit = written_limit(3600.0);
        assert!(limit >= 3600 * 16_000 * 4);
        assert!(limit < 3601 * 16_000 * 4 + (2 << 20));
        assert_eq!(written_limit(f64::NAN), written_limit(0.0));
    }
}
