import { render, screen, waitFor, within } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import { describe, expect, it, vi } from "vitest";
import type { ConfigField, ToolsetConfig } from "../src/bindings";
import { SecretsSection } from "../src/settings/SecretsSection";
import { ToolsetManager } from "../src/toolsets/ToolsetManager";
import { configField, details, secretsStatus, toolset } from "./fixtures";
import { argsOf, mockCommands, type Handlers } from "./ipc";

const weather = toolset({ id: "weather", name: "Weather", version: "1.0.0" });

function config(fields: ConfigField[], missing: string[] = []): ToolsetConfig {
  return { toolset_id: "weather", fields, missing };
}

const stored = config([
  configField("city", { title: "City", required: true, value: "Oslo", is_set: true }),
  configField("days", { type: "number", title: "Days", min: 1, max: 14, default: 3, value: 5, is_set: true }),
  configField("api_key", { title: "API key", sensitive: true, is_set: true }),
  configField("token", { title: "Token", sensitive: true }),
  configField("roots", {
    type: "directory",
    title: "Folders",
    multiple: true,
    value: ["/srv/a", "/srv/b"],
    is_set: true,
  }),
]);

/** The manager with Weather expanded: its details, then its settings. */
async function openDetails(handlers: Handlers) {
  const calls = mockCommands({
    list_toolsets: () => [weather],
    get_toolset: () => details(weather, []),
    ...handlers,
  });
  render(<ToolsetManager active onChanged={vi.fn()} />);
  await userEvent.click(await screen.findByRole("button", { name: "Details" }));
  return calls;
}

describe("an installed toolset's settings", () => {
  it("shows no Settings section for a toolset without settings", async () => {
    await openDetails({});
    await screen.findByText("This toolset has no tools.");
    await waitFor(() => expect(screen.queryByText("Loading settings…")).toBeNull());
    expect(screen.queryByRole("form", { name: "Settings of Weather" })).toBeNull();
  });

  it("prefills the form; sensitive ones say set or not set, never a value", async () => {
    await openDetails({ toolset_config: () => stored });
    const form = await screen.findByRole("form", { name: "Settings of Weather" });
    expect(within(form).getByLabelText(/^City/)).toHaveValue("Oslo");
    expect(within(form).getByLabelText("Days")).toHaveValue(5);
    expect(within(form).getByLabelText("Folders 1")).toHaveValue("/srv/a");
    expect(within(form).getByLabelText("Folders 2")).toHaveValue("/srv/b");
    const key = within(form).getByRole("group", { name: "API key" });
    expect(within(key).getByText("set")).toBeInTheDocument();
    expect(key.querySelector("input")).toBeNull(); // no input until Replace
    expect(within(form).getByLabelText("Token")).toHaveAttribute("type", "password");
    expect(within(form).getByText("not set")).toBeInTheDocument();
    expect(within(form).getByRole("button", { name: "Save" })).toBeDisabled();
  });

  it("saves changed values, a replaced secret and a cleared one, and shows the stored answer", async () => {
    const calls = await openDetails({
      toolset_config: () => stored,
      set_toolset_config: () =>
        config([
          configField("city", { title: "City", required: true, value: "Bergen", is_set: true }),
          configField("days", { type: "number", title: "Days", min: 1, max: 14, default: 3, value: 3, is_set: false }),
          configField("api_key", { title: "API key", sensitive: true, is_set: true }),
          configField("token", { title: "Token", sensitive: true }),
        ]),
    });
    const form = await screen.findByRole("form", { name: "Settings of Weather" });
    const city = within(form).getByLabelText(/^City/);
    await userEvent.clear(city);
    await userEvent.type(city, "Bergen");
    await userEvent.clear(within(form).getByLabelText("Days")); // emptied: back to the default
    await userEvent.click(within(form).getByRole("button", { name: "Replace API key" }));
    await userEvent.type(within(form).getByLabelText("API key"), "sk-new-2");
    await userEvent.click(within(form).getByRole("button", { name: "Remove Folders 2" }));
    await userEvent.click(within(form).getByRole("button", { name: "Save" }));
    expect(await screen.findByText("Saved.")).toBeInTheDocument();
    expect(argsOf(calls, "set_toolset_config")).toEqual([
      {
        id: "weather",
        values: { city: "Bergen", roots: ["/srv/a"] },
        secrets: { api_key: "sk-new-2" },
        unset: ["days"],
      },
    ]);
    const after = screen.getByRole("form", { name: "Settings of Weather" });
    expect(within(after).getByLabelText(/^City/)).toHaveValue("Bergen");
    expect(within(after).getByLabelText("Days")).toHaveValue(3);
    expect(within(after).getByRole("group", { name: "API key" }).querySelector("input")).toBeNull();
  });

  it("clears a stored secret on Save, with an undo before", async () => {
    const calls = await openDetails({
      toolset_config: () => stored,
      set_toolset_config: () => stored,
    });
    const form = await screen.findByRole("form", { name: "Settings of Weather" });
    await userEvent.click(within(form).getByRole("button", { name: "Clear API key" }));
    expect(within(form).getByText("cleared when you save")).toBeInTheDocument();
    await userEvent.click(within(form).getByRole("button", { name: "Undo" }));
    expect(within(form).getByRole("button", { name: "Save" })).toBeDisabled();
    await userEvent.click(within(form).getByRole("button", { name: "Clear API key" }));
    await userEvent.click(within(form).getByRole("button", { name: "Save" }));
    await screen.findByText("Saved.");
    expect(argsOf(calls, "set_toolset_config")).toEqual([
      { id: "weather", values: {}, secrets: {}, unset: ["api_key"] },
    ]);
  });

  it("highlights required settings without a value and shows a refusal naming the key", async () => {
    const missing = config(
      [
        configField("city", { title: "City", required: true }),
        configField("api_key", { title: "API key", sensitive: true, required: true }),
      ],
      ["city", "api_key"],
    );
    await openDetails({
      toolset_config: () => missing,
      set_toolset_config: () => {
        throw { kind: "config_invalid", message: 'setting "city" of toolset "weather": must be a string, got 3' };
      },
    });
    const form = await screen.findByRole("form", { name: "Settings of Weather" });
    expect(within(form).getAllByRole("alert")[0]).toHaveTextContent("Required settings have no value: City, API key.");
    const city = within(form).getByLabelText(/^City/);
    expect(city).toHaveAttribute("aria-invalid", "true");
    expect(city).toHaveAccessibleDescription("Required: give it a value.");
    expect(within(form).getByLabelText(/^API key/)).toHaveAttribute("aria-invalid", "true");
    await userEvent.type(city, "3");
    await userEvent.click(within(form).getByRole("button", { name: "Save" }));
    expect(await within(form).findByText(/must be a string, got 3/)).toBeInTheDocument();
    expect(within(form).getByLabelText(/^City/)).toHaveValue("3"); // kept for fixing
  });

  it("lists the variables it may read, and takes one back", async () => {
    let allowed = ["GITHUB_TOKEN"];
    const calls = await openDetails({
      toolset_allowed_env: () => allowed,
      allow_toolset_env: (a) => {
        allowed = allowed.filter((n) => n !== a.var);
        return allowed;
      },
    });
    const env = await screen.findByRole("region", { name: "Variables it may read" });
    expect(env).toHaveTextContent("$GITHUB_TOKEN");
    await userEvent.click(within(env).getByRole("button", { name: "Stop letting it read GITHUB_TOKEN" }));
    await waitFor(() => expect(screen.queryByRole("region", { name: "Variables it may read" })).toBeNull());
    expect(argsOf(calls, "allow_toolset_env")).toEqual([{ id: "weather", var: "GITHUB_TOKEN", allowed: false }]);
  });
});

