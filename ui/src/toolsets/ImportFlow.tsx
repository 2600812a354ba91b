import { useEffect, useState } from "react";
import { api, type ImportProgress } from "../api";
import type { BundleReport, ImportReport, ToolsetRecord } from "../bindings";
import { ErrorBox, Spinner } from "../components/feedback";
import { baseName } from "../lib/format";
import { ConsentPanel } from "./ConsentPanel";
import { ImportProgressBar } from "./ImportProgressBar";
import { ProblemList } from "./ProblemList";

type Phase =
  | { step: "checking" }
  | { step: "check-failed"; error: unknown }
  | { step: "review"; report: BundleReport }
  | { step: "installing"; report: BundleReport; progress: ImportProgress | null }
  | { step: "install-failed"; report: BundleReport; agents: string[]; error: unknown }
  | { step: "done"; result: ImportReport };

/**
 * The channel sends two kinds of updates: counts (no step) and installer
 * steps (zero counts). Each keeps what the other said last.
 */
export function mergeProgress(prev: ImportProgress | null, update: ImportProgress): ImportProgress {
  if (update.step !== null && prev !== null) return { ...prev, step: update.step };
  if (update.step === null && prev !== null) return { ...update, step: prev.step };
  return update;
}

export function ImportFlow({
  path,
  installed,
  onInstalled,
  onBusy,
  onClose,
}: {
  path: string;
  installed: ToolsetRecord[];
  onInstalled: (result: ImportReport) => void;
  onBusy: (busy: boolean) => void;
  onClose: () => void;
}) {
  const [phase, setPhase] = useState<Phase>({ step: "checking" });
  // Another bundle (the manager keys each import, so only if reused): check it afresh.
  const [shownPath, setShownPath] = useState(path);
  if (shownPath !== path) {
    setShownPath(path);
    setPhase({ step: "checking" });
  }

  useEffect(() => {
    let live = true;
    api.checkBundle(path).then(
      (report) => live && setPhase({ step: "review", report }),
      (error: unknown) => live && setPhase({ step: "check-failed", error }),
    );
    return () => {
      live = false;
    };
  }, [path]);

  const existingFor = (report: BundleReport) => installed.find((t) => t.id === report.id) ?? null;

  const install = async (report: BundleReport, agents: string[]) => {
    const existing = existingFor(report);
    const force = existing !== null && existing.version === report.version;
    setPhase({ step: "installing", report, progress: null });
    onBusy(true);
    try {
      const result = await api.importToolset(path, force, agents, (update) =>
        setPhase((p) => (p.step === "installing" ? { ...p, progress: mergeProgress(p.progress, update) } : p)),
      );
      setPhase({ step: "done", result });
      onInstalled(result);
    } catch (error) {
      setPhase({ step: "install-failed", report, agents, error });
    } finally {
      onBusy(false);
    }
  };

  switch (phase.step) {
    case "checking":
      return (
        <section className="panel" aria-label="Review bundle">
          <Spinner label={`Checking ${baseName(path)}…`} />
        </section>
      );
    case "check-failed":
      return (
        <section className="panel" aria-label="Review bundle">
          <ErrorBox error={phase.error} title={`${baseName(path)} could not be read.`} onDismiss={onClose} />
        </section>
      );
    case "review":
      return (
        <ConsentPanel
          path={path}
          report={phase.report}
          existing={existingFor(phase.report)}
          onInstall={(agents) => void install(phase.report, agents)}
          onCancel={onClose}
        />
      );
    case "installing":
      return (
        <section className="panel" aria-label="Installing">
          <h3 className="panel-title">Installing {phase.report.name ?? baseName(path)}</h3>
          <ImportProgressBar progress={phase.progress} />
        </section>
      );
    case "install-failed":
      return (
        <section className="panel" aria-label="Installing">
          <ErrorBox
            error={phase.error}
            title={`${phase.report.name ?? baseName(path)} was not installed; nothing changed.`}
            onRetry={() => void install(phase.report, phase.agents)}
            onDismiss={onClose}
          />
        </section>
      );
    case "done": {
      const { result } = phase;
      const verb = result.action === "upgraded" ? `upgraded from ${result.previous_version ?? "?"} to` : result.action;
      return (
        <section className="panel panel-success" aria-label="Installed">
          <p role="status">
            <strong>{result.toolset.name}</strong> {verb} {result.toolset.version}: {result.tools.length}{" "}
            {result.tools.length === 1 ? "tool" : "tools"}.
          </p>
          {result.warnings.length > 0 && <ProblemList problems={result.warnings} label="Warnings" />}
          <div className="panel-actions">
            <button type="button" className="btn" onClick={onClose}>
              Done
            </button>
          </div>
        </section>
      );
    }
  }
}
