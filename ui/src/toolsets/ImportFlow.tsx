import { useEffect, useState } from "react";
import { api, isIpcError, type ImportProgress } from "../api";
import type { BundleReport, ImportReport, ToolsetRecord } from "../bindings";
import { ErrorBox, Spinner } from "../components/feedback";
import { ASSISTANT_ID } from "../lib/assistant";
import { baseName } from "../lib/format";
import { ConsentPanel } from "./ConsentPanel";
import { ImportProgressBar } from "./ImportProgressBar";
import { ProblemList } from "./ProblemList";
import { failedCount, listServers, ServerListing, type Listing } from "./ServerListing";
import { importSettings, initialChoices, typedEnvSecrets, type ConsentChoices } from "./settings/choices";
import { ToolsetEnvSecrets } from "./settings/ToolsetEnvSecrets";

type Phase =
  | { step: "checking" }
  | { step: "check-failed"; error: unknown }
  /** `error`: why the last install was refused by a setting or the secret store (shown by the form). */
  | { step: "review"; report: BundleReport; choices: ConsentChoices; error: unknown }
  | { step: "installing"; report: BundleReport; choices: ConsentChoices; progress: ImportProgress | null }
  | { step: "install-failed"; report: BundleReport; choices: ConsentChoices; error: unknown }
  /**
   * `servers`: its MCP servers, in the order declared, each being listed or done;
   * `unstored`: why the values typed for its servers could not be kept (right after the install), if so;
   * `offered`: the fields for those values are shown (a server failed, or a value was not kept), and stay.
   */
  | { step: "done"; result: ImportReport; servers: [string, Listing][]; unstored: Unstored | null; offered: boolean };

/** The values typed for its servers that could not be kept after the install, and the last refusal. */
type Unstored = { names: string[]; error: unknown };

/** Refusals the consent form can put right: a setting's value, a missing one, no place for secrets. */
const FORM_ERRORS = new Set(["config_invalid", "config_missing", "secrets_unavailable", "secret_not_set"]);

/**
 * The channel sends two kinds of updates: counts (no step) and installer
 * steps (zero counts). Each keeps what the other said last.
 */
/** Why a bundle check failed, in words: refused as unsafe is not "could not be read". */
export function checkFailedTitle(name: string, error: unknown): string {
  if (isIpcError(error) && error.kind === "invalid_bundle") {
    return `${name} was read and refused: it breaks a safety rule for toolset bundles, so nothing was installed.`;
  }
  if (isIpcError(error) && error.kind === "invalid_manifest") return `${name} has a toolset.yaml Atelier cannot use.`;
  return `${name} could not be read.`;
}

export function mergeProgress(prev: ImportProgress | null, update: ImportProgress): ImportProgress {
  if (update.step !== null && prev !== null) return { ...prev, step: update.step };
  if (update.step === null && prev !== null) return { ...update, step: prev.step };
  return update;
}

