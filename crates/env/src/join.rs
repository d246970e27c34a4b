//! Join handles shared by both environments.

use std::future::Future;
use std::pin::Pin;
use std::task::{Context, Poll};

use tokio::sync::oneshot;

/// The task ended without producing its output (it panicked, or was dropped unfinished).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("task '{task}' ended without finishing (panicked or dropped)")]
pub struct JoinError {
    /// Name of the task.
    pub task: String,
}

/// Awaits the output of a spawned task. Dropping the handle detaches the task (it keeps
/// running); awaiting it after the task panicked or was dropped gives a [`JoinError`].
#[derive(Debug)]
pub struct JoinHandle<T> {
    rx: oneshot::Receiver<T>,
    name: String,
}

impl<T> Future for JoinHandle<T> {
    type Output = Result<T, JoinError>;

    fn poll(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Self::Output> {
        match Pin::new(&mut self.rx).poll(cx) {
            Poll::Ready(Ok(v)) => Poll::Ready(Ok(v)),
            Poll::Ready(Err(_)) => Poll::Ready(Err(JoinError {
                task: self.name.clone(),
            })),
            Poll::Pending => Poll::Pending,
        }
    }
}

impl<T> JoinHandle<T> {
    /// Name of the task.
    pub fn name(&self) -> &str {
        &self.name
    }
}

/// Wraps `future` so its output goes to the returned handle. If the returned task is dropped
/// unfinished (or panics), the handle reports a [`JoinError`].
pub(crate) fn task_with_handle<F, T>(
    name: &str,
    future: F,
) -> (impl Future<Output = ()> + Send + 'static, JoinHandle<T>)
where
    F: Future<Output = T> + Send + 'static,
    T: Send + 'static,
{
    let (tx, rx) = oneshot::channel();
    let task = async move {
        let v = future.await;
        let _ = tx.send(v);
    };
    (
        task,
        JoinHandle {
            rx,
            name: name.to_owned(),
        },
    )
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, reason = "tests fail loudly")]

    use crate::{Env, JoinError, SimConfig, SimEnv};

    fn assert_send<T: Send>(_: &T) {}

    #[test]
    fn a_task_killed_before_finishing_gives_a_join_error() {
        let sim = SimEnv::new(SimConfig::default());
        let env = sim.clone();
        let h = sim
            .run(async move {
                let e = env.clone();
                let h = env.spawn("sleepy", async move { e.sleep(1_000).await });
                assert_send(&h);
                assert_eq!(h.name(), "sleepy");
                env.sleep(1).await;
                Some(h) // (wrapped: a future that yields a future reads like a missing await)
            })
            .unwrap()
            .unwrap();
        sim.kill_all_tasks();
        let err = sim.run(h).unwrap();
        assert_eq!(
            err,
            Err(JoinError {
                task: "sleepy".to_owned()
            })
        );
        assert!(err.unwrap_err().to_string().contains("sleepy"));
    }
}
