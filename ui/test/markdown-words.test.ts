// The words a label shows of an answer (the conversation map's, the run
// announcer's): read without markdown-it, which the first screen does not
// load, they are the words markdown-it finds in the marks models write.
import MarkdownIt from "markdown-it";
import { describe, expect, it } from "vitest";
import { markdownWords } from "../src/renderers/markdown";

const md = new MarkdownIt({ html: false, linkify: true, typographer: false });

/** What markdown-it's tokens hold as words (how the labels were read before). */
function byMarkdownIt(source: string, chars = 400): string {
  const out: string[] = [];
  for (const t of md.parse(source.slice(0, chars), {})) {
    if (t.type === "inline") {
      for (const c of t.children ?? []) {
        if (c.type === "text" || c.type === "code_inline" || c.type === "image") out.push(c.content);
        else if (c.type === "softbreak" || c.type === "hardbreak") out.push(" ");
      }
      out.push(" ");
    } else if (t.type === "fence" || t.type === "code_block") {
      out.push(t.content, " ");
    }
  }
  return out.join("").replace(/\s+/g, " ").trim();
}

const ANSWERS = [
  "Done: **13** words, see `note.txt`\n\n# Next",
  "March sales rose 12% over February.",
  "## Summary\n\nThe file has *three* columns: `date`, `region` and __amount__.",
  "Here is the plan:\n\n1. Read `data.csv`\n2. Sum the **amount** column\n3. Write `report.md`",
  "- first item\n- second item with _emphasis_\n  - nested ~~old~~ item\n* star item\n+ plus item",
  "> A quote with **bold**\n> > nested quote\n\nAfter the quote.",
  "```python\nprint('hi')\n```\n\nThat prints *hi*.",
  "~~~\nplain fence\n~~~\nand text",
  'See [the docs](https://example.com/docs "Docs") and ![a chart](chart.png).',
  "A [reference link][docs] and [docs].\n\n[docs]: https://example.com",
  "An [undefined][nowhere] reference stays as written.",
  "Autolinks: <https://example.com/a?b=c> and https://example.org and <me@example.com>.",
  "| name | total |\n| --- | ---: |\n| north | 12 |\n| south | 30 |\n\nTwo regions.",
  "Escapes: \\*not emphasis\\*, a \\`tick\\` and a back\\\\slash.",
  "snake_case_name and __init__ and file_name.py stay whole",
  "2 * 3 * 4 = 24, and a*b*c is emphasis",
  "***bold italic*** and **_mixed_** marks",
  "Entities: &amp; &lt;tag&gt; &#65; &#x42; &quot;q&quot;",
  "Raw <b>html</b> is text when html is off",
  "Setext heading\n==============\n\nAnother\n-------\n\ntext",
  "Rule below\n\n---\n\n***\n\nabove",
  "Line one  \nline two\\\nline three",
  "``code with ` tick`` and ` padded `",
  "Heading with closing hashes\n### Title ###",
  "#hashtag is not a heading",
  "Calls `csv_report.summarize` on **sales.csv** — done.",
  "x".repeat(380) + " **cut** here",
];

describe("markdownWords", () => {
  it.each(ANSWERS)("reads %j as markdown-it does", (source) => {
    expect(markdownWords(source)).toBe(byMarkdownIt(source));
  });

  it("shows words, not marks", () => {
    expect(markdownWords("Done: **13** words, see `note.txt`\n\n# Next")).toBe("Done: 13 words, see note.txt Next");
    expect(markdownWords("| a | b |\n|---|---|\n| 1 | 2 |")).toBe("a b 1 2");
  });
});
