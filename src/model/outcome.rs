//! The outcome of one call: `{"status", "result", "dialog", "errorCode", "message"}`,
//! written directly around the result JSON rather than built as a tree.

use crate::model::binding::write_json_str;
use crate::model::error::ErrorCode;
use crate::model::terminated::TERMINATOR;
use serde_json::Value;

/// `success`, `error` or `openApp` (continue in the app's foreground, apple only).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Status {
    /// The function ran; `result` holds its value.
    Success,
    /// The call failed; `error_code` and `message` say why.
    Error,
    /// Continue in the app's foreground (apple); `message` says why.
    OpenApp,
}

impl Status {
    /// The status as the outcome JSON writes it.
    pub fn as_str(self) -> &'static str {
        match self {
            Status::Success => "success",
            Status::Error => "error",
            Status::OpenApp => "openApp",
        }
    }
}

/// One call's outcome.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Outcome {
    /// Success, error or openApp.
    pub status: Status,
    /// The result as normalised JSON text (`None` is `null`).
    pub result: Option<String>,
    /// What the function said to the user ([`crate::Call::say`]).
    pub dialog: Option<String>,
    /// Why the call failed (for `error`).
    pub error_code: Option<ErrorCode>,
    /// The error's or openApp's message.
    pub message: Option<String>,
    /// An output-kind function ended the agent's run: the result is its structured answer.
    pub is_final: bool,
}

impl Outcome {
    /// A success with `result` (JSON text; `None` is `null`).
    pub fn success(result: Option<String>) -> Outcome {
        Outcome {
            status: Status::Success,
            result,
            dialog: None,
            error_code: None,
            message: None,
            is_final: false,
        }
    }

    /// An error with its code and message.
    pub fn error(code: ErrorCode, message: impl Into<String>) -> Outcome {
        Outcome {
            status: Status::Error,
            result: None,
            dialog: None,
            error_code: Some(code),
            message: Some(message.into()),
            is_final: false,
        }
    }

    /// An openApp outcome with its message.
    pub fn open_app(message: impl Into<String>) -> Outcome {
        Outcome {
            status: Status::OpenApp,
            result: None,
            dialog: None,
            error_code: None,
            message: Some(message.into()),
            is_final: false,
        }
    }

    /// Whether the status is success.
    pub fn is_success(&self) -> bool {
        self.status == Status::Success
    }

    /// The outcome JSON (README.md, "The outcome of a call"), plus `"final": true` for output
    /// tools.
    pub fn to_json(&self) -> String {
        let mut s = String::with_capacity(
            80 + self.result.as_ref().map_or(0, String::len)
                + self.message.as_ref().map_or(0, String::len)
                + self.dialog.as_ref().map_or(0, String::len),
        );
        self.write(&mut s);
        s
    }

    fn write(&self, s: &mut String) {
        s.push_str("{\"status\":\"");
        s.push_str(self.status.as_str());
        s.push_str("\",\"result\":");
        s.push_str(self.result.as_deref().unwrap_or("null"));
        self.write_tail(s);
    }

    /// What follows the result.
    fn write_tail(&self, s: &mut String) {
        s.push_str(",\"dialog\":");
        opt_str(s, self.dialog.as_deref());
        s.push_str(",\"errorCode\":");
        match self.error_code {
            Some(c) => {
                s.push('"');
                s.push_str(c.as_str());
                s.push('"');
            }
            None => s.push_str("null"),
        }
        s.push_str(",\"message\":");
        opt_str(s, self.message.as_deref());
        if self.is_final {
            s.push_str(",\"final\":true");
        }
        s.push('}');
    }

    /// The length of [`Outcome::to_json_terminated`].
    fn json_terminated_len(&self) -> usize {
        11 + self.status.as_str().len()
            + 11
            + self.result.as_deref().map_or(4, str::len)
            + 10
            + opt_str_len(self.dialog.as_deref())
            + 13
            + self.error_code.map_or(4, |c| c.as_str().len() + 2)
            + 11
            + opt_str_len(self.message.as_deref())
            + if self.is_final { 13 } else { 0 }
            + 2
    }

    /// The outcome JSON kept with its terminator ([`crate::model::terminated`]), in a
    /// buffer of exactly its size (so a borrower can be handed it as it is, without a copy
    /// or a shrink).
    pub(crate) fn to_json_terminated(&self) -> String {
        let len = self.json_terminated_len();
        let mut s = String::with_capacity(len);
        self.write(&mut s);
        s.push(TERMINATOR);
        debug_assert_eq!(s.len(), len, "{s}");
        s
    }

