// What a person does with the messages: approve a model's call inline,
// edit a message, retry an answer and go between the branches, fork,
// choose the model the next message goes to, and set the chat's model settings.
import { act, screen, waitFor, within } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import { afterEach, describe, expect, it, vi } from "vitest";
import type { Agent } from "../src/bindings";
import { resetRuns } from "../src/conversation/runStore";
import { forgetChoices } from "../src/conversation/Switchers";
import {
  CHAT,
  chatBackend,
  conversation,
  deleteWaitsForApproval,
  message,
  openChat,
  provider,
  text,
} from "./chatBackend";
import { agent, call } from "./fixtures";
import { argsOf, deferred } from "./ipc";

afterEach(() => {
  resetRuns();
  forgetChoices();
});

const articles = (role: string) => [
  ...conversation().querySelectorAll<HTMLElement>(`article.message[data-role="${role}"]`),
];
const noEvent = <T extends Record<string, unknown>>(a: T) => {
  const { onEvent: _c, ...rest } = a;
  return rest;
};

const EXCHANGE = [
  message("u1", "m0", "user", [text("What is 2+2?")]),
  message("a1", "u1", "assistant", [text("It is 4.")]),
];

describe("a model's call", () => {
  it("waits inline for Approve, then the answer goes on", async () => {
    const b = chatBackend({ extra: { answer_approval: () => true, answer_approval_for_chat: () => true } });
    const box = await openChat();
    const run = await deleteWaitsForApproval(b, box);
    const card = await screen.findByRole("article", { name: "Call of delete_file" });
    await waitFor(() => expect(card).toHaveTextContent("waiting for approval"));
    expect(card).toHaveTextContent('"path": "old.txt"');
    for (const name of ["Approve", "Deny", "Allow for this chat"])
      expect(within(card).getByRole("button", { name })).toBeEnabled();

    await userEvent.click(within(card).getByRole("button", { name: "Approve" }));
    expect(argsOf(b.calls, "answer_approval")).toEqual([{ callId: "call-9", approve: true }]);
    await waitFor(() => expect(card).toHaveTextContent("running"));

    const record = call({ id: "call-9", tool_id: "delete_file", args: { path: "old.txt" }, node_id: null });
    act(() => {
      const t = run.save("tool", [{ type: "tool_call", tool_call_id: "call-9" }]);
      record.node_id = t.id;
      record.message_id = t.id;
      run.feed({ type: "tool_call_finished", call: record });
      run.feed({ type: "text_delta", text: "Deleted old.txt." });
    });
    await waitFor(() =>
      expect(conversation().querySelector('article[aria-busy="true"]')).toHaveTextContent("Deleted old.txt."),
    );
    const done = screen.getByRole("article", { name: "Call of delete_file" });
    expect(done).not.toHaveClass("call-live");
    expect(done).toHaveTextContent("success");
  });

  it("allows a tool for this chat from the card", async () => {
    const b = chatBackend({ extra: { answer_approval_for_chat: () => true } });
    const box = await openChat();
    await userEvent.type(box, "Run it{Enter}");
    await waitFor(() => expect(b.runs).toHaveLength(1));
    act(() => {
      b.run().feed(
        {
          type: "tool_call_proposed",
          call_id: "mc1",
          name: "app-builder__run_command",
          tool_id: "app-builder:run_command",
        },
        { type: "tool_call_event", model_call_id: "mc1", event: { kind: "awaiting_approval", call_id: "call-3" } },
      );
    });
    // The wire name read back as the tool's id.
    const card = await screen.findByRole("article", { name: "Call of app-builder:run_command" });
    await userEvent.click(within(card).getByRole("button", { name: "Allow for this chat" }));
    expect(argsOf(b.calls, "answer_approval_for_chat")).toEqual([{ callId: "call-3" }]);
  });
});

