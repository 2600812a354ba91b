/**
 * The agent editor's state and its way to and from an `AgentSpec`: what
 * the form shows as text (tool patterns one per line, steps as typed) and
 * what the core takes. Fields the form does not show (filters, policies,
 * depth, model settings) travel unchanged from the agent being edited.
 */
import type { Agent, AgentSpec } from "../../bindings";

export type AgentDraft = {
  id: string;
  name: string;
  description: string;
  systemPrompt: string;
  /** "" : the chat's model (the agent names none). */
  provider: string;
  model: string;
  /** As typed; checked by `stepsOf`. */
  maxSteps: string;
  toolsets: string[];
  /** One pattern per line (commas work too). */
  patterns: string;
};

/** The steps a new agent may take: the core's default. */
const DEFAULT_STEPS = 25;

export function draftOf(agent: Agent | null): AgentDraft {
  return {
    id: agent?.id ?? "",
    name: agent?.name ?? "",
    description: agent?.description ?? "",
    systemPrompt: agent?.system_prompt ?? "",
    provider: agent?.model?.provider ?? "",
    model: agent?.model?.model ?? "",
    maxSteps: String(agent?.max_steps ?? DEFAULT_STEPS),
    toolsets: agent?.toolsets ?? [],
    patterns: (agent?.tools ?? []).join("\n"),
  };
}

/** The patterns of the text box: trimmed, without blanks or repeats, in order. */
export function patternsOf(text: string): string[] {
  const out: string[] = [];
  for (const p of text.split(/[\n,]/)) {
    const t = p.trim();
    if (t !== "" && !out.includes(t)) out.push(t);
  }
  return out;
}

/** The step limit typed, or null when it is not a whole number of at least 1. */
export function stepsOf(text: string): number | null {
  const n = Number(text.trim());
  return Number.isInteger(n) && n >= 1 && n <= 10_000 ? n : null;
}

/** The spec to save: the draft over what the form does not show of `base`. */
export function specOf(draft: AgentDraft, base: Agent | null): AgentSpec {
  const model =
    draft.provider === "" || draft.model.trim() === ""
      ? null
      : {
          provider: draft.provider,
          model: draft.model.trim(),
        };
  return {
    id: draft.id,
    name: draft.name.trim(),
    description: draft.description,
    model,
    model_settings: base?.model_settings ?? {},
    system_prompt: draft.systemPrompt,
    toolsets: draft.toolsets,
    tools: patternsOf(draft.patterns),
    filters: base?.filters ?? [],
    policies: base?.policies ?? [],
    max_depth: base?.max_depth ?? 2,
    max_steps: stepsOf(draft.maxSteps) ?? DEFAULT_STEPS,
  };
}

/** "2 toolsets, 3 patterns" — what an agent is allowed, in a few words. */
export function toolsSummary(agent: Pick<AgentSpec, "toolsets" | "tools">): string {
  const bits = [
    agent.toolsets.length > 0 && `${agent.toolsets.length} ${agent.toolsets.length === 1 ? "toolset" : "toolsets"}`,
    agent.tools.length > 0 && `${agent.tools.length} ${agent.tools.length === 1 ? "tool pattern" : "tool patterns"}`,
  ].filter((b): b is string => typeof b === "string");
  return bits.length === 0 ? "no tools" : bits.join(", ");
}
