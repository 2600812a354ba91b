//! Fitting a branch into a model's context window. The window is the
//! person's setting (`context_window` of the chat or agent), else what is
//! known of the model, else the local servers' default; with none known
//! nothing is cut (the provider's `context_length` error says so). When the
//! branch is longer, the oldest exchanges are left out **whole** — an
//! exchange runs from one of the person's messages to the next, so a tool
//! call always goes with its result — and the first one kept says how many
//! messages were left out. The newest exchange is always sent.
//!
//! Tokens are estimated (about three characters each, which over-counts
//! English prose a little: better to cut one exchange too many than to be
//! refused).

use atelier_llm::{Message, Part, Role, ToolSpec};

/// What is known of a model's context window, by its name.
pub fn known_window(model: &str) -> Option<u32> {
    let m = model.to_ascii_lowercase();
    let m = m.rsplit('/').next().unwrap_or(&m); // `openai/gpt-4o` on OpenRouter
    let table: &[(&str, u32)] = &[
        ("claude", 200_000),
        ("gpt-4.1", 1_047_576),
        ("gpt-5", 400_000),
        ("gpt-4o", 128_000),
        ("gpt-4-turbo", 128_000),
        ("gpt-3.5-turbo", 16_385),
        ("o1", 200_000),
        ("o3", 200_000),
        ("o4", 200_000),
    ];
    table.iter().find(|(p, _)| m.starts_with(p)).map(|(_, w)| *w)
}

/// What a local server gives a model when nobody says otherwise (Ollama,
/// LM Studio and llama.cpp's server all start at 4,096 tokens).
pub const LOCAL_DEFAULT_WINDOW: u32 = 4096;

/// Estimated tokens of a text.
fn tokens(chars: usize) -> u64 {
    (chars as u64).div_ceil(3) + 4
}

fn message_tokens(m: &Message) -> u64 {
    m.parts
        .iter()
        .map(|p| match p {
            Part::Text { text } | Part::Reasoning { text, .. } | Part::RedactedReasoning { data: text } => {
                tokens(text.len())
            }
            // A typical image costs a model about this much.
            Part::Image { .. } => 1_000,
            Part::ToolCall { name, arguments, .. } => tokens(name.len() + arguments.to_string().len()),
            Part::ToolResult { content, .. } => tokens(content.len()),
        })
        .sum::<u64>()
        + 4
}

/// Estimated tokens of the parts of a request that are always sent.
pub fn fixed_tokens(system: Option<&str>, tools: &[ToolSpec]) -> u64 {
    let tools: usize = tools
        .iter()
        .map(|t| t.name.len() + t.description.len() + t.input_schema.to_string().len())
        .sum();
    tokens(system.map_or(0, str::len)) + tokens(tools)
}

/// Whether `m` starts an exchange: one of the person's own messages (not
/// tool results, which travel as user messages too).
fn starts_exchange(m: &Message) -> bool {
    m.role == Role::User && !m.parts.iter().any(|p| matches!(p, Part::ToolResult { .. }))
}

/// What fitting did: how many messages were left out.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Fit {
    pub dropped: usize,
    /// The estimate of what is sent: over the budget when even the newest
    /// message alone does not fit (see `too_long`).
    pub left: u64,
}

/// A failure of a request that could not fit, said as that: a server
/// given more than its window often just ends the stream (llama.cpp's
/// "ended before the answer did") or answers 500. `estimate` and `room`
/// are the request's and the window's tokens for the conversation.
///
/// The estimate is over the room only when [`fit`] left out all it could:
/// what is left is the newest message with what must go with it (the
/// newest step of its tools). A new branch from an earlier message cannot
/// help then, so the provider's own `context_length` is said so too: the
/// message is shortened, or the window raised where the model takes more.
pub(crate) fn too_long(error: &mut atelier_llm::Error, estimate: u64, room: u64, window: u32) {
    use atelier_llm::ErrorKind as K;
    if estimate > room && matches!(error.kind, K::Network | K::BadResponse | K::Server | K::ContextLength) {
        error.kind = K::MessageTooLong;
        error.message = format!(
            "{} — the newest message (with its tools' latest results, if any) is about {estimate} tokens, more than the {room} the model's context window ({window}) leaves for it even with every earlier message left out: shorten the message, or raise the context window (Model options) if the model takes more",
            error.message
        );
    }
}

/// Tokens kept free for the answer: the limit the person set, else the
/// limit a request carries by default but at most a quarter of the window
/// (a local server's 4,096 would otherwise leave no room for the history;
/// OpenAI-style requests send no limit then, so the model stops when the
/// window is full).
pub fn answer_reserve(max_tokens: Option<u32>, window: u32) -> u64 {
    max_tokens.map_or_else(
        || u64::from(atelier_llm::types::DEFAULT_MAX_TOKENS.min(window / 4)),
        u64::from,
    )
}

/// Whether `m` carries the results of the turn before it.
fn has_results(m: &Message) -> bool {
    m.parts.iter().any(|p| matches!(p, Part::ToolResult { .. }))
}

