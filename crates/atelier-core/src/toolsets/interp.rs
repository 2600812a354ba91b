//! The interpolation grammar of renderer configs: one parser,
//! used to validate manifests and to build render plans.
//!
//! ```text
//! template := ( literal | "$$" | expr | "${" expr "}" )*
//! expr     := root ( "." segment | "[" digits "]" )*
//! root     := "args" | "return" | "chat_id" | "workspace" | "toolset"
//! segment  := identifier | digits          (digits index into an array)
//! ```
//! `$return.items[0].name` and `$return.items.0.name` are the same path. A
//! `[` right after an expression must be such an index: anything else is a
//! syntax error, never text that silently follows the expression.
//! Unbraced, an identifier is `[A-Za-z_][A-Za-z0-9_]*`; inside braces a
//! segment may also contain `-` (JSON keys often do), and the braces end the
//! expression so text can follow (`${args.name}.txt`). `$$` is a literal `$`.
//! A value that is exactly one expression keeps its JSON type; inside longer
//! text it is stringified. A path that does not resolve gives `null` and a
//! warning.

use std::fmt;

use serde_json::Value;

/// Where an expression starts.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Root {
    Args,
    Return,
    ChatId,
    Workspace,
    Toolset,
}

impl Root {
    fn parse(s: &str) -> Option<Self> {
        Some(match s {
            "args" => Root::Args,
            "return" => Root::Return,
            "chat_id" => Root::ChatId,
            "workspace" => Root::Workspace,
            "toolset" => Root::Toolset,
            _ => return None,
        })
    }

    pub fn name(self) -> &'static str {
        match self {
            Root::Args => "args",
            Root::Return => "return",
            Root::ChatId => "chat_id",
            Root::Workspace => "workspace",
            Root::Toolset => "toolset",
        }
    }
}

/// One step of a path.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Segment {
    Key(String),
    Index(usize),
}

/// `$root.a.0.b`
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Expr {
    pub root: Root,
    pub path: Vec<Segment>,
}

impl fmt::Display for Expr {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "${}", self.root.name())?;
        for s in &self.path {
            match s {
                Segment::Key(k) => write!(f, ".{k}")?,
                Segment::Index(i) => write!(f, "[{i}]")?,
            }
        }
        Ok(())
    }
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Part {
    Text(String),
    Expr(Expr),
}

/// A parsed config string.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Template {
    pub parts: Vec<Part>,
}

/// A syntax error, with the byte offset where it was found.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SyntaxError {
    pub offset: usize,
    pub message: String,
}

impl fmt::Display for SyntaxError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} (at character {})", self.message, self.offset + 1)
    }
}

fn is_ident_start(c: char) -> bool {
    c.is_ascii_alphabetic() || c == '_'
}

fn is_ident(c: char, braced: bool) -> bool {
    c.is_ascii_alphanumeric() || c == '_' || (braced && c == '-')
}

