import { classHighlighter, highlightTree } from "@lezer/highlight";
import { describe, expect, it } from "vitest";
import { csv, tsv } from "../src/renderers/csv";
import { languageFor } from "../src/renderers/languages";

/** Each highlighted span as [text, class]. */
function spans(support: ReturnType<typeof csv>, text: string): Array<[string, string]> {
  const tree = support.language.parser.parse(text);
  const out: Array<[string, string]> = [];
  highlightTree(tree, classHighlighter, (from, to, cls) => out.push([text.slice(from, to), cls]));
  return out;
}

describe("CSV highlighting", () => {
  it("marks the header, numbers, quoted fields (even across lines) and separators", () => {
    const text = 'month,units\n2026-01,120\n"a ""quoted""\nfield",3.5e2\n';
    const s = spans(csv(), text);
    expect(s).toContainEqual(["month", "tok-heading"]);
    expect(s).toContainEqual(["units", "tok-heading"]);
    expect(s).toContainEqual(["120", "tok-number"]);
    expect(s).toContainEqual(["3.5e2", "tok-number"]);
    expect(s).toContainEqual(['"a ""quoted""', "tok-string"]);
    expect(s).toContainEqual(['field"', "tok-string"]);
    expect(s).toContainEqual([",", "tok-punctuation"]);
    expect(s.find(([t]) => t === "2026-01")).toBeUndefined(); // a date is plain text
  });

  it("splits TSV on tabs only", () => {
    const s = spans(tsv(), "a,b\tc\n1,5\t2\n");
    expect(s).toContainEqual(["a,b", "tok-heading"]);
    expect(s).toContainEqual(["2", "tok-number"]);
    expect(s.find(([t]) => t === "1,5")).toBeUndefined();
  });

  it("is chosen for .csv and .tsv files and by name", () => {
    expect(languageFor("auto", "data/sales.csv")?.name).toBe("CSV");
    expect(languageFor(null, "x.TSV")?.name).toBe("TSV");
    expect(languageFor("csv", null)?.name).toBe("CSV");
  });
});
