// How much of the model's context the branch uses (the last turn's tokens
// against the window the run said it fits into), and the last run's tokens.

import type { TokenUsage } from "../bindings";
import { formatTokens } from "./MessageView";

export function ContextMeter({
  used,
  window,
  lastRun,
}: {
  used: number | null;
  window: number | null;
  lastRun: TokenUsage | null;
}) {
  if (used === null && lastRun === null) return null;
  const share = used !== null && window !== null && window > 0 ? Math.min(1, used / window) : null;
  const tone = share === null ? "" : share > 0.9 ? " meter-full" : share > 0.7 ? " meter-high" : "";
  return (
    <span className="context-meter small">
      {used !== null && (
        <span
          className={`context-used${tone}`}
          aria-label="Context used"
          title={
            window === null
              ? "Tokens the last answer took in and gave (the model's window is not known yet)"
              : `${used.toLocaleString()} of the model's ${window.toLocaleString()} tokens`
          }
        >
          {share !== null && (
            <span className="meter-bar" aria-hidden="true">
              <span style={{ width: `${Math.round(share * 100)}%` }} />
            </span>
          )}
          {window === null ? `${formatTokens(used)} tokens` : `${formatTokens(used)} / ${formatTokens(window)} tokens`}
        </span>
      )}
      {lastRun !== null && (
        <span
          className="muted last-run"
          aria-label="Tokens of the last run"
          title="Tokens of the last run: sent, received"
        >
          last run {formatTokens(lastRun.input_tokens)} in · {formatTokens(lastRun.output_tokens)} out
        </span>
      )}
    </span>
  );
}
