//! The flash back end of simulated SSDs: geometry, zone-to-flash mapping and timing.
//!
//! - [`geometry`]: channels, chips, dies, planes, pages, blocks.
//! - [`layout`]: where a zone's bytes live (which die, plane, block row, page).
//! - [`resource`]: FIFO booking of one busy resource (a die, a channel, the host link).
//! - [`media`]: [`FlashMedia`], flash as the [`crate::sim::Media`] of the simulated device.
//! - [`scheduler`]: how queued die work waits and is ordered ([`Queueing`]: FIFO in issue order
//!   or work-conserving per-die queues; [`Scheduler`]: a queueing and an order within it).
//! - [`timing`]: latencies and the request timing engine that books page operations on dies
//!   and channels.

pub mod geometry;
pub mod layout;
pub mod media;
pub mod resource;
pub mod scheduler;
pub mod timing;
pub mod znsplus;

pub use geometry::FlashGeometry;
pub use layout::{Place, ZoneLayout};
pub use media::FlashMedia;
pub use resource::Resource;
pub use scheduler::{Queueing, Scheduler};
pub use timing::{FinishModel, FlashTiming, ResetAck, TimingEngine};
pub use znsplus::{ThreadedBlocks, ZnsPlus, ZnsPlusConfig, ZnsPlusStats};
