//! The synthetic workspaces: the three scales, their file layout, the
//! deterministic content of every file version, and the untimed file-system
//! chores around them (writing a tree, copying it, settling dirty data).
//!
//! Content comes from a per-file seeded xorshift so the same file version is
//! byte-identical in our workspace and in git's work tree, and so no file
//! deduplicates against another (which would flatter either side).

use std::fs;
use std::path::Path;
use std::process::Command;

use anyhow::{Context, Result, bail};

/// One benchmark scale.
#[derive(Debug)]
pub(crate) struct Spec {
    pub(crate) name: &'static str,
    pub(crate) files: usize,
    pub(crate) file_size: usize,
    /// Folders the files are spread over (1 = all at the top level).
    pub(crate) dirs: usize,
}

pub(crate) const SCALES: [Spec; 3] = [
    Spec {
        name: "a",
        files: 1_000,
        file_size: 10 << 10,
        dirs: 1,
    },
    Spec {
        name: "b",
        files: 10_000,
        file_size: 4 << 10,
        dirs: 200,
    },
    Spec {
        name: "c",
        files: 20,
        file_size: 20 << 20,
        dirs: 1,
    },
];

/// The generation of the content every file starts with.
pub(crate) const INITIAL: u64 = 0;

impl Spec {
    /// Workspace-relative path of file `i`.
    pub(crate) fn rel_path(&self, i: usize) -> String {
        if self.dirs <= 1 {
            format!("f{i:05}.bin")
        } else {
            format!("d{:03}/f{i:05}.bin", i % self.dirs)
        }
    }

    pub(crate) fn total_bytes(&self) -> u64 {
        (self.files * self.file_size) as u64
    }

    /// The content of file `i` at `generation` (each generation differs).
    pub(crate) fn content(&self, i: usize, generation: u64) -> Vec<u8> {
        let mut buf = vec![0u8; self.file_size];
        fill(seed(i as u64, generation), &mut buf);
        buf
    }

    /// Writes the whole tree, generation [`INITIAL`], under `root`.
    pub(crate) fn write_tree(&self, root: &Path) -> Result<()> {
        fs::create_dir_all(root).with_context(|| format!("create {}", root.display()))?;
        for d in 0..self.dirs.max(1) {
            if self.dirs > 1 {
                let dir = root.join(format!("d{d:03}"));
                fs::create_dir_all(&dir).with_context(|| format!("create {}", dir.display()))?;
            }
        }
        for i in 0..self.files {
            self.rewrite(root, i, INITIAL)?;
        }
        Ok(())
    }

    /// Overwrites file `i` under `root` with its content at `generation`.
    pub(crate) fn rewrite(&self, root: &Path, i: usize, generation: u64) -> Result<()> {
        let path = root.join(self.rel_path(i));
        fs::write(&path, self.content(i, generation)).with_context(|| format!("write {}", path.display()))
    }

    /// The files the "1% changed" states differ in: every 100th.
    pub(crate) fn one_percent(&self) -> impl Iterator<Item = usize> {
        (0..self.files).step_by(100)
    }
}

fn seed(file: u64, generation: u64) -> u64 {
    // splitmix64 of (file, generation): neighbouring seeds give unrelated
    // streams, and a zero state (which xorshift never leaves) cannot occur.
    let mut z =
        file.wrapping_mul(0x9E37_79B9_7F4A_7C15) ^ generation.wrapping_add(0xD1B5_4A32_D192_ED03).rotate_left(29);
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    (z ^ (z >> 31)) | 1
}

/// Fills `buf` with xorshift64* output (fast, incompressible, deterministic).
pub(crate) fn fill(mut state: u64, buf: &mut [u8]) {
    let mut next = || {
        state ^= state >> 12;
        state ^= state << 25;
        state ^= state >> 27;
        state.wrapping_mul(0x2545_F491_4F6C_DD1D)
    };
    let mut chunks = buf.chunks_exact_mut(8);
    for c in &mut chunks {
        c.copy_from_slice(&next().to_le_bytes());
    }
    let tail = chunks.into_remainder();
    let last = next().to_le_bytes();
    tail.copy_from_slice(&last[..tail.len()]);
}

/// `cp -r src dst` (dst must not exist). Also the row-5 reference, so it is
/// exactly the command a person would run.
pub(crate) fn cp_r(src: &Path, dst: &Path) -> Result<()> {
    let out = Command::new("cp")
        .arg("-r")
        .arg(src)
        .arg(dst)
        .output()
        .context("run cp")?;
    if !out.status.success() {
        bail!(
            "cp -r {} {} failed: {}",
            src.display(),
            dst.display(),
            String::from_utf8_lossy(&out.stderr).trim()
        );
    }
    Ok(())
}

/// Removes `path` if it exists.
pub(crate) fn remove_all(path: &Path) -> Result<()> {
    match fs::remove_dir_all(path) {
        Ok(()) => Ok(()),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(()),
        Err(e) => Err(e).with_context(|| format!("remove {}", path.display())),
    }
}

/// Flushes the file system's dirty data (untimed, before every timed call).
/// Our snapshot ends with `syncfs`, which would otherwise also pay for
/// writing back the benchmark's own setup (hundreds of MiB of prepared
/// copies), and git would pay for whatever writeback happens to run.
pub(crate) fn settle(dir: &Path) -> Result<()> {
    let d = fs::File::open(dir).with_context(|| format!("open {}", dir.display()))?;
    rustix::fs::syncfs(&d).with_context(|| format!("syncfs {}", dir.display()))
}

/// Counts regular files under `root` (a cheap check that a materialize or
/// copy produced the whole tree).
pub(crate) fn count_files(root: &Path) -> Result<usize> {
    let mut n = 0;
    for entry in fs::read_dir(root).with_context(|| format!("read {}", root.display()))? {
        let entry = entry?;
        let ft = entry.file_type()?;
        if ft.is_dir() {
            n += count_files(&entry.path())?;
        } else if ft.is_file() {
            n += 1;
        }
    }
    Ok(n)
}

/// Microseconds per empty-file creation in a new folder `dir` (left in
/// place: deleting would slow down what follows, see `bench::eager_cleanup`).
/// A health check of the file system, printed with the results.
pub(crate) fn create_probe(dir: &Path) -> Result<f64> {
    const N: usize = 500;
    fs::create_dir(dir).with_context(|| format!("create {}", dir.display()))?;
    let t = std::time::Instant::now();
    for i in 0..N {
        let p = dir.join(format!("p{i}"));
        fs::File::create(&p).with_context(|| format!("create {}", p.display()))?;
    }
    Ok(t.elapsed().as_secs_f64() * 1e6 / N as f64)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn content_is_deterministic_and_distinct() {
        let s = &SCALES[0];
        assert_eq!(s.content(3, 0), s.content(3, 0));
        assert_ne!(s.content(3, 0), s.content(4, 0));
        assert_ne!(s.content(3, 0), s.content(3, 1));
        assert_eq!(s.content(3, 0).len(), s.file_size);
        let mut odd = [0u8; 13];
        fill(7, &mut odd);
        assert!(odd.iter().any(|&b| b != 0));
    }

    #[test]
    fn layout() {
        assert_eq!(SCALES[0].rel_path(7), "f00007.bin");
        assert_eq!(SCALES[1].rel_path(201), "d001/f00201.bin");
        assert_eq!(SCALES[1].one_percent().count(), 100);
        assert_eq!(SCALES[2].one_percent().count(), 1);
    }
}
