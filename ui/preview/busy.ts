// The preview's "first hour" data (preview.html?busy): 20 chats, the newest
// with a 12-node tree that branches twice and a tool whose id is long, to
// look at the layout under load. Also answers chat_tree and checkout for
// every chat (a chat's calls, one after another).
import type { Chat, JsonValue, MessageNode, ToolCallRecord, ToolRecord } from "../src/bindings";

type Args = { [k: string]: unknown };
type Record = (chatId: string, toolId: string, args: { [k: string]: JsonValue }) => ToolCallRecord;

export const LONG_TOOL_ID = "data-pipeline-toolkit:normalize_and_deduplicate_customer_records_v2";

function node(chatId: string, id: string, parent: string | null, over: Partial<MessageNode> = {}): MessageNode {
  return {
    id,
    chat_id: chatId,
    parent_id: parent,
    role: parent === null ? "system" : "tool",
    content: [],
    manifest_id: id,
    created_at: new Date().toISOString(),
    meta: null,
    thread_id: null,
    children: [],
    on_active_branch: false,
    latest_leaf: id,
    source: parent === null ? "empty" : "tool_run",
    ...over,
  };
}

/** Adds the busy data to the preview's lists and its chat_tree and checkout handlers. */
export function seedBusy(
  chats: Chat[],
  calls: ToolCallRecord[],
  tools: ToolRecord[],
  handlers: { [cmd: string]: (a: Args) => unknown },
  record: Record,
) {
  const template = tools[0]!;
  tools.push({
    ...template,
    tool_id: LONG_TOOL_ID,
    toolset_id: null,
    name: "Normalize and deduplicate customer records (all regions, slow path)",
    description: "Cleans a CSV of customer records",
  });
  const stamp = (i: number) => new Date(Date.now() - (20 - i) * 3600_000).toISOString();
  for (let i = 1; i <= 20; i++) {
    chats.push({
      id: `chat-${i}`,
      title: i === 20 ? "Quarterly customer report — cleaning and charts" : `New chat ${i}`,
      created_at: stamp(i),
      updated_at: stamp(i),
      root_message_id: "r",
      active_leaf_message_id: "r",
      active_manifest_id: "m0",
      agent_id: null,
      provider_id: null,
      model: null,
      model_settings: {},
    });
  }
  // chat-20: root ─ write ─┬─ boom (failed) ─ edit
  //                       └─ summarize ─ … (8 steps) ─┬─ long id
  //                                                    └─ summarize (current)
  const run = (toolId: string, args: { [k: string]: JsonValue }) => {
    const c = record("chat-20", toolId, args);
    calls.push(c);
    return c.id;
  };
  const main = [
    run("app-builder:write_file", { path: "customers.csv", content: "id,name\n1,Ada\n" }),
    run("csv-report:summarize", { path: "customers.csv" }),
    run(LONG_TOOL_ID, { path: "customers.csv" }),
    run("app-builder:read_file", { path: "customers.csv" }),
    run("csv-report:summarize", { path: "customers.csv" }),
    run("app-builder:write_file", { path: "report.md", content: "# Report\n" }),
    run("csv-report:summarize", { path: "report.md" }),
    run("app-builder:read_file", { path: "report.md" }),
  ];
  const boom = run("delete_file", { path: "missing.txt" });
  const late = run(LONG_TOOL_ID, { path: "report.md" });
  const tree: MessageNode[] = [node("chat-20", "r", null, { on_active_branch: true })];
  const add = (id: string, parent: string, over: Partial<MessageNode>) => {
    tree.find((n) => n.id === parent)!.children.push(id);
    tree.push(node("chat-20", id, parent, over));
  };
  const tool = (id: string) => ({ content: [{ type: "tool_call" as const, tool_call_id: id }] });
  let parent = "r";
  for (const id of main) {
    add(id, parent, { ...tool(id), on_active_branch: true });
    parent = id;
  }
  add(boom, main[0]!, tool(boom));
  add("edit-1", boom, { role: "edit", content: [{ type: "workspace_edit", added: 1, removed: 0, modified: 2 }] });
  add(late, main[5]!, tool(late));
  const trees = new Map<string, MessageNode[]>([["chat-20", tree]]);

  const treeOf = (chatId: string): MessageNode[] => {
    const seeded = trees.get(chatId);
    if (seeded !== undefined) return seeded;
    const ids = ["r", ...calls.filter((c) => c.chat_id === chatId).map((c) => c.id)];
    return ids.map((id, i) =>
      node(chatId, id, i === 0 ? null : ids[i - 1]!, {
        ...(i === 0 ? {} : tool(id)),
        children: i + 1 < ids.length ? [ids[i + 1]!] : [],
        on_active_branch: true,
      }),
    );
  };
  handlers.chat_tree = (a) => treeOf(String(a.chatId));
  // Event listeners (toolset reloads): nothing is ever sent in the preview.
  handlers["plugin:event|listen"] = () => 1;
  handlers["plugin:event|unlisten"] = () => null;
  handlers.toolset_reloads = () => [];
  const policies = new Map<string, string>();
  const policyOf = (toolId: string) => {
    const asked = tools.find((t) => t.tool_id === toolId)?.requires_confirmation ?? false;
    const policy = policies.get(toolId) ?? "default";
    return {
      tool_id: toolId,
      policy,
      requires_confirmation: asked,
      asks: policy === "ask" || (policy === "default" && asked),
    };
  };
  handlers.tool_policy = (a) => policyOf(String(a.toolId));
  handlers.set_tool_policy = (a) => {
    policies.set(String(a.toolId), String(a.policy));
    return policyOf(String(a.toolId));
  };
  handlers.checkout = (a) => {
    const tree = treeOf(String(a.chatId));
    const byId = new Map(tree.map((n) => [n.id, n]));
    for (const n of tree) n.on_active_branch = false;
    for (let id: string | null = String(a.messageId); id !== null; id = byId.get(id)?.parent_id ?? null) {
      byId.get(id)!.on_active_branch = true;
    }
    trees.set(String(a.chatId), tree);
    return chats.find((c) => c.id === a.chatId);
  };
}
