/**
 * The agent editor's live preview: what the toolsets and patterns being
 * edited resolve to now (asked of the core a moment after the last change,
 * nothing saved), each tool under the name the model calls it by with its
 * confirmation policy, then the warnings — names that match nothing, more
 * tools than the provider takes — and what the provider's protocol takes
 * away (feature loss). The last two also say what a save answers.
 */
import { useEffect, useEffectEvent, useState } from "react";
import { api } from "../../api";
import type { AgentSpec, Exposure, PreviewTool, SourceKind, ToolsPreview } from "../../bindings";
import { ErrorBox, Spinner } from "../../components/feedback";
import { PolicySelect } from "../../tools/ConfirmationPolicy";

/** How long typing may pause before the preview is asked for. */
export const PREVIEW_DELAY_MS = 300;

const SOURCE: Record<SourceKind, string> = { builtin: "built in", toolset: "toolset", mcp: "MCP server" };

function source(t: PreviewTool): string {
  return t.source_id === null ? SOURCE[t.source_kind] : `${SOURCE[t.source_kind]} ${t.source_id}`;
}

const PROTOCOL: Record<Exposure, string> = { openai: "OpenAI-compatible", anthropic: "Anthropic", mcp: "MCP" };

export function AgentToolsPreview({ spec }: { spec: AgentSpec }) {
  // Only what changes the answer asks again: not the name or the prompt.
  const key = JSON.stringify([spec.toolsets, spec.tools, spec.filters, spec.policies, spec.model]);
  const [result, setResult] = useState<{ key: string; preview: ToolsPreview | null; error: unknown } | null>(null);
  // The latest spec, without asking again when only its identity changed.
  const ask = useEffectEvent(() => api.previewAgentTools(spec));
  useEffect(() => {
    let live = true;
    const t = setTimeout(() => {
      ask().then(
        (preview) => live && setResult({ key, preview, error: null }),
        (error: unknown) => live && setResult({ key, preview: null, error }),
      );
    }, PREVIEW_DELAY_MS);
    return () => {
      live = false;
      clearTimeout(t);
    };
  }, [key]);

  const fresh = result?.key === key;
  const preview = result?.preview ?? null;
  const setPolicy = (toolId: string, policy: PreviewTool["policy"]) =>
    setResult((r) =>
      r?.preview == null
        ? r
        : {
            ...r,
            preview: {
              ...r.preview,
              tools: r.preview.tools.map((t) => (t.canonical_id === toolId ? { ...t, policy } : t)),
            },
          },
    );

  return (
    <section className="agent-preview" aria-label="Tools this agent gets" aria-busy={!fresh}>
      <div className="agent-preview-head">
        <strong>Tools it gets</strong>
        {preview !== null && (
          <span className="muted small">
            {preview.tools.length} {preview.tools.length === 1 ? "tool" : "tools"}, as the model sees them
          </span>
        )}
        {!fresh && <Spinner label="Checking…" />}
      </div>
      {result?.error != null && <ErrorBox error={result.error} title="These rules cannot be used." />}
      {preview !== null && preview.tools.length === 0 && (
        <p className="empty-inline">No tools: tick a toolset or add a pattern.</p>
      )}
      {preview !== null && preview.tools.length > 0 && (
        <ul className="agent-tools" aria-label="Resolved tools">
          {preview.tools.map((t) => (
            <li key={t.canonical_id} className="agent-tool">
              <div className="agent-tool-main">
                <code className="agent-tool-name">{t.model_name}</code>
                <span className="muted small"> · {source(t)}</span>
                {t.description !== "" && <div className="muted small agent-tool-desc">{t.description}</div>}
              </div>
              {t.policy === null && <span className="muted small">never asks (it only starts or lists agents)</span>}
              {t.policy !== null && (
                <PolicySelect
                  tool={{ tool_id: t.canonical_id, requires_confirmation: t.requires_confirmation }}
                  policy={t.policy}
                  label={`Confirmation of ${t.model_name}`}
                  onChanged={(p) => setPolicy(t.canonical_id, p.policy)}
                />
              )}
            </li>
          ))}
        </ul>
      )}
      {preview !== null && preview.tools.some((t) => t.policy !== null) && (
        <p className="muted small">Confirmation settings apply to the tool in every agent and chat.</p>
      )}
      {/* A list, not alerts: it changes as the person types. */}
      {preview !== null && <ToolWarnings warnings={preview.warnings} />}
      {preview !== null && <FeatureLoss exposure={preview.exposure} lost={preview.feature_loss} />}
    </section>
  );
}

/** The core's warnings about an agent's tools, one per line (nothing when there are none). */
export function ToolWarnings({ warnings, label = "Warnings" }: { warnings: string[]; label?: string }) {
  if (warnings.length === 0) return null;
  return (
    <ul className="agent-warnings" aria-label={label}>
      {warnings.map((w) => (
        <li key={w}>{w}</li>
      ))}
    </ul>
  );
}

/** What the provider's protocol takes away, folded under its count. */
export function FeatureLoss({ exposure, lost }: { exposure: Exposure; lost: string[] }) {
  if (lost.length === 0) return null;
  return (
    <details className="agent-loss">
      <summary>
        {lost.length} {lost.length === 1 ? "change" : "changes"} for the {PROTOCOL[exposure]} protocol
      </summary>
      <ul className="plain-list small" aria-label="Feature loss">
        {lost.map((w) => (
          <li key={w}>{w}</li>
        ))}
      </ul>
    </details>
  );
}
