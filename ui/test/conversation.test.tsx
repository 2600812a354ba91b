// The conversation: a message sent from the composer, its answer streaming
// in as events arrive, Stop, the composer's keys, and the chat's title.
import { act, fireEvent, render, screen, waitFor, within } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import { afterEach, describe, expect, it } from "vitest";
import { resetRuns } from "../src/conversation/runStore";
import { forgetChoices } from "../src/conversation/Switchers";
import MarkdownIt from "markdown-it";
import { blockHtml, BlockStream, finishedBlocks } from "../src/conversation/blocks";
import { Markdown } from "../src/conversation/Markdown";
import { CHAT, chatBackend, conversation, message, meta, openChat, text } from "./chatBackend";
import { argsOf } from "./ipc";

afterEach(() => {
  resetRuns();
  forgetChoices();
});

const streaming = () => conversation().querySelector('article.message[aria-busy="true"][data-role="assistant"]');

describe("the conversation", () => {
  it("shows the answer as it streams, then the saved turn with its actions", async () => {
    const b = chatBackend();
    const box = await openChat();
    await userEvent.type(box, "Write a haiku{Enter}");
    await waitFor(() => expect(b.runs).toHaveLength(1));
    expect(argsOf(b.calls, "send_message").map(({ onEvent: _c, ...a }) => a)).toEqual([
      {
        chatId: CHAT,
        text: "Write a haiku",
        options: { parent_id: null, agent_id: null, provider_id: null, model: null, images: [] },
      },
    ]);
    // The message shows at once, the box empties, Send becomes Stop.
    expect(within(conversation()).getByText("Write a haiku")).toBeInTheDocument();
    expect(box).toHaveValue("");
    expect(screen.getByRole("button", { name: "Stop" })).toBeInTheDocument();

    const run = b.run();
    act(() => {
      run.save("user", [text("Write a haiku")]);
      run.feed(
        {
          type: "run_started",
          agent_id: "assistant",
          provider_id: "ollama",
          model: "qwen2.5:7b",
          context_window: 8192,
        },
        { type: "reasoning_delta", text: "Five, seven, five." },
        { type: "text_delta", text: "Autumn **leaves**" },
      );
    });
    await waitFor(() => expect(streaming()).toHaveTextContent("Autumn leaves"));
    expect(streaming()!.querySelector("strong")).toHaveTextContent("leaves");
    const reasoning = streaming()!.querySelector("details.reasoning")!;
    expect(reasoning).not.toHaveAttribute("open");
    expect(reasoning.querySelector("summary")).toHaveTextContent("Reasoning");

    act(() => run.feed({ type: "text_delta", text: " drift down\n\n```python\nprint(1)\n" }));
    await waitFor(() => expect(streaming()).toHaveTextContent("drift down"));
    expect(within(streaming() as HTMLElement).getByRole("button", { name: "Copy code" })).toBeInTheDocument();

    act(() => {
      run.save("assistant", [text("Autumn **leaves** drift down\n\n```python\nprint(1)\n```")], {
        meta: meta({ usage: { input_tokens: 1200, output_tokens: 34 } }),
      });
      run.end();
    });
    const answer = await waitFor(() => {
      const a = conversation().querySelector('article.message[data-role="assistant"]:not([aria-busy])');
      expect(a).not.toBeNull();
      return a as HTMLElement;
    });
    expect(answer.dataset.id).toMatch(/assistant/);
    expect(streaming()).toBeNull();
    for (const name of ["Copy message", "Retry", "Fork to new chat", "Copy code"])
      expect(within(answer).getByRole("button", { name })).toBeInTheDocument();
    const user = conversation().querySelector('article.message[data-role="user"]') as HTMLElement;
    expect(within(user).getByRole("button", { name: "Edit message" })).toBeInTheDocument();
    // The meter: the turn's tokens against the window the run fits into.
    await waitFor(() => expect(screen.getByLabelText("Context used")).toHaveTextContent("1.2k / 8.2k tokens"));
    expect(screen.getByLabelText("Tokens of the last run")).toHaveTextContent("last run 1.2k in · 34 out");
    expect(screen.getByRole("button", { name: "Send" })).toBeDisabled();
  });

  it("stops a run: what streamed stays", async () => {
    const b = chatBackend();
    const box = await openChat();
    await userEvent.type(box, "Tell me a long story{Enter}");
    await waitFor(() => expect(b.runs).toHaveLength(1));
    const run = b.run();
    act(() => {
      run.save("user", [text("Tell me a long story")]);
      run.feed({ type: "text_delta", text: "Once upon a time" });
    });
    await waitFor(() => expect(streaming()).toHaveTextContent("Once upon a time"));
    // Esc in the box stops too, as the button does.
    await userEvent.type(box, "{Escape}");
    expect(argsOf(b.calls, "stop_run")).toEqual([{ chatId: CHAT }]);
    expect(screen.getByRole("button", { name: "Stop" })).toBeDisabled();
    act(() => {
      run.save("assistant", [text("Once upon a time")], { meta: meta({ status: "stopped" }) });
      run.end("stopped");
    });
    const answer = await waitFor(() => {
      const a = conversation().querySelector('article.message[data-role="assistant"]:not([aria-busy])');
      expect(a).not.toBeNull();
      return a as HTMLElement;
    });
    expect(answer).toHaveTextContent("Once upon a time");
    expect(answer).toHaveTextContent("Stopped.");
    expect(await screen.findByRole("button", { name: "Send" })).toBeInTheDocument();
  });

  it("sends with Enter and Ctrl+Enter, makes a new line with Shift+Enter, and opens the tool picker with /", async () => {
    const b = chatBackend();
    const box = await openChat();
    expect(screen.getByRole("button", { name: "Send" })).toBeDisabled();
    await userEvent.type(box, "line one{Shift>}{Enter}{/Shift}line two");
    expect(box).toHaveValue("line one\nline two");
    expect(b.runs).toHaveLength(0);
    await userEvent.type(box, "{Control>}{Enter}{/Control}");
    await waitFor(() => expect(b.runs).toHaveLength(1));
    expect(b.run().args.text).toBe("line one\nline two");
    act(() => b.run().end());
    await screen.findByRole("button", { name: "Send" });

    // The help lists the box's keys too.
    await userEvent.click(screen.getByRole("button", { name: "Keyboard shortcuts" }));
    const keys = screen.getByRole("table", { name: "In the message box" });
    expect(keys).toHaveTextContent("Shift+EnterNew line");
    await userEvent.click(screen.getByRole("button", { name: "Close" }));

    // `/` first: the tool list (hidden: a model is set up) opens with the
    // cursor in its search; the box stays empty.
    expect(screen.queryByRole("button", { name: "Hide list" })).toBeNull();
    await userEvent.type(box, "/");
    await waitFor(() => expect(screen.getByRole("combobox", { name: "Search tools" })).toHaveFocus());
    expect(box).toHaveValue("");
  });

  it("leaves naming a numbered new chat to the core, and shows the name it gave", async () => {
    const b = chatBackend({ title: "New chat 2" });
    const box = await openChat();
    await userEvent.type(box, "plan a trip to Lisbon in spring with kids please{Enter}");
    await waitFor(() => expect(b.runs).toHaveLength(1));
    act(() => {
      b.run().save("user", [text("plan a trip to Lisbon in spring with kids please")]);
      b.run().save("assistant", [text("Sure.")]);
      b.chats[0]!.title = "Lisbon Spring Trip";
      b.run().end();
    });
    const list = screen.getByRole("list", { name: "Chat list" });
    expect(await within(list).findByRole("button", { name: "Lisbon Spring Trip" })).toBeInTheDocument();
    expect(argsOf(b.calls, "rename_chat")).toEqual([]);
  });

  it("reads the chat list again after a run, so the title the core gave shows", async () => {
    const b = chatBackend({ title: "New chat" });
    const box = await openChat();
    await userEvent.type(box, "hello{Enter}");
    await waitFor(() => expect(b.runs).toHaveLength(1));
    act(() => {
      b.run().save("user", [text("hello")]);
      b.run().save("assistant", [text("Hi!")]);
      b.chats[0]!.title = "Greetings";
      b.run().end();
    });
    const list = screen.getByRole("list", { name: "Chat list" });
    expect(await within(list).findByRole("button", { name: "Greetings" })).toBeInTheDocument();
    expect(argsOf(b.calls, "rename_chat")).toEqual([]);
  });
});

