// What the person decides in the consent step, kept by the import flow so
// that a refusal (a setting the core rejects) returns to the same form.
import type { ImportSettings } from "../../api";
import type { BundleReport } from "../../bindings";
import { changes, initialDraft, unfilled, type Draft } from "./draft";

export type ConsentChoices = {
  /** The settings form. */
  draft: Draft;
  /** Variables of the environment ticked for it to read. */
  allowEnv: string[];
  /** Values typed for the `${NAME}`s its servers read (stored right after the install, never shown again). */
  envSecrets: Record<string, string>;
  /** "Let the Assistant use its tools" (offered for a new toolset). */
  forAssistant: boolean;
};

export function initialChoices(report: BundleReport): ConsentChoices {
  return {
    draft: initialDraft(report.consent.settings?.fields ?? []),
    allowEnv: [],
    envSecrets: {},
    forAssistant: true,
  };
}

/** Required settings still without a value: the install waits for them. */
export function blockingFields(report: BundleReport, choices: ConsentChoices) {
  return unfilled(report.consent.settings?.fields ?? [], choices.draft);
}

/** What the install sends: changed and required settings, sensitive values apart, ticked variables. */
export function importSettings(report: BundleReport, choices: ConsentChoices): ImportSettings {
  const s = report.consent.settings;
  const c = s === null ? null : changes(s.fields, choices.draft, s.missing, "install");
  const offered = new Set(report.consent.env_references.map((r) => r.name));
  return {
    config: c?.values ?? {},
    secrets: c?.secrets ?? {},
    allowEnv: choices.allowEnv.filter((n) => offered.has(n)),
  };
}

/**
 * The values typed for `${NAME}`s the install stores right after it: only
 * names the bundle's servers read, not stored already, not read from the
 * environment (allowed before or ticked now), and not empty.
 */
export function typedEnvSecrets(report: BundleReport, choices: ConsentChoices): [string, string][] {
  return report.consent.env_references
    .filter((r) => !r.stored && !r.allowed && !choices.allowEnv.includes(r.name))
    .map((r): [string, string] => [r.name, choices.envSecrets[r.name] ?? ""])
    .filter(([, v]) => v !== "");
}
