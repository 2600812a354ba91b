//! The agent loop: one run of a chat's agent, from the message it answers
//! to its final answer (or the step limit, a stop, an error). Each model
//! turn streams in memory (journaled, see [`super::journal`]) and is written
//! as one `assistant` message when it ends; the calls it made run one
//! after another ([`super::calls`]), chained under it.

use std::collections::{BTreeSet, HashMap};

use serde_json::json;

use atelier_llm::{Event, Request, ToolChoice};

use super::branch::Begun;
use super::budget;
use super::calls::RunTools;
use super::journal::Journal;
use super::persist::{follow, reasoning_parts};
use super::spawn::Parent;
use super::{ChatEvent, Conversation, Registered, RunOutcome, RunStatus, SendOptions, Start, context};
use crate::Result;
use crate::model::{ContentPart, Message, Role};
use crate::routing::exposure::Exposure;
use crate::routing::pool::SourceKind;

impl Conversation<'_> {
    pub(super) async fn run(
        &self,
        chat_id: &str,
        start: Start<'_>,
        opts: SendOptions,
        // A person's run, registered by the front door (see `Registered`);
        // none for a sub-agent's, which stops with its parent.
        _registered: Option<Registered<'_>>,
        on: &mut (dyn FnMut(&ChatEvent) + Send),
    ) -> Result<RunOutcome> {
        // The person's message is written only once the run can start
        // (its errors first), but what it needs is gathered meanwhile.
        let (begun, question) = tokio::join!(self.begin(chat_id, &start, &opts), self.question(chat_id, &start));
        let Begun {
            chat,
            agent,
            depth,
            choice,
            client,
            snapshot,
        } = begun?;
        let agent_id = agent.id.clone();
        let exposure = match client.provider().kind {
            atelier_llm::Kind::Openai => Exposure::Openai,
            atelier_llm::Kind::Anthropic => Exposure::Anthropic,
        };
        // The run's tools, fixed for the run, from the agent already read.
        let tools = RunTools::new(&agent, &snapshot, depth, exposure)?;
        let wire_name = |id: &str| tools.wire_name(id);
        let settings = chat.model_settings.over(&agent.model_settings);
        let send_images = settings
            .images
            .unwrap_or_else(|| super::images::takes_images_by_name(&choice.model));
        let provider = &choice.provider;
        let window = settings
            .context_window
            .or_else(|| budget::known_window(&choice.model))
            .or_else(|| {
                let local = provider
                    .preset
                    .as_deref()
                    .and_then(crate::providers::preset)
                    .is_some_and(|p| p.local);
                local.then_some(budget::LOCAL_DEFAULT_WINDOW)
            });
        // A forced first call (the real-model lane: a tiny model will not
        // choose a tool by itself), by its model-facing name.
        let mut forced = match &opts.force_tool {
            Some(name) => Some(tools.forced(name, &agent_id)?),
            None => None,
        };
        on(&ChatEvent::RunStarted {
            agent_id: agent_id.clone(),
            provider_id: choice.provider.id.clone(),
            model: choice.model.clone(),
            context_window: window,
        });

        let mut outcome = RunOutcome {
            status: RunStatus::Complete,
            error: None,
            error_kind: None,
            messages: Vec::new(),
            tool_calls: Vec::new(),
        };
        // The branch root → leaf as the last step read it, while every
        // message since is known to hang under it.
        let mut known: Option<Vec<Message>> = None;
        let mut leaf = match start {
            Start::Message { text, parent, images } => {
                let (user, branch) = self.ask(&chat.id, text, parent, images, question).await?;
                known = branch;
                on(&ChatEvent::MessageSaved {
                    message: Box::new(user.clone()),
                });
                let id = user.id.clone();
                outcome.messages.push(user);
                id
            }
            Start::From(leaf) | Start::Thread { first: leaf, .. } => {
                self.app.chats().message(&chat.id, &leaf).await?.id
            }
        };

        // The agent's prompt, then what the MCP servers whose tools the run
        // offers say about them (`mcp::instructions`).
        let servers: BTreeSet<String> = tools
            .resolved
            .tools
            .iter()
            .filter(|t| t.source_kind == SourceKind::Mcp)
            .filter_map(|t| t.source_id.clone())
            .collect();
        let system = self.app.mcp().system_prompt(&agent.system_prompt, &servers).await?;
        let mut steps = 0;
        // The rows of the calls on `known`, while it is known: the run adds
        // those it makes from their records.
        let mut rows: Option<HashMap<String, super::context::CallRow>> = None;
        loop {
            if steps >= agent.max_steps.max(1) {
                let parent = self.message_at(&chat.id, &leaf, known.as_deref()).await?;
                let note = self
                    .save_turn(
                        &chat.id,
                        parent,
                        vec![ContentPart::Text {
                            text: format!(
                                "(Stopped after {steps} model steps: the step limit of agent {agent_id}. Send a message to go on.)"
                            ),
                        }],
                        &choice,
                        None,
                        RunStatus::StepLimit,
                        None,
                        None,
                    )
                    .await?;
                on(&ChatEvent::MessageSaved {
                    message: Box::new(note.clone()),
                });
                outcome.messages.push(note);
                outcome.status = RunStatus::StepLimit;
                break;
            }
            steps += 1;
            // Read once; later steps extend it with what the run wrote.
            let (branch, calls) = match (known.take(), rows.take()) {
                (Some(b), Some(calls)) if b.last().is_some_and(|m| m.id == leaf) => (b, calls),
                (Some(b), None) if b.last().is_some_and(|m| m.id == leaf) => {
                    let calls = self.call_rows(&b).await?;
                    (b, calls)
                }
                _ => {
                    let b = self.path_to(&chat.id, &leaf).await?;
                    let calls = self.call_rows(&b).await?;
                    (b, calls)
                }
            };
            let images = self.app.branch_images(&chat.id, &branch, &calls, send_images).await?;
            let edits = self.edit_notes(&chat.id, &branch).await?;
            // Scoped: a `&dyn Fn` must not live across an await (the run's
            // future is sent between threads).
            let mut messages = {
                let inputs = context::Inputs {
                    calls: &calls,
                    wire_name: &wire_name,
                    images: &images,
                    provider_id: &choice.provider.id,
                    edits: &edits,
                };
                context::transcript(&branch, &inputs)
            };
            if steps == 1 {
                let foreign = context::foreign_reasoning(&branch, &choice.provider.id);
                if foreign > 0 {
                    on(&ChatEvent::ContextNote {
                        text: format!(
                            "{foreign} reasoning block(s) of earlier turns with another provider were left out: {} cannot take them",
                            choice.provider.id
                        ),
                    });
                }
            }
            let mut sized = None;
            if let Some(window) = window {
                let reserve = budget::answer_reserve(settings.max_tokens, window);
                let fixed = budget::fixed_tokens(system.as_deref(), &tools.specs);
                let room = u64::from(window).saturating_sub(reserve + fixed);
                let fit = budget::fit(&mut messages, room, window);
                sized = Some((fit.left, room, window));
                if fit.dropped > 0 {
                    on(&ChatEvent::ContextTrimmed {
                        dropped_messages: fit.dropped,
                        context_window: window,
                    });
                }
            }
            let request = Request {
                model: choice.model.clone(),
                system: system.clone(),
                messages,
                tools: tools.specs.clone(),
                tool_choice: forced.take().map_or(ToolChoice::Auto, ToolChoice::Tool),
                temperature: settings.temperature,
                max_tokens: settings.max_tokens,
                reasoning_effort: settings.reasoning_effort.map(|e| e.as_str().to_owned()),
                call_extras: context::call_extras(&branch, &choice.provider.id),
                call_ids_taken: context::call_ids(&branch, &calls),
            };
            let journal = Journal::start(
                self.app,
                &chat.id,
                &leaf,
                &json!({"provider_id": choice.provider.id, "model": choice.model}),
            );
            let mut forward = |e: &Event| match e {
                Event::TextDelta(t) => {
                    journal.text(t);
                    on(&ChatEvent::TextDelta { text: t.clone() });
                }
                Event::ReasoningDelta(t) => {
                    journal.reasoning(t);
                    on(&ChatEvent::ReasoningDelta { text: t.clone() });
                }
                Event::ToolCallStart { id, name, .. } => on(&ChatEvent::ToolCallProposed {
                    call_id: id.clone(),
                    name: name.clone(),
                    tool_id: tools.canonical_of(name),
                }),
                _ => {}
            };
            let streamed = client.stream(&request, &opts.cancel, &mut forward).await;
            let (turn, failure) = match streamed {
                Ok(t) => match budget::cut(&t, settings.max_tokens)
                    .or_else(|| budget::refused(&t))
                    .or_else(|| no_answer(&t))
                {
                    Some(cut) => (t, Some(cut)),
                    None => (t, None),
                },
                Err(mut f) => {
                    if let Some((estimate, room, window)) = sized.filter(|_| f.partial.text.is_empty()) {
                        budget::too_long(&mut f.error, estimate, room, window);
                    }
                    // Name what the provider does offer.
                    if f.error.kind == atelier_llm::ErrorKind::ModelNotFound
                        && let Ok(models) = client.models().await
                        && !models.is_empty()
                    {
                        let shown: Vec<&str> = models.iter().take(20).map(String::as_str).collect();
                        f.error.message = format!(
                            "{}; provider {} offers: {}{}",
                            f.error.message,
                            choice.provider.id,
                            shown.join(", "),
                            if models.len() > shown.len() { ", …" } else { "" }
                        );
                    }
                    (f.partial, Some(f.error))
                }
            };
            let mut parts = reasoning_parts(&turn);
            if !turn.text.is_empty() {
                parts.push(ContentPart::Text {
                    text: turn.text.clone(),
                });
            }
            let cut = failure.as_ref().is_some_and(|e| {
                matches!(
                    e.kind,
                    atelier_llm::ErrorKind::OutputLimit | atelier_llm::ErrorKind::Refused
                )
            });
            // A cut turn's calls never run: none is kept (the model would
            // read them as cancelled by the person after "go on").
            for c in turn.tool_calls.iter().filter(|_| !cut) {
                parts.push(ContentPart::ModelCall {
                    call_id: c.id.clone(),
                    name: tools.kept_name(&c.name),
                    arguments: super::calls::kept_arguments(c),
                    extra: c.extra.clone(),
                });
            }
            let status = match &failure {
                None => RunStatus::Complete,
                Some(e) if e.kind == atelier_llm::ErrorKind::Cancelled => RunStatus::Stopped,
                Some(_) => RunStatus::Failed,
            };
            // Some servers (llama-cpp-python) never say: unknown, not zero.
            let usage = (turn.usage != atelier_llm::Usage::default())
                .then(|| json!({"input_tokens": turn.usage.input_tokens, "output_tokens": turn.usage.output_tokens}));
            let parent = self.message_at(&chat.id, &leaf, Some(&branch)).await?;
            let saving = async {
                let message = self
                    .save_turn(
                        &chat.id,
                        parent,
                        parts,
                        &choice,
                        usage,
                        status,
                        failure.as_ref(),
                        Some(journal.id.clone()),
                    )
                    .await?;
                journal.end(self.app).await?;
                Ok::<_, crate::Error>(message)
            };
            // The first call's tool is read while the turn is written.
            let first = turn.tool_calls.first().filter(|_| failure.is_none());
            let first_target = self.call_target(&chat.id, first, &tools.exposed, &tools.resolved);
            let (message, mut prefetched) = tokio::join!(saving, first_target);
            let message = message?;
            on(&ChatEvent::MessageSaved {
                message: Box::new(message.clone()),
            });
            leaf = message.id.clone();
            known = Some(branch);
            follow(&mut known, &message);
            rows = known.is_some().then_some(calls);
            outcome.messages.push(message);
            if let Some(e) = failure {
                outcome.status = status;
                outcome.error = Some(e.message.clone());
                outcome.error_kind = Some(e.kind.as_str().to_owned());
                break;
            }
            if turn.tool_calls.is_empty() {
                break;
            }
            let parent = Parent {
                chat: &chat,
                agent: &agent,
                depth,
                choice: &choice,
                opts: &opts,
            };
            // One after another, in the order given: the workspace is one folder.
            for call in &turn.tool_calls {
                if opts.cancel.is_cancelled() {
                    break;
                }
                let ahead = crate::tools::Known {
                    // The message it runs under, as written.
                    parent: known
                        .as_deref()
                        .and_then(<[Message]>::last)
                        .filter(|m| m.id == leaf)
                        .cloned(),
                    // Read for the first call only, and only just now.
                    target: prefetched.take(),
                    mcp: None,
                };
                let (record, written) = self.run_call(call, &parent, &tools, &leaf, ahead, on).await?;
                if let Some(node) = &record.node_id {
                    leaf = node.clone();
                    let m = match written {
                        Some(m) if &m.id == node => m,
                        _ => self.app.chats().message(&chat.id, node).await?,
                    };
                    follow(&mut known, &m);
                    match (&known, &mut rows) {
                        (Some(_), Some(rows)) => {
                            let mcp = self.app.mcp().is_server_tool(&record.tool_id).await?;
                            rows.insert(record.id.clone(), super::persist::call_row(&record, &call.id, mcp));
                        }
                        _ => rows = None,
                    }
                    on(&ChatEvent::MessageSaved {
                        message: Box::new(m.clone()),
                    });
                    outcome.messages.push(m);
                }
                on(&ChatEvent::ToolCallFinished {
                    call: Box::new(record.clone()),
                });
                outcome.tool_calls.push(record);
            }
            if opts.cancel.is_cancelled() {
                outcome.status = RunStatus::Stopped;
                break;
            }
        }
        // A new chat is named after its first exchange.
        if outcome.status == RunStatus::Complete
            && depth == 0
            && crate::chats::is_placeholder_title(&chat.title)
            && let (Some(first), Some(last)) = (
                outcome.messages.iter().find(|m| m.role == Role::User),
                outcome.messages.iter().rev().find(|m| m.role == Role::Assistant),
            )
        {
            self.name_chat(&chat, &client, &choice.model, &first.text(), &last.text())
                .await?;
        }
        on(&ChatEvent::RunFinished {
            status: outcome.status,
            error: outcome.error.clone(),
        });
        Ok(outcome)
    }
}

/// Why a turn that streamed well still ends the run: it holds no answer —
/// no text and no call (nothing at all, or reasoning alone: a `<think>`
/// never closed). Saved as complete it read as an answer of nothing (a
/// blank line, a run that "worked") and went back to the model as an empty
/// assistant message.
fn no_answer(turn: &atelier_llm::Turn) -> Option<atelier_llm::Error> {
    if !turn.text.trim().is_empty() || !turn.tool_calls.is_empty() {
        return None;
    }
    let what = if turn.reasoning.trim().is_empty() {
        "its reply held no text and no tool call"
    } else {
        "it only reasoned (kept with the turn), with no text and no tool call"
    };
    Some(atelier_llm::Error::new(
        atelier_llm::ErrorKind::EmptyAnswer,
        format!("The model gave no answer: {what}. Retry, or choose another model."),
    ))
}