/// Parses a config string.
pub fn parse(s: &str) -> Result<Template, SyntaxError> {
    let mut parts = Vec::new();
    let mut text = String::new();
    let mut it = s.char_indices().peekable();
    while let Some((i, c)) = it.next() {
        if c != '$' {
            text.push(c);
            continue;
        }
        match it.peek().map(|&(_, c)| c) {
            Some('$') => {
                it.next();
                text.push('$');
            }
            Some('{') => {
                it.next();
                let start = i + 2;
                let end = s[start..].find('}').map(|e| start + e).ok_or_else(|| SyntaxError {
                    offset: i,
                    message: "unclosed `${`: add a `}`".into(),
                })?;
                let expr = parse_expr(&s[start..end], start, true)?;
                while it.peek().is_some_and(|&(j, _)| j <= end) {
                    it.next();
                }
                flush(&mut text, &mut parts);
                parts.push(Part::Expr(expr));
            }
            Some(c) if is_ident_start(c) => {
                // Unbraced: the root, then `.segment` while one follows.
                let start = i + 1;
                let ident_end = |from: usize| {
                    s[from..]
                        .find(|c: char| !is_ident(c, false))
                        .map_or(s.len(), |n| from + n)
                };
                let mut end = ident_end(start);
                loop {
                    if s[end..].starts_with('.') {
                        let seg_end = ident_end(end + 1);
                        if seg_end == end + 1 {
                            break; // a `.` that ends a sentence, not a path
                        }
                        end = seg_end;
                    } else if s[end..].starts_with('[') {
                        // An index; `parse_expr` says what is wrong with one
                        // that is not a number.
                        let close = s[end..].find(']').ok_or_else(|| SyntaxError {
                            offset: end,
                            message: format!(
                                "unclosed `[` after `${}`: an array index is written like `[0]`",
                                &s[start..end]
                            ),
                        })?;
                        end += close + 1;
                    } else {
                        break;
                    }
                }
                let expr = parse_expr(&s[start..end], start, false)?;
                while it.peek().is_some_and(|&(j, _)| j < end) {
                    it.next();
                }
                flush(&mut text, &mut parts);
                parts.push(Part::Expr(expr));
            }
            _ => {
                return Err(SyntaxError {
                    offset: i,
                    message:
                        "`$` must start an expression like `$args.path` or `${return.x}`; write `$$` for a literal `$`"
                            .into(),
                });
            }
        }
    }
    flush(&mut text, &mut parts);
    Ok(Template { parts })
}

fn flush(text: &mut String, parts: &mut Vec<Part>) {
    if !text.is_empty() {
        parts.push(Part::Text(std::mem::take(text)));
    }
}

fn parse_expr(src: &str, offset: usize, braced: bool) -> Result<Expr, SyntaxError> {
    let root_len = src.find(['.', '[']).unwrap_or(src.len());
    let root_name = &src[..root_len];
    let root = Root::parse(root_name).ok_or_else(|| SyntaxError {
        // Point at the `$` (or `${`) that starts the expression.
        offset: offset.saturating_sub(if braced { 2 } else { 1 }),
        message: format!("unknown variable `${root_name}`: use $args, $return, $chat_id, $workspace or $toolset"),
    })?;
    let mut path = Vec::new();
    let mut rest = &src[root_len..];
    let mut pos = offset + root_len;
    while !rest.is_empty() {
        if matches!(root, Root::ChatId | Root::Workspace | Root::Toolset) {
            return Err(SyntaxError {
                offset: pos,
                message: format!("`${}` has no fields", root.name()),
            });
        }
        let used = if let Some(after) = rest.strip_prefix('[') {
            let close = after.find(']').ok_or_else(|| SyntaxError {
                offset: pos,
                message: format!("unclosed `[` in `${src}`: an array index is written like `[0]`"),
            })?;
            let inner = &after[..close];
            let index = inner
                .parse::<usize>()
                .ok()
                .filter(|_| inner.bytes().all(|b| b.is_ascii_digit()));
            let Some(i) = index else {
                return Err(SyntaxError {
                    offset: pos,
                    message: format!(
                        "`[{inner}]` in `${src}` is not an array index: write a number like `[0]`, and a key as `.key`"
                    ),
                });
            };
            path.push(Segment::Index(i));
            close + 2
        } else {
            // Starts with `.` (the root and every step end at `.` or `[`).
            let after = &rest[1..];
            let seg = &after[..after.find(['.', '[']).unwrap_or(after.len())];
            if seg.is_empty() || !seg.chars().all(|c| is_ident(c, braced)) {
                return Err(SyntaxError {
                    offset: pos + 1,
                    message: format!("invalid path segment {seg:?} in `${src}`"),
                });
            }
            path.push(match seg.parse::<usize>() {
                Ok(i) if seg.chars().all(|c| c.is_ascii_digit()) => Segment::Index(i),
                _ => Segment::Key(seg.to_owned()),
            });
            seg.len() + 1
        };
        pos += used;
        rest = &rest[used..];
    }
    Ok(Expr { root, path })
}

