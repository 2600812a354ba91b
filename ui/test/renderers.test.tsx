import { act, render, screen, waitFor, within } from "@testing-library/react";
import { EditorView } from "@codemirror/view";
import DOMPurify from "dompurify";
import { describe, expect, it, vi } from "vitest";
import type { FrameCheck, ToolCallRecord } from "../src/bindings";
import { CallView } from "../src/renderers/CallView";
import { SettingsProvider } from "../src/settings/useSettings";
import { call, plan } from "./fixtures";
import { argsOf, mockCommands, type Args } from "./ipc";

function show(c: ToolCallRecord) {
  return render(
    <SettingsProvider>
      <CallView call={c} />
    </SettingsProvider>,
  );
}

/** `get_settings` answering with these allowed origins (saved, and in effect). */
function settings(saved: string[], inEffect: string[] = saved) {
  return () => ({ saved: { frame_origins: saved }, frame_origins_in_effect: inEffect });
}

/** The core's answer for each page (`check_frame`), as the test decides it. */
function frames(answer: (url: string) => FrameCheck) {
  return (a: Args) => answer(a.url as string);
}

/** The core's diff of an edit (`diff_text`). */
const editDiff = () => ({
  unified: "--- a/sales.csv\n+++ b/sales.csv\n@@ -1,2 +1,2 @@\n a,b\n-1,2\n+1,3\n",
  added: 1,
  removed: 1,
});

/** The text CodeMirror shows, line by line. */
function editorText(container: HTMLElement): string {
  return [...container.querySelectorAll(".cm-line")].map((l) => l.textContent).join("\n");
}

describe("code renderer", () => {
  it("shows the workspace file as it was after the call (the plan's manifest)", async () => {
    const calls = mockCommands({
      get_workspace_file: (a) =>
        a.manifestId === "man-after"
          ? { path: "src/app.py", size: 22, sha256: "ab", text: "def main():\n    return 1" }
          : { path: "src/app.py", size: 3, sha256: "cd", text: "NEWER" },
    });
    const { container } = show(
      call({ render_plan: plan("code", { file: "src/app.py", language: "auto" }, { manifest_id: "man-after" }) }),
    );
    await waitFor(() => expect(editorText(container)).toBe("def main():\n    return 1"));
    expect(argsOf(calls, "get_workspace_file")).toEqual([
      { chatId: "chat-1", path: "src/app.py", manifestId: "man-after" },
    ]);
    expect(screen.getByText("src/app.py")).toBeInTheDocument();
    expect(screen.getByText("Python")).toBeInTheDocument(); // auto: from the extension
    expect(container.querySelector(".cm-content")).toHaveAttribute("contenteditable", "false");
  });

  it("shows inline content, editable when the config says so", async () => {
    mockCommands({});
    const { container } = show(
      call({ render_plan: plan("code", { content: "ls -la", language: "shell", editable: true }) }),
    );
    await waitFor(() => expect(editorText(container)).toBe("ls -la"));
    expect(screen.getByText("Plain text")).toBeInTheDocument();
    expect(container.querySelector(".cm-content")).toHaveAttribute("contenteditable", "true");
  });

  it("says No output for empty content instead of an editor with a lone line 1", async () => {
    mockCommands({});
    const { container } = show(call({ render_plan: plan("code", { content: "", language: "auto" }) }));
    expect(await screen.findByText("No output")).toBeInTheDocument();
    expect(container.querySelector(".cm-editor")).toBeNull();
    expect(screen.queryByText("Plain text")).toBeNull();
  });

  it("says so for a binary file, and shows read errors where they happened", async () => {
    mockCommands({ get_workspace_file: () => ({ path: "x.bin", size: 2048, sha256: "ab", text: null }) });
    show(call({ render_plan: plan("code", { file: "x.bin" }) }));
    expect(await screen.findByText(/binary file \(2\.0 KB\)/)).toBeInTheDocument();
  });

  it("shows a file that cannot be read as an error in place", async () => {
    mockCommands({
      get_workspace_file: () => {
        throw { kind: "not_found", message: "no file gone.txt in manifest man-after" };
      },
    });
    show(call({ render_plan: plan("code", { file: "gone.txt" }) }));
    expect(await screen.findByRole("alert")).toHaveTextContent("no file gone.txt in manifest man-after");
  });
});

