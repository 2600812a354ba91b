// One message of the conversation: the person's (Copy, Edit inline) or a
// model's turn (reasoning folded, the answer as markdown, its error with the
// fix, Copy, Retry, Fork to new chat), with `‹ i/n ›` where it has siblings.

import { memo, useState, type ReactNode } from "react";
import type { ContentPart, Message, MessageNode } from "../bindings";
import type { Move, Step } from "../calls/StepItem";
import { api, errorText } from "../api";
import { clampAttrs, ClampToggle, useClamp } from "../components/Clamp";
import { FormActions } from "../components/FormActions";
import { turnOutcome } from "../chats/mapLabels";
import { useLoad } from "../lib/useLoad";
import { CopyButton } from "./CopyButton";
import { useConversation } from "./context";
import { Markdown } from "./Markdown";
import { describeRunError, RunErrorView } from "./RunError";

/** The text parts of a message, as one text. */
export function messageText(content: ContentPart[]): string {
  return content
    .filter((p) => p.type === "text")
    .map((p) => p.text)
    .join("\n\n");
}

/** The readable reasoning; encrypted blocks (kept only to send back to
 * their provider) are named, never shown. */
function reasoningOf(content: ContentPart[]): string {
  const readable = content
    .filter((p) => p.type === "reasoning")
    .map((p) => p.text)
    .filter((t) => t !== "")
    .join("\n\n");
  const hidden = content.some((p) => p.type === "redacted_reasoning");
  if (!hidden) return readable;
  const note = "(Part of this reasoning was encrypted by the provider and is not shown.)";
  return readable === "" ? note : `${readable}\n\n${note}`;
}

/** `1.2k`, `8k`, `128k`, `850`. */
export function formatTokens(n: number): string {
  if (n < 1000) return String(n);
  const k = n / 1000;
  return `${k < 10 ? (Math.round(k * 10) / 10).toString() : Math.round(k)}k`;
}

/** `‹ 2/3 ›` at a branch point. */
export function Siblings({
  index,
  siblings,
  locked,
  lockedTitle,
  move,
}: {
  index: number;
  siblings: string[];
  locked: boolean;
  lockedTitle?: string;
  move: (how: Move, id: string) => Promise<void>;
}) {
  if (siblings.length < 2) return null;
  return (
    <nav className="siblings" aria-label="Branches here">
      <button
        type="button"
        className="btn btn-small btn-ghost"
        aria-label="Previous branch"
        title={lockedTitle}
        disabled={locked || index <= 0}
        onClick={() => void move("switch", siblings[index - 1]!)}
      >
        ‹
      </button>
      <span className="siblings-count small">
        {index + 1}/{siblings.length}
      </span>
      <button
        type="button"
        className="btn btn-small btn-ghost"
        aria-label="Next branch"
        title={lockedTitle}
        disabled={locked || index >= siblings.length - 1}
        onClick={() => void move("switch", siblings[index + 1]!)}
      >
        ›
      </button>
    </nav>
  );
}

function Reasoning({ text, streaming }: { text: string; streaming: boolean }) {
  if (text === "") return null;
  return (
    <div className="reasoning-row">
      <details className="reasoning">
        <summary>Reasoning</summary>
        <div className="reasoning-body">{text}</div>
      </details>
      {streaming && (
        <span className="reasoning-live muted small" role="status">
          thinking…
        </span>
      )}
    </div>
  );
}

/** The person's message: its text and attached images, Copy and Edit. */
/** A person's message as typed, cut at about 12 lines with Show more (sent, or still sending). */
export function UserText({ text }: { text: string }) {
  const [box, clamp] = useClamp();
  return (
    <>
      <div ref={box} {...clampAttrs(clamp, "message-body user-text clamp-message")}>
        {text}
      </div>
      <ClampToggle clamp={clamp} more="Show more" less="Show less" />
    </>
  );
}

