//! Putting a turn together from deltas, tolerant of what real servers send:
//! tool calls keyed by `index` (a new `id` at the same index starts a new
//! call), `id`/`name` on the first chunk only or on every chunk, a whole
//! call in one chunk, arguments split anywhere, calls interleaved, no
//! `arguments` key, empty arguments meaning `{}`, fields beside `function`
//! kept for the call's way back; and `<think>…</think>` in the text kept
//! apart from the answer ([`think`]).
//!
//! A call's id is fixed when the call opens, and is unique: a server that
//! sends none (`call_{n}`, the same on every turn) or repeats one (in a turn,
//! or one of the branch's, [`Request::ids_in_use`](crate::Request::ids_in_use))
//! gets `{id}_2`, `_3`, …: the call's events, its record and the history
//! then name one call, never an earlier one's card or result.

mod arguments;
mod think;

use std::collections::BTreeSet;

use serde_json::{Map, Value};

use self::think::{Piece, Think};
use crate::types::{Event, StopReason, ThinkingBlock, ToolCall, Turn, Usage};

/// One call being streamed.
#[derive(Debug)]
struct Open {
    /// The provider's index (or block index).
    key: usize,
    /// Our index: the order calls started in.
    index: usize,
    /// The id as the provider streamed it (empty: none yet), which later
    /// fragments of the call are matched by.
    wire_id: String,
    /// The id the call goes by, given when it opened.
    id: String,
    name: String,
    args: String,
    /// What the provider put on the call besides its function.
    extra: Map<String, Value>,
}

/// Builds a [`Turn`] and emits the normalized [`Event`]s.
pub(crate) struct Builder<'a> {
    emit: &'a mut (dyn FnMut(&Event) + Send),
    turn: Turn,
    open: Vec<Open>,
    started: usize,
    think: Think,
    /// Ended calls with the order they started in.
    closed: Vec<(usize, ToolCall)>,
    /// Whether anything reached the person (no retry after that).
    pub(crate) streamed: bool,
    /// The model refused (OpenAI's `refusal`): the turn ends so.
    refused: bool,
    /// Call ids a new call may not take: the branch's and this turn's.
    taken: BTreeSet<String>,
}

impl<'a> Builder<'a> {
    pub(crate) fn new(emit: &'a mut (dyn FnMut(&Event) + Send)) -> Self {
        Self {
            emit,
            turn: Turn {
                text: String::new(),
                reasoning: String::new(),
                thinking: Vec::new(),
                tool_calls: Vec::new(),
                usage: Usage::default(),
                stop: StopReason::EndTurn,
            },
            open: Vec::new(),
            started: 0,
            think: Think::default(),
            closed: Vec::new(),
            streamed: false,
            refused: false,
            taken: BTreeSet::new(),
        }
    }

    /// The call ids a new call of this turn may not take (the branch's).
    pub(crate) fn avoiding(mut self, ids: BTreeSet<String>) -> Self {
        self.taken = ids;
        self
    }

    /// `id` if no call has it yet, else `{id}_2`, `{id}_3`, …; taken.
    fn fresh_id(&mut self, id: String) -> String {
        let id = if self.taken.contains(&id) {
            (2..)
                .map(|n| format!("{id}_{n}"))
                .find(|c| !self.taken.contains(c))
                .unwrap_or_default()
        } else {
            id
        };
        self.taken.insert(id.clone());
        id
    }

    fn send(&mut self, e: Event) {
        self.streamed = true;
        (self.emit)(&e);
    }

    /// Answer text (may hold `<think>` tags).
    pub(crate) fn text(&mut self, delta: &str) {
        for piece in self.think.split(delta) {
            self.take(piece);
        }
    }

    fn take(&mut self, piece: Piece) {
        match piece {
            Piece::Text(t) => self.piece(false, t),
            Piece::Reasoning(t) => self.piece(true, t),
            // The text so far was reasoning, unless the turn's reasoning
            // came otherwise or a call came first: then the tag is text.
            Piece::Closed if self.turn.reasoning.is_empty() && self.started == 0 => {
                self.turn.reasoning = std::mem::take(&mut self.turn.text);
            }
            Piece::Closed => self.piece(false, "</think>".to_owned()),
        }
    }

