// Going back to an older step is said where the person looks: above the
// calls, on the Run button, and in the Workspace tab's header.
import { render, screen, waitFor, within } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import { describe, expect, it, vi } from "vitest";
import type { MessageNode } from "../src/bindings";
import { BranchView } from "../src/calls/BranchView";
import { branchText, chatPosition } from "../src/calls/position";
import { RunsProvider } from "../src/calls/runs";
import { ToolRunner } from "../src/tools/ToolRunner";
import { call, node, plan, tool } from "./fixtures";
import { argsOf, mockCommands } from "./ipc";

const IDS = ["s1", "s2", "s3", "s4"];
const CALLS = IDS.map((id) =>
  call({ id: `c-${id}`, node_id: id, tool_id: `tool_${id}`, render_plan: plan("code", { content: id }) }),
);

/** root → s1 → s2 → s3 → s4, the workspace at `at`. */
function chain(at: string): MessageNode[] {
  const upTo = ["root", ...IDS].slice(0, ["root", ...IDS].indexOf(at) + 1);
  return ["root", ...IDS].map((id, i, all) =>
    node(id, i === 0 ? null : all[i - 1]!, {
      children: i + 1 < all.length ? [all[i + 1]!] : [],
      on_active_branch: upTo.includes(id),
      latest_leaf: "s4",
    }),
  );
}

function setup(start: string) {
  let at = start;
  const onSwitched = vi.fn();
  const calls = mockCommands({
    chat_tree: () => chain(at),
    checkout: (a) => {
      at = String(a.messageId);
      return {
        id: "chat-1",
        title: "Report",
        created_at: "",
        updated_at: "",
        root_message_id: "root",
        active_leaf_message_id: at,
        active_manifest_id: `man-${at}`,
        agent_id: null,
        provider_id: null,
        model: null,
        model_settings: {},
      };
    },
    get_workspace_manifest: () => {
      throw { kind: "not_found", message: "not needed" };
    },
  });
  render(
    <RunsProvider>
      <ToolRunner tool={tool()} chatId="chat-1" ensureChat={() => Promise.resolve("chat-1")} onCall={vi.fn()} />
      <BranchView chatId="chat-1" calls={CALLS} version="1" focusId={null} onSwitched={onSwitched} />
    </RunsProvider>,
  );
  return { calls, onSwitched };
}

describe("viewing an older step", () => {
  it("says which step is shown, that the next run branches, and returns to the latest", async () => {
    const { calls, onSwitched } = setup("s2");
    const banner = (await screen.findByText(/Viewing step/)).closest("[role=status]") as HTMLElement;
    expect(banner).toHaveTextContent("Viewing step 2 of 4 — the next run starts a new branch from here");
    expect(await screen.findByRole("button", { name: "Run as a new branch" })).toBeInTheDocument();
    expect(screen.getByText(/from step 2: steps 3–4 stay on the branch you left/)).toBeInTheDocument();
    // The calls are cut at step 2.
    expect(within(screen.getByRole("list", { name: "Active branch" })).getAllByRole("article")).toHaveLength(2);

    await userEvent.click(within(banner).getByRole("button", { name: "Return to latest" }));
    await waitFor(() => expect(screen.queryByText(/Viewing step/)).toBeNull());
    expect(argsOf(calls, "checkout")).toMatchObject([{ chatId: "chat-1", messageId: "s4" }]);
    expect(onSwitched).toHaveBeenCalledWith("man-s4");
    expect(await screen.findByRole("button", { name: "Run" })).toBeInTheDocument();
    expect(within(screen.getByRole("list", { name: "Active branch" })).getAllByRole("article")).toHaveLength(4);
  });

  it("says nothing at the latest step", async () => {
    setup("s4");
    await waitFor(() =>
      expect(within(screen.getByRole("list", { name: "Active branch" })).getAllByRole("article")).toHaveLength(4),
    );
    expect(screen.queryByText(/Viewing step/)).toBeNull();
    expect(screen.getByRole("button", { name: "Run" })).toBeInTheDocument();
  });

  it("names the start when the person went back before the first step", async () => {
    setup("root");
    expect((await screen.findByText(/Viewing the start/)).closest("[role=status]")).toHaveTextContent(
      "Viewing the start of 4",
    );
    expect(await screen.findByText(/from the start: steps 1–4 stay on the branch you left/)).toBeInTheDocument();
  });
});

describe("which branch the Workspace header names", () => {
  // root ─ s1 ─ s2 ─┬─ a
  //                 └─ b
  const forked = (at: string, active: string[]): MessageNode[] => [
    node("root", null, { children: ["s1"], on_active_branch: true, latest_leaf: "b" }),
    node("s1", "root", { children: ["s2"], on_active_branch: active.includes("s1"), latest_leaf: "b" }),
    node("s2", "s1", { children: ["a", "b"], on_active_branch: active.includes("s2"), latest_leaf: "b" }),
    node("a", "s2", { on_active_branch: at === "a" }),
    node("b", "s2", { on_active_branch: at === "b" }),
  ];
  it("says the version at the fork above, where branches start, or that they start later", () => {
    expect(branchText(chatPosition("c", forked("a", ["s1", "s2"]))!)).toBe("branch 1 of 2 (from step 3)");
    expect(branchText(chatPosition("c", forked("s2", ["s1", "s2"]))!)).toBe("where 2 branches start");
    expect(branchText(chatPosition("c", forked("s1", ["s1"]))!)).toBe("before the branches");
    expect(branchText(chatPosition("c", chain("s2"))!)).toBe("one branch");
  });
});
