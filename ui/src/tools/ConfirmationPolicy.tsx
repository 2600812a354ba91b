// Whether a tool asks before it runs: its author's choice, or the person's
// override (always ask, never ask). `ConfirmationPolicy` is the tool
// runner's folded control, loaded when opened (people rarely change it,
// and the form should not wait for it); `PolicySelect` is the select
// itself, also on each tool of an agent's preview in Settings.
import { useState } from "react";
import { api } from "../api";
import type { Policy, ToolPolicy, ToolRecord } from "../bindings";
import { ErrorBox } from "../components/feedback";

type PolicyTool = Pick<ToolRecord, "tool_id" | "requires_confirmation">;

/** The three choices, saved on change; a failure is shown beside it. */
export function PolicySelect({
  tool,
  policy,
  label,
  onChanged,
}: {
  tool: PolicyTool;
  policy: Policy;
  /** The select's accessible name. */
  label: string;
  onChanged: (p: ToolPolicy) => void;
}) {
  const [error, setError] = useState<unknown>(null);
  const [busy, setBusy] = useState(false);
  const change = (p: Policy) => {
    setBusy(true);
    setError(null);
    api
      .setToolPolicy(tool.tool_id, p)
      .then(onChanged, setError)
      .finally(() => setBusy(false));
  };
  const author = tool.requires_confirmation
    ? "Ask first (its author's choice)"
    : "Run without asking (its author's choice)";
  return (
    <>
      <select aria-label={label} value={policy} disabled={busy} onChange={(e) => change(e.target.value as Policy)}>
        <option value="default">{author}</option>
        <option value="ask">Always ask</option>
        <option value="allow">Never ask</option>
      </select>
      {error !== null && (
        <ErrorBox
          error={error}
          title="The confirmation setting could not be changed."
          onDismiss={() => setError(null)}
        />
      )}
    </>
  );
}

export function ConfirmationPolicy({ tool }: { tool: ToolRecord }) {
  const [policy, setPolicy] = useState<ToolPolicy | null>(null);
  const [error, setError] = useState<unknown>(null);
  const load = () => {
    if (policy === null) api.toolPolicy(tool.tool_id).then(setPolicy, setError);
  };
  return (
    <details
      className="tool-policy small"
      onToggle={(e) => {
        if (e.currentTarget.open) load();
      }}
    >
      <summary>Confirmation</summary>
      {policy !== null && (
        <div>
          <span aria-hidden="true">Before it runs: </span>
          <PolicySelect tool={tool} policy={policy.policy} label="Before it runs" onChanged={setPolicy} />
        </div>
      )}
      {policy === null && error === null && <span className="muted">Loading…</span>}
      {error !== null && (
        <ErrorBox error={error} title="The confirmation setting could not be read." onDismiss={() => setError(null)} />
      )}
    </details>
  );
}
