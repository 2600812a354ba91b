import type { ConfigField } from "../../bindings";
import { Badge } from "../../components/feedback";
import type { FieldDraft, FieldState } from "./draft";

/** Whether a sensitive setting shows its input: always on an install or when not stored, else once "Replace" is clicked. */
export const secretInputShown = (field: ConfigField, draft: FieldDraft, edit: boolean, replacing: boolean) =>
  draft.kind === "secret" && (!edit || !field.is_set || (replacing && !draft.clear));

/** A sensitive setting: typed without echo; a stored one says "set" and can be replaced or cleared (when editing). */
export function SecretInput({
  id,
  field,
  draft,
  edit,
  state,
  describedBy,
  replacing,
  setReplacing,
  onChange,
}: {
  id: string;
  field: ConfigField;
  draft: Extract<FieldDraft, { kind: "secret" }>;
  edit: boolean;
  state: FieldState;
  describedBy: string | undefined;
  replacing: boolean;
  setReplacing: (on: boolean) => void;
  onChange: (d: FieldDraft) => void;
}) {
  const stored = field.is_set;
  const input = (
    <input
      id={id}
      className="input"
      type="password"
      autoComplete="off"
      value={draft.text}
      placeholder={stored ? "Leave empty to keep the stored value" : undefined}
      aria-invalid={state.invalid || state.missing}
      aria-required={field.required === true}
      aria-describedby={describedBy}
      onChange={(e) => onChange({ ...draft, text: e.target.value })}
    />
  );
  if (!edit || !stored) {
    // Installing: only a value kept from the installed version is worth a word.
    const badge = stored ? "set" : edit ? "not set" : null;
    return (
      <div className="secret-row">
        {input}
        {badge !== null && <Badge tone={stored ? "success" : "neutral"}>{badge}</Badge>}
      </div>
    );
  }
  if (draft.clear) {
    return (
      <div className="secret-row">
        <Badge tone="warning">cleared when you save</Badge>
        <button type="button" className="btn btn-small btn-ghost" onClick={() => onChange({ ...draft, clear: false })}>
          Undo
        </button>
      </div>
    );
  }
  if (replacing) {
    return (
      <div className="secret-row">
        {input}
        <button
          type="button"
          className="btn btn-small btn-ghost"
          aria-label={`Keep the stored ${field.title}`}
          onClick={() => {
            setReplacing(false);
            onChange({ ...draft, text: "" });
          }}
        >
          Cancel
        </button>
      </div>
    );
  }
  return (
    <div className="secret-row">
      <Badge tone="success">set</Badge>
      <button
        type="button"
        className="btn btn-small"
        aria-label={`Replace ${field.title}`}
        onClick={() => setReplacing(true)}
      >
        Replace
      </button>
      {field.required !== true && (
        <button
          type="button"
          className="btn btn-small btn-ghost"
          aria-label={`Clear ${field.title}`}
          onClick={() => onChange({ ...draft, clear: true })}
        >
          Clear
        </button>
      )}
    </div>
  );
}
