//! Framing and batching: one JSON-RPC message (or batch) in, at most one out; each
//! request routed to its method, each notification handled. Messages are read without
//! building a tree of the whole text.

use super::*;

impl Session {
    /// Handles one message and blocks for a tool call's outcome. `None`: no response.
    pub fn handle(&self, message: &str) -> Option<String> {
        self.finish(self.handle_message(message))
    }

    /// [`Session::handle`] for a message as bytes: the length is checked before
    /// anything else (a message over the limit is neither validated nor parsed), then
    /// UTF-8 (invalid text is a parse error).
    pub fn handle_bytes(&self, message: &[u8]) -> Option<String> {
        self.finish(self.handle_message_bytes(message))
    }

    pub(super) fn finish(&self, r: Reply) -> Option<String> {
        match r {
            Reply::Now(s) => Some(s),
            Reply::Nothing => None,
            Reply::Call(c) => self.run_call(c),
        }
    }

    /// [`Session::handle_message`] for bytes, checked as [`Session::handle_bytes`].
    pub fn handle_message_bytes(&self, message: &[u8]) -> Reply {
        if message.len() > self.config.max_message_bytes {
            return Reply::Now(self.oversize_error(message.len() as u64));
        }
        match std::str::from_utf8(message) {
            Ok(m) => self.handle_message(m),
            Err(e) => Reply::Now(self.error_response(
                None,
                PARSE_ERROR,
                &format!(
                    "parse error: the message is not valid UTF-8 (at byte {})",
                    e.valid_up_to()
                ),
                None,
            )),
        }
    }

    /// The error for a message of `len` bytes over the limit (also what a transport
    /// answers for a message it stopped reading).
    pub fn oversize_error(&self, len: u64) -> String {
        self.error_response(
            None,
            INVALID_REQUEST,
            &format!(
                "the message is {len} bytes, more than the limit of {}",
                self.config.max_message_bytes
            ),
            None,
        )
    }

    /// An error response with no request id (a message whose id could not be read): the
    /// revisions since 2025-11-25 leave `id` out; older ones (JSON-RPC 2.0) say `null`.
    pub fn error_without_id(&self, code: i64, message: &str) -> String {
        self.error_response(None, code, message, None)
    }

    pub(super) fn error_response(
        &self,
        id: Option<&str>,
        code: i64,
        message: &str,
        data: Option<Value>,
    ) -> String {
        let null_id = {
            let st = self.state.lock();
            st.era == Era::Handshake && st.version < "2025-11-25"
        };
        let mut e = json!({"code": code, "message": message});
        if let Some(d) = data {
            e["data"] = d;
        }
        let mut out = response_head(id, null_id);
        out.push_str("\"error\":");
        out.push_str(&e.to_string());
        out.push('}');
        out
    }

    /// Handles one message; a tool call is returned to run (so a transport can keep
    /// reading while it runs).
    pub fn handle_message(&self, message: &str) -> Reply {
        if message.len() > self.config.max_message_bytes {
            return Reply::Now(self.oversize_error(message.len() as u64));
        }
        if let Some(at) = nests_deeper(message, MAX_NESTING) {
            return Reply::Now(self.error_response(
                None,
                INVALID_REQUEST,
                &format!(
                    "the message nests arrays and objects more than {MAX_NESTING} levels deep (at byte {at})"
                ),
                None,
            ));
        }
        if let Some(r) = self.fast_tools_call(message) {
            return r;
        }
        match message.trim_start().as_bytes().first() {
            Some(b'[') => self.batch(message),
            Some(b'{') => self.one(message),
            _ => Reply::Now(match well_formed(message) {
                Err(e) => {
                    self.error_response(None, PARSE_ERROR, &format!("parse error: {e}"), None)
                }
                Ok(()) => self.error_response(
                    None,
                    INVALID_REQUEST,
                    "a JSON-RPC message must be an object",
                    None,
                ),
            }),
        }
    }

