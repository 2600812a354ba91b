import { describe, expect, it } from "vitest";
import { hunks, lineDiff } from "../src/lib/lineDiff";

describe("line diff", () => {
  it("finds the changed lines between common ones", () => {
    const d = lineDiff("a\nb\nc\nd", "a\nB\nc\nd\ne");
    expect(d.map((l) => `${l.op}${l.text}`)).toEqual([" a", "-b", "+B", " c", " d", "+e"]);
  });

  it("keeps only changes with context, gaps marked", () => {
    const before = Array.from({ length: 20 }, (_, i) => `line ${i}`).join("\n");
    const after = before.replace("line 2\n", "line two\n").replace("line 17", "line seventeen");
    const h = hunks(lineDiff(before, after), 1);
    expect(h.map((l) => (l === null ? "…" : `${l.op}${l.text}`))).toEqual([
      " line 1", "-line 2", "+line two", " line 3", "…", " line 16", "-line 17", "+line seventeen", " line 18",
    ]);
  });

  it("handles empty sides", () => {
    expect(lineDiff("", "x").map((l) => l.op)).toEqual(["-", "+"]);
    expect(lineDiff("same", "same").every((l) => l.op === " ")).toBe(true);
  });
});
