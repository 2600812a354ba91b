import { useState } from "react";
import { api } from "../api";
import { CopyButton } from "../conversation/CopyButton";
import { ErrorBox, Notice, Spinner } from "../components/feedback";
import { useLoad } from "../lib/useLoad";

/**
 * Where the app's log file is (`<data dir>/logs/atelier.log`): the path to
 * copy and a way to open its folder, so a person can send it when
 * something breaks.
 */
export function LogsSection() {
  const [load, reload] = useLoad(() => api.logLocation(), "log-location");
  const [error, setError] = useState<unknown>(null);
  const log = load.data;

  const openFolder = async () => {
    setError(null);
    try {
      await api.openLogFolder();
    } catch (e) {
      setError(e);
    }
  };

  return (
    <section className="settings-section" aria-labelledby="logs-title">
      <h2 id="logs-title">Logs</h2>
      <p className="muted">
        What went wrong, with the errors of this window, to send with a report of a problem. Secrets are never written
        to it. Start Atelier with <code>ATELIER_LOG=info</code> (or <code>debug</code>) for more detail.
      </p>
      {load.state === "error" && (
        <ErrorBox error={load.error} title="Where the log is could not be read." onRetry={reload} />
      )}
      {log === null && load.state === "loading" && <Spinner label="Finding the log…" />}
      {log !== null && (
        <>
          <dl className="facts" aria-label="Log file">
            <dt>Log file</dt>
            <dd>
              <code className="small">{log.file}</code> <CopyButton text={log.file} label="Copy the log file's path" />
            </dd>
          </dl>
          {log.written ? (
            <p className="muted small">Over 4 MB it starts afresh, keeping the previous file beside it (.1).</p>
          ) : (
            <Notice tone="warning">
              The data folder is read-only, so this run writes no log file: its log goes to the terminal only.
            </Notice>
          )}
          {log.written && (
            <button type="button" className="btn btn-small" onClick={() => void openFolder()}>
              Open folder
            </button>
          )}
        </>
      )}
      {error !== null && <ErrorBox error={error} title="The folder was not opened." onDismiss={() => setError(null)} />}
    </section>
  );
}
