// The model runs this window started, one per chat (the core runs one at a
// time in a chat), and what each has told so far. A run outlives the view
// that started it (the person may look at another chat meanwhile), so its
// state lives here, outside React, read with `useRun`.
//
// Events are queued as they arrive and applied once per animation frame:
// a 500 tokens/s stream makes one state change, and one render, per frame,
// not one per token.

import { useSyncExternalStore } from "react";
import type { ChatEvent, JsonValue, Message, RunEvent, RunOutcome, ToolCallRecord } from "../bindings";
import { addEvent, type Decision, type LiveCall } from "../calls/runs";
import { api } from "../api";

/** A call the model asked for, from its proposal until its record arrives. */
export type LiveTool = LiveCall & {
  /** The model's id of the call. */
  modelCallId: string;
  /** The name the model used (its wire name). */
  name: string;
  record: ToolCallRecord | null;
};

/** A sub-agent at work in its own thread, in one line. */
export type SubAgentLine = { threadId: string; agentId: string; depth: number; text: string };

export type RunKind = "send" | "retry" | "edit";

export type RunState = {
  chatId: string;
  /** This window's handle of the run. */
  seq: number;
  kind: RunKind;
  /** The person's text until the core saved it (a send or an edit). */
  pendingText: string | null;
  pendingImages: string[];
  /** The message a retry or an edit branches from (its sibling is being made). */
  from: string | null;
  /** Messages saved by this run, in order. */
  saved: Message[];
  /** The turn streaming now. */
  text: string;
  reasoning: string;
  tools: LiveTool[];
  /** The records of calls that ended (a new array only when one ends). */
  records: ToolCallRecord[];
  agentId: string | null;
  providerId: string | null;
  model: string | null;
  contextWindow: number | null;
  notes: string[];
  subAgents: SubAgentLine[];
  phase: "running" | "stopping" | "done";
  outcome: RunOutcome | null;
  /** The command itself failed (no provider, a busy chat…). */
  failure: unknown;
};

type Listener = () => void;

const runs = new Map<string, RunState>();
const listeners = new Set<Listener>();
const queues = new Map<string, ChatEvent[]>();
let frame: number | null = null;
let seq = 0;
let toolKeys = 1_000_000;

function notify() {
  for (const l of listeners) l();
}

function set(chatId: string, f: (r: RunState) => RunState) {
  const r = runs.get(chatId);
  if (r === undefined) return;
  runs.set(chatId, f(r));
}

const nextFrame: (f: () => void) => number =
  typeof requestAnimationFrame === "function"
    ? (f) => requestAnimationFrame(f)
    : (f) => setTimeout(f, 16) as unknown as number;

/** Applies every queued event, then tells the views once. */
function flush() {
  frame = null;
  for (const [chatId, events] of queues) {
    queues.delete(chatId);
    set(chatId, (r) => events.reduce(apply, r));
  }
  notify();
}

function schedule() {
  if (frame === null) frame = nextFrame(flush);
}

function argsOf(saved: Message[], modelCallId: string): JsonValue {
  for (const m of saved)
    for (const p of m.content)
      if (p.type === "model_call" && p.call_id === modelCallId) return (p.arguments ?? {}) as JsonValue;
  return {};
}

function tool(r: RunState, id: string, f: (t: LiveTool) => LiveTool): RunState {
  return { ...r, tools: r.tools.map((t) => (t.modelCallId === id ? f(t) : t)) };
}

function subLine(e: ChatEvent): string | null {
  switch (e.type) {
    case "run_started":
      return `started with ${e.model}`;
    case "tool_call_proposed":
      return `calls ${e.tool_id ?? e.name}`;
    case "message_saved":
      return e.message.role === "assistant" ? "answered" : null;
    case "run_finished":
      return e.status === "complete" ? "finished" : `ended: ${e.status}`;
    default:
      return null;
  }
}

/** One event applied to a run's state. */
export function apply(r: RunState, e: ChatEvent): RunState {
  switch (e.type) {
    case "run_started":
      return {
        ...r,
        agentId: e.agent_id,
        providerId: e.provider_id,
        model: e.model,
        contextWindow: e.context_window ?? r.contextWindow,
      };
    case "context_note":
      return { ...r, notes: [...r.notes, e.text] };
    case "context_trimmed":
      return {
        ...r,
        contextWindow: e.context_window,
        notes: [
          ...r.notes,
          `The ${e.dropped_messages} oldest message${e.dropped_messages === 1 ? " was" : "s were"} left out to fit the model's context of ${e.context_window.toLocaleString()} tokens.`,
        ],
      };
    case "text_delta":
      return { ...r, text: r.text + e.text };
    case "reasoning_delta":
      return { ...r, reasoning: r.reasoning + e.text };
    case "tool_call_proposed": {
      if (r.tools.some((t) => t.modelCallId === e.call_id)) return r;
      const live: LiveTool = {
        key: toolKeys++,
        chatId: r.chatId,
        toolId: e.tool_id ?? e.name,
        args: {},
        startedAt: Date.now(),
        callId: null,
        awaiting: false,
        walk: null,
        progress: null,
        output: "",
        modelCallId: e.call_id,
        name: e.name,
        record: null,
      };
      return { ...r, tools: [...r.tools, live] };
    }
    case "message_saved": {
      const m = e.message;
      const saved = [...r.saved, m];
      const next = { ...r, saved, pendingText: m.role === "user" ? null : r.pendingText };
      // The streamed turn is now a saved message; the calls it made learn their arguments.
      if (m.role !== "assistant") return next;
      return {
        ...next,
        text: "",
        reasoning: "",
        tools: next.tools.map((t) => (t.record === null ? { ...t, args: argsOf(saved, t.modelCallId) } : t)),
      };
    }
    case "tool_call_event":
      return tool(r, e.model_call_id, (t) => ({ ...t, ...addEvent(t, e.event as RunEvent) }));
    case "tool_call_finished": {
      // Matched by its call id; a call refused before it started has none
      // yet: the oldest call still without one is it (calls run in order).
      const byId = r.tools.find((t) => t.callId === e.call.id);
      const target = byId ?? r.tools.find((t) => t.callId === null && t.record === null);
      if (target === undefined) return r;
      const done = tool(r, target.modelCallId, (t) => ({ ...t, callId: e.call.id, record: e.call, awaiting: false }));
      return { ...done, records: [...r.records, e.call] };
    }
    case "sub_agent": {
      const text = subLine(e.event);
      if (text === null) return r;
      const others = r.subAgents.filter((s) => s.threadId !== e.thread_id);
      return { ...r, subAgents: [...others, { threadId: e.thread_id, agentId: e.agent_id, depth: e.depth, text }] };
    }
    case "run_finished":
      return r;
  }
}