function UserBody({ message, locked }: { message: Message; locked: boolean }) {
  const conv = useConversation();
  const text = messageText(message.content);
  const images = message.content.filter((p) => p.type === "image");
  const [editing, setEditing] = useState(false);
  const [draft, setDraft] = useState(text);
  const send = () => {
    if (draft.trim() === "" || conv === null) return;
    setEditing(false);
    // Not sent (the chat was busy, no model): the editor comes back with the text.
    void conv.edit(message.id, draft).then((kept) => {
      if (!kept) setEditing(true);
    });
  };
  if (editing)
    return (
      <div className="message-editor">
        <textarea
          className="input message-edit-input"
          aria-label="Edit message"
          value={draft}
          rows={Math.min(12, Math.max(3, draft.split("\n").length))}
          autoFocus
          onChange={(e) => setDraft(e.target.value)}
          onKeyDown={(e) => {
            if (e.key === "Escape") setEditing(false);
            if (e.key === "Enter" && !e.shiftKey && !e.nativeEvent.isComposing) {
              e.preventDefault();
              e.stopPropagation();
              send();
            }
          }}
        />
        <p className="muted small">The edited message starts a new branch; this one stays a branch away.</p>
        <FormActions
          small
          submit="Send edit"
          busy={false}
          disabled={draft.trim() === ""}
          onCancel={() => setEditing(false)}
          onSubmit={send}
        />
      </div>
    );
  return (
    <>
      <UserText text={text} />
      {images.length > 0 && (
        <ul className="message-images" aria-label="Attached images">
          {images.map((p) => (
            <li key={p.path}>
              <AttachedImage chatId={message.chat_id} path={p.path} manifestId={message.manifest_id} />
            </li>
          ))}
        </ul>
      )}
      <MessageActions>
        <CopyButton text={text} label="Copy message" />
        {conv !== null && (
          <button
            type="button"
            className="btn btn-small btn-ghost"
            aria-label="Edit message"
            disabled={locked}
            onClick={() => {
              setDraft(text);
              setEditing(true);
            }}
          >
            Edit
          </button>
        )}
      </MessageActions>
    </>
  );
}

/** An image sent with a message: the workspace file as it was then, or its name. */
function AttachedImage({ chatId, path, manifestId }: { chatId: string; path: string; manifestId: string }) {
  const [url] = useLoad(() => api.workspaceFileUrl(chatId, path, manifestId), `${chatId}:${manifestId}:${path}`);
  const [broken, setBroken] = useState(false);
  if (url.data === null || broken) return <span className="attachment-chip">🖼 {path}</span>;
  return <img className="message-image" src={url.data} alt={path} title={path} onError={() => setBroken(true)} />;
}

function MessageActions({ children }: { children: ReactNode }) {
  return <div className="message-actions">{children}</div>;
}

/** Whether a turn ended in an error (shown with its fix and its own Retry): as the map says it. */
const failed = (message: Message) => turnOutcome(message) === "failed";

/** What a turn's end says besides its text: stopped, the step limit, an error with its fix. */
function TurnEnd({ message, locked }: { message: Message; locked: boolean }) {
  const conv = useConversation();
  const meta = message.meta;
  if (meta === null) return null;
  if (failed(message)) {
    const provider = conv?.providers.find((p) => p.id === meta.provider_id);
    const d = describeRunError(
      meta.error_kind,
      meta.error ?? "The answer failed.",
      provider,
      conv?.presets ?? [],
      meta.provider_id,
      meta.model,
    );
    return (
      <RunErrorView
        described={d}
        onRetry={conv === null || locked ? undefined : () => conv.retry(message.id)}
        onOpenSettings={conv === null ? undefined : () => conv.openSettings(meta.provider_id)}
        onOpenOptions={conv === null || locked ? undefined : conv.openOptions}
      />
    );
  }
  if (meta.status === "stopped") return <p className="turn-note muted small">Stopped.</p>;
  if (meta.status === "interrupted")
    return <p className="turn-note muted small">Interrupted: the app closed while this answer streamed.</p>;
  if (meta.status === "step_limit")
    return <p className="turn-note muted small">Stopped at the agent's step limit: send a message to go on.</p>;
  return null;
}

