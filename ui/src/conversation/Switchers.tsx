// Beside the composer: the model (model · provider) and the agent a chat
// talks to. A model chosen here goes with the next message, which makes it
// the chat's choice (the core records it); until then it is kept per chat
// in this window.

import { useSyncExternalStore } from "react";
import type { Agent, AgentModel, Chat } from "../bindings";
import { ASSISTANT_ID } from "../lib/assistant";
import type { ProviderInfo } from "./useProviders";
import { providerTitle } from "./useProviders";

export type Choice = { providerId: string; model: string };

const chosen = new Map<string, Choice>();
const listeners = new Set<() => void>();

function subscribe(l: () => void) {
  listeners.add(l);
  return () => {
    listeners.delete(l);
  };
}

export function choose(chatId: string, c: Choice) {
  chosen.set(chatId, c);
  for (const l of listeners) l();
}

/**
 * The model a chat talks to next: chosen here, else the chat's, else null
 * (its agent's or the only provider's default). `agentModel`: the chat's
 * agent's own model, `undefined` while the agents are not read yet.
 */
export function useChoice(
  chat: Chat | null,
  info: ProviderInfo,
  agentModel: AgentModel | null | undefined,
): Choice | null {
  // Before the first message there is no chat yet: its choice waits under "".
  const picked = useSyncExternalStore(subscribe, () => chosen.get(chat?.id ?? ""));
  if (picked !== undefined) return picked;
  if (chat?.provider_id != null && chat.model !== null) return { providerId: chat.provider_id, model: chat.model };
  // The core answers with the agent's own model: a guess sent with the
  // message would become the chat's choice instead of it. Nor is one made
  // before the agents are read (a message sent that soon), as the agent
  // may have a model: the core then chooses as the guess would.
  if (agentModel !== null) return null;
  // The core falls back on a provider's default model. Without one (its
  // list did not come when it was added), the first model a provider
  // offers is the one the core would choose at the first message: it lists
  // that one first (`Providers::test`, `choose_model`). Shown and sent as
  // the choice, so the switcher never stands empty.
  if (info.providers.some((p) => p.default_model !== null)) return null;
  for (const p of info.providers) {
    const m = info.models[p.id]?.[0];
    if (m !== undefined) return { providerId: p.id, model: m };
  }
  return null;
}

const key = (c: Choice) => `${c.providerId}/${c.model}`;

export function ModelSwitcher({
  chat,
  info,
  choice,
  agentModel,
  disabled,
}: {
  chat: Chat | null;
  info: ProviderInfo;
  choice: Choice | null;
  /** The chat's agent's own model, used when the chat has none. */
  agentModel: AgentModel | null;
  disabled: boolean;
}) {
  const { providers, presets, models } = info;
  if (providers.length === 0) return null;
  const listed = new Set(providers.flatMap((p) => (models[p.id] ?? []).map((m) => `${p.id}/${m}`)));
  // With no choice the core uses the agent's model, else the only
  // provider's default (of several, it asks for a choice): shown as that
  // model's own entry, marked, when it is listed.
  const only = providers.length === 1 ? providers[0] : undefined;
  const implicit: (Choice & { mark: string }) | null =
    agentModel !== null
      ? { providerId: agentModel.provider, model: agentModel.model, mark: "agent's" }
      : only?.default_model != null
        ? { providerId: only.id, model: only.default_model, mark: "default" }
        : null;
  const implicitListed = implicit !== null && listed.has(key(implicit)) ? implicit : null;
  const value = choice !== null ? key(choice) : implicitListed !== null ? key(implicitListed) : "";
  /** " (agent's)", " (default)": what the entry of model `m` of provider `p` stands for. */
  const markOf = (p: string, m: string) => {
    if (implicit !== null && implicit.providerId === p && implicit.model === m) return ` (${implicit.mark})`;
    const d = providers.find((x) => x.id === p)?.default_model;
    return d === m ? " (default)" : "";
  };
  return (
    <select
      className="input input-small composer-select"
      aria-label="Model"
      title="The model this chat talks to"
      value={value}
      disabled={disabled}
      onChange={(e) => {
        const v = e.target.value;
        const slash = v.indexOf("/");
        if (slash > 0) choose(chat?.id ?? "", { providerId: v.slice(0, slash), model: v.slice(slash + 1) });
      }}
    >
      {choice === null && implicitListed === null && (
        <option value="">
          {implicit !== null ? `${implicit.model} · ${implicit.providerId} (${implicit.mark})` : "Choose a model"}
        </option>
      )}
      {choice !== null && !listed.has(value) && (
        <option value={value}>
          {choice.model} · {choice.providerId}
        </option>
      )}
      {providers.map((p) => (
        <optgroup key={p.id} label={providerTitle(p, presets, p.id)}>
          {(models[p.id] ?? []).map((m) => (
            <option key={m} value={`${p.id}/${m}`}>
              {m} · {p.id}
              {markOf(p.id, m)}
            </option>
          ))}
        </optgroup>
      ))}
    </select>
  );
}

const agentChosen = new Map<string, string>();

/** For tests: nothing chosen in any chat. */
export function forgetChoices() {
  chosen.clear();
  agentChosen.clear();
  for (const l of listeners) l();
}

export function chooseAgent(chatId: string, agentId: string) {
  agentChosen.set(chatId, agentId);
  for (const l of listeners) l();
}

/** The agent a chat talks to next: chosen here, else the chat's, else the Assistant. */
export function useAgentChoice(chat: Chat | null): string {
  const picked = useSyncExternalStore(subscribe, () => agentChosen.get(chat?.id ?? ""));
  return picked ?? chat?.agent_id ?? ASSISTANT_ID;
}

/**
 * The chat's agent, chosen among those defined (Settings → Agents). When
 * they cannot be listed, the chat's own is shown as it is.
 */
export function AgentSwitcher({
  chat,
  agents,
  value,
  disabled,
}: {
  chat: Chat | null;
  agents: Agent[] | null;
  value: string;
  disabled: boolean;
}) {
  const known = agents !== null && agents.some((a) => a.id === value);
  return (
    <select
      className="input input-small composer-select"
      aria-label="Agent"
      title="The agent that answers in this chat: its instructions, tools and model (Settings → Agents)"
      value={value}
      disabled={disabled || agents === null}
      onChange={(e) => chooseAgent(chat?.id ?? "", e.target.value)}
    >
      {!known && <option value={value}>{value}</option>}
      {(agents ?? []).map((a) => (
        <option key={a.id} value={a.id}>
          {a.name === "" ? a.id : a.name}
        </option>
      ))}
    </select>
  );
}
