// The message box at the bottom of the chat: Enter or Ctrl+Enter sends,
// Shift+Enter makes a new line, `/` as the first character opens the tool
// picker (a hand run lands in the same branch). Files dropped on the window
// while the chat is shown: images go with the next message, other files
// to the workspace (an upload node, as in the Workspace tab). A pasted
// image (bytes, no file) is kept as a file by the core and goes with the
// next message like a dropped one. While a run goes on, Send becomes Stop
// (Esc too).

import { useRef, useState, type FormEvent, type KeyboardEvent, type ReactNode } from "react";
import { api, errorText } from "../api";
import { baseName } from "../lib/format";
import { useBundleDrop } from "../toolsets/useBundleDrop";

const IMAGE = /\.(png|jpe?g|gif|webp)$/i;

/** A file's bytes as base64 (what the IPC carries). */
function base64Of(file: Blob): Promise<string> {
  return new Promise((resolve, reject) => {
    const reader = new FileReader();
    reader.onload = () => resolve(String(reader.result).replace(/^data:[^,]*,/, ""));
    reader.onerror = () => reject(reader.error ?? new Error("the pasted image could not be read"));
    reader.readAsDataURL(file);
  });
}

export function Composer({
  running,
  stopping,
  canSend,
  active,
  onSend,
  onStop,
  onSlash,
  ensureChat,
  onUploaded,
  switchers,
}: {
  running: boolean;
  stopping: boolean;
  /** Whether a message can go now (false: the chat is busy with a hand run). */
  canSend: boolean;
  /** The chat is on screen: dropped files are for it. */
  active: boolean;
  /** Whether the core kept the message (false: it comes back into the box). */
  onSend: (text: string, images: string[]) => Promise<boolean>;
  onStop: () => void;
  onSlash: () => void;
  ensureChat: () => Promise<string>;
  onUploaded: (chatId: string, names: string[]) => void;
  switchers: ReactNode;
}) {
  const [text, setText] = useState("");
  const [images, setImages] = useState<string[]>([]);
  const [note, setNote] = useState<{ text: string; error: boolean } | null>(null);
  const box = useRef<HTMLTextAreaElement>(null);

  const dropped = (paths: string[]) => {
    const pics = paths.filter((p) => IMAGE.test(p));
    const files = paths.filter((p) => !IMAGE.test(p));
    if (pics.length > 0) setImages((old) => [...old, ...pics.filter((p) => !old.includes(p))]);
    if (files.length === 0) return;
    const names = files.map(baseName);
    setNote({ text: `Adding ${names.join(", ")} to the workspace…`, error: false });
    ensureChat()
      .then(async (id) => {
        const out = await api.uploadFiles(id, files, "");
        onUploaded(id, names);
        setNote({
          text: out.changed
            ? `Added to the workspace: ${out.added} new, ${out.modified} changed.`
            : "Nothing changed: the workspace already had these files.",
          error: false,
        });
      })
      .catch((e: unknown) => setNote({ text: `Not added: ${errorText(e)}`, error: true }));
  };
  const over = useBundleDrop(active, dropped);

  const empty = text.trim() === "" && images.length === 0;
  const send = () => {
    if (empty || running || !canSend) return;
    const [sentText, sentImages] = [text, images];
    setText("");
    setImages([]);
    setNote(null);
    void onSend(sentText, sentImages).then((kept) => {
      if (kept) return;
      // Nothing reached the chat: the message comes back, unless the
      // person has started another one meanwhile.
      setText((now) => (now === "" ? sentText : now));
      setImages((now) => (now.length === 0 ? sentImages : now));
      setNote({ text: "Not sent: your message is back in the box.", error: true });
    });
  };
  const submit = (e: FormEvent) => {
    e.preventDefault();
    send();
  };
  const onKeyDown = (e: KeyboardEvent<HTMLTextAreaElement>) => {
    if (e.key === "Escape" && running && !stopping) {
      e.preventDefault();
      onStop();
      return;
    }
    if (e.key !== "Enter" || e.nativeEvent.isComposing) return;
    if (e.shiftKey) return; // a new line
    e.preventDefault();
    // Ctrl+Enter also means "run the chosen tool" to the window: here it sends.
    e.stopPropagation();
    send();
  };
  const rows = Math.min(10, Math.max(1, text.split("\n").length));

  return (
    <form className={over ? "composer composer-drop" : "composer"} aria-label="Message composer" onSubmit={submit}>
      {images.length > 0 && (
        <ul className="composer-attachments" aria-label="Images to send">
          {images.map((p) => (
            <li key={p} className="attachment-chip">
              🖼 {baseName(p)}
              <button
                type="button"
                className="btn btn-small btn-ghost"
                aria-label={`Remove ${baseName(p)}`}
                onClick={() => setImages((old) => old.filter((x) => x !== p))}
              >
                ×
              </button>
            </li>
          ))}
        </ul>
      )}
      <textarea
        ref={box}
        className="input composer-input"
        aria-label="Message"
        placeholder={over ? "Drop: images go with the message, other files to the workspace" : "Message — / for tools"}
        rows={rows}
        value={text}
        onChange={(e) => {
          const v = e.target.value;
          if (v === "/" && text === "") {
            // `/` first: the tool picker, with the cursor in its search.
            onSlash();
            return;
          }
          setText(v);
        }}
        onKeyDown={onKeyDown}
        onPaste={(e) => {
          // Text pastes as text; an image alone goes with the message.
          const pics = [...e.clipboardData.files].filter((f) => f.type.startsWith("image/"));
          if (pics.length === 0 || e.clipboardData.getData("text") !== "") return;
          e.preventDefault();
          setNote({ text: "Adding the pasted image…", error: false });
          Promise.all(pics.map(async (f) => api.stagePastedImage(await base64Of(f), f.type)))
            .then((paths) => {
              setImages((old) => [...old, ...paths]);
              setNote(null);
            })
            .catch((err: unknown) =>
              setNote({ text: `The pasted image was not added: ${errorText(err)}`, error: true }),
            );
        }}
      />
      <div className="composer-bar">
        <div className="composer-left">
          {switchers}
          {note !== null && (
            <span
              className={note.error ? "composer-note small run-error-detail" : "composer-note muted small"}
              role="status"
            >
              {note.text}
            </span>
          )}
        </div>
        {/* Send/Stop keeps its place on the right, however the rest wraps. */}
        <div className="composer-send">
          {running ? (
            <button
              type="button"
              className="btn btn-small btn-danger"
              aria-label="Stop"
              title="Stop the answer (what streamed stays)"
              disabled={stopping}
              onClick={onStop}
            >
              {stopping ? "Stopping…" : "Stop"}
            </button>
          ) : (
            <button
              type="submit"
              className="btn btn-small btn-primary"
              disabled={empty || !canSend}
              title={canSend ? "Send (Enter)" : "A call is running in this chat: wait for it to end"}
            >
              Send
            </button>
          )}
        </div>
      </div>
    </form>
  );
}
