//! Completions several waiters share under the per-die priority scheduler. The scheduler
//! forgets a request once one poll saw it done; the ring's units (flushed by the request of the
//! write that found the ring full) and the readers of a preread buffer ask about the same
//! request later, so its completion time is kept here while anything refers to it.

use std::collections::BTreeMap;

use crate::sim::{Completion, Ticket};

/// Shared requests: references held and the completion once known.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct SharedTickets {
    map: BTreeMap<u64, (u32, Option<u64>)>,
}

impl SharedTickets {
    /// One more reference to `c` (nothing to keep for a completion known already).
    pub fn hold(&mut self, c: Completion) {
        if let Completion::Queued(t) = c {
            self.map.entry(t.0).or_insert((0, None)).0 += 1;
        }
    }

    /// One reference fewer; returns the ticket if nothing refers to it any more and it never
    /// completed (the engine may forget it).
    pub fn release(&mut self, c: Completion) -> Option<Ticket> {
        let Completion::Queued(t) = c else {
            return None;
        };
        let e = self.map.get_mut(&t.0)?;
        e.0 = e.0.saturating_sub(1);
        if e.0 > 0 {
            return None;
        }
        let done = e.1;
        self.map.remove(&t.0);
        done.is_none().then_some(t)
    }

    /// Records that `t` completes at `at` (if anything refers to it).
    pub fn record(&mut self, t: Ticket, at: u64) {
        if let Some(e) = self.map.get_mut(&t.0) {
            e.1 = Some(at);
        }
    }

    /// When a held request completes, if known.
    pub fn done_at(&self, c: Completion) -> Option<u64> {
        match c {
            Completion::At(t) => Some(t),
            Completion::Queued(t) => self.map.get(&t.0).and_then(|e| e.1),
        }
    }

    /// Whether `t` is held.
    pub fn holds(&self, t: Ticket) -> bool {
        self.map.contains_key(&t.0)
    }

    /// A power loss dropped every queued request: forgets those not known complete and
    /// returns them.
    pub fn drop_pending(&mut self) -> Vec<Ticket> {
        let pending: Vec<u64> = self
            .map
            .iter()
            .filter(|(_, e)| e.1.is_none())
            .map(|(t, _)| *t)
            .collect();
        for t in &pending {
            self.map.remove(t);
        }
        pending.into_iter().map(Ticket).collect()
    }
}
