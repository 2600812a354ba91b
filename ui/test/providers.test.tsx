import { act, fireEvent, render, screen, waitFor, within } from "@testing-library/react";
import { describe, expect, it } from "vitest";
import type { Preset, ProviderRecord } from "../src/bindings";
import { ProvidersSection } from "../src/settings/ProvidersSection";
import { argsOf, mockCommands } from "./ipc";

const PRESETS: Preset[] = [
  {
    name: "openai",
    title: "OpenAI",
    kind: "openai",
    base_url: "https://api.openai.com/v1",
    key_env: "OPENAI_API_KEY",
    local: false,
  },
  {
    name: "ollama",
    title: "Ollama",
    kind: "openai",
    base_url: "http://localhost:11434/v1",
    key_env: null,
    local: true,
  },
];

function provider(over: Partial<ProviderRecord>): ProviderRecord {
  return {
    id: "local",
    kind: "openai",
    preset: null,
    base_url: "http://127.0.0.1:9/v1",
    default_model: "tiny",
    headers: {},
    secret_headers: [],
    key_from: null,
    created_at: "2026-11-24T10:00:00.000Z",
    updated_at: "2026-11-24T10:00:00.000Z",
    ...over,
  };
}

describe("model providers in settings", () => {
  it("tests a provider's connection and says what failed in words", async () => {
    mockCommands({
      provider_presets: () => PRESETS,
      list_providers: () => [
        provider({ id: "local" }),
        provider({ id: "openai", preset: "openai", key_from: "keychain" }),
      ],
      test_provider: (a) =>
        a.providerId === "local"
          ? { provider_id: "local", ok: true, models: ["tiny", "bigger"], error_kind: null, error: null }
          : {
              provider_id: "openai",
              ok: false,
              models: [],
              error_kind: "auth",
              error: "the API key was refused: check the API key of provider openai",
            },
    });
    render(<ProvidersSection active />);
    const list = await screen.findByRole("list", { name: "Providers" });
    expect(within(list).getByText(/key in the keychain/)).toBeInTheDocument();
    const [first, second] = within(list).getAllByRole("listitem");
    if (first === undefined || second === undefined) throw new Error("two rows");
    act(() => within(first).getByRole("button", { name: "Test connection" }).click());
    await waitFor(() => expect(first).toHaveTextContent("connected 2 model(s): tiny, bigger"));
    act(() => within(second).getByRole("button", { name: "Test connection" }).click());
    await waitFor(() => expect(second).toHaveTextContent("auth the API key was refused"));
  });

  it("offers a server found on this computer and adds it with one click", async () => {
    let added: ProviderRecord[] = [];
    const calls = mockCommands({
      provider_presets: () => PRESETS,
      list_providers: () => added,
      detect_providers: () => [
        { preset: "ollama", title: "Ollama", base_url: "http://localhost:11434/v1", models: ["qwen2.5:0.5b", "llava"] },
      ],
      add_provider: () => {
        const p = provider({ id: "ollama", preset: "ollama", base_url: "http://localhost:11434/v1" });
        added = [p];
        return p;
      },
    });
    render(<ProvidersSection active />);
    expect(await screen.findByText("No provider is set up yet.")).toBeInTheDocument();
    const use = await screen.findByRole("button", { name: "Use Ollama" });
    act(() => use.click());
    await waitFor(() => expect(screen.queryByRole("button", { name: "Use Ollama" })).toBeNull());
    expect(argsOf(calls, "add_provider")[0]?.spec).toMatchObject({
      id: "ollama",
      preset: "ollama",
      base_url: "http://localhost:11434/v1",
      default_model: "qwen2.5:0.5b",
    });
    expect(await screen.findByRole("list", { name: "Providers" })).toHaveTextContent("ollama");
  });

  it("adds a hosted provider with its key sent to the secret store, and shows a refusal in place", async () => {
    let fail = true;
    const calls = mockCommands({
      provider_presets: () => PRESETS,
      add_provider: (a) => {
        if (fail) {
          fail = false;
          throw { kind: "invalid_data", message: 'provider base URL "ftp://x": use http:// or https://' };
        }
        return provider({ id: String((a.spec as { id: string }).id), preset: "openai" });
      },
      set_provider_key: () => provider({ id: "openai", preset: "openai", key_from: "keychain" }),
    });
    render(<ProvidersSection active />);
    const form = await screen.findByRole("form", { name: "Add a provider" });
    await within(form).findByRole("option", { name: "OpenAI" });
    fireEvent.change(within(form).getByLabelText("Base URL"), { target: { value: "ftp://x" } });
    fireEvent.change(within(form).getByLabelText("Default model"), { target: { value: "gpt-4o-mini" } });
    fireEvent.change(within(form).getByLabelText("API key"), { target: { value: "sk-test-123" } });
    act(() => within(form).getByRole("button", { name: "Add provider" }).click());
    expect(await screen.findByRole("alert")).toHaveTextContent("use http:// or https://");
    expect(argsOf(calls, "set_provider_key")).toEqual([]);
    fireEvent.change(within(form).getByLabelText("Base URL"), { target: { value: "" } });
    act(() => within(form).getByRole("button", { name: "Add provider" }).click());
    await waitFor(() =>
      expect(argsOf(calls, "set_provider_key")).toEqual([{ providerId: "openai", key: "sk-test-123" }]),
    );
    expect(argsOf(calls, "add_provider")[1]?.spec).toMatchObject({ id: "openai", preset: "openai", base_url: null });
    await waitFor(() => expect(within(form).getByLabelText("API key")).toHaveValue(""));
    // A local server's preset asks for no key.
    fireEvent.change(within(form).getByRole("combobox"), { target: { value: "ollama" } });
    expect(within(form).queryByLabelText("API key")).toBeNull();
  });
});
