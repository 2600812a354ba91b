/**
 * The conversation map's layout: where each message of a chat's tree is
 * drawn, as a pure function of the tree (no React, no DOM), so it can be
 * tested on its own and stays O(n) for chats of thousands of nodes.
 *
 * Depth runs downward, one row per drawn item. Branches sit side by side:
 * a node's first child (creation order) continues its parent's lane, every
 * later child starts a new lane, drawn in a column to the right of its
 * parent's. Lanes follow creation order rather than the active branch so
 * the map does not reshuffle under the pointer when the person jumps.
 * A lane takes the leftmost column (right of its parent's) that is free over
 * its rows, so the usual shape — many short "run again" branches off one
 * long line — stays two columns wide instead of one column per branch.
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
  row: number;
  /** Steps from the root (the root is 0). */
  depth: number;
  active: boolean;
  current: boolean;
  /** Nothing is drawn to the right of it on its row, so a label fits. */
  room: boolean;
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
  room: boolean;
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
type Pending = { id: string; lane: number | null; row: number; depth: number; from: number | null };
type Lane = { parent: number; start: number; end: number };

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
  const lanes: Lane[] = [{ parent: -1, start: 0, end: 0 }];
  const seen = new Set<string>();

  const place = (item: MapItem, from: number | null): number => {
    const index = items.push(item) - 1;
    if (from !== null) edges.push({ from, to: index, active: item.active });
    const lane = lanes[item.col]!;
    lane.end = Math.max(lane.end, item.row);
    return index;
  };
  const placeNode = (node: MessageNode, col: number, row: number, depth: number, from: number | null): number =>
    place(
      {
        type: "node",
        node,
        col,
        row,
        depth,
        active: node.on_active_branch,
        current: node.id === currentId,
        room: false,
      },
      from,
    );

  // Depth-first, iterative (a 10,000-step chain must not overflow the call
  // stack). Children are pushed last-first so they are visited in creation
  // order; branches lower down a lane are visited before higher ones, so
  // their columns are closer and the higher ones' curves pass above them.
  const stack: Pending[] = [{ id: root.id, lane: 0, row: 0, depth: 0, from: null }];
  while (stack.length > 0) {
    const p = stack.pop()!;
    let node = byId.get(p.id);
    if (node === undefined || seen.has(node.id)) continue;
    let { row, depth, from } = p;
    const col = p.lane ?? lanes.push({ parent: items[from!]!.col, start: row, end: row }) - 1;

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
            row,
            active: first.on_active_branch,
            room: false,
          },
          from,
        );
        row += 1;
        depth += run.length;
      } else {
        for (const n of run) {
          from = placeNode(n, col, row, depth, from);
          row += 1;
          depth += 1;
        }
      }
      node = byId.get(last.children[0]!);
      if (node === undefined || seen.has(node.id)) continue;
    }

    seen.add(node.id);
    const index = placeNode(node, col, row, depth, from);
    const kids = node.children;
    for (let i = kids.length - 1; i >= 0; i--) {
      stack.push({ id: kids[i]!, lane: i === 0 ? col : null, row: row + 1, depth: depth + 1, from: index });
    }
  }

  const laneCol = columns(lanes);
  const rowMaxCol: number[] = [];
  for (const item of items) {
    item.col = laneCol[item.col]!;
    rowMaxCol[item.row] = Math.max(rowMaxCol[item.row] ?? -1, item.col);
  }
  for (const item of items) item.room = rowMaxCol[item.row] === item.col;
  const cols = laneCol.reduce((m, c) => Math.max(m, c + 1), 0);
  return { items, edges, cols, rows: rowMaxCol.length, currentId };
}

/**
 * A column for each lane, in the order the lanes were met: the leftmost one
 * right of the parent lane's column whose taken rows (kept as one span per
 * column: lanes and the curves crossing it) leave free the lane's rows and
 * the row above, where the curve from the parent comes in — so two lanes in
 * a column never look joined and no later lane is cut by an earlier curve.
 */
function columns(lanes: readonly Lane[]): number[] {
  const top: number[] = [];
  const bottom: number[] = [];
  const laneCol: number[] = [];
  for (const [i, lane] of lanes.entries()) {
    let col = 0;
    if (i > 0) {
      const from = laneCol[lane.parent]! + 1;
      col = from;
      while (col < top.length && col < from + MAX_SCAN) {
        if (lane.end <= top[col]! - 1 || lane.start - 1 >= bottom[col]! + 1) break;
        col += 1;
      }
      if (col < top.length && col >= from + MAX_SCAN) col = top.length;
    }
    const take = (c: number, from: number, to: number) => {
      top[c] = Math.min(top[c] ?? Infinity, from);
      bottom[c] = Math.max(bottom[c] ?? -Infinity, to);
    };
    take(col, lane.start - 1, lane.end);
    // The curve from the parent crosses the columns in between on the row
    // above the lane's start: a lane placed there later would be cut by it.
    if (i > 0) {
      const parentCol = laneCol[lane.parent]!;
      for (let c = parentCol + 1; c < col && c <= parentCol + MAX_SCAN; c++) take(c, lane.start - 1, lane.start);
    }
    laneCol.push(col);
  }
  return laneCol;
}