impl Template {
    /// The expression if the template is exactly one (keeps its JSON type).
    pub fn single_expr(&self) -> Option<&Expr> {
        match self.parts.as_slice() {
            [Part::Expr(e)] => Some(e),
            _ => None,
        }
    }

    pub fn exprs(&self) -> impl Iterator<Item = &Expr> {
        self.parts.iter().filter_map(|p| match p {
            Part::Expr(e) => Some(e),
            Part::Text(_) => None,
        })
    }
}

/// What expressions resolve against.
#[derive(Debug, Clone, Copy)]
pub struct Context<'a> {
    pub args: &'a Value,
    pub ret: &'a Value,
    pub chat_id: &'a str,
    pub workspace: &'a str,
    pub toolset: &'a str,
}

impl Expr {
    /// Resolves against `ctx`; `None` if the path does not exist.
    pub fn resolve(&self, ctx: &Context<'_>) -> Option<Value> {
        let mut v = match self.root {
            Root::Args => ctx.args,
            Root::Return => ctx.ret,
            Root::ChatId => return Some(Value::String(ctx.chat_id.to_owned())),
            Root::Workspace => return Some(Value::String(ctx.workspace.to_owned())),
            Root::Toolset => return Some(Value::String(ctx.toolset.to_owned())),
        };
        for seg in &self.path {
            v = match (seg, v) {
                (Segment::Key(k), Value::Object(m)) => m.get(k)?,
                (Segment::Index(i), Value::Array(a)) => a.get(*i)?,
                (Segment::Index(i), Value::Object(m)) => m.get(&i.to_string())?,
                _ => return None,
            };
        }
        Some(v.clone())
    }
}

/// Interpolates every string in `config` (recursively), collecting a
/// warning for each path that did not resolve.
pub fn render(config: &Value, ctx: &Context<'_>, warnings: &mut Vec<String>) -> Value {
    match config {
        Value::String(s) => match parse(s) {
            Ok(t) => render_template(&t, ctx, warnings),
            Err(e) => {
                warnings.push(format!("{s:?}: {e}"));
                Value::Null
            }
        },
        Value::Array(a) => Value::Array(a.iter().map(|v| render(v, ctx, warnings)).collect()),
        Value::Object(m) => Value::Object(m.iter().map(|(k, v)| (k.clone(), render(v, ctx, warnings))).collect()),
        other => other.clone(),
    }
}