describe("the chat tab", () => {
  it("reads providers and agents again when shown, not when hidden", async () => {
    const b = chatBackend({ extra: { list_agents: () => [] } });
    await openChat();
    await screen.findByRole("combobox", { name: "Agent" });
    const count = () => [argsOf(b.calls, "list_providers").length, argsOf(b.calls, "list_agents").length];
    await new Promise((r) => setTimeout(r, 50));
    const [providers, agents] = count();
    await userEvent.click(screen.getByRole("tab", { name: "Toolsets" }));
    await new Promise((r) => setTimeout(r, 50));
    expect(count()).toEqual([providers, agents]);
    await userEvent.click(screen.getByRole("tab", { name: "Chat" }));
    await waitFor(() => expect(argsOf(b.calls, "list_providers").length).toBeGreaterThan(providers!));
    await waitFor(() => expect(argsOf(b.calls, "list_agents").length).toBeGreaterThan(agents!));
  });
});

const BAD = 'Hi <img src="x" onerror="alert(1)">';

describe("streamed markdown", () => {
  it("keeps finished blocks and parses only the growing one", () => {
    const s = new BlockStream();
    const first = s.update("# Title\n\nSome text");
    expect(first.done.map((b) => b.source.trim())).toEqual(["# Title"]);
    expect(first.tail?.source).toBe("Some text");
    const next = s.update("# Title\n\nSome text goes on\n\n- a\n- b");
    expect(next.done[0]).toBe(first.done[0]);
    expect(next.done.map((b) => b.source.trim())).toEqual(["# Title", "Some text goes on"]);
    expect(next.tail?.source.trim()).toBe("- a\n- b");
    const fence = s.update("# Title\n\nSome text goes on\n\n- a\n- b\n\n```js\nlet x = 1\n");
    expect(fence.tail?.fence).toEqual({ lang: "js", code: "let x = 1\n" });
  });

  it("draws a message drawn before the same way, and two alike paragraphs with their own references", () => {
    const a = "See [the docs][d].\n\n[d]: https://a.example/";
    const b = "See [the docs][d].\n\n[d]: https://b.example/";
    const first = render(<Markdown source={a} />);
    expect(first.container.querySelector("a")?.getAttribute("href")).toBe("https://a.example/");
    first.unmount();
    // The same text again (a branch switched back to): the same blocks.
    expect(finishedBlocks(a)).toBe(finishedBlocks(a));
    const again = render(<Markdown source={a} />);
    expect(again.container.querySelector("a")?.getAttribute("href")).toBe("https://a.example/");
    again.unmount();
    // The same paragraph under another reference links to its own.
    const other = render(<Markdown source={b} />);
    expect(other.container.querySelector("a")?.getAttribute("href")).toBe("https://b.example/");
    // Sanitized every time, the second (kept) time too: tokens carrying raw
    // HTML, which the app's parser never makes, still lose their script.
    const raw = { key: 0, source: "", fence: null, tokens: new MarkdownIt({ html: true }).parse(BAD, {}) };
    for (let i = 0; i < 2; i++) {
      const html = blockHtml(raw);
      expect(html).toContain("<img");
      expect(html).not.toContain("onerror");
    }
  });
});

