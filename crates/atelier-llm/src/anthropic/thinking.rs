//! Extended thinking as each Claude generation takes it. The API has two
//! forms and the models disagree on them:
//!
//! - **manual** (`{"type": "enabled", "budget_tokens": N}`): every Claude
//!   before 4.6, and every model behind an Anthropic-compatible endpoint
//!   that is not Claude (GLM, Kimi, MiniMax, DeepSeek copy this form). It
//!   refuses a forced tool choice, a budget under 1024 or not under
//!   `max_tokens`, and thinking switched on in the middle of a tool loop.
//! - **adaptive** (`{"type": "adaptive"}` with `output_config.effort`):
//!   Claude 4.6 and later. Opus 4.7 and later refuse the manual form and
//!   any sampling setting (`temperature`) at all, so a person's effort or
//!   temperature would otherwise fail every request.
//!
//! The generation is read from the model id (which also names it behind
//! Bedrock, Vertex and OpenRouter: `us.anthropic.claude-opus-4-7-v1:0`,
//! `claude-opus-4-7@2026…`, `anthropic/claude-opus-4.7`); a Claude id with
//! no version in it is a newer codename and is taken as the newest.

use serde_json::{Value, json};

use crate::types::DEFAULT_MAX_TOKENS;

/// The smallest manual thinking budget the API takes (`budget_tokens` ≥ 1024).
const MIN_BUDGET: u32 = 1024;

/// What one model accepts.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Generation {
    /// Takes `{"type": "adaptive"}` and the effort parameter.
    pub adaptive: bool,
    /// Takes `temperature` (Opus 4.7 and later refuse it: "temperature is
    /// deprecated for this model").
    pub sampling: bool,
}

impl Generation {
    pub(crate) fn of(model: &str) -> Self {
        let lower = model.to_ascii_lowercase();
        let Some(at) = lower.find("claude") else {
            // Not Claude: an Anthropic-compatible server copies the manual form.
            return Self {
                adaptive: false,
                sampling: true,
            };
        };
        match version(&lower[at + "claude".len()..]) {
            Some(v) => Self {
                adaptive: v >= (4, 6),
                sampling: v < (4, 7),
            },
            None => Self {
                adaptive: true,
                sampling: false,
            },
        }
    }
}

/// `(major, minor)` of what follows "claude" in a model id: the first
/// number of one or two digits, and the next one if it is too (a date,
/// `20250514`, is not a minor). `-opus-4-7`, `-3-7-sonnet-2025…`,
/// `-opus-4-20250514` (4.0), `-opus-4.7`, `-instant-1.2`, `-fable-5`.
fn version(rest: &str) -> Option<(u32, u32)> {
    let small =
        |t: &str| (!t.is_empty() && t.len() <= 2 && t.bytes().all(|b| b.is_ascii_digit())).then(|| t.parse().ok())?;
    let mut tokens = rest
        .split(['-', '.', '@', ':', '/', '_'])
        .skip_while(|t| small(t).is_none());
    let major = small(tokens.next()?)?;
    let minor = tokens.next().and_then(small).unwrap_or(0);
    Some((major, minor))
}

/// The request's thinking settings: what goes into the body.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Thinking {
    pub max_tokens: u32,
    /// The `thinking` object, or none: thinking off.
    pub thinking: Option<Value>,
    /// `output_config` (the effort of adaptive thinking).
    pub output_config: Option<Value>,
    /// Whether `temperature` may be sent.
    pub temperature: bool,
}

/// What a request asks of thinking.
pub(crate) struct Ask<'a> {
    pub model: &'a str,
    pub max_tokens: Option<u32>,
    pub effort: Option<&'a str>,
    /// The request forces one tool.
    pub forced_tool: bool,
    /// The request is inside a tool loop whose assistant message does not
    /// start with a thinking block: manual thinking cannot come on now.
    pub mid_turn_without_thinking: bool,
}

pub(crate) fn settings(ask: &Ask<'_>) -> Thinking {
    let generation = Generation::of(ask.model);
    let off = |max_tokens: Option<u32>| Thinking {
        max_tokens: max_tokens.unwrap_or(DEFAULT_MAX_TOKENS),
        thinking: None,
        output_config: None,
        temperature: generation.sampling,
    };
    let Some(effort) = ask.effort else {
        return off(ask.max_tokens);
    };
    let budget = match effort {
        "low" => MIN_BUDGET,
        "high" => 16_384,
        _ => 4096,
    };
    if generation.adaptive {
        // The model spends what the effort says, inside max_tokens; with no
        // limit set, the answer keeps its usual room after the budget a
        // manual request would have had. A forced tool is allowed.
        let effort = match effort {
            "low" | "medium" | "high" => effort,
            _ => "medium",
        };
        return Thinking {
            max_tokens: ask.max_tokens.unwrap_or(budget + DEFAULT_MAX_TOKENS),
            thinking: Some(json!({"type": "adaptive"})),
            output_config: Some(json!({"effort": effort})),
            temperature: false,
        };
    }
    if ask.forced_tool || ask.mid_turn_without_thinking {
        return off(ask.max_tokens);
    }
    let (max_tokens, budget) = match ask.max_tokens {
        // Nobody set a limit: the answer gets the usual room after thinking.
        None => (budget + DEFAULT_MAX_TOKENS, Some(budget)),
        Some(m) if m > budget => (m, Some(budget)),
        // A limit someone set is kept: thinking gets half of it, so the
        // answer keeps the other half, or is off when that is under 1024.
        Some(m) => (m, Some(m / 2).filter(|b| *b >= MIN_BUDGET)),
    };
    match budget {
        Some(budget) => Thinking {
            max_tokens,
            thinking: Some(json!({"type": "enabled", "budget_tokens": budget})),
            output_config: None,
            // With thinking on the API takes no temperature but 1.
            temperature: false,
        },
        None => off(Some(max_tokens)),
    }
}