describe("saving an editable code view", () => {
  it("shows the diff first, then saves the file as an edit step after the call", async () => {
    const calls = mockCommands({
      get_workspace_file: () => ({ path: "sales.csv", size: 8, sha256: "ab", text: "a,b\n1,2" }),
      diff_text: editDiff,
      save_edit: () => ({
        message_id: "edit-1",
        manifest_id: "man-3",
        changed: true,
        added: 0,
        removed: 0,
        modified: 1,
        warnings: [],
      }),
    });
    const { container } = show(
      call({ node_id: "node-7", render_plan: plan("code", { file: "sales.csv", editable: true }) }),
    );
    await waitFor(() => expect(editorText(container)).toBe("a,b\n1,2"));
    const view = EditorView.findFromDOM(container.querySelector(".cm-editor") as HTMLElement)!;
    act(() => view.dispatch({ changes: { from: view.state.doc.length - 1, to: view.state.doc.length, insert: "3" } }));
    expect(screen.getByText("Not saved yet.")).toBeInTheDocument();
    act(() => screen.getByRole("button", { name: "Save…" }).click());
    const dialog = await screen.findByRole("alertdialog", { name: "Save sales.csv?" });
    expect(await within(dialog).findByText(/\+1 −1 lines/)).toBeInTheDocument();
    expect(argsOf(calls, "diff_text")).toEqual([{ path: "sales.csv", before: "a,b\n1,2", after: "a,b\n1,3" }]);
    expect(within(dialog).getByLabelText("Changes").textContent).toContain("-1,2\n+1,3\n");
    act(() => within(dialog).getByRole("button", { name: "Save" }).click());
    expect(await screen.findByText(/Saved as a new edit step after this call/)).toBeInTheDocument();
    expect(argsOf(calls, "save_edit")).toEqual([
      { chatId: "chat-1", at: "node-7", changes: [{ op: "write", path: "sales.csv", text: "a,b\n1,3" }] },
    ]);
    expect(screen.queryByText("Not saved yet.")).toBeNull();
  });

  it("saves an edited markdown document the same way", async () => {
    const calls = mockCommands({
      get_workspace_file: () => ({ path: "README.md", size: 7, sha256: "ab", text: "# Title" }),
      diff_text: () => ({ unified: "+More.\n", added: 2, removed: 0 }),
      save_edit: () => ({
        message_id: "edit-2",
        manifest_id: "man-4",
        changed: true,
        added: 0,
        removed: 0,
        modified: 1,
        warnings: [],
      }),
    });
    const { container } = show(
      call({ node_id: "node-8", render_plan: plan("document", { file: "README.md", editable: true }) }),
    );
    expect(await screen.findByRole("heading", { name: "Title" })).toBeInTheDocument();
    act(() => screen.getByRole("tab", { name: "Edit" }).click());
    await waitFor(() => expect(editorText(container)).toBe("# Title"));
    const view = EditorView.findFromDOM(container.querySelector(".cm-editor") as HTMLElement)!;
    act(() => view.dispatch({ changes: { from: view.state.doc.length, insert: "\n\nMore." } }));
    act(() => screen.getByRole("button", { name: "Save…" }).click());
    const dialog = await screen.findByRole("alertdialog", { name: "Save README.md?" });
    act(() => within(dialog).getByRole("button", { name: "Save" }).click());
    expect(await screen.findByText(/Saved as a new edit step/)).toBeInTheDocument();
    expect(argsOf(calls, "save_edit")).toEqual([
      { chatId: "chat-1", at: "node-8", changes: [{ op: "write", path: "README.md", text: "# Title\n\nMore." }] },
    ]);
    act(() => screen.getByRole("tab", { name: "Preview" }).click());
    expect(await screen.findByText("More.")).toBeInTheDocument();
  });

  it("offers no save for inline content", async () => {
    mockCommands({});
    const { container } = show(call({ render_plan: plan("code", { content: "x", editable: true }) }));
    await waitFor(() => expect(editorText(container)).toBe("x"));
    const view = EditorView.findFromDOM(container.querySelector(".cm-editor") as HTMLElement)!;
    act(() => view.dispatch({ changes: { from: 0, insert: "y" } }));
    expect(screen.getByText(/no workspace file to save to/)).toBeInTheDocument();
    expect(screen.queryByRole("button", { name: "Save…" })).toBeNull();
  });
});