describe("around an answer", () => {
  it("copies a message and a code block", async () => {
    const writes: string[] = [];
    Object.defineProperty(navigator, "clipboard", {
      value: { writeText: (t: string) => (writes.push(t), Promise.resolve()) },
      configurable: true,
    });
    chatBackend({
      messages: [
        message("u1", "m0", "user", [text("Show me")]),
        message("a1", "u1", "assistant", [text("Here:\n\n```js\nlet x = 1;\n```")]),
      ],
    });
    await openChat();
    const answer = await waitFor(() => {
      const a = conversation().querySelector<HTMLElement>('article.message[data-id="a1"]');
      expect(a).not.toBeNull();
      return a!;
    });
    await userEvent.click(within(answer).getByRole("button", { name: "Copy code" }));
    await userEvent.click(within(answer).getByRole("button", { name: "Copy message" }));
    expect(writes).toEqual(["let x = 1;\n", "Here:\n\n```js\nlet x = 1;\n```"]);
    expect(within(answer).getAllByText("Copied")).toHaveLength(2);
  });

  it("folds a turn's thinking blocks into one reasoning and names an encrypted one without showing it", async () => {
    chatBackend({
      messages: [
        message("u1", "m0", "user", [text("Plan it")]),
        message("a1", "u1", "assistant", [
          { type: "reasoning", text: "First, the files.", signature: "SIG-A" },
          { type: "redacted_reasoning", data: "ENCRYPTED-BLOB" },
          { type: "reasoning", text: "Then the tests.", signature: "SIG-B" },
          text("Done."),
        ]),
      ],
    });
    await openChat();
    const answer = await waitFor(() => {
      const a = conversation().querySelector<HTMLElement>('article.message[data-id="a1"]');
      expect(a).not.toBeNull();
      return a!;
    });
    const body = answer.querySelector(".reasoning-body")!;
    expect(body.textContent).toBe(
      "First, the files.\n\nThen the tests.\n\n(Part of this reasoning was encrypted by the provider and is not shown.)",
    );
    expect(answer).not.toHaveTextContent("ENCRYPTED-BLOB");
    expect(answer).not.toHaveTextContent("SIG-A");
  });

  it("says what the run did to fit the context and what its sub-agents do", async () => {
    const b = chatBackend();
    const box = await openChat();
    await userEvent.type(box, "summarize everything{Enter}");
    await waitFor(() => expect(b.runs).toHaveLength(1));
    act(() =>
      b.run().feed(
        { type: "context_trimmed", dropped_messages: 4, context_window: 4096 },
        { type: "context_note", text: "The history was converted for Anthropic." },
        {
          type: "sub_agent",
          thread_id: "th1",
          agent_id: "researcher",
          depth: 1,
          event: { type: "tool_call_proposed", call_id: "x", name: "web__search", tool_id: "web:search" },
        },
      ),
    );
    const tail = conversation();
    await waitFor(() =>
      expect(tail).toHaveTextContent("The 4 oldest messages were left out to fit the model's context of 4,096 tokens."),
    );
    expect(tail).toHaveTextContent("The history was converted for Anthropic.");
    expect(tail).toHaveTextContent("Sub-agent researcher calls web:search");
  });
});

