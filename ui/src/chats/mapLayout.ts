/**
 * The conversation map's layout: where each message of a chat's tree is
 * drawn, as a pure function of the tree (no React, no DOM), so it can be
 * tested on its own and stays O(n log n) for chats of thousands of nodes.
 *
 * As in git graph views, every drawn item has a row of its own and every
 * branch a column of its own, so each item can carry its label and a column
 * reads as one branch. A node's first child (creation order) continues its
 * parent's lane; every later child starts a new lane, in a column to the
 * right of its parent's, whose line runs from the fork down to it. Rows
 * follow the tree depth-first, a branch right under the node it leaves
 * (later children in creation order) and the parent's own line after all
 * of them, so a short "run again" branch sits beside the step it retried.
 * Lanes follow creation order rather than the active branch so the map does
 * not reshuffle under the pointer when the person jumps. A lane takes the
 * leftmost column (right of its parent's) that is free over its rows with a
 * blank row between, so many short branches off one long line stay two
 * columns wide without two branches reading as one.
 *
 * Long unbranched chains are folded: a run of more than `MAX_RUN` nodes that
 * nobody needs to see one by one becomes a single `run` item ("⋯ N steps").
 * Nodes that stay visible: the root, branch points and their children,
 * leaves, the current node and the few steps just before it.
 */
import type { MessageNode } from "../bindings";

/** Runs up to this long are drawn node by node: folding them saves nothing. */
export const MAX_RUN = 3;
/** Steps right above the current node stay visible: the usual jump is a step or two back. */
export const CONTEXT = 3;
/** How many columns a new lane tries before opening one: keeps the layout O(n). */
const MAX_SCAN = 32;

export type MapNodeItem = {
  type: "node";
  node: MessageNode;
  col: number;
  /** Its own row: no two items share one. */
  row: number;
  /** Steps from the root (the root is 0). */
  depth: number;
  active: boolean;
  current: boolean;
  /** The rightmost column drawn on its row (its own, or a branch line passing by): the label starts right of it. */
  textCol: number;
};

export type MapRunItem = {
  type: "run";
  /** The first folded node's id: what `expanded` names to unfold it. */
  key: string;
  firstId: string;
  lastId: string;
  count: number;
  firstDepth: number;
  lastDepth: number;
  col: number;
  row: number;
  active: boolean;
  textCol: number;
};

export type MapItem = MapNodeItem | MapRunItem;

/** From one drawn item to the next one down; indexes into `items`. */
export type MapEdge = { from: number; to: number; active: boolean };

export type MapLayout = {
  items: MapItem[];
  edges: MapEdge[];
  cols: number;
  rows: number;
  /** The active leaf: the last node on the active branch. */
  currentId: string | null;
};

const EMPTY: MapLayout = { items: [], edges: [], cols: 0, rows: 0, currentId: null };

/** While laying out, an item's `col` holds its lane; lanes get columns at the end. */
type Pending = { id: string; lane: number | null; depth: number; from: number | null };
/**
 * A lane: `parent` is its parent lane (-1 for the root's), `fork` the row of
 * the node it leaves (its line starts there; 0 for the root's), `end` the row
 * of its last item.
 */
type Lane = { parent: number; fork: number; end: number };

/**
 * Lays out `tree` (every node of one chat). `expanded` holds the keys of
 * folded runs the person opened; those are drawn node by node.
 */
