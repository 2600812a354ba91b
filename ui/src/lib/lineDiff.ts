/** One line of a line diff. */
export type DiffLine = { op: " " | "-" | "+"; text: string };

const MAX_CELLS = 4_000_000;

/**
 * A line diff of `before` → `after` (longest common subsequence), for the
 * preview shown before an edit is saved. Very large inputs fall back to
 * "all removed, all added" rather than stall the UI.
 */
export function lineDiff(before: string, after: string): DiffLine[] {
  const a = before.split("\n");
  const b = after.split("\n");
  // Trim the common head and tail: most edits touch a few lines.
  let head = 0;
  while (head < a.length && head < b.length && a[head] === b[head]) head++;
  let tail = 0;
  while (tail < a.length - head && tail < b.length - head && a[a.length - 1 - tail] === b[b.length - 1 - tail]) tail++;
  const x = a.slice(head, a.length - tail);
  const y = b.slice(head, b.length - tail);
  const out: DiffLine[] = a.slice(0, head).map((text) => ({ op: " ", text }));
  if (x.length * y.length > MAX_CELLS) {
    out.push(...x.map((text) => ({ op: "-" as const, text })), ...y.map((text) => ({ op: "+" as const, text })));
  } else {
    const w = y.length + 1;
    const lcs = new Uint32Array((x.length + 1) * w);
    for (let i = x.length - 1; i >= 0; i--) {
      for (let j = y.length - 1; j >= 0; j--) {
        lcs[i * w + j] = x[i] === y[j] ? lcs[(i + 1) * w + j + 1]! + 1 : Math.max(lcs[(i + 1) * w + j]!, lcs[i * w + j + 1]!);
      }
    }
    let i = 0;
    let j = 0;
    while (i < x.length || j < y.length) {
      if (i < x.length && j < y.length && x[i] === y[j]) {
        out.push({ op: " ", text: x[i]! });
        i++;
        j++;
      } else if (i < x.length && (j === y.length || lcs[(i + 1) * w + j]! >= lcs[i * w + j + 1]!)) {
        // Removals before additions, as unified diffs show them.
        out.push({ op: "-", text: x[i]! });
        i++;
      } else {
        out.push({ op: "+", text: y[j]! });
        j++;
      }
    }
  }
  out.push(...a.slice(a.length - tail).map((text) => ({ op: " " as const, text })));
  return out;
}

/** Only the changed lines with `context` lines around them; gaps as null. */
export function hunks(lines: DiffLine[], context = 2): Array<DiffLine | null> {
  const keep = lines.map(() => false);
  lines.forEach((l, i) => {
    if (l.op === " ") return;
    for (let k = Math.max(0, i - context); k <= Math.min(lines.length - 1, i + context); k++) keep[k] = true;
  });
  const out: Array<DiffLine | null> = [];
  lines.forEach((l, i) => {
    if (keep[i]) out.push(l);
    else if (out.length > 0 && out[out.length - 1] !== null) out.push(null);
  });
  if (out[out.length - 1] === null) out.pop();
  return out;
}