describe("images", () => {
  it("sends a pasted image with the message, kept as a file by the core", async () => {
    const b = chatBackend({
      extra: { stage_pasted_image: () => "/data/pasted/pasted-2026-11-27-201530.png" },
    });
    const box = await openChat();
    const image = new File(["png"], "image.png", { type: "image/png" });
    fireEvent.paste(box, { clipboardData: { files: [image], getData: () => "" } });
    const chips = await screen.findByRole("list", { name: "Images to send" }, { timeout: 5000 });
    expect(chips).toHaveTextContent("pasted-2026-11-27-201530.png");
    // The bytes as base64 ("png"), with the clipboard's type.
    expect(argsOf(b.calls, "stage_pasted_image")).toEqual([{ base64Data: "cG5n", mediaType: "image/png" }]);
    await userEvent.type(box, "what is this?{Enter}");
    await waitFor(() => expect(b.runs).toHaveLength(1));
    expect(b.run().args.options).toMatchObject({ images: ["/data/pasted/pasted-2026-11-27-201530.png"] });
  });

  it("says why a pasted image was refused", async () => {
    chatBackend({
      extra: {
        stage_pasted_image: () => {
          throw { kind: "invalid_data", message: "pasted image: it is not a PNG, JPEG, GIF or WebP image" };
        },
      },
    });
    const box = await openChat();
    const image = new File(["<svg/>"], "image.png", { type: "image/png" });
    fireEvent.paste(box, { clipboardData: { files: [image], getData: () => "" } });
    // The bytes are read (FileReader) before the core is asked: give a busy machine time.
    expect(
      await screen.findByText(
        "The pasted image was not added: pasted image: it is not a PNG, JPEG, GIF or WebP image",
        {},
        { timeout: 5000 },
      ),
    ).toHaveAttribute("role", "status");
    expect(screen.queryByRole("list", { name: "Images to send" })).toBeNull();
  });

  it("shows an image sent with a message as the workspace file it became", async () => {
    chatBackend({
      messages: [
        message("u1", "m0", "user", [
          text("What is this?"),
          { type: "image", path: "cat.png", media_type: "image/png" },
        ]),
        message("a1", "u1", "assistant", [text("A cat.")]),
      ],
      extra: { workspace_file_url: (a) => `atelier-render://localhost/${String(a.manifestId)}/${String(a.path)}` },
    });
    await openChat();
    const img = await screen.findByRole("img", { name: "cat.png" });
    expect(img).toHaveAttribute("src", "atelier-render://localhost/man-u1/cat.png");
  });
});
