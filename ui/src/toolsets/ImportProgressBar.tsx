import type { ImportProgress } from "../api";
import { formatBytes } from "../lib/format";

export function ImportProgressBar({ progress }: { progress: ImportProgress | null }) {
  const total = progress?.bytes_total ?? 0;
  const done = progress?.bytes_done ?? 0;
  const known = total > 0;
  const pct = known ? Math.min(100, Math.round((done / total) * 100)) : undefined;
  const files =
    progress !== null && progress.files_total > 0 ? ` · ${progress.files_done} / ${progress.files_total} files` : "";
  return (
    <div className="import-progress">
      <div
        className={known ? "progress" : "progress progress-indeterminate"}
        role="progressbar"
        aria-label="Import progress"
        aria-valuemin={0}
        aria-valuemax={100}
        aria-valuenow={pct}
      >
        <div className="progress-fill" style={{ width: known ? `${pct}%` : undefined }} />
      </div>
      <p className="small muted" aria-live="polite">
        <span className="progress-step">{progress?.step ?? "Installing…"}</span>
        {known && ` · ${formatBytes(done)} of ${formatBytes(total)}`}
        {files}
      </p>
    </div>
  );
}
