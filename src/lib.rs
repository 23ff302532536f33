//! appfunctions: scaffold
