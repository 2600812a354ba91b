import { useState } from "react";
import type { BundleReport, ToolsetRecord, WillRun } from "../bindings";
import { Notice } from "../components/feedback";
import { baseName, formatBytes } from "../lib/format";
import { ProblemList } from "./ProblemList";

function WillRunList({ willRun }: { willRun: WillRun }) {
  const { python_entrypoints: py, requirements, mcp_servers: servers } = willRun;
  const nothing = py.length === 0 && requirements.length === 0 && servers.length === 0;
  if (nothing) return <p className="muted">This bundle runs no code: no Python tools, requirements or MCP servers.</p>;
  return (
    <div className="will-run">
      {py.length > 0 && (
        <section aria-label="Python entry points">
          <h4>Python entry points ({py.length})</h4>
          <ul className="plain-list mono">
            {py.map((e) => (
              <li key={e.tool_id}>
                <span className="muted">{e.tool_id}</span> → {e.entrypoint}
              </li>
            ))}
          </ul>
        </section>
      )}
      {requirements.length > 0 && (
        <section aria-label="Python requirements">
          <h4>Python packages installed from PyPI ({requirements.length})</h4>
          <ul className="plain-list mono">
            {requirements.map((r) => (
              <li key={r}>{r}</li>
            ))}
          </ul>
        </section>
      )}
      {servers.length > 0 && (
        <section aria-label="MCP servers">
          <h4>MCP servers ({servers.length})</h4>
          <ul className="plain-list mono">
            {servers.map((s) => (
              <li key={s.id}>
                <span className="muted">{s.id}:</span>{" "}
                {s.command !== null ? [s.command, ...s.args].join(" ") : `connects to ${s.url ?? "(no URL)"}`}
              </li>
            ))}
          </ul>
        </section>
      )}
    </div>
  );
}

function installLabel(report: BundleReport, existing: ToolsetRecord | null): string {
  if (existing === null) return "Install";
  return existing.version === report.version ? "Reinstall" : "Upgrade";
}

/** What a bundle will run, shown before anything is installed. */
export function ConsentPanel({
  path,
  report,
  existing,
  onInstall,
  onCancel,
}: {
  path: string;
  report: BundleReport;
  existing: ToolsetRecord | null;
  /** Install, then allow the toolset to these agents. */
  onInstall: (agents: string[]) => void;
  onCancel: () => void;
}) {
  // A new toolset is offered to the Assistant (checked by default); an
  // upgrade keeps the agents' allowlists as they are.
  const [forAssistant, setForAssistant] = useState(true);
  const offer = existing === null;
  const warnings = report.problems.filter((p) => p.severity === "warning");
  const title = report.name ?? report.id ?? baseName(path);
  return (
    <section className="panel consent" aria-label="Review bundle">
      <header className="panel-header">
        <div>
          <h3 className="panel-title">
            {title} {report.version !== null && <span className="muted">{report.version}</span>}
          </h3>
          <p className="muted small mono" title={path}>
            {path} · {report.file_count} files · {formatBytes(report.total_size)}
          </p>
        </div>
      </header>
      {report.valid ? (
        <>
          <p>
            <strong>Before you install:</strong> this is what the toolset will run on this computer, with your rights.
          </p>
          <WillRunList willRun={report.will_run} />
          {existing !== null && (
            <Notice>
              {existing.version === report.version
                ? `Version ${existing.version} is already installed; installing again replaces it.`
                : `Installed now: version ${existing.version}. Installing upgrades it to ${report.version ?? "this version"}.`}
            </Notice>
          )}
          {warnings.length > 0 && (
            <>
              <h4>Warnings ({warnings.length})</h4>
              <ProblemList problems={warnings} label="Warnings" />
            </>
          )}
          {offer && (
            <label className="check-row">
              <input type="checkbox" checked={forAssistant} onChange={(e) => setForAssistant(e.target.checked)} />
              Let the Assistant use its tools
            </label>
          )}
          <div className="panel-actions">
            <button type="button" className="btn" onClick={onCancel}>
              Cancel
            </button>
            <button
              type="button"
              className="btn btn-primary"
              onClick={() => onInstall(offer && forAssistant ? ["assistant"] : [])}
            >
              {installLabel(report, existing)}
            </button>
          </div>
        </>
      ) : (
        <>
          <Notice tone="warning">
            This bundle can’t be installed: fix the problems below in its toolset.yaml, then import it again.
          </Notice>
          <ProblemList problems={report.problems} label="Problems" />
          <div className="panel-actions">
            <button type="button" className="btn" onClick={onCancel}>
              Close
            </button>
          </div>
        </>
      )}
    </section>
  );
}
