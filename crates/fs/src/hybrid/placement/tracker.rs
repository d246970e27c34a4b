//! What hybrid schemes learn from the engine's hints: each live SST's level and device, and
//! HHZS's storage demand per level (§3.3 step 1): a compaction's trigger adds its number of
//! selected inputs to its output level, each SST it generates takes one off, and its end takes
//! off what is left (selected minus generated).

use std::collections::BTreeMap;

use zonedb_device::Tier;

use crate::hints::{FileKindHint, Hint};

/// Levels tracked (RocksDB's default `num_levels` is 7; deeper levels count as the last).
pub const LEVELS: usize = 8;

/// One live SST.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SstInfo {
    /// Its level (changed by trivial moves).
    pub level: u32,
    /// The device its first zone is on (`None` until placed).
    pub tier: Option<Tier>,
    /// Bytes.
    pub size: u64,
    /// When it was placed, ns (its age for read rates).
    pub created_ns: u64,
}

/// A compaction that has not finished: its output level and the demand it still holds.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Running {
    output_level: u32,
    demand: u64,
}

/// SSTs and demand, from hints.
#[derive(Debug, Clone, Default)]
pub struct Tracker {
    ssts: BTreeMap<u64, SstInfo>,
    running: BTreeMap<u64, Running>,
    demand: [u64; LEVELS],
    /// Files being compacted (never migrated).
    compacting: BTreeMap<u64, u64>,
}

fn slot(level: u32) -> usize {
    (level as usize).min(LEVELS - 1)
}

impl Tracker {
    /// Takes one hint.
    pub fn on_hint(&mut self, hint: &Hint) {
        match hint {
            Hint::FileCreated {
                number,
                kind: FileKindHint::Sst,
                level,
                size,
                job,
                ..
            } => {
                let level = level.unwrap_or(0);
                self.ssts.entry(*number).or_insert(SstInfo {
                    level,
                    tier: None,
                    size: *size,
                    created_ns: 0,
                });
                if let Some(r) = self.running.get_mut(job)
                    && r.demand > 0
                {
                    r.demand -= 1;
                    let d = &mut self.demand[slot(r.output_level)];
                    *d = d.saturating_sub(1);
                }
            }
            Hint::FileDeleted { number } => {
                self.ssts.remove(number);
            }
            Hint::CompactionStarted {
                job,
                output_level,
                inputs,
                trivial_move,
                ..
            } => {
                for f in inputs.iter().flat_map(|l| &l.files) {
                    self.compacting.insert(*f, *job);
                }
                if !trivial_move {
                    let selected: u64 = inputs.iter().map(|l| l.files.len() as u64).sum();
                    self.demand[slot(*output_level)] += selected;
                    self.running.insert(
                        *job,
                        Running {
                            output_level: *output_level,
                            demand: selected,
                        },
                    );
                }
            }
            Hint::CompactionFinished {
                job,
                inputs,
                outputs,
            } => {
                if let Some(r) = self.running.remove(job) {
                    let d = &mut self.demand[slot(r.output_level)];
                    *d = d.saturating_sub(r.demand);
                }
                for f in inputs.iter().flat_map(|l| &l.files) {
                    self.compacting.remove(f);
                }
                for l in outputs {
                    for f in &l.files {
                        if let Some(s) = self.ssts.get_mut(f) {
                            s.level = l.level;
                        }
                    }
                }
            }
            _ => {}
        }
    }

    /// Records where an SST went, at `now_ns`.
    pub fn placed(&mut self, number: u64, level: u32, tier: Tier, now_ns: u64) {
        let s = self.ssts.entry(number).or_insert(SstInfo {
            level,
            tier: None,
            size: 0,
            created_ns: now_ns,
        });
        if s.tier.is_none() {
            s.tier = Some(tier);
            s.created_ns = now_ns;
        }
    }

    /// Moves an SST to another device (migration).
    pub fn moved(&mut self, number: u64, tier: Tier) {
        if let Some(s) = self.ssts.get_mut(&number) {
            s.tier = Some(tier);
        }
    }

    /// Storage demand of each level, in SSTs.
    pub fn demand(&self) -> [u64; LEVELS] {
        self.demand
    }

    /// SSTs of each level on `tier`.
    pub fn count_on(&self, tier: Tier) -> [u64; LEVELS] {
        let mut out = [0; LEVELS];
        for s in self.ssts.values().filter(|s| s.tier == Some(tier)) {
            out[slot(s.level)] += 1;
        }
        out
    }

    /// Live SSTs.
    pub fn ssts(&self) -> &BTreeMap<u64, SstInfo> {
        &self.ssts
    }

    /// Whether a running compaction selected `number`.
    pub fn is_compacting(&self, number: u64) -> bool {
        self.compacting.contains_key(&number)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::hints::LevelFiles;
    use crate::placement::policy::Lifetime;

    fn created(number: u64, level: u32, job: u64) -> Hint {
        Hint::FileCreated {
            number,
            kind: FileKindHint::Sst,
            level: Some(level),
            smallest: Vec::new(),
            largest: Vec::new(),
            size: 100,
            lifetime: Lifetime::Medium,
            job,
        }
    }

    #[test]
    fn demand_follows_the_three_compaction_phases() {
        let mut t = Tracker::default();
        t.on_hint(&Hint::CompactionStarted {
            job: 7,
            start_level: 1,
            output_level: 2,
            inputs: vec![
                LevelFiles {
                    level: 1,
                    files: vec![1],
                },
                LevelFiles {
                    level: 2,
                    files: vec![2, 3],
                },
            ],
            trivial_move: false,
        });
        assert_eq!(t.demand()[2], 3, "trigger adds the selected inputs");
        t.on_hint(&created(10, 2, 7));
        assert_eq!(t.demand()[2], 2, "each generated SST takes one off");
        assert!(t.is_compacting(2));
        t.on_hint(&created(11, 2, 7));
        t.on_hint(&Hint::CompactionFinished {
            job: 7,
            inputs: vec![],
            outputs: vec![LevelFiles {
                level: 2,
                files: vec![10, 11],
            }],
        });
        assert_eq!(
            t.demand()[2],
            0,
            "the end takes off selected minus generated"
        );
        assert_eq!(t.ssts()[&10].level, 2);
    }

    #[test]
    fn trivial_moves_change_levels_without_demand() {
        let mut t = Tracker::default();
        t.on_hint(&created(5, 0, 1));
        t.placed(5, 0, Tier::Ssd, 0);
        t.on_hint(&Hint::CompactionStarted {
            job: 2,
            start_level: 0,
            output_level: 1,
            inputs: vec![LevelFiles {
                level: 0,
                files: vec![5],
            }],
            trivial_move: true,
        });
        assert_eq!(t.demand(), [0; LEVELS]);
        t.on_hint(&Hint::CompactionFinished {
            job: 2,
            inputs: vec![],
            outputs: vec![LevelFiles {
                level: 1,
                files: vec![5],
            }],
        });
        assert_eq!(t.count_on(Tier::Ssd)[1], 1);
        t.on_hint(&Hint::FileDeleted { number: 5 });
        assert_eq!(t.count_on(Tier::Ssd), [0; LEVELS]);
    }
}
