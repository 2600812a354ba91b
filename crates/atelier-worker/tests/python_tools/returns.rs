//! Calls whose return value JSON cannot hold, or could not keep as it was
//! (a type it has no word for, NaN, a lone surrogate, a value that holds
//! itself, an integer past 64 bits, keys that collide, deep nesting), and
//! an exception's odd or huge message: each said where it is, the worker
//! living on.

use anyhow::{Result, ensure};
use serde_json::json;

use crate::{Env, failed, succeeded, tool};

const RETURNS: &str = r#"import datetime


def a_list(workspace):
    return [1, 2]


def a_date(workspace):
    return {"a": {"b": [1, datetime.datetime.now()]}}


def a_nan(workspace):
    return {"x": [1.5, float("nan")]}
"#;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn returns_json_cannot_hold_are_refused_with_type_and_key_path() -> Result<()> {
    let env = Env::new().await?;
    let tools = json!([
        tool("a_list", "tools.ret:a_list", json!({})),
        tool("a_date", "tools.ret:a_date", json!({})),
        tool("a_nan", "tools.ret:a_nan", json!({})),
    ]);
    env.install("ret", tools, &[("tools/ret.py", RETURNS)]).await?;
    let chat = env.chat().await?;

    let call = env.run(&chat, "ret:a_list", json!({})).await?;
    let error = failed(&call, "bad_return")?;
    assert!(error.contains("not list"), "{error}");
    assert!(call.result.is_none());

    let error = failed(&env.run(&chat, "ret:a_date", json!({})).await?, "bad_return")?.to_owned();
    assert!(
        error.contains("datetime.datetime") && error.contains("$return.a.b.1"),
        "{error}"
    );

    let call = env.run(&chat, "ret:a_nan", json!({})).await?;
    let error = failed(&call, "bad_return")?;
    assert!(error.contains("nan") && error.contains("$return.x.1"), "{error}");
    Ok(())
}

const ODD_JSON: &str = r#"
def huge(workspace):
    return {"n": 10**400}


def surrogate(workspace):
    return {"text": "\ud800"}
"#;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn python_values_json_cannot_carry_are_bad_returns_not_crashes() -> Result<()> {
    let env = Env::new().await?;
    let tools = json!([
        tool("huge", "tools.odd:huge", json!({})),
        tool("surrogate", "tools.odd:surrogate", json!({}))
    ]);
    env.install("odd", tools, &[("tools/odd.py", ODD_JSON)]).await?;
    let chat = env.chat().await?;
    let error = failed(&env.run(&chat, "odd:huge", json!({})).await?, "bad_return")?.to_owned();
    ensure!(error.contains("past 64 bits") && error.contains("$return.n"), "{error}");
    // A lone surrogate (a file name that is not UTF-8) is named where it is.
    let error = failed(&env.run(&chat, "odd:surrogate", json!({})).await?, "bad_return")?.to_owned();
    ensure!(
        error.contains("lone surrogate") && error.contains("$return.text"),
        "{error}"
    );
    // The worker lives on: the next call is answered.
    let again = env.run(&chat, "odd:huge", json!({})).await?;
    failed(&again, "bad_return")?;
    Ok(())
}

const ODD: &str = r#"
def circular(workspace):
    d = {"name": "loop"}
    d["self"] = d
    return d

def shared(workspace):
    row = {"n": 1}
    return {"a": row, "b": [row, row]}

def kept_badly(workspace, what):
    if what == "big":
        return {"id": 2**64 + 1}
    if what == "keys":
        return {"by": {1: "int one", "1": "text one"}}
    deep = top = {}
    for _ in range(130):
        deep["a"] = {}
        deep = deep["a"]
    return top

def loud(workspace):
    raise ValueError("bad \udc80 " + "z" * (1 << 20))
