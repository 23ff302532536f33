//! Text kept with a terminator after it, for borrowers.
//!
//! Some readers of the core's text find where a string ends by a terminator byte after it
//! rather than by a length it comes with. For them the core keeps the strings such a
//! reader is lent on every call (a function's id, the caller's package, a call's
//! arguments or lookup request, an outcome's JSON) with a [`TERMINATOR`] written after the
//! text once, when the string is made: the reader is lent the stored bytes in place, for
//! as long as their owner keeps them, with no copy per read. The core itself reads only
//! the text ([`Terminated::text`], [`unterminated`]); who is lent the rest, and how, is
//! not its business.
//!
//! Stored owned, such a string is a `String` whose last character is the terminator (the
//! functions that make or hand one over say so with `terminated` in their name); lent, it
//! is a [`Terminated`].

/// The character written after a kept string's text.
pub(crate) const TERMINATOR: char = '\0';

/// An empty kept string: only the terminator.
pub(crate) const EMPTY: &str = "\0";

/// A kept string lent out: its text, then the [`TERMINATOR`], as stored (borrowed for
/// as long as its owner keeps it). Public in a private module, as
/// [`crate::engine::call::GateSeq`] is: nothing outside the crate can name or make one.
#[derive(Clone, Copy, Debug)]
pub struct Terminated<'a>(&'a str);

impl<'a> Terminated<'a> {
    /// Lends `stored`, which ends with the terminator.
    #[inline]
    pub(crate) fn new(stored: &'a str) -> Terminated<'a> {
        debug_assert!(stored.ends_with(TERMINATOR), "{stored:?} has no terminator");
        Terminated(stored)
    }

    /// The text, without its terminator.
    #[inline]
    pub(crate) fn text(self) -> &'a str {
        unterminated(self.0)
    }

    /// The text followed by its terminator, as stored.
    #[inline]
    pub(crate) fn with_terminator(self) -> &'a str {
        self.0
    }
}

/// `text` followed by the terminator, in a buffer of exactly that size.
pub(crate) fn terminated(text: &str) -> String {
    let mut t = String::with_capacity(text.len() + 1);
    t.push_str(text);
    t.push(TERMINATOR);
    t
}

/// `text` followed by the terminator, shared: made in place from a copy on the stack when
/// it is short (a function's id is at most 64 bytes), so registering one allocates only
/// the `Arc` (through a [`String`] it would allocate twice).
pub(crate) fn terminated_arc(text: &str) -> std::sync::Arc<str> {
    let mut buf = [0u8; 128];
    match buf.get_mut(..text.len() + 1) {
        Some(b) => {
            b[..text.len()].copy_from_slice(text.as_bytes());
            b[text.len()] = TERMINATOR as u8;
            // the text's UTF-8 and an ASCII terminator: always UTF-8 (else the heap's way)
            match std::str::from_utf8(b) {
                Ok(kept) => std::sync::Arc::from(kept),
                Err(_) => std::sync::Arc::from(terminated(text)),
            }
        }
        None => std::sync::Arc::from(terminated(text)),
    }
}

/// A kept string's text, without its terminator (as it is if it has none).
#[inline]
pub(crate) fn unterminated(stored: &str) -> &str {
    stored.strip_suffix(TERMINATOR).unwrap_or(stored)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_shared_kept_string_is_the_text_and_its_terminator_at_any_length() {
        for text in [
            String::new(),
            "search_order".into(),
            "é".repeat(63),
            "x".repeat(127),
            "y".repeat(500),
        ] {
            let kept = terminated_arc(&text);
            assert_eq!(&*kept, terminated(&text), "{} bytes", text.len());
            assert_eq!(unterminated(&kept), text);
        }
    }

    #[test]
    fn a_kept_string_lends_its_text_and_the_terminator_after_it() {
        let kept = terminated("ping");
        assert_eq!(kept.len(), 5);
        assert_eq!(kept.capacity(), 5);
        let lent = Terminated::new(&kept);
        assert_eq!(lent.text(), "ping");
        assert_eq!(lent.with_terminator(), "ping\0");
        assert_eq!(Terminated::new(EMPTY).text(), "");
        assert_eq!(unterminated("no terminator"), "no terminator");
    }
}
