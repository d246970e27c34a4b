//! How a simulated SSD queues the work waiting for its dies: a queueing discipline
//! ([`Queueing`]: FIFO in issue order, or work-conserving per-die queues) and an order within
//! it (issue order, query reads first, or the class order), the two together a [`Scheduler`].
//! FIFO in issue order is booked at issue ([`super::Resource`], the default); every other
//! scheduler keeps per-die queues served in virtual time ([`DieQueues`]).

use std::collections::BTreeMap;

use super::timing::link_transfer;
use super::{FinishModel, Place, ResetAck, Resource, TimingEngine};
use crate::IoClass;
use crate::sim::{Completion, Poll, Ticket};

/// How die work waits for its die: the queueing discipline (`[device] queueing`). A study
/// gives every scheme the same one; SplitZNS's Read Scheduler only adds an order within it
/// ([`Scheduler::query_first`]).
#[derive(
    Debug,
    Clone,
    Copy,
    PartialEq,
    Eq,
    PartialOrd,
    Ord,
    Hash,
    Default,
    serde::Serialize,
    serde::Deserialize,
)]
#[serde(rename_all = "kebab-case")]
pub enum Queueing {
    /// FIFO in issue order: a die starts its operations in the order they were issued, each
    /// once its data is ready, and waits for it meanwhile even if a later operation is ready
    /// (the open emulators' "next available time" per chip, reserved when a request is
    /// submitted). Without an order over it, each operation and its channel and link
    /// transfers are booked at issue.
    #[default]
    Fifo,
    /// Work-conserving per-die queues: when a die frees it serves, of the operations that are
    /// ready, the first issued (unless an order ranks them); channel and link transfers are
    /// booked when the die work before them is done.
    PerDie,
}

impl Queueing {
    /// The discipline called `name` (`fifo`, `per-die`).
    ///
    /// # Errors
    /// [`crate::DeviceError::InvalidConfig`] naming the known ones.
    pub fn by_name(name: &str) -> Result<Self, crate::DeviceError> {
        match name {
            "fifo" => Ok(Self::Fifo),
            "per-die" => Ok(Self::PerDie),
            _ => Err(crate::DeviceError::InvalidConfig(format!(
                "unknown queueing '{name}'; known: fifo, per-die"
            ))),
        }
    }

    /// Its name (`fifo`, `per-die`).
    pub fn name(self) -> &'static str {
        match self {
            Self::Fifo => "fifo",
            Self::PerDie => "per-die",
        }
    }
}

/// Which waiting operation of a die goes first, within its queueing discipline.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Order {
    /// Issue order.
    Issue,
    /// Query reads first, the rest in issue order.
    QueryFirst,
    /// Query reads, then background reads, then programs, then erases ([`IoClass`] order).
    Class,
}

/// The order queued die work is served in: a [`Queueing`] discipline and an order within it.
/// Serialized in a [`crate::Profile`] only when it is not FIFO.
#[derive(
    Debug,
    Clone,
    Copy,
    PartialEq,
    Eq,
    PartialOrd,
    Ord,
    Hash,
    Default,
    serde::Serialize,
    serde::Deserialize,
)]
#[serde(rename_all = "kebab-case")]
pub enum Scheduler {
    /// First come, first served: each operation is booked on its die when the request is
    /// issued ([`Queueing::Fifo`] in issue order).
    #[default]
    Fifo,
    /// Per-die queues: when a die frees, the waiting operation of the highest class is served
    /// next (query reads, then background reads, then programs, then erases).
    Priority,
    /// Per-die queues with query reads first and everything else in issue order: SplitZNS's
    /// Read Scheduler as its text states it ("assigns query requests the highest priority")
    /// on work-conserving per-die queues, without ranking background reads over programs over
    /// erases.
    QueryFirst,
    /// Per-die queues in issue order ([`Queueing::PerDie`] with no ranking): a die that frees
    /// serves the first issued of the operations that are ready.
    PerDie,
    /// FIFO in issue order with query reads placed before every operation not yet started
    /// (SplitZNS's Read Scheduler on [`Queueing::Fifo`]): per-rank FIFO queues, a die waiting
    /// for the first issued operation of its best rank whose data is ready. Dies start
    /// everything else in the order [`Scheduler::Fifo`] books it, but being queues, they book
    /// a read's channel and link transfers when its die work is done instead of reserving them
    /// at issue; so, unlike on per-die queues, turning the order on changes more than the
    /// order (work booked at issue cannot be reordered).
    FifoQueryFirst,
    /// FIFO in issue order within each class, the classes in [`IoClass`] order; transfers as
    /// [`Scheduler::FifoQueryFirst`] books them.
    FifoPriority,
}