    /// A refusal the model streamed instead of an answer (OpenAI's
    /// `refusal`): shown as text, and the turn ends as refused.
    pub(crate) fn refusal(&mut self, delta: &str) {
        self.refused = true;
        self.piece(false, delta.to_owned());
    }

    fn piece(&mut self, reasoning: bool, piece: String) {
        if piece.is_empty() {
            return;
        }
        if reasoning {
            self.turn.reasoning.push_str(&piece);
            self.send(Event::ReasoningDelta(piece));
        } else {
            self.turn.text.push_str(&piece);
            self.send(Event::TextDelta(piece));
        }
    }

    /// Reasoning the provider sends apart (`reasoning_content`, thinking blocks).
    pub(crate) fn reasoning(&mut self, delta: &str) {
        self.piece(true, delta.to_owned());
    }

    /// A new thinking block starts (Anthropic `content_block_start`);
    /// blocks after the first are shown a paragraph apart.
    pub(crate) fn thinking_start(&mut self) {
        if !self.turn.reasoning.is_empty() {
            self.piece(true, "\n\n".to_owned());
        }
        self.turn.thinking.push(ThinkingBlock::Thinking {
            text: String::new(),
            signature: None,
        });
    }

    /// Text of the current thinking block.
    pub(crate) fn thinking(&mut self, delta: &str) {
        match self.turn.thinking.last_mut() {
            Some(ThinkingBlock::Thinking { text, .. }) => text.push_str(delta),
            _ => self.turn.thinking.push(ThinkingBlock::Thinking {
                text: delta.to_owned(),
                signature: None,
            }),
        }
        self.reasoning(delta);
    }

    /// The signature of the current thinking block (it comes last).
    pub(crate) fn signature(&mut self, sig: &str) {
        if let Some(ThinkingBlock::Thinking { signature, .. }) = self.turn.thinking.last_mut() {
            signature.get_or_insert_with(String::new).push_str(sig);
        }
    }

    /// An encrypted thinking block, kept whole: nothing of it is shown.
    pub(crate) fn redacted(&mut self, data: &str) {
        self.turn
            .thinking
            .push(ThinkingBlock::Redacted { data: data.to_owned() });
    }

    /// A tool-call fragment. `key`: the provider's index (none: the last
    /// call, or a new one when an unseen id comes); `extra`: fields beside
    /// its function, kept for its way back (a later fragment's win).
    pub(crate) fn tool_delta(
        &mut self,
        key: Option<usize>,
        id: Option<&str>,
        name: Option<&str>,
        args: Option<&str>,
        extra: Option<&Map<String, Value>>,
    ) {
        let id = id.filter(|s| !s.is_empty());
        let name = name.filter(|s| !s.is_empty());
        let key = key.unwrap_or_else(|| match (id, self.open.last()) {
            (Some(id), Some(last)) if last.wire_id != id => last.key + 1,
            (_, Some(last)) => last.key,
            (_, None) => 0,
        });
        // A new id at an index in use starts a new call there.
        let pos = self.open.iter().position(|o| o.key == key);
        let pos = match (pos, id) {
            (Some(p), Some(id)) if !self.open[p].wire_id.is_empty() && self.open[p].wire_id != id => {
                let done = self.open.remove(p);
                self.close(done);
                None
            }
            (p, _) => p,
        };
        let p = match pos {
            Some(p) => p,
            None => {
                let index = self.started;
                self.started += 1;
                // Fixed now: the call is announced under it.
                let given = self.fresh_id(id.map_or_else(|| format!("call_{index}"), str::to_owned));
                self.open.push(Open {
                    key,
                    index,
                    wire_id: id.unwrap_or_default().to_owned(),
                    id: given,
                    name: name.unwrap_or_default().to_owned(),
                    args: String::new(),
                    extra: Map::new(),
                });
                let o = self.open.last().map(|o| (o.index, o.id.clone(), o.name.clone()));
                if let Some((index, id, name)) = o {
                    self.send(Event::ToolCallStart { index, id, name });
                }
                self.open.len() - 1
            }
        };
        let o = &mut self.open[p];
        if o.wire_id.is_empty()
            && let Some(id) = id
        {
            id.clone_into(&mut o.wire_id);
        }
        if o.name.is_empty()
            && let Some(name) = name
        {
            name.clone_into(&mut o.name);
        }
        if let Some(extra) = extra {
            o.extra.extend(extra.iter().map(|(k, v)| (k.clone(), v.clone())));
        }
        if let Some(a) = args.filter(|a| !a.is_empty()) {
            o.args.push_str(a);
            let index = o.index;
            self.send(Event::ToolCallDelta {
                index,
                arguments: a.to_owned(),
            });
        }
    }

