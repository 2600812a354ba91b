import { useCallback, useEffect, useMemo, useRef, useState } from "react";
import { api } from "../api";
import type { Chat, JsonValue, MessageNode } from "../bindings";
import { isObject } from "../lib/json";
import { useLoad, type Load } from "../lib/useLoad";
import { useDeletion, type Deletion } from "./deletion";

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
  /**
   * Takes a chat out of the list at once; it is deleted for good after
   * `UNDO_MS`, unless `deletion.undo` comes first (another `remove`
   * deletes the one waiting at once).
   */
  remove: (id: string) => void;
  deletion: Deletion;
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
  /**
   * Says the selected chat is moving to this manifest (a checkout under
   * way): the workspace shows its files at once, from the manifest read
   * while the folder moves. The next `moved` ends it, failed or not.
   */
  show: (manifestId: string) => void;
  /** The manifest `show` said, until the next `moved`, in the chat it was said for. */
  showing: { chatId: string; manifestId: string } | null;
  /**
   * A chat's message tree, read once per `revision`: the conversation, the
   * map and the workspace ask together after a move and share one read (a
   * 400-message tree is 300 KB of JSON; three reads of it made a branch
   * switch wait on the IPC three times).
   */
  readTree: (chatId: string) => Promise<MessageNode[]>;
  /**
   * Names a chat after a step just made in it, while it still has the
   * title it was made with ("New chat 3"): its first step names it.
   */
  nameAfter: (chatId: string, title: string) => void;
};

/** "Write File: notes.md" — a step as a chat title (the tool and its first text argument). */
export function stepTitle(what: string, args: JsonValue): string {
  const first = isObject(args) ? Object.values(args).find((v) => typeof v === "string" && v.trim() !== "") : undefined;
  const line = typeof first === "string" ? first.split("\n")[0]!.trim() : "";
  const title = line === "" ? what : `${what}: ${line}`;
  return title.length > 60 ? `${title.slice(0, 59)}…` : title;
}

function newTitle(existing: number): string {
  return existing === 0 ? "New chat" : `New chat ${existing + 1}`;
}

/** A title `newTitle` made, which nobody chose. */
const PLACEHOLDER = /^New chat( \d+)?$/;

export function useChats(): Chats {
  const [load, reload, setChats] = useLoad(() => api.listChats(), "chats");
  const [picked, setPicked] = useState<string | null>(null);
  const [creating, setCreating] = useState(false);
  const [createError, setCreateError] = useState<unknown>(null);
  const [revision, setRevision] = useState(0);
  const [activeManifest, setActiveManifest] = useState<Chats["activeManifest"]>(null);
  const [showing, setShowing] = useState<Chats["showing"]>(null);
  // Every chat read, the ones waiting for their deletion too (`all`), and
  // the ones shown (`list`).
  const all = useMemo(() => load.data ?? [], [load.data]);
  // All of them as they are now: a step a run reports before the chat the
  // run made is even drawn (the first run makes it) still finds the chat.
  const latest = useRef(all);
  useEffect(() => {
    latest.current = all;
  }, [all]);
  const drop = useCallback((id: string) => setChats(latest.current.filter((c) => c.id !== id)), [setChats]);
  const loaded = load.state === "ok";
  const { hidden, deletion, remove: hide } = useDeletion({ chats: all, loaded, drop, select: setPicked });
  const list = useMemo(() => (hidden.size === 0 ? all : all.filter((c) => !hidden.has(c.id))), [all, hidden]);
  const shown = useMemo(
    (): Load<Chat[]> => (load.data === null || list === all ? load : { ...load, data: list }),
    [load, list, all],
  );
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
      setShowing(null);
      setRevision((r) => r + 1);
    },
    [selectedId],
  );
  const show = useCallback(
    (manifestId: string) => setShowing(selectedId === null ? null : { chatId: selectedId, manifestId }),
    [selectedId],
  );

  // Only the last chat's tree is kept: a run in a chat not shown does not
  // bump `revision`, so another chat's tree is always read afresh.
  const tree = useRef<{ chatId: string; revision: number; read: Promise<MessageNode[]> } | null>(null);
  const readTree = useCallback(
    (chatId: string) => {
      const kept = tree.current;
      if (kept !== null && kept.chatId === chatId && kept.revision === revision) return kept.read;
      const read = api.chatTree(chatId);
      const entry = { chatId, revision, read };
      tree.current = entry;
      // A failed read is not kept: Retry reads again.
      read.catch(() => {
        if (tree.current === entry) tree.current = null;
      });
      return read;
    },
    [revision],
  );

  const create = useCallback(async () => {
    setCreating(true);
    setCreateError(null);
    try {
      const chat = await api.createChat(newTitle(all.length));
      latest.current = [...latest.current.filter((c) => c.id !== chat.id), chat];
      setChats([...all.filter((c) => c.id !== chat.id), chat]);
      setPicked(chat.id);
      return chat;
    } catch (e) {
      setCreateError(e);
      throw e;
    } finally {
      setCreating(false);
    }
  }, [all, setChats]);

  const ensure = useCallback(async () => {
    if (selectedId !== null) return selectedId;
    return (await create()).id;
  }, [selectedId, create]);

  const rename = useCallback(
    async (id: string, title: string) => {
      const chat = await api.renameChat(id, title);
      setChats(all.map((c) => (c.id === id ? chat : c)));
      return chat;
    },
    [all, setChats],
  );

  const remove = useCallback(
    (id: string) => {
      const chat = list.find((c) => c.id === id);
      if (chat === undefined) return;
      hide(chat, id === selectedId);
      if (picked === id) setPicked(null);
    },
    [list, hide, selectedId, picked],
  );

  const nameAfter = useCallback(
    (chatId: string, title: string) => {
      const chat = latest.current.find((c) => c.id === chatId);
      if (chat === undefined || !PLACEHOLDER.test(chat.title) || title.trim() === "") return;
      // Only a nicer name: when it fails the chat keeps its old one.
      api.renameChat(chatId, title).then(
        (renamed) => setChats(latest.current.map((c) => (c.id === chatId ? renamed : c))),
        () => undefined,
      );
    },
    [setChats],
  );

  return {
    load: shown,
    reload,
    nameAfter,
    selectedId,
    select: setPicked,
    create,
    creating,
    createError,
    ensure,
    rename,
    remove,
    deletion,
    revision,
    moved,
    readTree,
    activeManifest: activeManifest?.chatId === selectedId ? activeManifest : null,
    show,
    showing: showing?.chatId === selectedId ? showing : null,
  };
}
