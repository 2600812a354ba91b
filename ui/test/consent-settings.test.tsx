import { render, screen, waitFor, within } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import { describe, expect, it, vi } from "vitest";
import type { ConfigField } from "../src/bindings";
import { ToolsetManager } from "../src/toolsets/ToolsetManager";
import { bundle, bundleWithSettings, configField, consent, importReport, secretsStatus, toolset } from "./fixtures";
import { argsOf, mockCommands } from "./ipc";
import { csv, reviewZip } from "./toolsetReview";

const fields: ConfigField[] = [
  configField("city", { title: "City", description: "Where the forecast is for.", required: true }),
  configField("days", { type: "number", title: "Days", min: 1, max: 14, default: 3, value: 3 }),
  configField("metric", { type: "boolean", title: "Metric units", default: true, value: true }),
  configField("api_key", { title: "API key", sensitive: true, required: true }),
  configField("cache", { type: "directory", title: "Cache folder" }),
  configField("extra", { type: "file", title: "Extra files", multiple: true }),
];

/** import_toolset's arguments without the progress channel. */
const importArgs = (calls: ReturnType<typeof mockCommands>) =>
  argsOf(calls, "import_toolset").map(({ onProgress: _channel, ...rest }) => rest);

describe("the consent step's settings form", () => {
  it("generates a field per setting by type, with titles, descriptions, defaults and bounds", async () => {
    const { panel } = await reviewZip({ check_bundle: () => bundleWithSettings(fields) });
    const form = within(panel).getByRole("region", { name: "Settings" });
    const city = within(form).getByLabelText(/^City/);
    expect(city).toHaveAttribute("type", "text");
    expect(city).toHaveAttribute("aria-required", "true");
    expect(city).toHaveAccessibleDescription("Where the forecast is for.");
    const days = within(form).getByLabelText("Days");
    expect(days).toHaveAttribute("type", "number");
    expect(days).toHaveAttribute("min", "1");
    expect(days).toHaveAttribute("max", "14");
    expect(days).toHaveValue(3);
    expect(within(form).getByText("From 1 to 14.")).toBeInTheDocument();
    expect(within(form).getByLabelText("Metric units")).toBeChecked();
    expect(within(form).getByLabelText(/^API key/)).toHaveAttribute("type", "password");
    expect(within(form).queryByText("not set")).toBeNull(); // nothing stored yet: no badge on an install
    expect(within(form).getByLabelText("Cache folder")).toHaveValue("");
    expect(within(form).getByRole("button", { name: "Choose Cache folder" })).toBeInTheDocument();
    expect(within(form).getByRole("group", { name: "Extra files" })).toHaveTextContent("No files yet.");
  });

  it("blocks Install until the required settings have a value, naming them", async () => {
    const { panel } = await reviewZip({ check_bundle: () => bundleWithSettings(fields) });
    const install = within(panel).getByRole("button", { name: "Install" });
    expect(install).toBeDisabled();
    expect(panel).toHaveTextContent("Fill in the required settings City, API key to install.");
    await userEvent.type(within(panel).getByLabelText(/^City/), "Oslo");
    expect(panel).toHaveTextContent("Fill in the required setting API key to install.");
    expect(install).toBeDisabled();
    await userEvent.type(within(panel).getByLabelText(/^API key/), "sk-123");
    expect(install).toBeEnabled();
    expect(panel).not.toHaveTextContent("Fill in");
    await userEvent.clear(within(panel).getByLabelText(/^City/));
    expect(install).toBeDisabled();
  });

  it("sends plain values as config and the sensitive one only as a secret; unchanged defaults stay defaults", async () => {
    const { calls, panel } = await reviewZip({
      check_bundle: () => bundleWithSettings(fields),
      pick_setting_path: (a) => (a.directory === true ? "/home/me/.cache/weather" : "/home/me/cities.csv"),
    });
    await userEvent.type(within(panel).getByLabelText(/^City/), "Oslo");
    await userEvent.type(within(panel).getByLabelText(/^API key/), "sk-secret-1");
    await userEvent.click(within(panel).getByRole("button", { name: "Choose Cache folder" }));
    await waitFor(() => expect(within(panel).getByLabelText("Cache folder")).toHaveValue("/home/me/.cache/weather"));
    // Two files: one from the dialog, one typed; a third added and removed.
    await userEvent.click(within(panel).getByRole("button", { name: "Add a file to Extra files" }));
    await userEvent.click(within(panel).getByRole("button", { name: "Type a file for Extra files" }));
    await userEvent.type(within(panel).getByLabelText("Extra files 2"), "/home/me/more.csv");
    await userEvent.click(within(panel).getByRole("button", { name: "Type a file for Extra files" }));
    await userEvent.click(within(panel).getByRole("button", { name: "Remove Extra files 3" }));
    await userEvent.click(within(panel).getByRole("button", { name: "Install" }));
    await screen.findByRole("region", { name: "Installed" });
    expect(importArgs(calls)).toEqual([
      {
        path: "/home/me/csv-report.zip",
        force: false,
        agents: ["assistant"],
        config: { city: "Oslo", cache: "/home/me/.cache/weather", extra: ["/home/me/cities.csv", "/home/me/more.csv"] },
        secrets: { api_key: "sk-secret-1" },
        allowEnv: [],
      },
    ]);
    expect(argsOf(calls, "pick_setting_path")).toEqual([{ directory: true }, { directory: false }]);
  });

  it("on an upgrade keeps the stored values: a kept secret counts as given and is not sent again", async () => {
    const calls = mockCommands({
      list_toolsets: () => [toolset({ id: "csv-report", name: "CSV Report", version: "0.1.0" })],
      pick_bundle: () => "/home/me/csv-report.zip",
      check_bundle: () =>
        bundleWithSettings([
          configField("city", { title: "City", required: true, value: "Oslo", is_set: true }),
          configField("api_key", { title: "API key", sensitive: true, required: true, is_set: true }),
        ]),
      import_toolset: () => importReport(csv, { action: "upgraded", previous_version: "0.1.0" }),
    });
    render(<ToolsetManager active onChanged={vi.fn()} />);
    await screen.findByText("CSV Report");
    await userEvent.click(screen.getByRole("button", { name: "Import…" }));
    const upgrade = await screen.findByRole("button", { name: "Upgrade" });
    expect(upgrade).toBeEnabled();
    expect(screen.getByLabelText(/^City/)).toHaveValue("Oslo");
    expect(screen.getByLabelText(/^API key/)).toHaveAttribute("placeholder", "Leave empty to keep the stored value");
    expect(screen.getByText("set")).toBeInTheDocument();
    await userEvent.click(upgrade);
    await screen.findByRole("region", { name: "Installed" });
    expect(importArgs(calls)[0]).toMatchObject({ config: {}, secrets: {}, agents: [] });
  });

  it("sends a changed number as a number and a changed box as a boolean", async () => {
    const { calls, panel } = await reviewZip({
      check_bundle: () => bundleWithSettings(fields.filter((f) => f.key === "days" || f.key === "metric")),
    });
    const days = within(panel).getByLabelText("Days");
    await userEvent.clear(days);
    await userEvent.type(days, "7");
    await userEvent.click(within(panel).getByLabelText("Metric units"));
    await userEvent.click(within(panel).getByRole("button", { name: "Install" }));
    await screen.findByRole("region", { name: "Installed" });
    expect(importArgs(calls)[0]).toMatchObject({ config: { days: 7, metric: false }, secrets: {} });
  });

  it("returns to the form as filled when the core refuses a value, marking the setting it names", async () => {
    let attempts = 0;
    const { calls, panel } = await reviewZip({
      check_bundle: () => bundleWithSettings(fields.slice(0, 2)),
      import_toolset: () => {
        attempts += 1;
        if (attempts === 1) {
          throw {
            kind: "config_invalid",
            message: 'setting "days" of toolset "csv-report": must be a number from 1 to 14, got 40',
          };
        }
        return importReport(csv);
      },
    });
    await userEvent.type(within(panel).getByLabelText(/^City/), "Oslo");
    const days = within(panel).getByLabelText("Days");
    await userEvent.clear(days);
    await userEvent.type(days, "40");
    await userEvent.click(within(panel).getByRole("button", { name: "Install" }));
    const form = await screen.findByRole("region", { name: "Settings" });
    expect(within(form).getByRole("alert")).toHaveTextContent(
      'Not installed: setting "days" of toolset "csv-report": must be a number from 1 to 14, got 40',
    );
    expect(within(form).getByLabelText("Days")).toHaveAttribute("aria-invalid", "true");
    expect(within(form).getByLabelText(/^City/)).toHaveAttribute("aria-invalid", "false");
    expect(within(form).getByLabelText(/^City/)).toHaveValue("Oslo");
    await userEvent.clear(within(form).getByLabelText("Days"));
    await userEvent.type(within(form).getByLabelText("Days"), "4");
    await userEvent.click(screen.getByRole("button", { name: "Install" }));
    await screen.findByRole("region", { name: "Installed" });
    expect(importArgs(calls).map((a) => a.config)).toEqual([
      { city: "Oslo", days: 40 },
      { city: "Oslo", days: 4 },
    ]);
  });
});

