// A run's failure said as a person would, in place, with the fix; and an
// app without a model: the servers found on this computer, or an API key.
import { act, render, screen, waitFor, within } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import { afterEach, describe, expect, it } from "vitest";
import { describeRunError, RunErrorView } from "../src/conversation/RunError";
import { resetRuns } from "../src/conversation/runStore";
import { forgetChoices } from "../src/conversation/Switchers";
import { chatBackend, message, meta, openChat, PRESETS, provider, text } from "./chatBackend";
import { argsOf } from "./ipc";

afterEach(() => {
  resetRuns();
  forgetChoices();
});

function failed(kind: string, error: string, over = {}) {
  return [
    message("u1", "m0", "user", [text("Hello")]),
    message("a1", "u1", "assistant", [], { meta: meta({ status: "failed", error_kind: kind, error, ...over }) }),
  ];
}

const alert = () =>
  waitFor(() => {
    const a = document.querySelector<HTMLElement>('#panel-tools .run-error[role="alert"]');
    expect(a).not.toBeNull();
    return a!;
  });

describe("a run's error", () => {
  it("says a local server is not running, where, and retries", async () => {
    const b = chatBackend({ messages: failed("network", "error sending request for url (http://localhost:11434/v1)") });
    await openChat();
    const a = await alert();
    expect(a).toHaveTextContent("Ollama is not running at localhost:11434.");
    await userEvent.click(within(a).getByRole("button", { name: "Retry" }));
    await waitFor(() => expect(b.runs).toHaveLength(1));
    expect(b.run().command).toBe("retry_message");
    expect(b.run().args.messageId).toBe("a1");
  });

  it("sends the person to Settings when the API key is refused", async () => {
    chatBackend({
      providers: [provider({ id: "openai", preset: "openai", base_url: "https://api.openai.com/v1" })],
      messages: failed("auth", "401 Unauthorized: invalid api key", { provider_id: "openai", model: "gpt-4o-mini" }),
      extra: {
        get_settings: () => ({ saved: { frame_origins: [] }, frame_origins_in_effect: [] }),
      },
    });
    await openChat();
    const a = await alert();
    expect(a).toHaveTextContent("The API key for OpenAI was refused — open Settings");
    // Once the key is right, the same answer can be asked for again.
    expect(within(a).getByRole("button", { name: "Retry" })).toBeInTheDocument();
    const shown: Element[] = [];
    Element.prototype.scrollIntoView = function (this: Element) {
      shown.push(this);
    };
    try {
      await userEvent.click(within(a).getByRole("button", { name: "Open Settings" }));
      expect(screen.getByRole("tab", { name: "Settings" })).toHaveAttribute("aria-selected", "true");
      // Settings opens at the provider whose key was refused, marked for a moment.
      const row = await waitFor(() => {
        const r = document.querySelector<HTMLElement>('#panel-settings li.provider-row[data-provider-id="openai"]');
        expect(r).not.toBeNull();
        return r!;
      });
      await waitFor(() => expect(shown).toContain(row));
      expect(row).toHaveClass("provider-row-marked");
      expect(row).toHaveAttribute("aria-current", "true");
      await waitFor(() => expect(row).not.toHaveClass("provider-row-marked"), { timeout: 4000 });
    } finally {
      delete (Element.prototype as { scrollIntoView?: unknown }).scrollIntoView;
    }
  });

  it("says the context is full and how to go on, without a Retry that would fail again", async () => {
    chatBackend({ messages: failed("context_length", "maximum context length is 8192 tokens") });
    await openChat();
    const a = await alert();
    expect(a).toHaveTextContent("The model's context is full: start a new branch from an earlier message or fork.");
    expect(within(a).queryByRole("button", { name: "Retry" })).toBeNull();
  });

  it("names a model the provider does not have", async () => {
    chatBackend({
      messages: failed("model_not_found", "model 'qwen9' not found; provider ollama offers: qwen2.5:7b", {
        model: "qwen9",
      }),
    });
    await openChat();
    const a = await alert();
    expect(a).toHaveTextContent("Ollama has no model “qwen9”: choose another in the Model menu below and send again.");
    expect(within(a).queryByRole("button", { name: "Retry" })).toBeNull();
    expect(a).toHaveTextContent("offers: qwen2.5:7b");
  });

  it("sends a base URL without /v1 to Settings rather than blaming the model", async () => {
    chatBackend({
      providers: [provider({ id: "ollama", preset: "ollama", base_url: "http://localhost:11434" })],
      messages: failed("model_not_found", 'ollama has no model "qwen2.5:7b" (404): 404 page not found', {
        provider_id: "ollama",
        model: "qwen2.5:7b",
      }),
      extra: {
        get_settings: () => ({ saved: { frame_origins: [] }, frame_origins_in_effect: [] }),
      },
    });
    await openChat();
    const a = await alert();
    expect(a).toHaveTextContent(
      "Ollama found nothing at http://localhost:11434: its base URL probably needs /v1 — open Settings to change it.",
    );
    // Once the URL is right, the same answer can be asked for again.
    expect(within(a).getByRole("button", { name: "Retry" })).toBeInTheDocument();
    await userEvent.click(within(a).getByRole("button", { name: "Open Settings" }));
    expect(screen.getByRole("tab", { name: "Settings" })).toHaveAttribute("aria-selected", "true");
  });

  it("says when the command itself was refused, in place", async () => {
    const b = chatBackend();
    const box = await openChat();
    await userEvent.type(box, "hi{Enter}");
    await waitFor(() => expect(b.runs).toHaveLength(1));
    act(() =>
      b.run().fail({
        kind: "invalid_data",
        message: "invalid provider: several providers are set up: choose one with --provider (it stays the chat's)",
      }),
    );
    const a = await alert();
    expect(a).toHaveTextContent("Several providers are set up: choose a model in the Model menu below");
  });
});

