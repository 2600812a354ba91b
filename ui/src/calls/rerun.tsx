// "Run again…" on a call card: when the call's tool cannot run now, why
// (in words) and the button that fixes it, right on the card.

import { useState, type ReactNode } from "react";
import type { ToolCallRecord } from "../bindings";
import { ErrorBox } from "../components/feedback";

/** Why a call cannot run again, and what fixes it (Enable its toolset), if anything does. */
export type RerunBlock = { message: string; fix: { label: string; run: () => Promise<void> } | null };

/** Opens the call's form, or says why it cannot. */
export type Rerun = (call: ToolCallRecord) => Promise<RerunBlock | null>;

export function useRerun(call: ToolCallRecord, onRerun: Rerun | undefined): { click: () => void; shown: ReactNode } {
  const [block, setBlock] = useState<RerunBlock | null>(null);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>(null);
  const click = () => {
    if (onRerun === undefined) return;
    setError(null);
    onRerun(call).then(setBlock, setError);
  };
  const fix = () => {
    const f = block?.fix;
    if (f == null) return;
    setBusy(true);
    setError(null);
    f.run().then(
      () => {
        setBusy(false);
        setBlock(null);
      },
      (e: unknown) => {
        setBusy(false);
        setError(e);
      },
    );
  };
  const shown = (
    <>
      {block !== null && (
        <div className="call-problem" role="alert">
          <span>{block.message}</span>
          <span className="call-problem-actions">
            {block.fix !== null && (
              <button type="button" className="btn btn-small btn-primary" disabled={busy} onClick={fix}>
                {busy ? "Enabling…" : block.fix.label}
              </button>
            )}
            <button type="button" className="btn btn-small btn-ghost" onClick={() => setBlock(null)}>
              Dismiss
            </button>
          </span>
        </div>
      )}
      {error !== null && <ErrorBox error={error} title="Cannot run again." onDismiss={() => setError(null)} />}
    </>
  );
  return { click, shown };
}
