import { ErrorBox } from "../components/feedback";
import type { Chats } from "./useChats";

export function ChatSelector({ chats }: { chats: Chats }) {
  const { load } = chats;
  const list = load.data ?? [];
  const newChat = () => {
    chats.create().catch(() => undefined); // shown below through createError
  };

  return (
    <section className="chat-selector" aria-label="Chat">
      <div className="sidebar-heading">
        <span>Chat</span>
        <button type="button" className="btn btn-small" onClick={newChat} disabled={chats.creating}>
          {chats.creating ? "Creating…" : "New chat"}
        </button>
      </div>
      {load.state === "loading" && load.data === null && <p className="muted small">Loading chats…</p>}
      {load.state === "error" && <ErrorBox error={load.error} title="Chats could not be loaded." onRetry={chats.reload} />}
      {load.data !== null && list.length === 0 && (
        <p className="muted small">No chat yet. Create one, or just run a tool: a chat is made for it.</p>
      )}
      {list.length > 0 && (
        <select
          className="input"
          aria-label="Current chat"
          value={chats.selectedId ?? ""}
          onChange={(e) => chats.select(e.target.value)}
        >
          {list.map((c) => (
            <option key={c.id} value={c.id}>
              {c.title}
            </option>
          ))}
        </select>
      )}
      {chats.createError !== null && <ErrorBox error={chats.createError} title="The chat was not created." />}
    </section>
  );
}