describe("an app without a model", () => {
  it("offers the servers found on this computer, one click each", async () => {
    const providers: ReturnType<typeof provider>[] = [];
    const b = chatBackend({
      providers,
      extra: {
        list_providers: () => providers,
        detect_providers: () => [
          { preset: "ollama", title: "Ollama", base_url: "http://localhost:11434/v1", models: ["qwen2.5:7b", "llava"] },
        ],
        add_provider: () => {
          const p = provider();
          providers.push(p);
          return p;
        },
      },
    });
    await openChat();
    const setup = await screen.findByRole("region", { name: "Set up a model" });
    expect(setup).toHaveTextContent("2 models: qwen2.5:7b, llava");
    await userEvent.click(await within(setup).findByRole("button", { name: "Use Ollama" }));
    expect(argsOf(b.calls, "add_provider")).toEqual([
      {
        spec: {
          id: "ollama",
          preset: "ollama",
          kind: null,
          base_url: "http://localhost:11434/v1",
          default_model: "qwen2.5:7b",
          headers: {},
        },
        key: null,
      },
    ]);
    await waitFor(() => expect(screen.queryByRole("region", { name: "Set up a model" })).toBeNull());
    expect(screen.getByRole("combobox", { name: "Model" })).toBeInTheDocument();
  });

  it("takes an API key in a short form; the tool picker still works", async () => {
    const b = chatBackend({
      providers: [],
      extra: {
        add_provider: () => provider({ id: "anthropic", preset: "anthropic", key_from: "keychain" }),
      },
    });
    await openChat();
    const setup = await screen.findByRole("region", { name: "Set up a model" });
    expect(setup).toHaveTextContent("None answered");
    await userEvent.selectOptions(within(setup).getByRole("combobox", { name: "Provider" }), "anthropic");
    await userEvent.type(within(setup).getByLabelText("API key"), "sk-ant-123");
    await userEvent.click(within(setup).getByRole("button", { name: "Save key" }));
    // The provider and its key in one command (nothing half-added if the key cannot be kept).
    await waitFor(() =>
      expect(argsOf(b.calls, "add_provider")[0]).toMatchObject({
        spec: { id: "anthropic", preset: "anthropic" },
        key: "sk-ant-123",
      }),
    );
    expect(screen.getByRole("combobox", { name: "Search tools" })).toBeInTheDocument();
  });
});