describe("branches", () => {
  it("edits a message inline: a sibling branch, with arrows to go back", async () => {
    const b = chatBackend({ messages: EXCHANGE });
    await openChat();
    await waitFor(() => expect(articles("user")).toHaveLength(1));
    const user = articles("user")[0]!;
    await userEvent.click(within(user).getByRole("button", { name: "Edit message" }));
    const editor = within(user).getByRole("textbox", { name: "Edit message" });
    expect(editor).toHaveValue("What is 2+2?");
    await userEvent.clear(editor);
    await userEvent.type(editor, "What is 3+3?");
    await userEvent.click(within(user).getByRole("button", { name: "Send edit" }));
    await waitFor(() => expect(b.runs).toHaveLength(1));
    expect(noEvent(b.run().args)).toEqual({
      chatId: CHAT,
      messageId: "u1",
      text: "What is 3+3?",
      choice: expect.anything(),
    });
    act(() => {
      b.run().save("user", [text("What is 3+3?")]);
      b.run().save("assistant", [text("It is 6.")]);
      b.run().end();
    });
    await waitFor(() => expect(conversation()).toHaveTextContent("It is 6."));
    expect(conversation()).not.toHaveTextContent("It is 4.");
    const arrows = await waitFor(() => within(articles("user")[0]!).getByRole("navigation", { name: "Branches here" }));
    expect(arrows.querySelector(".siblings-count")).toHaveTextContent("2/2");
    await userEvent.click(within(arrows).getByRole("button", { name: "Previous branch" }));
    expect(argsOf(b.calls, "switch_branch").map(({ onProgress: _p, ...a }) => a)).toEqual([
      { chatId: CHAT, messageId: "u1" },
    ]);
    await waitFor(() => expect(conversation()).toHaveTextContent("It is 4."));
    expect(within(articles("user")[0]!).getByRole("navigation", { name: "Branches here" })).toHaveTextContent("1/2");
  });

  it("cancels an edit without sending", async () => {
    const b = chatBackend({ messages: EXCHANGE });
    await openChat();
    await waitFor(() => expect(articles("user")).toHaveLength(1));
    const user = articles("user")[0]!;
    await userEvent.click(within(user).getByRole("button", { name: "Edit message" }));
    await userEvent.click(within(user).getByRole("button", { name: "Cancel" }));
    expect(within(user).queryByRole("textbox", { name: "Edit message" })).toBeNull();
    expect(b.runs).toHaveLength(0);
  });

  it("retries an answer as a sibling; the old one hides while the new one streams", async () => {
    const b = chatBackend({ messages: EXCHANGE });
    await openChat();
    await waitFor(() => expect(articles("assistant")).toHaveLength(1));
    await userEvent.click(within(articles("assistant")[0]!).getByRole("button", { name: "Retry" }));
    await waitFor(() => expect(b.runs).toHaveLength(1));
    expect(b.run().command).toBe("retry_message");
    expect(noEvent(b.run().args)).toEqual({ chatId: CHAT, messageId: "a1", choice: expect.anything() });
    act(() => b.run().feed({ type: "text_delta", text: "Four" }));
    await waitFor(() => expect(conversation().querySelector('article[aria-busy="true"]')).toHaveTextContent("Four"));
    expect(conversation()).not.toHaveTextContent("It is 4.");
    act(() => {
      b.run().save("assistant", [text("Four.")]);
      b.run().end();
    });
    await waitFor(() =>
      expect(within(articles("assistant")[0]!).getByRole("navigation", { name: "Branches here" })).toHaveTextContent(
        "2/2",
      ),
    );
    expect(articles("assistant")[0]).toHaveTextContent("Four.");
  });

  it("retries and edits with the model chosen in the switcher since (it becomes the chat's)", async () => {
    const b = chatBackend({ messages: EXCHANGE });
    await openChat();
    await waitFor(() => expect(articles("assistant")).toHaveLength(1));
    const select = screen.getByRole("combobox", { name: "Model" });
    await waitFor(() =>
      expect(within(select).getByRole("option", { name: "llama3.2:3b · ollama" })).toBeInTheDocument(),
    );
    await userEvent.selectOptions(select, "ollama/llama3.2:3b");
    await userEvent.click(within(articles("assistant")[0]!).getByRole("button", { name: "Retry" }));
    await waitFor(() => expect(b.runs).toHaveLength(1));
    expect(b.run().args.choice).toEqual({ agent_id: null, provider_id: "ollama", model: "llama3.2:3b" });
    act(() => {
      b.run().save("assistant", [text("Four.")]);
      b.run().end();
    });
    await waitFor(() => expect(screen.getByRole("button", { name: "Send" })).toBeInTheDocument());
    const user = articles("user")[0]!;
    await userEvent.click(within(user).getByRole("button", { name: "Edit message" }));
    const editor = within(user).getByRole("textbox", { name: "Edit message" });
    await userEvent.clear(editor);
    await userEvent.type(editor, "And 3+3?");
    await userEvent.click(within(user).getByRole("button", { name: "Send edit" }));
    await waitFor(() => expect(b.runs).toHaveLength(2));
    expect(b.run().command).toBe("edit_message");
    expect(b.run().args.choice).toEqual({ agent_id: null, provider_id: "ollama", model: "llama3.2:3b" });
  });

  it("forks to a new chat and selects it", async () => {
    const b = chatBackend({ messages: EXCHANGE });
    await openChat();
    await waitFor(() => expect(articles("assistant")).toHaveLength(1));
    await userEvent.click(within(articles("assistant")[0]!).getByRole("button", { name: "Fork to new chat" }));
    expect(argsOf(b.calls, "fork_chat")).toEqual([{ chatId: CHAT, messageId: "a1" }]);
    const list = screen.getByRole("list", { name: "Chat list" });
    await waitFor(() =>
      expect(within(list).getByRole("button", { name: "First chat (fork)" })).toHaveAttribute("aria-current", "true"),
    );
  });
});

