import { useRef } from "react";
import { useModalFocus } from "../lib/focus";
import { COMPOSER_KEYS, SHORTCUTS } from "../lib/shortcuts";

/**
 * The keyboard shortcuts, from the one list. Escape or the button closes
 * it; Tab stays inside, and the focus goes back to the opener on close.
 */
export function HelpOverlay({ onClose }: { onClose: () => void }) {
  const close = useRef<HTMLButtonElement>(null);
  const box = useRef<HTMLDivElement>(null);
  useModalFocus(box, onClose, close);
  return (
    <div className="modal-backdrop" onClick={onClose}>
      <div
        ref={box}
        className="modal"
        role="dialog"
        aria-modal="true"
        aria-labelledby="help-title"
        onClick={(e) => e.stopPropagation()}
      >
        <h2 id="help-title" className="modal-title">
          Keyboard shortcuts
        </h2>
        <table className="shortcut-table">
          <tbody>
            {SHORTCUTS.map((s) => (
              <tr key={s.action}>
                <td>
                  <kbd>{s.keys}</kbd>
                </td>
                <td>{s.what}</td>
              </tr>
            ))}
          </tbody>
        </table>
        <h3 className="shortcut-heading">In the message box</h3>
        <table className="shortcut-table" aria-label="In the message box">
          <tbody>
            {COMPOSER_KEYS.map((s) => (
              <tr key={s.keys}>
                <td>
                  <kbd>{s.keys}</kbd>
                </td>
                <td>{s.what}</td>
              </tr>
            ))}
          </tbody>
        </table>
        <div className="modal-actions">
          <button type="button" className="btn" ref={close} onClick={onClose}>
            Close
          </button>
        </div>
      </div>
    </div>
  );
}
