// The conversation's actions for the selected chat: send, retry, edit,
// fork and stop, each a core command whose events feed the run store; and
// what a run's end changes elsewhere (the chat list for its new title and
// model, the tree and the workspace after each saved message, the calls).

import { useCallback, useEffect, useMemo, useRef } from "react";
import { api } from "../api";
import type { Chat, ChatEvent, RunChoice, RunOutcome } from "../bindings";
import type { Chats } from "../chats/useChats";
import { ASSISTANT_ID } from "../lib/assistant";
import type { ConversationActions } from "./context";
import type { Choice } from "./Switchers";
import { startRun, stopRun, useRunField, type RunKind } from "./runStore";
import type { ProviderInfo } from "./useProviders";

export type ChatRuns = {
  chat: Chat | null;
  actions: ConversationActions | null;
  running: boolean;
  stopping: boolean;
  /** Whether the core kept the message (false: nothing was sent). */
  send: (text: string, images: string[], choice: Choice | null, agentId: string) => Promise<boolean>;
  /** The switchers' choice now: a retry or an edit is answered by it, as a send is. */
  remember: (choice: Choice | null, agentId: string) => void;
  stop: () => void;
};

export function useChatRuns({
  chats,
  info,
  onOpenSettings,
  onOpenOptions,
  onRunEnd,
}: {
  chats: Chats;
  info: ProviderInfo;
  onOpenSettings: (providerId?: string | null) => void;
  /** Opens the Model options of the chat with this id. */
  onOpenOptions: (chatId: string) => void;
  /** A run ended: its calls are recorded. */
  onRunEnd: (chatId: string) => void;
}): ChatRuns {
  const chatId = chats.selectedId;
  const chat = chats.load.data?.find((c) => c.id === chatId) ?? null;
  const phase = useRunField(chatId, (r) => r?.phase ?? null);
  const saved = useRunField(chatId, (r) => r?.saved.length ?? 0);
  const { moved, reload, ensure, select } = chats;

  // Each saved message moved the tree (and maybe the workspace): views read again.
  const seen = useRef<{ chatId: string | null; saved: number }>({ chatId: null, saved: 0 });
  useEffect(() => {
    const prev = seen.current;
    seen.current = { chatId, saved };
    if (prev.chatId === chatId && saved > prev.saved) moved();
  }, [chatId, saved, moved]);

  const ended = useRef(onRunEnd);
  useEffect(() => {
    ended.current = onRunEnd;
  }, [onRunEnd]);

  const launch = useCallback(
    (
      id: string,
      kind: RunKind,
      go: (on: (e: ChatEvent) => void) => Promise<RunOutcome>,
      pending: { text?: string; images?: string[]; from?: string },
    ) =>
      // The core names a chat after its first exchange (a placeholder
      // title, numbered or not): reading the list again shows it.
      // Whether the core kept it (false: the command failed before saving
      // anything, and the caller gives the person their text back).
      startRun(id, kind, go, pending).then((state) => {
        reload();
        ended.current(id);
        moved();
        return state.saved.length > 0 || state.failure === null;
      }),
    [reload, moved],
  );

  // What the switchers say, for retries and edits (a send is handed its own).
  const selection = useRef<{ choice: Choice | null; agentId: string | null }>({ choice: null, agentId: null });
  const remember = useCallback((choice: Choice | null, agentId: string) => {
    selection.current = { choice, agentId };
  }, []);
  const runChoice = useCallback(
    (id: string, choice: Choice | null, agentId: string | null): RunChoice => ({
      // Sent only when it changes the chat's (it becomes the chat's).
      agent_id:
        agentId === null || agentId === (chats.load.data?.find((c) => c.id === id)?.agent_id ?? ASSISTANT_ID)
          ? null
          : agentId,
      provider_id: choice?.providerId ?? null,
      model: choice?.model ?? null,
    }),
    [chats.load.data],
  );

  const send = useCallback(
    (text: string, images: string[], choice: Choice | null, agentId: string) =>
      ensure().then(
        (id) =>
          launch(
            id,
            "send",
            (on) => api.sendMessage(id, text, { parent_id: null, ...runChoice(id, choice, agentId), images }, on),
            { text, images },
          ),
        // No chat to send in (the sidebar says why): nothing was sent.
        () => false,
      ),
    [ensure, launch, runChoice],
  );

  const actions = useMemo<ConversationActions | null>(
    () =>
      chatId === null
        ? null
        : {
            chatId,
            retry: (messageId) =>
              launch(
                chatId,
                "retry",
                (on) => {
                  const { choice, agentId } = selection.current;
                  return api.retryMessage(chatId, messageId, runChoice(chatId, choice, agentId), on);
                },
                { from: messageId },
              ),
            edit: (messageId, text) =>
              launch(
                chatId,
                "edit",
                (on) => {
                  const { choice, agentId } = selection.current;
                  return api.editMessage(chatId, messageId, text, runChoice(chatId, choice, agentId), on);
                },
                { text, from: messageId },
              ),
            fork: async (messageId) => {
              const forked = await api.forkChat(chatId, messageId);
              select(forked.id);
              reload();
            },
            openSettings: onOpenSettings,
            openOptions: () => onOpenOptions(chatId),
            providers: info.providers,
            presets: info.presets,
          },
    [chatId, launch, runChoice, select, reload, onOpenSettings, onOpenOptions, info.providers, info.presets],
  );

  const stop = useCallback(() => {
    if (chatId !== null) void stopRun(chatId);
  }, [chatId]);

  return {
    chat,
    actions,
    running: phase === "running" || phase === "stopping",
    stopping: phase === "stopping",
    send,
    remember,
    stop,
  };
}
