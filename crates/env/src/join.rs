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

/// Awaits the output of a spawned task.
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

/// Wraps `future` so its output goes to the returned handle.
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
