// Whether a tool asks before it runs: its author's choice, or the person's
// override (always ask, never ask). Loaded when opened: people rarely
// change it, and the form should not wait for it.
import { useState } from "react";
import { api } from "../api";
import type { Policy, ToolPolicy, ToolRecord } from "../bindings";
import { ErrorBox } from "../components/feedback";

export function ConfirmationPolicy({ tool }: { tool: ToolRecord }) {
  const [policy, setPolicy] = useState<ToolPolicy | null>(null);
  const [error, setError] = useState<unknown>(null);
  const [busy, setBusy] = useState(false);
  const load = () => {
    if (policy === null) api.toolPolicy(tool.tool_id).then(setPolicy, setError);
  };
  const change = (p: Policy) => {
    setBusy(true);
    setError(null);
    api
      .setToolPolicy(tool.tool_id, p)
      .then(setPolicy, setError)
      .finally(() => setBusy(false));
  };
  const author = tool.requires_confirmation
    ? "Ask first (its author's choice)"
    : "Run without asking (its author's choice)";
  return (
    <details
      className="tool-policy small"
      onToggle={(e) => {
        if (e.currentTarget.open) load();
      }}
    >
      <summary>Confirmation</summary>
      {policy !== null && (
        <label>
          Before it runs:{" "}
          <select value={policy.policy} disabled={busy} onChange={(e) => change(e.target.value as Policy)}>
            <option value="default">{author}</option>
            <option value="ask">Always ask</option>
            <option value="allow">Never ask</option>
          </select>
        </label>
      )}
      {policy === null && error === null && <span className="muted">Loading…</span>}
      {error !== null && (
        <ErrorBox
          error={error}
          title="The confirmation setting could not be changed."
          onDismiss={() => setError(null)}
        />
      )}
    </details>
  );
}