fn render_template(t: &Template, ctx: &Context<'_>, warnings: &mut Vec<String>) -> Value {
    let mut resolve = |e: &Expr| {
        e.resolve(ctx).unwrap_or_else(|| {
            warnings.push(format!("{e} did not resolve; using null"));
            Value::Null
        })
    };
    if let Some(e) = t.single_expr() {
        return resolve(e);
    }
    let mut out = String::new();
    for p in &t.parts {
        match p {
            Part::Text(s) => out.push_str(s),
            Part::Expr(e) => match resolve(e) {
                Value::String(s) => out.push_str(&s),
                Value::Null => out.push_str("null"),
                other => out.push_str(&other.to_string()),
            },
        }
    }
    Value::String(out)
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn ctx<'a>(args: &'a Value, ret: &'a Value) -> Context<'a> {
        Context {
            args,
            ret,
            chat_id: "c1",
            workspace: "/w",
            toolset: "/t",
        }
    }

    #[test]
    fn parses_the_spec_forms() {
        let t = parse("$args.path").expect("parse");
        assert_eq!(
            t.single_expr(),
            Some(&Expr {
                root: Root::Args,
                path: vec![Segment::Key("path".into())]
            })
        );
        let t = parse("${args.name}.txt").expect("parse");
        assert_eq!(t.parts.len(), 2);
        assert_eq!(t.parts[1], Part::Text(".txt".into()));
        let t = parse("http://localhost:$return.port/x").expect("parse");
        assert_eq!(t.exprs().map(ToString::to_string).collect::<Vec<_>>(), ["$return.port"]);
        assert_eq!(
            parse("costs $$5").expect("parse").parts,
            [Part::Text("costs $5".into())]
        );
        assert_eq!(
            parse("$return.rows.0.name")
                .expect("parse")
                .single_expr()
                .map(|e| e.path.len()),
            Some(3)
        );
        assert!(parse("${return.my-key}").is_ok());
    }

    #[test]
    fn bracket_indices_are_the_same_path_as_dotted_ones() {
        let dotted = parse("$return.items.0.name").expect("parse");
        for src in ["$return.items[0].name", "${return.items[0].name}"] {
            assert_eq!(parse(src).expect("parse"), dotted, "{src}");
        }
        let args = json!({"list": ["a", "b", "c"]});
        let ret = json!({"items": [{"name": "first"}, {"name": "second"}], "grid": [[1, 2], [3, 4]]});
        let mut w = Vec::new();
        let out = render(
            &json!({
                "name": "$return.items[1].name",
                "third": "$args.list[2]",
                "cell": "$return.grid[1][0]",
                "title": "Top: ${return.items[0].name}!",
                "inline": "see $return.items[0].name.",
                "whole": "$return.items[0]"
            }),
            &ctx(&args, &ret),
            &mut w,
        );
        assert_eq!(out["name"], "second");
        assert_eq!(out["third"], "c");
        assert_eq!(out["cell"], 3);
        assert_eq!(out["title"], "Top: first!");
        assert_eq!(out["inline"], "see first.");
        assert_eq!(out["whole"], json!({"name": "first"}));
        assert!(w.is_empty(), "{w:?}");
        render(&json!("$return.items[5].name"), &ctx(&args, &ret), &mut w);
        assert_eq!(w, ["$return.items[5].name did not resolve; using null"]);
    }

    #[test]
    fn a_bracket_that_is_not_an_index_is_an_error_not_text() {
        for bad in [
            "$return.items[x].name",
            "$return.items[0",
            "${return.items[-1]}",
            "$args.list[]",
            "${return.items['a']}",
            "$chat_id[0]",
        ] {
            let e = parse(bad).expect_err(bad);
            assert!(!e.message.is_empty(), "{bad}");
        }
        let e = parse("$return.items[key]").expect_err("key");
        assert!(e.message.contains("[0]") && e.message.contains(".key"), "{e}");
    }

    #[test]
    fn rejects_malformed_expressions() {
        for bad in [
            "$foo",
            "${args.x",
            "$ 5",
            "costs $5",
            "${args..x}",
            "$chat_id.x",
            "${}",
            "trailing $",
        ] {
            assert!(parse(bad).is_err(), "{bad:?} should be rejected");
        }
        let e = parse("x $nope").expect_err("unknown root");
        assert!(e.message.contains("$nope") && e.offset == 2, "{e}");
    }

    #[test]
    fn renders_with_types_kept_and_missing_paths_as_null() {
        let args = json!({"path": "out.txt", "n": 3});
        let ret = json!({"stats": {"rows": [10, 20]}, "ok": true});
        let mut w = Vec::new();
        let config = json!({
            "file": "$args.path",
            "n": "$args.n",
            "whole": "$return",
            "second": "$return.stats.rows.1",
            "label": "rows: ${return.stats.rows.0} in $chat_id",
            "missing": "$return.nope",
            "keep": 5
        });
        let out = render(&config, &ctx(&args, &ret), &mut w);
        assert_eq!(out["file"], "out.txt");
        assert_eq!(out["n"], 3);
        assert_eq!(out["whole"], ret);
        assert_eq!(out["second"], 20);
        assert_eq!(out["label"], "rows: 10 in c1");
        assert_eq!(out["missing"], Value::Null);
        assert_eq!(out["keep"], 5);
        assert_eq!(w, ["$return.nope did not resolve; using null"]);
    }
}
