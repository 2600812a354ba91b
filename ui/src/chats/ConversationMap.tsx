/**
 * The conversation map in the sidebar: the selected chat's whole message
 * tree as a small SVG, to see where the branches are and jump to any node
 * (a checkout: that node's workspace comes back and it becomes the active
 * leaf, so the next run branches from there). Owns reading the tree, the
 * folded runs the person opened, and the jump; the geometry is
 * `mapLayout`, the words are `mapLabels`.
 */
import { useDeferredValue, useLayoutEffect, useMemo, useRef, useState, type KeyboardEvent } from "react";
import { api } from "../api";
import { prefetchManifest } from "../workspace/manifests";
import type { MessageNode, ToolCallRecord } from "../bindings";
import { ErrorBox, Spinner } from "../components/feedback";
import { useLoad } from "../lib/useLoad";
import { callOf, outcome, fit, nodeKind, nodeLabel, shortLabel, turnOutcome, type NodeKind } from "./mapLabels";
import { mapLayout, type MapItem, type MapLayout, type MapNodeItem, type MapRunItem } from "./mapLayout";
import type { Chats } from "./useChats";

const COL_W = 18;
const ROW_H = 22;
const PAD = 11;
/** The map box's inner width in the 240px sidebar, less a scrollbar: labels are cut to fit it. */
const MIN_W = 198;
/** Roughly one character of the 11px label font. */
const CHAR_W = 6.2;
/** Labels get at least this much room, even right of many columns (the map then scrolls sideways). */
const MIN_LABEL_W = 84;
const x = (col: number) => PAD + col * COL_W;
const y = (row: number) => PAD + row * ROW_H;
/** Where an item's label starts: right of every line drawn on its row. */
const textX = (textCol: number) => x(textCol) + 12;

type MapData = { chatId: string; tree: MessageNode[]; calls: Map<string, ToolCallRecord> };

const NONE: ReadonlySet<string> = new Set();