impl Scheduler {
    fn parts(self) -> (Queueing, Order) {
        match self {
            Self::Fifo => (Queueing::Fifo, Order::Issue),
            Self::FifoQueryFirst => (Queueing::Fifo, Order::QueryFirst),
            Self::FifoPriority => (Queueing::Fifo, Order::Class),
            Self::PerDie => (Queueing::PerDie, Order::Issue),
            Self::QueryFirst => (Queueing::PerDie, Order::QueryFirst),
            Self::Priority => (Queueing::PerDie, Order::Class),
        }
    }

    fn of(queueing: Queueing, order: Order) -> Self {
        match (queueing, order) {
            (Queueing::Fifo, Order::Issue) => Self::Fifo,
            (Queueing::Fifo, Order::QueryFirst) => Self::FifoQueryFirst,
            (Queueing::Fifo, Order::Class) => Self::FifoPriority,
            (Queueing::PerDie, Order::Issue) => Self::PerDie,
            (Queueing::PerDie, Order::QueryFirst) => Self::QueryFirst,
            (Queueing::PerDie, Order::Class) => Self::Priority,
        }
    }

    /// Whether this is FIFO booking at issue (the default, left out of serialized profiles).
    #[allow(
        clippy::trivially_copy_pass_by_ref,
        reason = "serde's skip_serializing_if signature"
    )]
    pub fn is_fifo(&self) -> bool {
        *self == Self::Fifo
    }

    /// Its queueing discipline.
    pub fn queueing(self) -> Queueing {
        self.parts().0
    }

    /// The same order within the discipline `queueing`.
    #[must_use]
    pub fn with_queueing(self, queueing: Queueing) -> Self {
        Self::of(queueing, self.parts().1)
    }

    /// With query reads first within the same queueing (what SplitZNS's Read Scheduler adds):
    /// issue order becomes query-first; an order that already serves queries first is kept.
    #[must_use]
    pub fn query_first(self) -> Self {
        match self.parts() {
            (q, Order::Issue) => Self::of(q, Order::QueryFirst),
            _ => self,
        }
    }

    /// Its name (`fifo`, `priority`, `query-first`, `per-die`, `fifo-query-first`,
    /// `fifo-priority`).
    pub fn name(self) -> &'static str {
        match self {
            Self::Fifo => "fifo",
            Self::Priority => "priority",
            Self::QueryFirst => "query-first",
            Self::PerDie => "per-die",
            Self::FifoQueryFirst => "fifo-query-first",
            Self::FifoPriority => "fifo-priority",
        }
    }

    /// Every scheduler, in the order help texts and errors list them.
    pub const ALL: [Scheduler; 6] = [
        Scheduler::Fifo,
        Scheduler::Priority,
        Scheduler::QueryFirst,
        Scheduler::PerDie,
        Scheduler::FifoQueryFirst,
        Scheduler::FifoPriority,
    ];

    /// The names [`Scheduler::by_name`] accepts, in [`Scheduler::ALL`] order.
    pub fn names() -> [&'static str; 6] {
        Self::ALL.map(Scheduler::name)
    }

    /// The scheduler called `name` (see [`Scheduler::name`]).
    ///
    /// # Errors
    /// [`crate::DeviceError::InvalidConfig`] naming the known ones.
    pub fn by_name(name: &str) -> Result<Self, crate::DeviceError> {
        Self::ALL
            .into_iter()
            .find(|s| s.name() == name)
            .ok_or_else(|| {
                crate::DeviceError::InvalidConfig(format!(
                    "unknown scheduler '{name}'; known: {}",
                    Self::names().join(", ")
                ))
            })
    }
}

/// One die operation waiting for its die.
#[derive(Debug, Clone)]
struct Op {
    /// Earliest start (its data is on the die, or its command decoded).
    ready: u64,
    class: IoClass,
    /// Issue order, to break ties between equal classes.
    seq: u64,
    duration: u64,
    ticket: u64,
    /// Channel transfers that follow the operation (a read's pages to the controller).
    channel: u32,
    transfers: Vec<u64>,
}

/// What completes a request once all its die operations are done.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Tail {
    /// The host link transfer of this many bytes (reads; [`link_transfer`]).
    Link(u64),
    /// Nothing more.
    Nothing,
    /// Nobody waits for it (a reset acknowledged at once): forgotten when its operations are
    /// done.
    Detached,
}

#[derive(Debug, Clone)]
struct Request {
    ops_left: u32,
    /// Completion so far (the latest operation end, or the request's own floor).
    done: u64,
    tail: Tail,
}

