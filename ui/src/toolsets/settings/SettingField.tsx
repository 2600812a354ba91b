import { useId, useState } from "react";
import type { ConfigField } from "../../bindings";
import type { FieldDraft, FieldState } from "./draft";
import { PathField, PathListField } from "./PathField";
import { SecretInput, secretInputShown } from "./SecretInput";

function FieldLabel({ id, field, as = "label" }: { id: string; field: ConfigField; as?: "label" | "legend" | "span" }) {
  const text = (
    <>
      {field.title}
      {field.required === true && (
        <span className="required" title="Required">
          {" *"}
        </span>
      )}
    </>
  );
  if (as === "span")
    return (
      <span className="field-label" id={`${id}-label`}>
        {text}
      </span>
    );
  return as === "legend" ? (
    <legend className="field-label">{text}</legend>
  ) : (
    <label className="field-label" htmlFor={id}>
      {text}
    </label>
  );
}

/** A number's bounds in words ("From 1 to 14."), or "". */
function rangeText(f: ConfigField): string {
  if (f.type !== "number") return "";
  const lo = f.min ?? null;
  const hi = f.max ?? null;
  if (lo !== null && hi !== null) return `From ${lo} to ${hi}.`;
  if (lo !== null) return `At least ${lo}.`;
  if (hi !== null) return `At most ${hi}.`;
  return "";
}

/** One setting of a toolset, by its type. `edit`: the settings of an installed toolset (else an install). */
export function SettingField({
  field,
  draft,
  edit,
  state,
  onChange,
}: {
  field: ConfigField;
  draft: FieldDraft;
  edit: boolean;
  state: FieldState;
  onChange: (d: FieldDraft) => void;
}) {
  const id = useId();
  const [replacing, setReplacing] = useState(false);
  const helpId = `${id}-help`;
  const noteId = `${id}-note`;
  const described = [field.description || rangeText(field) ? helpId : null, state.missing ? noteId : null]
    .filter(Boolean)
    .join(" ");
  const describedBy = described === "" ? undefined : described;
  const flagged = state.invalid || state.missing;
  const className = `field setting-field${flagged ? " field-flagged" : ""}`;
  const range = rangeText(field);
  const helpText = [field.description ?? "", range].filter((t) => t !== "").join(" ");
  const help =
    helpText !== "" ? (
      <p className="field-help" id={helpId}>
        {helpText}
      </p>
    ) : null;
  const note = state.missing ? (
    <p className="field-error" id={noteId}>
      Required: give it a value.
    </p>
  ) : null;
  const directory = field.type === "directory";

  if (draft.kind === "flag") {
    return (
      <div className={`${className} field-checkbox`} data-key={field.key}>
        <input
          id={id}
          type="checkbox"
          checked={draft.on}
          aria-invalid={flagged}
          aria-describedby={describedBy}
          onChange={(e) => onChange({ kind: "flag", on: e.target.checked })}
        />
        <FieldLabel id={id} field={field} />
        {help}
        {note}
      </div>
    );
  }
  if (draft.kind === "paths") {
    return (
      <fieldset className={`${className} field-array`} data-key={field.key} aria-describedby={describedBy}>
        <FieldLabel id={id} field={field} as="legend" />
        {help}
        <PathListField
          label={field.title}
          directory={directory}
          paths={draft.paths}
          invalid={flagged}
          onChange={(paths) => onChange({ kind: "paths", paths })}
        />
        {note}
      </fieldset>
    );
  }

  let input;
  if (draft.kind === "secret") {
    input = (
      <SecretInput
        id={id}
        field={field}
        draft={draft}
        edit={edit}
        state={state}
        describedBy={describedBy}
        replacing={replacing}
        setReplacing={setReplacing}
        onChange={onChange}
      />
    );
  } else if (field.type === "directory" || field.type === "file") {
    input = (
      <PathField
        id={id}
        label={field.title}
        directory={directory}
        value={draft.text}
        invalid={flagged}
        required={field.required === true}
        describedBy={describedBy}
        onChange={(text) => onChange({ kind: "text", text })}
      />
    );
  } else {
    const number = field.type === "number";
    input = (
      <input
        id={id}
        className={number ? "input input-number" : "input"}
        type={number ? "number" : "text"}
        step={number ? "any" : undefined}
        min={field.min ?? undefined}
        max={field.max ?? undefined}
        value={draft.text}
        autoComplete="off"
        aria-invalid={flagged}
        aria-required={field.required === true}
        aria-describedby={describedBy}
        onChange={(e) => onChange({ kind: "text", text: e.target.value })}
      />
    );
  }
  // A stored secret without its input: the label names the group of its controls.
  const labelled = draft.kind !== "secret" || secretInputShown(field, draft, edit, replacing);
  return (
    <div
      className={className}
      data-key={field.key}
      role={labelled ? undefined : "group"}
      aria-labelledby={labelled ? undefined : `${id}-label`}
    >
      <FieldLabel id={id} field={field} as={labelled ? "label" : "span"} />
      {help}
      {input}
      {note}
    </div>
  );
}