"#;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_circular_return_and_a_huge_odd_message_are_said_at_once() -> Result<()> {
    let env = Env::new().await?;
    let tools = json!([
        tool("circular", "tools.odd:circular", json!({})),
        tool("shared", "tools.odd:shared", json!({})),
        tool("loud", "tools.odd:loud", json!({})),
        tool(
            "kept_badly",
            "tools.odd:kept_badly",
            json!({"what": {"type": "string"}})
        ),
    ]);
    env.install("odd", tools, &[("tools/odd.py", ODD)]).await?;
    let chat = env.chat().await?;
    // A bad return, not a timeout: the walk ends.
    let error = failed(&env.run(&chat, "odd:circular", json!({})).await?, "bad_return")?.to_owned();
    assert!(error.contains("circular") && error.contains("$return.self"), "{error}");
    // One value shared twice is no cycle.
    let call = env.run(&chat, "odd:shared", json!({})).await?;
    assert_eq!(succeeded(&call)?["b"][1]["n"], 1);
    // JSON takes these, but they would not come back as they were.
    for (what, says, at) in [
        ("big", "past 64 bits", "$return.id"),
        ("keys", "two keys written '1'", "$return.by"),
        // 100 levels deep: the path by its ends, not 100 steps.
        ("deep", "deeper than 100 levels", "at $return.a.a.a.…(93 more)….a.a.a.a"),
    ] {
        let call = env.run(&chat, "odd:kept_badly", json!({"what": what})).await?;
        let error = failed(&call, "bad_return")?;
        assert!(error.contains(says) && error.ends_with(at), "{what}: {error}");
    }
    // The exception is the tool's, its message kept (capped) with the odd character escaped.
    let call = env.run(&chat, "odd:loud", json!({})).await?;
    let error = failed(&call, "exception")?;
    assert!(
        error.starts_with("ValueError: bad \\udc80 zzz"),
        "{}",
        &error[..80.min(error.len())]
    );
    // Message and traceback, each capped at 64 KiB (it was 1 MiB, twice).
    assert!(
        error.len() < 200_000 && error.contains("[cut: "),
        "{} bytes",
        error.len()
    );
    Ok(())
}

const NAMED: &str = r#"
import datetime


def two_bad(workspace):
    # The NaN is met first in the JSON; the date comes after it.
    return {"first": {"x": float("nan")}, "second": datetime.date(2024, 1, 1)}


def bad_key(workspace):
    return {"files": {"ok.txt": 1, "caf\udce9.txt": 2}}


def big(workspace):
    return {"text": "x" * 20_000}
"#;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_bad_return_is_named_where_the_json_first_meets_it_and_sizes_in_words() -> Result<()> {
    let env = Env::with(|s| s.return_cap = 16 << 10).await?;
    let tools = json!([
        tool("two_bad", "tools.named:two_bad", json!({})),
        tool("bad_key", "tools.named:bad_key", json!({})),
        tool("big", "tools.named:big", json!({})),
    ]);
    env.install("named", tools, &[("tools/named.py", NAMED)]).await?;
    let chat = env.chat().await?;
    // The first bad value in document order, not the last one pushed.
    let error = failed(&env.run(&chat, "named:two_bad", json!({})).await?, "bad_return")?.to_owned();
    ensure!(error.contains("nan at $return.first.x"), "{error}");
    // A key a JSON reader would refuse (a file name that is not UTF-8) is
    // named with its dict, not "unexpected end of hex escape".
    let error = failed(&env.run(&chat, "named:bad_key", json!({})).await?, "bad_return")?.to_owned();
    ensure!(
        error.contains("key 'caf\\udce9.txt' with a lone surrogate") && error.ends_with("at $return.files"),
        "{error}"
    );
    // Over the cap: sizes a person reads.
    let error = failed(&env.run(&chat, "named:big", json!({})).await?, "too_large")?.to_owned();
    ensure!(
        error.starts_with("the return value is 19.6 KiB of JSON, over the 16 KiB cap; it starts {\"text\": \"xxx"),
        "{error}"
    );
    Ok(())
}
