//! Types that say more than JSON: every array schema says its `items`,
//! records in a Union, a NamedTuple, literals JSON has no value for, a
//! constructor refusing what it was given, and callables without a name.

use anyhow::{Result, ensure};
use atelier_core::toolsets::ImportOptions;
use serde_json::json;

use crate::{Env, failed, import_error, same_schemas_as_validate, succeeded};

const SHAPES_PY: &str = r#"
import enum
from collections.abc import Sequence
from typing import Any, Literal, NamedTuple


class Color(enum.Enum):
    RED = "red"
    BLUE = "blue"


class Point(NamedTuple):
    x: int
    y: int = 0


def shapes(pair: tuple[int, str], bare: list, tags: set, anything: list[Any], seq: Sequence, fixed: tuple) -> list:
    """Arrays of every kind."""
    return [list(pair), bare, sorted(tags), anything, list(seq), list(fixed)]


def mode(m: Literal[b"r", b"w"] = b"r", c: Literal[Color.RED, "blue"] = "blue") -> list:
    """Literals JSON has no value for."""
    return [m.decode(), c.value if isinstance(c, Color) else c]


def norm(p: Point) -> int:
    """A NamedTuple."""
    return p.x * 10 + p.y


TOOLS = [shapes, mode, norm]
"#;

/// Writes toolset folder `id` whose `tools/api.py` is `code` (exported by `tools_from:`).
async fn write(env: &Env, id: &str, code: &str) -> Result<std::path::PathBuf> {
    let dir = env.write_toolset(id, "1.0.0", &json!([]), &[("tools/api.py", code)])?;
    let yaml = std::fs::read_to_string(dir.join("toolset.yaml"))?;
    std::fs::write(dir.join("toolset.yaml"), format!("{yaml}tools_from: [tools.api]\n"))?;
    Ok(dir)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_array_schema_says_its_items_and_validate_derives_what_the_import_does() -> Result<()> {
    let env = Env::new().await?;
    let dir = write(&env, "shapes", SHAPES_PY).await?;
    let report = env.app.toolsets().check_bundle(&dir, &Default::default()).await?;
    ensure!(report.valid && report.problems.is_empty(), "{:?}", report.problems);
    // Literal[b"r"] failed the import: bytes are no JSON.
    env.app.toolsets().import(&dir, &ImportOptions::default()).await?;
    same_schemas_as_validate(&env, "shapes", &report).await?;
    // OpenAI refuses an array schema without `items` (a 400 on every turn).
    let shapes = env.app.toolsets().tool("shapes:shapes").await?;
    let props = &shapes.input_schema["properties"];
    ensure!(
        props["pair"]
            == json!({"type": "array", "items": {"anyOf": [{"type": "integer"}, {"type": "string"}]},
                "prefixItems": [{"type": "integer"}, {"type": "string"}], "minItems": 2, "maxItems": 2}),
        "{props}"
    );
    for bare in ["bare", "anything", "seq", "fixed"] {
        ensure!(props[bare] == json!({"type": "array", "items": {}}), "{bare}: {props}");
    }
    ensure!(
        props["tags"] == json!({"type": "array", "items": {}, "uniqueItems": true}),
        "{props}"
    );
    let mode = env.app.toolsets().tool("shapes:mode").await?;
    let props = &mode.input_schema["properties"];
    ensure!(props["m"] == json!({}), "no JSON value is left: {props}");
    ensure!(
        props["c"] == json!({"enum": ["red", "blue"], "default": "blue"}),
        "an Enum member is its value: {props}"
    );
    let norm = env.app.toolsets().tool("shapes:norm").await?;
    ensure!(
        norm.input_schema["properties"]["p"]
            == json!({"type": "object", "properties": {"x": {"type": "integer"},
                "y": {"type": "integer", "default": 0}}, "required": ["x"], "additionalProperties": false}),
        "{}",
        norm.input_schema
    );

    let chat = env.chat().await?;
    let call = env
        .run(
            &chat,
            "shapes:shapes",
            json!({"pair": [1, "a"], "bare": [1], "tags": [2, 1], "anything": [null], "seq": [3], "fixed": [4]}),
        )
        .await?;
    ensure!(
        succeeded(&call)? == &json!([[1, "a"], [1], [1, 2], [null], [3], [4]]),
        "{:?}",
        call.result
    );
    let call = env.run(&chat, "shapes:mode", json!({"m": "w", "c": "red"})).await?;
    ensure!(succeeded(&call)? == &json!(["w", "red"]), "{:?}", call.result);
    let call = env.run(&chat, "shapes:norm", json!({"p": {"x": 1, "y": 2}})).await?;
    ensure!(succeeded(&call)? == &json!(12), "{:?}", call.result);
    Ok(())
}

const RECORDS_PY: &str = r#"
from dataclasses import dataclass
from typing import NamedTuple, Optional, Union


@dataclass
class A:
    a: int


@dataclass
class B:
    b: str


@dataclass
class Range:
    lo: int
    hi: int

    def __post_init__(self):
        if self.lo > self.hi:
            raise ValueError("lo must be <= hi")


class Point(NamedTuple):
    x: int
    y: int = 0


def which(m: Union[A, B], c: Optional[Union[Range, int]] = None) -> list:
    """Records in a Union."""
    return [type(m).__name__, type(c).__name__]


def span(r: Range) -> int:
    """A dataclass that checks itself."""
    return r.hi - r.lo


def norm(p: Point) -> int:
    """A NamedTuple."""
    return p.x * 10 + p.y


TOOLS = [which, span, norm]
"#;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn records_in_unions_and_named_tuples_arrive_built_and_a_refusing_constructor_is_invalid_args() -> Result<()> {
    let env = Env::new().await?;
    let dir = write(&env, "records", RECORDS_PY).await?;
    env.app.toolsets().import(&dir, &ImportOptions::default()).await?;
    let chat = env.chat().await?;
    for (args, expected) in [
        (json!({"m": {"b": "x"}}), json!(["B", "NoneType"])),
        (json!({"m": {"a": 1}, "c": {"lo": 1, "hi": 2}}), json!(["A", "Range"])),
        (json!({"m": {"a": 1}, "c": 3}), json!(["A", "int"])),
    ] {
        let call = env.run(&chat, "records:which", args.clone()).await?;
        ensure!(succeeded(&call)? == &expected, "{args}: {:?}", call.result);
    }
    // A __post_init__'s ValueError: the argument's fault, named.
    let call = env.run(&chat, "records:span", json!({"r": {"lo": 3, "hi": 1}})).await?;
    let said = failed(&call, "invalid_args")?;
    ensure!(
        said.contains("r is not a valid Range") && said.contains("lo must be <= hi"),
        "{said}"
    );
    let call = env
        .run(&chat, "records:which", json!({"m": {"a": 1}, "c": {"lo": 3, "hi": 1}}))
        .await?;
    let said = failed(&call, "invalid_args")?;
    ensure!(said.contains("c is not a valid Range"), "{said}");
    // A NamedTuple from an object of its fields (its schema).
    let call = env.run(&chat, "records:norm", json!({"p": {"x": 4}})).await?;
    ensure!(succeeded(&call)? == &json!(40), "{:?}", call.result);
    Ok(())
}

