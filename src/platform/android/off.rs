//! The Android bridge in a build without the `android` cargo feature: what the C ABI's
//! `af_android_*` functions reach. Every call's response is `ERROR_SYSTEM_ERROR` (`2000`)
//! naming the feature, as the platform expects an answer, never none.

use crate::engine::call::Invocation;
use crate::engine::dispatcher::Dispatcher;

/// The responses of this build.
pub mod document {
    use serde_json::{Map, Value};

    /// `AppFunctionException.ERROR_SYSTEM_ERROR`, as in a build with the bridge.
    pub(crate) const ERROR_SYSTEM_ERROR: i32 = 2000;

    /// `{"errorCode": code, "message": message}`, as in a build with the bridge.
    pub fn error_response(code: i32, message: &str) -> String {
        let mut o = Map::new();
        o.insert("errorCode".into(), Value::from(code));
        o.insert("message".into(), Value::String(message.to_owned()));
        Value::Object(o).to_string()
    }

    /// What every call answers.
    pub(crate) fn left_out() -> String {
        error_response(
            ERROR_SYSTEM_ERROR,
            &crate::model::error::left_out("the Android AppFunctions bridge", "android"),
        )
    }
}

impl Dispatcher {
    /// Answers `2000`: the bridge is not in this build.
    pub fn execute_android(&self, _inv: &Invocation, _parameters: Option<&str>) -> String {
        document::left_out()
    }

    /// Answers `2000` at once: the bridge is not in this build.
    pub fn execute_android_async(
        &self,
        _inv: &Invocation,
        _parameters: Option<&str>,
        on_response: impl FnOnce(&str) + Send + 'static,
    ) {
        on_response(&document::left_out())
    }
}
