import { useLayoutEffect, useRef, useState, type FormEvent } from "react";
import { ErrorBox } from "../components/feedback";
import type { Chats } from "./useChats";

/**
 * The chats: search, choose, create, rename and delete. Delete asks
 * nothing: the chat goes at once and Undo brings it back for a while
 * (`deletion.ts`).
 */
export function ChatSelector({ chats }: { chats: Chats }) {
  const { load } = chats;
  const list = [...(load.data ?? [])].sort((a, b) => b.updated_at.localeCompare(a.updated_at));
  const [query, setQuery] = useState("");
  const [renaming, setRenaming] = useState<string | null>(null);
  const [draft, setDraft] = useState("");
  const [error, setError] = useState<unknown>(null);
  const q = query.trim().toLowerCase();
  const shown = q === "" ? list : list.filter((c) => c.title.toLowerCase().includes(q));
  const listRef = useRef<HTMLUListElement>(null);
  // The list scrolls on its own: keep the selected chat in view when it
  // changes (a new chat, Ctrl+N, a chat picked elsewhere).
  const selectedId = chats.selectedId;
  const count = shown.length;
  useLayoutEffect(() => {
    const box = listRef.current;
    const item = box?.querySelector<HTMLElement>(".chat-item-current");
    if (box == null || item == null) return;
    const top = item.offsetTop; // the list is positioned: relative to it
    if (top < box.scrollTop) box.scrollTop = top;
    else if (top + item.offsetHeight > box.scrollTop + box.clientHeight) {
      box.scrollTop = top + item.offsetHeight - box.clientHeight;
    }
  }, [selectedId, count]);

  // Delete takes its own button away: the focus goes to Undo, and when
  // the offer ends with the focus on it, to the chat selected then.
  const { pending, undo, failed, dismiss } = chats.deletion;
  const section = useRef<HTMLElement>(null);
  const undoButton = useRef<HTMLButtonElement>(null);
  const focusUndo = useRef(false);
  const undoFocused = useRef(false);
  const pendingId = pending?.id ?? null;
  useLayoutEffect(() => {
    if (pendingId !== null && focusUndo.current) undoButton.current?.focus();
    focusUndo.current = false;
    // Removing a focused button may blur it or not: the focus is on the body.
    const lost = document.activeElement === null || document.activeElement === document.body;
    if (pendingId === null && undoFocused.current && lost) {
      undoFocused.current = false;
      const box = section.current;
      const chat = box?.querySelector<HTMLElement>(".chat-item-current .chat-title");
      (chat ?? box?.querySelector<HTMLElement>(".btn"))?.focus(); // no chat left: New chat
    }
  }, [pendingId]);

  const newChat = () => {
    chats.create().catch(() => undefined); // shown below through createError
  };
  const saveTitle = (e: FormEvent, id: string) => {
    e.preventDefault();
    const title = draft.trim();
    if (title === "") return;
    setError(null);
    chats.rename(id, title).then(() => setRenaming(null), setError);
  };

  return (
    <section ref={section} className="chat-selector" aria-label="Chats">
      <div className="sidebar-heading">
        <span>Chats</span>
        <button type="button" className="btn btn-small" onClick={newChat} disabled={chats.creating}>
          {chats.creating ? "Creating…" : "New chat"}
        </button>
      </div>
      {load.state === "loading" && load.data === null && <p className="muted small">Loading chats…</p>}
      {load.state === "error" && (
        <ErrorBox error={load.error} title="Chats could not be loaded." onRetry={chats.reload} />
      )}
      {load.data !== null && list.length === 0 && (
        <p className="muted small">No chat yet. Create one, or just run a tool: a chat is made for it.</p>
      )}
      {list.length > 3 && (
        <input
          className="input input-small"
          type="search"
          aria-label="Search chats"
          placeholder="Search chats"
          value={query}
          onChange={(e) => setQuery(e.target.value)}
        />
      )}
      {list.length > 0 && (
        <ul ref={listRef} className="chat-list" aria-label="Chat list">
          {shown.map((c) => {
            const current = c.id === chats.selectedId;
            return (
              <li key={c.id} className={current ? "chat-item chat-item-current" : "chat-item"}>
                {renaming === c.id ? (
                  <form className="chat-rename" onSubmit={(e) => saveTitle(e, c.id)}>
                    <input
                      className="input input-small"
                      aria-label="Chat title"
                      value={draft}
                      autoFocus
                      onChange={(e) => setDraft(e.target.value)}
                      onKeyDown={(e) => {
                        if (e.key === "Escape") setRenaming(null);
                      }}
                    />
                    <button type="submit" className="btn btn-small" disabled={draft.trim() === ""}>
                      Save
                    </button>
                  </form>
                ) : (
                  <button
                    type="button"
                    className="chat-title"
                    aria-current={current ? "true" : undefined}
                    onClick={() => chats.select(c.id)}
                  >
                    {c.title}
                  </button>
                )}
                {current && renaming !== c.id && (
                  <span className="chat-actions">
                    <button
                      type="button"
                      className="btn btn-small btn-ghost"
                      aria-label={`Rename ${c.title}`}
                      onClick={() => {
                        setDraft(c.title);
                        setRenaming(c.id);
                      }}
                    >
                      Rename
                    </button>
                    <button
                      type="button"
                      className="btn btn-small btn-ghost"
                      aria-label={`Delete ${c.title}`}
                      onClick={() => {
                        focusUndo.current = true;
                        chats.remove(c.id);
                      }}
                    >
                      Delete
                    </button>
                  </span>
                )}
              </li>
            );
          })}
          {shown.length === 0 && <li className="muted small">No chat matches “{query}”.</li>}
        </ul>
      )}
      {chats.createError !== null && <ErrorBox error={chats.createError} title="The chat was not created." />}
      {error !== null && <ErrorBox error={error} title="That did not work." onDismiss={() => setError(null)} />}
      {failed !== null && (
        <ErrorBox error={failed.error} title={`“${failed.chat.title}” was not deleted.`} onDismiss={dismiss} />
      )}
      {/* Always on the page (a polite live region), so what appears in it is said. */}
      <div className="chat-undo" role="status">
        {pending !== null && (
          <div className="chat-undo-strip">
            <span className="chat-undo-text" title={pending.title}>
              Deleted “{pending.title}”
            </span>
            <button
              ref={undoButton}
              type="button"
              className="btn btn-small"
              aria-label={`Undo deleting “${pending.title}”`}
              onFocus={() => (undoFocused.current = true)}
              onBlur={(e) => {
                if (e.relatedTarget !== null) undoFocused.current = false;
              }}
              onClick={undo}
            >
              Undo
            </button>
          </div>
        )}
      </div>
    </section>
  );
}
