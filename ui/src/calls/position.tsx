// Where a chat is in its history: which step of its branch the workspace is
// at, how many steps that branch has, and whether the next run starts a new
// branch (the person went back to an older step). The branch view works it
// out from the tree it reads; the Run button and the Workspace tab show it.

import { createContext, useContext, useEffect, useMemo, useState, type ReactNode } from "react";
import type { MessageNode } from "../bindings";

export type Position = {
  chatId: string;
  /** The node the workspace is at (the end of the active branch). */
  currentId: string;
  /** Its workspace state. */
  manifestId: string;
  /** Its step on the branch (the start is step 0). */
  step: number;
  /** The steps of the branch's newest work from the start (`latest_leaf`). */
  total: number;
  /** Where "Return to latest" goes. */
  latestId: string;
  /** The workspace is at an older step: the next run starts a new branch. */
  behind: boolean;
  /** The deepest fork on the active branch: version `index` of `count` at `step`. */
  fork: { step: number; index: number; count: number } | null;
  /** How many branches start at the current node (its children). */
  branchesHere: number;
  /** Whether the chat branches anywhere. */
  branched: boolean;
};

/** The chat's position, from the core's tree (its active branch and `latest_leaf`). */
export function chatPosition(chatId: string, tree: MessageNode[]): Position | null {
  const byId = new Map(tree.map((n) => [n.id, n]));
  const depth = (id: string): number => {
    let d = 0;
    for (let n = byId.get(id); n?.parent_id != null; n = byId.get(n.parent_id)) d++;
    return d;
  };
  const onBranch = (id: string) => byId.get(id)?.on_active_branch === true;
  const current = tree.find((n) => n.on_active_branch && n.thread_id === null && !n.children.some(onBranch));
  if (current === undefined) return null;
  let fork: Position["fork"] = null;
  for (let n: MessageNode | undefined = current; n?.parent_id != null; n = byId.get(n.parent_id)) {
    const siblings = byId.get(n.parent_id)?.children ?? [];
    if (siblings.length > 1) {
      fork = { step: depth(n.id), index: siblings.indexOf(n.id) + 1, count: siblings.length };
      break;
    }
  }
  const step = depth(current.id);
  return {
    chatId,
    currentId: current.id,
    manifestId: current.manifest_id,
    step,
    total: depth(current.latest_leaf),
    latestId: current.latest_leaf,
    behind: current.children.length > 0,
    fork,
    branchesHere: current.children.length,
    branched: tree.some((n) => n.thread_id === null && n.children.length > 1),
  };
}

/** "step 5 of 8", "step 8 (latest)", "the start". */
export function stepText(p: Position): string {
  if (p.step === 0 && p.total === 0) return "the start (no steps yet)";
  const where = p.step === 0 ? "the start" : `step ${p.step}`;
  return p.behind ? `${where} of ${p.total}` : `${where} (latest)`;
}

/** "branch 2 of 3 (from step 4)", "where 3 branches start", "before the branches", or "one branch". */
export function branchText(p: Position): string {
  if (p.fork !== null) return `branch ${p.fork.index} of ${p.fork.count} (from step ${p.fork.step})`;
  if (p.branchesHere > 1) return `where ${p.branchesHere} branches start`;
  return p.branched ? "before the branches" : "one branch";
}

type Shared = { position: Position | null; set: (p: Position | null) => void };

const PositionContext = createContext<Shared>({ position: null, set: () => undefined });

/** Shares the selected chat's position between the branch view and the Run button. */
export function PositionProvider({ children }: { children: ReactNode }) {
  const [position, set] = useState<Position | null>(null);
  const value = useMemo(() => ({ position, set }), [position]);
  return <PositionContext.Provider value={value}>{children}</PositionContext.Provider>;
}

/**
 * The shown chat's position, as its branch view last said (null: unknown);
 * with `chatId`, only that chat's.
 */
export function usePosition(chatId?: string | null): Position | null {
  const { position } = useContext(PositionContext);
  return position !== null && (chatId === undefined || position.chatId === chatId) ? position : null;
}

/** Says where the shown chat is; forgets it when the view goes. */
export function useReportPosition(position: Position | null): void {
  const { set } = useContext(PositionContext);
  const key = position === null ? "" : JSON.stringify(position);
  useEffect(() => {
    set(position);
    // eslint-disable-next-line react-hooks/exhaustive-deps -- keyed by the value, not the object
  }, [key, set]);
  useEffect(() => () => set(null), [set]);
}