describe("the Settings page's secrets section", () => {
  it("shows a reachable keychain and the count", async () => {
    mockCommands({ secrets_status: () => secretsStatus({ count: 3 }) });
    render(<SecretsSection active />);
    const facts = await screen.findByLabelText("Secret store");
    expect(facts).toHaveTextContent("Keychainreachable");
    expect(facts).toHaveTextContent("New secrets go toyour keychain");
    expect(facts).toHaveTextContent("Stored3 secrets");
    expect(screen.getByRole("checkbox", { name: /keep secrets in a file only I can read/ })).not.toBeChecked();
  });

  it("says why no keychain answers, and records the consent to the file", async () => {
    let allowed = false;
    const calls = mockCommands({
      secrets_status: () =>
        secretsStatus({
          keychain: false,
          keychain_error: "Secret Service: no result found",
          file_allowed: allowed,
          store: allowed ? "file" : null,
          file: "/home/me/.local/share/atelier/secrets.json",
        }),
      allow_file_secrets: (a) => {
        allowed = a.allowed === true;
        return secretsStatus({
          keychain: false,
          keychain_error: "Secret Service: no result found",
          file_allowed: allowed,
          store: allowed ? "file" : null,
          file: "/home/me/.local/share/atelier/secrets.json",
          count: 1,
        });
      },
    });
    render(<SecretsSection active />);
    const facts = await screen.findByLabelText("Secret store");
    expect(facts).toHaveTextContent("not reachable Secret Service: no result found");
    expect(facts).toHaveTextContent("nowhere yet");
    const box = screen.getByRole("checkbox", { name: /keep secrets in a file only I can read/ });
    await userEvent.click(box);
    await waitFor(() => expect(box).toBeChecked());
    expect(facts).toHaveTextContent("a file only you can read /home/me/.local/share/atelier/secrets.json");
    expect(facts).toHaveTextContent("Stored1 secret");
    expect(argsOf(calls, "allow_file_secrets")).toEqual([{ allowed: true }]);
    await userEvent.click(box);
    await waitFor(() => expect(box).not.toBeChecked());
    expect(argsOf(calls, "allow_file_secrets")).toEqual([{ allowed: true }, { allowed: false }]);
  });

  it("checks again each time the page is shown", async () => {
    const calls = mockCommands({ secrets_status: () => secretsStatus() });
    const { rerender } = render(<SecretsSection active={false} />);
    await screen.findByLabelText("Secret store");
    rerender(<SecretsSection active />);
    await waitFor(() => expect(argsOf(calls, "secrets_status")).toHaveLength(2));
    rerender(<SecretsSection active={false} />);
    rerender(<SecretsSection active />);
    await waitFor(() => expect(argsOf(calls, "secrets_status")).toHaveLength(3));
  });
});
