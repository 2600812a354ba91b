import { useId, useState, type FormEvent } from "react";
import { api } from "../../api";
import type { McpServerRequest } from "../../bindings";
import { FormActions } from "../../components/FormActions";
import { ErrorBox } from "../../components/feedback";
import { shellWords } from "./shellWords";

type Pair = { key: number; name: string; value: string };

/** What the form found wrong, by field; empty when it may be sent. */
type Problems = Partial<Record<"id" | "command" | "url" | "pairs" | "timeout", string>>;

/** The most seconds a call may wait without news: a day, as the core allows. */
const MAX_TIMEOUT_S = 86_400;

/** The call timeout as typed: seconds, or empty for the app's default. */
function timeoutOf(text: string): { seconds: number | null } | { error: string } {
  const t = text.trim();
  if (t === "") return { seconds: null };
  if (!/^-?(\d+\.?\d*|\.\d+)$/.test(t)) return { error: "Give the call timeout as a number of seconds, like 120." };
  const seconds = Number(t);
  if (seconds <= 0) return { error: "The call timeout must be above 0 seconds." };
  if (seconds > MAX_TIMEOUT_S) return { error: `The call timeout is at most ${MAX_TIMEOUT_S} seconds (a day).` };
  return { seconds };
}

function check(id: string, stdio: boolean, line: string, url: string, pairs: Pair[], timeout: string): Problems {
  const p: Problems = {};
  if (id.trim() === "") p.id = "Give the server a name.";
  if (stdio) {
    const split = shellWords(line);
    if ("error" in split) p.command = `The command line cannot be split: ${split.error}.`;
    else if (split.words.length === 0) p.command = "Say which command starts the server.";
  } else if (url.trim() === "") p.url = "Give the server's URL.";
  const names = pairs.map((r) => r.name.trim());
  const what = stdio ? "variable" : "header";
  if (pairs.some((r) => r.name.trim() === "")) p.pairs = `Every ${what} needs a name.`;
  else if (names.some((n, i) => names.indexOf(n) !== i)) p.pairs = `A ${what} is named twice.`;
  else if (pairs.some((r) => r.value === "")) p.pairs = `Every ${what} needs a value.`;
  const wait = timeoutOf(timeout);
  if ("error" in wait) p.timeout = wait.error;
  return p;
}

/**
 * Adds a server of the person's: a command on this computer (one line,
 * split into words like a shell would) or a streamable-HTTP URL, with
 * environment variables or headers whose values go to the secret store,
 * an optional call timeout, and "Use in Assistant". `onAdded` gets the
 * new id; connecting is the caller's (the server stays even when it
 * cannot connect).
 */
