//! The bytes of a `toolset.yaml` as text: UTF-8 with or without the byte
//! order mark Windows editors write (Notepad, PowerShell 5's
//! `Out-File -Encoding utf8`), or UTF-16 with its mark (PowerShell 5's
//! `>`), as YAML 1.2 §5.2 allows. Anything else is refused with what to do,
//! naming the bundle the person gave, never the staging folder it was
//! unpacked into.

use std::path::Path;

use super::MANIFEST_FILE;
use super::limits::MAX_MANIFEST_BYTES;
use crate::toolsets::bundle::human_bytes;
use crate::{Error, Result};

/// The text of a manifest's bytes, or why they are not text.
pub fn decode(bytes: &[u8]) -> std::result::Result<String, String> {
    if let Some(rest) = bytes.strip_prefix(b"\xEF\xBB\xBF") {
        return utf8(rest);
    }
    if let Some(rest) = bytes.strip_prefix(b"\xFF\xFE") {
        return utf16(rest, u16::from_le_bytes);
    }
    if let Some(rest) = bytes.strip_prefix(b"\xFE\xFF") {
        return utf16(rest, u16::from_be_bytes);
    }
    utf8(bytes)
}

fn utf8(bytes: &[u8]) -> std::result::Result<String, String> {
    String::from_utf8(bytes.to_vec()).map_err(|e| {
        let at = e.utf8_error().valid_up_to();
        let line = bytes[..at].iter().filter(|&&b| b == b'\n').count() + 1;
        format!(
            "{MANIFEST_FILE} is not UTF-8 text (the first byte that is not is on line {line}, at byte {at}): save it as UTF-8"
        )
    })
}

fn utf16(bytes: &[u8], unit: fn([u8; 2]) -> u16) -> std::result::Result<String, String> {
    let refused = || format!("{MANIFEST_FILE} starts like UTF-16 text but is not: save it as UTF-8");
    if !bytes.len().is_multiple_of(2) {
        return Err(refused());
    }
    let units: Vec<u16> = bytes.chunks_exact(2).map(|c| unit([c[0], c[1]])).collect();
    String::from_utf16(&units).map_err(|_| refused())
}

/// A manifest's text read as `T` the way [`super::check`] reads it, YAML
/// merge keys (`<<: *common`) applied: every reader of an author's
/// manifest (the import, a local server's start, the installed copy's
/// rewrite) sees the same fields.
pub fn parse<T: serde::de::DeserializeOwned>(text: &str) -> std::result::Result<T, serde_norway::Error> {
    let mut y: serde_norway::Value = serde_norway::from_str(text)?;
    y.apply_merge()?;
    serde_norway::from_value(y)
}

/// The manifest at `path`, decoded and parsed; `None` when it cannot be.
pub async fn read_parsed<T: serde::de::DeserializeOwned>(path: &Path) -> Option<T> {
    let bytes = tokio::fs::read(path).await.ok()?;
    parse(&decode(&bytes).ok()?).ok()
}

/// Reads the `toolset.yaml` at `path` of `bundle` (the ZIP or folder the
/// person named, for the error). Blocking.
pub fn read(path: &Path, bundle: &Path) -> Result<String> {
    let refuse = |message: String| Error::Bundle {
        bundle: bundle.display().to_string(),
        entry: Some(MANIFEST_FILE.to_owned()),
        message,
    };
    let size = std::fs::metadata(path).map_err(Error::io("read", path))?.len();
    // UTF-16 takes twice the bytes; past that no manifest is read whole.
    if size > 2 * MAX_MANIFEST_BYTES as u64 {
        return Err(refuse(format!(
            "{MANIFEST_FILE} is {}; it may be at most {}",
            human_bytes(size),
            human_bytes(MAX_MANIFEST_BYTES as u64)
        )));
    }
    let bytes = std::fs::read(path).map_err(Error::io("read", path))?;
    decode(&bytes).map_err(refuse)
}

#[cfg(test)]
mod tests {
    use super::decode;

    #[test]
    fn windows_editors_manifests_read_as_the_same_text() {
        let text = "id: greeter\r\nname: Grüße\r\n";
        assert_eq!(decode(text.as_bytes()).as_deref(), Ok(text));
        let bom = [b"\xEF\xBB\xBF".as_slice(), text.as_bytes()].concat();
        assert_eq!(
            decode(&bom).as_deref(),
            Ok(text),
            "the UTF-8 mark is not part of the text"
        );
        let le: Vec<u8> = [0xFF, 0xFE]
            .into_iter()
            .chain(text.encode_utf16().flat_map(u16::to_le_bytes))
            .collect();
        assert_eq!(decode(&le).as_deref(), Ok(text));
        let be: Vec<u8> = [0xFE, 0xFF]
            .into_iter()
            .chain(text.encode_utf16().flat_map(u16::to_be_bytes))
            .collect();
        assert_eq!(decode(&be).as_deref(), Ok(text));
    }

    #[test]
    fn other_encodings_are_refused_with_where_and_what_to_do() {
        let cp1252 = b"id: x\nname: Gr\xFC\xDFe\n";
        let err = decode(cp1252).expect_err("not UTF-8");
        assert!(err.contains("line 2") && err.contains("save it as UTF-8"), "{err}");
        assert!(decode(b"\xFF\xFEa").expect_err("odd UTF-16").contains("UTF-16"));
    }
}