/// Per-die queues of every scheduler but FIFO booking. Operations wait here until their die
/// frees; then the die picks the next as its [`Scheduler`] says: work-conserving
/// ([`Queueing::PerDie`]), the ready operation of the best rank (issue order within a rank);
/// FIFO ([`Queueing::Fifo`]), the first issued operation of the best rank whose data is ready,
/// the die waiting for it. Ranks: none (issue order), query reads first, or the [`IoClass`]
/// order (query reads, background reads, writes, erases). Decisions are taken lazily, in
/// virtual-time order, whenever a waiting request polls (see [`crate::sim::Media::poll`]): a
/// die that frees at `t` serves what is queued at `t`.
#[derive(Debug, Clone)]
pub struct DieQueues {
    scheduler: Scheduler,
    /// How operations are ranked (from `scheduler`).
    order: Order,
    /// FIFO within each rank: only the first issued operation of a rank can be served.
    strict: bool,
    queues: Vec<Vec<Op>>,
    requests: BTreeMap<u64, Request>,
    next_ticket: u64,
    next_seq: u64,
}

impl DieQueues {
    /// Empty queues for `dies` dies, served as `scheduler` says.
    pub fn new(dies: usize, scheduler: Scheduler) -> Self {
        let (queueing, order) = scheduler.parts();
        Self {
            scheduler,
            order,
            strict: queueing == Queueing::Fifo,
            queues: vec![Vec::new(); dies],
            requests: BTreeMap::new(),
            next_ticket: 0,
            next_seq: 0,
        }
    }

    /// Operations waiting (all dies).
    pub fn waiting(&self) -> usize {
        self.queues.iter().map(Vec::len).sum()
    }

    fn open(&mut self, floor: u64, tail: Tail) -> u64 {
        let t = self.next_ticket;
        self.next_ticket += 1;
        self.requests.insert(
            t,
            Request {
                ops_left: 0,
                done: floor,
                tail,
            },
        );
        t
    }

    #[allow(clippy::too_many_arguments, reason = "one operation's fields")]
    fn push(
        &mut self,
        ticket: u64,
        die: u32,
        ready: u64,
        class: IoClass,
        duration: u64,
        channel: u32,
        transfers: Vec<u64>,
    ) {
        let seq = self.next_seq;
        self.next_seq += 1;
        self.queues[die as usize].push(Op {
            ready,
            class,
            seq,
            duration,
            ticket,
            channel,
            transfers,
        });
        if let Some(r) = self.requests.get_mut(&ticket) {
            r.ops_left += 1;
        }
    }

    /// A request with no die operation is done at its floor: forget it and say so.
    fn close(&mut self, ticket: u64) -> Completion {
        match self.requests.get(&ticket) {
            Some(r) if r.ops_left == 0 => {
                let done = r.done;
                self.requests.remove(&ticket);
                Completion::At(done)
            }
            _ => Completion::Queued(Ticket(ticket)),
        }
    }

    /// Rank of `op` (lower first).
    fn rank(&self, op: &Op) -> usize {
        match self.order {
            Order::Issue => 0,
            Order::QueryFirst => usize::from(op.class != IoClass::QueryRead),
            Order::Class => op.class as usize,
        }
    }

    /// Under FIFO queueing, the first issued operation of each rank (index into die `d`'s
    /// queue), by rank.
    fn heads(&self, d: usize) -> [Option<usize>; 4] {
        let q = &self.queues[d];
        let mut heads = [None; 4];
        for (i, o) in q.iter().enumerate() {
            let h: &mut Option<usize> = &mut heads[self.rank(o)];
            if h.is_none_or(|h| o.seq < q[h].seq) {
                *h = Some(i);
            }
        }
        heads
    }

    /// When die `d` next decides, if anything waits there: work-conserving, once it is free
    /// and something is ready; FIFO, once it is free and the first issued operation of some
    /// rank is ready.
    fn decision_at(&self, d: usize, dies: &[Resource]) -> Option<u64> {
        let free = dies[d].free_at_ns();
        let q = &self.queues[d];
        let ready = if self.strict {
            self.heads(d)
                .into_iter()
                .flatten()
                .map(|i| q[i].ready)
                .min()?
        } else {
            q.iter().map(|o| o.ready).min()?
        };
        Some(ready.max(free))
    }

    /// The operation die `d` serves when it decides at `at` (see [`DieQueues::decision_at`]):
    /// of those it may serve that are ready by `at`, the best rank, then the first issued.
    fn pick(&self, d: usize, at: u64) -> Option<usize> {
        let q = &self.queues[d];
        let key = |&i: &usize| (self.rank(&q[i]), q[i].seq);
        if self.strict {
            self.heads(d)
                .into_iter()
                .flatten()
                .filter(|&i| q[i].ready <= at)
                .min_by_key(key)
        } else {
            (0..q.len()).filter(|&i| q[i].ready <= at).min_by_key(key)
        }
    }