export function McpAddForm({ onAdded, onCancel }: { onAdded: (id: string) => void; onCancel: () => void }) {
  const ids = useId();
  const [id, setId] = useState("");
  const [stdio, setStdio] = useState(true);
  const [line, setLine] = useState("");
  const [url, setUrl] = useState("");
  const [pairs, setPairs] = useState<Pair[]>([]);
  const [nextKey, setNextKey] = useState(1);
  const [waitText, setWaitText] = useState("");
  const [assistant, setAssistant] = useState(true);
  const [shown, setShown] = useState<Problems>({});
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>(null);

  const split = shellWords(line);
  const words = "words" in split ? split.words : [];
  const what = stdio ? "variable" : "header";

  const setPair = (key: number, change: Partial<Pair>) =>
    setPairs((ps) => ps.map((p) => (p.key === key ? { ...p, ...change } : p)));

  const submit = async (e: FormEvent) => {
    e.preventDefault();
    const problems = check(id, stdio, line, url, pairs, waitText);
    setShown(problems);
    if (Object.keys(problems).length > 0) return;
    const values = Object.fromEntries(pairs.map((p) => [p.name.trim(), p.value]));
    const wait = timeoutOf(waitText);
    const request: McpServerRequest = {
      id: id.trim(),
      command: stdio ? (words[0] ?? null) : null,
      args: stdio ? words.slice(1) : [],
      url: stdio ? null : url.trim(),
      env: stdio ? values : {},
      headers: stdio ? {} : values,
      // Absent: the app's default.
      ...("seconds" in wait && wait.seconds !== null ? { timeout_s: wait.seconds } : {}),
    };
    setBusy(true);
    setError(null);
    try {
      const added = await api.addMcpServer(request, assistant);
      onAdded(added.id);
    } catch (err) {
      setError(err);
    } finally {
      setBusy(false);
    }
  };

  const fieldError = (k: keyof Problems) =>
    shown[k] !== undefined && (
      <p className="field-error" id={`${ids}-${k}-error`}>
        {shown[k]}
      </p>
    );

  return (
    <form className="mcp-form" aria-label="Add an MCP server" noValidate onSubmit={(e) => void submit(e)}>
      <div className="mcp-form-field">
        <label htmlFor={`${ids}-id`}>Name</label>
        <p className="field-help">Letters, digits, - and _. Its tools are named after it (name:tool).</p>
        <input
          id={`${ids}-id`}
          className="input"
          value={id}
          spellCheck={false}
          autoComplete="off"
          placeholder="everything"
          aria-invalid={shown.id !== undefined}
          aria-describedby={shown.id !== undefined ? `${ids}-id-error` : undefined}
          onChange={(e) => setId(e.target.value)}
        />
        {fieldError("id")}
      </div>
      <fieldset className="mcp-form-field mcp-transport">
        <legend>It runs as</legend>
        <label>
          <input type="radio" name={`${ids}-transport`} checked={stdio} onChange={() => setStdio(true)} /> a command on
          this computer (stdio)
        </label>
        <label>
          <input type="radio" name={`${ids}-transport`} checked={!stdio} onChange={() => setStdio(false)} /> a server at
          a URL (streamable HTTP)
        </label>
      </fieldset>
      {stdio ? (
        <div className="mcp-form-field">
          <label htmlFor={`${ids}-command`}>Command line</label>
          <p className="field-help">
            One line, split into words as a shell would: quote a word that has spaces (<code>"My Files"</code>). No
            shell runs it.
          </p>
          <input
            id={`${ids}-command`}
            className="input mono"
            value={line}
            spellCheck={false}
            autoComplete="off"
            placeholder="npx -y @modelcontextprotocol/server-everything"
            aria-invalid={shown.command !== undefined}
            aria-describedby={shown.command !== undefined ? `${ids}-command-error` : undefined}
            onChange={(e) => setLine(e.target.value)}
          />
          {fieldError("command")}
          {words.length > 0 && (
            <p className="small muted mcp-split" aria-label="How it will run">
              Runs <code>{words[0]}</code>
              {words.length > 1 ? (
                <>
                  {" "}
                  with {words.length - 1} argument{words.length > 2 ? "s" : ""}:{" "}
                  {words.slice(1).map((w, i) => (
                    <code key={i} className="mcp-arg">
                      {w}
                    </code>
                  ))}
                </>
              ) : (
                " with no arguments"
              )}
            </p>
          )}
        </div>
      ) : (
        <div className="mcp-form-field">
          <label htmlFor={`${ids}-url`}>URL</label>
          <input
            id={`${ids}-url`}
            className="input mono"
            type="url"
            value={url}
            spellCheck={false}
            autoComplete="off"
            placeholder="https://example.com/mcp"
            aria-invalid={shown.url !== undefined}
            aria-describedby={shown.url !== undefined ? `${ids}-url-error` : undefined}
            onChange={(e) => setUrl(e.target.value)}
          />
          {fieldError("url")}
        </div>
      )}
      <fieldset className="mcp-form-field mcp-pairs">
        <legend>{stdio ? "Environment variables" : "Headers"}</legend>
        <p className="field-help">
          Values go to the secret store, never to Atelier’s data folder, and are not shown again.
        </p>
        {pairs.map((p, i) => (
          <div key={p.key} className="mcp-pair">
            <input
              className="input mono"
              aria-label={`Name of ${what} ${i + 1}`}
              placeholder={stdio ? "API_TOKEN" : "Authorization"}
              value={p.name}
              spellCheck={false}
              autoComplete="off"
              onChange={(e) => setPair(p.key, { name: e.target.value })}
            />
            <input
              className="input"
              type="password"
              aria-label={`Value of ${what} ${i + 1}`}
              placeholder="value"
              value={p.value}
              autoComplete="off"
              onChange={(e) => setPair(p.key, { value: e.target.value })}
            />
            <button
              type="button"
              className="btn btn-small btn-ghost"
              aria-label={`Remove ${what} ${i + 1}`}
              onClick={() => setPairs((ps) => ps.filter((x) => x.key !== p.key))}
            >
              Remove
            </button>
          </div>
        ))}
        {fieldError("pairs")}
        <button
          type="button"
          className="btn btn-small"
          onClick={() => {
            setPairs((ps) => [...ps, { key: nextKey, name: "", value: "" }]);
            setNextKey((k) => k + 1);
          }}
        >
          Add {stdio ? "a variable" : "a header"}
        </button>
      </fieldset>
      <div className="mcp-form-field">
        <label htmlFor={`${ids}-timeout`}>Call timeout</label>
        <p className="field-help" id={`${ids}-timeout-help`}>
          Seconds a call of its tools may wait for news before it is stopped; a progress report starts the wait again.
          Empty: 60.
        </p>
        <div className="mcp-timeout">
          <input
            id={`${ids}-timeout`}
            className="input"
            inputMode="decimal"
            value={waitText}
            autoComplete="off"
            placeholder="60"
            aria-invalid={shown.timeout !== undefined}
            aria-describedby={shown.timeout !== undefined ? `${ids}-timeout-error` : `${ids}-timeout-help`}
            onChange={(e) => setWaitText(e.target.value)}
          />
          <span className="muted small">seconds</span>
        </div>
        {fieldError("timeout")}
      </div>
      <label className="mcp-check">
        <input type="checkbox" checked={assistant} onChange={(e) => setAssistant(e.target.checked)} /> Use in Assistant
        <span className="muted small"> (its tools join the Assistant agent’s)</span>
      </label>
      {error !== null && <ErrorBox error={error} title="Not added." onDismiss={() => setError(null)} />}
      <FormActions submit={busy ? "Adding…" : "Add and connect"} busy={busy} onCancel={onCancel} />
    </form>
  );
}
