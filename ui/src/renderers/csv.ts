import { LanguageSupport, StreamLanguage, type StreamParser, type StringStream } from "@codemirror/language";

// CSV and TSV: the header row as headings, quoted fields as strings (also
// across lines), numbers as numbers, separators as punctuation — enough to
// read a table's shape.
type State = { row: number; inQuote: boolean };

const NUMBER = /^[-+]?(\d+\.?\d*|\.\d+)([eE][-+]?\d+)?$/;

function parser(sep: string): StreamParser<State> {
  const endOfField = (stream: StringStream, s: State, style: string | null): string | null => {
    const header = s.row === 0;
    if (stream.eol() && !s.inQuote) s.row += 1;
    return header && style !== "punctuation" ? "heading" : style;
  };
  return {
    name: sep === "," ? "csv" : "tsv",
    startState: () => ({ row: 0, inQuote: false }),
    copyState: (s) => ({ ...s }),
    blankLine: (s) => {
      if (!s.inQuote) s.row += 1;
    },
    token(stream, s) {
      if (!s.inQuote && stream.eat(sep)) return endOfField(stream, s, "punctuation");
      if (!s.inQuote && stream.eat('"')) s.inQuote = true;
      if (s.inQuote) {
        while (!stream.eol()) {
          if (stream.next() === '"') {
            if (stream.peek() === '"') stream.next();
            else {
              s.inQuote = false;
              break;
            }
          }
        }
        return endOfField(stream, s, "string");
      }
      const start = stream.pos;
      while (!stream.eol() && stream.peek() !== sep) stream.next();
      const field = stream.string.slice(start, stream.pos).trim();
      return endOfField(stream, s, NUMBER.test(field) ? "number" : null);
    },
  };
}

export const csv = () => new LanguageSupport(StreamLanguage.define(parser(",")));
export const tsv = () => new LanguageSupport(StreamLanguage.define(parser("\t")));
