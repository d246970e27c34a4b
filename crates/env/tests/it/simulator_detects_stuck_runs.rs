//! The simulator reports deadlocks and zero-time livelocks as errors naming the tasks involved,
//! instead of hanging.
#![allow(clippy::unwrap_used, reason = "tests fail loudly")]

use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll};

use tokio::sync::Notify;
use zonedb_env::{Env, SimConfig, SimEnv, SimError};

#[test]
fn a_task_waiting_for_a_notification_that_never_comes_is_a_deadlock() {
    let sim = SimEnv::new(SimConfig::default());
    let n = Arc::new(Notify::new());
    let n2 = n.clone();
    let env = sim.clone();
    let err = sim
        .run(async move {
            let h = env.spawn("waits-forever", async move { n2.notified().await });
            env.sleep(5).await;
            h.await.ok();
        })
        .unwrap_err();
    assert!(err.to_string().contains("waits-forever"), "{err}");
    match err {
        SimError::Deadlock {
            now_ns,
            stuck_tasks,
        } => {
            assert_eq!(now_ns, 5);
            assert!(
                stuck_tasks.iter().any(|t| t == "waits-forever"),
                "{stuck_tasks:?}"
            );
        }
        e => panic!("expected deadlock, got {e}"),
    }
    drop(n);
}

/// Wakes itself and stays pending forever, without time advancing.
struct Spin;

impl Future for Spin {
    type Output = ();
    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<()> {
        cx.waker().wake_by_ref();
        Poll::Pending
    }
}

#[test]
fn a_task_spinning_at_one_instant_is_a_livelock() {
    let sim = SimEnv::new(SimConfig {
        livelock_poll_limit: 10_000,
        ..SimConfig::default()
    });
    let env = sim.clone();
    let err = sim
        .run(async move {
            env.spawn("spinner", Spin);
            env.sleep(1_000).await;
        })
        .unwrap_err();
    assert!(err.to_string().contains("spinner"), "{err}");
    match err {
        SimError::Livelock {
            busiest_tasks,
            polls,
            now_ns,
        } => {
            assert_eq!(now_ns, 0);
            assert_eq!(polls, 10_000);
            assert!(busiest_tasks[0].starts_with("spinner"), "{busiest_tasks:?}");
        }
        e => panic!("expected livelock, got {e}"),
    }
}