export function ConversationMap({ chats }: { chats: Chats }) {
  const chatId = chats.selectedId;
  const [load, reload] = useLoad<MapData | null>(
    async () => {
      if (chatId === null) return null;
      // The call list only names the tools; without it the map still works.
      const [tree, calls] = await Promise.all([
        chats.readTree(chatId),
        api.listToolCalls(chatId).catch((): ToolCallRecord[] => []),
      ]);
      return { chatId, tree, calls: new Map(calls.map((c) => [c.id, c])) };
    },
    `${chatId ?? ""}:${chats.revision}`,
  );
  const [opened, setOpened] = useState<{ chatId: string | null; keys: ReadonlySet<string> }>({
    chatId: null,
    keys: NONE,
  });
  const [busy, setBusy] = useState<string | null>(null);
  const busyRef = useRef(false);
  const [error, setError] = useState<unknown>(null);
  const box = useRef<HTMLDivElement>(null);
  const scrolledTo = useRef<string | null>(null);

  // The map is laid out after the conversation has shown a move (a
  // 400-node tree read once for both would otherwise hold the conversation
  // back by the map's layout).
  const data = useDeferredValue(load.data);
  const expanded = opened.chatId === chatId ? opened.keys : NONE;
  const layout = useMemo(() => (data == null ? null : mapLayout(data.tree, expanded)), [data, expanded]);
  // Another chat's map stays up while the new one loads (no flicker), but
  // it must not be clicked: its ids belong to the other chat.
  const stale = data != null && data.chatId !== chatId;

  // Bring the current node into view when it changes, not on every reload
  // or unfold, so the map does not pull away from where the person scrolled.
  useLayoutEffect(() => {
    const el = box.current;
    if (layout === null || el === null || stale) return;
    const key = `${chatId}:${layout.currentId}`;
    const current = layout.items.find((it) => it.type === "node" && it.current);
    if (scrolledTo.current === key || current === undefined) return;
    scrolledTo.current = key;
    const cy = y(current.row);
    if (cy < el.scrollTop + ROW_H || cy > el.scrollTop + el.clientHeight - ROW_H) {
      el.scrollTop = Math.max(0, cy - el.clientHeight / 2);
    }
  }, [layout, chatId, stale]);

  if (chatId === null) return null;

  const jump = async (id: string) => {
    if (busyRef.current || stale || data == null || id === layout?.currentId) return;
    busyRef.current = true;
    setBusy(id);
    setError(null);
    try {
      const target = data.tree.find((n) => n.id === id);
      // Read the target's files while the workspace moves, and show them
      // as soon as they are read (at once when read before).
      if (target !== undefined) {
        prefetchManifest(data.chatId, target.manifest_id);
        chats.show(target.manifest_id);
      }
      const chat = await api.checkout(data.chatId, id);
      chats.moved(chat.active_manifest_id);
    } catch (e) {
      setError(e);
      // Where the core says the chat is now.
      chats.moved();
    } finally {
      busyRef.current = false;
      setBusy(null);
    }
  };
  const unfold = (key: string) => {
    if (stale) return;
    setOpened({ chatId, keys: new Set([...expanded, key]) });
  };

  return (
    <section className="conversation-map" aria-label="Conversation map">
      <div className="sidebar-heading">
        <span>Conversation</span>
        {data != null && (
          <span className="map-count">
            {/* The start is not a step. */}
            {stepCount(data.tree.length - 1)}
          </span>
        )}
      </div>
      <p className="map-hint">Click a step to go back to it; the next run branches from there.</p>
      {load.state === "error" && (
        <ErrorBox error={load.error} title="The conversation could not be read." onRetry={reload} />
      )}
      {error !== null && <ErrorBox error={error} title="Could not go there." onDismiss={() => setError(null)} />}
      {data == null && load.state === "loading" && <Spinner label="Loading the conversation…" />}
      {layout !== null && data != null && (
        <>
          {expanded.size > 0 && (
            <button
              type="button"
              className="btn btn-small btn-ghost map-fold"
              onClick={() => setOpened({ chatId, keys: NONE })}
            >
              Fold long runs again
            </button>
          )}
          <div
            ref={box}
            className={busy !== null || stale ? "map-scroll map-busy" : "map-scroll"}
            aria-busy={busy !== null || stale}
          >
            <MapSvg layout={layout} calls={data.calls} busy={busy} onJump={(id) => void jump(id)} onUnfold={unfold} />
          </div>
          {busy !== null && (
            <p className="map-status small muted" role="status">
              Bringing that workspace back…
            </p>
          )}
        </>
      )}
    </section>
  );
}

function MapSvg(props: {
  layout: MapLayout;
  calls: ReadonlyMap<string, ToolCallRecord>;
  busy: string | null;
  onJump: (id: string) => void;
  onUnfold: (key: string) => void;
}) {
  const { layout } = props;
  // One stop for Tab (the step last focused, else the current one); ↑ ↓
  // Home End move between the steps — a long chat is not a hundred Tabs.
  const svg = useRef<SVGSVGElement>(null);
  const [roving, setRoving] = useState<string | null>(null);
  const keys = layout.items.map(navKey);
  const pick = (k: string | null | undefined) => (k != null && keys.includes(k) ? k : null);
  const tabStop = pick(roving) ?? pick(layout.currentId) ?? keys.at(-1);
  const onArrows = (e: KeyboardEvent<SVGSVGElement>) => {
    const at = keys.indexOf((e.target as Element).closest("[data-nav]")?.getAttribute("data-nav") ?? "");
    if (at < 0) return;
    const to = { ArrowDown: at + 1, ArrowUp: at - 1, Home: 0, End: keys.length - 1 }[e.key];
    if (to === undefined) return;
    e.preventDefault();
    const key = keys[Math.max(0, Math.min(keys.length - 1, to))]!;
    const el = [...(svg.current?.querySelectorAll<SVGGElement>("[data-nav]") ?? [])].find(
      (g) => g.getAttribute("data-nav") === key,
    );
    el?.focus();
    setRoving(key);
  };
  const widest = layout.items.reduce((m, it) => Math.max(m, it.textCol), 0);
  const width = Math.max(MIN_W, x(layout.cols - 1) + PAD, textX(widest) + MIN_LABEL_W);
  const height = y(layout.rows - 1) + PAD;
  return (
    <svg
      ref={svg}
      className="map-svg"
      role="group"
      aria-label="Conversation tree"
      width={width}
      height={height}
      onKeyDown={onArrows}
      onFocus={(e) => setRoving((e.target as Element).closest("[data-nav]")?.getAttribute("data-nav") ?? null)}
    >
      {layout.edges.map((e) => (
        <path
          key={`${e.from}-${e.to}`}
          className={e.active ? "map-edge map-edge-active" : "map-edge"}
          d={edgePath(layout.items[e.from]!, layout.items[e.to]!)}
        />
      ))}
      {layout.items.map((item) =>
        item.type === "node" ? (
          <MapNode
            key={item.node.id}
            item={item}
            width={width}
            calls={props.calls}
            busy={props.busy}
            tabStop={navKey(item) === tabStop}
            onJump={props.onJump}
          />
        ) : (
          <MapRun
            key={navKey(item)}
            item={item}
            width={width}
            tabStop={navKey(item) === tabStop}
            onUnfold={props.onUnfold}
          />
        ),
      )}
    </svg>
  );
}

