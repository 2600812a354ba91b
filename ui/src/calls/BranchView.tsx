import { useCallback, useEffect, useLayoutEffect, useMemo, useRef, useState, type ReactNode } from "react";
import { api } from "../api";
import type { MessageNode, ToolCallRecord } from "../bindings";
import { EmptyState, ErrorBox, Spinner } from "../components/feedback";
import { ViewBoundary } from "../components/ViewBoundary";
import { useShortcut } from "../lib/shortcuts";
import { useLoad } from "../lib/useLoad";
import { LiveCalls } from "./LiveCallCard";
import { useRuns } from "./runs";
import { prefetchManifest } from "../workspace/manifests";
import { StepItem, type Move, type Step } from "./StepItem";
import { scrollerOf, StepList } from "./StepList";
import { keepInPlace } from "./keepInPlace";
import { LiveTail } from "../conversation/LiveTail";
import { MessageStep } from "../conversation/MessageView";
import { isRunning, useRunField } from "../conversation/runStore";
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
 * The tree as it is once the chat has moved to `leaf`: the path from the
 * root to it is the active branch. The view draws this at once; the core's
 * read after the move confirms it (or, if the move failed, puts it back).
 * Null when `leaf` is not in the tree.
 */
export function movedTo(tree: MessageNode[], leaf: string): MessageNode[] | null {
  const byId = new Map(tree.map((n) => [n.id, n]));
  const path = new Set<string>();
  for (let n = byId.get(leaf); n !== undefined; n = n.parent_id === null ? undefined : byId.get(n.parent_id)) {
    path.add(n.id);
  }
  if (path.size === 0) return null;
  return tree.map((n) =>
    n.thread_id !== null || n.on_active_branch === path.has(n.id) ? n : { ...n, on_active_branch: path.has(n.id) },
  );
}

/**
 * `activeBranch`, keeping the previous read's step where it is unchanged
 * (same message, same siblings, same call): the memoized messages of a
 * long branch then do not render again when the tree is read again.
 */
function reuseSteps(prev: Step[], next: Step[]): Step[] {
  const before = new Map(prev.map((st) => [st.node.id, st]));
  let same = prev.length === next.length;
  const out = next.map((st, i) => {
    const old = before.get(st.node.id);
    const keep =
      old !== undefined &&
      old.index === st.index &&
      old.call === st.call &&
      old.node.latest_leaf === st.node.latest_leaf &&
      old.siblings.length === st.siblings.length &&
      old.siblings.every((id, j) => id === st.siblings[j]) &&
      old.node.children.length === st.node.children.length &&
      old.node.children.every((id, j) => id === st.node.children[j]);
    if (!keep || prev[i] !== old) same = false;
    return keep ? old : st;
  });
  return same ? prev : out;
}

/** How long a switch goes on before it says so (ms). */
const SPINNER_AFTER = 150;

/** Where the message at a branch point was on screen before a switch, to keep it there after. */
type Anchor = { id: string; top: number };

function rowOf(list: HTMLElement | null, id: string): HTMLElement | null {
  return list?.querySelector<HTMLElement>(`li[data-node-id="${CSS.escape(id)}"]`) ?? null;
}

