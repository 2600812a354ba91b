// The values the preview's Git Tools' MCP server reads (`${NAME}`), kept in
// memory: typed in the install screen, in the result when its server did not
// start, or in the toolset's details. Its server "starts" once
// `$GITHUB_TOKEN` is set, and fails the way one with an unset secret does
// until then. `$GITEA_TOKEN` came with the bundle (moved to the keychain at
// import): "from the bundle" until replaced.
import type { EnvReference, SecretOrigin, ServerRecord } from "../src/bindings";

type Args = { [k: string]: unknown };
type Handlers = Record<string, (a: Args) => unknown>;

const stored = new Map<string, SecretOrigin>([["GITEA_TOKEN", "bundle"]]);

const references = (): EnvReference[] =>
  ["GITEA_TOKEN", "GIT_AUTHOR_EMAIL", "GITHUB_TOKEN"].map((name) => ({
    name,
    server_ids: ["git"],
    in_environment: name === "GIT_AUTHOR_EMAIL",
    allowed: false,
    stored: stored.has(name),
    origin: stored.get(name) ?? null,
  }));

function listed(id: string): ServerRecord {
  return {
    id,
    transport: "stdio",
    command: "uvx",
    args: ["mcp-server-git", "--repository", "."],
    url: null,
    env_keys: ["GITEA_TOKEN", "GIT_AUTHOR_EMAIL", "GITHUB_TOKEN"],
    header_keys: [],
    enabled: true,
    active: true,
    user_declared: false,
    toolsets: ["git-tools"],
    scope: "chat",
    tools: ["git_status", "git_log", "git_diff"].map((name) => ({
      name,
      title: null,
      description: "",
      input_schema: { type: "object" },
      read_only: true,
      destructive: false,
    })),
    server_name: "mcp-git",
    server_version: "1.0.0",
    protocol_version: "2025-06-18",
    listed_at: new Date().toISOString(),
    last_error: null,
  };
}

/** The handlers of these values, over the preview's `base` (its toolset details gain Git Tools' server). */
export function envSecretHandlers(base: Handlers): Handlers {
  return {
    get_toolset: (a) => {
      const d = base.get_toolset!(a) as Record<string, unknown>;
      return a.id === "git-tools"
        ? { ...d, mcp_servers: [{ toolset_id: "git-tools", server_id: "git", config: {}, auto_enabled: true }] }
        : d;
    },
    toolset_env_references: (a) => (a.id === "git-tools" ? references() : []),
    set_toolset_env_secret: (a) => {
      stored.set(String(a.name), "person");
      return references();
    },
    unset_toolset_env_secret: (a) => {
      stored.delete(String(a.name));
      return references();
    },
    list_mcp_server: async (a) => {
      await new Promise((r) => setTimeout(r, 400));
      if (stored.has("GITHUB_TOKEN")) return listed(String(a.id));
      throw {
        kind: "mcp",
        message: `\${GITHUB_TOKEN} in env.GITHUB_TOKEN of MCP server "${String(a.id)}" has no value for toolset:git-tools: set it with \`atelier secrets set toolset:git-tools GITHUB_TOKEN\`, or the environment variable ATELIER_SECRET_TOOLSET_GIT_TOOLS__GITHUB_TOKEN`,
      };
    },
  };
}
