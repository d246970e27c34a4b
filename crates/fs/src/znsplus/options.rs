//! ZNS+'s options on a mounted file layer ([`crate::FsOptions::znsplus`]).

use crate::FsError;

/// ZNS+'s hybrid recycling on a mounted file layer.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct ZnsPlusOptions {
    /// Hybrid recycling (needs a device with [`zonedb_device::InDeviceCopy`]): when a reclaim
    /// is due (the cleaner picks a victim), an SST writer's new zone may be a zone with
    /// garbage opened for threaded logging, when that costs less than cleaning the victim
    /// ([`crate::znsplus::threaded`]).
    pub threaded_logging: bool,
    /// A zone is opened for threaded logging only with at least this percentage of its
    /// capacity garbage (0: any garbage block, the ZNS+ artifact's rule; above 0 is this
    /// store's addition).
    pub threaded_min_garbage_pct: u32,
    /// When hybrid recycling weighs threaded logging ([`ThreadedTrigger`]): whenever the
    /// cleaner has a victim (the default), or also only near F2FS's reserve (`need_SSR`).
    pub threaded_trigger: ThreadedTrigger,
}

/// When threaded logging is weighed at all.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum ThreadedTrigger {
    /// Whenever a reclaim is due: the cleaner picks a victim (greedy: free space below its
    /// threshold).
    #[default]
    Victim,
    /// F2FS's `need_SSR` as the ZNS+ artifact has it: besides a victim, at most
    /// [`f2fs_reserved_sections`] + 1 empty zones; at most half that reserve, threaded logging
    /// without the cost rule.
    NeedSsr,
}

impl ThreadedTrigger {
    /// The name in scenarios and reports (`victim`, `need-ssr`).
    pub fn name(self) -> &'static str {
        match self {
            Self::Victim => "victim",
            Self::NeedSsr => "need-ssr",
        }
    }

    /// The trigger called `name`.
    ///
    /// # Errors
    /// [`FsError::InvalidArgument`] for another name.
    pub fn by_name(name: &str) -> Result<Self, FsError> {
        match name {
            "victim" => Ok(Self::Victim),
            "need-ssr" => Ok(Self::NeedSsr),
            other => Err(FsError::InvalidArgument(format!(
                "threaded-logging trigger '{other}': victim or need-ssr"
            ))),
        }
    }
}