/// Leaves out the oldest whole exchanges of `messages` until the estimate
/// fits `budget` tokens (the window less the answer's limit and the fixed
/// parts). When the newest exchange alone is still too long (a long agent
/// loop, a sub-agent's one task), its oldest turns go too, each with its
/// results, keeping the message that opened it and its newest turn. The
/// first message kept carries a note.
pub fn fit(messages: &mut Vec<Message>, budget: u64, window: u32) -> Fit {
    let total: u64 = messages.iter().map(message_tokens).sum();
    if total <= budget {
        return Fit {
            dropped: 0,
            left: total,
        };
    }
    // Exchange starts, after the first message (which starts one anyway).
    let starts: Vec<usize> = (1..messages.len()).filter(|&i| starts_exchange(&messages[i])).collect();
    let mut cut = 0;
    let mut left = total;
    for &s in &starts {
        if left <= budget {
            break;
        }
        left -= messages[cut..s].iter().map(message_tokens).sum::<u64>();
        cut = s;
    }
    messages.drain(..cut);
    let mut dropped = cut;
    if left > budget && starts_exchange(&messages[0]) {
        // Turn boundaries inside the one exchange left: an assistant turn
        // right after the results of the one before.
        let turns: Vec<usize> = (2..messages.len())
            .filter(|&i| messages[i].role == Role::Assistant && has_results(&messages[i - 1]))
            .collect();
        let mut to = 1;
        for &t in &turns {
            if left <= budget {
                break;
            }
            left -= messages[to..t].iter().map(message_tokens).sum::<u64>();
            to = t;
        }
        messages.drain(1..to);
        dropped += to - 1;
    }
    if dropped == 0 {
        return Fit { dropped: 0, left };
    }
    let note = format!(
        "({dropped} earlier message(s) of this conversation were left out to fit the model's context window of {window} tokens.)"
    );
    messages[0].parts.insert(0, Part::Text { text: note });
    Fit { dropped, left }
}

/// Why a turn that streamed well still ends the run: it was cut at the
/// output limit. Kept as it streamed; a cut call's arguments are not JSON
/// (running it would fail, and the model would try again under the same
/// limit until the step limit).
pub(crate) fn cut(turn: &atelier_llm::Turn, max_tokens: Option<u32>) -> Option<atelier_llm::Error> {
    // Some servers (llama-cpp-python) say `tool_calls` for a call a limit
    // the person set cut, and report no usage: its arguments end mid-JSON.
    // Without a limit, or with usage under it, a model that dropped a
    // brace is told its arguments are not JSON, and can mend them.
    let at_limit =
        max_tokens.is_some_and(|m| turn.usage.output_tokens == 0 || turn.usage.output_tokens >= u64::from(m));
    let cut_call = at_limit && turn.tool_calls.iter().any(atelier_llm::ToolCall::cut_short);
    (turn.stop == atelier_llm::StopReason::MaxTokens || cut_call).then(|| {
        let limit = max_tokens.map_or("the provider's default".to_owned(), |n| format!("{n} tokens"));
        atelier_llm::Error::new(
            atelier_llm::ErrorKind::OutputLimit,
            format!("the answer reached the model's output limit ({limit}) and was cut"),
        )
    })
}

