//! An Android call: the request's parameters document bound by the function's descriptor,
//! run through the same pipeline as every call, its outcome answered as the response the
//! platform's `AppFunctionService` hands back (`platform::android::document`).

use super::document;
use crate::engine::call::{Invocation, Platform};
use crate::engine::dispatcher::Dispatcher;
use crate::model::types::{Type, TypeSet};
use std::sync::Arc;

/// What a call needs of its function before it runs: the arguments (or the refusal's
/// message), and the types to convert its result with.
struct Prepared {
    args: Result<Option<String>, String>,
    types: Arc<TypeSet>,
    result: Option<Type>,
}

impl Dispatcher {
    fn prepare_android(&self, function_id: &str, parameters: Option<&str>) -> Prepared {
        let s = self.snapshot();
        let types = s.types.clone();
        match s.find(function_id) {
            // the pipeline says FunctionNotFound, or Disabled, before any argument is read
            None => Prepared {
                args: Ok(None),
                types,
                result: None,
            },
            Some(e) if !e.is_enabled() => Prepared {
                args: Ok(None),
                types,
                result: None,
            },
            Some(e) => Prepared {
                args: match parameters {
                    None => Ok(None),
                    Some(p) => document::arguments(&types, &e.desc, p).map(Some),
                },
                result: e.desc.result.clone(),
                types,
            },
        }
    }

    /// Runs an Android AppFunctions call and blocks until its response JSON: `parameters`
    /// is the image of the request's parameters document (`None`: no parameters), the
    /// invocation runs as [`Platform::Android`] whatever it says. The response is
    /// `{"result": <document image>, "extras": {…}}` or `{"errorCode", "message"}`
    /// (docs/android.md). Never fails: a document that cannot be bound is answered
    /// `ERROR_INVALID_ARGUMENT` (1001) with a message naming the property.
    ///
    /// ```
    /// use appfunctions::{sync_handler, Dispatcher, Invocation};
    /// let d = Dispatcher::new();
    /// d.register_function(
    ///     r#"{"id": "greet", "parameters": [{"name": "name", "type": "string"}], "result": "string"}"#,
    ///     Some(sync_handler(|call| {
    ///         let args: serde_json::Value = serde_json::from_str(call.args().unwrap()).unwrap();
    ///         Ok(Some(serde_json::json!(format!("Hello, {}!", args["name"].as_str().unwrap())).to_string()))
    ///     })),
    /// )?;
    /// let request = r#"{"namespace": "", "id": "", "schemaType": "",
    ///                   "properties": {"name": {"strings": ["Ada"]}}}"#;
    /// let response: serde_json::Value = serde_json::from_str(
    ///     &d.execute_android(&Invocation::new("greet").caller("com.example.agent"), Some(request)),
    /// ).unwrap();
    /// assert_eq!(
    ///     response["result"]["properties"]["androidAppfunctionsReturnValue"],
    ///     serde_json::json!({"strings": ["Hello, Ada!"]})
    /// );
    /// let refused: serde_json::Value = serde_json::from_str(&d.execute_android(
    ///     &Invocation::new("greet"),
    ///     Some(r#"{"properties": {"colour": {"strings": ["red"]}}}"#),
    /// )).unwrap();
    /// assert_eq!(refused["errorCode"], 1001);
    /// # Ok::<(), appfunctions::Error>(())
    /// ```
    pub fn execute_android(&self, inv: &Invocation, parameters: Option<&str>) -> String {
        let p = self.prepare_android(&inv.function_id, parameters);
        let args = match p.args {
            Ok(a) => a,
            Err(msg) => return document::error_response(document::ERROR_INVALID_ARGUMENT, &msg),
        };
        let inv = Invocation {
            platform: Platform::Android,
            ..inv.clone()
        };
        let o = self.execute_outcome(&inv, args.as_deref());
        document::response(&p.types, p.result.as_ref(), &o)
    }

    /// [`Dispatcher::execute_android`] that returns at once: `on_response` receives the
    /// response JSON exactly once, on the thread that finishes the call (as for
    /// [`Dispatcher::execute_async`]; this one when the document cannot be bound).
    pub fn execute_android_async(
        &self,
        inv: &Invocation,
        parameters: Option<&str>,
        on_response: impl FnOnce(&str) + Send + 'static,
    ) {
        let p = self.prepare_android(&inv.function_id, parameters);
        let args = match p.args {
            Ok(a) => a,
            Err(msg) => {
                return on_response(&document::error_response(
                    document::ERROR_INVALID_ARGUMENT,
                    &msg,
                ))
            }
        };
        let inv = Invocation {
            platform: Platform::Android,
            ..inv.clone()
        };
        let (types, result) = (p.types, p.result);
        self.execute_async(&inv, args.as_deref(), move |o, _json| {
            on_response(&document::response(&types, result.as_ref(), o))
        });
    }
}