/** An item's name for the keyboard's roving stop. */
function navKey(item: MapItem): string {
  return item.type === "node" ? item.node.id : `run-${item.key}`;
}

/**
 * Straight down in a column; into a new branch's column, a curve within the
 * row below the fork, then straight down to the branch's first item.
 */
function edgePath(from: MapItem, to: MapItem): string {
  const [x1, y1, x2, y2] = [x(from.col), y(from.row), x(to.col), y(to.row)];
  if (x1 === x2) return `M${x1} ${y1}V${y2}`;
  const bend = y1 + ROW_H;
  const mid = y1 + ROW_H / 2;
  return `M${x1} ${y1}C${x1} ${mid} ${x2} ${mid} ${x2} ${bend}V${y2}`;
}

/** Enter and Space act like a click, as on a real button. */
function onKeys(act: () => void) {
  return (e: KeyboardEvent) => {
    if (e.key === "Enter" || e.key === " ") {
      e.preventDefault();
      act();
    }
  };
}

function Shape({ kind, cx, cy }: { kind: NodeKind; cx: number; cy: number }) {
  switch (kind) {
    case "root":
      return <rect className="map-shape" x={cx - 4.5} y={cy - 4.5} width={9} height={9} rx={1.5} />;
    case "upload":
      // An arrow into the workspace: files came in from outside.
      return <polygon className="map-shape" points={`${cx - 5},${cy - 5} ${cx + 5},${cy - 5} ${cx},${cy + 5}`} />;
    case "edit":
      return (
        <polygon className="map-shape" points={`${cx},${cy - 6} ${cx + 6},${cy} ${cx},${cy + 6} ${cx - 6},${cy}`} />
      );
    case "message":
      // The person's message: a rounded box, like a speech bubble.
      return <rect className="map-shape" x={cx - 5} y={cy - 4} width={10} height={8} rx={3} />;
    case "answer": {
      // A model's turn: a hexagon, apart from the tools' circles it calls.
      const [h, w] = [5.5, 4.8];
      return (
        <polygon
          className="map-shape"
          points={`${cx},${cy - h} ${cx + w},${cy - h / 2} ${cx + w},${cy + h / 2} ${cx},${cy + h} ${cx - w},${cy + h / 2} ${cx - w},${cy - h / 2}`}
        />
      );
    }
    case "tool":
      return <circle className="map-shape" cx={cx} cy={cy} r={5} />;
  }
}

