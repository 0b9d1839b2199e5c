//! How a running attempt shows it is alive, and when it is not.
//!
//! A stage reports its progress as it goes; the worker's heartbeat renews the job's lease only
//! while the attempt is within its limits. Two limits bound an attempt, whatever a stage does
//! (a decoder that loops, a transcription that hangs, a diarization that meets its cubic worst
//! case, an engine that never answers):
//!
//! - each stage gets a wall-clock limit that grows with the call's duration, since a four-hour
//!   call rightly takes longer to transcribe than a two-minute one;
//! - a stage that reports its progress as it goes (decoding, transcription) and then reports
//!   nothing for a while is taken for stuck, however much time it has left. Diarization (whose
//!   first steps, features and a table of distances, report nothing) and analysis (an LLM
//!   request may rightly take minutes) are held to their wall-clock limit alone.
//!
//! Past either, the attempt ends as a failure whose message says which stage, which limit and
//! which setting to raise if the machine is only slow.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Mutex;
use std::time::{Duration, Instant};

use callscope_domain::JobStage;
use callscope_pipeline::Progress;

/// The limits a stage runs under.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct StageLimits {
    /// What every stage gets, whatever the call's length.
    pub base: Duration,
    /// What a stage gets on top for each second of audio, once decoding has told the length.
    pub per_audio_second: f64,
    /// Longest a stage may go without reporting progress.
    pub stall: Duration,
}

impl Default for StageLimits {
    /// Generous for whisper base on a CPU (about a tenth of real time per channel here) and for
    /// a large model on a slow one; a stuck stage still ends within the hour for a short call.
    fn default() -> Self {
        Self { base: Duration::from_secs(600), per_audio_second: 4.0, stall: Duration::from_secs(1200) }
    }
}

impl StageLimits {
    /// The wall-clock limit of a stage of a call of `duration_s` (unknown while decoding).
    pub fn stage_limit(&self, duration_s: Option<f64>) -> Duration {
        let extra = duration_s.map_or(0.0, |d| (d.max(0.0) * self.per_audio_second.max(0.0)).min(1e9));
        self.base.saturating_add(Duration::from_secs_f64(extra))
    }
}

/// Stage and overall progress of the running attempt, and when it last moved.
#[derive(Debug)]
pub(crate) struct JobProgress {
    state: Mutex<State>,
    /// Set when the attempt has ended: work that still reports is no one's any more.
    abandoned: AtomicBool,
}

/// What unwinds a stage's blocking thread that reports progress after its attempt ended.
#[derive(Debug)]
pub(crate) struct AttemptAbandoned;

#[derive(Debug, Clone, Copy)]
struct State {
    stage: JobStage,
    overall: f64,
    stage_started: Instant,
    last_report: Instant,
    duration_s: Option<f64>,
}

impl Default for JobProgress {
    fn default() -> Self {
        let now = Instant::now();
        let state = State { stage: JobStage::Decoding, overall: 0.0, stage_started: now, last_report: now, duration_s: None };
        Self { state: Mutex::new(state), abandoned: AtomicBool::new(false) }
    }
}

impl JobProgress {
    /// The stage and the overall fraction done, for the job's row.
    pub(crate) fn current(&self) -> (JobStage, f64) {
        let state = self.state();
        (state.stage, state.overall)
    }

    /// Why the attempt counts as stuck at `now`, if it does: a message for a person.
    pub(crate) fn overrun(&self, limits: &StageLimits, now: Instant) -> Option<String> {
        let state = self.state();
        let stage = stage_name(state.stage);
        let limit = limits.stage_limit(state.duration_s);
        if now.saturating_duration_since(state.stage_started) > limit {
            let audio = state.duration_s.map(|d| format!(" for {} of audio", span(Duration::from_secs_f64(d.max(0.0))))).unwrap_or_default();
            return Some(format!(
                "the {stage} stage did not finish within its limit of {}{audio}; if this machine is only slow for the model, \
                 raise CALLSCOPE_STAGE_TIMEOUT_SECONDS or CALLSCOPE_STAGE_TIMEOUT_PER_AUDIO_SECOND",
                span(limit)
            ));
        }
        let reports_as_it_goes = matches!(state.stage, JobStage::Decoding | JobStage::Transcribing);
        if reports_as_it_goes && now.saturating_duration_since(state.last_report) > limits.stall {
            return Some(format!(
                "the {stage} stage reported no progress for {}; if this machine is only slow for the model, raise \
                 CALLSCOPE_STAGE_STALL_SECONDS",
                span(limits.stall)
            ));
        }
        None
    }

    /// The attempt has ended (however): a stage still running on a blocking thread (a
    /// transcription past its limit) stops at its next progress report instead of finishing
    /// for no one.
    pub(crate) fn abandon(&self) {
        self.abandoned.store(true, Ordering::Release);
    }

