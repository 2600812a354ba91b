// Beside the composer: the model (provider · model) and the agent a chat
// talks to. A model chosen here goes with the next message, which makes it
// the chat's choice (the core records it); until then it is kept per chat
// in this window.

import { useSyncExternalStore } from "react";
import type { Chat } from "../bindings";
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

/** The model a chat talks to next: chosen here, else the chat's, else null (its agent's or the only provider's default). */
export function useChoice(chat: Chat | null, info: ProviderInfo): Choice | null {
  // Before the first message there is no chat yet: its choice waits under "".
  const picked = useSyncExternalStore(subscribe, () => chosen.get(chat?.id ?? ""));
  if (picked !== undefined) return picked;
  if (chat?.provider_id != null && chat.model !== null) return { providerId: chat.provider_id, model: chat.model };
  // The core falls back on a provider's default model; without one, the
  // first model a provider offers is the sensible start.
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
  disabled,
}: {
  chat: Chat | null;
  info: ProviderInfo;
  choice: Choice | null;
  disabled: boolean;
}) {
  const { providers, presets, models } = info;
  if (providers.length === 0) return null;
  const value = choice === null ? "" : key(choice);
  const fallback = providers.find((p) => p.default_model !== null);
  const listed = new Set(providers.flatMap((p) => (models[p.id] ?? []).map((m) => `${p.id}/${m}`)));
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
      {choice === null && (
        <option value="">
          {fallback !== undefined ? `Default · ${fallback.id} · ${fallback.default_model}` : "Choose a model"}
        </option>
      )}
      {choice !== null && !listed.has(value) && (
        <option value={value}>
          {choice.providerId} · {choice.model}
        </option>
      )}
      {providers.map((p) => (
        <optgroup key={p.id} label={providerTitle(p, presets, p.id)}>
          {(models[p.id] ?? []).map((m) => (
            <option key={m} value={`${p.id}/${m}`}>
              {p.id} · {m}
            </option>
          ))}
        </optgroup>
      ))}
    </select>
  );
}

/** The chat's agent. Agents cannot be listed from here yet: the chat's is shown as it is. */
export function AgentSwitcher({ chat, agentId }: { chat: Chat | null; agentId: string | null }) {
  const id = agentId ?? chat?.agent_id ?? "assistant";
  return (
    <select
      className="input input-small composer-select"
      aria-label="Agent"
      title="The agent that answers in this chat (agents are edited in Settings)"
      value={id}
      disabled
      onChange={() => undefined}
    >
      <option value={id}>{id}</option>
    </select>
  );
}
