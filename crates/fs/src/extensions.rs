//! State a paper feature keeps on a mounted [`crate::ZoneFs`], held by type: the core layer
//! carries it without naming the feature, and the feature finds its own by its type (the
//! pattern of `http::Extensions`). A feature puts its state in at mount
//! ([`crate::features::attach`]); nothing is added or removed afterwards, so lookups need
//! no lock.

use std::any::Any;

/// Per-mount feature state, at most one value per type.
#[derive(Default)]
pub(crate) struct Extensions {
    values: Vec<Box<dyn Any + Send + Sync>>,
}

impl Extensions {
    /// Adds `value`, replacing a value of the same type.
    pub(crate) fn insert<T: Any + Send + Sync>(&mut self, value: T) {
        self.values.retain(|v| !v.is::<T>());
        self.values.push(Box::new(value));
    }

    /// The value of type `T`, if a feature put one in.
    pub(crate) fn get<T: Any + Send + Sync>(&self) -> Option<&T> {
        self.values.iter().find_map(|v| v.downcast_ref::<T>())
    }
}

impl std::fmt::Debug for Extensions {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Extensions({} values)", self.values.len())
    }
}

#[cfg(test)]
mod tests {
    use super::Extensions;

    #[test]
    fn a_value_is_found_by_its_type_and_replaced_by_one_of_the_same_type() {
        let mut e = Extensions::default();
        assert!(e.get::<u32>().is_none());
        e.insert(7_u32);
        e.insert(String::from("cache"));
        assert_eq!(e.get::<u32>(), Some(&7));
        e.insert(9_u32);
        assert_eq!(e.get::<u32>(), Some(&9));
        assert_eq!(e.get::<String>().map(String::as_str), Some("cache"));
        assert!(e.get::<u64>().is_none());
    }
}
