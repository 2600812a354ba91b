// CodeMirror and markdown-it are chunks of their own, loaded when a view
// first needs one or once the app is idle after its first paint. Until a
// chunk is there its views show their text plainly — the same text, laid
// out as the editor lays it out — and then the real view takes its place.
// (test/setup.ts loads the chunks before other tests; here each test takes
// fresh copies of the modules, with nothing loaded yet.)
import { render, screen, waitFor } from "@testing-library/react";
import { beforeEach, describe, expect, it, vi } from "vitest";

beforeEach(() => {
  vi.resetModules();
});

describe("a view whose chunk is not loaded yet", () => {
  it("shows a file's text with its line numbers, then the editor with the same text", async () => {
    const { CodeEditor } = await import("../src/renderers/CodeEditor");
    const { container } = render(
      <CodeEditor text={"def hi():\n    return 1\n"} language={null} editable={false} label="hi.py" />,
    );
    // At once: the text and the gutter's numbers, no editor yet.
    const plain = container.querySelector(".code-plain")!;
    expect(plain).not.toBeNull();
    expect([...plain.querySelectorAll(".code-plain-number")].map((n) => n.textContent)).toEqual(["1", "2", "3"]);
    expect([...plain.querySelectorAll(".code-plain-line")].map((l) => l.textContent)).toEqual([
      "def hi():",
      "    return 1",
      "",
    ]);
    expect(container.querySelector(".cm-editor")).toBeNull();
    // Then CodeMirror, in its place, with the same lines.
    await waitFor(() => expect(container.querySelector(".cm-editor")).not.toBeNull());
    expect(container.querySelector(".code-plain")).toBeNull();
    expect([...container.querySelectorAll(".cm-line")].map((l) => l.textContent)).toEqual([
      "def hi():",
      "    return 1",
      "",
    ]);
    expect(screen.getByRole("textbox", { name: "hi.py" })).toHaveAttribute("contenteditable", "false");
  });

  it("shows an answer as written, then as markdown, sanitized", async () => {
    const { Markdown } = await import("../src/conversation/Markdown");
    const source = "Sales rose **12%**.\n\n[click](javascript:alert(1)) <img src=x onerror=alert(1)>";
    const { container } = render(<Markdown source={source} />);
    const body = container.querySelector(".message-markdown")!;
    expect(body).toHaveClass("markdown-plain");
    expect(body.textContent).toBe(source);
    expect(body.querySelector("strong, a, img")).toBeNull();
    await waitFor(() => expect(container.querySelector("strong")).toHaveTextContent("12%"));
    expect(container.querySelector(".markdown-plain")).toBeNull();
    expect(container.querySelector("img")).toBeNull();
    expect(container.querySelector("a[href^='javascript']")).toBeNull();
    expect(container.textContent).toContain("<img src=x onerror=alert(1)>");
  });

  it("shows a tool's document as written, then as markdown", async () => {
    const { MarkdownView } = await import("../src/renderers/DocumentRenderer");
    const { container } = render(<MarkdownView source={"# Report\n\n- one\n- two"} />);
    expect(container.querySelector(".markdown-plain")).toHaveTextContent("# Report - one - two");
    await waitFor(() => expect(screen.getByRole("heading", { name: "Report" })).toBeInTheDocument());
    expect(screen.getAllByRole("listitem").map((li) => li.textContent)).toEqual(["one", "two"]);
  });

  it("is loaded once the app is idle after its first paint, before any view asks for it", async () => {
    const { markdownIt } = await import("../src/renderers/markdown");
    const { preloadLazyModules } = await import("../src/lib/lazy");
    expect(markdownIt.now()).toBeNull();
    preloadLazyModules();
    await waitFor(() => expect(markdownIt.now()).not.toBeNull());
    expect(markdownIt.now()!.renderMarkdown("**a**")).toBe("<p><strong>a</strong></p>\n");
  });
});
