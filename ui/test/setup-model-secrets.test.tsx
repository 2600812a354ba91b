// The first-run "Or add an API key" form says where the key will go, and
// where no keychain answers it offers the file only the person can read
// right there, instead of failing on save with a command to run.
import { render, screen, waitFor, within } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import { describe, expect, it, vi } from "vitest";
import type { Preset, SecretsStatus } from "../src/bindings";
import { SetupModel } from "../src/conversation/SetupModel";
import { secretsStatus } from "./fixtures";
import { argsOf, mockCommands } from "./ipc";

const PRESETS: Preset[] = [
  {
    name: "openai",
    title: "OpenAI",
    kind: "openai",
    base_url: "https://api.openai.com/v1",
    key_env: null,
    local: false,
  },
];
const FILE = "/home/me/.local/share/atelier/secrets.json";

function form() {
  return screen.getByRole("form", { name: "Add an API key" });
}

describe("the first-run API key form", () => {
  it("says the key goes to the system keychain where one answers", async () => {
    mockCommands({});
    render(<SetupModel presets={PRESETS} onAdded={vi.fn()} />);
    await waitFor(() => expect(form()).toHaveTextContent("The key goes to your system keychain"));
    expect(within(form()).queryByRole("button", { name: "Keep secrets in a file only I can read" })).toBeNull();
  });

  it("without a keychain, offers the file first, then says the key goes there and saves it", async () => {
    let status: SecretsStatus = secretsStatus({
      keychain: false,
      keychain_error: "Secret Service: no result found",
      store: null,
      file: FILE,
    });
    const onAdded = vi.fn();
    const calls = mockCommands({
      secrets_status: () => status,
      allow_file_secrets: () => {
        status = { ...status, file_allowed: true, store: "file" };
        return status;
      },
      add_provider: (a) => {
        expect(status.store).toBe("file");
        return {
          id: "openai",
          kind: "openai",
          preset: "openai",
          base_url: "https://api.openai.com/v1",
          default_model: "gpt-4o-mini",
          headers: {},
          secret_headers: [],
          key_from: a.key === null ? null : "file",
          created_at: "2025-01-01T00:00:00Z",
          updated_at: "2025-01-01T00:00:00Z",
        };
      },
    });
    render(<SetupModel presets={PRESETS} onAdded={onAdded} />);
    const allow = await within(form()).findByRole("button", { name: "Keep secrets in a file only I can read" });
    expect(form()).toHaveTextContent("No keychain is reachable on this computer");
    await userEvent.type(within(form()).getByLabelText("API key"), "sk-first-run-1");
    // Nothing to keep it in yet: saving would only fail.
    expect(within(form()).getByRole("button", { name: "Save key" })).toBeDisabled();

    await userEvent.click(allow);
    await waitFor(() => expect(form()).toHaveTextContent(`The key goes to a file only you can read ${FILE}`));
    expect(argsOf(calls, "allow_file_secrets")).toEqual([{ allowed: true }]);
    await userEvent.click(within(form()).getByRole("button", { name: "Save key" }));
    await waitFor(() => expect(onAdded).toHaveBeenCalled());
    expect(argsOf(calls, "add_provider")[0]).toMatchObject({ key: "sk-first-run-1" });
  });
});
