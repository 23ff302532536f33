//! The OS bridges: what one platform's assistant integration needs beyond the exports.
//! [`android`]: AppFunctions assets and the GenericDocument conversion; [`apple`]: App
//! Intents. They sit above [`export`](crate::export) and below the C ABI.

pub(crate) mod android;
pub(crate) mod apple;
