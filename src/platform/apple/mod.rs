//! Apple's App Intents: the Swift an app's build generates. App Intents cannot be made at
//! run time (the Swift compiler and Xcode's metadata step read them from static
//! declarations), so the registry is written out as one Swift source file
//! ([`app_intents`], export format `swift-app-intents`) whose `perform()` methods call the
//! Swift runtime in `bindings/swift` (`AppFunctionsIntents`). docs/apple.md has the
//! mapping table.

mod names;
mod swift;

pub(crate) use swift::app_intents;
