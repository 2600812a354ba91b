use super::*;

/// SQLite refusing a write for want of room (a real database whose
/// page limit is reached returns SQLITE_FULL) is the disk-full error,
/// with its advice, as is an OS's ENOSPC on a file.
#[tokio::test]
async fn a_full_disk_is_said_as_one_error_naming_where_and_what_to_do() {
    use sqlx::sqlite::{SqliteConnectOptions, SqlitePoolOptions};
    let dir = tempfile::tempdir().expect("tmp");
    let pool = SqlitePoolOptions::new()
        .max_connections(1)
        .connect_with(
            SqliteConnectOptions::new()
                .filename(dir.path().join("full.db"))
                .create_if_missing(true),
        )
        .await
        .expect("open");
    sqlx::query("CREATE TABLE t (b BLOB)")
        .execute(&pool)
        .await
        .expect("table");
    sqlx::query("PRAGMA max_page_count = 8")
        .execute(&pool)
        .await
        .expect("limit");
    let refused = sqlx::query("INSERT INTO t VALUES (zeroblob(1000000))")
        .execute(&pool)
        .await
        .expect_err("no room");
    let e = Error::from(refused);
    assert_eq!(e.kind(), "disk_full", "{e}");
    assert!(e.to_string().ends_with("is full: free space and retry"), "{e}");

    let file = dir.path().join("out.zip");
    let e = Error::io("write", &file)(std::io::Error::from_raw_os_error(28));
    assert_eq!(e.kind(), "disk_full");
    assert_eq!(
        e.to_string(),
        format!("the disk holding {} is full: free space and retry", file.display())
    );
    let other = Error::io("write", &file)(std::io::Error::from_raw_os_error(13));
    assert_eq!(other.kind(), "io");
}

#[test]
fn every_code_is_spelled_the_same_by_serde_and_as_str() {
    for &code in ErrorCode::ALL {
        assert_eq!(serde_json::to_value(code).expect("serialize"), code.as_str());
        assert_eq!(ErrorCode::parse(code.as_str()), Some(code));
    }
}
