//! Tools: `tools/list` (pages, cursors, the view's mode) and `tools/call` (visibility,
//! the call through the pipeline, its result or `isError`).

use super::*;

/// Drops the fields a revision does not know.
pub(super) fn trim_tool(mut t: Value, version: &str) -> Value {
    if let Value::Object(o) = &mut t {
        if !at_least(version, "2025-06-18") {
            o.remove("title");
            o.remove("outputSchema");
        }
        if !at_least(version, "2025-03-26") {
            o.remove("annotations");
        }
    }
    t
}

pub(super) fn encode_cursor(n: usize) -> String {
    format!("af1:{n:x}")
}

pub(super) fn decode_cursor(c: &str) -> Option<usize> {
    usize::from_str_radix(c.strip_prefix("af1:")?, 16).ok()
}

impl Session {
    pub(super) fn mode(modern: bool) -> ToolkitMode {
        if modern {
            ToolkitMode::Routing
        } else {
            ToolkitMode::Expanding
        }
    }

    pub(super) fn tools_list(
        &self,
        id: &str,
        params: &Params<'_>,
        modern: bool,
        version: &str,
    ) -> String {
        let tools = self.view.mcp_tools_in(Self::mode(modern));
        let start = match params.cursor {
            None => 0,
            Some(c) if c.get() == "null" => 0,
            Some(c) => match as_string(c) {
                Some(c) => match decode_cursor(&c) {
                    Some(n) if n <= tools.len() => n,
                    _ => {
                        return self.error_response(
                            Some(id),
                            INVALID_PARAMS,
                            "invalid cursor",
                            None,
                        )
                    }
                },
                None => {
                    return self.error_response(
                        Some(id),
                        INVALID_PARAMS,
                        "the cursor must be a string",
                        None,
                    )
                }
            },
        };
        let end = if self.config.page_size == 0 {
            tools.len()
        } else {
            (start + self.config.page_size).min(tools.len())
        };
        let page: Vec<Value> = tools[start..end]
            .iter()
            .map(|t| trim_tool(t.clone(), version))
            .collect();
        let mut result = json!({"tools": page});
        if end < tools.len() {
            result["nextCursor"] = json!(encode_cursor(end));
        }
        if modern {
            result["ttlMs"] = json!(0);
            result["cacheScope"] = json!("private");
            result = self.modern_result(result);
        }
        result_response(id, result)
    }

    pub(super) fn tools_call(
        &self,
        id: String,
        params: &Params<'_>,
        modern: bool,
        version: &'static str,
    ) -> Reply {
        if !params.object {
            return Reply::Now(self.error_response(
                Some(&id),
                INVALID_PARAMS,
                "tools/call needs params {\"name\", \"arguments\"}",
                None,
            ));
        }
        let Some(name) = params.name.and_then(as_string) else {
            return Reply::Now(self.error_response(
                Some(&id),
                INVALID_PARAMS,
                "tools/call needs params.name (a string)",
                None,
            ));
        };
        let args = match params.arguments.map(RawValue::get) {
            None | Some("null") => None,
            Some(a) if a.starts_with('{') => Some(a.to_owned()),
            Some(_) => {
                return Reply::Now(self.error_response(
                    Some(&id),
                    INVALID_PARAMS,
                    "params.arguments must be an object",
                    None,
                ))
            }
        };
        self.start_call(id, &name, args, modern, version)
    }

    pub(super) fn unknown_tool(&self, id: &str, name: &str) -> String {
        self.error_response(
            Some(id),
            INVALID_PARAMS,
            &format!("unknown tool: {}", crate::model::types::quote_short(name)),
            None,
        )
    }

