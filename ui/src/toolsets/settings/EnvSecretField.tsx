import { useId, useState, type FormEvent } from "react";
import type { EnvReference } from "../../bindings";
import { Badge } from "../../components/feedback";
import { servers } from "./EnvReferences";

/**
 * One `${NAME}` an installed toolset's servers read: a password field when
 * nothing is stored; once stored, only "set" with Replace and Remove — "set
 * · from the bundle" for a value its ZIP brought (moved to the secret store
 * at import), which a Replace makes the person's. The typed value is sent
 * once (`onSave`) and dropped from the field once stored (kept after a
 * refusal, to try again): it is never shown again.
 */
export function EnvSecretField({
  reference,
  busy,
  onSave,
  onRemove,
}: {
  reference: EnvReference;
  busy: boolean;
  /** Stores the value; resolves true once stored. */
  onSave: (value: string) => Promise<boolean>;
  onRemove: () => void;
}) {
  const id = useId();
  const [text, setText] = useState("");
  const [replacing, setReplacing] = useState(false);
  const r = reference;

  const save = async (e: FormEvent) => {
    e.preventDefault();
    if (text === "") return;
    // Dropped once stored; kept after a refusal, so it need not be typed again.
    if (await onSave(text)) {
      setText("");
      setReplacing(false);
    }
  };

  const set = <Badge tone="success">{r.origin === "bundle" ? "set · from the bundle" : "set"}</Badge>;
  const name = (
    <>
      <code>${r.name}</code> <span className="muted small">· {servers(r)}</span>
    </>
  );
  if (r.stored && !replacing) {
    return (
      <li className="env-secret">
        <span>{name}</span>
        <div className="secret-row">
          {set}
          <button
            type="button"
            className="btn btn-small"
            disabled={busy}
            aria-label={`Replace ${r.name}`}
            onClick={() => setReplacing(true)}
          >
            Replace
          </button>
          <button
            type="button"
            className="btn btn-small btn-ghost"
            disabled={busy}
            aria-label={`Remove ${r.name}`}
            onClick={onRemove}
          >
            Remove
          </button>
        </div>
      </li>
    );
  }
  return (
    <li className="env-secret">
      <form className="env-secret-form" onSubmit={(e) => void save(e)}>
        <label htmlFor={id}>{name}</label>
        <div className="secret-row">
          <input
            id={id}
            className="input"
            type="password"
            autoComplete="off"
            aria-label={`Value of ${r.name}`}
            value={text}
            placeholder={r.allowed ? "Read from your environment now" : undefined}
            onChange={(e) => setText(e.target.value)}
          />
          {r.stored ? set : <Badge>not set</Badge>}
          <button
            type="submit"
            className="btn btn-small btn-primary"
            aria-label={`Save ${r.name}`}
            disabled={busy || text === ""}
          >
            {busy ? "Saving…" : "Save"}
          </button>
          {replacing && (
            <button
              type="button"
              className="btn btn-small btn-ghost"
              aria-label={`Keep the stored ${r.name}`}
              onClick={() => {
                setReplacing(false);
                setText("");
              }}
            >
              Cancel
            </button>
          )}
        </div>
      </form>
    </li>
  );
}