export function ImportFlow({
  path,
  installed,
  onInstalled,
  onToolsListed,
  onBusy,
  onClose,
}: {
  path: string;
  installed: ToolsetRecord[];
  onInstalled: (result: ImportReport) => void;
  /** Its MCP servers' tools were listed (or failed to be): the tools on offer may have changed. */
  onToolsListed: () => void;
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
      (report) => live && setPhase({ step: "review", report, choices: initialChoices(report), error: null }),
      (error: unknown) => live && setPhase({ step: "check-failed", error }),
    );
    return () => {
      live = false;
    };
  }, [path]);

  // After the file fallback was allowed: where secrets go now (the form stays as filled).
  const recheck = async () => {
    try {
      const report = await api.checkBundle(path);
      setPhase((p) => (p.step === "review" ? { ...p, report, error: null } : p));
    } catch (error) {
      setPhase((p) => (p.step === "review" ? { ...p, error } : p));
    }
  };

  // A server listed (after the install, or again once a value it reads was set).
  const listed = (id: string, listing: Listing) =>
    setPhase((p) =>
      p.step === "done"
        ? {
            ...p,
            servers: p.servers.map((s) => (s[0] === id ? [id, listing] : s)),
            offered: p.offered || listing.state === "failed",
          }
        : p,
    );

  const existingFor = (report: BundleReport) => installed.find((t) => t.id === report.id) ?? null;

  const install = async (report: BundleReport, choices: ConsentChoices) => {
    const existing = existingFor(report);
    const force = existing !== null && existing.version === report.version;
    const agents = existing === null && choices.forAssistant ? [ASSISTANT_ID] : [];
    setPhase({ step: "installing", report, choices, progress: null });
    onBusy(true);
    try {
      const result = await api.importToolset(path, force, agents, importSettings(report, choices), (update) =>
        setPhase((p) => (p.step === "installing" ? { ...p, progress: mergeProgress(p.progress, update) } : p)),
      );
      // The values typed for its servers, kept before any of them starts.
      const refused: string[] = [];
      let last: unknown = null;
      for (const [name, value] of typedEnvSecrets(report, choices)) {
        try {
          await api.setToolsetEnvSecret(result.toolset.id, name, value);
        } catch (error) {
          refused.push(name);
          last = error;
        }
      }
      const unstored: Unstored | null = refused.length > 0 ? { names: refused, error: last } : null;
      // A disabled toolset's servers do not run: nothing to list.
      const ids = result.toolset.enabled ? result.will_run.mcp_servers.map((s) => s.id) : [];
      const servers = ids.map((id): [string, Listing] => [id, { state: "listing" }]);
      setPhase({ step: "done", result, servers, unstored, offered: unstored !== null });
      onInstalled(result);
      if (ids.length > 0) void listServers(ids, listed).then(onToolsListed);
    } catch (error) {
      const back = isIpcError(error) && FORM_ERRORS.has(error.kind);
      setPhase(back ? { step: "review", report, choices, error } : { step: "install-failed", report, choices, error });
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
          <ErrorBox error={phase.error} title={checkFailedTitle(baseName(path), phase.error)} onDismiss={onClose} />
        </section>
      );
    case "review":
      return (
        <ConsentPanel
          path={path}
          report={phase.report}
          existing={existingFor(phase.report)}
          choices={phase.choices}
          onChoices={(choices) => setPhase((p) => (p.step === "review" ? { ...p, choices } : p))}
          error={phase.error}
          onDismissError={() => setPhase((p) => (p.step === "review" ? { ...p, error: null } : p))}
          onInstall={() => void install(phase.report, phase.choices)}
          onCancel={onClose}
          onRecheck={() => void recheck()}
        />
      );
    case "installing":
      return (
        <section className="panel" aria-label="Installing">
          <h2 className="panel-title">Installing {phase.report.name ?? baseName(path)}</h2>
          <ImportProgressBar progress={phase.progress} />
        </section>
      );
    case "install-failed":
      return (
        <section className="panel" aria-label="Installing">
          <ErrorBox
            error={phase.error}
            title={`${phase.report.name ?? baseName(path)} was not installed; nothing changed.`}
            onRetry={() => void install(phase.report, phase.choices)}
            onDismiss={onClose}
          />
        </section>
      );
    case "done": {
      const { result } = phase;
      const verb =
        result.action === "upgraded" || result.action === "downgraded"
          ? `${result.action} from ${result.previous_version ?? "?"} to`
          : result.action;
      const failed = failedCount(phase.servers);
      return (
        <section className={failed > 0 ? "panel panel-warning" : "panel panel-success"} aria-label="Installed">
          {failed > 0 && (
            <h2 className="panel-title">
              {phase.servers.length === 1
                ? "Installed, but its server didn't start"
                : `Installed, but ${failed} of its ${phase.servers.length} servers didn't start`}
            </h2>
          )}
          <p role="status">
            <strong>{result.toolset.name}</strong> {verb} {result.toolset.version}: {result.tools.length}{" "}
            {result.tools.length === 1 ? "tool" : "tools"}.
          </p>
          {result.secrets_moved > 0 && (
            <p className="muted small">
              {result.secrets_moved === 1
                ? "Its secret value was moved to the secret store"
                : `Its ${result.secrets_moved} secret values were moved to the secret store`}
              ; the installed copy refers to {result.secrets_moved === 1 ? "it" : "them"} by name.
            </p>
          )}
          <ServerListing servers={phase.servers} />
          {phase.unstored !== null && (
            <ErrorBox
              error={phase.unstored.error}
              title={`Installed, but ${phase.unstored.names.map((n) => "$" + n).join(", ")} could not be kept: type ${phase.unstored.names.length === 1 ? "it" : "them"} again below.`}
            />
          )}
          {phase.offered && (
            <ToolsetEnvSecrets
              id={result.toolset.id}
              enabled={result.toolset.enabled}
              onListed={(id, listing) => {
                listed(id, listing);
                if (listing.state === "listed") onToolsListed();
              }}
            />
          )}
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