/**
 * The chat's active branch as a conversation: the person's messages and
 * the model's turns (conversation/), calls and edits. At a branch point
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
  empty,
  onBranch,
  readTree = api.chatTree,
}: {
  chatId: string;
  calls: ToolCallRecord[];
  version: string;
  focusId: string | null;
  /** The workspace moved (to this manifest, when known). */
  onSwitched: (activeManifestId?: string) => void;
  onRerun?: Rerun;
  /** What an empty branch shows. */
  empty?: ReactNode;
  /** The active branch's messages, root first (for the context meter). */
  onBranch?: (nodes: MessageNode[]) => void;
  /** Reads the tree (the app's shares one read per move among its views). */
  readTree?: (chatId: string) => Promise<MessageNode[]>;
}) {
  const [nonce, setNonce] = useState(0);
  const [tree, reload, showTree] = useLoad(() => readTree(chatId), `${chatId}:${version}:${nonce}`, chatId);
  const [moving, setMoving] = useState(false);
  // A running call holds the chat's workspace: moving it would wait for
  // the call, so the buttons say so instead of hanging.
  const handRun = useRuns().live.some((l) => l.chatId === chatId);
  const modelRun = useRunField(chatId, isRunning);
  const running = handRun || modelRun;
  // Messages are not re-rendered to grey their buttons while a switch
  // (a few ms) goes on: a second click is ignored instead (`movingNow`).
  const locked = moving || running;
  const movingNow = useRef(false);
  const lockedTitle = modelRun
    ? "The model is answering in this chat: wait for it, or Stop it"
    : handRun
      ? "A call is running in this chat: wait for it to end (or cancel it)"
      : undefined;
  const [error, setError] = useState<unknown>(null);

  // The branch of this tree and these calls, made from the last one's steps.
  const [branchOf, setBranchOf] = useState({ tree: null as MessageNode[] | null, calls, steps: [] as Step[] });
  let all = branchOf.steps;
  if (branchOf.tree !== tree.data || branchOf.calls !== calls) {
    all = tree.data === null ? [] : reuseSteps(branchOf.steps, activeBranch(tree.data, calls));
    setBranchOf({ tree: tree.data, calls, steps: all });
  }
  const known = useMemo(() => new Set((tree.data ?? []).map((n) => n.id)), [tree.data]);
  // A retry or an edit replaces the branch from its message on: until the
  // run's first message is in the tree, the old branch's end is not shown.
  const from = useRunField(chatId, (r) => r?.from ?? null);
  const runSaved = useRunField(chatId, (r) => r?.saved ?? null);
  const runDone = useRunField(chatId, (r) => r?.phase === "done");
  const cut =
    from !== null && runSaved !== null && !runSaved.some((m) => known.has(m.id)) && (!runDone || runSaved.length > 0)
      ? all.findIndex((st) => st.node.id === from)
      : -1;
  const steps = useMemo(() => (cut >= 0 ? all.slice(0, cut) : all), [all, cut]);
  useEffect(() => {
    onBranch?.(all.map((st) => st.node));
  }, [all, onBranch]);
  const position = useMemo(() => (tree.data === null ? null : chatPosition(chatId, tree.data)), [chatId, tree.data]);
  useReportPosition(position);

  const nodes = useRef(tree.data);
  useEffect(() => {
    nodes.current = tree.data;
  }, [tree.data]);
  const listBox = useRef<HTMLDivElement>(null);
  const anchor = useRef<Anchor | null>(null);
  const stepsRef = useRef(steps);
  const roomFor = useRef<string | null>(null);
  const holding = useRef<() => void>(() => undefined);
  useEffect(() => () => holding.current(), []);
  useLayoutEffect(() => {
    stepsRef.current = steps;
    const box = listBox.current;
    const a = anchor.current;
    const shown = steps.map((st) => st.node.id).join(" ");
    // Room made below a short branch is given back when the branch changes
    // (not when the same branch is read again).
    if (a === null) {
      if (box !== null && shown !== roomFor.current) box.style.paddingBottom = "";
      return;
    }
    // …and the same offset once the new branch is drawn, and while its
    // layout settles.
    if (rowOf(box, a.id) === null) return;
    anchor.current = null;
    const scroller = scrollerOf(rowOf(box, a.id));
    if (scroller === null || box === null) return;
    roomFor.current = shown;
    holding.current();
    holding.current = keepInPlace(box, scroller, () => rowOf(box, a.id), a.top);
  }, [steps]);
  // Stable, so the memoized steps of a long chat do not all re-render.
  const move = useCallback(
    async (how: Move, id: string) => {
      if (movingNow.current) return;
      movingNow.current = true;
      // Said only when the switch is slow (a large workspace): a fast one
      // would lay the whole list out twice more for a spinner nobody sees.
      const slow = window.setTimeout(() => setMoving(true), SPINNER_AFTER);
      setError(null);
      try {
        // Read the target's files while the workspace moves.
        // The core says where a switch lands (`latest_leaf`).
        const node = nodes.current?.find((n) => n.id === id);
        const landing = how === "switch" && node !== undefined ? node.latest_leaf : id;
        const target = nodes.current?.find((n) => n.id === landing);
        if (target !== undefined) prefetchManifest(chatId, target.manifest_id);
        // The branch point stays where it is on screen: its row's offset now…
        const here = how === "switch" ? stepsRef.current.find((st) => st.siblings.includes(id)) : undefined;
        const row = here !== undefined ? rowOf(listBox.current, here.node.id) : null;
        anchor.current = row !== null ? { id, top: row.getBoundingClientRect().top } : null;
        const moving = how === "switch" ? api.switchBranch(chatId, id) : api.checkout(chatId, id);
        // The new branch is drawn now, while the workspace moves: the
        // person sees the switch at once, and the tree the core reads
        // after it redraws nothing that did not change (`reuseSteps`).
        // What runs "wherever the chat is" waits for the move (api.ts).
        const shown = nodes.current === null ? null : movedTo(nodes.current, landing);
        if (shown !== null) showTree(shown);
        const chat = await moving;
        setNonce((n) => n + 1);
        onSwitched(chat.active_manifest_id);
      } catch (e) {
        setError(e);
        // Back to where the core says the chat is, which may not be where
        // it was (pending edits are recorded before the folder moves): the
        // other views read again too, and the tree is not the one kept.
        onSwitched();
        reload();
      } finally {
        movingNow.current = false;
        window.clearTimeout(slow);
        setMoving(false);
      }
    },
    [chatId, onSwitched, reload, showTree],
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
    <div className="branch-view" ref={listBox}>
      {error !== null && <ErrorBox error={error} title="Could not switch." onDismiss={() => setError(null)} />}
      {moving && <Spinner label="Switching the workspace…" />}
      {position?.behind === true && (
        <HistoryBanner position={position} locked={locked} onReturn={() => void move("checkout", position.latestId)} />
      )}
      {steps.length === 0 && !running ? (
        (empty ?? <EmptyState title="No calls yet">Run a tool above: its output appears here.</EmptyState>)
      ) : (
        <StepList
          steps={steps}
          focusId={focusId}
          render={(step, deferBody) => (
            <ViewBoundary name="a step of the conversation">
              {step.node.role === "user" || step.node.role === "assistant" ? (
                <MessageStep step={step} locked={running} lockedTitle={lockedTitle} move={move} />
              ) : (
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
            </ViewBoundary>
          )}
        />
      )}
      <ViewBoundary name="the answer under way">
        <LiveTail chatId={chatId} known={known} />
      </ViewBoundary>
      <ViewBoundary name="the calls in progress">
        <LiveCalls chatId={chatId} />
      </ViewBoundary>
    </div>
  );
}
