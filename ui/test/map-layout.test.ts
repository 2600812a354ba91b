// The conversation map's layout (pure): rows, columns, folded runs.
import { describe, expect, it } from "vitest";
import { mapLayout, type MapItem } from "../src/chats/mapLayout";
import { node } from "./fixtures";
import { branched, chain } from "./mapTrees";

const where = (items: MapItem[]) =>
  Object.fromEntries(items.map((it) => [it.type === "node" ? it.node.id : `run:${it.key}`, [it.col, it.row]]));

describe("map layout", () => {
  it("gives every node a row of its own and every branch a column of its own, in creation order", () => {
    const layout = mapLayout(branched());
    // As git graph views draw it: a branch right under the step it leaves,
    // the step's own line going on below the branches.
    expect(where(layout.items)).toEqual({
      root: [0, 0],
      a: [0, 1],
      b2: [1, 2],
      d: [1, 3],
      b3: [2, 4],
      b1: [0, 5],
      c: [0, 6],
    });
    const rows = layout.items.map((it) => it.row);
    expect(new Set(rows).size).toBe(rows.length);
    expect([layout.cols, layout.rows, layout.currentId]).toEqual([3, 7, "c"]);
    const ids = layout.items.map((it) => (it.type === "node" ? it.node.id : it.key));
    const edges = layout.edges.map((e) => `${ids[e.from]}>${ids[e.to]}${e.active ? "*" : ""}`);
    expect(edges.sort()).toEqual(["a>b1*", "a>b2", "a>b3", "b1>c*", "b2>d", "root>a*"]);
    // Labels start right of every line on their row: b3's line passes b2 and d.
    const text = Object.fromEntries(layout.items.map((it) => [ids[it.row], it.textCol]));
    expect(text).toEqual({ root: 0, a: 0, b2: 2, d: 2, b3: 2, b1: 0, c: 0 });
  });

  it("takes an inner node that was checked out as the current one", () => {
    const layout = mapLayout(branched(["root", "a"]));
    expect(layout.currentId).toBe("a");
    expect(layout.items.filter((it) => it.type === "node" && it.current)).toHaveLength(1);
  });

  it("folds a 2,000-step chain into one run, keeping the start and the last steps", () => {
    const tree = chain(2000);
    const layout = mapLayout(tree);
    expect(layout.items.length).toBeLessThanOrEqual(8);
    const runs = layout.items.filter((it) => it.type === "run");
    expect(runs).toHaveLength(1);
    expect(runs[0]).toMatchObject({
      firstId: "n1",
      lastId: "n1996",
      count: 1996,
      firstDepth: 1,
      lastDepth: 1996,
      active: true,
    });
    expect(layout.items.map((it) => (it.type === "node" ? it.node.id : "⋯"))).toEqual([
      "root",
      "⋯",
      "n1997",
      "n1998",
      "n1999",
      "n2000",
    ]);
    expect(layout.rows).toBe(6);
    // Opened, every step is drawn again.
    expect(mapLayout(tree, new Set(["n1"])).items).toHaveLength(2001);
  });

  it("leaves short runs alone and folds long ones on other branches too", () => {
    expect(mapLayout(chain(6)).items.every((it) => it.type === "node")).toBe(true);
    // root ─┬─ x (current)
    //       └─ s1 ─ … ─ s50 (another branch)
    const side = chain(50).map((n) => ({
      ...n,
      id: n.id === "root" ? "root" : `s${n.id.slice(1)}`,
      parent_id: n.parent_id === null ? null : n.parent_id === "root" ? "root" : `s${n.parent_id.slice(1)}`,
      children: n.children.map((c) => `s${c.slice(1)}`),
      on_active_branch: n.id === "root",
    }));
    side[0] = { ...side[0]!, children: ["x", "s1"] };
    const layout = mapLayout([...side, node("x", "root")]);
    expect(layout.currentId).toBe("x");
    const run = layout.items.find((it) => it.type === "run");
    // s1 starts a branch and s50 is a leaf: both stay, the 48 between fold.
    expect(run).toMatchObject({ firstId: "s2", lastId: "s49", count: 48, active: false, col: 1 });
    expect(layout.items).toHaveLength(5);
  });

  it("reuses a column after a blank row, and keeps branches that overlap apart", () => {
    // root ─ m1 ─ … ─ m12 (current); x1─x2 and u1 off m1, y1─…─y4 off m2,
    // w1 off y2, z1 off m9, v1 off m11.
    const tree = chain(12).map((n) => ({
      ...n,
      id: n.id.replace("n", "m"),
      parent_id: n.parent_id?.replace("n", "m") ?? null,
      children: n.children.map((c) => c.replace("n", "m")),
    }));
    const off = (at: string, ids: string[]) => {
      tree.find((n) => n.id === at)!.children.push(ids[0]!);
      ids.forEach((id, i) =>
        tree.push(
          node(id, i === 0 ? at : ids[i - 1]!, {
            children: i + 1 < ids.length ? [ids[i + 1]!] : [],
            on_active_branch: false,
          }),
        ),
      );
    };
    off("m1", ["x1", "x2"]);
    off("m1", ["u1"]);
    off("m2", ["y1", "y2", "y3", "y4"]);
    off("y2", ["w1"]);
    off("m9", ["z1"]);
    off("m11", ["v1"]);
    const layout = mapLayout(tree);
    const at = where(layout.items);
    // x and u leave the same step: side by side. y starts below x's end, a
    // row apart: it takes x's column; w, off y, the column right of y.
    expect([at.m1, at.x1, at.x2, at.u1, at.m2, at.y1, at.y2, at.w1, at.y3, at.y4, at.m3]).toEqual([
      [0, 1],
      [1, 2],
      [1, 3],
      [2, 4],
      [0, 5],
      [1, 6],
      [1, 7],
      [2, 8],
      [1, 9],
      [1, 10],
      [0, 11],
    ]);
    // m4…m8 fold; z and v take column 1 again.
    expect([at["run:m4"], at.m9, at.z1, at.m10, at.m11, at.v1, at.m12]).toEqual([
      [0, 12],
      [0, 13],
      [1, 14],
      [0, 15],
      [0, 16],
      [1, 17],
      [0, 18],
    ]);
    expect(layout.cols).toBe(3);
    // u's line runs past x1 and x2: their labels start right of it.
    const text = (row: number) => layout.items[row]!.textCol;
    expect([text(2), text(3), text(4), text(5), text(8), text(9)]).toEqual([2, 2, 2, 0, 2, 1]);
  });

  it("lays out 20,000 nodes without recursion and in one pass", () => {
    // A comb: a long spine with a short side branch every 10 steps.
    const tree = chain(20000);
    const byId = new Map(tree.map((n) => [n.id, n]));
    for (let i = 10; i <= 20000; i += 10) {
      const id = `side${i}`;
      byId.get(`n${i}`)!.children.push(id);
      tree.push(node(id, `n${i}`, { on_active_branch: false }));
    }
    const start = performance.now();
    const layout = mapLayout(tree);
    expect(performance.now() - start).toBeLessThan(2000);
    expect(layout.currentId).toBe("n20000");
    // Each side branch ends long before the next one starts: they share a column.
    expect(layout.cols).toBe(2);
    expect(layout.items.filter((it) => it.type === "node" && !it.node.on_active_branch)).toHaveLength(2000);
    expect(layout.items.length).toBeLessThan(tree.length);
  });
});
