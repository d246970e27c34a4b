//! How a simulated SSD orders the work queued on its dies.

/// The order queued die work is served in. Serialized in a [`crate::Profile`] only when it is
/// not FIFO.
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
    /// issued.
    #[default]
    Fifo,
    /// Per-die queues: when a die frees, the waiting operation of the highest class is served
    /// next (query reads, then background reads, then programs, then erases).
    Priority,
}

impl Scheduler {
    /// Whether this is FIFO (the default, left out of serialized profiles).
    #[allow(
        clippy::trivially_copy_pass_by_ref,
        reason = "serde's skip_serializing_if signature"
    )]
    pub fn is_fifo(&self) -> bool {
        *self == Self::Fifo
    }

    /// The scheduler called `name` (`fifo`, `priority`).
    ///
    /// # Errors
    /// [`crate::DeviceError::InvalidConfig`] naming the known ones.
    pub fn by_name(name: &str) -> Result<Self, crate::DeviceError> {
        match name {
            "fifo" => Ok(Self::Fifo),
            "priority" => Ok(Self::Priority),
            _ => Err(crate::DeviceError::InvalidConfig(format!(
                "unknown scheduler '{name}'; known: fifo, priority"
            ))),
        }
    }
}
