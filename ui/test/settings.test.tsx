import { act, fireEvent, render, screen, waitFor, within } from "@testing-library/react";
import { describe, expect, it } from "vitest";
import { SettingsPanel } from "../src/settings/SettingsPanel";
import { SettingsProvider } from "../src/settings/useSettings";
import { argsOf, mockCommands } from "./ipc";

function view(saved: string[], inEffect: string[]) {
  return { saved: { frame_origins: saved }, frame_origins_in_effect: inEffect };
}

function showPanel() {
  return render(
    <SettingsProvider>
      <SettingsPanel />
    </SettingsProvider>,
  );
}

describe("settings panel", () => {
  it("says only this computer's pages show when nothing is allowed", async () => {
    mockCommands({ get_settings: () => view([], []) });
    showPanel();
    expect(await screen.findByText("No other origins are allowed.")).toBeInTheDocument();
    expect(screen.queryByText(/apply when Atelier starts again/)).toBeNull();
  });

  it("puts model providers first and the pages tools may show after the MCP servers", async () => {
    mockCommands({ get_settings: () => view([], []) });
    showPanel();
    await screen.findByText("No other origins are allowed.");
    const titles = screen.getAllByRole("heading", { level: 2 }).map((h) => h.textContent);
    expect(titles[0]).toBe("Model providers");
    expect(titles.indexOf("Pages tools may show")).toBeGreaterThan(titles.indexOf("MCP servers"));
  });

  it("adds an origin, shows the backend's refusal in place, and asks for a restart", async () => {
    let saved: string[] = [];
    const calls = mockCommands({
      get_settings: () => view(saved, []),
      allow_frame_origin: (a) => {
        if (String(a.origin).includes("*")) {
          throw {
            kind: "invalid_setting",
            message:
              'setting “Pages tools may show”: "https://*.x.org" cannot be used: wildcards are not allowed: name each host',
          };
        }
        saved = ["https://docs.example.com"];
        return view(saved, []);
      },
    });
    showPanel();
    const input = await screen.findByLabelText("Allow another origin");
    fireEvent.change(input, { target: { value: "https://*.x.org" } });
    act(() => screen.getByRole("button", { name: "Allow" }).click());
    expect(await screen.findByRole("alert")).toHaveTextContent("wildcards are not allowed");
    expect(input).toHaveValue("https://*.x.org"); // kept for fixing

    fireEvent.change(input, { target: { value: "docs.example.com" } });
    act(() => screen.getByRole("button", { name: "Allow" }).click());
    const list = await screen.findByRole("list", { name: "Allowed origins" });
    expect(within(list).getByText("https://docs.example.com")).toBeInTheDocument();
    expect(within(list).getByText("after restart")).toBeInTheDocument();
    expect(screen.getByText(/apply when Atelier starts again/)).toBeInTheDocument();
    expect(screen.getByRole("button", { name: "Restart Atelier now" })).toBeInTheDocument();
    await waitFor(() => expect(input).toHaveValue(""));
    expect(argsOf(calls, "allow_frame_origin").map((a) => a.origin)).toEqual(["https://*.x.org", "docs.example.com"]);
  });

  it("removes an origin in effect and says the change waits for a restart", async () => {
    let saved = ["https://docs.example.com"];
    const calls = mockCommands({
      get_settings: () => view(saved, ["https://docs.example.com"]),
      forbid_frame_origin: () => {
        saved = [];
        return view(saved, ["https://docs.example.com"]);
      },
    });
    showPanel();
    const remove = await screen.findByRole("button", { name: "Remove https://docs.example.com" });
    expect(screen.queryByText("after restart")).toBeNull();
    act(() => remove.click());
    expect(await screen.findByText("No other origins are allowed.")).toBeInTheDocument();
    expect(screen.getByText(/apply when Atelier starts again/)).toBeInTheDocument();
    expect(argsOf(calls, "forbid_frame_origin")).toEqual([{ origin: "https://docs.example.com" }]);
  });
});
