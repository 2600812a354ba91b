// Agents of the preview: the Assistant and a researcher; an unsaved
// definition's tools resolved like the core does (toolsets and MCP servers
// give all their tools, names and `*` globs pick by model-facing name,
// what matches nothing is a warning, dotted names lose their dots for an
// OpenAI-compatible provider), and a provider's edit.
import type { Agent, AgentSpec, Policy, ProviderRecord, ToolRecord, ToolsPreview } from "../src/bindings";

type Args = { [k: string]: unknown };

const now = () => new Date().toISOString();

function agent(spec: Partial<AgentSpec> & { id: string; name: string }): Agent {
  return {
    description: "",
    model: null,
    model_settings: {},
    system_prompt: "",
    toolsets: [],
    tools: [],
    filters: [],
    policies: [],
    max_depth: 2,
    max_steps: 25,
    created_at: now(),
    updated_at: now(),
    ...spec,
  };
}

let agents: Agent[] = [
  agent({
    id: "assistant",
    name: "Assistant",
    description: "Reads and writes the chat's files",
    system_prompt: "You are a careful assistant working in the chat's folder.",
    tools: ["read_file", "write_file", "list_files", "delete_file"],
  }),
  agent({
    id: "researcher",
    name: "Researcher",
    description: "Summarizes CSV files and checks the numbers",
    model: { provider: "openai", model: "gpt-4o-mini" },
    system_prompt: "Answer with the numbers first, then one sentence of context.",
    toolsets: ["csv-report", "everything"],
    tools: ["read_file", "spawn_agents"],
    max_steps: 12,
  }),
];
const policies = new Map<string, Policy>([["write_file", "ask"]]);

const glob = (pattern: string, name: string) =>
  new RegExp(
    `^${pattern
      .replace(/[.+^${}()|[\]\\]/g, "\\$&")
      .replace(/\*/g, ".*")
      .replace(/\?/g, ".")}$`,
  ).test(name);

/** Resolves a spec against the preview's tools (`tools`: what the picker lists). */
function resolve(spec: AgentSpec, tools: ToolRecord[]): ToolsPreview {
  const pool = [
    ...tools,
    // Builtins the picker's preview list leaves out.
    { tool_id: "read_file", description: "Read a file of the workspace", requires_confirmation: false },
    { tool_id: "list_files", description: "List the workspace's files", requires_confirmation: false },
    { tool_id: "spawn_agents", description: "Hand tasks to other agents", requires_confirmation: false },
  ].map((t) => ({ ...t, model_name: t.tool_id.replace(":", ".") }));
  const picked = new Map<string, (typeof pool)[number]>();
  const warnings: string[] = [];
  for (const id of spec.toolsets) {
    const of = pool.filter((t) => t.tool_id.startsWith(`${id}:`));
    if (of.length === 0)
      warnings.push(
        `toolset or MCP server "${id}" is on the allowlist but not in the tool pool (not installed, disabled or not connected): skipped`,
      );
    for (const t of of) picked.set(t.tool_id, t);
  }
  for (const p of spec.tools) {
    const of = pool.filter((t) => glob(p, t.model_name) || glob(p, t.tool_id));
    if (of.length === 0) warnings.push(`"${p}" in the agent's tools matches no tool in the pool: skipped`);
    for (const t of of) picked.set(t.tool_id, t);
  }
  const chosen = [...picked.values()].sort((a, b) => a.tool_id.localeCompare(b.tool_id));
  return {
    tools: chosen.map((t) => ({
      model_name: t.model_name,
      canonical_id: t.tool_id,
      source_kind: t.tool_id.startsWith("everything:") ? "mcp" : t.tool_id.includes(":") ? "toolset" : "builtin",
      source_id: t.tool_id.includes(":") ? t.tool_id.split(":")[0]! : null,
      description: t.description,
      requires_confirmation: t.requires_confirmation,
      policy: t.tool_id === "spawn_agents" ? null : (policies.get(t.tool_id) ?? "default"),
    })),
    warnings,
    exposure: "openai",
    feature_loss: chosen
      .filter((t) => t.model_name.includes("."))
      .map(
        (t) =>
          `${t.model_name}: named ${t.model_name.replace(".", "__")} (the provider does not take "${t.model_name}")`,
      ),
  };
}

/** The handlers; `tools` and `providers` are the preview's own lists. */
export function agentHandlers(
  tools: ToolRecord[],
  providers: () => ProviderRecord[],
  setProviders: (p: ProviderRecord[]) => void,
): Record<string, (a: Args) => unknown> {
  return {
    list_agents: () => agents,
    get_agent: (a) => agents.find((x) => x.id === a.id),
    create_agent: (a) => {
      const spec = a.spec as AgentSpec;
      if (agents.some((x) => x.id === spec.id))
        throw { kind: "conflict", message: `an agent ${spec.id} exists already (edit it, or choose another id)` };
      const made = agent(spec);
      agents = [...agents, made];
      return made;
    },
    update_agent: (a) => {
      const made = agent(a.spec as AgentSpec);
      agents = agents.map((x) => (x.id === made.id ? made : x));
      return made;
    },
    delete_agent: (a) => {
      if (a.id === "assistant")
        throw {
          kind: "conflict",
          message:
            "the Assistant answers in every chat that has no other agent: edit it (its tools, model, prompt), it cannot be deleted",
        };
      agents = agents.filter((x) => x.id !== a.id);
      return null;
    },
    preview_agent_tools: (a) => resolve(a.spec as AgentSpec, tools),
    tool_policy: (a) => ({
      tool_id: String(a.toolId),
      policy: policies.get(String(a.toolId)) ?? "default",
      requires_confirmation: false,
      asks: false,
    }),
    set_tool_policy: (a) => {
      const p = a.policy as Policy;
      if (p === "default") policies.delete(String(a.toolId));
      else policies.set(String(a.toolId), p);
      return { tool_id: String(a.toolId), policy: p, requires_confirmation: false, asks: p === "ask" };
    },
    update_provider: (a) => {
      const changes = a.changes as Pick<ProviderRecord, "base_url" | "default_model" | "headers">;
      const next = providers().map((p) => (p.id === a.providerId ? { ...p, ...changes, updated_at: now() } : p));
      setProviders(next);
      return next.find((p) => p.id === a.providerId);
    },
  };
}
