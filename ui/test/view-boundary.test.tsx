import { useEffect } from "react";
import { render, screen, within } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import { afterEach, beforeEach, describe, expect, it, vi, type MockInstance } from "vitest";
import { App } from "../src/App";
import type { RenderPlan } from "../src/bindings";
import { ViewBoundary } from "../src/components/ViewBoundary";
import { call, chat, linearTree, plan, tool } from "./fixtures";
import { mockCommands } from "./ipc";

let logged: MockInstance<typeof console.error>;
beforeEach(() => {
  logged = vi.spyOn(console, "error").mockImplementation(() => undefined);
});
afterEach(() => logged.mockRestore());

let failing = true;
let mounts = 0;

/** Throws while `failing`; counts its mounts. */
function Fragile() {
  useEffect(() => {
    mounts += 1;
  }, []);
  if (failing) throw new Error("the total is not a number");
  return <p>Total: 12</p>;
}

describe("a view that fails to render", () => {
  it("shows its error in place, the views beside it still drawn, and Reload view draws it afresh", async () => {
    render(
      <main>
        <ViewBoundary name="the totals">
          <Fragile />
        </ViewBoundary>
        <p>The neighbour</p>
      </main>,
    );
    const failed = screen.getByRole("alert");
    expect(failed).toHaveTextContent("This view failed: the total is not a number");
    expect(screen.getByText("The neighbour")).toBeInTheDocument();
    // The details (where it was thrown, the components it was in) are there to copy.
    expect(within(failed).getByText(/View: the totals/)).toHaveTextContent(/Fragile/);
    expect(within(failed).getByRole("button", { name: "Copy the error's details" })).toBeInTheDocument();
    // Logged once, by its name.
    expect(logged.mock.calls.filter((c) => String(c[0]).includes('the view "the totals" failed'))).toHaveLength(1);

    failing = false;
    await userEvent.click(within(failed).getByRole("button", { name: "Reload view" }));
    expect(screen.getByText("Total: 12")).toBeInTheDocument();
    expect(screen.queryByRole("alert")).toBeNull();
    expect(mounts).toBe(1);
  });

  it("keeps the app alive when a call's result cannot be drawn: the card says so, the rest is shown", async () => {
    // A plan the core should never send (no warnings list): its renderer throws.
    const broken = call({
      id: "c1",
      node_id: "n1",
      tool_id: "read_file",
      render_plan: { ...plan("code", { content: "first" }), warnings: null } as unknown as RenderPlan,
    });
    const fine = call({
      id: "c2",
      node_id: "n2",
      tool_id: "write_file",
      render_plan: plan("code", { content: "second" }),
    });
    mockCommands({
      list_chats: () => [chat()],
      list_toolsets: () => [],
      get_available_tools: () => [tool()],
      list_tool_calls: () => [broken, fine],
      chat_tree: () => linearTree([broken, fine]),
    });
    render(<App />);
    const card = await screen.findByRole("article", { name: "Call of read_file" });
    expect(await within(card).findByRole("alert")).toHaveTextContent(/^This view failed: /);
    // The card's header, the next card, the sidebar and the tabs are all there.
    expect(within(card).getByText("read_file")).toBeInTheDocument();
    const next = screen.getByRole("article", { name: "Call of write_file" });
    expect(within(next).queryByRole("alert")).toBeNull();
    expect(screen.getByRole("complementary", { name: "Sidebar" })).toBeInTheDocument();
    expect(screen.getByRole("tab", { name: "Settings" })).toBeInTheDocument();
    await userEvent.click(screen.getByRole("tab", { name: "Settings" }));
    expect(await screen.findByRole("heading", { name: "Settings", level: 1 })).toBeInTheDocument();
  });
});
