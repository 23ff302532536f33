//! Subscriptions: where notifications go, `notifications/tools/list_changed` when the
//! registry or the view changes, and the 2026-07-28 revision's `subscriptions/listen`
//! streams.

use super::*;

/// `notifications/tools/list_changed`: plain (handshake era, `subscription` empty) or on
/// the `subscriptions/listen` stream whose id is `subscription`.
pub(super) fn list_changed_message(subscription: &str) -> String {
    if subscription.is_empty() {
        r#"{"jsonrpc":"2.0","method":"notifications/tools/list_changed"}"#.into()
    } else {
        format!(
            "{{\"jsonrpc\":\"2.0\",\"method\":\"notifications/tools/list_changed\",\"params\":{{\"_meta\":{{\"{META_SUBSCRIPTION}\":{subscription}}}}}}}"
        )
    }
}

impl Session {
    /// Where server-initiated notifications go. `None` also ends every open
    /// `subscriptions/listen` stream silently (nothing can reach the client any more).
    pub fn set_notify(&self, n: Option<Notify>) {
        let none = n.is_none();
        *self.notify.lock() = n;
        if none {
            self.state.lock().subscriptions.clear();
        }
    }

    /// Ends every open `subscriptions/listen` stream, as a transport does when it closes:
    /// nothing more is sent for them.
    pub fn end_subscriptions(&self) {
        self.state.lock().subscriptions.clear();
    }

    /// Ends every open `subscriptions/listen` stream on the server's initiative (a
    /// shutdown that keeps the transport open): each gets its graceful closing result.
    pub fn close_subscriptions(&self) {
        let ids: Vec<String> = std::mem::take(&mut self.state.lock().subscriptions)
            .into_iter()
            .map(|s| s.id)
            .collect();
        let n = self.notify.lock().clone();
        if let Some(n) = n {
            for id in ids {
                let mut meta = json!({ META_SERVER: self.server_info() });
                meta[META_SUBSCRIPTION] = serde_json::from_str(&id).unwrap_or(Value::Null);
                n(&result_response(
                    &id,
                    json!({"resultType": "complete", "_meta": meta}),
                ));
            }
        }
    }

    /// How many `subscriptions/listen` streams are open.
    pub fn subscriptions(&self) -> usize {
        self.state.lock().subscriptions.len()
    }

    pub(super) fn list_changed(&self) {
        let n = self.notify.lock().clone();
        let Some(n) = n else { return };
        let targets: Vec<String> = {
            let mut st = self.state.lock();
            match st.era {
                Era::Handshake if st.initialized => vec![String::new()],
                Era::Handshake => {
                    st.changed_before_initialized = true;
                    Vec::new()
                }
                Era::Modern => {
                    let mut out = Vec::new();
                    for s in st.subscriptions.iter_mut().filter(|s| s.tools) {
                        if s.acked {
                            out.push(s.id.clone());
                        } else {
                            s.pending = true;
                        }
                    }
                    out
                }
                _ => Vec::new(),
            }
        };
        for t in targets {
            n(&list_changed_message(&t));
        }
    }

    /// `subscriptions/listen` (2026-07-28): acknowledges first, then sends
    /// `notifications/tools/list_changed` on the stream until the client cancels it or
    /// the transport closes. No response now: the response ends the stream.
    pub(super) fn listen(&self, id: String, params: &Params<'_>) -> Reply {
        let Some(n) = self.notify.lock().clone() else {
            return Reply::Now(self.error_response(
                Some(&id),
                METHOD_NOT_FOUND,
                "subscriptions/listen is not available: this server's host has no way to send notifications (tools.listChanged is false)",
                None,
            ));
        };
        let Some(filter) = params.notifications.filter(|f| is_object(f)) else {
            return Reply::Now(self.error_response(
                Some(&id),
                INVALID_PARAMS,
                "subscriptions/listen needs params.notifications (an object)",
                None,
            ));
        };
        let filter: Filter = match serde_json::from_str(filter.get()) {
            Ok(f) => f,
            Err(e) => {
                return Reply::Now(self.error_response(
                    Some(&id),
                    INVALID_PARAMS,
                    &format!("params.notifications: {e}"),
                    None,
                ))
            }
        };
        let tools = matches!(filter.tools_list_changed, Some(IgnoredValueOr::Value(true)));
        {
            let mut st = self.state.lock();
            if st.in_flight.contains_key(&id) || st.subscriptions.iter().any(|s| s.id == id) {
                drop(st);
                return Reply::Now(self.error_response(
                    Some(&id),
                    INVALID_REQUEST,
                    "a request with this id is already in flight",
                    None,
                ));
            }
            if st.subscriptions.len() >= self.config.max_subscriptions {
                drop(st);
                return Reply::Now(self.error_response(
                    Some(&id),
                    INVALID_REQUEST,
                    &format!(
                        "too many subscriptions: at most {} streams may be open at once",
                        self.config.max_subscriptions
                    ),
                    None,
                ));
            }
            st.subscriptions.push(Subscription {
                id: id.clone(),
                tools,
                acked: false,
                pending: false,
            });
        }
        let honored = if tools {
            "{\"toolsListChanged\":true}"
        } else {
            "{}"
        };
        n(&format!(
            "{{\"jsonrpc\":\"2.0\",\"method\":\"notifications/subscriptions/acknowledged\",\"params\":{{\"_meta\":{{\"{META_SUBSCRIPTION}\":{id}}},\"notifications\":{honored}}}}}"
        ));
        let pending = {
            let mut st = self.state.lock();
            match st.subscriptions.iter_mut().find(|s| s.id == id) {
                Some(s) => {
                    s.acked = true;
                    std::mem::take(&mut s.pending)
                }
                None => false,
            }
        };
        if pending {
            n(&list_changed_message(&id));
        }
        Reply::Nothing
    }
}
