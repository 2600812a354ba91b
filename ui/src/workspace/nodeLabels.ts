// Naming a chat's nodes for a person choosing two to compare: where each sits
// (step n of its branch, which version at a fork), what it was, and when.

import type { MessageNode } from "../bindings";
import { formatTime } from "../lib/format";

export type NodeChoice = { id: string; label: string };

/** The node the workspace is at: the end of the active branch. */
export function currentNode(tree: MessageNode[]): MessageNode | null {
  const byId = new Map(tree.map((n) => [n.id, n]));
  return (
    tree.find((n) => n.on_active_branch && !n.children.some((c) => byId.get(c)?.on_active_branch === true)) ?? null
  );
}

function counts(added: number, modified: number, removed: number): string {
  const bits = [
    added > 0 && `${added} added`,
    modified > 0 && `${modified} changed`,
    removed > 0 && `${removed} removed`,
  ].filter((b): b is string => typeof b === "string");
  return bits.length > 0 ? `: ${bits.join(", ")}` : "";
}

/** What a node is: a tool call (by tool), an edit or an upload, a message, the start. */
export function nodeKind(node: MessageNode, toolOf: ReadonlyMap<string, string>): string {
  if (node.parent_id === null) return "empty workspace";
  for (const part of node.content) {
    if (part.type === "tool_call") return toolOf.get(part.tool_call_id) ?? "tool call";
    if (part.type === "workspace_edit") {
      const what = node.source === "user_upload" ? "upload" : "edit";
      return `${what}${counts(part.added, part.modified, part.removed)}`;
    }
    if (part.type === "text") {
      const text = part.text.replace(/\s+/g, " ").trim();
      return `${node.role} message “${text.length > 40 ? `${text.slice(0, 39)}…` : text}”`;
    }
  }
  return node.role === "edit" ? "edit" : `${node.role} message`;
}

/**
 * Every node, labelled "Step 3 (2/2) · write_file · 14:03:22": the active
 * branch from its start to the current node, then the other branches in
 * tree order (so each branch's steps stay together).
 */
export function nodeChoices(
  tree: MessageNode[],
  toolOf: ReadonlyMap<string, string>,
): { active: NodeChoice[]; other: NodeChoice[] } {
  const byId = new Map(tree.map((n) => [n.id, n]));
  const current = currentNode(tree)?.id ?? null;
  const active: NodeChoice[] = [];
  const other: NodeChoice[] = [];
  // Depth-first with an explicit stack: a long chat is no recursion limit.
  const stack: [MessageNode, number][] = tree
    .filter((n) => n.parent_id === null)
    .map((n): [MessageNode, number] => [n, 0])
    .reverse();
  for (let top = stack.pop(); top !== undefined; top = stack.pop()) {
    const [node, depth] = top;
    const siblings = node.parent_id === null ? [] : (byId.get(node.parent_id)?.children ?? []);
    const where = depth === 0 ? "Start" : `Step ${depth}`;
    const version = siblings.length > 1 ? ` (${siblings.indexOf(node.id) + 1}/${siblings.length})` : "";
    const now = node.id === current ? " · current" : "";
    const label = `${where}${version} · ${nodeKind(node, toolOf)} · ${formatTime(node.created_at, { seconds: true })}${now}`;
    (node.on_active_branch ? active : other).push({ id: node.id, label });
    for (let i = node.children.length - 1; i >= 0; i--) {
      const child = byId.get(node.children[i]!);
      if (child !== undefined) stack.push([child, depth + 1]);
    }
  }
  return { active, other };
}
