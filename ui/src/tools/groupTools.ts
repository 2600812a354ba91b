import type { ToolRecord, ToolsetRecord } from "../bindings";

export type ToolGroup = {
  key: string;
  kind: "builtin" | "toolset" | "mcp";
  label: string;
  tools: ToolRecord[];
};

/** Every whitespace-separated term appears in the name, id or description. */
export function matches(tool: ToolRecord, query: string): boolean {
  const terms = query
    .toLowerCase()
    .split(/\s+/)
    .filter((t) => t !== "");
  if (terms.length === 0) return true;
  const hay = `${tool.name}\n${tool.tool_id}\n${tool.description}`.toLowerCase();
  return terms.every((t) => hay.includes(t));
}

/** The server id of an MCP tool (`<server_id>:<tool_name>`), else null. */
function mcpServer(tool: ToolRecord, toolsets: Map<string, ToolsetRecord>): string | null {
  if (tool.toolset_id !== null) return toolsets.has(tool.toolset_id) ? null : tool.toolset_id;
  const at = tool.tool_id.indexOf(":");
  return at > 0 ? tool.tool_id.slice(0, at) : null;
}

/**
 * Builtin first, then toolsets by name, then MCP servers by id; tools keep
 * the core's order (canonical id). Groups left empty by the search are dropped.
 */
export function groupTools(tools: ToolRecord[], toolsets: ToolsetRecord[], query: string): ToolGroup[] {
  const byId = new Map(toolsets.map((t) => [t.id, t]));
  const groups = new Map<string, ToolGroup>();
  for (const tool of tools) {
    if (!matches(tool, query)) continue;
    const server = mcpServer(tool, byId);
    let group: Omit<ToolGroup, "tools">;
    if (server !== null) group = { key: `mcp:${server}`, kind: "mcp", label: `MCP · ${server}` };
    else if (tool.toolset_id === null) group = { key: "builtin", kind: "builtin", label: "Builtin" };
    else {
      const ts = byId.get(tool.toolset_id);
      group = { key: `toolset:${tool.toolset_id}`, kind: "toolset", label: ts?.name ?? tool.toolset_id };
    }
    const existing = groups.get(group.key);
    if (existing) existing.tools.push(tool);
    else groups.set(group.key, { ...group, tools: [tool] });
  }
  const rank = { builtin: 0, toolset: 1, mcp: 2 } as const;
  return [...groups.values()].sort(
    (a, b) => rank[a.kind] - rank[b.kind] || a.label.localeCompare(b.label, undefined, { sensitivity: "base" }),
  );
}
