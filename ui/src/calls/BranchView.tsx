import { useCallback, useMemo, useState } from "react";
import { api } from "../api";
import type { MessageNode, ToolCallRecord } from "../bindings";
import { EmptyState, ErrorBox, Spinner } from "../components/feedback";
import { useShortcut } from "../lib/shortcuts";
import { useLoad } from "../lib/useLoad";
import { LiveCalls } from "./LiveCallCard";
import { useRuns } from "./runs";
import { prefetchManifest } from "../workspace/manifests";
import { StepItem, type Move, type Step } from "./StepItem";
import { StepList } from "./StepList";
import type { Rerun } from "./rerun";
import { chatPosition, useReportPosition, type Position } from "./position";

/** The chat is at an older step: say so where the calls are, with the way back. */
function HistoryBanner({ position, locked, onReturn }: { position: Position; locked: boolean; onReturn: () => void }) {
  const at = position.step === 0 ? "the start" : `step ${position.step}`;
  return (
    <div className="history-banner" role="status">
      <span>
        <strong>
          Viewing {at} of {position.total}
        </strong>{" "}
        — the next run starts a new branch from here; the later steps stay on the branch you left.
      </span>
      <button type="button" className="btn btn-small" disabled={locked} onClick={onReturn}>
        Return to latest
      </button>
    </div>
  );
}

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
  /** The workspace moved (to this manifest, when known). */
  onSwitched: (activeManifestId?: string) => void;
  onRerun?: Rerun;
}) {
  const [nonce, setNonce] = useState(0);
  const [tree, reload] = useLoad(() => api.chatTree(chatId), `${chatId}:${version}:${nonce}`, chatId);
  const [moving, setMoving] = useState(false);
  // A running call holds the chat's workspace: moving it would wait for
  // the call, so the buttons say so instead of hanging.
  const running = useRuns().live.some((l) => l.chatId === chatId);
  const locked = moving || running;
  const lockedTitle = running ? "A call is running in this chat: wait for it to end (or cancel it)" : undefined;
  const [error, setError] = useState<unknown>(null);

  const steps = useMemo(() => (tree.data === null ? [] : activeBranch(tree.data, calls)), [tree.data, calls]);
  const position = useMemo(() => (tree.data === null ? null : chatPosition(chatId, tree.data)), [chatId, tree.data]);
  useReportPosition(position);

  const nodes = tree.data;
  // Stable while the tree is (a new tree makes new steps anyway), so the
  // memoized steps of a long chat do not all re-render.
  const move = useCallback(
    async (how: Move, id: string) => {
      setMoving(true);
      setError(null);
      try {
        // Read the target's files while the workspace moves.
        // The core says where a switch lands (`latest_leaf`).
        const node = nodes?.find((n) => n.id === id);
        const landing = how === "switch" && node !== undefined ? node.latest_leaf : id;
        const target = nodes?.find((n) => n.id === landing);
        if (target !== undefined) prefetchManifest(chatId, target.manifest_id);
        const chat = how === "switch" ? await api.switchBranch(chatId, id) : await api.checkout(chatId, id);
        setNonce((n) => n + 1);
        onSwitched(chat.active_manifest_id);
      } catch (e) {
        setError(e);
      } finally {
        setMoving(false);
      }
    },
    [chatId, onSwitched, nodes],
  );
  const restored = useCallback(() => {
    setNonce((n) => n + 1);
    onSwitched();
  }, [onSwitched]);

  // Alt+←/→: the deepest branch point of the active branch.
  const point = [...steps].reverse().find((st) => st.siblings.length > 1) ?? null;
  useShortcut(
    (a) => a === "prev-sibling" || a === "next-sibling",
    (a) => {
      if (point === null || locked) return;
      const to = point.siblings[point.index + (a === "prev-sibling" ? -1 : 1)];
      if (to !== undefined) void move("switch", to);
    },
  );

  if (tree.state === "error")
    return <ErrorBox error={tree.error} title="The conversation could not be read." onRetry={reload} />;
  if (tree.data === null) return <Spinner label="Loading the conversation…" />;
  const leaf = steps.at(-1)?.node.id ?? null;
  return (
    <>
      {error !== null && <ErrorBox error={error} title="Could not switch." onDismiss={() => setError(null)} />}
      {moving && <Spinner label="Switching the workspace…" />}
      {position?.behind === true && (
        <HistoryBanner position={position} locked={locked} onReturn={() => void move("checkout", position.latestId)} />
      )}
      {steps.length === 0 && !running ? (
        <EmptyState title="No calls yet">Run a tool above: its output appears here.</EmptyState>
      ) : (
        <StepList
          steps={steps}
          focusId={focusId}
          render={(step, deferBody) => (
            <StepItem
              deferBody={deferBody}
              step={step}
              chatId={chatId}
              isLeaf={step.node.id === leaf}
              locked={locked}
              lockedTitle={lockedTitle}
              move={move}
              onRerun={onRerun}
              onRestored={restored}
            />
          )}
        />
      )}
      <LiveCalls chatId={chatId} />
    </>
  );
}
