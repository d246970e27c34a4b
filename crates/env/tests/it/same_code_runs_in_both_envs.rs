//! The same generic async code runs under the simulator and on real threads, with the same
//! logical result; the simulator's clock is exact to the nanosecond.
#![allow(clippy::unwrap_used, reason = "tests fail loudly")]

use std::sync::Arc;

use tokio::sync::{Mutex, Notify, mpsc, watch};
use zonedb_env::{Env, RealEnv, SimConfig, SimEnv};

/// Spawns producers that sleep and do CPU work, a consumer that sums what they send, and a
/// notifier; returns the sum and the order in which producers finished.
async fn scenario<E: Env>(env: E, unit_ns: u64) -> (u64, Vec<u64>) {
    let (tx, mut rx) = mpsc::channel::<u64>(4);
    let finished = Arc::new(Mutex::new(Vec::new()));
    let done = Arc::new(Notify::new());
    // Whose turn it is to finish. The sleeps alone give the order 3, 2, 1, 0 in simulation,
    // but real threads on a loaded machine can wake milliseconds late: the baton makes the
    // logical result independent of OS scheduling.
    let turn = Arc::new(watch::Sender::new(3u64));
    let mut handles = Vec::new();
    for i in 0..4u64 {
        let (env2, tx, finished, turn) = (env.clone(), tx.clone(), finished.clone(), turn.clone());
        handles.push(env.spawn(&format!("producer-{i}"), async move {
            // Producer i wakes after (4 - i) units: producer 3 first.
            env2.sleep((4 - i) * unit_ns).await;
            assert!(env2.now() >= (4 - i) * unit_ns);
            env2.cpu(17).await;
            tx.send(i * 10).await.expect("consumer alive");
            drop(
                turn.subscribe()
                    .wait_for(|&t| t == i)
                    .await
                    .expect("baton alive"),
            );
            finished.lock().await.push(i);
            turn.send_replace(i.wrapping_sub(1));
            i
        }));
    }
    drop(tx);
    let done2 = done.clone();
    let consumer = env.spawn("consumer", async move {
        let mut sum = 0;
        while let Some(v) = rx.recv().await {
            sum += v;
        }
        done2.notify_one();
        sum
    });
    let mut ids = 0;
    for h in handles {
        ids += h.await.expect("producer finished");
    }
    done.notified().await;
    let sum = consumer.await.expect("consumer finished");
    assert_eq!(ids, 6);
    let order = finished.lock().await.clone();
    (sum, order)
}

#[test]
fn scenario_gives_the_same_result_in_simulation_and_for_real() {
    let sim = SimEnv::new(SimConfig::with_seed(3));
    let (sum_sim, order_sim) = sim.run(scenario(sim.clone(), 1_000_000)).unwrap();
    // 4 units of 1 ms, then 17 ns of CPU on a free core: exact to the nanosecond.
    assert_eq!(sim.now(), 4_000_017);
    let real = RealEnv::new(3);
    let (sum_real, order_real) = real.block_on(scenario(real.clone(), 5_000_000));
    assert_eq!(sum_sim, 60);
    assert_eq!(sum_real, 60);
    assert_eq!(order_sim, vec![3, 2, 1, 0]);
    assert_eq!(order_real, vec![3, 2, 1, 0]);
    assert!(real.now() >= 20_000_000);
}

#[test]
fn real_env_join_handle_reports_a_panicked_task() {
    let real = RealEnv::new(0);
    let h = real.spawn("doomed", async { panic!("boom") });
    let err = real.block_on(h).unwrap_err();
    assert_eq!(err.task, "doomed");
}

#[test]
fn real_env_sleeps_do_not_block_other_futures_of_the_task() {
    let real = RealEnv::new(0);
    let r2 = real.clone();
    let elapsed = real.block_on(async move {
        let t0 = r2.now();
        let a = r2.sleep(50_000_000);
        let b = r2.sleep(50_000_000);
        // Joined by hand: both sleeps overlap, total about 50 ms, not 100.
        let (mut a, mut b) = (Box::pin(a), Box::pin(b));
        std::future::poll_fn(|cx| {
            let ra = a.as_mut().poll(cx).is_ready();
            let rb = b.as_mut().poll(cx).is_ready();
            if ra && rb {
                std::task::Poll::Ready(())
            } else {
                std::task::Poll::Pending
            }
        })
        .await;
        r2.now() - t0
    });
    assert!((50_000_000..95_000_000).contains(&elapsed), "{elapsed}");
}
