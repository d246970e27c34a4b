//! The request-queue attributes of a Linux block device (`/sys/block/NAME/queue/*`) that decide
//! whether ZoneDB can use it, and the refusal messages that say what to do otherwise.

use std::path::Path;

use crate::DeviceError;

/// What the kernel says about a block device's queue.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct QueueLimits {
    /// Kernel device name (`nvme0n1`).
    pub name: String,
    /// `zoned`: `host-managed`, `host-aware` or `none`.
    pub zoned: String,
    /// `chunk_sectors`: the zone size in 512-byte sectors.
    pub chunk_sectors: u64,
    /// `nr_zones`.
    pub nr_zones: u32,
    /// `logical_block_size`, bytes.
    pub logical_block_size: u64,
    /// `max_open_zones` (0 = no limit).
    pub max_open_zones: u32,
    /// `max_active_zones` (0 = no limit).
    pub max_active_zones: u32,
    /// `zone_append_max_bytes` (0 = no zone append).
    pub zone_append_max_bytes: u64,
    /// `max_hw_sectors_kb`: the largest request the driver takes.
    pub max_hw_sectors_kb: u64,
    /// `max_segments`: the most memory segments one request may map (0 = not reported).
    pub max_segments: u64,
    /// The selected I/O scheduler (the bracketed entry of `scheduler`).
    pub scheduler: String,
}

/// The bracketed (selected) entry of a `scheduler` attribute: `[mq-deadline] none` gives
/// `mq-deadline`.
pub fn selected_scheduler(attr: &str) -> String {
    attr.split_whitespace()
        .find_map(|w| w.strip_prefix('[').and_then(|w| w.strip_suffix(']')))
        .unwrap_or_else(|| attr.trim())
        .to_string()
}

impl QueueLimits {
    /// Reads the attributes of device `name` from `sys_block` (normally `/sys/block`).
    ///
    /// # Errors
    /// [`DeviceError::InvalidConfig`] when the device has no queue directory there (a partition,
    /// or not a block device) or an attribute is missing or malformed.
    pub fn read(sys_block: &Path, name: &str) -> Result<Self, DeviceError> {
        let queue = sys_block.join(name).join("queue");
        if !queue.is_dir() {
            return Err(DeviceError::InvalidConfig(format!(
                "{} does not exist: {name} is not a whole block device (partitions of zoned \
                 devices are not supported; give the whole device, such as /dev/nvme0n1)",
                queue.display()
            )));
        }
        Self::from_attrs(name, |attr| std::fs::read_to_string(queue.join(attr)).ok())
    }

    /// Builds the limits from an attribute reader (`None` = attribute missing).
    ///
    /// # Errors
    /// [`DeviceError::InvalidConfig`] naming the missing or malformed attribute.
    pub fn from_attrs(
        name: &str,
        attr: impl Fn(&str) -> Option<String>,
    ) -> Result<Self, DeviceError> {
        let text = |a: &str| {
            attr(a).map(|s| s.trim().to_string()).ok_or_else(|| {
                DeviceError::InvalidConfig(format!("{name}: sysfs attribute queue/{a} is missing"))
            })
        };
        let num = |a: &str| -> Result<u64, DeviceError> {
            let s = text(a)?;
            s.parse().map_err(|_| {
                DeviceError::InvalidConfig(format!(
                    "{name}: sysfs attribute queue/{a} is not a number: '{s}'"
                ))
            })
        };
        let num32 = |a: &str| -> Result<u32, DeviceError> {
            u32::try_from(num(a)?).map_err(|_| {
                DeviceError::InvalidConfig(format!("{name}: queue/{a} is out of range"))
            })
        };
        let zoned = text("zoned")?;
        let scheduler = selected_scheduler(&text("scheduler")?);
        // Attributes a kernel without zoned support, or an older one, may lack.
        let opt = |a: &str| attr(a).is_some();
        Ok(Self {
            name: name.to_string(),
            zoned,
            chunk_sectors: num("chunk_sectors")?,
            nr_zones: if opt("nr_zones") {
                num32("nr_zones")?
            } else {
                0
            },
            logical_block_size: num("logical_block_size")?,
            max_open_zones: if opt("max_open_zones") {
                num32("max_open_zones")?
            } else {
                0
            },
            max_active_zones: if opt("max_active_zones") {
                num32("max_active_zones")?
            } else {
                0
            },
            zone_append_max_bytes: if opt("zone_append_max_bytes") {
                num("zone_append_max_bytes")?
            } else {
                0
            },
            max_hw_sectors_kb: num("max_hw_sectors_kb")?,
            max_segments: if opt("max_segments") {
                num("max_segments")?
            } else {
                0
            },
            scheduler,
        })
    }

