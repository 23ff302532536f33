// The handle types by the names the imports (Interop/Native*.cs) use: one SafeHandle,
// NativeHandle<TKind>, per native object kind.
global using CancelTokenHandle = AppFunctions.Interop.NativeHandle<AppFunctions.Interop.CancelTokenKind>;
global using DispatcherHandle = AppFunctions.Interop.NativeHandle<AppFunctions.Interop.DispatcherKind>;
global using McpSessionHandle = AppFunctions.Interop.NativeHandle<AppFunctions.Interop.McpSessionKind>;
global using ViewHandle = AppFunctions.Interop.NativeHandle<AppFunctions.Interop.ViewKind>;