    /// A call whose block ended (Anthropic `content_block_stop`).
    pub(crate) fn tool_end(&mut self, key: usize) {
        if let Some(p) = self.open.iter().position(|o| o.key == key) {
            let done = self.open.remove(p);
            self.close(done);
        }
    }

    fn close(&mut self, o: Open) {
        let arguments = arguments::parse_arguments(&o.args);
        let call = ToolCall {
            id: o.id,
            name: o.name,
            arguments,
            raw_arguments: o.args,
            extra: (!o.extra.is_empty()).then_some(Value::Object(o.extra)),
        };
        self.closed.push((o.index, call.clone()));
        self.send(Event::ToolCallEnd { index: o.index, call });
    }

    pub(crate) fn usage(&mut self, input: Option<u64>, output: Option<u64>) {
        if let Some(i) = input {
            self.turn.usage.input_tokens = i;
        }
        if let Some(o) = output {
            self.turn.usage.output_tokens = o;
        }
        let u = self.turn.usage;
        (self.emit)(&Event::Usage(u));
    }

    pub(crate) fn stop(&mut self, reason: StopReason) {
        self.turn.stop = reason;
    }

    pub(crate) fn keepalive(&mut self) {
        (self.emit)(&Event::Keepalive);
    }

    /// Everything still open is closed; tool calls mean `ToolUse` whatever
    /// the server said (`finish_reason: "stop"` with calls).
    pub(crate) fn finish(mut self) -> Turn {
        for piece in self.think.flush() {
            self.take(piece);
        }
        let open = std::mem::take(&mut self.open);
        for o in open {
            self.close(o);
        }
        self.take_calls();
        if !self.turn.tool_calls.is_empty() && !matches!(self.turn.stop, StopReason::MaxTokens | StopReason::Refused) {
            self.turn.stop = StopReason::ToolUse;
        }
        if self.refused && self.turn.tool_calls.is_empty() {
            self.turn.stop = StopReason::Refused;
        }
        self.turn
    }

    fn take_calls(&mut self) {
        let mut closed = std::mem::take(&mut self.closed);
        closed.sort_by_key(|(i, _)| *i);
        self.turn.tool_calls = closed.into_iter().map(|(_, c)| c).collect();
    }