    /// The hot path: a plain `tools/call` of an initialized handshake session, parsed
    /// without building a tree (the arguments stay raw text for the binder). Anything
    /// unusual returns `None` and takes the general path.
    pub(super) fn fast_tools_call(&self, message: &str) -> Option<Reply> {
        #[derive(Deserialize)]
        struct FastParams<'a> {
            name: &'a str,
            #[serde(borrow, default)]
            arguments: Option<&'a RawValue>,
            #[serde(rename = "_meta", borrow, default)]
            meta: Option<&'a RawValue>,
        }
        #[derive(Deserialize)]
        struct Call<'a> {
            jsonrpc: &'a str,
            #[serde(borrow)]
            id: &'a RawValue,
            method: &'a str,
            #[serde(borrow)]
            params: ObjectOnly<FastParams<'a>>,
        }
        let ObjectOnly(c) = serde_json::from_str::<ObjectOnly<Call<'_>>>(message).ok()?;
        let ObjectOnly(p) = c.params;
        if c.jsonrpc != "2.0" || c.method != "tools/call" || p.meta.is_some() {
            return None;
        }
        let version = {
            let st = self.state.lock();
            if st.era != Era::Handshake {
                return None;
            }
            st.version
        };
        let id = canonical_id(c.id)?;
        let args = match p.arguments.map(RawValue::get) {
            None | Some("null") => None,
            Some(a) if a.starts_with('{') => Some(a.to_owned()),
            Some(_) => return None,
        };
        Some(self.start_call(id, p.name, args, false, version))
    }

    pub(super) fn batch(&self, message: &str) -> Reply {
        let version = self.state.lock().version;
        let allowed = version == "2025-03-26" && self.state.lock().era == Era::Handshake;
        if !allowed {
            return Reply::Now(match well_formed(message) {
                Err(e) => {
                    self.error_response(None, PARSE_ERROR, &format!("parse error: {e}"), None)
                }
                Ok(()) => self.error_response(
                    None,
                    INVALID_REQUEST,
                    "JSON-RPC batches are not supported in this protocol revision",
                    None,
                ),
            });
        }
        let items = match serde_json::from_str::<Batch<'_>>(message) {
            Ok(b) => b.0,
            Err(e) if e.is_data() => {
                return Reply::Now(self.error_response(None, INVALID_REQUEST, &e.to_string(), None))
            }
            Err(e) => {
                return Reply::Now(self.error_response(
                    None,
                    PARSE_ERROR,
                    &format!("parse error: {e}"),
                    None,
                ))
            }
        };
        if items.is_empty() {
            return Reply::Now(self.error_response(
                None,
                INVALID_REQUEST,
                "an empty batch is not a valid request",
                None,
            ));
        }
        let out: Vec<String> = items
            .into_iter()
            .filter_map(|m| {
                let r = if m.get().starts_with('{') {
                    self.one(m.get())
                } else {
                    Reply::Now(self.error_response(
                        None,
                        INVALID_REQUEST,
                        "a JSON-RPC message must be an object",
                        None,
                    ))
                };
                self.finish(r)
            })
            .collect();
        if out.is_empty() {
            Reply::Nothing
        } else {
            Reply::Now(format!("[{}]", out.join(",")))
        }
    }

    /// One message that starts with `{`.
    pub(super) fn one(&self, text: &str) -> Reply {
        let msg: Message<'_> = match serde_json::from_str(text) {
            Ok(m) => m,
            Err(e) if e.is_data() => {
                return Reply::Now(self.error_response(
                    None,
                    INVALID_REQUEST,
                    &format!("invalid request: {e}"),
                    None,
                ))
            }
            Err(e) => {
                return Reply::Now(self.error_response(
                    None,
                    PARSE_ERROR,
                    &format!("parse error: {e}"),
                    None,
                ))
            }
        };
        let id: Option<Option<String>> = msg.id.map(canonical_id);
        // the id to answer with: the request's when it is valid, else none
        let rid: Option<&str> = id.as_ref().and_then(|i| i.as_deref());
        if msg.jsonrpc.map(RawValue::get) != Some("\"2.0\"") {
            return match id {
                None if msg.method.is_some() => Reply::Nothing,
                _ => Reply::Now(self.error_response(
                    rid,
                    INVALID_REQUEST,
                    "\"jsonrpc\" must be \"2.0\"",
                    None,
                )),
            };
        }
        let method = match msg.method {
            Some(m) => match as_string(m) {
                Some(m) => m,
                None => {
                    return Reply::Now(self.error_response(
                        rid,
                        INVALID_REQUEST,
                        "\"method\" must be a string",
                        None,
                    ))
                }
            },
            None => {
                // a response or an error from the client: we send no requests, ignore it
                if msg.result.is_some() || msg.error.is_some() {
                    return Reply::Nothing;
                }
                return Reply::Now(self.error_response(
                    rid,
                    INVALID_REQUEST,
                    "a request needs a \"method\"",
                    None,
                ));
            }
        };
        let params = match msg.params {
            Some(p) if is_object(p) => serde_json::from_str::<RawParams<'_>>(p.get())
                .map(|raw| Params { raw, object: true })
                .map_err(|e| format!("invalid params: {e}")),
            // JSON-RPC allows an array; every MCP method's params are an object
            Some(p) if p.get() != "null" => Err(format!(
                "\"params\" must be an object, not {}",
                json_kind(p.get())
            )),
            _ => Ok(Params::default()),
        };
        let params = match params.and_then(|p| validate_params(&p).map(|()| p)) {
            Ok(p) => p,
            Err(why) => {
                return match rid {
                    Some(rid) => {
                        Reply::Now(self.error_response(Some(rid), INVALID_PARAMS, &why, None))
                    }
                    None if id.is_none() => Reply::Nothing,
                    None => Reply::Now(self.error_response(
                        None,
                        INVALID_REQUEST,
                        "\"id\" must be a string or an integer",
                        None,
                    )),
                }
            }
        };
        match id {
            None => {
                self.notification(&method, &params);
                Reply::Nothing
            }
            Some(None) => Reply::Now(self.error_response(
                None,
                INVALID_REQUEST,
                "\"id\" must be a string or an integer",
                None,
            )),
            Some(Some(id)) => self.request(id, &method, &params),
        }
    }

    pub(super) fn notification(&self, method: &str, params: &Params<'_>) {
        match method {
            "notifications/initialized" => {
                let changed = {
                    let mut st = self.state.lock();
                    if st.era == Era::Handshake {
                        st.initialized = true;
                    }
                    std::mem::take(&mut st.changed_before_initialized)
                };
                // a change the client could not be told of yet: told now, the usual way
                if changed {
                    self.list_changed();
                }
            }
            "notifications/cancelled" => {
                let Some(key) = params.request_id.and_then(canonical_id) else {
                    return;
                };
                let token = {
                    let mut st = self.state.lock();
                    // a subscription stream ends: nothing more is sent for it
                    st.subscriptions.retain(|s| s.id != key);
                    let t = st.in_flight.get(&key).cloned();
                    if t.is_some() {
                        st.cancelled.insert(key);
                    }
                    t
                };
                if let Some(t) = token {
                    // the call ends on the completion pool: the thread that reads messages
                    // runs no host code for it
                    t.cancel_detached();
                }
            }
            // other notifications (progress, roots changed, ...) need nothing from us
            _ => {}
        }
    }

    pub(super) fn request(&self, id: String, method: &str, params: &Params<'_>) -> Reply {
        let envelope = Self::envelope_version(params);
        let era = self.state.lock().era;

        // the first request picks the era
        match (&envelope, era) {
            (Some(Err(why)), _) => {
                return Reply::Now(self.error_response(Some(&id), INVALID_PARAMS, why, None))
            }
            (Some(Ok(v)), _) if v != MODERN_REVISION => {
                return Reply::Now(self.error_response(
                    Some(&id),
                    UNSUPPORTED_VERSION,
                    &format!("protocol version {} is not supported", crate::model::types::quote_short(v)),
                    Some(json!({"supported": [MODERN_REVISION], "requested": v})),
                ))
            }
            (Some(Ok(_)), Era::Handshake) => {
                return Reply::Now(self.error_response(
                    Some(&id),
                    INVALID_REQUEST,
                    "this connection was initialized with the initialize handshake; send requests without the 2026-07-28 envelope",
                    None,
                ))
            }
            (Some(Ok(_)), Era::Unknown) if method != "initialize" => {
                let mut st = self.state.lock();
                st.era = Era::Modern;
                st.version = MODERN_REVISION;
            }
            (None, Era::Modern) if method != "initialize" => {
                return Reply::Now(self.error_response(
                    Some(&id),
                    INVALID_PARAMS,
                    "this connection uses the stateless 2026-07-28 revision: every request carries params._meta with io.modelcontextprotocol/protocolVersion \"2026-07-28\" and io.modelcontextprotocol/clientCapabilities (there is no initialize handshake)",
                    None,
                ))
            }
            _ => {}
        }
        let modern = matches!(envelope, Some(Ok(_)));

        match method {
            "ping" => Reply::Now(result_response(
                &id,
                if modern {
                    self.modern_result(json!({}))
                } else {
                    json!({})
                },
            )),
            "initialize" => self.initialize(id, params),
            "server/discover" if modern => {
                let mut r = json!({
                    "supportedVersions": [MODERN_REVISION],
                    "capabilities": self.capabilities(),
                    "ttlMs": 0,
                    "cacheScope": "private",
                });
                if let Some(i) = self.instructions() {
                    r["instructions"] = json!(i);
                }
                Reply::Now(result_response(&id, self.modern_result(r)))
            }
            "subscriptions/listen" if modern => self.listen(id, params),
            "tools/list" | "tools/call" => {
                if !modern {
                    let era = self.state.lock().era;
                    if era != Era::Handshake {
                        return Reply::Now(self.error_response(
                            Some(&id),
                            INVALID_REQUEST,
                            "the session is not initialized: send initialize first (or use the 2026-07-28 request envelope)",
                            None,
                        ));
                    }
                }
                let version = if modern {
                    MODERN_REVISION
                } else {
                    self.state.lock().version
                };
                if method == "tools/list" {
                    Reply::Now(self.tools_list(&id, params, modern, version))
                } else {
                    self.tools_call(id, params, modern, version)
                }
            }
            _ => Reply::Now(self.error_response(
                Some(&id),
                METHOD_NOT_FOUND,
                &format!(
                    "method not found: {}",
                    crate::model::types::quote_short(method)
                ),
                None,
            )),
        }
    }
}