    /// Takes every decision due at or before `now`, earliest first (ties: lowest die).
    fn advance(&mut self, now: u64, dies: &mut [Resource], channels: &mut [Resource]) {
        loop {
            let mut next: Option<(u64, usize)> = None;
            for d in 0..self.queues.len() {
                if let Some(at) = self.decision_at(d, dies)
                    && at <= now
                    && next.is_none_or(|(best, _)| at < best)
                {
                    next = Some((at, d));
                }
            }
            let Some((at, d)) = next else {
                return;
            };
            let Some(i) = self.pick(d, at) else {
                return;
            };
            let op = self.queues[d].swap_remove(i);
            let (_, end) = dies[d].book(at, op.duration);
            let mut fin = end;
            for x in &op.transfers {
                fin = fin.max(channels[op.channel as usize].book(end, *x).1);
            }
            if let Some(r) = self.requests.get_mut(&op.ticket) {
                r.ops_left -= 1;
                r.done = r.done.max(fin);
                if r.ops_left == 0 && r.tail == Tail::Detached {
                    self.requests.remove(&op.ticket);
                }
            }
        }
    }

    /// Drops every waiting operation and request (a power loss).
    fn clear(&mut self) {
        for q in &mut self.queues {
            q.clear();
        }
        self.requests.clear();
    }
}

impl TimingEngine {
    /// With the scheduler `scheduler` (FIFO: booking at issue, as [`TimingEngine::new`]; any
    /// other: per-die queues).
    #[must_use]
    pub fn with_scheduler(mut self, scheduler: Scheduler) -> Self {
        self.queues = (!scheduler.is_fifo()).then(|| DieQueues::new(self.dies.len(), scheduler));
        self
    }

    /// The scheduler in force.
    pub fn scheduler(&self) -> Scheduler {
        self.queues
            .as_ref()
            .map_or(Scheduler::Fifo, |q| q.scheduler)
    }

    /// Books a read of `len` bytes at zone-relative `off` of `zone` for `class`.
    pub fn read_for(
        &mut self,
        now: u64,
        zone: u32,
        off: u64,
        len: u64,
        class: IoClass,
    ) -> Completion {
        self.read_in_for(now, Place::Zone(zone), off, len, class)
    }

    /// [`TimingEngine::read_for`] of a place (a zone, or one chip's share of it).
    pub fn read_in_for(
        &mut self,
        now: u64,
        place: Place,
        off: u64,
        len: u64,
        class: IoClass,
    ) -> Completion {
        self.read_pages_for(now, place, off, len, class, true)
    }

    /// [`TimingEngine::read_in_for`]; `host` as in [`TimingEngine::read_pages`].
    pub(crate) fn read_pages_for(
        &mut self,
        now: u64,
        place: Place,
        off: u64,
        len: u64,
        class: IoClass,
        host: bool,
    ) -> Completion {
        let Some(mut q) = self.queues.take() else {
            return Completion::At(self.read_pages(now, place, off, len, host));
        };
        let t = &self.timing;
        let (t0, tail) = if host {
            let (_, t_cmd) = self.controller.book(now, t.controller_read_ns);
            (t_cmd + t.read_fixed_ns, Tail::Link(len))
        } else {
            (now, Tail::Nothing)
        };
        let g = self.layout.geometry();
        let page = g.page_size_bytes;
        let planes = u64::from(g.planes_per_die);
        let unit = page * planes;
        let end = off + len;
        let ticket = q.open(t0, tail);
        for u in off / unit..end.div_ceil(unit) {
            let addr = self.layout.locate_in(place, u * planes);
            let mut transfers = Vec::with_capacity(planes as usize);
            for p in u * planes..(u + 1) * planes {
                let (ps, pe) = (p * page, (p + 1) * page);
                let bytes = pe.min(end).saturating_sub(ps.max(off));
                if bytes > 0 {
                    transfers.push((t.channel_xfer_ns_per_page * bytes).div_ceil(page));
                    self.page_ops += 1;
                }
            }
            q.push(
                ticket,
                addr.die,
                t0,
                class,
                t.page_read_ns,
                addr.channel,
                transfers,
            );
        }
        let c = q.close(ticket);
        self.queues = Some(q);
        c
    }

    /// Books a write (see [`TimingEngine::write`]); with the priority scheduler its programs
    /// wait in their dies' queues.
    pub fn write_for(
        &mut self,
        now: u64,
        zone: u32,
        off: u64,
        len: u64,
        capacity: u64,
    ) -> Completion {
        self.write_in_for(now, Place::Zone(zone), off, len, capacity)
    }