/** Starts a run in a chat: `go` calls the command with the event handler. */
export function startRun(
  chatId: string,
  kind: RunKind,
  go: (onEvent: (e: ChatEvent) => void) => Promise<RunOutcome>,
  pending: { text?: string; images?: string[]; from?: string } = {},
): Promise<RunState> {
  const mine = ++seq;
  runs.set(chatId, {
    chatId,
    seq: mine,
    kind,
    pendingText: pending.text ?? null,
    pendingImages: pending.images ?? [],
    from: pending.from ?? null,
    saved: [],
    text: "",
    reasoning: "",
    tools: [],
    records: [],
    agentId: null,
    providerId: null,
    model: null,
    contextWindow: runs.get(chatId)?.contextWindow ?? null,
    notes: [],
    subAgents: [],
    phase: "running",
    outcome: null,
    failure: null,
  });
  notify();
  const onEvent = (e: ChatEvent) => {
    if (runs.get(chatId)?.seq !== mine) return;
    let q = queues.get(chatId);
    if (q === undefined) queues.set(chatId, (q = []));
    q.push(e);
    schedule();
  };
  const end = (f: (r: RunState) => RunState) => {
    // Events still queued land first: what streamed stays.
    if (frame !== null) {
      cancelFrame(frame);
      flush();
    }
    if (runs.get(chatId)?.seq === mine) set(chatId, f);
    notify();
    return runs.get(chatId)!;
  };
  return go(onEvent).then(
    (outcome) => end((r) => ({ ...r, phase: "done", outcome, pendingText: null })),
    (failure: unknown) => end((r) => ({ ...r, phase: "done", failure })),
  );
}

function cancelFrame(id: number) {
  if (typeof cancelAnimationFrame === "function") cancelAnimationFrame(id);
  else clearTimeout(id);
}

/** Stop: the stream and the running tool end; what streamed stays. */
export async function stopRun(chatId: string): Promise<void> {
  set(chatId, (r) => (r.phase === "running" ? { ...r, phase: "stopping" } : r));
  notify();
  await api.stopRun(chatId);
}

/** Answers a model's call waiting for approval. */
export async function answerTool(chatId: string, key: number, decision: Decision): Promise<void> {
  const t = runs.get(chatId)?.tools.find((x) => x.key === key);
  if (t?.callId == null) return;
  const waited =
    decision === "chat"
      ? await api.answerApprovalForChat(t.callId)
      : await api.answerApproval(t.callId, decision === "once");
  if (waited) {
    set(chatId, (r) => ({ ...r, tools: r.tools.map((x) => (x.key === key ? { ...x, awaiting: false } : x)) }));
    notify();
  }
}

/** Forgets a finished run's leftovers (its error was dismissed, the chat moved on). */
export function clearRun(chatId: string) {
  const r = runs.get(chatId);
  if (r === undefined || r.phase !== "done") return;
  runs.delete(chatId);
  notify();
}

export function getRun(chatId: string | null): RunState | null {
  return chatId === null ? null : (runs.get(chatId) ?? null);
}

function subscribe(l: Listener) {
  listeners.add(l);
  return () => {
    listeners.delete(l);
  };
}

/** The chat's run (live or the last finished one), re-read whenever it changes. */
export function useRun(chatId: string | null): RunState | null {
  return useSyncExternalStore(subscribe, () => getRun(chatId));
}

/**
 * One field of the chat's run, re-read when it changes: `select` returns a
 * primitive or a reference the state keeps (so a stream's tokens do not
 * re-render a view that only needs, say, the phase).
 */
export function useRunField<T>(chatId: string | null, select: (r: RunState | null) => T): T {
  return useSyncExternalStore(subscribe, () => select(getRun(chatId)));
}

/** Whether a model run is going on in the chat. */
export function isRunning(r: RunState | null): boolean {
  return r !== null && r.phase !== "done";
}

/** For tests: no run is remembered. */
export function resetRuns() {
  runs.clear();
  queues.clear();
  if (frame !== null) cancelFrame(frame);
  frame = null;
  notify();
}
