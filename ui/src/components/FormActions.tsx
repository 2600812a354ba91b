import type { ReactNode } from "react";

/**
 * A form's closing buttons, one convention everywhere: right-aligned,
 * Cancel then the primary action (its label says what happens, and while
 * `busy` what is happening); both wait while busy. `onSubmit`: the primary
 * is a plain button (no <form> around it); without it, it submits the form.
 * `start`: a secondary action kept apart on the left (a reset).
 */
export function FormActions({
  submit,
  busy,
  disabled = false,
  onCancel,
  onSubmit,
  cancel = "Cancel",
  small = false,
  start,
}: {
  submit: ReactNode;
  busy: boolean;
  /** The submit waits for a fix (a field's problem is shown at the field). */
  disabled?: boolean;
  onCancel: () => void;
  onSubmit?: () => void;
  /** The other way out's label ("Close" where nothing is lost). */
  cancel?: string;
  small?: boolean;
  start?: ReactNode;
}) {
  const size = small ? " btn-small" : "";
  return (
    <div className="form-actions">
      {start !== undefined && <div className="form-actions-start">{start}</div>}
      <button type="button" className={`btn btn-ghost${size}`} disabled={busy} onClick={onCancel}>
        {cancel}
      </button>
      <button
        type={onSubmit === undefined ? "submit" : "button"}
        className={`btn btn-primary${size}`}
        disabled={busy || disabled}
        onClick={onSubmit}
      >
        {submit}
      </button>
    </div>
  );
}