describe("the model switcher", () => {
  it("shows the provider's default model once, marked, and chosen until another is", async () => {
    chatBackend();
    await openChat();
    const select = screen.getByRole("combobox", { name: "Model" });
    await waitFor(() =>
      expect(within(select).getByRole("option", { name: "llama3.2:3b · ollama" })).toBeInTheDocument(),
    );
    const names = within(select)
      .getAllByRole("option")
      .map((o) => o.textContent);
    expect(names).toEqual(["qwen2.5:7b · ollama (default)", "llama3.2:3b · ollama"]);
    expect(select).toHaveValue("ollama/qwen2.5:7b");
  });

  it("of several providers asks for a model (the core would), and the entry picked is sent", async () => {
    const b = chatBackend({
      providers: [provider(), provider({ id: "custom", base_url: "http://localhost:9/v1", default_model: "tiny" })],
      models: { ollama: ["qwen2.5:7b"], custom: ["tiny"] },
    });
    const box = await openChat();
    const select = screen.getByRole("combobox", { name: "Model" });
    await waitFor(() =>
      expect(within(select).getByRole("option", { name: "tiny · custom (default)" })).toBeInTheDocument(),
    );
    expect(select).toHaveValue("");
    expect(within(select).getByRole("option", { name: "Choose a model" })).toBeInTheDocument();
    await userEvent.selectOptions(select, "custom/tiny");
    await userEvent.type(box, "hi{Enter}");
    await waitFor(() => expect(b.runs).toHaveLength(1));
    expect(b.run().args.options).toMatchObject({ provider_id: "custom", model: "tiny" });
  });

  it("lists each provider's models and sends the choice with the next message", async () => {
    const b = chatBackend();
    const box = await openChat();
    const select = screen.getByRole("combobox", { name: "Model" });
    await waitFor(() =>
      expect(within(select).getByRole("option", { name: "llama3.2:3b · ollama" })).toBeInTheDocument(),
    );
    await userEvent.selectOptions(select, "ollama/llama3.2:3b");
    await userEvent.type(box, "hi{Enter}");
    await waitFor(() => expect(b.runs).toHaveLength(1));
    expect(b.run().args.options).toMatchObject({ provider_id: "ollama", model: "llama3.2:3b" });
    expect(screen.getByRole("combobox", { name: "Agent" })).toHaveValue("assistant");
  });
});

describe("the agent switcher", () => {
  it("lists the agents and sends the one chosen (it becomes the chat's)", async () => {
    const b = chatBackend({
      extra: {
        list_agents: () => [
          agent({ id: "assistant", name: "Assistant" }),
          agent({ id: "researcher", name: "Researcher", model: { provider: "ollama", model: "llama3.2:3b" } }),
        ],
      },
    });
    const box = await openChat();
    const select = screen.getByRole("combobox", { name: "Agent" });
    await waitFor(() => expect(select).toBeEnabled());
    expect(select).toHaveValue("assistant");
    await userEvent.selectOptions(select, "researcher");
    // The chat has no model of its own: the agent's is the default.
    expect(screen.getByRole("combobox", { name: "Model" })).toHaveTextContent("llama3.2:3b · ollama (agent's)");
    await userEvent.type(box, "find sources{Enter}");
    await waitFor(() => expect(b.runs).toHaveLength(1));
    expect(b.run().args.options).toMatchObject({ agent_id: "researcher", provider_id: null, model: null });
  });

  it("leaves the model to the agent's own when no provider has a default (no guess sent for it)", async () => {
    const b = chatBackend({
      providers: [provider({ default_model: null })],
      extra: {
        list_agents: () => [
          agent({ id: "assistant", name: "Assistant", model: { provider: "ollama", model: "llama3.2:3b" } }),
        ],
      },
    });
    const box = await openChat();
    const model = screen.getByRole("combobox", { name: "Model" });
    await waitFor(() => expect(model).toHaveTextContent("llama3.2:3b · ollama (agent's)"));
    await userEvent.type(box, "hi{Enter}");
    await waitFor(() => expect(b.runs).toHaveLength(1));
    // Before, the provider's first model went with the message and became the chat's.
    expect(b.run().args.options).toMatchObject({ provider_id: null, model: null });
  });

  it("sends no guessed model while the agents are still being read (the agent may have its own)", async () => {
    const agents = deferred<Agent[]>();
    const b = chatBackend({
      providers: [provider({ default_model: null })],
      extra: { list_agents: () => agents.promise },
    });
    const box = await openChat();
    await userEvent.type(box, "hi{Enter}");
    await waitFor(() => expect(b.runs).toHaveLength(1));
    // Before, the provider's first model went with it, over the agent's own.
    expect(b.run().args.options).toMatchObject({ provider_id: null, model: null });
    await act(async () => agents.resolve([agent({ id: "assistant", name: "Assistant" })]));
  });
});

