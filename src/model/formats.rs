//! String formats: RFC 3339 date-times (the ISO 8601 profile JSON Schema's `date-time`
//! means), full dates and UUIDs.

fn digits(b: &[u8]) -> Option<u32> {
    if b.is_empty() || !b.iter().all(u8::is_ascii_digit) {
        return None;
    }
    Some(b.iter().fold(0u32, |n, d| n * 10 + u32::from(d - b'0')))
}

fn days_in_month(year: u32, month: u32) -> u32 {
    match month {
        1 | 3 | 5 | 7 | 8 | 10 | 12 => 31,
        4 | 6 | 9 | 11 => 30,
        _ => {
            if (year % 4 == 0 && year % 100 != 0) || year % 400 == 0 {
                29
            } else {
                28
            }
        }
    }
}

/// `YYYY-MM-DD`, a real calendar day, year 0001 to 9999.
pub fn check_date(s: &str) -> Result<(), &'static str> {
    let b = s.as_bytes();
    if b.len() != 10 || b[4] != b'-' || b[7] != b'-' {
        return Err("not in the form YYYY-MM-DD");
    }
    let (Some(y), Some(m), Some(d)) = (digits(&b[0..4]), digits(&b[5..7]), digits(&b[8..10]))
    else {
        return Err("not in the form YYYY-MM-DD");
    };
    if y == 0 {
        return Err("year 0000 does not exist");
    }
    if !(1..=12).contains(&m) {
        return Err("month out of range");
    }
    if d == 0 || d > days_in_month(y, m) {
        return Err("no such day in that month");
    }
    Ok(())
}

/// RFC 3339 `date-time`: `YYYY-MM-DDTHH:MM:SS[.frac](Z|±HH:MM)`; `T` and `Z` in either case.
/// The reason says what is missing or wrong (the offset above all: a local time without
/// one names no instant).
pub fn check_date_time(s: &str) -> Result<(), &'static str> {
    let b = s.as_bytes();
    // get, not [..10]: byte 10 may fall inside a multi-byte character
    // (tests/fuzz_regressions.rs)
    check_date(
        s.get(..10)
            .ok_or("the date is not in the form YYYY-MM-DD")?,
    )?;
    match b.get(10) {
        None => return Err("the time and the offset are missing (a date alone is a \"date\")"),
        Some(b'T' | b't') => {}
        Some(_) => return Err("the date and the time must be separated by T"),
    }
    let t = &b[11..];
    if t.len() == 5 && t[2] == b':' {
        return Err("the seconds and the offset are missing (HH:MM:SS, then Z or ±HH:MM)");
    }
    if t.len() < 8 || t[2] != b':' || t[5] != b':' {
        return Err("the time is not HH:MM:SS");
    }
    let (Some(h), Some(mi), Some(sec)) = (digits(&t[0..2]), digits(&t[3..5]), digits(&t[6..8]))
    else {
        return Err("the time is not HH:MM:SS");
    };
    if h > 23 || mi > 59 || sec > 59 {
        return Err("the time is out of range");
    }
    let mut rest = &t[8..];
    if rest.first() == Some(&b'.') {
        let n = rest[1..].iter().take_while(|c| c.is_ascii_digit()).count();
        if n == 0 {
            return Err("a fraction of a second needs digits");
        }
        rest = &rest[1 + n..];
    }
    match rest {
        [b'Z'] | [b'z'] => Ok(()),
        [sign, oh1, oh2, b':', om1, om2] if *sign == b'+' || *sign == b'-' => {
            match (digits(&[*oh1, *oh2]), digits(&[*om1, *om2])) {
                (Some(oh), Some(om)) if oh <= 23 && om <= 59 => Ok(()),
                _ => Err("the offset is out of range"),
            }
        }
        [] => Err("the offset is missing: add Z for UTC or the local offset such as +02:00"),
        _ => Err("the offset is not Z or ±HH:MM"),
    }
}

/// The canonical 8-4-4-4-12 hex form (either case).
pub fn is_uuid(s: &str) -> bool {
    let b = s.as_bytes();
    b.len() == 36
        && b.iter().enumerate().all(|(i, c)| match i {
            8 | 13 | 18 | 23 => *c == b'-',
            _ => c.is_ascii_hexdigit(),
        })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn date_times() {
        for ok in [
            "2025-06-01T17:00:00+02:00",
            "2025-06-01T17:00:00Z",
            "2024-02-29t23:59:59.123456z",
            "1999-12-31T00:00:00-08:00",
        ] {
            assert_eq!(check_date_time(ok), Ok(()), "{ok}");
        }
        for bad in [
            "2025-06-01T17:00:00",
            "2025-06-01 17:00:00Z",
            "2023-02-29T00:00:00Z",
            "2025-06-01T24:00:00Z",
            "2025-06-01T17:00:00+2:00",
            "2025-06-01T17:00:00.Z",
            "tomorrow",
            "2025-06-01T17:00Z",
        ] {
            assert!(check_date_time(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn date_time_reasons_say_what_is_missing() {
        for (bad, why) in [
            (
                "2025-06-01T17:00:00",
                "the offset is missing: add Z for UTC or the local offset such as +02:00",
            ),
            (
                "2025-06-01T17:00:00.5",
                "the offset is missing: add Z for UTC or the local offset such as +02:00",
            ),
            (
                "2025-06-01T17:00",
                "the seconds and the offset are missing (HH:MM:SS, then Z or ±HH:MM)",
            ),
            (
                "2025-06-01",
                "the time and the offset are missing (a date alone is a \"date\")",
            ),
            (
                "2025-06-01 17:00:00Z",
                "the date and the time must be separated by T",
            ),
            ("tomorrow", "the date is not in the form YYYY-MM-DD"),
            ("2025-06-01T17:00:00+2:00", "the offset is not Z or ±HH:MM"),
        ] {
            assert_eq!(check_date_time(bad), Err(why), "{bad}");
        }
    }

    #[test]
    fn dates_and_uuids() {
        assert!(check_date("2025-06-01").is_ok());
        assert!(check_date("2025-13-01").is_err());
        assert!(check_date("2025-6-01").is_err());
        assert!(check_date("0000-01-01").is_err());
        assert!(is_uuid("123e4567-e89b-12d3-A456-426614174000"));
        assert!(!is_uuid("123e4567e89b12d3a456426614174000"));
        assert!(!is_uuid("123e4567-e89b-12d3-a456-42661417400g"));
    }
}