function AssistantBody({ message, locked }: { message: Message; locked: boolean }) {
  const conv = useConversation();
  const text = messageText(message.content);
  const usage = message.meta?.usage ?? null;
  const [forkError, setForkError] = useState<unknown>(null);
  const [forking, setForking] = useState(false);
  const calls = message.content.filter((p) => p.type === "model_call").length;
  return (
    <>
      <Reasoning text={reasoningOf(message.content)} streaming={false} />
      {text !== "" && (
        <div className="message-body">
          <Markdown source={text} />
        </div>
      )}
      {text === "" && calls > 0 && (
        <p className="message-body muted small">Calls {calls === 1 ? "a tool" : `${calls} tools`}:</p>
      )}
      <TurnEnd message={message} locked={locked} />
      <MessageActions>
        <CopyButton text={text} label="Copy message" />
        {conv !== null && (
          <>
            {!failed(message) && (
              <button
                type="button"
                className="btn btn-small btn-ghost"
                aria-label="Retry"
                disabled={locked}
                title="Answer again: a new branch beside this one"
                onClick={() => conv.retry(message.id)}
              >
                Retry
              </button>
            )}
            <button
              type="button"
              className="btn btn-small btn-ghost"
              aria-label="Fork to new chat"
              disabled={forking}
              title="A new chat with this conversation up to here"
              onClick={() => {
                setForking(true);
                setForkError(null);
                conv
                  .fork(message.id)
                  .catch(setForkError)
                  .finally(() => setForking(false));
              }}
            >
              {forking ? "Forking…" : "Fork"}
            </button>
          </>
        )}
        {message.meta?.model != null && (
          <span className="message-meta muted small" title={message.meta.provider_id ?? undefined}>
            {message.meta.model}
            {usage !== null && ` · ${formatTokens(usage.input_tokens)} in · ${formatTokens(usage.output_tokens)} out`}
          </span>
        )}
      </MessageActions>
      {forkError !== null && (
        <p className="run-error-detail small" role="alert">
          Not forked: {errorText(forkError)}
        </p>
      )}
    </>
  );
}

/** A saved message, as an article the conversation lists. */
export function MessageArticle({
  message,
  locked,
  top,
}: {
  message: Message;
  locked: boolean;
  /** Shown above the body (the sibling arrows). */
  top?: ReactNode;
}) {
  const user = message.role === "user";
  return (
    <article
      className={`message message-${message.role}`}
      data-role={message.role}
      data-id={message.id}
      aria-label={user ? "Your message" : "Answer"}
    >
      {top}
      {user ? <UserBody message={message} locked={locked} /> : <AssistantBody message={message} locked={locked} />}
    </article>
  );
}

/** A user or assistant step of the active branch. */
export const MessageStep = memo(function MessageStep({
  step,
  locked,
  lockedTitle,
  move,
}: {
  step: Step;
  locked: boolean;
  lockedTitle?: string;
  move: (how: Move, id: string) => Promise<void>;
}) {
  const node: MessageNode = step.node;
  return (
    <MessageArticle
      message={node}
      locked={locked}
      top={
        <Siblings index={step.index} siblings={step.siblings} locked={locked} lockedTitle={lockedTitle} move={move} />
      }
    />
  );
});

/** The answer streaming now. */
export function StreamingArticle({ text, reasoning }: { text: string; reasoning: string }) {
  return (
    <article
      className="message message-assistant message-streaming"
      data-role="assistant"
      aria-busy="true"
      aria-label="Answer"
    >
      <Reasoning text={reasoning} streaming={text === ""} />
      <div className="message-body">
        {text === "" && reasoning === "" ? (
          <span className="typing" aria-label="Waiting for the answer">
            <span />
            <span />
            <span />
          </span>
        ) : (
          <Markdown source={text} streaming />
        )}
      </div>
    </article>
  );
}
