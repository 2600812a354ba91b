// A chat's deletion with an undo: the chat leaves the list at once, and is
// deleted for good (`delete_chat`) only when UNDO_MS have passed without
// Undo. Only one waits at a time: deleting another chat deletes the one
// waiting at once, so Undo always names the chat it brings back.
//
// A deletion waiting when the window goes is done all the same. `pagehide`
// sends it (a reload fires it; a closed Tauri window may not, and an invoke
// sent while the page goes may not arrive), so each waiting deletion is
// also noted in localStorage until it is done or undone, and a note found
// at the next start is done then (its chat never shows again meanwhile).

import { useCallback, useEffect, useRef, useState } from "react";
import { api, isIpcError } from "../api";
import type { Chat } from "../bindings";

/** How long a deleted chat can be brought back. */
export const UNDO_MS = 8000;

/** Where the deletions not yet done are noted (ids of chats, this computer). */
export const DELETING_KEY = "atelier.deletingChats";

function noted(): string[] {
  try {
    const ids: unknown = JSON.parse(localStorage.getItem(DELETING_KEY) ?? "[]");
    return Array.isArray(ids) ? ids.filter((id): id is string => typeof id === "string") : [];
  } catch {
    return [];
  }
}

function setNoted(ids: string[]) {
  try {
    if (ids.length === 0) localStorage.removeItem(DELETING_KEY);
    else localStorage.setItem(DELETING_KEY, JSON.stringify(ids));
  } catch {
    // No storage: only the pagehide flush is left.
  }
}

export type Deletion = {
  /** The chat deleted last, while Undo can still bring it back. */
  pending: Chat | null;
  /** Brings the pending chat back where it was (selected, if it was). */
  undo: () => void;
  /** The last deletion that failed: its chat is back in the list. */
  failed: { chat: Chat; error: unknown } | null;
  dismiss: () => void;
};

type Pending = { chat: Chat; selected: boolean; timer: ReturnType<typeof setTimeout> };

const without = (ids: ReadonlySet<string>, id: string) => new Set([...ids].filter((i) => i !== id));

/**
 * The list's deletions. `chats`: every chat the list read (hidden ones
 * too); `drop` takes a deleted chat out of it; `select` picks a chat.
 */
export function useDeletion({
  chats,
  loaded,
  drop,
  select,
}: {
  chats: Chat[];
  loaded: boolean;
  drop: (id: string) => void;
  select: (id: string) => void;
}): {
  /** Chats the list does not show: waiting for their deletion, or under way. */
  hidden: ReadonlySet<string>;
  remove: (chat: Chat, selected: boolean) => void;
  deletion: Deletion;
} {
  // The notes an earlier window left, as they were when this one started.
  const [left] = useState(noted);
  const [hidden, setHidden] = useState<ReadonlySet<string>>(() => new Set(left));
  const [pending, setPending] = useState<Chat | null>(null);
  const [failed, setFailed] = useState<Deletion["failed"]>(null);
  const waiting = useRef<Pending | null>(null);

  // The chat shows again (deleted, undone or failed), and its note goes.
  const settle = useCallback((id: string) => {
    setNoted(noted().filter((i) => i !== id));
    setHidden((h) => without(h, id));
  }, []);

  const finish = useCallback(
    (chat: Chat) => {
      api.deleteChat(chat.id).then(
        () => {
          drop(chat.id);
          settle(chat.id);
        },
        (error: unknown) => {
          if (isIpcError(error) && error.kind === "chat_not_found") drop(chat.id);
          else setFailed({ chat, error });
          settle(chat.id);
        },
      );
    },
    [drop, settle],
  );

  /** The waiting deletion, now. */
  const commit = useCallback(() => {
    const p = waiting.current;
    if (p === null) return;
    clearTimeout(p.timer);
    waiting.current = null;
    setPending(null);
    finish(p.chat);
  }, [finish]);

  const remove = useCallback(
    (chat: Chat, selected: boolean) => {
      if (waiting.current?.chat.id === chat.id) return;
      commit();
      setFailed(null);
      setNoted([...noted().filter((i) => i !== chat.id), chat.id]);
      setHidden((h) => new Set([...h, chat.id]));
      waiting.current = { chat, selected, timer: setTimeout(commit, UNDO_MS) };
      setPending(chat);
    },
    [commit],
  );

  const undo = useCallback(() => {
    const p = waiting.current;
    if (p === null) return;
    clearTimeout(p.timer);
    waiting.current = null;
    setPending(null);
    settle(p.chat.id);
    if (p.selected) select(p.chat.id);
  }, [settle, select]);

  // The window goes (closed, reloaded): the waiting deletion is sent now,
  // without waiting for its answer (the page is gone by then).
  useEffect(() => {
    window.addEventListener("pagehide", commit);
    return () => window.removeEventListener("pagehide", commit);
  }, [commit]);
  // Unmounted with one waiting: its note has it done at the next mount.
  useEffect(
    () => () => {
      if (waiting.current !== null) clearTimeout(waiting.current.timer);
      waiting.current = null;
    },
    [],
  );

  // The notes an earlier window left: done once the list is read (a chat
  // no longer there was deleted already).
  const recovered = useRef(false);
  useEffect(() => {
    if (!loaded || recovered.current) return;
    recovered.current = true;
    for (const id of left) {
      const chat = chats.find((c) => c.id === id);
      if (chat !== undefined) finish(chat);
      else setNoted(noted().filter((i) => i !== id)); // hidden still: it is nowhere to show
    }
  }, [loaded, left, chats, finish]);

  const dismiss = useCallback(() => setFailed(null), []);
  return { hidden, remove, deletion: { pending, undo, failed, dismiss } };
}
