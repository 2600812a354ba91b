// The Chat tab's tool list: hidden by default once a model is set up (the
// conversation gets the width), shown without one (the tools are then the
// way to work); Show/Hide is remembered. The heading is the chat's title.
import { cleanup, fireEvent, screen, waitFor } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import { afterEach, describe, expect, it } from "vitest";
import { resetRuns } from "../src/conversation/runStore";
import { forgetChoices } from "../src/conversation/Switchers";
import { TOOL_LIST_KEY } from "../src/tools/ToolsView";
import { chatBackend, openChat } from "./chatBackend";

afterEach(() => {
  resetRuns();
  forgetChoices();
});

const list = () => document.getElementById("tool-list")!;

describe("the tool list beside the chat", () => {
  it("is hidden once a model is set up; shown, it stays shown the next time", async () => {
    chatBackend({ title: "Trip to Lisbon" });
    await openChat();
    expect(await screen.findByRole("heading", { level: 1, name: "Trip to Lisbon" })).toBeInTheDocument();
    const show = await screen.findByRole("button", { name: "☰ Tools" });
    expect(list()).not.toBeVisible();
    await userEvent.click(show);
    expect(list()).toBeVisible();
    expect(localStorage.getItem(TOOL_LIST_KEY)).toBe("shown");

    cleanup();
    chatBackend({ title: "Trip to Lisbon" });
    await openChat();
    const hide = await screen.findByRole("button", { name: "Hide list" });
    expect(list()).toBeVisible();
    await userEvent.click(hide);
    expect(list()).not.toBeVisible();
    expect(localStorage.getItem(TOOL_LIST_KEY)).toBe("hidden");
  });

  it("is shown when no model is set up: the tools are the way to work", async () => {
    chatBackend({ providers: [] });
    await openChat();
    await waitFor(() => expect(list()).toBeVisible());
    expect(screen.getByRole("button", { name: "Hide list" })).toBeInTheDocument();
    expect(screen.getByRole("heading", { level: 2, name: "Tools" })).toBeInTheDocument();
  });

  it("follows a choice remembered before, with or without a model", async () => {
    localStorage.setItem(TOOL_LIST_KEY, "shown");
    chatBackend();
    await openChat();
    await waitFor(() => expect(list()).toBeVisible());
  });
});

describe("Ctrl+K with the tool list hidden", () => {
  it("shows the list with the cursor in its search: what one types next is the search", async () => {
    localStorage.setItem(TOOL_LIST_KEY, "hidden");
    chatBackend();
    await openChat();
    await screen.findByRole("button", { name: "☰ Tools" });
    // The key press and React's drawing of the list, nothing later: the
    // search must have the focus as soon as it is shown — a focus left for
    // a timer ran, in the app, before the list was drawn, on a hidden input.
    fireEvent.keyDown(document.activeElement ?? document.body, { key: "k", ctrlKey: true });
    expect(list()).toBeVisible();
    const search = screen.getByRole("combobox", { name: "Search tools" });
    expect(search).toHaveFocus();
    await userEvent.keyboard("write");
    expect(search).toHaveValue("write");
  });
});