    /// The common part of a tools/call: the tool must be one the client can see now
    /// (else it is unknown, whatever the reason), the id must not be in flight.
    pub(super) fn start_call(
        &self,
        id: String,
        name: &str,
        args: Option<String>,
        modern: bool,
        version: &'static str,
    ) -> Reply {
        if !self.visible(name, modern) {
            return Reply::Now(self.unknown_tool(&id, name));
        }
        let token = CancelToken::new();
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
            st.in_flight.insert(id.clone(), token.clone());
        }
        Reply::Call(PendingCall {
            id,
            name: name.to_owned(),
            args,
            token,
            modern,
            version,
        })
    }

    /// Whether `name` is in the tool list the client would get now.
    pub(super) fn visible(&self, name: &str, modern: bool) -> bool {
        self.view.shows(name, Self::mode(modern))
    }

    /// Answers a call the transport will not run (its queue is full) with a tool error,
    /// and forgets it.
    pub fn refuse_call(&self, c: PendingCall, why: &str) -> String {
        {
            let mut st = self.state.lock();
            st.in_flight.remove(&c.id);
            st.cancelled.remove(&c.id);
        }
        let mut out = response_head(Some(&c.id), false);
        out.push_str("\"result\":{\"content\":[{\"type\":\"text\",\"text\":");
        crate::model::binding::write_json_str(&mut out, &format!("LimitExceeded: {why}"));
        out.push_str("}],\"isError\":true");
        self.push_modern_tail(&mut out, c.modern);
        out.push_str("}}");
        out
    }

    pub(super) fn push_modern_tail(&self, out: &mut String, modern: bool) {
        if modern {
            out.push_str(",\"resultType\":\"complete\",\"_meta\":{\"");
            out.push_str(META_SERVER);
            out.push_str("\":");
            out.push_str(&self.server_info().to_string());
            out.push('}');
        }
    }

    /// Runs a tool call (blocking) and returns its response, or `None` when the client
    /// cancelled it.
    pub fn run_call(&self, c: PendingCall) -> Option<String> {
        // an MCP client is outside the app: not in the foreground, so an OpenApp gate
        // refuses the call with its message
        let inv = Invocation::new(&c.name)
            .foreground(false)
            .cancel_token(&c.token);
        let vo = self
            .view
            .execute_tool(&c.name, c.args.as_deref(), &inv, Self::mode(c.modern));
        let cancelled = {
            let mut st = self.state.lock();
            st.in_flight.remove(&c.id);
            // (hashing the id only when some call was cancelled)
            !st.cancelled.is_empty() && st.cancelled.remove(&c.id)
        };
        if cancelled {
            return None;
        }
        // the tool stopped being visible between the request and its turn
        let Some(vo) = vo else {
            return Some(self.unknown_tool(&c.id, &c.name));
        };
        let o = &vo.outcome;
        // written straight around the result JSON, as the outcome is: no tree
        let mut texts: Vec<Cow<'_, str>> = Vec::with_capacity(3);
        let mut structured: Option<(bool, &str)> = None;
        let ok = o.is_success();
        if ok {
            let raw = o.result.as_deref().unwrap_or("null");
            if vo.void_result {
                texts.push(self.view.confirmation().into());
            } else if raw.starts_with('"') {
                texts.push(
                    serde_json::from_str::<String>(raw)
                        .map(Into::into)
                        .unwrap_or_else(|_| raw.into()),
                );
            } else {
                texts.push(raw.into());
            }
            if let Some(d) = &o.dialog {
                if !vo.void_result || *d != self.view.confirmation() {
                    texts.push(d.as_str().into());
                }
            }
            if let Some(i) = &vo.instructions {
                texts.push(i.as_str().into());
            }
            if at_least(c.version, "2025-06-18") {
                let snap = self.dispatcher.snapshot();
                match vo.ran.as_deref().and_then(|f| snap.find(f)) {
                    Some(e) => {
                        if let Some(wrap) = e.mcp_wraps(&snap.types) {
                            structured = Some((wrap, raw));
                        }
                    }
                    // an expanding container's output schema is a string: wrapped; a
                    // routing container has none
                    None if !c.modern && snap.toolkit(&c.name).is_some() => {
                        structured = Some((true, raw))
                    }
                    None => {}
                }
            }
        } else {
            let code = o.error_code.map(|c| c.as_str()).unwrap_or("openApp");
            let msg = o.message.as_deref().unwrap_or("");
            let hint = match o.error_code {
                Some(crate::model::error::ErrorCode::InvalidArgument) => {
                    " Fix the arguments and call the tool again."
                }
                Some(crate::model::error::ErrorCode::EntityNotFound) => {
                    " Use the matching search tool to find a valid id."
                }
                _ => "",
            };
            texts.push(format!("{code}: {msg}{hint}").into());
            if let Some(d) = &o.dialog {
                texts.push(d.as_str().into());
            }
        }
        let mut out =
            String::with_capacity(128 + texts.iter().map(|t| t.len() + 32).sum::<usize>() * 2);
        push_response_head(&mut out, Some(&c.id), false);
        out.push_str("\"result\":{\"content\":[");
        for (i, t) in texts.iter().enumerate() {
            if i > 0 {
                out.push(',');
            }
            out.push_str("{\"type\":\"text\",\"text\":");
            crate::model::binding::write_json_str(&mut out, t);
            out.push('}');
        }
        out.push(']');
        if let Some((wrap, raw)) = structured {
            out.push_str(",\"structuredContent\":");
            if wrap {
                out.push_str("{\"result\":");
                out.push_str(raw);
                out.push('}');
            } else {
                out.push_str(raw);
            }
        }
        out.push_str(if ok {
            ",\"isError\":false"
        } else {
            ",\"isError\":true"
        });
        self.push_modern_tail(&mut out, c.modern);
        out.push_str("}}");
        Some(out)
    }
}