describe("a chat's model settings", () => {
  it("sets the chat's own answer length and temperature over its agent's, and clears them again", async () => {
    const b = chatBackend({
      messages: [message("u1", "m0", "user", [text("Hi")]), message("a1", "u1", "assistant", [text("Hello.")])],
      extra: {
        list_agents: () => [agent({ id: "assistant", name: "Assistant", model_settings: { temperature: 0.2 } })],
      },
    });
    await openChat();
    const button = await screen.findByRole("button", { name: "Model options" });
    await waitFor(() => expect(button).toBeEnabled());
    await userEvent.click(button);
    const panel = await screen.findByRole("form", { name: "This chat's model settings" });
    // An empty field keeps the agent's setting, and says which.
    const temperature = within(panel).getByRole("textbox", { name: "Temperature" });
    expect(temperature).toHaveAttribute("placeholder", "agent's: 0.2");
    await userEvent.type(temperature, "0.9");
    await userEvent.type(within(panel).getByRole("textbox", { name: "Max tokens of an answer" }), "2048");
    await userEvent.selectOptions(within(panel).getByRole("combobox", { name: "Reasoning effort" }), "high");
    await userEvent.click(within(panel).getByRole("button", { name: "Save" }));
    await waitFor(() =>
      expect(argsOf(b.calls, "set_chat_model_settings")).toEqual([
        { chatId: CHAT, settings: { temperature: 0.9, max_tokens: 2048, reasoning_effort: "high" } },
      ]),
    );
    // Closed, and the bar counts the chat's own settings.
    await waitFor(() => expect(screen.queryByRole("form", { name: "This chat's model settings" })).toBeNull());
    expect(await screen.findByRole("button", { name: "Model options · 3 changed" })).toHaveAttribute(
      "aria-expanded",
      "false",
    );

    await userEvent.click(screen.getByRole("button", { name: "Model options · 3 changed" }));
    const again = await screen.findByRole("form", { name: "This chat's model settings" });
    expect(within(again).getByRole("textbox", { name: "Max tokens of an answer" })).toHaveValue("2048");
    await userEvent.click(within(again).getByRole("button", { name: "Reset to the agent's defaults" }));
    await waitFor(() =>
      expect(argsOf(b.calls, "set_chat_model_settings").at(-1)).toEqual({ chatId: CHAT, settings: {} }),
    );
    expect(await screen.findByRole("button", { name: "Model options" })).toBeInTheDocument();
  });

  it("names a value that is not a number before saving, and shows the core's refusal of one out of range", async () => {
    const b = chatBackend({
      messages: [message("u1", "m0", "user", [text("Hi")])],
      extra: {
        set_chat_model_settings: () => {
          throw {
            kind: "invalid_data",
            message: "chat model settings: temperature must be between 0 and 2 (got 3)",
          };
        },
      },
    });
    await openChat();
    const button = await screen.findByRole("button", { name: "Model options" });
    await waitFor(() => expect(button).toBeEnabled());
    await userEvent.click(button);
    const panel = await screen.findByRole("form", { name: "This chat's model settings" });
    const max = within(panel).getByRole("textbox", { name: "Max tokens of an answer" });
    await userEvent.type(max, "lots");
    await userEvent.click(within(panel).getByRole("button", { name: "Save" }));
    expect(within(panel).getByRole("alert")).toHaveTextContent("Max tokens: a whole number, like 4096.");
    expect(max).toHaveAttribute("aria-invalid", "true");
    expect(argsOf(b.calls, "set_chat_model_settings")).toEqual([]);

    await userEvent.clear(max);
    await userEvent.type(within(panel).getByRole("textbox", { name: "Temperature" }), "3");
    await userEvent.click(within(panel).getByRole("button", { name: "Save" }));
    expect(await within(panel).findByRole("alert")).toHaveTextContent("temperature must be between 0 and 2 (got 3)");
    // Still open, with what was typed.
    expect(within(panel).getByRole("textbox", { name: "Temperature" })).toHaveValue("3");
  });
});