    /// [`TimingEngine::write_for`] of a place (a zone, or one chip's share of it).
    pub fn write_in_for(
        &mut self,
        now: u64,
        place: Place,
        off: u64,
        len: u64,
        capacity: u64,
    ) -> Completion {
        let Some(mut q) = self.queues.take() else {
            return Completion::At(self.write_in(now, place, off, len, capacity));
        };
        let t = &self.timing;
        let (_, t_cmd) = self.controller.book(now, t.controller_write_ns);
        let t_data = link_transfer(&mut self.link, t.host_link_bytes_per_s, t_cmd, len);
        let ack = t_data + t.write_fixed_ns + t.buffer_ns_per_4k * len.div_ceil(4096);
        let unit = self.unit_bytes();
        let end = off + len;
        let page = self.layout.geometry().page_size_bytes;
        let planes = u64::from(self.layout.geometry().planes_per_die);
        let mut units: Vec<(u64, u64)> = (off / unit..end / unit).map(|u| (u, planes)).collect();
        if end == capacity && !capacity.is_multiple_of(unit) {
            let u = capacity / unit;
            units.push((u, (capacity - u * unit).div_ceil(page)));
        }
        let ticket = q.open(ack, Tail::Nothing);
        for (u, pages) in units {
            let addr = self.layout.locate_in(place, u * planes);
            let (_, x_end) = self.channels[addr.channel as usize]
                .book(t_data, pages * t.channel_xfer_ns_per_page);
            self.page_ops += pages;
            let prog = t.page_program_ns;
            q.push(
                ticket,
                addr.die,
                x_end,
                IoClass::Write,
                prog,
                addr.channel,
                Vec::new(),
            );
        }
        let c = q.close(ticket);
        self.queues = Some(q);
        c
    }

    /// Books a reset (see [`TimingEngine::reset`]); with the priority scheduler its erases wait
    /// in their dies' queues.
    pub fn reset_for(&mut self, now: u64, zone: u32, programmed_bytes: u64) -> Completion {
        self.reset_in_for(now, Place::Zone(zone), programmed_bytes)
    }

    /// [`TimingEngine::reset_for`] of a place (a zone, or one chip's share of it).
    pub fn reset_in_for(&mut self, now: u64, place: Place, programmed_bytes: u64) -> Completion {
        let Some(mut q) = self.queues.take() else {
            return Completion::At(self.reset_in(now, place, programmed_bytes));
        };
        let (_, t0) = self.controller.book(now, self.timing.zone_mgmt_ns);
        let at_once = self.timing.reset_ack == ResetAck::AtOnce;
        let ticket = q.open(
            t0,
            if at_once {
                Tail::Detached
            } else {
                Tail::Nothing
            },
        );
        for (die, busy) in self.count_erases(place, programmed_bytes) {
            let ch = self.layout.channel_of_die(die);
            q.push(ticket, die, t0, IoClass::Erase, busy, ch, Vec::new());
        }
        let c = q.close(ticket);
        self.queues = Some(q);
        if at_once { Completion::At(t0) } else { c }
    }

    /// Books a finish (see [`TimingEngine::finish`]); with the priority scheduler a pad waits in
    /// the dies' queues as a write.
    pub fn finish_for(
        &mut self,
        now: u64,
        zone: u32,
        unwritten: u64,
        was_empty: bool,
    ) -> Completion {
        let Some(mut q) = self.queues.take() else {
            return Completion::At(self.finish(now, zone, unwritten, was_empty));
        };
        let (_, t0) = self.controller.book(now, self.timing.zone_mgmt_ns);
        let ticket = q.open(t0, Tail::Nothing);
        if let FinishModel::Pad {
            base_ns,
            ns_per_mib,
        } = self.timing.finish
            && !was_empty
            && unwritten > 0
        {
            let lat = base_ns
                + (u128::from(unwritten) * u128::from(ns_per_mib) / u128::from(1u64 << 20)) as u64;
            for i in 0..self.layout.dies_per_zone() {
                let die = self.layout.zone_die(zone, i);
                let ch = self.layout.channel_of_die(die);
                q.push(ticket, die, t0, IoClass::Write, lat, ch, Vec::new());
            }
        }
        let c = q.close(ticket);
        self.queues = Some(q);
        c
    }

    /// Books the front end of a write whose data lands in device DRAM (SplitZNS's ring): the
    /// controller command, the host link transfer and the buffer admission. Returns when the
    /// data is in DRAM and when the write can be acknowledged.
    pub fn dram_write_front(&mut self, now: u64, len: u64) -> (u64, u64) {
        let t = &self.timing;
        let (_, t_cmd) = self.controller.book(now, t.controller_write_ns);
        let t_data = link_transfer(&mut self.link, t.host_link_bytes_per_s, t_cmd, len);
        let ack = t_data + t.write_fixed_ns + t.buffer_ns_per_4k * len.div_ceil(4096);
        (t_data, ack)
    }

