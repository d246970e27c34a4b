//! Flash array geometry.

use crate::DeviceError;

/// Shape of the flash array behind a simulated SSD.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct FlashGeometry {
    /// Independent channels (buses).
    pub channels: u32,
    /// Chips (ways) per channel.
    pub chips_per_channel: u32,
    /// Dies per chip; a die is the unit that performs one array operation at a time.
    pub dies_per_chip: u32,
    /// Planes per die; a multi-plane operation covers one page in each plane.
    pub planes_per_die: u32,
    /// Flash page size, bytes.
    pub page_size_bytes: u64,
    /// Pages per erase block.
    pub pages_per_block: u32,
}

impl FlashGeometry {
    /// Chips in the device.
    pub fn chips(&self) -> u32 {
        self.channels * self.chips_per_channel
    }

    /// Dies in the device.
    pub fn dies(&self) -> u32 {
        self.chips() * self.dies_per_chip
    }

    /// Channel a chip sits on (chips are numbered channel-first, so consecutive chips are on
    /// different channels, as in ConfZNS).
    pub fn channel_of_chip(&self, chip: u32) -> u32 {
        chip % self.channels
    }

    /// Bytes in one erase block.
    pub fn block_bytes(&self) -> u64 {
        self.page_size_bytes * u64::from(self.pages_per_block)
    }

    /// Checks that every count is non-zero and the page size is a power of two.
    ///
    /// # Errors
    /// [`DeviceError::InvalidConfig`].
    pub fn validate(&self) -> Result<(), DeviceError> {
        if self.channels == 0
            || self.chips_per_channel == 0
            || self.dies_per_chip == 0
            || self.planes_per_die == 0
            || self.pages_per_block == 0
        {
            return Err(DeviceError::InvalidConfig(
                "flash geometry has a zero count".into(),
            ));
        }
        if !self.page_size_bytes.is_power_of_two() || self.page_size_bytes < 512 {
            return Err(DeviceError::InvalidConfig(format!(
                "flash page size {} is not a power of two >= 512",
                self.page_size_bytes
            )));
        }
        Ok(())
    }
}
