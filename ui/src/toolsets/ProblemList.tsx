import type { Problem } from "../bindings";
import { formatProblem } from "../lib/format";

export function ProblemList({ problems, label }: { problems: Problem[]; label: string }) {
  return (
    <ul className="problem-list" aria-label={label}>
      {problems.map((p, i) => (
        <li key={i} className={p.severity === "error" ? "problem problem-error" : "problem problem-warning"}>
          <span className="problem-severity">{p.severity === "error" ? "Error" : "Warning"}</span>
          <code className="problem-text">{formatProblem(p)}</code>
        </li>
      ))}
    </ul>
  );
}