    /// A read served from device DRAM (SplitZNS's ring or preread buffers): the controller
    /// command, the fixed latency and the host link, no flash work; done no earlier than
    /// `ready`.
    pub fn dram_read(&mut self, now: u64, len: u64, ready: u64) -> u64 {
        let t = &self.timing;
        let (_, t_cmd) = self.controller.book(now, t.controller_read_ns);
        let start = (t_cmd + t.read_fixed_ns).max(ready);
        link_transfer(&mut self.link, t.host_link_bytes_per_s, start, len)
    }

    /// Books, as one request done no earlier than `floor`, the programs of program units
    /// whose data is in device DRAM from `ready` on: each `(place, unit index, pages)` crosses
    /// its channel and is programmed on its die (queued as writes under the priority
    /// scheduler).
    pub fn program_units_for(
        &mut self,
        ready: u64,
        units: &[(Place, u64, u64)],
        floor: u64,
    ) -> Completion {
        let planes = u64::from(self.layout.geometry().planes_per_die);
        let (xfer, prog) = (
            self.timing.channel_xfer_ns_per_page,
            self.timing.page_program_ns,
        );
        let mut q = self.queues.take();
        let ticket = q.as_mut().map(|q| q.open(floor, Tail::Nothing));
        let mut done = floor;
        for &(place, u, pages) in units {
            let addr = self.layout.locate_in(place, u * planes);
            let (_, x_end) = self.channels[addr.channel as usize].book(ready, pages * xfer);
            self.page_ops += pages;
            match (q.as_mut(), ticket) {
                (Some(q), Some(t)) => {
                    q.push(
                        t,
                        addr.die,
                        x_end,
                        IoClass::Write,
                        prog,
                        addr.channel,
                        Vec::new(),
                    );
                }
                _ => done = done.max(self.dies[addr.die as usize].book(x_end, prog).1),
            }
        }
        let c = match (q.as_mut(), ticket) {
            (Some(q), Some(t)) => q.close(t),
            _ => Completion::At(done),
        };
        self.queues = q;
        c
    }

    /// Forgets a queued request nobody will wait for (its operations still run): a preread
    /// whose buffer was dropped.
    pub fn forget(&mut self, ticket: Ticket) {
        if let Some(q) = self.queues.as_mut() {
            q.requests.remove(&ticket.0);
        }
    }

    /// Where request `ticket` stands at `now`, after every die decision due by then.
    pub fn poll(&mut self, ticket: Ticket, now: u64) -> Poll {
        let Some(q) = self.queues.as_mut() else {
            return Poll::Done(now);
        };
        q.advance(now, &mut self.dies, &mut self.channels);
        let Some(r) = q.requests.get(&ticket.0) else {
            return Poll::Done(now);
        };
        if r.ops_left == 0 {
            let (done, tail) = (r.done, r.tail);
            q.requests.remove(&ticket.0);
            return Poll::Done(match tail {
                Tail::Link(len) => {
                    link_transfer(&mut self.link, self.timing.host_link_bytes_per_s, done, len)
                }
                Tail::Nothing | Tail::Detached => done,
            });
        }
        let next = (0..q.queues.len())
            .filter(|&d| q.queues[d].iter().any(|o| o.ticket == ticket.0))
            .filter_map(|d| q.decision_at(d, &self.dies))
            .min();
        Poll::Until(next.unwrap_or(now).max(now + 1))
    }

