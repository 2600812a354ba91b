// The end of the conversation while a run goes on: the person's message
// until it is saved, what the run saved that the branch list does not show
// yet, the calls the model makes (live cards with Approve / Deny inline,
// then their cards), the answer streaming, sub-agents at work, notes about
// the context, and a failure before any answer, with its fix.

import type { ReactNode } from "react";
import type { Message } from "../bindings";
import { CallCard } from "../calls/CallCard";
import { LiveCallCard } from "../calls/LiveCallCard";
import { baseName } from "../lib/format";
import { useConversation } from "./context";
import { CopyButton } from "./CopyButton";
import { MessageArticle, StreamingArticle, UserText } from "./MessageView";
import { describeFailure, RunErrorView } from "./RunError";
import { answerTool, clearRun, useRun, type LiveTool, type RunState } from "./runStore";
import { isIpcError, errorText } from "../api";

function ToolCard({ tool, chatId }: { tool: LiveTool; chatId: string }) {
  if (tool.record !== null) return <CallCard call={tool.record} />;
  return <LiveCallCard call={tool} onAnswer={(d) => answerTool(chatId, tool.key, d)} />;
}

/** Whether the branch list already shows this tool's call. */
function shown(t: LiveTool, known: Set<string>): boolean {
  return t.record?.node_id != null && known.has(t.record.node_id);
}

function callsOf(m: Message): Set<string> {
  return new Set(m.content.flatMap((p) => (p.type === "model_call" ? [p.call_id] : [])));
}

/** Nothing streams yet, no call runs, and the last turn asked for more: the answer is on its way. */
function waiting(run: RunState): boolean {
  if (run.tools.some((t) => t.record === null)) return false;
  const last = run.saved.at(-1);
  return !(last?.role === "assistant" && callsOf(last).size === 0);
}

function Tail({ run, known }: { run: RunState; known: Set<string> }) {
  const conv = useConversation();
  const live = run.phase !== "done";
  const tools = run.tools.filter((t) => !shown(t, known));
  const saved = run.saved.filter((m) => (m.role === "user" || m.role === "assistant") && !known.has(m.id));
  // A call goes after the turn that made it; when that turn is already in
  // the list above, at the start of the tail (right after it).
  const placed = new Set<string>();
  const after = (m: Message) => {
    const mine = callsOf(m);
    const out = tools.filter((t) => mine.has(t.modelCallId));
    for (const t of out) placed.add(t.modelCallId);
    return out;
  };
  const savedItems = saved.map((m) => ({ m, calls: m.role === "assistant" ? after(m) : [] }));
  const first = tools.filter(
    (t) => !placed.has(t.modelCallId) && run.saved.some((m) => known.has(m.id) && callsOf(m).has(t.modelCallId)),
  );
  for (const t of first) placed.add(t.modelCallId);
  const rest = tools.filter((t) => !placed.has(t.modelCallId));
  const failure = run.failure;
  const described =
    failure !== null ? describeFailure(isIpcError(failure) ? failure.kind : null, errorText(failure)) : null;
  // One flat list of keyed items, so a card that moves (its turn reached
  // the list above) keeps its state instead of being made again.
  const items: ReactNode[] = first.map((t) => <ToolCard key={t.key} tool={t} chatId={run.chatId} />);
  if (run.pendingText !== null)
    items.push(
      <article
        key="pending"
        className={live ? "message message-user message-pending" : "message message-user message-unsent"}
        data-role="user"
        aria-busy={live ? "true" : undefined}
        aria-label="Your message"
      >
        <UserText text={run.pendingText} />
        {!live && (
          <div className="message-actions">
            <span className="muted small">Not sent</span>
            <CopyButton text={run.pendingText} label="Copy message" />
          </div>
        )}
        {run.pendingImages.length > 0 && (
          <ul className="message-images" aria-label="Attached images">
            {run.pendingImages.map((p) => (
              <li key={p} className="attachment-chip">
                🖼 {baseName(p)}
              </li>
            ))}
          </ul>
        )}
      </article>,
    );
  for (const { m, calls } of savedItems) {
    items.push(<MessageArticle key={m.id} message={m} locked={live} />);
    for (const t of calls) items.push(<ToolCard key={t.key} tool={t} chatId={run.chatId} />);
  }
  if (live && (run.text !== "" || run.reasoning !== "" || waiting(run)))
    items.push(<StreamingArticle key="streaming" text={run.text} reasoning={run.reasoning} />);
  for (const t of rest) items.push(<ToolCard key={t.key} tool={t} chatId={run.chatId} />);
  return (
    <div className="live-tail">
      {items}
      {live &&
        run.subAgents.map((s) => (
          <p key={s.threadId} className="sub-agent muted small" role="status">
            <span className="spinner spinner-small" aria-hidden="true" /> Sub-agent <strong>{s.agentId}</strong>{" "}
            {s.text}
          </p>
        ))}
      {run.notes.map((n, i) => (
        <p key={i} className="context-note muted small" role="note">
          {n}
        </p>
      ))}
      {run.phase === "stopping" && <p className="turn-note muted small">Stopping…</p>}
      {described !== null && (
        <div className="live-failure">
          <RunErrorView
            described={described}
            onOpenSettings={conv === null ? undefined : () => conv.openSettings()}
            onOpenOptions={conv?.openOptions}
          />
          <button type="button" className="btn btn-small btn-ghost" onClick={() => clearRun(run.chatId)}>
            Dismiss
          </button>
        </div>
      )}
    </div>
  );
}

/** The chat's run as it goes; `known`: the ids the branch list shows. */
export function LiveTail({ chatId, known }: { chatId: string; known: Set<string> }) {
  const run = useRun(chatId);
  if (run === null) return null;
  return <Tail run={run} known={known} />;
}
