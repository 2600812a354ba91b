//! The log filter both binaries start with. rmcp's own lines name an HTTP
//! MCP server's URL as resolved, which may hold a token (the errors we show
//! say what failed, with secrets redacted), so rmcp is off unless the
//! person's `ATELIER_LOG` names it: `ATELIER_LOG=debug` alone must not bring
//! a token into the log.

/// The filter directives: `from_env` (`ATELIER_LOG`) when set, else
/// `default`; with `rmcp=off` added unless they name rmcp.
pub fn filter_directives(from_env: Option<&str>, default: &str) -> String {
    let chosen = from_env.map(str::trim).filter(|s| !s.is_empty()).unwrap_or(default);
    if chosen.contains("rmcp") {
        chosen.to_owned()
    } else {
        format!("{chosen},rmcp=off")
    }
}

#[cfg(test)]
mod tests {
    use super::filter_directives;

    #[test]
    fn rmcp_stays_off_unless_named() {
        assert_eq!(filter_directives(None, "warn"), "warn,rmcp=off");
        assert_eq!(filter_directives(Some("debug"), "warn"), "debug,rmcp=off");
        assert_eq!(filter_directives(Some(""), "info"), "info,rmcp=off");
        assert_eq!(filter_directives(Some("debug,rmcp=trace"), "warn"), "debug,rmcp=trace");
    }
}