    /// A power loss: queued work that has not started is dropped.
    pub fn drop_queued(&mut self) {
        if let Some(q) = self.queues.as_mut() {
            q.clear();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Profile;

    fn engine(s: Scheduler) -> TimingEngine {
        let p = Profile::by_name("tiny").unwrap();
        TimingEngine::new(p.layout().unwrap(), p.timing).with_scheduler(s)
    }

    /// Polls every request as a device's waiting futures would, in virtual time; returns the
    /// completion times.
    fn settle(e: &mut TimingEngine, cs: &[Completion]) -> Vec<u64> {
        let mut out = vec![None; cs.len()];
        let mut now = 0;
        while out.iter().any(Option::is_none) {
            let mut next = u64::MAX;
            for (i, c) in cs.iter().enumerate() {
                if out[i].is_some() {
                    continue;
                }
                match *c {
                    Completion::At(t) => out[i] = Some(t),
                    Completion::Queued(t) => match e.poll(t, now) {
                        Poll::Done(t) => out[i] = Some(t),
                        Poll::Until(t) => {
                            assert!(t > now);
                            next = next.min(t);
                        }
                    },
                }
            }
            if next != u64::MAX {
                now = next;
            }
        }
        out.into_iter().map(Option::unwrap_or_default).collect()
    }

    /// Background reads, programs and erases on die 0 (every `tiny` zone starts on it), then a
    /// query read of it, all issued at 0. Returns every completion, the query's last.
    fn contended(s: Scheduler) -> Vec<u64> {
        let mut e = engine(s);
        let mut cs = Vec::new();
        for zone in 0..4 {
            cs.push(e.read_for(0, zone, 0, 8 << 10, IoClass::BackgroundRead));
        }
        cs.push(e.write_for(0, 4, 0, 8 << 10, 192 << 10));
        cs.push(e.reset_for(0, 5, 8 << 10));
        cs.push(e.read_for(0, 6, 0, 4 << 10, IoClass::QueryRead));
        settle(&mut e, &cs)
    }

    #[test]
    fn a_query_read_overtakes_queued_background_work_on_its_die() {
        let fifo = contended(Scheduler::Fifo);
        let prio = contended(Scheduler::Priority);
        let (qf, qp) = (fifo[6], prio[6]);
        // FIFO: the query waits for 4 reads, a program and an erase. Priority: it is ready once
        // the controller has taken the reset command (5 us), when the first background read
        // already runs; it goes next.
        let t = Profile::by_name("tiny").unwrap().timing;
        assert!(
            qf >= 4 * t.page_read_ns + t.page_program_ns + t.block_erase_ns,
            "{fifo:?}"
        );
        assert_eq!(
            qp,
            2 * t.page_read_ns + t.channel_xfer_ns_per_page,
            "{prio:?}"
        );
        assert!(qp < qf);
        // Everything else still completes: the running read first, the queued background reads
        // after the query, then the program, the erase last.
        assert!(prio[0] < qp, "{prio:?}");
        assert!(
            prio[1..4].iter().all(|&b| b > qp && b < prio[4]),
            "{prio:?}"
        );
        assert!(prio[5] > prio[4]);
    }

    /// Query-first (the SplitZNS text's Read Scheduler): the query still overtakes, at the
    /// same time as under the class order, but background reads, the program and the erase
    /// keep their issue order among themselves.
    #[test]
    fn query_first_ranks_only_queries() {
        let prio = contended(Scheduler::Priority);
        let qf = contended(Scheduler::QueryFirst);
        assert_eq!(qf[6], prio[6], "{qf:?} {prio:?}");
        assert!(qf[..6].windows(2).all(|w| w[0] <= w[1]), "{qf:?}");
        assert!(qf[..6].iter().all(|&b| b != qf[6]));
        assert_eq!(
            engine(Scheduler::QueryFirst).scheduler(),
            Scheduler::QueryFirst
        );
        assert_eq!(
            Scheduler::by_name("query-first").unwrap(),
            Scheduler::QueryFirst
        );
    }

    #[test]
    fn fifo_books_as_the_engine_always_did() {
        let mut a = engine(Scheduler::Fifo);
        let mut b = engine(Scheduler::Fifo);
        let before = [
            Completion::At(b.read(0, 0, 0, 8 << 10)),
            Completion::At(b.write(10, 4, 0, 8 << 10, 192 << 10)),
            Completion::At(b.reset(20, 5, 8 << 10)),
        ];
        let now = [
            a.read_for(0, 0, 0, 8 << 10, IoClass::QueryRead),
            a.write_for(10, 4, 0, 8 << 10, 192 << 10),
            a.reset_for(20, 5, 8 << 10),
        ];
        assert_eq!(before, now);
        assert_eq!(a.die_busy_ns(), b.die_busy_ns());
    }

    #[test]
    fn priority_scheduling_is_deterministic() {
        assert_eq!(
            contended(Scheduler::Priority),
            contended(Scheduler::Priority)
        );
    }

    #[test]
    fn a_power_loss_drops_queued_work() {
        let mut e = engine(Scheduler::Priority);
        let c = e.read_for(0, 0, 0, 8 << 10, IoClass::BackgroundRead);
        let Completion::Queued(t) = c else {
            panic!("queued expected: {c:?}");
        };
        e.drop_queued();
        assert_eq!(e.poll(t, 5), Poll::Done(5));
        assert_eq!(e.die_busy_ns().iter().sum::<u64>(), 0);
    }

    /// FIFO queueing with queries first: the query overtakes exactly as on the per-die
    /// queues, while everything else keeps FIFO's issue order and its work.
    #[test]
    fn fifo_query_first_ranks_queries_and_keeps_fifo_for_the_rest() {
        let fifo = contended(Scheduler::Fifo);
        let qf = contended(Scheduler::QueryFirst);
        let fqf = contended(Scheduler::FifoQueryFirst);
        assert_eq!(fqf[6], qf[6], "{fqf:?} {qf:?}");
        assert!(fqf[6] < fifo[6], "{fqf:?} {fifo:?}");
        assert!(fqf[..6].windows(2).all(|w| w[0] <= w[1]), "{fqf:?}");
        let busy = |s: Scheduler| {
            let mut e = engine(s);
            let cs = [
                e.read_for(0, 0, 0, 8 << 10, IoClass::BackgroundRead),
                e.write_for(0, 4, 0, 8 << 10, 192 << 10),
                e.read_for(0, 6, 0, 4 << 10, IoClass::QueryRead),
            ];
            settle(&mut e, &cs);
            e.die_busy_ns()
        };
        assert_eq!(busy(Scheduler::FifoQueryFirst), busy(Scheduler::Fifo));
        // The class order on FIFO queueing: the query overtakes too.
        let fp = contended(Scheduler::FifoPriority);
        assert_eq!(fp[6], qf[6], "{fp:?}");
    }

    /// A write issued first whose data is still crossing the channel, then a read of the same
    /// die that is ready at once: FIFO keeps the die for the write (the read waits for the
    /// program), per-die queues serve the read in the meantime. Query-first changes only what
    /// happens to a query. Returns (read done, write done).
    fn read_behind_a_write_in_transfer(s: Scheduler, class: IoClass) -> (u64, u64) {
        let mut e = engine(s);
        let w = e.write_for(0, 4, 0, 8 << 10, 192 << 10);
        let r = e.read_for(0, 0, 0, 8 << 10, class);
        let out = settle(&mut e, &[r, w]);
        (out[0], out[1])
    }

    #[test]
    fn the_queueing_discipline_and_the_query_order_are_separate() {
        let t = Profile::by_name("tiny").unwrap().timing;
        let (xfer, rd, prog) = (
            2 * t.channel_xfer_ns_per_page,
            t.page_read_ns,
            t.page_program_ns,
        );
        let bg = IoClass::BackgroundRead;
        let q = IoClass::QueryRead;
        // FIFO: the read waits for the write's transfer and program, query or not.
        let fifo = (xfer + prog + rd + xfer, xfer + prog);
        assert_eq!(read_behind_a_write_in_transfer(Scheduler::Fifo, bg), fifo);
        assert_eq!(read_behind_a_write_in_transfer(Scheduler::Fifo, q), fifo);
        // FIFO with queries first: a background read still waits; a query does not.
        assert_eq!(
            read_behind_a_write_in_transfer(Scheduler::FifoQueryFirst, bg),
            fifo
        );
        let first = (rd + xfer, rd + prog);
        assert_eq!(
            read_behind_a_write_in_transfer(Scheduler::FifoQueryFirst, q),
            first
        );
        // Per-die queues serve whatever is ready, queries first or not.
        for s in [Scheduler::PerDie, Scheduler::QueryFirst] {
            for class in [bg, q] {
                assert_eq!(read_behind_a_write_in_transfer(s, class), first, "{s:?}");
            }
        }
    }

    #[test]
    fn scheduler_names_parse_and_split_into_queueing_and_order() {
        assert_eq!(Scheduler::by_name("fifo").unwrap(), Scheduler::Fifo);
        assert_eq!(Scheduler::by_name("priority").unwrap(), Scheduler::Priority);
        assert!(Scheduler::by_name("lifo").is_err());
        assert!(Scheduler::default().is_fifo());
        for s in Scheduler::ALL {
            assert_eq!(Scheduler::by_name(s.name()).unwrap(), s);
            assert_eq!(engine(s).scheduler(), s);
            for q in [Queueing::Fifo, Queueing::PerDie] {
                let moved = s.with_queueing(q);
                assert_eq!(moved.queueing(), q);
                assert_eq!(moved.with_queueing(s.queueing()), s);
                // The Read Scheduler's query-first never changes the queueing.
                assert_eq!(moved.query_first().queueing(), q);
            }
        }
        assert_eq!(Scheduler::Fifo.query_first(), Scheduler::FifoQueryFirst);
        assert_eq!(Scheduler::PerDie.query_first(), Scheduler::QueryFirst);
        assert_eq!(Scheduler::Priority.query_first(), Scheduler::Priority);
        assert_eq!(
            Scheduler::Priority.with_queueing(Queueing::Fifo),
            Scheduler::FifoPriority
        );
        assert_eq!(Queueing::by_name("per-die").unwrap(), Queueing::PerDie);
        assert_eq!(
            Queueing::by_name(Queueing::Fifo.name()).unwrap(),
            Queueing::Fifo
        );
        assert!(Queueing::by_name("lifo").is_err());
    }
}