function MapNode(props: {
  item: MapNodeItem;
  width: number;
  calls: ReadonlyMap<string, ToolCallRecord>;
  busy: string | null;
  tabStop: boolean;
  onJump: (id: string) => void;
}) {
  const { item, width, calls, busy, tabStop, onJump } = props;
  const { node, current } = item;
  const call = callOf(node, calls);
  const kind = nodeKind(node);
  const label = nodeLabel(node, item.depth, call);
  const [cx, cy] = [x(item.col), y(item.row)];
  const ended = kind === "answer" ? turnOutcome(node) : outcome(call);
  const classes = [
    "map-node",
    `map-kind-${kind}`,
    item.active && "map-node-active",
    current && "map-node-current",
    ended === "failed" && "map-node-failed",
    (ended === "denied" || ended === "cancelled" || ended === "stopped") && "map-node-stopped",
    busy === node.id && "map-node-pending",
  ].filter(Boolean);
  // The current node's label is bold, so wider per character.
  const charW = current ? CHAR_W * 1.12 : CHAR_W;
  const tx = textX(item.textCol);
  const words = fit(shortLabel(node, call), Math.floor((width - tx - 4) / charW));
  return (
    <g
      className={classes.join(" ")}
      role="button"
      tabIndex={tabStop ? 0 : -1}
      aria-label={label}
      aria-current={current ? "step" : undefined}
      aria-disabled={current || busy !== null ? true : undefined}
      data-node-id={node.id}
      data-nav={node.id}
      onClick={() => onJump(node.id)}
      onKeyDown={onKeys(() => onJump(node.id))}
    >
      <title>{current ? `${label}\nYou are here.` : `${label}\nClick to go back to this step.`}</title>
      <FocusBox cy={cy} width={width} />
      {/* A larger invisible target: 10px shapes are hard to hit. */}
      <circle className="map-hit" cx={cx} cy={cy} r={10} />
      {current && <circle className="map-ring" cx={cx} cy={cy} r={9} />}
      <Shape kind={kind} cx={cx} cy={cy} />
      {words !== "" && (
        <text className="map-label" x={tx} y={cy + 4}>
          {words}
        </text>
      )}
    </g>
  );
}

/**
 * The keyboard focus's ring: the step's whole row (shape and label) in the
 * accent, shown by CSS only when the step has the focus — a shape of its
 * own, so it is never taken for the current step's circle.
 */
function FocusBox({ cy, width }: { cy: number; width: number }) {
  return <rect className="map-focus" x={1} y={cy - ROW_H / 2 + 1} width={width - 2} height={ROW_H - 2} rx={5} />;
}

function MapRun({
  item,
  width,
  tabStop,
  onUnfold,
}: {
  item: MapRunItem;
  width: number;
  tabStop: boolean;
  onUnfold: (key: string) => void;
}) {
  const [cx, cy] = [x(item.col), y(item.row)];
  const n = item.count.toLocaleString();
  const label = `${n} steps folded (steps ${item.firstDepth.toLocaleString()}–${item.lastDepth.toLocaleString()}), show them`;
  const tx = textX(item.textCol);
  const words = fit(`⋯ ${n} steps`, Math.floor((width - tx - 4) / CHAR_W));
  return (
    <g
      className={item.active ? "map-node map-run map-node-active" : "map-node map-run"}
      role="button"
      tabIndex={tabStop ? 0 : -1}
      aria-label={label}
      aria-expanded={false}
      data-nav={navKey(item)}
      onClick={() => onUnfold(item.key)}
      onKeyDown={onKeys(() => onUnfold(item.key))}
    >
      <title>{`${n} steps without branches, folded.\nClick to show them one by one.`}</title>
      <FocusBox cy={cy} width={width} />
      <circle className="map-hit" cx={cx} cy={cy} r={10} />
      <rect className="map-shape" x={cx - 4} y={cy - 8} width={8} height={16} rx={4} />
      {words !== "" && (
        <text className="map-label map-run-label" x={tx} y={cy + 4}>
          {words}
        </text>
      )}
    </g>
  );
}

/** "1 step", "2,000 steps", "no steps yet". */
function stepCount(n: number): string {
  return n <= 0 ? "no steps yet" : `${n.toLocaleString()} ${n === 1 ? "step" : "steps"}`;
}
