import { shown } from "../../lib/shown";
/**
 * A command line split into words the way a POSIX shell splits one, without
 * any of its expansions: blanks separate words, `'…'` keeps everything,
 * `"…"` keeps everything but `\"`, `\\`, `\$` and `` \` ``, and a backslash
 * outside quotes keeps the next character. Nothing is run by a shell: the
 * first word is the program, the rest its arguments.
 */
export function shellWords(line: string): { words: string[] } | { error: string } {
  const words: string[] = [];
  let word: string | null = null;
  let i = 0;
  const push = (s: string) => {
    word = (word ?? "") + s;
  };
  while (i < line.length) {
    const c = line[i]!;
    if (c === " " || c === "\t" || c === "\n") {
      if (word !== null) words.push(word);
      word = null;
      i++;
    } else if (c === "'") {
      const end = line.indexOf("'", i + 1);
      if (end === -1) return { error: "a ' quote is not closed" };
      push(line.slice(i + 1, end));
      i = end + 1;
    } else if (c === '"') {
      let j = i + 1;
      let s = "";
      while (j < line.length && line[j] !== '"') {
        if (line[j] === "\\" && j + 1 < line.length && '"\\$`'.includes(line[j + 1]!)) {
          s += line[j + 1];
          j += 2;
        } else {
          s += line[j];
          j++;
        }
      }
      if (j >= line.length) return { error: 'a " quote is not closed' };
      push(s);
      i = j + 1;
    } else if (c === "\\") {
      if (i + 1 >= line.length) return { error: "the line ends with a lone \\" };
      push(line[i + 1]!);
      i += 2;
    } else {
      push(c);
      i++;
    }
  }
  if (word !== null) words.push(word);
  return { words };
}

/**
 * Words written back as a line for display: one {@link shellWords} splits
 * into the same words, unless a word holds a control or bidi character,
 * which is shown escaped (see `lib/shown`) rather than acted on.
 */
export function shellLine(words: string[]): string {
  return words
    .map((w) => (w !== "" && /^[\w@%+=:,./-]+$/.test(w) ? w : `'${shown(w.replace(/'/g, `'\\''`))}'`))
    .join(" ");
}
