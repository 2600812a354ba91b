import type { ConfigField } from "../../bindings";
import { ErrorBox } from "../../components/feedback";
import { keysNamedBy, type Draft, type FieldDraft } from "./draft";
import { SettingField } from "./SettingField";

/**
 * A toolset's settings as a form, generated from their definitions. The
 * core's refusal is shown above the fields, and the fields it names (and
 * the `missing` required ones) are marked.
 */
export function SettingsFields({
  fields,
  draft,
  onChange,
  edit,
  missing,
  error,
  errorTitle,
  onDismissError,
}: {
  fields: ConfigField[];
  draft: Draft;
  onChange: (draft: Draft) => void;
  edit: boolean;
  /** Required settings to mark as without a value. */
  missing: string[];
  error: unknown;
  errorTitle: string;
  onDismissError?: () => void;
}) {
  const named = keysNamedBy(error, fields);
  const set = (key: string, d: FieldDraft) => onChange({ ...draft, [key]: d });
  return (
    <div className="settings-fields">
      {error !== null && <ErrorBox error={error} title={errorTitle} onDismiss={onDismissError} />}
      {fields.map((f) => {
        const d = draft[f.key];
        if (d === undefined) return null;
        return (
          <SettingField
            key={f.key}
            field={f}
            draft={d}
            edit={edit}
            state={{ invalid: named.includes(f.key), missing: missing.includes(f.key) }}
            onChange={(next) => set(f.key, next)}
          />
        );
      })}
      {fields.some((f) => f.required === true) && (
        <p className="muted small">
          <span className="required">*</span> required
        </p>
      )}
    </div>
  );
}