describe("document renderer", () => {
  it("renders markdown and never lets script or javascript: links through", async () => {
    mockCommands({});
    const md =
      "# Report\n\nSome **bold** text.\n\n<script>window.__pwned = 1</script>\n\n<img src=x onerror=alert(1)>\n\n[click](javascript:alert(1))";
    const { container } = show(call({ render_plan: plan("document", { content: md }) }));
    expect(await screen.findByRole("heading", { name: "Report" })).toBeInTheDocument();
    const body = container.querySelector(".markdown-body")!;
    expect(body.querySelector("strong")).toHaveTextContent("bold");
    expect(body.querySelector("script")).toBeNull();
    expect(body.querySelector("img")).toBeNull();
    expect(body.querySelector("[onerror]")).toBeNull();
    expect(body.querySelector('a[href^="javascript"]')).toBeNull();
    expect((window as unknown as { __pwned?: number }).__pwned).toBeUndefined();
    expect(body.textContent).toContain("<script>"); // shown as text, not run
  });

  it("passes markdown-it's output through DOMPurify", async () => {
    mockCommands({});
    const spy = vi.spyOn(DOMPurify, "sanitize");
    show(call({ render_plan: plan("document", { content: "plain *text*" }) }));
    expect(await screen.findByText("text")).toBeInTheDocument();
    expect(spy).toHaveBeenCalledWith(expect.stringContaining("<em>text</em>"), expect.anything());
  });

  it("reads a workspace file at the plan's manifest", async () => {
    const calls = mockCommands({
      get_workspace_file: () => ({ path: "README.md", size: 9, sha256: "ab", text: "## Hello" }),
    });
    show(call({ render_plan: plan("document", { file: "README.md" }, { manifest_id: "m-7" }) }));
    expect(await screen.findByRole("heading", { name: "Hello" })).toBeInTheDocument();
    expect(argsOf(calls, "get_workspace_file")[0]).toMatchObject({ manifestId: "m-7" });
  });
});

describe("html renderer", () => {
  it("loads render_url in an iframe sandboxed with allow-scripts only, never srcdoc", async () => {
    const url = "atelier-render://localhost/tok123/index.html";
    const calls = mockCommands({ render_url: () => url });
    const { container } = show(
      call({ id: "call-9", render_plan: plan("html", { artifact: "./artifacts/v.html", data: { a: 1 } }) }),
    );
    const frame = await waitFor(() => {
      const f = container.querySelector("iframe");
      expect(f).not.toBeNull();
      return f!;
    });
    expect(argsOf(calls, "render_url")).toEqual([{ callId: "call-9" }]);
    expect(frame.getAttribute("sandbox")).toBe("allow-scripts");
    expect(frame.hasAttribute("srcdoc")).toBe(false);
    expect(frame.getAttribute("src")).toBe(url);
    expect(frame.getAttribute("referrerpolicy")).toBe("no-referrer");
  });

  it("resizes only on valid messages from its own frame", async () => {
    mockCommands({ render_url: () => "atelier-render://localhost/t/index.html" });
    const { container } = show(call({ render_plan: plan("html", {}) }));
    // The frame as it is now (a re-render under load may replace the
    // element, and jsdom its window while the src fails to load).
    const current = () => {
      const f = container.querySelector("iframe");
      expect(f).not.toBeNull();
      return f!;
    };
    await waitFor(() => expect(current().contentWindow).not.toBeNull());
    const frame = {
      get style() {
        return current().style;
      },
      get contentWindow() {
        return current().contentWindow;
      },
    };
    expect(frame.style.height).toBe("320px");
    const post = (data: unknown, source: Window | null) =>
      act(() => {
        window.dispatchEvent(new MessageEvent("message", { data, source }));
      });

    // Another source (the app window itself, another frame) is ignored.
    post({ type: "atelier:resize", height: 900 }, window);
    const other = document.createElement("iframe");
    document.body.appendChild(other);
    post({ type: "atelier:resize", height: 901 }, other.contentWindow);
    post({ type: "atelier:resize", height: 902 }, null);
    expect(frame.style.height).toBe("320px");

    // Its own frame: bad shapes ignored, heights clamped to [80, 4000].
    post({ type: "atelier:resize", height: Number.NaN }, frame.contentWindow);
    post({ type: "atelier:resize", height: "700" }, frame.contentWindow);
    post({ type: "other", height: 700 }, frame.contentWindow);
    expect(frame.style.height).toBe("320px");
    // A message that counts, sent again until it is seen: under load the
    // frame may be mounted anew (back at 320px) between a post and a look.
    const resized = (height: number, shown: string) =>
      waitFor(() => {
        post({ type: "atelier:resize", height }, frame.contentWindow);
        expect(frame.style.height).toBe(shown);
      });
    await resized(640, "640px");
    await resized(1e9, "4000px");
    await resized(3, "80px");
  });
});

