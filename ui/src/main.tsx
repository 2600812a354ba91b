import { StrictMode } from "react";
import { createRoot } from "react-dom/client";
import { App } from "./App";
import { ViewBoundary } from "./components/ViewBoundary";
import { reportUiError, reportUncaughtErrors } from "./lib/uiErrors";
import "./styles.css";

// Errors nothing caught go to the app's log too (a person has no console).
reportUncaughtErrors();

const root = document.getElementById("root");
if (root === null) throw new Error("index.html has no #root element");
createRoot(root, {
  // A view's boundary logs its error with the view's name (lib/uiErrors):
  // React's own report of the same error would be a second, nameless line.
  onCaughtError: (error, info) => {
    if (info.errorBoundary instanceof ViewBoundary) return;
    console.error(error, info.componentStack);
    reportUiError("a view (caught by React)", error, info.componentStack);
  },
  // The whole window failed to render (no boundary around it).
  onUncaughtError: (error, info) => {
    console.error(error, info.componentStack);
    reportUiError("the window (uncaught while rendering)", error, info.componentStack);
  },
  onRecoverableError: (error, info) => {
    console.error(error, info.componentStack);
    reportUiError("a render React recovered from", error, info.componentStack);
  },
}).render(
  <StrictMode>
    <App />
  </StrictMode>,
);
