// Message trees the map's tests draw: a branched chat and a long chain.
import type { MessageNode } from "../src/bindings";
import { node } from "./fixtures";

// root ─ a ─┬─ b1 (edit) ─ c      active: root, a, b1, c (c is current)
//           ├─ b2 ─ d
//           └─ b3
export function branched(active = ["root", "a", "b1", "c"]): MessageNode[] {
  const on = (id: string) => active.includes(id);
  const tool = (id: string) => [{ type: "tool_call" as const, tool_call_id: `call-${id}` }];
  return [
    node("root", null, { children: ["a"], on_active_branch: on("root") }),
    node("a", "root", { children: ["b1", "b2", "b3"], content: tool("a"), on_active_branch: on("a") }),
    node("b1", "a", {
      role: "edit",
      content: [{ type: "workspace_edit", added: 1, removed: 0, modified: 2 }],
      children: ["c"],
      on_active_branch: on("b1"),
    }),
    node("c", "b1", { content: tool("c"), on_active_branch: on("c") }),
    node("b2", "a", { children: ["d"], content: tool("b2"), on_active_branch: on("b2") }),
    node("d", "b2", { content: tool("d"), on_active_branch: on("d") }),
    node("b3", "a", { content: tool("b3"), on_active_branch: on("b3") }),
  ];
}

/** root ─ n1 ─ n2 ─ … ─ n<steps>, all active. */
export function chain(steps: number): MessageNode[] {
  const ids = ["root", ...Array.from({ length: steps }, (_, i) => `n${i + 1}`)];
  return ids.map((id, i) => node(id, i === 0 ? null : ids[i - 1]!, { children: i < steps ? [ids[i + 1]!] : [] }));
}
