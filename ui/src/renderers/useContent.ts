import { api } from "../api";
import type { ToolCallRecord } from "../bindings";
import { str, type JsonObject } from "../lib/json";
import { useLoad, type Load } from "../lib/useLoad";

export type Content =
  | { kind: "text"; text: string; path: string | null }
  | { kind: "binary"; path: string; size: number }
  | { kind: "none" };

/**
 * What a code or document view shows: `config.content`, or the workspace
 * file `config.file` as it was after the call (at the plan's manifest).
 */
export function useContent(call: ToolCallRecord, config: JsonObject, manifestId: string | null): Load<Content> {
  const content = config.content;
  const file = str(config, "file");
  const key = JSON.stringify([call.id, file, manifestId, typeof content === "string" ? content : null]);
  const [load] = useLoad<Content>(async () => {
    if (typeof content === "string") return { kind: "text", text: content, path: file };
    if (content !== undefined && content !== null) {
      return { kind: "text", text: JSON.stringify(content, null, 2), path: file };
    }
    if (file === null) return { kind: "none" };
    const f = await api.getWorkspaceFile(call.chat_id, file, manifestId);
    return f.text === null
      ? { kind: "binary", path: f.path, size: f.size }
      : { kind: "text", text: f.text, path: f.path };
  }, key);
  return load;
}
