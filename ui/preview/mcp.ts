// MCP servers of the preview: one connected (server-everything), one whose
// connection failed, one a toolset declares that is stopped and disabled.
import type { ImportCandidate, McpServerRequest, ServerDetails, ServerRecord } from "../src/bindings";

type Args = { [k: string]: unknown };

function record(over: Partial<ServerRecord> & { id: string }): ServerRecord {
  return {
    transport: "stdio",
    command: null,
    args: [],
    url: null,
    env_keys: [],
    header_keys: [],
    enabled: true,
    active: true,
    user_declared: true,
    toolsets: [],
    scope: "shared",
    tools: null,
    server_name: null,
    server_version: null,
    protocol_version: null,
    listed_at: null,
    last_error: null,
    ...over,
  };
}

const tool = (name: string, description: string, read_only = false) => ({
  name,
  title: null,
  description,
  input_schema: { type: "object" },
  read_only,
  destructive: false,
});

const servers: ServerDetails[] = [
  {
    server: record({
      id: "everything",
      command: "npx",
      args: ["-y", "@modelcontextprotocol/server-everything", "stdio"],
      env_keys: ["EVERYTHING_TOKEN"],
      timeout_s: 300,
      tools: [
        tool("echo", "Echoes back the input string", true),
        tool("add", "Adds two numbers", true),
        tool("longRunningOperation", "Demonstrates a long running operation with progress updates"),
        tool("printEnv", "Prints all environment variables, helpful for debugging MCP server configuration"),
      ],
      server_name: "mcp-servers/everything",
      server_version: "2.0.0",
      protocol_version: "2025-11-25",
      listed_at: new Date().toISOString(),
    }),
    status: "connected",
    message: null,
    instances: [{ chat_id: null, status: "connected", pid: 48213 }],
    stderr: [
      "Starting default (STDIO) server...",
      "Starting logs update interval",
      "Server connected over stdio; 4 tools, 100 resources, 3 prompts",
    ],
  },
  {
    server: record({
      id: "linear",
      transport: "http",
      url: "https://mcp.linear.app/mcp",
      header_keys: ["Authorization"],
      last_error:
        'MCP server "linear" answered 401 Unauthorized at https://mcp.linear.app/mcp: check its Authorization header (OAuth sign-in is not supported yet)',
    }),
    status: "stopped",
    message:
      'MCP server "linear" answered 401 Unauthorized at https://mcp.linear.app/mcp: check its Authorization header (OAuth sign-in is not supported yet)',
    instances: [],
    stderr: [],
  },
  {
    server: record({
      id: "git",
      command: "uvx",
      args: ["mcp-server-git", "--repository", "."],
      env_keys: ["GITEA_TOKEN"],
      user_declared: false,
      toolsets: ["git-tools"],
      scope: "chat",
      enabled: false,
      active: false,
      tools: [
        tool("git_status", "Shows the working tree status", true),
        tool("git_log", "Shows the commit logs", true),
      ],
    }),
    status: "stopped",
    message: null,
    instances: [],
    stderr: [],
  },
];

const find = (id: unknown) => {
  const d = servers.find((s) => s.server.id === id);
  if (d === undefined) throw { kind: "mcp_server_not_found", message: `MCP server ${String(id)} not found` };
  return d;
};

function candidates(text: string): ImportCandidate[] {
  let root: {
    mcpServers?: Record<string, { command?: string; args?: string[]; url?: string; env?: object; timeout?: number }>;
  };
  try {
    root = JSON.parse(text) as typeof root;
  } catch (e) {
    throw { kind: "invalid_data", message: `invalid MCP config: not JSON: ${String(e)}` };
  }
  return Object.entries(root.mcpServers ?? {}).map(([id, s]) => ({
    id,
    runs: s.command !== undefined ? [s.command, ...(s.args ?? [])].join(" ") : (s.url ?? ""),
    env_keys: Object.keys(s.env ?? {}),
    header_keys: [],
    problem: servers.some((d) => d.server.id === id) ? `an MCP server "${id}" already exists` : null,
    note: null,
    // As the core reads it: above an hour it can only be Claude Code's milliseconds.
    timeout_s:
      typeof s.timeout === "number" && s.timeout > 0 ? (s.timeout > 3600 ? s.timeout / 1000 : s.timeout) : null,
  }));
}

export const mcpHandlers: Record<string, (a: Args) => unknown> = {
  list_mcp_servers: () => servers,
  get_mcp_server: (a) => find(a.id),
  add_mcp_server: (a) => {
    const r = a.server as McpServerRequest;
    if (servers.some((d) => d.server.id === r.id)) {
      throw { kind: "conflict", message: `"${r.id}" is already used by an MCP server` };
    }
    const s = record({
      id: r.id,
      transport: r.url !== null ? "http" : "stdio",
      command: r.command,
      args: r.args,
      url: r.url,
      env_keys: Object.keys(r.env),
      header_keys: Object.keys(r.headers),
      ...(r.timeout_s !== undefined ? { timeout_s: r.timeout_s } : {}),
    });
    servers.push({ server: s, status: "stopped", message: null, instances: [], stderr: [] });
    return s;
  },
  remove_mcp_server: (a) => {
    servers.splice(servers.indexOf(find(a.id)), 1);
    return null;
  },
  set_mcp_server_enabled: (a) => {
    const d = find(a.id);
    d.server.enabled = a.enabled === true;
    d.server.active = d.server.enabled && d.server.user_declared;
    if (!d.server.enabled) Object.assign(d, { status: "stopped", instances: [], message: null });
    return d.server;
  },
  restart_mcp_server: async (a) => {
    const d = find(a.id);
    await new Promise((r) => setTimeout(r, 800));
    if (d.server.transport === "http") {
      d.status = "stopped";
      throw { kind: "mcp", message: d.server.last_error ?? "it did not answer" };
    }
    Object.assign(d, { status: "connected", instances: [{ chat_id: null, status: "connected", pid: 50000 }] });
    d.server.tools ??= [tool("echo", "Echoes back the input string", true)];
    return d.server;
  },
  preview_mcp_config: (a) => candidates(String(a.text)),
  import_mcp_config: (a) => {
    const only = a.only as string[] | null;
    return candidates(String(a.text))
      .filter((c) => c.problem === null && (only === null || only.includes(c.id)))
      .map((c) => {
        const s = record({ id: c.id, command: c.runs.split(" ")[0] ?? null, args: c.runs.split(" ").slice(1) });
        servers.push({ server: s, status: "stopped", message: null, instances: [], stderr: [] });
        return s;
      });
  },
};
