//! Error codes of outcomes and errors of the registration API.

use std::fmt;

/// The closed list of outcome error codes (README.md, "The outcome of a call"). Every
/// binding mirrors it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[repr(i32)]
pub enum ErrorCode {
    /// No function (declared or generated) has this id.
    FunctionNotFound = 1,
    /// The function is registered but disabled.
    Disabled = 2,
    /// The arguments do not bind: unknown key, wrong type, missing value, too large, too deep.
    InvalidArgument = 3,
    /// An entity id did not resolve through the entity's lookup.
    EntityNotFound = 4,
    /// A delegate, the platform or the caller policy refused the call.
    Denied = 5,
    /// The host's permission hook refused (or no hook is installed).
    PermissionDenied = 6,
    /// The invocation's cancellation token was cancelled.
    Cancelled = 7,
    /// The invocation's timeout elapsed first.
    TimedOut = 8,
    /// The handler reported an error, threw, or returned a result that breaks its type.
    HandlerFailed = 9,
    /// A limit of the dispatcher was exceeded.
    LimitExceeded = 10,
    /// The operation is not supported here.
    NotSupported = 11,
    /// A bug or an unexpected condition in the core (a panic included).
    InternalError = 12,
}

impl ErrorCode {
    /// Every code, in numeric order.
    pub const ALL: [ErrorCode; 12] = [
        ErrorCode::FunctionNotFound,
        ErrorCode::Disabled,
        ErrorCode::InvalidArgument,
        ErrorCode::EntityNotFound,
        ErrorCode::Denied,
        ErrorCode::PermissionDenied,
        ErrorCode::Cancelled,
        ErrorCode::TimedOut,
        ErrorCode::HandlerFailed,
        ErrorCode::LimitExceeded,
        ErrorCode::NotSupported,
        ErrorCode::InternalError,
    ];

    /// The name used in outcome JSON (`errorCode`).
    pub fn as_str(self) -> &'static str {
        match self {
            ErrorCode::FunctionNotFound => "FunctionNotFound",
            ErrorCode::Disabled => "Disabled",
            ErrorCode::InvalidArgument => "InvalidArgument",
            ErrorCode::EntityNotFound => "EntityNotFound",
            ErrorCode::Denied => "Denied",
            ErrorCode::PermissionDenied => "PermissionDenied",
            ErrorCode::Cancelled => "Cancelled",
            ErrorCode::TimedOut => "TimedOut",
            ErrorCode::HandlerFailed => "HandlerFailed",
            ErrorCode::LimitExceeded => "LimitExceeded",
            ErrorCode::NotSupported => "NotSupported",
            ErrorCode::InternalError => "InternalError",
        }
    }

    /// Parses the name used in outcome JSON.
    pub fn from_name(name: &str) -> Option<ErrorCode> {
        ErrorCode::ALL.into_iter().find(|c| c.as_str() == name)
    }

    /// The numeric value used across the C ABI.
    pub fn from_i32(value: i32) -> Option<ErrorCode> {
        ErrorCode::ALL.into_iter().find(|c| *c as i32 == value)
    }

    /// The matching Android error code (the `ERROR_*` constants of
    /// `android.app.appfunctions.AppFunctionException`), kept in this one table.
    pub fn android_code(self) -> i32 {
        match self {
            ErrorCode::Denied => 1000,
            ErrorCode::InvalidArgument => 1001,
            ErrorCode::Disabled => 1002,
            ErrorCode::FunctionNotFound => 1003,
            ErrorCode::EntityNotFound => 1500,
            ErrorCode::LimitExceeded => 1501,
            ErrorCode::InternalError => 2000,
            ErrorCode::Cancelled | ErrorCode::TimedOut => 2001,
            ErrorCode::HandlerFailed => 3000,
            ErrorCode::PermissionDenied => 3500,
            ErrorCode::NotSupported => 3501,
        }
    }
}

impl fmt::Display for ErrorCode {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// Errors of the registration and inspection API (not of calls: calls return outcomes).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum Error {
    /// A descriptor or type definition is malformed; `path` names where.
    #[error("{path}: {reason}")]
    Descriptor {
        /// Where in the document (`functions[2].parameters.x`).
        path: String,
        /// What is wrong there.
        reason: String,
    },
    /// The text is not JSON at all.
    #[error("{what}: invalid JSON: {reason}")]
    Json {
        /// What was being read.
        what: String,
        /// The parser's reason.
        reason: String,
    },
    /// A function or entity with this id already exists.
    #[error("{0}")]
    Duplicate(String),
    /// No function with this id.
    #[error("no function with id \"{0}\"")]
    NotFound(String),
    /// The request is not allowed in this state.
    #[error("{0}")]
    Invalid(String),
}

impl Error {
    pub(crate) fn descriptor(path: impl Into<String>, reason: impl Into<String>) -> Error {
        Error::Descriptor {
            path: path.into(),
            reason: reason.into(),
        }
    }
}

/// The result of the registration and inspection API.
pub type Result<T, E = Error> = std::result::Result<T, E>;

/// What a build without one of the size-optional parts (a cargo feature, Cargo.toml) says
/// where that part would answer: `what` ("the MCP server") and the feature that keeps it.
#[allow(dead_code)] // only a build without one of the features says it
pub(crate) fn left_out(what: &str, feature: &str) -> String {
    format!(
        "{what} is not in this build of the library: it was built without the cargo feature \
         `{feature}` (docs/distribution.md, \"Size-optional features\")"
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_round_trip_and_android_codes_follow_appfunction_exception() {
        for c in ErrorCode::ALL {
            assert_eq!(ErrorCode::from_name(c.as_str()), Some(c));
            assert_eq!(ErrorCode::from_i32(c as i32), Some(c));
        }
        let android: Vec<(ErrorCode, i32)> = ErrorCode::ALL
            .iter()
            .map(|c| (*c, c.android_code()))
            .collect();
        assert_eq!(
            android,
            [
                (ErrorCode::FunctionNotFound, 1003),
                (ErrorCode::Disabled, 1002),
                (ErrorCode::InvalidArgument, 1001),
                (ErrorCode::EntityNotFound, 1500),
                (ErrorCode::Denied, 1000),
                (ErrorCode::PermissionDenied, 3500),
                (ErrorCode::Cancelled, 2001),
                (ErrorCode::TimedOut, 2001),
                (ErrorCode::HandlerFailed, 3000),
                (ErrorCode::LimitExceeded, 1501),
                (ErrorCode::NotSupported, 3501),
                (ErrorCode::InternalError, 2000),
            ]
        );
        assert_eq!(ErrorCode::from_i32(0), None);
        assert_eq!(ErrorCode::from_name("Nope"), None);
    }
}
