import type { BundleReport, ToolsetRecord } from "../bindings";
import { ErrorBox, Notice } from "../components/feedback";
import { FormActions } from "../components/FormActions";
import { baseName, formatBytes } from "../lib/format";
import { ProblemList } from "./ProblemList";
import { blockingFields, typedEnvSecrets, type ConsentChoices } from "./settings/choices";
import { EnvReferences } from "./settings/EnvReferences";
import { SecretsNotice } from "./settings/SecretsNotice";
import { SettingsFields } from "./settings/SettingsFields";
import { EntryLine, WillRunList } from "./WillRunList";

function installLabel(report: BundleReport, existing: ToolsetRecord | null): string {
  if (existing === null) return "Install";
  switch (report.version_change) {
    case "downgrade":
      return "Downgrade";
    case "same":
      return "Reinstall";
    case "upgrade":
      return "Upgrade";
    default:
      return existing.version === report.version ? "Reinstall" : "Upgrade";
  }
}

/** What installing does to the version installed now, in words. */
function VersionNotice({ report, existing }: { report: BundleReport; existing: ToolsetRecord }) {
  const to = report.version ?? "this version";
  if (report.version_change === "downgrade")
    return (
      <Notice tone="warning">
        Installed now: version {existing.version}, which is <strong>newer</strong>. Installing{" "}
        <strong>downgrades</strong> it to {to}: its tools go back to that version, and settings or files the newer
        version introduced may not be understood.
      </Notice>
    );
  if (report.version_change === "same" || existing.version === report.version)
    return <Notice>Version {existing.version} is already installed; installing again replaces it.</Notice>;
  return (
    <Notice>
      Installed now: version {existing.version}. Installing upgrades it to {to}.
    </Notice>
  );
}

/**
 * What a bundle will run, shown before anything is installed, with the
 * settings to fill in, the secrets it brings and the variables it may read.
 * The choices live in the import flow (`choices`), so a refusal returns here
 * with the form as it was and `error` beside it.
 */
export function ConsentPanel({
  path,
  report,
  existing,
  choices,
  onChoices,
  error,
  onDismissError,
  onInstall,
  onCancel,
  onRecheck,
}: {
  path: string;
  report: BundleReport;
  existing: ToolsetRecord | null;
  choices: ConsentChoices;
  onChoices: (c: ConsentChoices) => void;
  /** Why the last install was refused (a setting, a secret store), if it was. */
  error: unknown;
  onDismissError: () => void;
  onInstall: () => void;
  onCancel: () => void;
  /** Check the bundle again (after the file fallback was allowed). */
  onRecheck: () => void;
}) {
  // A new toolset is offered to the Assistant (checked by default); an
  // upgrade keeps the agents' allowlists as they are.
  const offer = existing === null;
  const warnings = report.problems.filter((p) => p.severity === "warning");
  const title = report.name ?? report.id ?? baseName(path);
  const settings = report.consent.settings;
  const hasSettings = settings !== null && settings.fields.length > 0;
  const blocking = blockingFields(report, choices);
  // Values typed for its servers with no secret store to keep them: the
  // install would succeed and every one of them be refused after it.
  const nowhere = report.consent.secret_store === null && typedEnvSecrets(report, choices).length > 0;
  const folder = !/\.zip$/i.test(path);
  return (
    <section className="panel consent" aria-label="Review bundle">
      <header className="panel-header">
        <div>
          <h2 className="panel-title">
            {title} {report.version !== null && <span className="muted">{report.version}</span>}
          </h2>
          <p className="muted small mono" title={path}>
            {path} · {report.file_count} files · {formatBytes(report.total_size)}
          </p>
          {report.description !== "" && <p className="consent-description">{report.description}</p>}
        </div>
      </header>
      {report.valid ? (
        <>
          <p>
            <strong>Before you install:</strong> this is what the toolset will run on this computer, with your rights.
          </p>
          <WillRunList willRun={report.will_run} />
          {report.exported.length > 0 && (
            <section className="will-run" aria-label="Exported tools">
              <h3 className="subhead">Tools its modules export ({report.exported.length})</h3>
              <ul className="plain-list mono">
                {report.exported.map((t) => (
                  <EntryLine
                    key={t.name}
                    toolId={`${report.id ?? ""}:${t.name}`}
                    entrypoint={t.entrypoint}
                    asks={t.requires_confirmation}
                  />
                ))}
              </ul>
            </section>
          )}
          {existing !== null && <VersionNotice report={report} existing={existing} />}
          {warnings.length > 0 && (
            <>
              <h3 className="subhead">Warnings ({warnings.length})</h3>
              <ProblemList problems={warnings} label="Warnings" />
            </>
          )}
          {hasSettings && (
            <section className="consent-settings" aria-label="Settings">
              <h3 className="subhead">Settings</h3>
              <SettingsFields
                fields={settings?.fields ?? []}
                draft={choices.draft}
                onChange={(draft) => onChoices({ ...choices, draft })}
                edit={false}
                missing={[]}
                error={error}
                errorTitle="Not installed:"
                onDismissError={onDismissError}
              />
            </section>
          )}
          {!hasSettings && error !== null && (
            <ErrorBox error={error} title="Not installed:" onDismiss={onDismissError} />
          )}
          <SecretsNotice
            consent={report.consent}
            folder={folder}
            typed={typedEnvSecrets(report, choices).length}
            onAllowed={onRecheck}
          />
          <EnvReferences
            references={report.consent.env_references}
            allowed={choices.allowEnv}
            onAllowed={(allowEnv) => onChoices({ ...choices, allowEnv })}
            values={choices.envSecrets}
            onValues={(envSecrets) => onChoices({ ...choices, envSecrets })}
            store={report.consent.secret_store}
          />
          {offer && (
            <label className="check-row">
              <input
                type="checkbox"
                checked={choices.forAssistant}
                onChange={(e) => onChoices({ ...choices, forAssistant: e.target.checked })}
              />
              Let the Assistant use its tools
            </label>
          )}
          {blocking.length > 0 && (
            <p className="install-blocked" role="status">
              Fill in {blocking.length === 1 ? "the required setting" : "the required settings"}{" "}
              {blocking.map((f) => f.title).join(", ")} to install.
            </p>
          )}
          {nowhere && (
            <p className="install-blocked" role="status">
              Choose where to keep the values you typed (above) to install, or clear them.
            </p>
          )}
          <FormActions
            submit={installLabel(report, existing)}
            busy={false}
            disabled={blocking.length > 0 || nowhere}
            onCancel={onCancel}
            onSubmit={onInstall}
          />
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
