#![allow(clippy::disallowed_methods)]
use zonedb_env::{Env, SimConfig, SimEnv};
fn main() {
    for shuffle in [false, true] {
        let sim = SimEnv::new(SimConfig {
            shuffle_same_instant: shuffle,
            ..SimConfig::default()
        });
        let env = sim.clone();
        let t = std::time::Instant::now();
        let n_tasks = 1000u64;
        let iters = 2000u64;
        sim.run(async move {
            let mut hs = Vec::new();
            for i in 0..n_tasks {
                let e = env.clone();
                hs.push(env.spawn("t", async move {
                    for k in 0..iters {
                        e.sleep(1 + (i * 7 + k) % 13).await;
                    }
                }));
            }
            for h in hs {
                h.await.unwrap();
            }
        })
        .unwrap();
        let el = t.elapsed();
        println!(
            "shuffle={shuffle} sleeps {} polls {} in {:?}: {:.1} M polls/s",
            n_tasks * iters,
            sim.tasks_polled(),
            el,
            sim.tasks_polled() as f64 / el.as_secs_f64() / 1e6
        );
        // spawn-heavy
        let sim = SimEnv::new(SimConfig::default());
        let env = sim.clone();
        let t = std::time::Instant::now();
        sim.run(async move {
            for _ in 0..1000 {
                let mut hs = Vec::new();
                for _ in 0..1000 {
                    let e = env.clone();
                    hs.push(env.spawn("s", async move {
                        e.sleep(5).await;
                    }));
                }
                for h in hs {
                    h.await.unwrap();
                }
            }
        })
        .unwrap();
        println!("spawn 1M tasks: {:?}", t.elapsed());
    }
}
