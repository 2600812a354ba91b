/**
 * What the conversation map says about a node: its kind (which picks the
 * shape and colour), its accessible label and tooltip, and the short text
 * written beside it. Derived from the node's content parts, a model turn's
 * meta (how it ended) and, for tool calls, the call record (which names
 * the tool). Every kind has words, so no node is drawn without a label: a
 * person's message by its first words, a model's turn by the first words
 * of its answer (or the tools it called, when it only called tools).
 */
import type { MessageNode, ToolCallRecord } from "../bindings";
import { shownStatus } from "../lib/callStatus";
import { formatTime } from "../lib/format";
import { markdownWords } from "../renderers/markdown";

/**
 * Uploads and hand edits are both `edit` nodes; the node's `source` tells
 * them apart. `message`: the person's; `answer`: a model's turn.
 */
export type NodeKind = "root" | "tool" | "edit" | "upload" | "message" | "answer";

export function nodeKind(node: MessageNode): NodeKind {
  if (node.parent_id === null || node.role === "system") return "root";
  if (node.content.some((p) => p.type === "tool_call") || node.role === "tool") return "tool";
  if (node.content.some((p) => p.type === "workspace_edit") || node.role === "edit") {
    return node.source === "user_upload" ? "upload" : "edit";
  }
  return node.role === "assistant" ? "answer" : "message";
}

/**
 * How a model's turn ended when not well: `failed` (the provider's error)
 * or `stopped` (the person's Stop, the step limit, a process that died).
 */
export function turnOutcome(node: Pick<MessageNode, "meta">): "failed" | "stopped" | null {
  const status = node.meta?.status ?? null;
  if (status === "failed") return "failed";
  return status === "stopped" || status === "interrupted" || status === "step_limit" ? "stopped" : null;
}

/** The call a tool node recorded, if the call list has it. */
export function callOf(node: MessageNode, calls: ReadonlyMap<string, ToolCallRecord>): ToolCallRecord | null {
  for (const part of node.content) {
    if (part.type === "tool_call") return calls.get(part.tool_call_id) ?? null;
  }
  return null;
}

/**
 * How a call ended when not well: `failed` (an error of the tool or of
 * Atelier), or `stopped` by the person (denied, cancelled), which is no
 * failure and is drawn as such.
 */
export function outcome(call: ToolCallRecord | null): "failed" | "denied" | "cancelled" | null {
  if (call === null) return null;
  const shown = shownStatus(call);
  if (shown === "cancelled" || shown === "denied") return shown;
  return shown === "error" ? "failed" : null;
}

/** "2 changed, 1 added" — what an edit did to the files. */
export function editCounts(node: MessageNode): string {
  for (const part of node.content) {
    if (part.type === "workspace_edit") {
      const bits = [
        part.added > 0 && `${part.added} added`,
        part.modified > 0 && `${part.modified} changed`,
        part.removed > 0 && `${part.removed} removed`,
      ].filter((b): b is string => typeof b === "string");
      return bits.length > 0 ? bits.join(", ") : "no files";
    }
  }
  return "files changed";
}

/** The node's text in a few words; a model's answer is markdown, shown without its marks. */
function text(node: MessageNode): string {
  const joined = node.content.map((p) => (p.type === "text" ? p.text : "")).join("\n\n");
  const all = node.role === "assistant" ? markdownWords(joined) : joined.replace(/\s+/g, " ").trim();
  return fit(all, 40);
}

/** "3 images" — what a message without text sent. */
function images(node: MessageNode): string {
  const n = node.content.filter((p) => p.type === "image").length;
  return n === 0 ? "" : n === 1 ? "an image" : `${n} images`;
}

/** "calls read_file, write_file" — a turn that only called tools. */
function calls(node: MessageNode): string {
  const names = node.content.flatMap((p) => (p.type === "model_call" ? [p.name] : []));
  return names.length === 0 ? "" : `calls ${[...new Set(names)].join(", ")}`;
}

/** A model turn in a few words: its answer's start, else what it did. */
function answerWords(node: MessageNode): string {
  const said = text(node) || calls(node);
  if (said !== "") return said;
  if (turnOutcome(node) === "failed") return "failed";
  return node.content.some((p) => p.type === "reasoning" || p.type === "redacted_reasoning")
    ? "thought, no answer"
    : "answer";
}

/** What the node is, without its position: "csv_report.summarize", "Edit: 2 changed". */
function what(node: MessageNode, call: ToolCallRecord | null): string {
  switch (nodeKind(node)) {
    case "root":
      return "Start: empty workspace";
    case "tool": {
      const how = outcome(call);
      return `${call?.tool_id ?? "Tool call"}${how === null ? "" : ` (${how})`}`;
    }
    case "edit":
      return `Edit: ${editCounts(node)}`;
    case "upload":
      return `Upload: ${editCounts(node)}`;
    case "message":
      return `Message: ${text(node) || images(node) || "(empty)"}`;
    case "answer": {
      const how = turnOutcome(node);
      return `Answer: ${answerWords(node)}${how === null || answerWords(node) === how ? "" : ` (${how})`}`;
    }
  }
}

/** "Step 3: csv_report.summarize, 12:04" — the node's accessible name. */
export function nodeLabel(node: MessageNode, depth: number, call: ToolCallRecord | null): string {
  const body = depth === 0 ? what(node, call) : `Step ${depth}: ${what(node, call)}`;
  return `${body}, ${formatTime(node.created_at)}`;
}

/** The few words drawn beside a node. */
export function shortLabel(node: MessageNode, call: ToolCallRecord | null): string {
  switch (nodeKind(node)) {
    case "root":
      return "start";
    case "tool":
      return call?.tool_id ?? "tool call";
    case "edit":
      return `edit, ${editCounts(node)}`;
    case "upload":
      return `upload, ${editCounts(node)}`;
    case "message":
      return text(node) || images(node) || "message";
    case "answer":
      return answerWords(node);
  }
}

/**
 * Cuts `s` to about `chars` characters, after a whole word (or a tool id's
 * part: `_`, `:`, `-`) when one ends in the second half: the words drawn
 * are then the start of the node's accessible name (cut at 40), as a
 * person using speech says them.
 */
export function fit(s: string, chars: number): string {
  if (chars < 4) return "";
  if (s.length <= chars) return s;
  const cut = s.slice(0, chars - 1);
  if (/[^\p{L}\p{N}]/u.test(s[chars - 1]!)) return `${cut}…`;
  const parts = [...cut.matchAll(/[^\p{L}\p{N}]/gu)];
  const end = (parts.at(-1)?.index ?? -1) + 1;
  return end > chars / 2 ? `${cut.slice(0, end)}…` : `${cut}…`;
}
