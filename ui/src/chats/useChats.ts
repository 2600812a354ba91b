import { useCallback, useMemo, useState } from "react";
import { api } from "../api";
import type { Chat } from "../bindings";
import { useLoad, type Load } from "../lib/useLoad";

export type Chats = {
  load: Load<Chat[]>;
  reload: () => void;
  selectedId: string | null;
  select: (id: string) => void;
  /** Creates a chat and selects it. */
  create: () => Promise<Chat>;
  creating: boolean;
  createError: unknown;
  /** The selected chat's id, creating a chat first when there is none. */
  ensure: () => Promise<string>;
  rename: (id: string, title: string) => Promise<Chat>;
  remove: (id: string) => Promise<void>;
  /**
   * Bumped whenever the selected chat's tree or workspace moved (a run, a
   * branch switch, an edit, an upload): views that show either read again.
   */
  revision: number;
  /**
   * Says the selected chat's tree or workspace moved; with the manifest it
   * is at now, when the caller knows it (a switch), views read that one
   * directly.
   */
  moved: (activeManifestId?: string) => void;
  /** The selected chat's active manifest as the last `moved` said, if it did. */
  activeManifest: { chatId: string; manifestId: string } | null;
};

function newTitle(existing: number): string {
  return existing === 0 ? "New chat" : `New chat ${existing + 1}`;
}

export function useChats(): Chats {
  const [load, reload, setChats] = useLoad(() => api.listChats(), "chats");
  const [picked, setPicked] = useState<string | null>(null);
  const [creating, setCreating] = useState(false);
  const [createError, setCreateError] = useState<unknown>(null);
  const [revision, setRevision] = useState(0);
  const [activeManifest, setActiveManifest] = useState<Chats["activeManifest"]>(null);
  const list = useMemo(() => load.data ?? [], [load.data]);
  // The picked chat if it still exists, else the most recently updated one.
  const selectedId =
    list.find((c) => c.id === picked)?.id ??
    [...list].sort((a, b) => b.updated_at.localeCompare(a.updated_at))[0]?.id ??
    null;

  // A new function only when the selection changes: a move reported late,
  // after another chat was picked, is recorded for the chat it happened in.
  const moved = useCallback(
    (activeManifestId?: string) => {
      setActiveManifest(
        activeManifestId !== undefined && selectedId !== null
          ? { chatId: selectedId, manifestId: activeManifestId }
          : null,
      );
      setRevision((r) => r + 1);
    },
    [selectedId],
  );

  const create = useCallback(async () => {
    setCreating(true);
    setCreateError(null);
    try {
      const chat = await api.createChat(newTitle(list.length));
      setChats([...list.filter((c) => c.id !== chat.id), chat]);
      setPicked(chat.id);
      return chat;
    } catch (e) {
      setCreateError(e);
      throw e;
    } finally {
      setCreating(false);
    }
  }, [list, setChats]);

  const ensure = useCallback(async () => {
    if (selectedId !== null) return selectedId;
    return (await create()).id;
  }, [selectedId, create]);

  const rename = useCallback(
    async (id: string, title: string) => {
      const chat = await api.renameChat(id, title);
      setChats(list.map((c) => (c.id === id ? chat : c)));
      return chat;
    },
    [list, setChats],
  );

  const remove = useCallback(
    async (id: string) => {
      await api.deleteChat(id);
      setChats(list.filter((c) => c.id !== id));
      if (picked === id) setPicked(null);
    },
    [list, setChats, picked],
  );

  return {
    load,
    reload,
    selectedId,
    select: setPicked,
    create,
    creating,
    createError,
    ensure,
    rename,
    remove,
    revision,
    moved,
    activeManifest: activeManifest?.chatId === selectedId ? activeManifest : null,
  };
}
