// A chat's (or an agent's) model settings as a form holds them: text for
// the numbers, "" for "not set here". Only the shape is checked here (a
// number, a whole number); the ranges are the core's (`ModelSettings::check`),
// whose refusal the form shows as it says it.

import type { ModelSettings, ReasoningEffort } from "../bindings";

export type SettingsDraft = {
  temperature: string;
  maxTokens: string;
  contextWindow: string;
  effort: "" | ReasoningEffort;
  images: "" | "yes" | "no";
};

export type DraftField = keyof SettingsDraft;

export const EMPTY_DRAFT: SettingsDraft = { temperature: "", maxTokens: "", contextWindow: "", effort: "", images: "" };

export function draftOf(s: ModelSettings): SettingsDraft {
  return {
    temperature: s.temperature?.toString() ?? "",
    maxTokens: s.max_tokens?.toString() ?? "",
    contextWindow: s.context_window?.toString() ?? "",
    effort: s.reasoning_effort ?? "",
    images: s.images === undefined ? "" : s.images ? "yes" : "no",
  };
}

/** How many settings a draft sets. */
export function setCount(d: SettingsDraft): number {
  return Object.values(d).filter((v) => v.trim() !== "").length;
}

export type Parsed = { settings: ModelSettings } | { field: DraftField; error: string };

function whole(text: string): number | null | undefined {
  const t = text.trim();
  if (t === "") return undefined;
  return /^\d+$/.test(t) ? Number(t) : null;
}

/** The settings a draft says, or the first field that is not a number of the right kind. */
export function settingsOf(d: SettingsDraft): Parsed {
  const settings: ModelSettings = {};
  const t = d.temperature.trim();
  if (t !== "") {
    const n = Number(t);
    if (!Number.isFinite(n)) return { field: "temperature", error: "Temperature: a number, like 0.7." };
    settings.temperature = n;
  }
  const max = whole(d.maxTokens);
  if (max === null) return { field: "maxTokens", error: "Max tokens: a whole number, like 4096." };
  if (max !== undefined) settings.max_tokens = max;
  const window = whole(d.contextWindow);
  if (window === null)
    return { field: "contextWindow", error: "Context window: a whole number of tokens, like 32768." };
  if (window !== undefined) settings.context_window = window;
  if (d.effort !== "") settings.reasoning_effort = d.effort;
  if (d.images !== "") settings.images = d.images === "yes";
  return { settings };
}
