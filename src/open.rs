//! Opening a store for the front door: the device (a file-backed zoned device in a directory,
//! created when absent; or a Linux zoned block device), the zone file layer on it (formatted
//! when the device is new or holds nothing), then the engine. The Python package's
//! `zonedb.open` does the same (`crates/python/src/store.rs`).

use std::path::{Path, PathBuf};
use std::sync::{Arc, Weak};

use zonedb_device::{DeviceError, RealDevice, ZoneFileDevice, ZoneState, ZonedDevice};
use zonedb_env::RealEnv;
use zonedb_fs::{FsError, ZoneFs};

use crate::asynchronous::AsyncDb;
use crate::{Error, Options};

/// Where a store lives.
#[derive(Debug, Clone)]
pub(crate) enum Target {
    /// A file-backed zoned device in this directory.
    Dir(PathBuf),
    /// A Linux zoned block device (`/dev/nvme0n1`).
    Block(PathBuf),
}

impl Target {
    pub(crate) fn path(&self) -> &Path {
        match self {
            Self::Dir(p) | Self::Block(p) => p,
        }
    }
}

/// An open engine and the device under it (to see when its last user let go).
pub(crate) struct Opened {
    pub(crate) db: AsyncDb,
    pub(crate) dev: Weak<RealDevice>,
}

/// Opens the device of `target`; whether it was just created.
fn open_device(target: &Target, o: &Options) -> Result<(RealDevice, bool), Error> {
    let p = target.path();
    if p.as_os_str().is_empty() {
        // Refused before anything is created (not a store in the current directory).
        return Err(Error::invalid(
            "the path is empty: give the store's directory (or a zoned block device)",
        ));
    }
    match target {
        Target::Block(d) => {
            let dev = RealDevice::open_block(d)?;
            #[cfg(target_os = "linux")]
            if o.zone_append
                && let RealDevice::Block(b) = &dev
            {
                b.enable_zone_append()?;
            }
            Ok((dev, false))
        }
        Target::Dir(d) => {
            if o.zone_append {
                return Err(Error::invalid(
                    "zone_append needs a zoned block device (Db::open_device)",
                ));
            }
            match ZoneFileDevice::open(d) {
                Ok(dev) => Ok((RealDevice::File(dev), false)),
                Err(DeviceError::Io(e)) if e.kind() == std::io::ErrorKind::NotFound => {
                    if !o.engine.create_if_missing {
                        // RocksDB's words and kind.
                        return Err(Error::invalid(format!(
                            "{}: does not exist (create_if_missing is false)",
                            d.display()
                        )));
                    }
                    let profile = o.new_device_profile()?;
                    let dev = ZoneFileDevice::create(d, profile.zones)?;
                    Ok((RealDevice::File(dev), true))
                }
                Err(e) => Err(e.into()),
            }
        }
    }
}

/// Whether every zone of `dev` is empty (a device never written, safe to format).
fn blank(dev: &RealDevice) -> bool {
    let g = dev.geometry();
    dev.report_zones(0, g.zone_count)
        .iter()
        .all(|z| z.state == ZoneState::Empty && z.write_pointer == z.start)
}

/// Opens the store at `target` with `o` in `env`.
pub(crate) async fn open(env: &RealEnv, target: &Target, o: &Options) -> Result<Opened, Error> {
    o.validate()?;
    let fs_options = o.fs_options()?;
    let (dev, fresh) = open_device(target, o)?;
    let dev = Arc::new(dev);
    if fresh {
        ZoneFs::<RealEnv, RealDevice>::mkfs(dev.as_ref(), 0).await?;
    }
    let fs = match ZoneFs::mount(env.clone(), dev.clone(), fs_options.clone()).await {
        Ok(fs) => fs,
        // A device that holds nothing (a new zoned block device, a directory whose creation
        // was cut short before its format) is formatted; one that holds something else is
        // never touched.
        Err(FsError::NotFormatted) if o.engine.create_if_missing && blank(&dev) => {
            ZoneFs::<RealEnv, RealDevice>::mkfs(dev.as_ref(), 0).await?;
            ZoneFs::mount(env.clone(), dev.clone(), fs_options).await?
        }
        Err(FsError::NotFormatted) => {
            return Err(Error::invalid(format!(
                "{}: holds no ZoneDB store{}",
                target.path().display(),
                if o.engine.create_if_missing {
                    " and is not empty (reset its zones to use it)"
                } else {
                    " (create_if_missing is false)"
                }
            )));
        }
        Err(e) => return Err(e.into()),
    };
    let db = zonedb_lsm::Db::open(fs, o.engine.clone()).await?;
    Ok(Opened {
        db,
        dev: Arc::downgrade(&dev),
    })
}