describe("switching a branch", () => {
  it("reads the tree once per switch, shared by the conversation, the map and the workspace", async () => {
    const b = chatBackend({
      messages: [
        message("u1", "m0", "user", [text("Tell me about tides")]),
        message("a1", "u1", "assistant", [text("Short.")]),
        message("a2", "u1", "assistant", [text("A long answer about tides.")]),
      ],
    });
    await openChat();
    // The map in the sidebar reads the tree too.
    await screen.findByRole("group", { name: "Conversation tree" });
    await waitFor(() => expect(conversation().querySelector('[data-id="a2"]')).not.toBeNull());
    const before = argsOf(b.calls, "chat_tree").length;
    const nav = within(conversation().querySelector<HTMLElement>('[data-id="a2"]')!).getByRole("navigation", {
      name: "Branches here",
    });
    await userEvent.click(within(nav).getByRole("button", { name: "Previous branch" }));
    await waitFor(() => expect(conversation()).toHaveTextContent("Short."));
    // Every view that reads on a move has asked by now.
    await act(() => new Promise((r) => setTimeout(r, 50)));
    expect(argsOf(b.calls, "chat_tree").length - before).toBe(1);
  });

  it("keeps the branch point where it was on screen, with room below a shorter branch, as the branch loads", async () => {
    // What grows is watched (the conversation follows its end): the test fires it.
    const watchers: (() => void)[] = [];
    vi.stubGlobal(
      "ResizeObserver",
      class {
        constructor(f: () => void) {
          watchers.push(f);
        }
        observe() {}
        disconnect() {}
      },
    );
    // The long branch ends with a long answer; the other is one line.
    chatBackend({
      messages: [
        message("u1", "m0", "user", [text("Tell me about tides")]),
        message("a1", "u1", "assistant", [text("Short.")]),
        message("a2", "u1", "assistant", [text("A long answer about tides.")]),
      ],
    });
    await openChat();
    await waitFor(() => expect(conversation().querySelector('[data-id="a2"]')).not.toBeNull());
    // A layout for jsdom: the answers' rows start 1500px down; the long
    // branch is 2000px tall, the short one 700px; the view is 600px.
    const scroller = document.querySelector<HTMLElement>(".chat-scroll")!;
    scroller.style.overflowY = "auto";
    const box = () => conversation().querySelector<HTMLElement>(".branch-view")!;
    let scroll = 1200;
    let loaded = 0;
    const content = () =>
      (conversation().querySelector('[data-id="a2"]') !== null ? 2000 : 700) +
      loaded +
      (parseInt(box().style.paddingBottom) || 0);
    const max = () => Math.max(0, content() - 600);
    Object.defineProperties(scroller, {
      // As a browser does: a view that got shorter clamps the scroll for good.
      scrollTop: {
        get: () => (scroll = Math.min(scroll, max())),
        set: (v: number) => (scroll = v),
        configurable: true,
      },
      scrollHeight: { get: () => Math.max(600, content()), configurable: true },
      clientHeight: { get: () => 600, configurable: true },
    });
    const rowTop = (id: string) => (id === "a1" || id === "a2" ? 1500 : 100) - scroller.scrollTop;
    const rect = HTMLElement.prototype.getBoundingClientRect;
    HTMLElement.prototype.getBoundingClientRect = function (this: HTMLElement) {
      const id = this.dataset.nodeId;
      return { ...rect.call(this), top: id === undefined ? 0 : rowTop(id) };
    };
    try {
      expect(rowTop("a2")).toBe(300);
      const nav = within(conversation().querySelector<HTMLElement>('[data-id="a2"]')!).getByRole("navigation", {
        name: "Branches here",
      });
      await userEvent.click(within(nav).getByRole("button", { name: "Previous branch" }));
      await waitFor(() => expect(conversation()).toHaveTextContent("Short."));
      expect(rowTop("a1")).toBe(300);
      expect(box().style.paddingBottom).not.toBe("");
      // The view is at its (padded) end, yet not following it: a card of
      // the new branch loading its preview does not take the view away.
      act(() => {
        scroller.dispatchEvent(new Event("scroll"));
        loaded = 900;
        for (const f of watchers) f();
      });
      expect(rowTop("a1")).toBe(300);
    } finally {
      vi.unstubAllGlobals();
      HTMLElement.prototype.getBoundingClientRect = rect;
    }
  });
});
