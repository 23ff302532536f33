//! Android's AppFunctions: the assets an app ships and the GenericDocument conversion.
