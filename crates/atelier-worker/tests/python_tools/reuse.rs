//! Seed 002: existing functions reused unchanged — a `tools_from:` module
//! exporting plain functions (no `workspace`, sync or async, returning any
//! JSON value), exported through imports; types that say more (a
//! dataclass, `dict[str, int]`, `tuple[int, int]`, reST docstrings); and an
//! entry point without an `input_schema`, whose arguments come from its
//! signature.

use anyhow::{Result, ensure};
use atelier_core::toolsets::ImportOptions;
use serde_json::json;

use crate::{Env, failed, same_schemas_as_validate, succeeded, tool};

const IMPL_PY: &str = r#"
from __future__ import annotations

import asyncio
from dataclasses import dataclass
from pathlib import Path


@dataclass
class Point:
    x: int
    y: int = 0


def add(a: int, b: int) -> int:
    """Adds two numbers.

    :param a: The first.
    :param b: The second.
    :returns: their sum
    """
    return a + b


def shout(text: str) -> str:
    """Upper-cases text."""
    return text.upper()


async def later(items: tuple[int, int], weights: dict[str, int] | None = None) -> list:
    """Waits, then lists."""
    await asyncio.sleep(0)
    return [*items, sorted((weights or {}).items())]


def where(workspace: Path, name: str) -> str:
    """Where a file would go."""
    return str(workspace / name)


def moved(p: Point, by: int = 1) -> Point:
    """Moves a point."""
    return Point(p.x + by, p.y + by)


def nothing() -> None:
    """Returns nothing."""
