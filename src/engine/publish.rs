//! Publication: a process-wide table of values by name that other threads wait for.
//!
//! The operating system may start an app's process for one call (an Android
//! `AppFunctionService`, an App Intent): that call arrives before, or while, the app
//! builds its dispatcher, and it may arrive in another language than the one that builds
//! it (Swift intents reaching a dispatcher a .NET MAUI app made). The dispatcher module
//! keeps one [`Table`] of dispatchers; this module is the mechanism: publish under a
//! name, take what is published, wait for it with a deadline.

use parking_lot::{Condvar, Mutex};
use std::time::{Duration, Instant};

/// Names are short: at most this many bytes.
pub(crate) const MAX_NAME_BYTES: usize = 256;

/// A table of published values by name. Waiters are woken by every publication.
pub struct Table<T> {
    /// (name, value); a handful of names at most, so a list.
    slots: Mutex<Vec<(String, T)>>,
    published: Condvar,
}

impl<T: Clone> Default for Table<T> {
    fn default() -> Self {
        Self::new()
    }
}

/// Why a name cannot be used.
pub fn check_name(name: &str) -> Result<(), String> {
    if name.is_empty() {
        return Err("the publication name is empty".into());
    }
    if name.len() > MAX_NAME_BYTES {
        return Err(format!(
            "the publication name is {} bytes, more than the limit of {MAX_NAME_BYTES}",
            name.len()
        ));
    }
    Ok(())
}

impl<T: Clone> Table<T> {
    /// An empty table (usable in a `static`).
    pub const fn new() -> Self {
        Table {
            slots: parking_lot::const_mutex(Vec::new()),
            published: Condvar::new(),
        }
    }

    /// Publishes `value` under `name`, replacing what was published there (returned).
    pub fn publish(&self, name: &str, value: T) -> Option<T> {
        let mut g = self.slots.lock();
        let old = match g.iter_mut().find(|(n, _)| n == name) {
            Some((_, v)) => Some(std::mem::replace(v, value)),
            None => {
                g.push((name.to_owned(), value));
                None
            }
        };
        drop(g);
        self.published.notify_all();
        old
    }

    /// Removes what is published under `name`, when `matches` selects it. Returns whether
    /// something was removed.
    pub fn remove_if(&self, name: &str, mut matches: impl FnMut(&T) -> bool) -> bool {
        let mut g = self.slots.lock();
        match g.iter().position(|(n, v)| n == name && matches(v)) {
            Some(i) => {
                g.swap_remove(i);
                true
            }
            None => false,
        }
    }

    /// Removes every publication `matches` selects; returns how many.
    pub fn remove_all(&self, mut matches: impl FnMut(&T) -> bool) -> usize {
        let mut g = self.slots.lock();
        let before = g.len();
        g.retain(|(_, v)| !matches(v));
        before - g.len()
    }

    /// Waits up to `timeout` (`None`: without limit) for a value under `name`.
    pub fn wait(&self, name: &str, timeout: Option<Duration>) -> Option<T> {
        let deadline = timeout.and_then(|t| Instant::now().checked_add(t));
        let mut g = self.slots.lock();
        loop {
            if let Some(v) = find(&g, name) {
                return Some(v);
            }
            match (timeout, deadline) {
                // a timeout too long for the clock waits without limit
                (Some(_), Some(d)) => {
                    if self.published.wait_until(&mut g, d).timed_out() {
                        return find(&g, name);
                    }
                }
                _ => self.published.wait(&mut g),
            }
        }
    }

    /// The names published now, sorted.
    pub fn names(&self) -> Vec<String> {
        let mut v: Vec<String> = self.slots.lock().iter().map(|(n, _)| n.clone()).collect();
        v.sort();
        v
    }
}

fn find<T: Clone>(slots: &[(String, T)], name: &str) -> Option<T> {
    slots
        .iter()
        .find(|(n, _)| n == name)
        .map(|(_, v)| v.clone())
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::Arc;

    #[test]
    fn a_waiter_is_woken_by_the_publication() {
        let t: Arc<Table<u32>> = Arc::new(Table::new());
        let t2 = t.clone();
        let waiter = std::thread::spawn(move || t2.wait("app", Some(Duration::from_secs(10))));
        std::thread::sleep(Duration::from_millis(20));
        t.publish("other", 1);
        t.publish("app", 7);
        assert_eq!(waiter.join().unwrap(), Some(7));
    }

    #[test]
    fn nothing_published_times_out_and_zero_does_not_wait() {
        let t: Table<u32> = Table::new();
        assert_eq!(t.wait("app", Some(Duration::from_millis(5))), None);
        assert_eq!(t.wait("app", Some(Duration::ZERO)), None);
        t.publish("app", 3);
        assert_eq!(t.wait("app", Some(Duration::ZERO)), Some(3));
    }

    #[test]
    fn replace_and_remove() {
        let t: Table<u32> = Table::new();
        assert_eq!(t.publish("a", 1), None);
        assert_eq!(t.publish("a", 2), Some(1));
        assert!(
            !t.remove_if("a", |v| *v == 1),
            "only the matching value goes"
        );
        assert!(t.remove_if("a", |v| *v == 2));
        assert_eq!(t.wait("a", Some(Duration::ZERO)), None);
        t.publish("a", 5);
        t.publish("b", 5);
        t.publish("c", 6);
        assert_eq!(t.remove_all(|v| *v == 5), 2);
        assert_eq!(t.names(), vec!["c".to_string()]);
    }

    #[test]
    fn names_are_checked() {
        assert!(check_name("").is_err());
        assert!(check_name(&"x".repeat(MAX_NAME_BYTES + 1)).is_err());
        assert!(check_name("default").is_ok());
    }
}
