//! Workers that die are started again. A stage's panic is already caught as a failed attempt;
//! this is the net under everything else (recording an outcome, taking a job), so that one fault
//! never leaves a process with no one to process its queue.

use std::future::Future;
use std::sync::Arc;
use std::time::{Duration, Instant};

pub use callscope_domain::WorkerHealth;
use tokio::sync::watch;
use tokio::task::JoinHandle;

use crate::{panic_message, Worker};

/// Longest wait before a worker that keeps dying is started again.
const MAX_RESTART_DELAY: Duration = Duration::from_secs(60);
/// A worker that ran this long before dying starts again at once: its fault was not at start.
const STEADY_RUN: Duration = Duration::from_secs(300);

/// Runs each worker on its own task until `stop` turns true, starting it again when its task
/// dies; `health` counts the ones running. The handles end when the workers have stopped.
pub fn spawn_supervised(workers: Vec<Worker>, health: Arc<WorkerHealth>, stop: watch::Receiver<bool>) -> Vec<JoinHandle<()>> {
    workers
        .into_iter()
        .map(|worker| {
            let worker = Arc::new(worker);
            let name = worker.id().to_owned();
            tokio::spawn(keep_running(name, health.clone(), stop.clone(), move |stop| {
                let worker = worker.clone();
                async move { worker.run(stop).await }
            }))
        })
        .collect()
}

/// Runs `run` on a task of its own, again each time it panics, until it returns or `stop`
/// turns true.
async fn keep_running<F, Fut>(name: String, health: Arc<WorkerHealth>, mut stop: watch::Receiver<bool>, run: F)
where
    F: Fn(watch::Receiver<bool>) -> Fut,
    Fut: Future<Output = ()> + Send + 'static,
{
    let mut quick_deaths = 0u32;
    loop {
        let started = Instant::now();
        health.started();
        let ended = tokio::spawn(run(stop.clone())).await;
        health.stopped();
        let Err(error) = ended else { return };
        if !error.is_panic() || *stop.borrow() {
            return;
        }
        let message = panic_message(error.into_panic().as_ref());
        quick_deaths = if started.elapsed() >= STEADY_RUN { 1 } else { quick_deaths + 1 };
        let delay = restart_delay(quick_deaths);
        tracing::error!(worker = %name, panic = %message, restart_in_s = delay.as_secs_f64(), "worker died; restarting it");
        tokio::select! {
            () = tokio::time::sleep(delay) => {}
            _ = stop.wait_for(|stopped| *stopped) => return,
        }
    }
}

/// No wait after a first death; then doubling from one second, up to a minute.
fn restart_delay(quick_deaths: u32) -> Duration {
    match quick_deaths {
        0 | 1 => Duration::ZERO,
        n => Duration::from_secs(1u64 << (n - 2).min(6)).min(MAX_RESTART_DELAY),
    }
}

#[cfg(test)]
mod tests {
    use std::sync::atomic::{AtomicU32, Ordering};

    use super::*;

    #[test]
    fn restarts_slow_down_for_a_worker_that_keeps_dying() {
        let delays: Vec<u64> = (1..=10).map(|n| restart_delay(n).as_secs()).collect();
        assert_eq!(delays, [0, 1, 2, 4, 8, 16, 32, 60, 60, 60]);
    }

    #[tokio::test]
    async fn a_worker_that_dies_is_started_again_and_counted_alive_while_it_runs() {
        let health = Arc::new(WorkerHealth::new(1));
        let (stop_tx, stop) = watch::channel(false);
        let starts = Arc::new(AtomicU32::new(0));
        let supervisor = tokio::spawn(keep_running("w".into(), health.clone(), stop, {
            let starts = starts.clone();
            move |mut stop: watch::Receiver<bool>| {
                let start = starts.fetch_add(1, Ordering::SeqCst) + 1;
                async move {
                    assert!(start > 1, "the first run dies");
                    let _ = stop.wait_for(|stopped| *stopped).await;
                }
            }
        }));
        for _ in 0..200 {
            if starts.load(Ordering::SeqCst) == 2 {
                break;
            }
            tokio::time::sleep(Duration::from_millis(10)).await;
        }
        assert_eq!(starts.load(Ordering::SeqCst), 2, "started again after its panic");
        assert_eq!((health.alive(), health.ready()), (1, true));
        stop_tx.send(true).unwrap();
        supervisor.await.unwrap();
        assert_eq!((starts.load(Ordering::SeqCst), health.alive(), health.ready()), (2, 0, false), "a stopped worker is not restarted");
    }
}