const UNNAMED_PY: &str = r#"
import functools


def scale(x: float, factor: float = 2.0) -> float:
    """Scales x."""
    return x * factor


class Greeter:
    """Greets."""

    def __call__(self, name: str) -> str:
        return "hi " + name


"#;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_callable_without_a_name_is_named_by_its_entry_and_works_in_a_tools_dict() -> Result<()> {
    let env = Env::new().await?;
    for (id, table, entry, hint) in [
        (
            "part",
            "[scale, functools.partial(scale, factor=3.0)]",
            "TOOLS[1]",
            r#"({"scale": partial(scale, ...)})"#,
        ),
        ("inst", "[Greeter(), scale]", "TOOLS[0]", r#"({"greeter": Greeter()})"#),
    ] {
        let dir = write(&env, id, &format!("{UNNAMED_PY}TOOLS = {table}\n")).await?;
        let err = import_error(&env, &dir).await;
        ensure!(
            err.contains(entry) && err.contains("has no name") && err.contains(hint) && !err.contains(" at 0x"),
            "{id}: {err}"
        );
    }
    let dir = write(
        &env,
        "named",
        &format!("{UNNAMED_PY}TOOLS = {{\"triple\": functools.partial(scale, factor=3.0), \"greet\": Greeter()}}\n"),
    )
    .await?;
    env.app.toolsets().import(&dir, &ImportOptions::default()).await?;
    let triple = env.app.toolsets().tool("named:triple").await?;
    ensure!(triple.description == "Scales x.", "{}", triple.description);
    ensure!(
        triple.input_schema["properties"]["factor"] == json!({"type": "number", "default": 3.0}),
        "{}",
        triple.input_schema
    );
    let greet = env.app.toolsets().tool("named:greet").await?;
    ensure!(greet.description == "Greets.", "{}", greet.description);
    let chat = env.chat().await?;
    let call = env.run(&chat, "named:triple", json!({"x": 2})).await?;
    ensure!(succeeded(&call)? == &json!(6.0), "{:?}", call.result);
    let call = env.run(&chat, "named:greet", json!({"name": "bo"})).await?;
    ensure!(succeeded(&call)? == &json!("hi bo"), "{:?}", call.result);
    Ok(())
}
