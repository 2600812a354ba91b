import { act, fireEvent, render, screen, waitFor, within } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
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
    });
    render(<ProvidersSection active />);
    const form = await screen.findByRole("form", { name: "Add a provider" });
    await within(form).findByRole("option", { name: "OpenAI" });
    fireEvent.change(within(form).getByLabelText("Base URL"), { target: { value: "ftp://x" } });
    fireEvent.change(within(form).getByLabelText("Default model"), { target: { value: "gpt-4o-mini" } });
    fireEvent.change(within(form).getByLabelText("API key"), { target: { value: "sk-test-123" } });
    act(() => within(form).getByRole("button", { name: "Add provider" }).click());
    expect(await screen.findByRole("alert")).toHaveTextContent("use http:// or https://");
    // The key goes with the provider, in the same command.
    expect(argsOf(calls, "add_provider")[0]?.key).toBe("sk-test-123");
    fireEvent.change(within(form).getByLabelText("Base URL"), { target: { value: "" } });
    act(() => within(form).getByRole("button", { name: "Add provider" }).click());
    await waitFor(() => expect(argsOf(calls, "add_provider")).toHaveLength(2));
    expect(argsOf(calls, "add_provider")[1]).toMatchObject({
      spec: { id: "openai", preset: "openai", base_url: null },
      key: "sk-test-123",
    });
    await waitFor(() => expect(within(form).getByLabelText("API key")).toHaveValue(""));
    // A local server's preset asks for no key.
    fireEvent.change(within(form).getByRole("combobox"), { target: { value: "ollama" } });
    expect(within(form).queryByLabelText("API key")).toBeNull();
  });

  it("edits a provider in place: base URL, a default model from its own list, headers, a new key", async () => {
    let stored = provider({
      id: "oa",
      preset: "openai",
      base_url: "https://api.openai.com/v1",
      default_model: "gpt-4o-mini",
      headers: { "OpenAI-Organization": "org-1" },
      secret_headers: ["X-Proxy-Token"],
      key_from: "keychain",
    });
    const calls = mockCommands({
      provider_presets: () => PRESETS,
      list_providers: () => [stored],
      test_provider: () => ({
        provider_id: "oa",
        ok: true,
        models: ["gpt-4o-mini", "gpt-4o"],
        error_kind: null,
        error: null,
      }),
      update_provider: (a) => {
        const c = a.changes as { base_url: string; default_model: string | null; headers: Record<string, string> };
        stored = { ...stored, ...c };
        return stored;
      },
    });
    render(<ProvidersSection active />);
    const list = await screen.findByRole("list", { name: "Providers" });
    await userEvent.click(within(list).getByRole("button", { name: "Edit oa" }));
    const form = within(list).getByRole("form", { name: "Edit oa" });
    // The key is only said to be set; the secret header only named.
    const key = within(form).getByLabelText("API key");
    expect(key).toHaveValue("");
    expect(key).toHaveAttribute("placeholder", "set — type a new key to replace it");
    expect(form).toHaveTextContent("Now: key in the keychain.");
    expect(form).toHaveTextContent("X-Proxy-Token set, in the secret store");
    // The provider's models, asked when the form opens.
    await within(form).findByText("2 models listed by the provider.");
    const model = within(form).getByLabelText("Default model");
    expect([...model.querySelectorAll("option")].map((o) => o.textContent)).toEqual([
      "None (each chat chooses)",
      "gpt-4o-mini",
      "gpt-4o",
    ]);

    await userEvent.clear(within(form).getByLabelText("Base URL"));
    await userEvent.type(within(form).getByLabelText("Base URL"), "https://proxy.example/v1");
    await userEvent.selectOptions(model, "gpt-4o");
    await userEvent.click(within(form).getByRole("button", { name: "Remove header 1" }));
    await userEvent.click(within(form).getByRole("button", { name: "Add header" }));
    await userEvent.type(within(form).getByLabelText("Header 1 name"), "X-Team");
    await userEvent.type(within(form).getByLabelText("Header 1 value"), "research");
    await userEvent.type(key, "sk-new-456");
    await userEvent.click(within(form).getByRole("button", { name: "Save" }));

    await waitFor(() => expect(within(list).queryByRole("form")).toBeNull());
    // One save: the fields and the new key together.
    expect(argsOf(calls, "update_provider")).toEqual([
      {
        providerId: "oa",
        changes: { base_url: "https://proxy.example/v1", default_model: "gpt-4o", headers: { "X-Team": "research" } },
        key: "sk-new-456",
      },
    ]);
    expect(await within(list).findByText(/gpt-4o ·/)).toBeInTheDocument();
  });

  it("makes one of the models a test listed the default, and keeps the key when none is typed", async () => {
    let stored = provider({ id: "local", default_model: null });
    const calls = mockCommands({
      provider_presets: () => PRESETS,
      list_providers: () => [stored],
      test_provider: () => ({
        provider_id: "local",
        ok: true,
        models: ["tiny", "bigger"],
        error_kind: null,
        error: null,
      }),
      update_provider: (a) => {
        stored = { ...stored, ...(a.changes as object) };
        return stored;
      },
    });
    render(<ProvidersSection active />);
    const list = await screen.findByRole("list", { name: "Providers" });
    expect(list).toHaveTextContent("no default model");
    await userEvent.click(within(list).getByRole("button", { name: "Test connection" }));
    const choice = await within(list).findByRole("combobox", { name: "Default model" });
    await userEvent.selectOptions(choice, "bigger");
    await waitFor(() => expect(list).toHaveTextContent("bigger · no key"));
    expect(argsOf(calls, "update_provider")).toEqual([
      {
        providerId: "local",
        changes: { base_url: "http://127.0.0.1:9/v1", default_model: "bigger", headers: {} },
        key: null,
      },
    ]);

    // Editing without typing a key leaves the key alone.
    await userEvent.click(within(list).getByRole("button", { name: "Edit local" }));
    await userEvent.click(within(list).getByRole("button", { name: "Save" }));
    await waitFor(() => expect(argsOf(calls, "update_provider")).toHaveLength(2));
    expect(argsOf(calls, "update_provider")[1]).toMatchObject({ key: null });
  });
});
