// The conversation's parts in the chat tab: the hook that ties the chat to
// its providers and runs, the dock at the bottom (a tool's form when one is
// chosen, then the composer with the model and agent switchers and the
// context meter), the empty chat's words, and the setup of a first model.

import { useCallback, useEffect, useMemo, useState, type ReactNode } from "react";
import { api } from "../api";
import type { MessageNode, TokenUsage } from "../bindings";
import { useRuns } from "../calls/runs";
import type { Chats } from "../chats/useChats";
import { EmptyState } from "../components/feedback";
import { Composer } from "./Composer";
import { ContextMeter } from "./ContextMeter";
import { ModelSettingsButton, ModelSettingsPanel } from "./ModelSettingsPanel";
import { useRunField } from "./runStore";
import { SetupModel } from "./SetupModel";
import { AgentSwitcher, ModelSwitcher, useAgentChoice, useChoice } from "./Switchers";
import { useChatRuns } from "./useChatRuns";
import { useProviders } from "./useProviders";
import { reportFirstPaint } from "../lib/firstPaint";
import { useLoad } from "../lib/useLoad";

function sum(usages: TokenUsage[]): TokenUsage | null {
  if (usages.length === 0) return null;
  return usages.reduce((a, u) => ({
    input_tokens: a.input_tokens + u.input_tokens,
    output_tokens: a.output_tokens + u.output_tokens,
  }));
}

export function useChatPane({
  chats,
  active,
  onOpenSettings,
  onRunEnd,
  branch,
  openPicker,
}: {
  chats: Chats;
  active: boolean;
  onOpenSettings: (providerId?: string | null) => void;
  onRunEnd: () => void;
  /** The active branch's messages, root first. */
  branch: MessageNode[];
  openPicker: () => void;
}) {
  const chatId = chats.selectedId;
  const [added, setAdded] = useState(0);
  // Read again whenever the tab is shown (Settings may have added one), not
  // when it is hidden.
  const [shown, setShown] = useState({ active, times: active ? 1 : 0 });
  if (shown.active !== active) setShown({ active, times: shown.times + (active ? 1 : 0) });
  const info = useProviders(`${added}-${shown.times}`);
  // The Model options panel: open for one chat (another chat opens with it
  // closed); `asked` counts the openings from elsewhere (a run error's fix),
  // each of which puts the focus in it, open already or not.
  const [options, setOptions] = useState<{ chatId: string | null; asked: number }>({ chatId: null, asked: 0 });
  const openOptions = useCallback((id: string) => setOptions((o) => ({ chatId: id, asked: o.asked + 1 })), []);
  const setOptionsFor = useCallback(
    (to: string | null | ((open: string | null) => string | null)) =>
      setOptions((o) => ({ ...o, chatId: typeof to === "function" ? to(o.chatId) : to })),
    [],
  );
  const runs = useChatRuns({ chats, info, onOpenSettings, onOpenOptions: openOptions, onRunEnd });
  const agentId = useAgentChoice(runs.chat);
  // Null: they cannot be listed (the chat's agent is shown as it is).
  const [agents] = useLoad(() => api.listAgents(), `agents-${shown.times}`);
  // Undefined until the agents are read (or when they cannot be): the
  // switcher makes no guess that might stand in for the agent's model.
  const agentModel = agents.data === null ? undefined : (agents.data.find((a) => a.id === agentId)?.model ?? null);
  const choice = useChoice(runs.chat, info, agentModel);
  // Retry and Edit answer with what the switchers say now, as Send does.
  const { remember } = runs;
  useEffect(() => remember(choice, agentId), [remember, choice, agentId]);
  const records = useRunField(chatId, (r) => r?.records ?? null);
  const handRun = useRuns().live.some((l) => l.chatId === chatId);
  const runWindow = useRunField(chatId, (r) => r?.contextWindow ?? null);
  const runSaved = useRunField(chatId, (r) => (r?.phase === "done" ? r.saved : null));

  const meter = useMemo(() => {
    const last = [...branch].reverse().find((n) => n.role === "assistant" && n.meta?.usage != null);
    const usage = last?.meta?.usage ?? null;
    const used = usage === null ? null : usage.input_tokens + usage.output_tokens;
    const ofRun =
      runSaved === null ? null : sum(runSaved.flatMap((m) => (m.meta?.usage != null ? [m.meta.usage] : [])));
    return { used, lastRun: ofRun ?? usage };
  }, [branch, runSaved]);
  const contextWindow = runWindow ?? runs.chat?.model_settings.context_window ?? null;
  const noProvider = info.load.state === "ok" && info.providers.length === 0;
  const empty = !branch.some((n) => n.role !== "system");
  // The app opens on this tab: its first screen is drawn once the
  // providers are known (the set-up card or the composer's model).
  const shownReady = active && info.load.state !== "loading";
  useEffect(() => {
    if (shownReady) reportFirstPaint();
  }, [shownReady]);

  return {
    chatId,
    chats,
    active,
    info,
    runs,
    choice,
    records,
    handRun,
    meter,
    contextWindow,
    agentId,
    agents: agents.state === "error" ? null : agents.data,
    empty,
    openPicker,
    options,
    setOptionsFor,
    setup: noProvider ? <SetupModel presets={info.presets} onAdded={() => setAdded((n) => n + 1)} /> : null,
  };
}

