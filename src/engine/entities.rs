//! Looking up entities by their ids: a call of its own through the entity's registered
//! lookup (`af_entities_json` / `af_entities_async`), what a platform's entity query
//! (`EntityQuery.entities(for:)` in App Intents) needs.
//!
//! The call is the one that resolves an entity parameter (`pipeline::resolve`), made by
//! itself: the lookup gets `{"ids": [...]}` after the scope hook and every delegate's
//! `on_invoking` (so a gate such as sign-in refuses the app's data here as it does when a
//! function takes the entity), under the invocation's platform, token and timeout; its
//! answer comes back in the order of the ids asked for (`pipeline::by_ids_outcome`).

use crate::engine::call::{Call, Invocation, InvocationRef, OutcomeSink};
use crate::engine::dispatcher::Dispatcher;
use crate::model::error::ErrorCode;
use crate::model::outcome::Outcome;
use crate::model::quote::{describe_json, quote_short};
use crate::model::terminated::Terminated;
use serde_json::Value;
use std::sync::Arc;

/// The ids to look up: a JSON array of strings, each kept once (at its first place).
pub(crate) fn parse_ids(text: &str, max_bytes: usize) -> Result<Vec<String>, String> {
    if text.len() > max_bytes {
        return Err(format!(
            "ids_json is {} bytes, more than the limit of {max_bytes} bytes",
            text.len()
        ));
    }
    let v: Value =
        serde_json::from_str(text).map_err(|e| format!("ids_json: invalid JSON: {e}"))?;
    let Value::Array(items) = v else {
        return Err(format!(
            "ids_json: expected an array of entity ids (strings), found {}",
            describe_json(&v)
        ));
    };
    let mut ids: Vec<String> = Vec::with_capacity(items.len());
    for (i, item) in items.into_iter().enumerate() {
        match item {
            Value::String(id) => {
                if !ids.contains(&id) {
                    ids.push(id);
                }
            }
            other => {
                return Err(format!(
                    "ids_json[{i}]: expected an entity id (a string), found {}",
                    describe_json(&other)
                ))
            }
        }
    }
    Ok(ids)
}

/// The ids given as a list, each kept once.
fn dedup(ids: &[&str]) -> Vec<String> {
    let mut out: Vec<String> = Vec::with_capacity(ids.len());
    for id in ids {
        if !out.iter().any(|x| x == id) {
            out.push((*id).to_owned());
        }
    }
    out
}

/// Where the ids come from: text to parse (the C ABI) or a list.
pub(crate) enum Ids<'a> {
    Json(&'a str),
    List(&'a [&'a str]),
}

/// What a lookup by ids is before it runs: a call to drive, or an outcome already.
enum Started {
    Call(Arc<Call>),
    Done(Outcome),
}

impl Dispatcher {
    /// The entities of `entity` with these ids, through the entity's registered lookup,
    /// blocking until the outcome JSON: `{"status": "success", "result": [...]}` with the
    /// entities in the order of `ids` (an id asked twice gives its entity once, at its
    /// first place; an id the lookup does not return is left out), or an error outcome: an
    /// unknown entity (`InvalidArgument`), a lookup that fails (its code, "looking up
    /// {entity} failed: ..."), answers what is not a list of the entity (`HandlerFailed`),
    /// times out or is cancelled (`TimedOut`, `Cancelled`), a delegate that refuses, a
    /// shut-down dispatcher (`LimitExceeded`). `inv` gives the platform, foreground, caller,
    /// token, timeout and host context; its `function_id` is not read. The delegates run
    /// as for a lookup that resolves an entity parameter: they see an entity lookup of
    /// `search_{entity}` with the request `{"ids": [...]}`.
    ///
    /// ```
    /// use appfunctions::{sync_handler, Dispatcher, Invocation};
    /// let d = Dispatcher::new();
    /// d.register_entity(
    ///     r#"{"name": "order", "fields": [{"name": "id", "type": "string"}]}"#,
    ///     sync_handler(|call| {
    ///         // {"ids": ["B-2", "A-1", "Z-9"]}: the lookup may answer in any order
    ///         assert!(call.lookup_request().unwrap().contains("\"ids\""));
    ///         Ok(Some(r#"[{"id": "A-1"}, {"id": "B-2"}]"#.into()))
    ///     }),
    /// )?;
    /// let json: serde_json::Value =
    ///     serde_json::from_str(&d.entities(&Invocation::default(), "order", &["B-2", "A-1", "Z-9"])).unwrap();
    /// assert_eq!(json["result"], serde_json::json!([{"id": "B-2"}, {"id": "A-1"}]));
    /// # Ok::<(), appfunctions::Error>(())
    /// ```
    pub fn entities(&self, inv: &Invocation, entity: &str, ids: &[&str]) -> String {
        let mut json = self.entities_terminated_ref(&inv.as_ref(), entity, Ids::List(ids));
        json.pop();
        json
    }