    /// The largest zone append one request can carry: the zone append limit, and no more
    /// pages than the queue maps in one request (an io_uring passthrough buffer of 4 KiB pages
    /// that are not physically contiguous needs a segment each; one is kept for a buffer that
    /// does not start on a page).
    pub fn passthrough_bytes(&self) -> u64 {
        let mut limit = if self.zone_append_max_bytes > 0 {
            self.zone_append_max_bytes
        } else {
            self.max_hw_sectors_kb * 1024
        };
        if self.max_segments > 1 {
            limit = limit.min((self.max_segments - 1) * 4096);
        }
        limit
    }

    /// Refuses devices ZoneDB cannot drive, with a message that says what to do.
    ///
    /// # Errors
    /// [`DeviceError::InvalidConfig`] for a device that is not host-managed, or whose scheduler
    /// is not mq-deadline.
    pub fn require_usable(&self) -> Result<(), DeviceError> {
        let name = &self.name;
        if self.zoned != "host-managed" {
            return Err(DeviceError::InvalidConfig(format!(
                "/dev/{name} is not a host-managed zoned block device (queue/zoned = {}); ZoneDB \
                 drives host-managed devices (NVMe ZNS namespaces, HM-SMR disks). For a regular \
                 disk or a file system, use a file-backed zoned device instead (--db DIR)",
                self.zoned
            )));
        }
        if self.scheduler != "mq-deadline" {
            return Err(DeviceError::InvalidConfig(format!(
                "/dev/{name} uses the '{}' I/O scheduler; zoned writes need mq-deadline, which \
                 keeps them in order per zone. Select it with: \
                 echo mq-deadline > /sys/block/{name}/queue/scheduler",
                self.scheduler
            )));
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn qemu_zns(attr: &str) -> Option<String> {
        // What the guest kernel shows for QEMU's ZNS namespace (64 MiB zones, 14/14 limits).
        Some(
            match attr {
                "zoned" => "host-managed\n",
                "chunk_sectors" => "131072\n",
                "nr_zones" => "16\n",
                "logical_block_size" => "4096\n",
                "max_open_zones" | "max_active_zones" => "14\n",
                "zone_append_max_bytes" => "524288\n",
                "max_hw_sectors_kb" => "512\n",
                "max_segments" => "127\n",
                "scheduler" => "[mq-deadline] none\n",
                _ => return None,
            }
            .to_string(),
        )
    }

    #[test]
    fn reads_the_attributes_of_a_qemu_zns_namespace() {
        let l = QueueLimits::from_attrs("nvme0n1", qemu_zns).expect("limits");
        assert_eq!(l.zoned, "host-managed");
        assert_eq!(l.chunk_sectors, 131_072);
        assert_eq!(l.nr_zones, 16);
        assert_eq!(l.logical_block_size, 4096);
        assert_eq!((l.max_open_zones, l.max_active_zones), (14, 14));
        assert_eq!(l.zone_append_max_bytes, 524_288);
        assert_eq!(l.max_segments, 127);
        assert_eq!(l.passthrough_bytes(), 126 * 4096);
        assert_eq!(l.scheduler, "mq-deadline");
        l.require_usable().expect("usable");
    }

    #[test]
    fn refuses_regular_disks_and_other_schedulers_saying_what_to_do() {
        let regular = QueueLimits::from_attrs("sda", |a| match a {
            "zoned" => Some("none".into()),
            "scheduler" => Some("[none] mq-deadline".into()),
            other => qemu_zns(other),
        })
        .expect("limits");
        let e = regular.require_usable().expect_err("not zoned").to_string();
        assert!(
            e.contains("not a host-managed") && e.contains("--db DIR"),
            "{e}"
        );

        let none = QueueLimits::from_attrs("nvme0n1", |a| match a {
            "scheduler" => Some("mq-deadline [none]".into()),
            other => qemu_zns(other),
        })
        .expect("limits");
        let e = none.require_usable().expect_err("scheduler").to_string();
        assert!(
            e.contains("echo mq-deadline > /sys/block/nvme0n1/queue/scheduler"),
            "{e}"
        );
    }

    #[test]
    fn missing_or_malformed_attributes_are_typed_errors() {
        let missing = QueueLimits::from_attrs("x", |a| (a != "zoned").then(|| "1".into()));
        assert!(matches!(missing, Err(DeviceError::InvalidConfig(m)) if m.contains("queue/zoned")));
        let bad = QueueLimits::from_attrs("x", |a| match a {
            "chunk_sectors" => Some("lots".into()),
            other => qemu_zns(other),
        });
        assert!(matches!(bad, Err(DeviceError::InvalidConfig(m)) if m.contains("chunk_sectors")));
        assert_eq!(selected_scheduler("none"), "none");
        assert_eq!(selected_scheduler("[kyber] none"), "kyber");
    }
}
