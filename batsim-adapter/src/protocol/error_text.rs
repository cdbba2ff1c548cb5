//! Errors as the protocol's messages show them: an error and its causes on
//! one line, for errors that carry their whole cause in their message (the
//! session's, the engine options').

/// `error: cause: cause …`, the whole chain on one line.
pub(crate) fn error_chain(error: &dyn std::error::Error) -> String {
    let mut text = error.to_string();
    let mut source = error.source();
    while let Some(cause) = source {
        text.push_str(": ");
        text.push_str(&cause.to_string());
        source = cause.source();
    }
    text
}
