// A run's failure, in place, as a person would say it, with the fix: the
// provider's error kind (and its base URL, its name) made into a sentence
// and a button that does something about it.

import type { Preset, ProviderRecord } from "../bindings";
import { hostOf, providerTitle } from "./useProviders";

/** `options`: the chat's Model options (answer length, context window), not the app's Settings. */
export type Fix = "settings" | "options" | "retry" | "branch" | "model";

export type Described = { text: string; fix: Fix | null; detail: string | null };

/** A provider error as a sentence and its fix. */
export function describeRunError(
  kind: string | null,
  message: string,
  provider: ProviderRecord | undefined,
  presets: Preset[],
  providerId: string | null,
  model: string | null,
): Described {
  const name = providerTitle(provider, presets, providerId);
  const host = provider !== undefined ? hostOf(provider.base_url) : null;
  const local = presets.find((p) => p.name === provider?.preset)?.local ?? false;
  const at = host !== null ? ` at ${host}` : "";
  switch (kind) {
    case "network":
      return local
        ? { text: `${name} is not running${at}. Start it, then retry.`, fix: "retry", detail: message }
        : {
            text: `${name} could not be reached${at}. Check your connection, then retry.`,
            fix: "retry",
            detail: message,
          };
    case "auth":
      return {
        text: `The API key for ${name} was refused — open Settings to give the right one.`,
        fix: "settings",
        detail: message,
      };
    case "context_length":
      return {
        text: "The model's context is full: start a new branch from an earlier message or fork.",
        fix: "branch",
        detail: message,
      };
    case "message_too_long":
      // The newest message alone is over the window: every earlier one
      // was left out already, so a branch would fail the same way.
      return {
        text: "This message (with its tools' latest results) is more than the model's context window holds, even with every earlier message left out: shorten it, or raise “Context window” in Model options if the model takes more.",
        fix: "options",
        detail: message,
      };
    case "output_limit":
      // "Go on" or a bare Retry would be cut at the same limit again.
      return {
        text: "The answer reached the model's output limit and was cut here: raise “Max tokens of an answer” in Model options, then retry.",
        fix: "options",
        detail: message,
      };
    case "refused":
      return {
        text: `${name} ended the answer here: the model declined, or a content filter stopped it. Rephrase your message, or retry.`,
        fix: "retry",
        detail: message,
      };
    case "model_not_found":
      // A bare origin (`http://localhost:11434`) is the usual cause for an
      // OpenAI-compatible server: its API is under /v1, and every path
      // without it is a 404 that reads as a missing model.
      if (provider !== undefined && provider.kind === "openai" && bareOrigin(provider.base_url))
        return {
          text: `${name} found nothing at ${provider.base_url.replace(/\/+$/, "")}: its base URL probably needs /v1 — open Settings to change it.`,
          fix: "settings",
          detail: message,
        };
      return {
        text: `${name} has no model ${model !== null ? `“${model}”` : "by that name"}: choose another in the Model menu below and send again.`,
        fix: "model",
        detail: message,
      };
    case "rate_limited":
      return {
        text: `${name} is limiting requests right now: wait a moment, then retry.`,
        fix: "retry",
        detail: message,
      };
    case "overloaded":
      return { text: `${name} is overloaded right now: retry in a moment.`, fix: "retry", detail: message };
    case "server":
      return { text: `${name} failed on its side: retry, or choose another model.`, fix: "retry", detail: message };
    case "bad_response":
      return {
        text: `${name} answered with something Atelier could not read: retry, or choose another model.`,
        fix: "retry",
        detail: message,
      };
    case "invalid_request":
      return { text: `${name} refused the request: ${message}`, fix: "model", detail: null };
    default:
      return { text: message === "" ? "The answer failed." : message, fix: "retry", detail: null };
  }
}

/** Whether `url` is an origin with no path (`http://localhost:11434/`). */
function bareOrigin(url: string): boolean {
  try {
    return new URL(url).pathname.replace(/\/+$/, "") === "";
  } catch {
    return false;
  }
}

/** A command's rejection before any answer (no provider, no model…), as a sentence and a fix. */
export function describeFailure(kind: string | null, message: string): Described {
  if (/no LLM provider is set up/.test(message))
    return {
      text: "No model is set up yet: add a provider in Settings, or use one found on this computer.",
      fix: "settings",
      detail: null,
    };
  if (/several providers are set up/.test(message))
    return {
      text: "Several providers are set up: choose a model in the Model menu below, then send again.",
      fix: "model",
      detail: null,
    };
  if (/has no default model/.test(message))
    return {
      text: "This provider has no default model: choose one in the Model menu below, then send again.",
      fix: "model",
      detail: null,
    };
  if (kind === "conflict")
    return { text: "This chat is still answering: stop that run first.", fix: null, detail: message };
  if (kind === "provider") return describeRunError(null, message, undefined, [], null, null);
  return { text: message, fix: null, detail: null };
}

export function RunErrorView({
  described,
  onRetry,
  onOpenSettings,
  onOpenOptions,
}: {
  described: Described;
  onRetry?: () => void;
  onOpenSettings?: () => void;
  /** Opens the chat's Model options (see ModelSettingsPanel). */
  onOpenOptions?: () => void;
}) {
  const { text, fix, detail } = described;
  return (
    <div className="run-error" role="alert">
      <p className="run-error-text">{text}</p>
      {detail !== null && detail !== text && <p className="run-error-detail muted small">{detail}</p>}
      <div className="run-error-actions">
        {fix === "settings" && onOpenSettings !== undefined && (
          <button type="button" className="btn btn-small btn-primary" onClick={onOpenSettings}>
            Open Settings
          </button>
        )}
        {fix === "options" && onOpenOptions !== undefined && (
          <button type="button" className="btn btn-small btn-primary" onClick={onOpenOptions}>
            Model options
          </button>
        )}
        {/* A full context or a missing model fails the same way again: no Retry there. */}
        {onRetry !== undefined && fix !== "branch" && fix !== "model" && (
          <button type="button" className="btn btn-small" onClick={onRetry}>
            Retry
          </button>
        )}
      </div>
    </div>
  );
}
