package dev.appfunctions.internal

/**
 * What every binding says about a call on a dispatcher after `close()` / `Dispose()`: the
 * outcome is `LimitExceeded` (the code the core gives after `af_dispatcher_shutdown`) with
 * `"<function id>": the dispatcher was disposed`; other members throw saying the same.
 */
internal const val DISPOSED = "the dispatcher was disposed"

/** A function id as messages quote it (the core's rule: at most 40 characters, then "…"). */
internal fun String.shortForMessage(): String = if (length > 40) take(40) + "…" else this