describe("frame renderer", () => {
  it("frames loopback URLs in a sandbox", async () => {
    const calls = mockCommands({
      get_settings: settings([]),
      check_frame: frames(() => ({ access: "loopback", origin: "http://127.0.0.1:5173" })),
    });
    const { container } = show(call({ render_plan: plan("frame", { url: "http://127.0.0.1:5173/" }) }));
    await waitFor(() => expect(container.querySelector("iframe")).not.toBeNull());
    const frame = container.querySelector("iframe")!;
    expect(frame.getAttribute("src")).toBe("http://127.0.0.1:5173/");
    expect(frame.getAttribute("sandbox")).toBe("allow-scripts");
    // Asked of the core (again once the settings arrive), for this page only.
    expect(new Set(argsOf(calls, "check_frame").map((a) => a.url))).toEqual(new Set(["http://127.0.0.1:5173/"]));
  });

  it("asks before framing a page the core does not allow", async () => {
    mockCommands({
      get_settings: settings([]),
      check_frame: frames(() => ({ access: "not_allowed", origin: "http://localhost.evil.com" })),
    });
    const { container } = show(call({ render_plan: plan("frame", { url: "http://localhost.evil.com/" }) }));
    expect(
      await screen.findByRole("button", { name: "Allow pages from http://localhost.evil.com…" }),
    ).toBeInTheDocument();
    expect(container.querySelector("iframe")).toBeNull();
    expect(screen.getByRole("alert")).toHaveTextContent("Atelier shows pages from this computer");
  });

  it("never frames what is not an http page and offers nothing", async () => {
    mockCommands({ get_settings: settings([]), check_frame: frames(() => ({ access: "invalid", origin: null })) });
    const { container } = show(call({ render_plan: plan("frame", { url: "javascript:alert(1)" }) }));
    expect(await screen.findByRole("alert")).toHaveTextContent("Only http and https pages");
    expect(container.querySelector("iframe")).toBeNull();
    expect(screen.queryByRole("button")).toBeNull();
  });

  it("allows an origin after the person confirms, then asks for a restart", async () => {
    let saved: string[] = [];
    const calls = mockCommands({
      get_settings: () => settings(saved, [])(),
      check_frame: frames(() => ({
        access: saved.length > 0 ? "needs_restart" : "not_allowed",
        origin: "https://docs.example.com",
      })),
      allow_frame_origin: (a) => {
        saved = ["https://docs.example.com"];
        expect(a.origin).toBe("https://docs.example.com");
        return settings(saved, [])();
      },
      restart_app: () => null,
    });
    const { container } = show(call({ render_plan: plan("frame", { url: "https://docs.example.com/guide?q=1" }) }));
    const allow = await screen.findByRole("button", { name: "Allow pages from https://docs.example.com…" });
    act(() => allow.click());
    const dialog = await screen.findByRole("alertdialog", { name: "Show pages from https://docs.example.com?" });
    // Cancel first: nothing is saved.
    act(() => within(dialog).getByRole("button", { name: "Cancel" }).click());
    expect(argsOf(calls, "allow_frame_origin")).toEqual([]);
    const again = await screen.findByRole("button", { name: /Allow pages from/ });
    act(() => again.click());
    const confirm = await screen.findByRole("alertdialog");
    act(() => within(confirm).getByRole("button", { name: "Allow" }).click());
    expect(await screen.findByText(/Restart Atelier to show/)).toBeInTheDocument();
    expect(container.querySelector("iframe")).toBeNull(); // not until the CSP allows it
    act(() => screen.getByRole("button", { name: "Restart Atelier now" }).click());
    await waitFor(() => expect(argsOf(calls, "restart_app")).toHaveLength(1));
  });

  it("frames an origin the running app allows", async () => {
    mockCommands({
      get_settings: settings(["https://docs.example.com"]),
      check_frame: frames(() => ({ access: "allowed", origin: "https://docs.example.com" })),
    });
    const { container } = show(call({ render_plan: plan("frame", { url: "https://docs.example.com/guide" }) }));
    await waitFor(() =>
      expect(container.querySelector("iframe")?.getAttribute("src")).toBe("https://docs.example.com/guide"),
    );
    expect(container.querySelector("iframe")?.getAttribute("sandbox")).toBe("allow-scripts");
  });
});