export type ChatPaneState = ReturnType<typeof useChatPane>;

/** What an empty chat says. */
export function ChatEmpty({ pane }: { pane: ChatPaneState }) {
  const model = pane.choice?.model ?? pane.info.providers.find((p) => p.default_model !== null)?.default_model;
  if (pane.setup !== null)
    return (
      <EmptyState title="No messages yet">Set up a model below to chat, or type / to run a tool by hand.</EmptyState>
    );
  return (
    <EmptyState title="Start the conversation">
      Send a message{model != null ? ` to ${model}` : ""} below, or type / to run a tool by hand. Drop files to add them
      to the workspace.
    </EmptyState>
  );
}

/** The bottom of the chat: a tool's form when one is chosen, the chat's model settings when open, then the composer. */
export function ChatDock({ pane, children }: { pane: ChatPaneState; children?: ReactNode }) {
  const { runs, info, choice, chats } = pane;
  const setSettingsFor = pane.setOptionsFor;
  const settingsOpen = runs.chat !== null && pane.options.chatId === runs.chat.id;
  const agent = pane.agents?.find((a) => a.id === pane.agentId);
  return (
    <div className="chat-dock">
      {children}
      {settingsOpen && runs.chat !== null && (
        <ModelSettingsPanel
          key={runs.chat.id}
          chat={runs.chat}
          inherited={agent?.model_settings ?? {}}
          asked={pane.options.asked}
          onClose={() => setSettingsFor(null)}
          onSaved={(saved) => {
            chats.reload();
            // A save that ends after the person went to another chat
            // closes nothing there.
            setSettingsFor((open) => (open === saved.id ? null : open));
          }}
        />
      )}
      <Composer
        running={runs.running}
        stopping={runs.stopping}
        canSend={!pane.handRun}
        active={pane.active}
        onSend={(text, images) => runs.send(text, images, choice, pane.agentId)}
        onStop={runs.stop}
        onSlash={pane.openPicker}
        ensureChat={chats.ensure}
        onUploaded={(id, names) => {
          chats.moved();
          chats.nameAfter(id, names.length === 1 ? `Upload: ${names[0]}` : `Upload: ${names.length} items`);
        }}
        switchers={
          <>
            <ModelSwitcher
              chat={runs.chat}
              info={info}
              choice={choice}
              agentModel={pane.agents?.find((a) => a.id === pane.agentId)?.model ?? null}
              disabled={runs.running}
            />
            <AgentSwitcher chat={runs.chat} agents={pane.agents} value={pane.agentId} disabled={runs.running} />
            <ModelSettingsButton
              chat={runs.chat}
              open={settingsOpen}
              disabled={runs.running}
              onToggle={() => setSettingsFor(settingsOpen ? null : (runs.chat?.id ?? null))}
            />
            <ContextMeter used={pane.meter.used} window={pane.contextWindow} lastRun={pane.meter.lastRun} />
          </>
        }
      />
    </div>
  );
}