    /// [`Dispatcher::entities`] that returns at once; `on_outcome` receives the outcome
    /// exactly once, on the thread that finishes the call (this one when it is refused
    /// before the lookup runs or everything answers inline), as for
    /// [`Dispatcher::execute_async`].
    pub fn entities_async(
        &self,
        inv: &Invocation,
        entity: &str,
        ids: &[&str],
        on_outcome: impl FnOnce(&Outcome, &str) + Send + 'static,
    ) {
        let sink =
            OutcomeSink::boxed(move |o: Outcome, json: Terminated<'_>| on_outcome(&o, json.text()));
        self.entities_async_sink_ref(&inv.as_ref(), entity, Ids::List(ids), sink, true);
    }

    /// [`Dispatcher::entities`] for a borrowed invocation, the outcome JSON terminated.
    pub(crate) fn entities_terminated_ref(
        &self,
        inv: &InvocationRef<'_>,
        entity: &str,
        ids: Ids<'_>,
    ) -> String {
        match self.start_by_ids(inv, entity, ids, None, false) {
            Started::Done(o) => o.to_json_terminated(),
            Started::Call(call) => Self::drive_blocking(&call, None),
        }
    }

    /// [`Dispatcher::entities_async`] whose outcome goes to `sink` (`keep_outcome`: the
    /// sink reads the [`Outcome`], else only its JSON).
    pub(crate) fn entities_async_sink_ref(
        &self,
        inv: &InvocationRef<'_>,
        entity: &str,
        ids: Ids<'_>,
        sink: OutcomeSink,
        keep_outcome: bool,
    ) {
        // the sink goes into the call, or comes back for an outcome known already
        let mut sink = Some(sink);
        let started = self.start_by_ids(inv, entity, ids, Some(&mut sink), keep_outcome);
        match started {
            Started::Call(call) => Self::drive_async(&call, None),
            Started::Done(o) => {
                let json = o.to_json_terminated();
                if let Some(s) = sink {
                    s.deliver(o, Terminated::new(&json));
                }
            }
        }
    }

    /// Checks the request and makes the call, or the outcome that ends it before any host
    /// code runs: the dispatcher shutting down, an unknown entity, ids that are not a list
    /// of strings, no ids at all (`[]`, with no lookup). `sink` is taken only by a call.
    fn start_by_ids(
        &self,
        inv: &InvocationRef<'_>,
        entity: &str,
        ids: Ids<'_>,
        sink: Option<&mut Option<OutcomeSink>>,
        keep_outcome: bool,
    ) -> Started {
        let shutting_down = || {
            Started::Done(Outcome::error(
                ErrorCode::LimitExceeded,
                format!(
                    "looking up {} by id: the dispatcher is shutting down",
                    quote_short(entity)
                ),
            ))
        };
        if self.is_shutting_down() {
            return shutting_down();
        }
        let snap = self.snapshot();
        let Some(index) = snap.types.entity_by_name(entity) else {
            let names = snap.types.entities.iter().map(|e| e.name.as_str());
            let hint = match crate::model::types::closest(names, entity) {
                Some(c) => format!(" (did you mean \"{c}\"?)"),
                None if snap.types.entities.is_empty() => {
                    " (the dispatcher has no entities)".to_owned()
                }
                None => String::new(),
            };
            return Started::Done(Outcome::error(
                ErrorCode::InvalidArgument,
                format!("no entity named {}{hint}", quote_short(entity)),
            ));
        };
        let ids = match ids {
            Ids::List(list) => dedup(list),
            Ids::Json(text) => match parse_ids(text, snap.limits.max_input_bytes) {
                Ok(ids) => ids,
                Err(msg) => return Started::Done(Outcome::error(ErrorCode::InvalidArgument, msg)),
            },
        };
        if ids.is_empty() {
            return Started::Done(Outcome::success(Some("[]".into())));
        }
        let Some(search) = snap.search_slot(index) else {
            return Started::Done(Outcome::error(
                ErrorCode::InternalError,
                format!("the entity {} has no lookup", quote_short(entity)),
            ));
        };
        // {"ids":[...]}, terminated, for the lookup to read
        let mut request =
            String::with_capacity(16 + ids.iter().map(|i| i.len() + 3).sum::<usize>());
        request.push_str("{\"ids\":[");
        for (n, id) in ids.iter().enumerate() {
            if n > 0 {
                request.push(',');
            }
            crate::model::binding::write_json_str(&mut request, id);
        }
        request.push_str("]}");
        request.push(crate::model::terminated::TERMINATOR);
        let Some(shard) = self.call_started() else {
            return shutting_down();
        };
        let call = Call::new_by_ids(
            snap,
            inv,
            search,
            index,
            request,
            shard,
            self.default_timeout(),
            keep_outcome,
            sink.and_then(Option::take),
        );
        Self::watch_token(&call, inv);
        Started::Call(call)
    }
}

#[cfg(test)]
mod tests {
    use super::parse_ids;

    #[test]
    fn ids_are_an_array_of_strings_each_kept_once() {
        assert_eq!(
            parse_ids(r#"["b", "a", "b"]"#, 100).unwrap(),
            vec!["b".to_owned(), "a".to_owned()]
        );
        assert_eq!(parse_ids("[]", 100).unwrap(), Vec::<String>::new());
        let e = parse_ids(r#"["a", 7]"#, 100).unwrap_err();
        assert_eq!(
            e,
            "ids_json[1]: expected an entity id (a string), found number 7"
        );
        let e = parse_ids(r#"{"ids": ["a"]}"#, 100).unwrap_err();
        assert!(
            e.starts_with("ids_json: expected an array of entity ids"),
            "{e}"
        );
        let e = parse_ids("[\"a\"", 100).unwrap_err();
        assert!(e.starts_with("ids_json: invalid JSON: "), "{e}");
        let e = parse_ids(r#"["abc"]"#, 4).unwrap_err();
        assert_eq!(e, "ids_json is 7 bytes, more than the limit of 4 bytes");
    }
}
