//! A run's tools and the calls its turns make. [`RunTools`]: the agent's
//! tools resolved once per run (at its depth; what matches nothing and
//! more tools than the provider takes logged), exposed under wire names,
//! with the maps between wire names, model-facing names and canonical ids.
//! [`Conversation::run_call`]: one call of a model turn — a coordination
//! tool answered by [`super::spawn`], any other through the one run flow
//! (`Routing::run_full`, within the run's resolved set), arguments that did
//! not parse refused and recorded — its `RunEvent`s reaching the front
//! door as `ToolCallEvent`s while it runs.

use std::collections::HashMap;

use serde_json::Value;

use atelier_llm::{ToolCall, ToolSpec};

use super::spawn::Parent;
use super::{ChatEvent, Conversation};
use crate::Result;
use crate::agents::Agent;
use crate::model::Message;
use crate::routing::exposure::{Exposed, Exposure, expose, wire_names};
use crate::routing::pool::Snapshot;
use crate::routing::{ResolvedTools, resolve};
use crate::tools::{CallControl, ErrorKind, Known, RunRequest, ToolCallRecord};

/// A call's arguments as they are kept (its turn, its record, the history
/// sent back): the object, or, when they did not parse, the text the model
/// sent as a JSON string — never `{}`, which would hide from the model and
/// the person what the refusal's "line 1 column 19" is about.
pub(super) fn kept_arguments(call: &ToolCall) -> Value {
    match &call.arguments {
        Ok(v) => v.clone(),
        Err(_) => Value::String(call.raw_arguments.clone()),
    }
}

/// A run's tools, fixed for the run.
pub(super) struct RunTools {
    pub(super) resolved: ResolvedTools,
    pub(super) exposed: Exposed,
    /// The tools as a request lists them.
    pub(super) specs: Vec<ToolSpec>,
    /// A canonical id → its wire name (hand runs in the history).
    wire_of_canonical: HashMap<String, String>,
    /// And back: the tool a wire name stands for (the UI's live cards).
    canonical_of_wire: HashMap<String, String>,
    exposure: Exposure,
}

impl RunTools {
    /// `agent`'s tools from `snapshot` for a run at `depth`, exposed to
    /// `exposure`. Fails when two tools would share a model-facing name.
    pub(super) fn new(agent: &Agent, snapshot: &Snapshot, depth: u32, exposure: Exposure) -> Result<Self> {
        let resolved = resolve(&agent.tool_rules(), snapshot, depth)?;
        let exposed = expose(&resolved, exposure);
        // Once per run: names that match nothing, tools a sub-agent loses,
        // more tools than the provider takes (`warn`); how each tool's name
        // or schema changes for the protocol (`debug`: one per tool).
        let too_many = exposed.too_many_tools();
        for w in resolved.warnings.iter().chain(&too_many) {
            tracing::warn!(agent = %agent.id, depth, "{w}");
        }
        for w in exposed.warnings.iter().filter(|w| Some(*w) != too_many.as_ref()) {
            tracing::debug!(agent = %agent.id, "{w}");
        }
        let specs = exposed
            .tools
            .iter()
            .map(|t| ToolSpec {
                name: t.wire_name.clone(),
                description: t.description.clone(),
                input_schema: t.input_schema.clone(),
            })
            .collect();
        let pairs = exposed
            .tools
            .iter()
            .map(|t| (t.canonical_id.clone(), t.wire_name.clone()));
        let wire_of_canonical: HashMap<String, String> = pairs.clone().collect();
        let canonical_of_wire = pairs.map(|(c, w)| (w, c)).collect();
        Ok(Self {
            resolved,
            exposed,
            specs,
            wire_of_canonical,
            canonical_of_wire,
            exposure,
        })
    }

    /// The wire name of a tool by canonical id: the run's, or (a tool not in
    /// the run, run by hand earlier) its name encoded for the protocol.
    pub(super) fn wire_name(&self, id: &str) -> String {
        self.wire_of_canonical
            .get(id)
            .cloned()
            .unwrap_or_else(|| wire_names([id], self.exposure).remove(0))
    }

    /// The canonical id of the tool a call's name reaches: a wire name of
    /// the run's, or a name the router takes (its model-facing name).
    pub(super) fn canonical_of(&self, name: &str) -> Option<String> {
        match self.canonical_of_wire.get(name) {
            Some(id) => Some(id.clone()),
            None => self.resolved.route(name).ok().map(|t| t.canonical_id.clone()),
        }
    }

