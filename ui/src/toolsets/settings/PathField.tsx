import { useState } from "react";
import { api } from "../../api";
import { ErrorBox } from "../../components/feedback";

/** The native open dialog for a folder or a file setting, with its failure shown in place. */
function usePicker(directory: boolean) {
  const [error, setError] = useState<unknown>(null);
  const pick = async (): Promise<string | null> => {
    setError(null);
    try {
      return await api.pickSettingPath(directory);
    } catch (e) {
      setError(e);
      return null;
    }
  };
  const shown =
    error === null ? null : <ErrorBox error={error} title="The file dialog failed." onDismiss={() => setError(null)} />;
  return { pick, shown };
}

/** One folder or file: typed, or chosen in the native dialog. */
export function PathField({
  id,
  label,
  directory,
  value,
  invalid,
  required,
  describedBy,
  onChange,
}: {
  id: string;
  label: string;
  directory: boolean;
  value: string;
  invalid: boolean;
  required: boolean;
  describedBy: string | undefined;
  onChange: (v: string) => void;
}) {
  const { pick, shown } = usePicker(directory);
  return (
    <>
      <div className="path-row">
        <input
          id={id}
          className="input mono"
          type="text"
          value={value}
          spellCheck={false}
          autoComplete="off"
          placeholder={directory ? "/path/to/folder" : "/path/to/file"}
          aria-invalid={invalid}
          aria-required={required}
          aria-describedby={describedBy}
          onChange={(e) => onChange(e.target.value)}
        />
        <button
          type="button"
          className="btn btn-small"
          aria-label={`Choose ${label}`}
          onClick={() => void pick().then((p) => p !== null && onChange(p))}
        >
          Choose…
        </button>
      </div>
      {shown}
    </>
  );
}

/** Several folders or files: each editable and removable; more added by the dialog or typed. */
export function PathListField({
  label,
  directory,
  paths,
  invalid,
  onChange,
}: {
  label: string;
  directory: boolean;
  paths: string[];
  invalid: boolean;
  onChange: (paths: string[]) => void;
}) {
  const { pick, shown } = usePicker(directory);
  const what = directory ? "folder" : "file";
  return (
    <>
      {paths.length === 0 && <p className="muted small">No {what}s yet.</p>}
      {paths.length > 0 && (
        <ol className="path-list" aria-label={label}>
          {paths.map((p, i) => (
            <li key={i} className="path-row">
              <input
                className="input mono"
                type="text"
                value={p}
                spellCheck={false}
                autoComplete="off"
                aria-label={`${label} ${i + 1}`}
                aria-invalid={invalid}
                onChange={(e) => onChange(paths.map((x, j) => (j === i ? e.target.value : x)))}
              />
              <button
                type="button"
                className="btn btn-small btn-ghost"
                aria-label={`Remove ${label} ${i + 1}`}
                onClick={() => onChange(paths.filter((_, j) => j !== i))}
              >
                ✕
              </button>
            </li>
          ))}
        </ol>
      )}
      <div className="path-actions">
        <button
          type="button"
          className="btn btn-small"
          aria-label={`Add a ${what} to ${label}`}
          onClick={() => void pick().then((p) => p !== null && onChange([...paths, p]))}
        >
          Add {what}…
        </button>
        <button
          type="button"
          className="btn btn-small btn-ghost"
          aria-label={`Type a ${what} for ${label}`}
          onClick={() => onChange([...paths, ""])}
        >
          Type a path
        </button>
      </div>
      {shown}
    </>
  );
}
