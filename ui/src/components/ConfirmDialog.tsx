import { useId, useRef, type ReactNode } from "react";
import { useModalFocus } from "../lib/focus";

/**
 * An in-app confirmation (the webview's own `window.confirm` is not
 * dependable under Tauri). Escape cancels; the safe choice has the focus,
 * Tab stays inside, and the focus goes back to the opener on close.
 */
export function ConfirmDialog({
  title,
  children,
  confirmLabel,
  cancelLabel = "Cancel",
  danger = false,
  onConfirm,
  onCancel,
}: {
  title: string;
  children: ReactNode;
  confirmLabel: string;
  cancelLabel?: string;
  danger?: boolean;
  onConfirm: () => void;
  onCancel: () => void;
}) {
  const cancelRef = useRef<HTMLButtonElement>(null);
  const box = useRef<HTMLDivElement>(null);
  useModalFocus(box, onCancel, cancelRef);
  const id = useId();

  return (
    <div className="modal-backdrop">
      <div
        ref={box}
        className="modal"
        role="alertdialog"
        aria-modal="true"
        aria-labelledby={`${id}-title`}
        aria-describedby={`${id}-body`}
      >
        <h2 id={`${id}-title`} className="modal-title">
          {title}
        </h2>
        <div id={`${id}-body`} className="modal-body">
          {children}
        </div>
        <div className="modal-actions">
          <button type="button" className="btn" ref={cancelRef} onClick={onCancel}>
            {cancelLabel}
          </button>
          <button type="button" className={danger ? "btn btn-danger" : "btn btn-primary"} onClick={onConfirm}>
            {confirmLabel}
          </button>
        </div>
      </div>
    </div>
  );
}