/// Whether `messages` (the body's, merged by role) end inside a tool loop
/// whose last assistant message does not open with a thinking block: the
/// API refuses manual thinking then ("a final assistant message must start
/// with a thinking block"). It happens after a forced first step, which
/// goes without thinking, or when the loop began on another provider.
pub(crate) fn mid_turn_without_thinking(messages: &[Value]) -> bool {
    let Some(last) = messages.last() else {
        return false;
    };
    let in_loop = last["role"] == "user" && last["content"][0]["type"] == "tool_result";
    let assistant = messages.iter().rev().find(|m| m["role"] == "assistant");
    in_loop
        && assistant.is_some_and(|a| {
            let first = &a["content"][0]["type"];
            first != "thinking" && first != "redacted_thinking"
        })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn generations_are_read_from_ids_as_every_platform_writes_them() {
        let manual = Generation {
            adaptive: false,
            sampling: true,
        };
        let adaptive = Generation {
            adaptive: true,
            sampling: true,
        };
        let newest = Generation {
            adaptive: true,
            sampling: false,
        };
        for (id, want) in [
            ("claude-3-7-sonnet-20250219", manual),
            ("claude-opus-4-20250514", manual),
            ("claude-opus-4-1-20250805", manual),
            ("claude-sonnet-4-5", manual),
            ("claude-haiku-4-5-20251001", manual),
            ("claude-instant-1.2", manual),
            ("claude-sonnet-4-6", adaptive),
            ("claude-opus-4-6", adaptive),
            ("claude-opus-4-7", newest),
            ("us.anthropic.claude-opus-4-7-v1:0", newest),
            ("claude-opus-4-7@20260301", newest),
            ("anthropic/claude-opus-4.7", newest),
            ("claude-fable-5", newest),
            ("claude-mythos-preview", newest),
            ("glm-4.6", manual),
            ("kimi-k2-0905-preview", manual),
            ("claude", newest),
        ] {
            assert_eq!(Generation::of(id), want, "{id}");
        }
    }

    fn ask(model: &'static str, effort: Option<&'static str>, max_tokens: Option<u32>) -> Ask<'static> {
        Ask {
            model,
            max_tokens,
            effort,
            forced_tool: false,
            mid_turn_without_thinking: false,
        }
    }

    #[test]
    fn adaptive_models_get_the_effort_and_never_a_budget_or_a_refused_temperature() {
        let t = settings(&ask("claude-opus-4-7", Some("high"), None));
        assert_eq!(t.thinking, Some(json!({"type": "adaptive"})));
        assert_eq!(t.output_config, Some(json!({"effort": "high"})));
        assert_eq!(t.max_tokens, 16_384 + DEFAULT_MAX_TOKENS);
        assert!(!t.temperature);
        // A forced tool keeps adaptive thinking: the API takes both.
        let forced = Ask {
            forced_tool: true,
            ..ask("claude-sonnet-4-6", Some("low"), Some(3000))
        };
        let t = settings(&forced);
        assert_eq!((t.max_tokens, t.output_config), (3000, Some(json!({"effort": "low"}))));
        // No effort: no thinking; 4.6 takes a temperature, 4.7 does not.
        assert!(settings(&ask("claude-sonnet-4-6", None, None)).temperature);
        let t = settings(&ask("claude-opus-4-7", None, None));
        assert!(t.thinking.is_none() && !t.temperature && t.max_tokens == DEFAULT_MAX_TOKENS);
    }

    #[test]
    fn manual_thinking_stays_off_inside_a_loop_that_began_without_it() {
        let t = settings(&Ask {
            mid_turn_without_thinking: true,
            ..ask("claude-sonnet-4-5", Some("high"), None)
        });
        assert!(t.thinking.is_none() && t.temperature, "{t:?}");
        let loop_ = |first: &str| {
            vec![
                json!({"role": "user", "content": [{"type": "text", "text": "go"}]}),
                json!({"role": "assistant", "content": [{"type": first}, {"type": "tool_use"}]}),
                json!({"role": "user", "content": [{"type": "tool_result"}]}),
            ]
        };
        assert!(mid_turn_without_thinking(&loop_("tool_use")));
        assert!(!mid_turn_without_thinking(&loop_("thinking")));
        assert!(!mid_turn_without_thinking(&loop_("redacted_thinking")));
        // A new question after the loop: thinking may come on again.
        let mut next = loop_("tool_use");
        next.push(json!({"role": "assistant", "content": [{"type": "text"}]}));
        next.push(json!({"role": "user", "content": [{"type": "text", "text": "and?"}]}));
        assert!(!mid_turn_without_thinking(&next));
    }
}
