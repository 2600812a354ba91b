import type { ReactNode } from "react";

/**
 * A form's closing buttons: the submit (its label says what happens, and
 * while `busy` what is happening) and Cancel; both wait while busy.
 */
export function FormActions({
  submit,
  busy,
  disabled = false,
  onCancel,
}: {
  submit: ReactNode;
  busy: boolean;
  /** The submit waits for a fix (a field's problem is shown at the field). */
  disabled?: boolean;
  onCancel: () => void;
}) {
  return (
    <div className="form-actions">
      <button type="submit" className="btn btn-primary" disabled={busy || disabled}>
        {submit}
      </button>
      <button type="button" className="btn btn-ghost" disabled={busy} onClick={onCancel}>
        Cancel
      </button>
    </div>
  );
}