    fn state(&self) -> State {
        *self.state.lock().unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    fn update(&self, change: impl FnOnce(&mut State)) {
        change(&mut self.state.lock().unwrap_or_else(std::sync::PoisonError::into_inner));
    }
}

impl Progress for JobProgress {
    fn report(&self, stage: JobStage, fraction: f64) {
        if self.abandoned.load(Ordering::Acquire) {
            // Only a stage's own thread reports after its attempt ended (the attempt's async
            // work was dropped with it): unwinding ends that thread, and resume_unwind, unlike a
            // panic, prints nothing.
            std::panic::resume_unwind(Box::new(AttemptAbandoned));
        }
        let (start, end) = stage_span(stage);
        let now = Instant::now();
        self.update(|state| {
            if state.stage != stage {
                state.stage = stage;
                state.stage_started = now;
            }
            state.overall = start + (end - start) * fraction.clamp(0.0, 1.0);
            state.last_report = now;
        });
    }

    fn call_duration(&self, seconds: f64) {
        self.update(|state| state.duration_s = Some(seconds).filter(|s| s.is_finite()));
    }
}

/// Share of the whole job each stage takes, as (start, end) of overall progress.
fn stage_span(stage: JobStage) -> (f64, f64) {
    match stage {
        JobStage::Queued => (0.0, 0.0),
        JobStage::Decoding => (0.0, 0.1),
        JobStage::Transcribing => (0.1, 0.6),
        JobStage::Diarizing => (0.6, 0.7),
        JobStage::Analyzing => (0.7, 0.95),
        JobStage::Indexing => (0.95, 1.0),
        JobStage::Done => (1.0, 1.0),
    }
}

fn stage_name(stage: JobStage) -> &'static str {
    match stage {
        JobStage::Queued => "queued",
        JobStage::Decoding => "decoding",
        JobStage::Transcribing => "transcription",
        JobStage::Diarizing => "diarization",
        JobStage::Analyzing => "analysis",
        JobStage::Indexing => "indexing",
        JobStage::Done => "final",
    }
}

/// A duration as a person reads it: "45 s", "12 min", "2 h 5 min".
fn span(duration: Duration) -> String {
    let seconds = duration.as_secs_f64().round() as u64;
    match seconds {
        0..=119 => format!("{seconds} s"),
        120..=7199 => format!("{} min", seconds.div_ceil(60)),
        _ => format!("{} h {} min", seconds / 3600, (seconds % 3600) / 60),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn progress_moves_through_the_stages_in_order() {
        let progress = JobProgress::default();
        progress.report(JobStage::Decoding, 0.5);
        assert_eq!(progress.current(), (JobStage::Decoding, 0.05));
        progress.report(JobStage::Transcribing, 0.5);
        assert_eq!(progress.current(), (JobStage::Transcribing, 0.35));
        let spans: Vec<_> = [JobStage::Decoding, JobStage::Transcribing, JobStage::Diarizing, JobStage::Analyzing, JobStage::Indexing]
            .into_iter()
            .map(stage_span)
            .collect();
        assert!(spans.windows(2).all(|w| w[0].1 == w[1].0), "stages tile 0..1");
    }

    #[test]
    fn a_stage_limit_grows_with_the_call() {
        let limits = StageLimits { base: Duration::from_secs(60), per_audio_second: 2.0, stall: Duration::from_secs(600) };
        assert_eq!(limits.stage_limit(None), Duration::from_secs(60));
        assert_eq!(limits.stage_limit(Some(300.0)), Duration::from_secs(660));
        assert_eq!(limits.stage_limit(Some(f64::MAX)), Duration::from_secs(60) + Duration::from_secs_f64(1e9), "bounded, no overflow");
    }

    #[test]
    fn an_attempt_overruns_past_its_stage_limit_or_when_it_stops_reporting() {
        let limits = StageLimits { base: Duration::from_secs(60), per_audio_second: 1.0, stall: Duration::from_secs(30) };
        let progress = JobProgress::default();
        let start = Instant::now();
        progress.call_duration(120.0);
        progress.report(JobStage::Transcribing, 0.0);
        assert_eq!(progress.overrun(&limits, start + Duration::from_secs(20)), None);

        // Reporting keeps it alive, but not past the stage's limit of 60 + 120 s.
        let stalled = progress.overrun(&limits, start + Duration::from_secs(40)).expect("no report for 40 s");
        assert!(stalled.contains("transcription stage reported no progress for 30 s"), "{stalled}");
        assert!(stalled.contains("CALLSCOPE_STAGE_STALL_SECONDS"), "{stalled}");
        progress.report(JobStage::Transcribing, 0.5);
        assert_eq!(progress.overrun(&limits, Instant::now() + Duration::from_secs(20)), None);
        let overran = progress.overrun(&limits, Instant::now() + Duration::from_secs(181)).expect("past 180 s");
        assert!(overran.contains("did not finish within its limit of 3 min for 2 min of audio"), "{overran}");

        // A new stage starts its own clock; analysis, which reports only at its end, is held to
        // its wall-clock limit alone.
        progress.report(JobStage::Analyzing, 0.0);
        assert_eq!(progress.overrun(&limits, Instant::now() + Duration::from_secs(20)), None);
        assert_eq!(progress.overrun(&limits, Instant::now() + Duration::from_secs(170)), None, "no stall for analysis");
        assert!(progress.overrun(&limits, Instant::now() + Duration::from_secs(181)).is_some(), "but a limit");
    }
}
