//! `tools_from:` — a module's explicitly exported tools (`TOOLS`, else `__all__`).

use anyhow::{Result, ensure};
use atelier_core::toolsets::ImportOptions;
use serde_json::json;

use crate::{Env, failed, import_error, succeeded, tool};

const TEXT_PY: &str = r#"
def shout(workspace, text: str, times: int = 1):
    """Upper-cases text.

    More words that are not the summary."""
    return {"out": text.upper() * times}

def whisper(workspace, text: str, atelier_config: dict):
    # Given by Atelier (its toolset's settings), never by the model.
    return {"out": text.lower(), "settings": atelier_config}

def helper(workspace):
    return {"never": "exported"}

TOOLS = {"shout": shout, "quiet": whisper}
__all__ = ["helper"]  # ignored: TOOLS wins
"#;

const ALL_PY: &str = r#"
from typing import Annotated

__all__ = ["count"]

def count(workspace, items: list[str], strict: bool | None = None,
          label: Annotated[str, "Shown above the count."] = "n"):
    """Counts the items.

    Args:
        items: The things to
            count.
        strict: Refuse empty items.
    """
    return {label: len(items), "strict": strict}

def not_a_tool(workspace):
    return {}
"#;

fn manifest_with(dir: &std::path::Path, tools_from: &[&str]) -> Result<()> {
    let yaml = std::fs::read_to_string(dir.join("toolset.yaml"))?;
    let list = tools_from
        .iter()
        .map(|m| format!("\"{m}\""))
        .collect::<Vec<_>>()
        .join(", ");
    std::fs::write(dir.join("toolset.yaml"), format!("{yaml}tools_from: [{list}]\n"))?;
    Ok(())
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn modules_named_in_tools_from_export_tools_through_tools_then_all() -> Result<()> {
    let env = Env::new().await?;
    let dir = env.write_toolset(
        "texty",
        "1.0.0",
        &json!([tool("declared", "tools.plain:run", json!({}))]),
        &[
            ("tools/plain.py", "def run(workspace):\n    return {'declared': True}\n"),
            ("tools/text.py", TEXT_PY),
            ("tools/lists.py", ALL_PY),
        ],
    )?;
    manifest_with(&dir, &["tools.text", "tools.lists"])?;
    let report = env.app.toolsets().import(&dir, &ImportOptions::default()).await?;
    ensure!(
        report.tools == ["texty:declared", "texty:shout", "texty:quiet", "texty:count"],
        "{:?}",
        report.tools
    );

    // Schemas come from signatures; the description from the docstring,
    // all of it but its sections on parameters and the return value.
    let shout = env.app.toolsets().tool("texty:shout").await?;
    ensure!(
        shout.description == "Upper-cases text.\n\nMore words that are not the summary.",
        "{}",
        shout.description
    );
    let count = env.app.toolsets().tool("texty:count").await?;
    ensure!(count.description == "Counts the items.", "{}", count.description);
    ensure!(
        shout.input_schema
            == json!({"type": "object", "properties": {"text": {"type": "string"},
                "times": {"type": "integer", "default": 1}}, "required": ["text"], "additionalProperties": false}),
        "{}",
        shout.input_schema
    );
    let quiet = env.app.toolsets().tool("texty:quiet").await?;
    ensure!(
        quiet.input_schema
            == json!({"type": "object", "properties": {"text": {"type": "string"}}, "required": ["text"],
                "additionalProperties": false}),
        "atelier_config is no argument: {}",
        quiet.input_schema
    );
    let props = &count.input_schema["properties"];
    ensure!(
        props["items"] == json!({"type": "array", "items": {"type": "string"}, "description": "The things to count."}),
        "descriptions come from the docstring's Args: {props}"
    );
    ensure!(
        props["strict"] == json!({"type": ["boolean", "null"], "default": null, "description": "Refuse empty items."}),
        "an Optional takes null: {props}"
    );
    ensure!(
        props["label"] == json!({"type": "string", "default": "n", "description": "Shown above the count."}),
        "Annotated text is a description: {props}"
    );
    ensure!(
        env.app.toolsets().tool("texty:helper").await.is_err(),
        "TOOLS wins over __all__"
    );
    ensure!(
        env.app.toolsets().tool("texty:not_a_tool").await.is_err(),
        "only exported names"
    );

    let chat = env.chat().await?;
    let out = env.run(&chat, "texty:quiet", json!({"text": "HeLLo"})).await?;
    ensure!(
        succeeded(&out)?["out"] == "hello",
        "a TOOLS key may differ from the function's name"
    );
    ensure!(
        succeeded(&out)?["settings"] == json!({}),
        "a toolset without settings gives an empty dict"
    );
    let out = env
        .run(&chat, "texty:count", json!({"items": ["a", "b"], "strict": null}))
        .await?;
    ensure!(succeeded(&out)?["n"] == 2, "null is accepted for an Optional: {out:?}");
    let out = env.run(&chat, "texty:shout", json!({"text": "a", "times": 3})).await?;
    ensure!(succeeded(&out)?["out"] == "AAA");
    let bad = env.run(&chat, "texty:shout", json!({"txt": "a"})).await?;
    failed(&bad, "invalid_args")?;

    // Export writes tools_from back, not the tools it produced, and
    // importing the export gives the same toolset.
    let zip = env.tmp.path().join("texty.zip");
    env.app.toolsets().export("texty", &zip).await?;
    let exported = env.app.toolsets().manifest("texty").await?;
    ensure!(
        exported.tools_from == ["tools.text", "tools.lists"],
        "{:?}",
        exported.tools_from
    );
    ensure!(
        exported.tools.len() == 1,
        "only the declared tool: {:?}",
        exported.tools
    );
    let again = env
        .app
        .toolsets()
        .import(
            &zip,
            &ImportOptions {
                force: true,
                ..Default::default()
            },
        )
        .await?;
    ensure!(again.tools == report.tools, "{:?}", again.tools);
    Ok(())
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_tools_from_module_without_explicit_exports_or_with_clashes_fails_the_import() -> Result<()> {
    let env = Env::new().await?;
    let cases: [(&str, &str, &str); 3] = [
        (
            "def a(workspace):\n    return {}\n",
            "exports no tools: define TOOLS",
            "none",
        ),
        ("TOOLS = [len, 3]\n", "not callable", "bad"),
        (
            "def declared(workspace):\n    return {}\n__all__ = ['declared']\n",
            "which `tools:` also declares",
            "clash",
        ),
    ];
    for (source, expected, id) in cases {
        let dir = env.write_toolset(
            id,
            "1.0.0",
            &json!([tool("declared", "tools.plain:run", json!({}))]),
            &[
                ("tools/plain.py", "def run(workspace):\n    return {}\n"),
                ("tools/mod.py", source),
            ],
        )?;
        manifest_with(&dir, &["tools.mod"])?;
        let err = import_error(&env, &dir).await;
        ensure!(
            err.contains("tools_from[0]") && err.contains("tools.mod") && err.contains(expected),
            "{id}: {err}"
        );
        ensure!(env.app.toolsets().get(id).await.is_err(), "{id}: nothing installed");
    }
    Ok(())
}

/// Installs toolset `id` whose one module `tools/<module>.py` exports its tools.
async fn install_exported(env: &Env, id: &str, module: &str, code: &str) -> Result<()> {
    let path = format!("tools/{module}.py");
    let dir = env.write_toolset(id, "1.0.0", &json!([]), &[(path.as_str(), code)])?;
    manifest_with(&dir, &[&format!("tools.{module}")])?;
    env.app.toolsets().import(&dir, &ImportOptions::default()).await?;
    Ok(())
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn postponed_annotations_give_the_same_schemas() -> Result<()> {
    let env = Env::new().await?;
    install_exported(
        &env,
        "later",
        "later",
        "from __future__ import annotations\nfrom typing import Literal\n\n__all__ = [\"pick\"]\n\n\
             def pick(workspace, mode: Literal[\"fast\", \"slow\"], n: int = 1):\n    \"\"\"Picks.\"\"\"\n    \
             return {\"mode\": mode, \"n\": n}\n",
    )
    .await?;
    let pick = env.app.toolsets().tool("later:pick").await?;
    let props = &pick.input_schema["properties"];
    ensure!(props["n"]["type"] == "integer", "{props}");
    ensure!(props["mode"]["enum"] == json!(["fast", "slow"]), "{props}");
    let chat = env.chat().await?;
    let call = env
        .run(&chat, "later:pick", json!({"mode": "medium", "n": "x"}))
        .await?;
    failed(&call, "invalid_args")?;
    Ok(())
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn path_and_enum_parameters_arrive_as_a_path_and_a_member() -> Result<()> {
    let env = Env::new().await?;
    install_exported(
        &env,
        "typed",
        "typed",
        "import enum\nfrom pathlib import Path\nfrom typing import Optional\n\n__all__ = [\"save\"]\n\n\
             class Color(enum.Enum):\n    RED = \"red\"\n    BLUE = \"blue\"\n\n\
             def save(workspace, color: Color, out: Path = Path(\"report.txt\"), note: Optional[Path] = None):\n    \
             \"\"\"Saves.\"\"\"\n    \
             return {\"suffix\": out.suffix, \"color\": color.name, \"note\": note.stem if note else None}\n",
    )
    .await?;
    let save = env.app.toolsets().tool("typed:save").await?;
    let props = &save.input_schema["properties"];
    ensure!(props["color"]["enum"] == json!(["red", "blue"]), "{props}");
    let chat = env.chat().await?;
    let call = env
        .run(
            &chat,
            "typed:save",
            json!({"color": "blue", "out": "custom.md", "note": "n.txt"}),
        )
        .await?;
    ensure!(
        succeeded(&call)? == &json!({"suffix": ".md", "color": "BLUE", "note": "n"}),
        "{:?}",
        call.result
    );
    let call = env.run(&chat, "typed:save", json!({"color": "purple"})).await?;
    failed(&call, "invalid_args")?;
    Ok(())
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_path_or_an_enum_handed_back_is_written_as_its_text_and_value() -> Result<()> {
    let env = Env::new().await?;
    install_exported(
        &env,
        "back",
        "back",
        "import enum\nfrom pathlib import Path\n\n__all__ = [\"echo\"]\n\n\
             class Size(enum.Enum):\n    S = 1\n    L = 3\n\n\
             def echo(workspace, out: Path, size: Size):\n    \"\"\"Echoes.\"\"\"\n    \
             return {\"saved\": out, \"size\": size, \"in\": workspace / out}\n",
    )
    .await?;
    let chat = env.chat().await?;
    let call = env.run(&chat, "back:echo", json!({"out": "a.txt", "size": 3})).await?;
    let got = succeeded(&call)?;
    ensure!(got["saved"] == "a.txt" && got["size"] == 3, "{got}");
    ensure!(got["in"].as_str().is_some_and(|p| p.ends_with("/a.txt")), "{got}");
    Ok(())
}