    /// [`Outcome::to_json_terminated`], written into the result's own buffer when that has
    /// exactly the room for it (a result made with [`result_buffer`]): no allocation, no
    /// copy of the result.
    pub(crate) fn take_json_terminated(&mut self) -> String {
        let len = self.json_terminated_len();
        if self.status == Status::Success {
            if let Some(r) = self.result.as_mut().filter(|r| r.capacity() == len) {
                let mut s = std::mem::take(r);
                s.insert_str(0, SUCCESS_HEAD);
                self.write_tail(&mut s);
                s.push(TERMINATOR);
                debug_assert_eq!(s.len(), len, "{s}");
                return s;
            }
        }
        self.to_json_terminated()
    }

    /// Parses outcome JSON (for hosts and tests).
    pub fn from_json(text: &str) -> Result<Outcome, String> {
        let v: Value = serde_json::from_str(text).map_err(|e| e.to_string())?;
        let status = match v.get("status").and_then(Value::as_str) {
            Some("success") => Status::Success,
            Some("error") => Status::Error,
            Some("openApp") => Status::OpenApp,
            other => return Err(format!("bad status {other:?}")),
        };
        let s = |k: &str| v.get(k).and_then(Value::as_str).map(str::to_owned);
        Ok(Outcome {
            status,
            result: match v.get("result") {
                None | Some(Value::Null) => None,
                Some(r) => Some(r.to_string()),
            },
            dialog: s("dialog"),
            error_code: s("errorCode").and_then(|c| ErrorCode::from_name(&c)),
            message: s("message"),
            is_final: v.get("final").and_then(Value::as_bool).unwrap_or(false),
        })
    }
}

/// What comes before the result in a success's JSON.
const SUCCESS_HEAD: &str = "{\"status\":\"success\",\"result\":";
/// What follows the result in a success's JSON when nothing was said, and the terminator.
const PLAIN_TAIL_TERMINATED: usize =
    ",\"dialog\":null,\"errorCode\":null,\"message\":null}".len() + TERMINATOR.len_utf8();

/// A handler's result in a buffer with the room for the outcome around it (a plain success:
/// nothing said, not final), so [`Outcome::take_json_terminated`] writes the outcome there.
pub(crate) fn result_buffer(result: &str) -> String {
    let mut s = String::with_capacity(SUCCESS_HEAD.len() + result.len() + PLAIN_TAIL_TERMINATED);
    s.push_str(result);
    s
}

/// The length of what `opt_str` writes.
fn opt_str_len(v: Option<&str>) -> usize {
    match v {
        Some(t) => crate::model::binding::json_str_len(t),
        None => 4,
    }
}

fn opt_str(s: &mut String, v: Option<&str>) {
    match v {
        Some(t) => write_json_str(s, t),
        None => s.push_str("null"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_design_shape() {
        let o = Outcome::success(Some("{\"id\":\"o-1\"}".into()));
        assert_eq!(
            o.to_json(),
            r#"{"status":"success","result":{"id":"o-1"},"dialog":null,"errorCode":null,"message":null}"#
        );
        let e = Outcome::error(
            ErrorCode::InvalidArgument,
            "quantity: expected int32, got string \"two\"",
        );
        assert_eq!(
            e.to_json(),
            r#"{"status":"error","result":null,"dialog":null,"errorCode":"InvalidArgument","message":"quantity: expected int32, got string \"two\""}"#
        );
        assert_eq!(Outcome::from_json(&e.to_json()).unwrap(), e);
        let mut f = Outcome::success(Some("1".into()));
        f.is_final = true;
        assert!(f.to_json().ends_with(",\"final\":true}"));
    }

    #[test]
    fn the_kept_json_is_the_json_and_its_terminator_in_a_buffer_of_that_size() {
        let mut with_all = Outcome::error(ErrorCode::Denied, "tab\there \"q\" \\ nl\n \u{1} é");
        with_all.dialog = Some("Said \u{0}.".into());
        let mut fin = Outcome::success(Some("[1,2]".into()));
        fin.is_final = true;
        for o in [
            Outcome::success(None),
            Outcome::success(Some("\"ok\"".into())),
            Outcome::open_app("Continue in the app."),
            with_all,
            fin,
        ] {
            let j = o.to_json_terminated();
            assert_eq!(j, format!("{}\0", o.to_json()));
            assert_eq!(j.capacity(), j.len(), "{j}");
            assert_eq!(o.clone().take_json_terminated(), j);
        }
        // a result made with the room for its outcome: written there
        let mut o = Outcome::success(Some(result_buffer("{\"id\":\"o-1\"}")));
        let at = o.result.as_ref().unwrap().as_ptr();
        let j = o.clone().take_json_terminated();
        assert_eq!(j, format!("{}\0", o.to_json()));
        assert_eq!(j.capacity(), j.len());
        let mine = o.take_json_terminated();
        assert_eq!(mine.as_ptr(), at);
        // with a dialog there is no room: made anew, the same text
        let mut said = Outcome::success(Some(result_buffer("1")));
        said.dialog = Some("Done.".into());
        assert_eq!(
            said.clone().take_json_terminated(),
            format!("{}\0", said.to_json())
        );
    }
}
