//! Whether the workers a process should run are alive, for its readiness probe: a process
//! meant to process calls that has no worker left is not ready, whatever its database says.

use std::sync::atomic::{AtomicUsize, Ordering};

/// How many of a process's workers are running, out of how many it should run.
#[derive(Debug, Default)]
pub struct WorkerHealth {
    expected: usize,
    alive: AtomicUsize,
}

impl WorkerHealth {
    /// Health of a process that should run `expected` workers, none started yet.
    pub fn new(expected: usize) -> Self {
        Self { expected, alive: AtomicUsize::new(0) }
    }

    /// A worker started (or was restarted).
    pub fn started(&self) {
        self.alive.fetch_add(1, Ordering::SeqCst);
    }

    /// A worker's task ended, by a stop or a panic.
    pub fn stopped(&self) {
        let _ = self.alive.fetch_update(Ordering::SeqCst, Ordering::SeqCst, |n| n.checked_sub(1));
    }

    /// Workers running now.
    pub fn alive(&self) -> usize {
        self.alive.load(Ordering::SeqCst)
    }

    /// Workers the process should run.
    pub fn expected(&self) -> usize {
        self.expected
    }

    /// Whether jobs can be processed here: at least one worker runs, or none should.
    pub fn ready(&self) -> bool {
        self.expected == 0 || self.alive() > 0
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_process_is_ready_while_one_of_its_workers_lives() {
        let health = WorkerHealth::new(2);
        assert!(!health.ready(), "none started yet");
        health.started();
        health.started();
        health.stopped();
        assert_eq!((health.alive(), health.ready()), (1, true));
        health.stopped();
        health.stopped();
        assert_eq!((health.alive(), health.ready()), (0, false), "never below zero");
        assert!(WorkerHealth::new(0).ready(), "a process without workers needs none");
    }
}
