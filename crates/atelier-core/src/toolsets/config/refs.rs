//! The reference grammar of MCP server launch fields (`command`, `args`,
//! `env`, `url`, `headers`): one parser, used by validation and at start.
//!
//! ```text
//! value := ( text | "${" name "}" | "${user_config." key "}" )*
//! name  := [A-Za-z_][A-Za-z0-9_]*  | "/"
//! key   := [A-Za-z_][A-Za-z0-9_]*
//! ```
//! `${NAME}` is a secret of the toolset or an environment variable (see
//! [`crate::secrets`]), except the path helpers MCPB authors know:
//! `${HOME}`, `${__dirname}` (the toolset's folder), `${pathSeparator}`
//! and `${/}`. `${user_config.KEY}` is a value the person gave.

/// One piece of a value.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Piece<'a> {
    Text(&'a str),
    /// `${NAME}`.
    Var(&'a str),
    /// `${user_config.KEY}`.
    Config(&'a str),
}

/// The path helpers resolved without the secret store.
pub const BUILTINS: &[&str] = &["HOME", "__dirname", "pathSeparator", "/"];

/// A `user_config` key (and a `${NAME}`): an identifier.
pub fn is_key(s: &str) -> bool {
    let mut chars = s.chars();
    chars.next().is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
        && chars.all(|c| c.is_ascii_alphanumeric() || c == '_')
        && s.len() <= 64
}

/// Splits a value into text and references; the error says what is wrong.
pub fn parse(s: &str) -> Result<Vec<Piece<'_>>, String> {
    let mut out = Vec::new();
    let mut rest = s;
    while let Some(at) = rest.find("${") {
        if at > 0 {
            out.push(Piece::Text(&rest[..at]));
        }
        let after = &rest[at + 2..];
        let Some(end) = after.find('}') else {
            return Err(format!(
                "`${{` at byte {} is not closed by `}}`",
                s.len() - rest.len() + at
            ));
        };
        let inner = &after[..end];
        out.push(match inner.strip_prefix("user_config.") {
            Some(key) if is_key(key) => Piece::Config(key),
            Some(key) => return Err(format!("`{key}` is not a user_config key (letters, digits and `_`)")),
            None if inner == "/" || is_key(inner) => Piece::Var(inner),
            None => {
                return Err(format!(
                    "`${{{inner}}}` is not a reference: use ${{NAME}} (a secret or environment variable) or ${{user_config.KEY}}"
                ));
            }
        });
        rest = &after[end + 1..];
    }
    if !rest.is_empty() {
        out.push(Piece::Text(rest));
    }
    Ok(out)
}

/// `${user_config.KEY}`, alone, as the whole value (a `multiple` setting
/// given this way in `args` becomes one argument per value).
pub fn whole_config(s: &str) -> Option<&str> {
    match parse(s).ok()?.as_slice() {
        [Piece::Config(k)] => Some(k),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn values_split_into_text_and_references() {
        assert_eq!(
            parse("Bearer ${user_config.token}/${HOME}${/}x").expect("parse"),
            vec![
                Piece::Text("Bearer "),
                Piece::Config("token"),
                Piece::Text("/"),
                Piece::Var("HOME"),
                Piece::Var("/"),
                Piece::Text("x"),
            ]
        );
        assert_eq!(parse("plain").expect("plain"), vec![Piece::Text("plain")]);
        assert_eq!(whole_config("${user_config.dirs}"), Some("dirs"));
        assert_eq!(whole_config("-d ${user_config.dirs}"), None);
        for bad in [
            "${",
            "a ${B",
            "${user_config.}",
            "${a.b}",
            "${1X}",
            "${user_config.a-b}",
        ] {
            assert!(parse(bad).is_err(), "{bad}");
        }
    }
}
