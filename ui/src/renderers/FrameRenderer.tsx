import { useState } from "react";
import { api } from "../api";
import { ConfirmDialog } from "../components/ConfirmDialog";
import { ErrorBox, Notice, Spinner } from "../components/feedback";
import { str } from "../lib/json";
import { useLoad } from "../lib/useLoad";
import { useSettings } from "../settings/useSettings";
import { SandboxedFrame } from "./SandboxedFrame";
import type { RendererProps } from "./types";

/** Restarts the app so saved frame origins apply; errors stay in place. */
export function RestartButton() {
  const [error, setError] = useState<unknown>(null);
  return (
    <>
      <button
        type="button"
        className="btn btn-small"
        onClick={() => {
          setError(null);
          api.restartApp().catch(setError);
        }}
      >
        Restart Atelier now
      </button>
      {error !== null && <ErrorBox title="Could not restart." error={error} />}
    </>
  );
}

/**
 * A page the tool serves, in a sandboxed iframe. Pages from this computer
 * show at once; another origin only once the person allowed it (a setting
 * the window's CSP picks up at start, so it needs a restart).
 */
export function FrameRenderer(props: RendererProps) {
  const url = str(props.config, "url");
  if (url === null || url === "") return <Notice>This tool gave no URL to show.</Notice>;
  return <Frame {...props} url={url} />;
}

function Frame({ call, url }: RendererProps & { url: string }) {
  const settings = useSettings();
  const [asking, setAsking] = useState(false);
  const [error, setError] = useState<unknown>(null);
  // The core decides what may be framed; asked again when the settings change.
  const saved = JSON.stringify(settings.load.data?.saved.frame_origins ?? null);
  const [check] = useLoad(() => api.checkFrame(url), JSON.stringify([url, saved]));
  if (check.state === "error") return <ErrorBox error={check.error} title="Could not check this page." />;
  if (check.data === null) return <Spinner label="Loading…" />;
  const { access, origin } = check.data;

  if (access === "invalid" || origin === null) {
    return (
      <Notice tone="warning">
        Only http and https pages can be shown here; this tool asked for <code>{url}</code>.
      </Notice>
    );
  }
  if (access === "needs_restart") {
    return (
      <div className="frame-blocked">
        <Notice>
          You allowed pages from <code>{origin}</code>. Restart Atelier to show <code>{url}</code> here.
        </Notice>
        <RestartButton />
      </div>
    );
  }
  if (access === "not_allowed") {
    return (
      <div className="frame-blocked">
        <Notice tone="warning">
          This tool wants to show <code>{url}</code>. Atelier shows pages from this computer (localhost, 127.0.0.1,
          [::1]) and from origins you allowed.
        </Notice>
        <button type="button" className="btn btn-small" onClick={() => setAsking(true)}>
          Allow pages from {origin}…
        </button>
        {error !== null && (
          <ErrorBox title="Could not save the setting." error={error} onDismiss={() => setError(null)} />
        )}
        {asking && (
          <ConfirmDialog
            title={`Show pages from ${origin}?`}
            confirmLabel="Allow"
            onCancel={() => setAsking(false)}
            onConfirm={() => {
              setAsking(false);
              settings.allowFrameOrigin(origin).catch(setError);
            }}
          >
            <p>
              Frame renderers of every tool will be able to load pages from <code>{origin}</code>. The pages run in a
              sandbox with no access to Atelier, your files or your chats, but they can reach that site and see what the
              tool puts in the URL.
            </p>
            <p>Atelier applies this after a restart. You can take it back in Settings.</p>
          </ConfirmDialog>
        )}
      </div>
    );
  }
  return (
    <div className="frame-renderer">
      <div className="renderer-bar">
        <code className="renderer-path">{url}</code>
      </div>
      <SandboxedFrame src={url} title={`Page from ${call.tool_id}`} initialHeight={480} />
    </div>
  );
}
