import { useEffect, useRef, useState } from "react";
import { api } from "../api";
import type { MessageNode, ToolCallRecord } from "../bindings";
import { EmptyState, ErrorBox, Spinner } from "../components/feedback";
import { useShortcut } from "../lib/shortcuts";
import { useLoad } from "../lib/useLoad";
import { CallCard } from "./CallCard";
import { LiveCalls } from "./LiveCallCard";
import { useRuns } from "./runs";
import { revealWhileLoading } from "./CallList";
import { NodeChanges } from "./NodeChanges";

type Step = { node: MessageNode; call: ToolCallRecord | null; index: number; siblings: string[] };

/** The active branch, root to leaf, with where each message sits among its siblings. */
export function activeBranch(tree: MessageNode[], calls: ToolCallRecord[]): Step[] {
  const byId = new Map(tree.map((n) => [n.id, n]));
  const byNode = new Map(calls.filter((c) => c.node_id !== null).map((c) => [c.node_id!, c]));
  return tree
    .filter((n) => n.on_active_branch && n.parent_id !== null)
    .map((node) => {
      const siblings = byId.get(node.parent_id!)?.children ?? [node.id];
      return { node, call: byNode.get(node.id) ?? null, index: siblings.indexOf(node.id), siblings };
    });
}

function editSummary(node: MessageNode): string {
  for (const part of node.content) {
    if (part.type === "workspace_edit") {
      const bits = [
        part.added > 0 && `${part.added} added`,
        part.modified > 0 && `${part.modified} changed`,
        part.removed > 0 && `${part.removed} removed`,
      ].filter(Boolean);
      return `Workspace edit: ${bits.length > 0 ? bits.join(", ") : "no files"}`;
    }
  }
  return "Workspace edit";
}

/** A step's file changes, read only once the person opens them. */
function StepChanges(props: { chatId: string; from: string; to: string; onRestored: () => void }) {
  const [open, setOpen] = useState(false);
  return (
    <details className="step-changes" onToggle={(e) => setOpen(e.currentTarget.open)}>
      <summary>Files changed by this step</summary>
      {open && <NodeChanges {...props} />}
    </details>
  );
}

/**
 * The chat's active branch as a list of calls and edits. At a branch point
 * `‹ i/n ›` switches to a sibling's newest work; "Branch from here" makes
 * the next run continue from that message. `version` changes when a call
 * was added, so the tree is read again.
 */
export function BranchView({
  chatId,
  calls,
  version,
  focusId,
  onSwitched,
  onRerun,
}: {
  chatId: string;
  calls: ToolCallRecord[];
  version: string;
  focusId: string | null;
  onSwitched: () => void;
  onRerun?: (call: ToolCallRecord) => void;
}) {
  const [nonce, setNonce] = useState(0);
  const [tree, reload] = useLoad(() => api.chatTree(chatId), `${chatId}:${version}:${nonce}`);
  const [moving, setMoving] = useState(false);
  // A running call holds the chat's workspace: moving it would wait for
  // the call, so the buttons say so instead of hanging.
  const running = useRuns().live.some((l) => l.chatId === chatId);
  const locked = moving || running;
  const lockedTitle = running ? "A call is running in this chat: wait for it to end (or cancel it)" : undefined;
  const [error, setError] = useState<unknown>(null);
  const list = useRef<HTMLOListElement>(null);
  const shown = useRef<string | null>(null);

  const steps = tree.data === null ? [] : activeBranch(tree.data, calls);
  useEffect(() => {
    if (focusId === null || shown.current === focusId) return;
    const item = [...(list.current?.children ?? [])].find((el) => el instanceof HTMLElement && el.dataset.callId === focusId);
    if (!(item instanceof HTMLElement)) return;
    shown.current = focusId;
    return revealWhileLoading(item);
  }, [focusId, steps.length]);

  const move = async (f: () => Promise<unknown>) => {
    setMoving(true);
    setError(null);
    try {
      await f();
      setNonce((n) => n + 1);
      onSwitched();
    } catch (e) {
      setError(e);
    } finally {
      setMoving(false);
    }
  };

  // Alt+←/→: the deepest branch point of the active branch.
  const point = [...steps].reverse().find((st) => st.siblings.length > 1) ?? null;
  useShortcut(
    (a) => a === "prev-sibling" || a === "next-sibling",
    (a) => {
      if (point === null || locked) return;
      const to = point.siblings[point.index + (a === "prev-sibling" ? -1 : 1)];
      if (to !== undefined) void move(() => api.switchBranch(chatId, to));
    },
  );

  if (tree.state === "error") return <ErrorBox error={tree.error} title="The conversation could not be read." onRetry={reload} />;
  if (tree.data === null) return <Spinner label="Loading the conversation…" />;
  const leaf = steps.at(-1)?.node.id ?? null;
  return (
    <>
      {error !== null && <ErrorBox error={error} title="Could not switch." onDismiss={() => setError(null)} />}
      {moving && <Spinner label="Switching the workspace…" />}
      {steps.length === 0 && !running ? (
        <EmptyState title="No calls yet">Run a tool above: its output appears here.</EmptyState>
      ) : (
        <ol className="call-list" ref={list} aria-label="Active branch">
          {steps.map(({ node, call, index, siblings }) => (
            <li key={node.id} data-call-id={call?.id} data-node-id={node.id}>
              <div className="step-bar">
                {siblings.length > 1 && (
                  <span className="siblings" role="group" aria-label="Other versions of this step">
                    <button
                      type="button"
                      className="btn btn-small btn-ghost"
                      aria-label="Previous version"
                      disabled={locked || index <= 0}
                      title={lockedTitle}
                      onClick={() => void move(() => api.switchBranch(chatId, siblings[index - 1]!))}
                    >
                      ‹
                    </button>
                    <span className="small">
                      {index + 1}/{siblings.length}
                    </span>
                    <button
                      type="button"
                      className="btn btn-small btn-ghost"
                      aria-label="Next version"
                      disabled={locked || index >= siblings.length - 1}
                      title={lockedTitle}
                      onClick={() => void move(() => api.switchBranch(chatId, siblings[index + 1]!))}
                    >
                      ›
                    </button>
                  </span>
                )}
                {node.id !== leaf && (
                  <button
                    type="button"
                    className="btn btn-small btn-ghost branch-here"
                    disabled={locked}
                    title={lockedTitle ?? "Go back to the workspace after this step; the next run starts a new branch here"}
                    onClick={() => void move(() => api.checkout(chatId, node.id))}
                  >
                    Branch from here
                  </button>
                )}
              </div>
              {call !== null ? <CallCard call={call} onRerun={onRerun} /> : <p className="edit-node muted">{editSummary(node)}</p>}
              {node.parent_id !== null && (
                <StepChanges
                  chatId={chatId}
                  from={node.parent_id}
                  to={node.id}
                  onRestored={() => {
                    setNonce((n) => n + 1);
                    onSwitched();
                  }}
                />
              )}
            </li>
          ))}
        </ol>
      )}
      <LiveCalls chatId={chatId} />
    </>
  );
}