    /// The name a call is kept and sent back under: its tool's wire name
    /// when the name reaches one — a model that called `bad.echo` (routed)
    /// must not be taught `bad_echo` by its history, a name that reaches
    /// nothing — else the name as the model used it.
    pub(super) fn kept_name(&self, name: &str) -> String {
        match self.canonical_of(name) {
            Some(id) => self.wire_name(&id),
            None => name.to_owned(),
        }
    }

    /// The wire name of one of the run's tools by model-facing name.
    fn wire_of_model(&self, model_name: &str) -> String {
        self.exposed
            .tools
            .iter()
            .find(|t| t.model_name == model_name)
            .map_or_else(|| model_name.to_owned(), |t| t.wire_name.clone())
    }

    /// The wire name of the tool a forced first call names (by its
    /// model-facing name, wire name or canonical id).
    pub(super) fn forced(&self, name: &str, agent_id: &str) -> Result<String> {
        self.exposed
            .tools
            .iter()
            .find(|t| t.model_name == name || t.wire_name == name || t.canonical_id == name)
            .map(|t| t.wire_name.clone())
            .ok_or_else(|| crate::Error::InvalidData {
                what: "tool to force",
                reason: format!("agent {agent_id} has no tool {name} in this run"),
            })
    }
}

impl Conversation<'_> {
    /// Runs `call` of a model turn whose message is `leaf`, with what the
    /// run knows of it ahead (`known`: the message, the call's tool). Its
    /// record, and its `tool` message when the run flow handed it back
    /// (else the caller reads it by the record's node).
    pub(super) async fn run_call(
        &self,
        call: &ToolCall,
        parent: &Parent<'_>,
        tools: &RunTools,
        leaf: &str,
        known: Known,
        on: &mut (dyn FnMut(&ChatEvent) + Send),
    ) -> Result<(ToolCallRecord, Option<Message>)> {
        let model_name = tools
            .exposed
            .wire_to_model
            .get(&call.name)
            .cloned()
            .unwrap_or_else(|| call.name.clone());
        // The call's events (its id, a confirmation it waits for, its
        // output) reach the front door as they happen.
        let (tx, mut rx) = tokio::sync::mpsc::unbounded_channel();
        let req = RunRequest {
            chat_id: parent.chat.id.clone(),
            tool_id: model_name,
            args: kept_arguments(call),
            parent_id: Some(leaf.to_owned()),
            approval: parent.opts.approval.clone(),
            control: CallControl {
                cancel: parent.opts.cancel.child_token(),
                events: Some(std::sync::Arc::new(move |e| {
                    let _ = tx.send(e);
                })),
                ..Default::default()
            },
            model_call_id: Some(call.id.clone()),
        };
        let routed = tools.resolved.route(&req.tool_id);
        let coordination = routed
            .as_ref()
            .ok()
            .filter(|t| t.coordinates())
            .map(|t| t.model_name.clone());
        let done = match (&call.arguments, coordination) {
            // Sub-agents: their events reach `on` as they happen.
            (Ok(_), Some(name)) => (self.coordinate(&name, req, parent, on).await?, None),
            (arguments, _) => {
                let running = async {
                    let mut req = req;
                    let refusal = match (arguments, routed) {
                        // Told in the names the provider was offered.
                        (Ok(_), Err(e)) => (ErrorKind::NotFound, e.naming(|m| tools.wire_of_model(m)).to_string()),
                        (Ok(_), Ok(_)) => return self.app.routing().run_full(&tools.resolved, req, known).await,
                        // Recorded under its tool, as a call that ran is.
                        (Err(why), routed) => {
                            if let Ok(tool) = routed {
                                req.tool_id = tool.canonical_id.clone();
                            }
                            (ErrorKind::InvalidArgs, why.clone())
                        }
                    };
                    self.app
                        .tools()
                        .refuse(req, refusal.0, refusal.1)
                        .await
                        .map(|r| (r, None))
                };
                tokio::pin!(running);
                loop {
                    tokio::select! {
                        done = &mut running => break done?,
                        Some(event) = rx.recv() => on(&ChatEvent::ToolCallEvent { model_call_id: call.id.clone(), event }),
                    }
                }
            }
        };
        while let Ok(event) = rx.try_recv() {
            on(&ChatEvent::ToolCallEvent {
                model_call_id: call.id.clone(),
                event,
            });
        }
        Ok(done)
    }
}