    /// What streamed so far, for a failed or stopped turn.
    /// Calls that had not ended are dropped: they never ran.
    pub(crate) fn partial(mut self) -> Turn {
        for piece in self.think.flush() {
            self.take(piece);
        }
        self.take_calls();
        self.turn
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn run(f: impl FnOnce(&mut Builder<'_>)) -> (Turn, Vec<Event>) {
        let mut events = Vec::new();
        let mut emit = |e: &Event| events.push(e.clone());
        let mut b = Builder::new(&mut emit);
        f(&mut b);
        let t = b.finish();
        (t, events)
    }

    #[test]
    fn think_tags_split_anywhere_are_kept_apart() {
        let text = "<think>plan: a<b</think>The answer";
        for cut in 1..text.len() {
            if !text.is_char_boundary(cut) {
                continue;
            }
            let (t, _) = run(|b| {
                b.text(&text[..cut]);
                b.text(&text[cut..]);
            });
            assert_eq!(
                (t.reasoning.as_str(), t.text.as_str()),
                ("plan: a<b", "The answer"),
                "cut {cut}"
            );
        }
        let (t, _) = run(|b| b.text("a < b and <thi"));
        assert_eq!(t.text, "a < b and <thi", "a held tail that never became a tag is text");
    }

    #[test]
    fn a_think_tag_is_one_block_at_the_start_and_text_anywhere_else() {
        // An answer explaining the tag keeps all of its words.
        let said = "R1 writes <think>its plan</think> before the answer.";
        for cut in 1..said.len() {
            let (t, _) = run(|b| {
                b.text(&said[..cut]);
                b.text(&said[cut..]);
            });
            assert_eq!((t.reasoning.as_str(), t.text.as_str()), ("", said), "cut {cut}");
        }
        // After the block, a second one is text.
        let (t, _) = run(|b| b.text("\n<think>a</think>B <think>c</think>"));
        assert_eq!((t.reasoning.as_str(), t.text.as_str()), ("a", "\nB <think>c</think>"));
    }

    #[test]
    fn tool_calls_accumulate_whatever_shape_the_chunks_have() {
        // Interleaved calls, id and name on every chunk (llama.cpp), a
        // chunk with no arguments (vLLM), an escape split in two.
        let (t, _) = run(|b| {
            b.tool_delta(Some(0), Some("a"), Some("write"), Some("{\"path\": \"x\\"), None);
            b.tool_delta(Some(1), Some("b"), Some("read"), None, None);
            b.tool_delta(Some(0), Some("a"), Some("write"), Some("\"y\"}"), None);
            b.tool_delta(Some(1), None, None, Some(""), None);
            b.stop(StopReason::EndTurn);
        });
        assert_eq!(t.stop, StopReason::ToolUse, "calls mean tool use even after `stop`");
        assert_eq!(t.tool_calls.len(), 2);
        let write = t.tool_calls.iter().find(|c| c.id == "a").expect("a");
        assert_eq!(write.arguments, Ok(serde_json::json!({"path": "x\"y"})));
        let read = t.tool_calls.iter().find(|c| c.id == "b").expect("b");
        assert_eq!(read.arguments, Ok(serde_json::json!({})), "empty means {{}}");
        // A new id at the same index starts a new call.
        let (t, _) = run(|b| {
            b.tool_delta(Some(0), Some("one"), Some("f"), Some("{}"), None);
            b.tool_delta(Some(0), Some("two"), Some("g"), Some("{\"n\": 1}"), None);
        });
        let names: Vec<&str> = t.tool_calls.iter().map(|c| c.name.as_str()).collect();
        assert_eq!(names, ["f", "g"]);
        // Bad JSON is an error for the model, not a crash.
        let (t, _) = run(|b| b.tool_delta(None, Some("c"), Some("f"), Some("{\"a\": "), None));
        assert!(
            t.tool_calls[0]
                .arguments
                .as_ref()
                .is_err_and(|e| e.starts_with("arguments were not valid JSON"))
        );
    }

    #[test]
    fn a_call_is_announced_under_the_id_it_keeps_and_no_id_is_given_twice() {
        let mut events = Vec::new();
        let mut emit = |e: &Event| events.push(e.clone());
        let taken = ["call_0".to_owned(), "x".to_owned()].into_iter().collect();
        let mut b = Builder::new(&mut emit).avoiding(taken);
        // No id (a server that never sends one): `call_0`, which the branch has.
        b.tool_delta(Some(0), None, Some("f"), Some("{}"), None);
        // An id the branch has, then the same id twice in this turn; later
        // fragments still find their call by the id as streamed.
        b.tool_delta(Some(1), Some("x"), Some("g"), Some("{"), None);
        b.tool_delta(Some(2), Some("y"), Some("h"), Some("{}"), None);
        b.tool_delta(Some(3), Some("y"), Some("k"), Some("{}"), None);
        b.tool_delta(Some(1), Some("x"), None, Some("}"), None);
        let t = b.finish();
        let announced: Vec<&str> = events
            .iter()
            .filter_map(|e| match e {
                Event::ToolCallStart { id, .. } => Some(id.as_str()),
                _ => None,
            })
            .collect();
        let kept: Vec<&str> = t.tool_calls.iter().map(|c| c.id.as_str()).collect();
        assert_eq!(announced, ["call_0_2", "x_2", "y", "y_2"]);
        assert_eq!(kept, announced, "the events and the turn name the same calls");
        assert_eq!(t.tool_calls[1].arguments, Ok(serde_json::json!({})));
    }
}
