//! Apple's App Intents: the Swift an app's build generates.
