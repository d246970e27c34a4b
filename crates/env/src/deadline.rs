//! Racing a future against a point in (virtual or real) time.

use std::future::Future;
use std::pin::pin;
use std::task::Poll;

use crate::Env;

/// Runs `f` until it finishes or the environment's clock reaches `deadline_ns`, whichever is
/// first: `Some(output)` if `f` finished, `None` if time ran out (`f` is dropped, as a task is
/// when the power goes).
pub async fn until<E: Env, F: Future>(env: &E, deadline_ns: u64, f: F) -> Option<F::Output> {
    let mut f = pin!(f);
    let mut t = pin!(env.sleep_until(deadline_ns));
    std::future::poll_fn(|cx| {
        if let Poll::Ready(v) = f.as_mut().poll(cx) {
            Poll::Ready(Some(v))
        } else if t.as_mut().poll(cx).is_ready() {
            Poll::Ready(None)
        } else {
            Poll::Pending
        }
    })
    .await
}