/// Why a turn that streamed well still ends the run: the model declined,
/// or the provider's content filter stopped it. What streamed is kept, and
/// said to have ended so, not saved as a whole answer.
pub(crate) fn refused(turn: &atelier_llm::Turn) -> Option<atelier_llm::Error> {
    (turn.stop == atelier_llm::StopReason::Refused).then(|| {
        atelier_llm::Error::new(
            atelier_llm::ErrorKind::Refused,
            "the provider ended the answer here: the model declined to go on, or a content filter stopped it",
        )
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn call_pair(id: &str, big: usize) -> [Message; 2] {
        [
            Message {
                role: Role::Assistant,
                parts: vec![Part::ToolCall {
                    id: id.into(),
                    name: "read_file".into(),
                    arguments: json!({"path": "a.txt"}),
                }],
            },
            Message {
                role: Role::User,
                parts: vec![Part::ToolResult {
                    call_id: id.into(),
                    content: "x".repeat(big),
                    is_error: false,
                }],
            },
        ]
    }

    #[test]
    fn a_turn_is_cut_when_the_server_says_so_or_a_calls_arguments_end_mid_json() {
        let turn = |stop, raw: &str| atelier_llm::Turn {
            text: String::new(),
            reasoning: String::new(),
            thinking: Vec::new(),
            tool_calls: vec![atelier_llm::ToolCall {
                id: "c".into(),
                name: "write_file".into(),
                arguments: serde_json::from_str::<serde_json::Value>(raw)
                    .map_err(|e| format!("arguments were not valid JSON: {e}")),
                raw_arguments: raw.into(),
                extra: None,
            }],
            usage: atelier_llm::Usage::default(),
            stop,
        };
        use atelier_llm::StopReason::{MaxTokens, ToolUse};
        assert!(cut(&turn(MaxTokens, "{}"), Some(8)).is_some());
        let said = cut(&turn(ToolUse, "{\"path\": \"hel"), Some(8))
            .expect("cut mid-JSON")
            .message;
        assert!(said.contains("8 tokens"), "{said}");
        assert!(
            cut(&turn(ToolUse, "{\"path\": \"hel"), None).is_none(),
            "no limit set: told, not cut"
        );
        assert!(cut(&turn(ToolUse, "{\"path\": 1}"), Some(8)).is_none());
        assert!(
            cut(&turn(ToolUse, "{\"path\" 1}"), Some(8)).is_none(),
            "malformed, not cut: the model is told"
        );
    }

    #[test]
    fn the_oldest_exchanges_go_whole_and_the_first_kept_says_so() {
        let mut m = vec![Message::user("first question")];
        m.extend(call_pair("c1", 3000));
        m.push(Message::user("second question"));
        m.extend(call_pair("c2", 3000));
        m.push(Message::user("third question"));
        let fit = fit(&mut m, 500, 4096);
        // Both older exchanges went, each with its call and result.
        assert_eq!(fit.dropped, 6);
        assert_eq!(m.len(), 1);
        let Part::Text { text } = &m[0].parts[0] else {
            panic!("a note first")
        };
        assert!(text.contains("6 earlier message(s)") && text.contains("4096"), "{text}");
        assert_eq!(
            m[0].parts[1],
            Part::Text {
                text: "third question".into()
            }
        );
    }

    #[test]
    fn a_call_is_never_sent_without_its_result_and_a_fitting_branch_is_untouched() {
        let mut m = vec![Message::user("q1")];
        m.extend(call_pair("c1", 30));
        m.push(Message::user("q2"));
        m.extend(call_pair("c2", 6000));
        let before = m.clone();
        assert_eq!(fit(&mut m, 100_000, 200_000).dropped, 0);
        assert_eq!(m, before);
        // Too long: only the newest exchange stays, with its pair intact.
        fit(&mut m, 100, 4096);
        assert_eq!(m.len(), 3);
        assert!(matches!(m[1].parts[0], Part::ToolCall { .. }));
        assert!(matches!(m[2].parts[0], Part::ToolResult { .. }));
    }

    #[test]
    fn one_long_exchange_loses_its_oldest_turns_whole_and_keeps_its_question() {
        let mut m = vec![Message::user("the task")];
        for id in ["c1", "c2", "c3"] {
            m.extend(call_pair(id, 3000));
        }
        m.push(Message {
            role: Role::Assistant,
            parts: vec![Part::Text { text: "done".into() }],
        });
        let fit = fit(&mut m, 1_200, 4096);
        // Two turns went, each with its result; the task and the newest stay.
        assert_eq!(fit.dropped, 4);
        assert_eq!(m.len(), 4);
        assert!(
            matches!(&m[0].parts[..], [Part::Text { text: note }, Part::Text { text: task }]
            if note.contains("4 earlier message(s)") && task == "the task")
        );
        assert!(matches!(&m[1].parts[0], Part::ToolCall { id, .. } if id == "c3"));
        assert!(matches!(&m[2].parts[0], Part::ToolResult { call_id, .. } if call_id == "c3"));
    }

    #[test]
    fn a_refusal_is_said_to_need_a_shorter_message_only_when_history_cannot_help() {
        use atelier_llm::{Error, ErrorKind as K};
        let said = |kind, estimate| {
            let mut e = Error::new(kind, "maximum context length is 4096 tokens");
            too_long(&mut e, estimate, 2_888, 4096);
            (e.kind, e.message)
        };
        // The newest message alone is over: no branch would help.
        let (kind, text) = said(K::ContextLength, 9_000);
        assert_eq!(kind, K::MessageTooLong);
        assert!(
            text.contains("shorten the message, or raise the context window"),
            "{text}"
        );
        assert!(!text.contains("branch"), "{text}");
        // A stream a server ended is said as the window too.
        assert_eq!(said(K::Network, 9_000).0, K::MessageTooLong);
        // It fit by the estimate: the provider's words, and the person may branch.
        assert_eq!(
            said(K::ContextLength, 2_000),
            (K::ContextLength, "maximum context length is 4096 tokens".to_owned())
        );
        assert_eq!(said(K::Auth, 9_000).0, K::Auth);
    }

    #[test]
    fn a_local_servers_window_keeps_room_for_the_history() {
        // 4,096 tokens and no limit set: a quarter goes to the answer,
        // not all of it.
        assert_eq!(answer_reserve(None, 4096), 1024);
        assert_eq!(answer_reserve(None, 200_000), 4096);
        assert_eq!(answer_reserve(Some(300), 4096), 300);
    }

    #[test]
    fn known_models_have_windows_and_unknown_ones_none() {
        assert_eq!(known_window("claude-sonnet-4-5"), Some(200_000));
        assert_eq!(known_window("openai/gpt-4o-mini"), Some(128_000));
        assert_eq!(known_window("qwen2.5:0.5b"), None);
    }
}
