// The consent step of a picked ZIP, as the toolset import tests open it.
import { render, screen } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import { vi } from "vitest";
import { ToolsetManager } from "../src/toolsets/ToolsetManager";
import { importReport, toolset } from "./fixtures";
import { mockCommands, type Handlers } from "./ipc";

/** The toolset the picked ZIP installs. */
export const csv = toolset({ id: "csv-report", name: "CSV Report", version: "0.2.0" });

/** The consent step of `/home/me/csv-report.zip` (installing `csv`), with `handlers` for the rest. */
export async function reviewZip(handlers: Handlers) {
  const calls = mockCommands({
    list_toolsets: () => [],
    pick_bundle: () => "/home/me/csv-report.zip",
    import_toolset: () => importReport(csv),
    ...handlers,
  });
  render(<ToolsetManager active onChanged={vi.fn()} />);
  await screen.findByText("No toolsets installed yet");
  await userEvent.click(screen.getByRole("button", { name: "Import…" }));
  await screen.findByRole("button", { name: "Install" });
  return { calls, panel: screen.getByRole("region", { name: "Review bundle" }) };
}
