//! Android's AppFunctions (API 36, `android.app.appfunctions`): the assets an app ships and
//! the GenericDocument conversion (docs/android.md).
//!
//! - [`document`]: a request's parameters document into a function's arguments, an outcome
//!   into the response document or an `AppFunctionException` code and message.
//! - `assets`: the legacy v1 file, the document-type schema and the manifest entries,
//!   written by `Dispatcher::export` (`export::android_check` checks them).
//! - `call`: [`Dispatcher::execute_android`](crate::Dispatcher::execute_android) and its
//!   asynchronous twin, which run a call through the pipeline with those conversions.

pub(crate) mod assets;
mod call;
pub mod document;

pub use document::{arguments, error_response, response, DIALOG_EXTRA, RETURN_VALUE_PROPERTY};
