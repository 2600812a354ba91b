// The UI's errors reach the app's log (`log_ui_error`) once each, cut to a
// few KiB, and a report that fails is dropped without looping; Settings
// names the log file.
import { render, screen, waitFor, within } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import { afterEach, beforeEach, describe, expect, it, vi, type MockInstance } from "vitest";
import { ViewBoundary } from "../src/components/ViewBoundary";
import { MAX_REPORTS, MAX_TEXT, reportUiError, reportUncaughtErrors, resetUiErrorReports } from "../src/lib/uiErrors";
import { LogsSection } from "../src/settings/LogsSection";
import { LOG_LOCATION, argsOf, mockCommands } from "./ipc";

/** Lets the invokes sent so far answer. */
const settle = () => new Promise((resolve) => setTimeout(resolve, 0));

let logged: MockInstance<typeof console.error>;
beforeEach(() => {
  resetUiErrorReports();
  logged = vi.spyOn(console, "error").mockImplementation(() => undefined);
});
afterEach(() => logged.mockRestore());

describe("the UI's error reporter", () => {
  it("sends an error once, with where it happened and its stack, whichever path saw it first", async () => {
    const calls = mockCommands({});
    const error = new Error("the total is not a number");
    reportUiError("an uncaught error", error);
    reportUiError('the view "the totals"', error);
    await settle();
    const sent = argsOf(calls, "log_ui_error");
    expect(sent).toHaveLength(1);
    expect(sent[0]).toMatchObject({ message: "the total is not a number", context: "an uncaught error" });
    expect(String(sent[0]!.stack)).toContain("the total is not a number");
  });

  it("cuts long texts to a few KiB, saying so", async () => {
    const calls = mockCommands({});
    reportUiError("x".repeat(10_000), "y".repeat(10_000));
    await settle();
    const [sent] = argsOf(calls, "log_ui_error");
    for (const text of [String(sent!.message), String(sent!.context)]) {
      expect(text.length).toBeLessThan(MAX_TEXT + 40);
      expect(text).toMatch(/… \(6000 more characters\)$/);
    }
    expect(sent!.stack).toBeNull();
  });

  it("drops a report the backend refuses, without reporting that in turn, and never throws", async () => {
    const calls = mockCommands({
      log_ui_error: () => {
        throw { kind: "io", message: "the disk is full" };
      },
    });
    const stop = reportUncaughtErrors();
    try {
      expect(() => reportUiError("a view", new Error("first"))).not.toThrow();
      await settle();
      await settle();
      expect(argsOf(calls, "log_ui_error")).toHaveLength(1);
      // Later errors are still sent.
      reportUiError("a view", new Error("second"));
      await settle();
      expect(argsOf(calls, "log_ui_error")).toHaveLength(2);
    } finally {
      stop();
    }
  });

  it("never throws outside the app (no backend) nor for an error whose message getter throws", async () => {
    const hostile = {
      get message(): string {
        throw new Error("no");
      },
    };
    expect(() => reportUiError("a view", new Error("no backend"))).not.toThrow();
    expect(() => reportUiError("a view", hostile)).not.toThrow();
    await settle();
  });

  it("stops sending after a window's worth of errors (one thrown in a loop)", async () => {
    const calls = mockCommands({});
    for (let i = 0; i < MAX_REPORTS + 10; i++) reportUiError("a loop", new Error(`round ${i}`));
    await settle();
    const sent = argsOf(calls, "log_ui_error");
    expect(sent).toHaveLength(MAX_REPORTS);
    expect(String(sent[MAX_REPORTS - 1]!.message)).toMatch(/further errors of this window are not logged/);
  });

  it("reports errors nothing caught: thrown in a handler, or a rejection with no handler", async () => {
    const calls = mockCommands({});
    const stop = reportUncaughtErrors();
    try {
      const thrown = new Error("in a click handler");
      window.dispatchEvent(
        new ErrorEvent("error", { error: thrown, message: thrown.message, filename: "app.js", lineno: 3, colno: 9 }),
      );
      window.dispatchEvent(new ErrorEvent("error", { message: "ResizeObserver loop limit exceeded" }));
      window.dispatchEvent(Object.assign(new Event("unhandledrejection"), { reason: { kind: "io", message: "gone" } }));
      await settle();
      const sent = argsOf(calls, "log_ui_error");
      expect(sent.map((a) => [a.context, a.message])).toEqual([
        ["an uncaught error (app.js:3:9)", "in a click handler"],
        ["an unhandled promise rejection", "gone"],
      ]);
    } finally {
      stop();
    }
    window.dispatchEvent(new ErrorEvent("error", { message: "after stop" }));
    await settle();
    expect(argsOf(calls, "log_ui_error")).toHaveLength(2);
  });

  it("sends a view's crash once, named by the view, with the components it was in", async () => {
    const calls = mockCommands({});
    function Broken(): never {
      throw new Error("the card cannot be drawn");
    }
    render(
      <ViewBoundary name="the totals">
        <Broken />
      </ViewBoundary>,
    );
    expect(await screen.findByRole("alert")).toHaveTextContent("the card cannot be drawn");
    await settle();
    const sent = argsOf(calls, "log_ui_error");
    expect(sent).toHaveLength(1);
    expect(sent[0]!.context).toBe('the view "the totals"');
    expect(String(sent[0]!.stack)).toMatch(/Components:[\s\S]*Broken/);
  });
});

describe("Settings: Logs", () => {
  it("shows the log file's path to copy, and opens its folder", async () => {
    const calls = mockCommands({ open_log_folder: () => null });
    render(<LogsSection />);
    const section = screen.getByRole("region", { name: "Logs" });
    expect(await within(section).findByText(LOG_LOCATION.file)).toBeInTheDocument();
    expect(within(section).getByRole("button", { name: "Copy the log file's path" })).toBeInTheDocument();
    expect(within(section).getByText(/ATELIER_LOG=info/)).toBeInTheDocument();
    await userEvent.click(within(section).getByRole("button", { name: "Open folder" }));
    await waitFor(() => expect(argsOf(calls, "open_log_folder")).toHaveLength(1));
  });

  it("says why the folder did not open", async () => {
    mockCommands({
      open_log_folder: () => {
        throw { kind: "io", message: "xdg-open, which opens folders in the file manager, is not installed" };
      },
    });
    render(<LogsSection />);
    await userEvent.click(await screen.findByRole("button", { name: "Open folder" }));
    expect(await screen.findByText(/xdg-open, which opens folders/)).toBeInTheDocument();
  });

  it("says a read-only data folder gets no log file, and offers no folder to open", async () => {
    mockCommands({ log_location: () => ({ ...LOG_LOCATION, written: false }) });
    render(<LogsSection />);
    expect(await screen.findByText(/writes no log file/)).toBeInTheDocument();
    expect(screen.getByText(LOG_LOCATION.file)).toBeInTheDocument();
    expect(screen.queryByRole("button", { name: "Open folder" })).toBeNull();
  });
});