describe("a message that was not sent", () => {
  it("stays on screen, marked, and can be copied", async () => {
    const b = chatBackend();
    const box = await openChat();
    await userEvent.type(box, "are you there?{Enter}");
    await waitFor(() => expect(b.runs).toHaveLength(1));
    act(() =>
      b.run().fail({
        kind: "invalid_data",
        message: "invalid provider: no LLM provider is set up: `atelier provider detect`",
      }),
    );
    const a = await alert();
    expect(a).toHaveTextContent("No model is set up yet: add a provider in Settings");
    expect(within(a).getByRole("button", { name: "Open Settings" })).toBeInTheDocument();
    const unsent = document.querySelector<HTMLElement>('#panel-tools article.message[data-role="user"]')!;
    expect(unsent).toHaveTextContent("are you there?");
    expect(unsent).toHaveTextContent("Not sent");
    expect(unsent).not.toHaveAttribute("aria-busy");
    expect(screen.getByRole("button", { name: "Send" })).toBeInTheDocument();
    // And the text is back in the box, to send again once a model is set up.
    await waitFor(() => expect(box).toHaveValue("are you there?"));
    expect(screen.getByText("Not sent: your message is back in the box.")).toBeInTheDocument();
  });

  it("an edit that was not sent opens its editor again with the new text", async () => {
    const b = chatBackend({
      messages: [message("u1", "m0", "user", [text("What is 2+2?")]), message("a1", "u1", "assistant", [text("4.")])],
    });
    await openChat();
    const user = await waitFor(() => {
      const el = document.querySelector<HTMLElement>('#panel-tools article.message[data-role="user"]');
      expect(el).not.toBeNull();
      return el!;
    });
    await userEvent.click(within(user).getByRole("button", { name: "Edit message" }));
    const editor = within(user).getByRole("textbox", { name: "Edit message" });
    await userEvent.clear(editor);
    await userEvent.type(editor, "What is 3+3, exactly?");
    await userEvent.click(within(user).getByRole("button", { name: "Send edit" }));
    await waitFor(() => expect(b.runs).toHaveLength(1));
    act(() => b.run().fail({ kind: "conflict", message: "chat c1 is already answering: stop that run first" }));
    const again = await within(user).findByRole("textbox", { name: "Edit message" });
    expect(again).toHaveValue("What is 3+3, exactly?");
  });
});

describe("errors in words", () => {
  const ollama = provider();
  const openai = provider({ id: "openai", preset: "openai", base_url: "https://api.openai.com/v1" });
  const say = (kind: string, p = ollama) => describeRunError(kind, "raw", p, PRESETS, p.id, "qwen2.5:7b");
  it("names the provider, where it is, and the fix", () => {
    expect(say("network", openai)).toMatchObject({
      text: "OpenAI could not be reached at api.openai.com. Check your connection, then retry.",
      fix: "retry",
    });
    expect(say("rate_limited", openai).text).toBe("OpenAI is limiting requests right now: wait a moment, then retry.");
    expect(say("overloaded").text).toBe("Ollama is overloaded right now: retry in a moment.");
    expect(say("server").fix).toBe("retry");
    expect(say("bad_response").text).toContain("answered with something Atelier could not read");
    // The same request would be cut at the same limit: the limit is the fix.
    expect(say("output_limit")).toMatchObject({
      text: "The answer reached the model's output limit and was cut here: raise “Max tokens of an answer” in Model options, then retry.",
      fix: "options",
    });
    // A message alone over the window: no earlier message to branch from.
    expect(say("message_too_long")).toMatchObject({
      text: "This message (with its tools' latest results) is more than the model's context window holds, even with every earlier message left out: shorten it, or raise “Context window” in Model options if the model takes more.",
      fix: "options",
    });
    expect(say("context_length").fix).toBe("branch");
    expect(say("refused", openai)).toMatchObject({
      text: "OpenAI ended the answer here: the model declined, or a content filter stopped it. Rephrase your message, or retry.",
      fix: "retry",
    });
    expect(say("something_new")).toEqual({ text: "raw", fix: "retry", detail: null });
  });

  it("offers the chat's Model options, not the app's Settings, for a limit of the chat", async () => {
    const opened: string[] = [];
    render(
      <RunErrorView
        described={say("output_limit")}
        onRetry={() => opened.push("retry")}
        onOpenSettings={() => opened.push("settings")}
        onOpenOptions={() => opened.push("options")}
      />,
    );
    expect(screen.queryByRole("button", { name: "Open Settings" })).toBeNull();
    await userEvent.click(screen.getByRole("button", { name: "Model options" }));
    // Once the limit is raised, the same answer can be asked for again.
    await userEvent.click(screen.getByRole("button", { name: "Retry" }));
    expect(opened).toEqual(["options", "retry"]);
  });
});