export function mapLayout(tree: readonly MessageNode[], expanded: ReadonlySet<string> = new Set()): MapLayout {
  const byId = new Map<string, MessageNode>();
  for (const n of tree) byId.set(n.id, n);
  const root = tree.find((n) => n.parent_id === null);
  if (root === undefined) return EMPTY;

  // The current node has no child on the active branch (a checkout can make
  // an inner node the active leaf, so "has no children" is not the test).
  let currentId: string | null = null;
  for (const n of tree) {
    if (n.on_active_branch && !n.children.some((c) => byId.get(c)?.on_active_branch === true)) {
      currentId = n.id;
      break;
    }
  }
  const context = new Set<string>();
  for (let id = currentId, i = 0; id !== null && i <= CONTEXT; i++) {
    context.add(id);
    id = byId.get(id)?.parent_id ?? null;
  }

  // Foldable: inside a straight chain (one child, the only child of its
  // parent) and not a node the person needs to see.
  const foldable = (n: MessageNode): boolean => {
    if (n.parent_id === null || n.children.length !== 1 || context.has(n.id)) return false;
    if (!byId.has(n.children[0]!)) return false;
    return byId.get(n.parent_id)?.children.length === 1;
  };

  const items: MapItem[] = [];
  const edges: MapEdge[] = [];
  const lanes: Lane[] = [{ parent: -1, fork: 0, end: 0 }];
  const seen = new Set<string>();

  // Each item takes the next row: its index in `items` is its row.
  const place = (item: MapItem, from: number | null): number => {
    const index = items.push(item) - 1;
    if (from !== null) edges.push({ from, to: index, active: item.active });
    lanes[item.col]!.end = index;
    return index;
  };
  const placeNode = (node: MessageNode, col: number, depth: number, from: number | null): number =>
    place(
      {
        type: "node",
        node,
        col,
        row: items.length,
        depth,
        active: node.on_active_branch,
        current: node.id === currentId,
        textCol: col,
      },
      from,
    );

  // Depth-first, iterative (a 10,000-step chain must not overflow the call
  // stack). A node's first child is pushed first and its later children
  // last-first, so the branches are visited right after the node, in
  // creation order, and the node's own line goes on below them.
  const stack: Pending[] = [{ id: root.id, lane: 0, depth: 0, from: null }];
  while (stack.length > 0) {
    const p = stack.pop()!;
    let node = byId.get(p.id);
    if (node === undefined || seen.has(node.id)) continue;
    let { depth, from } = p;
    const col = p.lane ?? lanes.push({ parent: items[from!]!.col, fork: from!, end: from! }) - 1;

    if (foldable(node)) {
      // Collect the whole run once, so each node is looked at O(1) times.
      const run: MessageNode[] = [];
      for (let n: MessageNode | undefined = node; n !== undefined && foldable(n) && !seen.has(n.id);) {
        run.push(n);
        seen.add(n.id);
        n = byId.get(n.children[0]!);
      }
      const first = run[0]!;
      const last = run[run.length - 1]!;
      if (run.length > MAX_RUN && !expanded.has(first.id)) {
        from = place(
          {
            type: "run",
            key: first.id,
            firstId: first.id,
            lastId: last.id,
            count: run.length,
            firstDepth: depth,
            lastDepth: depth + run.length - 1,
            col,
            row: items.length,
            active: first.on_active_branch,
            textCol: col,
          },
          from,
        );
        depth += run.length;
      } else {
        for (const n of run) {
          from = placeNode(n, col, depth, from);
          depth += 1;
        }
      }
      node = byId.get(last.children[0]!);
      if (node === undefined || seen.has(node.id)) continue;
    }

    seen.add(node.id);
    const index = placeNode(node, col, depth, from);
    const kids = node.children;
    if (kids.length > 0) stack.push({ id: kids[0]!, lane: col, depth: depth + 1, from: index });
    for (let i = kids.length - 1; i >= 1; i--) {
      stack.push({ id: kids[i]!, lane: null, depth: depth + 1, from: index });
    }
  }

  const laneCol = columns(lanes);
  for (const item of items) item.col = laneCol[item.col]!;
  const textCol = rightmost(lanes, laneCol, items.length);
  for (const item of items) item.textCol = textCol[item.row]!;
  const cols = laneCol.reduce((m, c) => Math.max(m, c + 1), 0);
  return { items, edges, cols, rows: items.length, currentId };
}

/**
 * A column for each lane, in the order the lanes were met: the leftmost one
 * right of the parent lane's column whose taken rows (kept as one span per
 * column: lanes and the curves crossing it) end above the lane's fork, so a
 * blank row parts two lanes in a column and they never read as one; or, in
 * the rare case, start below the lane's end.
 */
function columns(lanes: readonly Lane[]): number[] {
  const top: number[] = [];
  const bottom: number[] = [];
  const laneCol: number[] = [];
  const take = (c: number, from: number, to: number) => {
    top[c] = Math.min(top[c] ?? Infinity, from);
    bottom[c] = Math.max(bottom[c] ?? -Infinity, to);
  };
  for (const [i, lane] of lanes.entries()) {
    let col = 0;
    if (i > 0) {
      const from = laneCol[lane.parent]! + 1;
      col = from;
      while (col < top.length && col < from + MAX_SCAN) {
        if (lane.end < top[col]! - 1 || lane.fork > bottom[col]!) break;
        col += 1;
      }
      if (col < top.length && col >= from + MAX_SCAN) col = top.length;
    }
    take(col, lane.fork, lane.end);
    // The curve from the parent crosses the columns in between right below
    // the fork: a lane placed there later would be cut by it.
    if (i > 0) {
      const parentCol = laneCol[lane.parent]!;
      for (let c = parentCol + 1; c < col && c <= parentCol + MAX_SCAN; c++) take(c, lane.fork, lane.fork + 1);
    }
    laneCol.push(col);
  }
  return laneCol;
}

/**
 * For each row, the rightmost column a lane draws on it: a branch's line
 * runs in its column from the row below its fork to its last item. Lanes
 * are taken rightmost first and each row is filled once (a "next unfilled
 * row" pointer with path halving), so this stays near O(n).
 */
function rightmost(lanes: readonly Lane[], laneCol: readonly number[], rows: number): number[] {
  const out = new Array<number>(rows).fill(0);
  const next = Int32Array.from({ length: rows + 1 }, (_, i) => i);
  const find = (r: number) => {
    while (next[r] !== r) {
      next[r] = next[next[r]!]!;
      r = next[r]!;
    }
    return r;
  };
  const order = lanes.map((_, i) => i).sort((a, b) => laneCol[b]! - laneCol[a]!);
  for (const i of order) {
    const lane = lanes[i]!;
    for (let r = find(i === 0 ? 0 : lane.fork + 1); r <= lane.end; r = find(r)) {
      out[r] = laneCol[i]!;
      next[r] = r + 1;
    }
  }
  return out;
}