describe("the consent step's secrets and variables", () => {
  it("says how many secret values the bundle holds, by name, and where they will be kept", async () => {
    const { panel } = await reviewZip({
      check_bundle: () =>
        bundle({
          consent: consent({
            secret_values: [
              { server_id: "files", field: "env", name: "API_TOKEN" },
              { server_id: "web", field: "headers", name: "Authorization" },
            ],
          }),
        }),
    });
    const secrets = within(panel).getByRole("region", { name: "Secrets" });
    expect(secrets).toHaveTextContent("This bundle contains 2 secret values; they will be kept in your keychain.");
    expect(within(secrets).getByRole("list", { name: "Secret values" })).toHaveTextContent(
      "files: env API_TOKENweb: headers Authorization",
    );
  });

  it("offers the file where no keychain is reachable, then checks the bundle again", async () => {
    let store: "file" | null = null;
    const { calls, panel } = await reviewZip({
      check_bundle: () =>
        bundle({
          consent: consent({
            secret_values: [{ server_id: "files", field: "env", name: "API_TOKEN" }],
            secret_store: store,
          }),
        }),
      secrets_status: () =>
        secretsStatus({
          keychain: false,
          keychain_error: "Secret Service: no result found",
          store,
          file: "/home/me/.local/share/atelier/secrets.json",
        }),
      allow_file_secrets: (a) => {
        store = a.allowed === true ? "file" : null;
        return secretsStatus({ keychain: false, file_allowed: true, store });
      },
    });
    const secrets = within(panel).getByRole("region", { name: "Secrets" });
    expect(secrets).toHaveTextContent("This bundle contains 1 secret value.");
    expect(await within(secrets).findByText(/Secret Service: no result found/)).toBeInTheDocument();
    expect(secrets).toHaveTextContent("No keychain is reachable on this computer");
    await userEvent.click(within(secrets).getByRole("button", { name: "Keep secrets in a file only I can read" }));
    await waitFor(() =>
      expect(within(panel).getByRole("region", { name: "Secrets" })).toHaveTextContent(
        "This bundle contains 1 secret value; it will be kept in a file only you can read.",
      ),
    );
    expect(argsOf(calls, "allow_file_secrets")).toEqual([{ allowed: true }]);
    expect(argsOf(calls, "check_bundle")).toHaveLength(2);
    expect(within(panel).queryByRole("button", { name: "Keep secrets in a file only I can read" })).toBeNull();
  });

  it("lets it read a variable of the environment only when ticked, and offers a field for the others", async () => {
    const { calls, panel } = await reviewZip({
      check_bundle: () =>
        bundle({
          consent: consent({
            env_references: [
              {
                name: "GITHUB_TOKEN",
                server_ids: ["gh"],
                in_environment: true,
                allowed: false,
                stored: false,
                origin: null,
              },
              {
                name: "SLACK_TOKEN",
                server_ids: ["chat"],
                in_environment: false,
                allowed: false,
                stored: false,
                origin: null,
              },
              {
                name: "OLD_KEY",
                server_ids: ["gh"],
                in_environment: false,
                allowed: false,
                stored: true,
                origin: "person",
              },
              {
                name: "SHIPPED_KEY",
                server_ids: ["gh"],
                in_environment: false,
                allowed: false,
                stored: true,
                origin: "bundle",
              },
            ],
          }),
        }),
    });
    const env = within(panel).getByRole("region", { name: "Environment variables" });
    const tick = within(env).getByRole("checkbox", { name: /Let it read \$GITHUB_TOKEN from your environment/ });
    expect(tick).not.toBeChecked();
    expect(within(env).queryByRole("checkbox", { name: /SLACK_TOKEN/ })).toBeNull();
    expect(env).toHaveTextContent("$SLACK_TOKEN not set: server chat will need it.");
    expect(within(env).getByLabelText("Value of SLACK_TOKEN")).toHaveAttribute("type", "password");
    expect(env).not.toHaveTextContent("atelier secrets set");
    expect(env).toHaveTextContent("$OLD_KEY set for this toolset · server gh");
    expect(env).toHaveTextContent("$SHIPPED_KEY set for this toolset, by the version installed before · server gh");
    expect(within(env).queryByLabelText("Value of OLD_KEY")).toBeNull();

    await userEvent.click(within(panel).getByRole("button", { name: "Install" }));
    await screen.findByRole("region", { name: "Installed" });
    expect(importArgs(calls)[0]?.allowEnv).toEqual([]);
  });

  it("sends a ticked variable as allowEnv", async () => {
    const { calls, panel } = await reviewZip({
      check_bundle: () =>
        bundle({
          consent: consent({
            env_references: [
              {
                name: "GITHUB_TOKEN",
                server_ids: ["gh"],
                in_environment: true,
                allowed: false,
                stored: false,
                origin: null,
              },
            ],
          }),
        }),
    });
    await userEvent.click(within(panel).getByRole("checkbox", { name: /GITHUB_TOKEN/ }));
    await userEvent.click(within(panel).getByRole("button", { name: "Install" }));
    await screen.findByRole("region", { name: "Installed" });
    expect(importArgs(calls)[0]?.allowEnv).toEqual(["GITHUB_TOKEN"]);
  });
});