"#;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn plain_functions_exported_through_an_import_are_tools_returning_any_json() -> Result<()> {
    let env = Env::new().await?;
    let dir = env.write_toolset(
        "reuse",
        "1.0.0",
        &json!([]),
        &[
            ("tools/impl.py", IMPL_PY),
            (
                "tools/api.py",
                "from tools.impl import add, shout\nfrom . import impl\n\n\
                 TOOLS = [add, shout, impl.later, impl.where, impl.moved, impl.nothing]\n",
            ),
        ],
    )?;
    let yaml = std::fs::read_to_string(dir.join("toolset.yaml"))?;
    std::fs::write(dir.join("toolset.yaml"), format!("{yaml}tools_from: [tools.api]\n"))?;

    // Read from the source before anything runs: the imported functions'
    // schemas, as the import derives them.
    let report = env.app.toolsets().check_bundle(&dir, &Default::default()).await?;
    ensure!(report.valid && report.problems.is_empty(), "{:?}", report.problems);
    let names: Vec<&str> = report.exported.iter().map(|t| t.name.as_str()).collect();
    ensure!(
        names == ["add", "shout", "later", "where", "moved", "nothing"],
        "{names:?}"
    );
    env.app.toolsets().import(&dir, &ImportOptions::default()).await?;
    same_schemas_as_validate(&env, "reuse", &report).await?;

    let add = env.app.toolsets().tool("reuse:add").await?;
    ensure!(add.description == "Adds two numbers.", "{}", add.description);
    ensure!(
        add.input_schema["properties"]["a"] == json!({"type": "integer", "description": "The first."}),
        "reST :param texts describe: {}",
        add.input_schema
    );
    let later = env.app.toolsets().tool("reuse:later").await?;
    ensure!(
        later.input_schema["properties"]["items"]
            == json!({"type": "array", "items": {"type": "integer"},
                "prefixItems": [{"type": "integer"}, {"type": "integer"}], "minItems": 2, "maxItems": 2}),
        "{}",
        later.input_schema
    );
    ensure!(
        later.input_schema["properties"]["weights"]
            == json!({"type": ["object", "null"], "additionalProperties": {"type": "integer"}, "default": null}),
        "{}",
        later.input_schema
    );
    let moved = env.app.toolsets().tool("reuse:moved").await?;
    ensure!(
        moved.input_schema["properties"]["p"]
            == json!({"type": "object", "properties": {"x": {"type": "integer"},
                "y": {"type": "integer", "default": 0}}, "required": ["x"], "additionalProperties": false}),
        "{}",
        moved.input_schema
    );
    let where_ = env.app.toolsets().tool("reuse:where").await?;
    ensure!(
        where_.input_schema["properties"].get("workspace").is_none(),
        "{}",
        where_.input_schema
    );

    let chat = env.chat().await?;
    let out = env.run(&chat, "reuse:add", json!({"a": 2, "b": 3})).await?;
    ensure!(succeeded(&out)? == &json!(5), "{out:?}");
    let out = env.run(&chat, "reuse:shout", json!({"text": "hi"})).await?;
    ensure!(succeeded(&out)? == &json!("HI"), "{out:?}");
    let out = env
        .run(
            &chat,
            "reuse:later",
            json!({"items": [1, 2], "weights": {"b": 2, "a": 1}}),
        )
        .await?;
    ensure!(succeeded(&out)? == &json!([1, 2, [["a", 1], ["b", 2]]]), "{out:?}");
    let out = env.run(&chat, "reuse:where", json!({"name": "a.txt"})).await?;
    let path = succeeded(&out)?.as_str().unwrap_or_default().to_owned();
    ensure!(path.ends_with("/a.txt") && path.contains(&chat), "{path}");
    // A dataclass in, built from the object; a dataclass out, as its fields.
    let out = env.run(&chat, "reuse:moved", json!({"p": {"x": 1}, "by": 2})).await?;
    ensure!(succeeded(&out)? == &json!({"x": 3, "y": 2}), "{out:?}");
    let out = env.run(&chat, "reuse:nothing", json!({})).await?;
    ensure!(succeeded(&out)? == &json!(null), "{out:?}");
    let out = env.run(&chat, "reuse:later", json!({"items": [1, 2, 3]})).await?;
    failed(&out, "invalid_args")?;
    Ok(())
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_export_that_is_no_function_is_refused_by_name_before_and_at_import() -> Result<()> {
    let env = Env::new().await?;
    let dir = env.write_toolset(
        "odd",
        "1.0.0",
        &json!([]),
        &[(
            "tools/odd.py",
            "import json\n\nclass Helper:\n    pass\n\ndef ok(text: str) -> str:\n    return text\n\n\
             TOOLS = {\"ok\": ok, \"n\": 3, \"nothing\": None, \"Helper\": Helper, \"json\": json}\n",
        )],
    )?;
    let yaml = std::fs::read_to_string(dir.join("toolset.yaml"))?;
    std::fs::write(dir.join("toolset.yaml"), format!("{yaml}tools_from: [tools.odd]\n"))?;
    let expected = "tools.odd.TOOLS names what cannot be a tool: n (not callable: an int), nothing (not callable: \
                    None), Helper (a class), json (a module)";
    let report = env.app.toolsets().check_bundle(&dir, &Default::default()).await?;
    ensure!(!report.valid, "{:?}", report.problems);
    ensure!(
        report.problems.iter().any(|p| p.message.starts_with(expected)),
        "{:?}",
        report.problems
    );
    // A module imported from outside the bundle is not the bundle's: it
    // is refused at import as the source reading says.
    let err = env
        .app
        .toolsets()
        .import(&dir, &ImportOptions::default())
        .await
        .err()
        .map(|e| e.to_string())
        .unwrap_or_default();
    ensure!(err.contains(expected), "{err}");
    Ok(())
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_entry_point_without_an_input_schema_takes_its_arguments_from_its_signature() -> Result<()> {
    let env = Env::new().await?;
    let mut noschema = tool("typed", "tools.an:typed", json!({}));
    noschema.as_object_mut().map(|t| t.remove("input_schema"));
    let tools = json!([
        noschema,
        tool("given", "tools.an:typed", json!({"name": {"type": "string"}}))
    ]);
    let dir = env.write_toolset(
        "ep",
        "1.0.0",
        &tools,
        &[(
            "tools/an.py",
            "def typed(workspace, name: str, count: int = 1) -> dict:\n    \
             \"\"\"Typed.\n\n    Args:\n        name: A name.\n    \"\"\"\n    \
             return {\"name\": name, \"count\": count}\n",
        )],
    )?;
    let report = env.app.toolsets().check_bundle(&dir, &Default::default()).await?;
    // Not the misleading "input_schema does not require it": the schema
    // comes from the signature, and validate lists it.
    ensure!(
        report.problems.iter().all(|p| p.path != "tools[0].input_schema"),
        "{:?}",
        report.problems
    );
    ensure!(
        report.derived.len() == 1 && report.derived[0].name == "typed",
        "{:?}",
        report.derived
    );
    let derived = json!({"type": "object", "properties": {"name": {"type": "string", "description": "A name."},
        "count": {"type": "integer", "default": 1}}, "required": ["name"], "additionalProperties": false});
    ensure!(
        report.derived[0].input_schema == derived,
        "{}",
        report.derived[0].input_schema
    );

    // A ZIP's import (no import check of every entry point) derives it too.
    let zip = env.tmp.path().join("ep.zip");
    let packed = env.app.toolsets().pack(&dir, &zip, &Default::default(), true).await?;
    ensure!(
        packed.warnings.iter().any(|w| w.path == "tools[1].input_schema"),
        "an explicit input_schema is still checked against the signature: {:?}",
        packed.warnings
    );
    env.app.toolsets().import(&zip, &ImportOptions::default()).await?;
    let typed = env.app.toolsets().tool("ep:typed").await?;
    ensure!(typed.input_schema == derived, "{}", typed.input_schema);
    ensure!(typed.description == "Typed.", "{}", typed.description);
    let given = env.app.toolsets().tool("ep:given").await?;
    ensure!(
        given.input_schema["properties"].get("count").is_none(),
        "{}",
        given.input_schema
    );

    let chat = env.chat().await?;
    let out = env.run(&chat, "ep:typed", json!({"name": "x"})).await?;
    ensure!(succeeded(&out)? == &json!({"name": "x", "count": 1}), "{out:?}");
    failed(&env.run(&chat, "ep:typed", json!({})).await?, "invalid_args")?;
    Ok(())
}
