//! Version negotiation: the `initialize` handshake (revisions 2024-11-05 … 2025-11-25)
//! and the 2026-07-28 revision's `server/discover` and per-request envelope; what the
//! server says of itself (info, capabilities, instructions).

use super::*;

/// Whether `rev` (a handshake revision) has a feature introduced in `since`.
pub(super) fn at_least(rev: &str, since: &str) -> bool {
    rev == MODERN_REVISION || rev >= since
}

impl Session {
    pub(super) fn envelope_version(params: &Params<'_>) -> Option<Result<String, &'static str>> {
        let meta = params.meta.filter(|m| is_object(m))?;
        let meta: Meta<'_> = serde_json::from_str(meta.get()).unwrap_or_default();
        let v = meta.version?;
        Some(match as_string(v) {
            Some(s) if meta.capabilities.is_some_and(is_object) => Ok(s.into_owned()),
            Some(_) => Err("the request envelope lacks io.modelcontextprotocol/clientCapabilities"),
            None => Err("io.modelcontextprotocol/protocolVersion must be a string"),
        })
    }

    pub(super) fn server_info(&self) -> Value {
        let mut o = json!({"name": self.config.server_name, "version": self.config.server_version});
        if let Some(t) = &self.config.server_title {
            o["title"] = json!(t);
        }
        o
    }

    /// `listChanged` only when a change can reach the client: a transport for
    /// notifications is set.
    pub(super) fn capabilities(&self) -> Value {
        json!({"tools": {"listChanged": self.notify.lock().is_some()}})
    }

    pub(super) fn modern_result(&self, mut result: Value) -> Value {
        if let Value::Object(o) = &mut result {
            o.insert("resultType".into(), json!("complete"));
            let meta = o.entry("_meta").or_insert_with(|| json!({}));
            meta[META_SERVER] = self.server_info();
        }
        result
    }

    pub(super) fn instructions(&self) -> Option<String> {
        let view = self.view.instructions();
        match (&self.config.instructions, view.is_empty()) {
            (Some(a), false) => Some(format!("{a}\n\n{view}")),
            (Some(a), true) => Some(a.clone()),
            (None, false) => Some(view),
            (None, true) => None,
        }
    }

    pub(super) fn initialize(&self, id: String, params: &Params<'_>) -> Reply {
        let requested = params.protocol_version.and_then(as_string);
        let mut st = self.state.lock();
        match st.era {
            Era::Modern => {
                drop(st);
                // the revision's UnsupportedProtocolVersionError names what was asked for
                let asked = requested.as_deref().unwrap_or("");
                return Reply::Now(self.error_response(
                    Some(&id),
                    UNSUPPORTED_VERSION,
                    &format!(
                        "this connection uses the stateless 2026-07-28 revision; initialize (protocol version {}) is not used",
                        crate::model::types::quote_short(asked)
                    ),
                    Some(json!({"supported": [MODERN_REVISION], "requested": asked})),
                ));
            }
            Era::Handshake => {
                let version = st.version;
                drop(st);
                return Reply::Now(self.error_response(
                    Some(&id),
                    INVALID_REQUEST,
                    &format!(
                        "this connection is already initialized (protocol version {version}): initialize is sent once per connection"
                    ),
                    None,
                ));
            }
            Era::Unknown => {}
        }
        let Some(requested) = requested else {
            drop(st);
            return Reply::Now(self.error_response(
                Some(&id),
                INVALID_PARAMS,
                "initialize needs params.protocolVersion (a string)",
                None,
            ));
        };
        let version = HANDSHAKE_REVISIONS
            .iter()
            .find(|v| **v == requested)
            .copied()
            .unwrap_or(HANDSHAKE_REVISIONS[0]);
        st.era = Era::Handshake;
        st.version = version;
        drop(st);
        let mut server_info = self.server_info();
        if !at_least(version, "2025-06-18") {
            if let Value::Object(o) = &mut server_info {
                o.remove("title");
            }
        }
        let mut result = json!({
            "protocolVersion": version,
            "capabilities": self.capabilities(),
            "serverInfo": server_info,
        });
        if let Some(i) = self.instructions() {
            result["instructions"] = json!(i);
        }
        Reply::Now(result_response(&id, result))
    }
}
