import { StrictMode } from "react";
import { createRoot } from "react-dom/client";
import { App } from "./App";
import { ViewBoundary } from "./components/ViewBoundary";
import "./styles.css";

const root = document.getElementById("root");
if (root === null) throw new Error("index.html has no #root element");
createRoot(root, {
  // A view's boundary logs its error with the view's name (lib/uiErrors):
  // React's own report of the same error would be a second, nameless line.
  onCaughtError: (error, info) => {
    if (!(info.errorBoundary instanceof ViewBoundary)) console.error(error, info.componentStack);
  },
}).render(
  <StrictMode>
    <App />
  </StrictMode>,
);