describe("image renderer", () => {
  it("loads a workspace image through a URL pinned to the plan's manifest", async () => {
    const url = "atelier-render://localhost/0123456789abcdef0123456789abcdef/chart.png";
    const calls = mockCommands({ workspace_file_url: () => url });
    show(call({ render_plan: plan("image", { file: "out/chart.png", alt: "Chart" }, { manifest_id: "man-after" }) }));
    expect((await screen.findByRole("img", { name: "Chart" })).getAttribute("src")).toBe(url);
    expect(argsOf(calls, "workspace_file_url")).toEqual([
      { chatId: "chat-1", path: "out/chart.png", manifestId: "man-after" },
    ]);
  });

  it("says so when the file is not an image the webview can decode", async () => {
    mockCommands({ workspace_file_url: () => "atelier-render://localhost/t/notes.txt" });
    show(call({ render_plan: plan("image", { file: "notes.txt", alt: "Notes" }) }));
    const img = await screen.findByRole("img", { name: "Notes" });
    act(() => {
      img.dispatchEvent(new Event("error"));
    });
    expect(await screen.findByText(/is not an image this app can show/)).toBeInTheDocument();
  });

  it("shows a missing file as an error in place", async () => {
    mockCommands({
      workspace_file_url: () => {
        throw { kind: "file_not_found", message: "no file gone.png in manifest man-after" };
      },
    });
    show(call({ render_plan: plan("image", { file: "gone.png" }) }));
    expect(await screen.findByRole("alert")).toHaveTextContent("no file gone.png in manifest man-after");
  });

  it("says why when the plan dropped a remote image", () => {
    mockCommands({});
    const warning = 'image url "https://tracker.example/p.png" dropped: only data:image/… and pages on this computer';
    show(call({ render_plan: plan("image", { alt: "Pixel" }, { warnings: [warning] }) }));
    expect(screen.queryByRole("img")).toBeNull();
    expect(screen.getByText(/Images are shown only from data URLs or this computer/)).toBeInTheDocument();
  });

  it("shows the url the plan kept", () => {
    mockCommands({});
    show(call({ render_plan: plan("image", { url: "data:image/png;base64,iVBORw0KGgo=", alt: "Dot" }) }));
    expect(screen.getByRole("img", { name: "Dot" }).getAttribute("src")).toBe("data:image/png;base64,iVBORw0KGgo=");
  });
});

describe("error view", () => {
  it("shows kind, message, traceback and captured output in collapsible blocks", () => {
    mockCommands({});
    const c = call({
      status: "error",
      result: null,
      render_plan: plan("error", {
        kind: "tool_error",
        message: "ZeroDivisionError: division by zero",
        traceback:
          'Traceback (most recent call last):\n  File "tools/calc.py", line 3, in divide\nZeroDivisionError: division by zero',
        stdout: "computing…\n",
        stderr: "warning: slow\n",
      }),
    });
    const { container } = show(c);
    const view = screen.getByRole("group", { name: "Tool error" });
    expect(within(view).getByText("tool_error")).toBeInTheDocument();
    expect(within(view).getByText("ZeroDivisionError: division by zero")).toBeInTheDocument();
    expect(screen.getByLabelText("Traceback")).toHaveTextContent('File "tools/calc.py", line 3, in divide');
    expect(screen.getByLabelText("Output (stdout)")).toHaveTextContent("computing…");
    expect(screen.getByLabelText("Errors (stderr)")).toHaveTextContent("warning: slow");
    const blocks = [...container.querySelectorAll("details")];
    expect(blocks.map((d) => d.open)).toEqual([true, false, false]);
  });

  it("says a denied or cancelled call was the person's choice, not a failure, with what it printed", () => {
    mockCommands({});
    const { unmount } = show(
      call({ render_plan: null, status: "error", error_kind: "denied", error: "denied by user", result: null }),
    );
    expect(screen.queryByRole("group", { name: "Tool error" })).toBeNull();
    expect(screen.getByRole("group", { name: "Call stopped" })).toHaveTextContent("You denied this call: nothing ran");
    unmount();
    show(
      call({
        render_plan: null,
        status: "cancelled",
        error_kind: "cancelled",
        error: "cancelled",
        stdout: "ticking\n",
        result: null,
      }),
    );
    const view = screen.getByRole("group", { name: "Call stopped" });
    expect(view).toHaveTextContent("Cancelled while it ran");
    expect(screen.getByLabelText("Output (stdout)")).toHaveTextContent("ticking");
  });

  it("falls back to the call's own error when there is no plan", () => {
    mockCommands({});
    show(
      call({
        render_plan: null,
        status: "error",
        error_kind: "interrupted",
        error: "the app stopped during the call",
        result: null,
      }),
    );
    expect(screen.getByText("interrupted")).toBeInTheDocument();
    expect(screen.getByText("the app stopped during the call")).toBeInTheDocument();
  });
});

describe("unknown renderer", () => {
  it("shows the result as JSON", () => {
    mockCommands({});
    const { container } = show(call({ result: { rows: 3 }, render_plan: plan("chart3d", {}) }));
    expect(screen.getByText(/Unknown renderer “chart3d”/)).toBeInTheDocument();
    expect(container.querySelector("pre")).toHaveTextContent('"rows": 3');
  });
});
