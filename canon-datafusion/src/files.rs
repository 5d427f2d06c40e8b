//! Files of calls as tables: Parquet and Arrow IPC files, directories of
//! them (Hive-partitioned or not) and globs, registered on a session.

use std::fmt;
use std::io::{self, Read};
use std::path::Path;
use std::sync::Arc;

use datafusion::arrow::datatypes::DataType;
use datafusion::common::{plan_err, DataFusionError, Result};
use datafusion::datasource::file_format::arrow::ArrowFormat;
use datafusion::datasource::file_format::parquet::ParquetFormat;
use datafusion::datasource::file_format::FileFormat;
use datafusion::datasource::listing::{
    ListingOptions, ListingTable, ListingTableConfig, ListingTableUrl,
};
use datafusion::object_store::local::LocalFileSystem;
use datafusion::parquet::file::metadata::ParquetMetaDataReader;
use datafusion::prelude::SessionContext;
use futures::TryStreamExt;

/// The file formats a table of calls is read from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum TableFormat {
    /// Apache Parquet (`.parquet`, or any file starting with `PAR1`).
    Parquet,
    /// The Arrow IPC file format (`.arrow`, `.ipc`, `.feather`, or any file
    /// starting with `ARROW1`).
    Arrow,
}

impl TableFormat {
    /// The format a file name's extension says, if any.
    fn of_name(name: &str) -> Option<TableFormat> {
        let extension = name.rsplit_once('.')?.1.to_ascii_lowercase();
        match extension.as_str() {
            "parquet" => Some(TableFormat::Parquet),
            "arrow" | "ipc" | "feather" => Some(TableFormat::Arrow),
            _ => None,
        }
    }

    /// The format a file's first bytes say, if any.
    fn of_magic(start: &[u8]) -> Option<TableFormat> {
        if start.starts_with(b"PAR1") {
            Some(TableFormat::Parquet)
        } else if start.starts_with(b"ARROW1") {
            Some(TableFormat::Arrow)
        } else {
            None
        }
    }

    fn file_format(self) -> Arc<dyn FileFormat> {
        match self {
            TableFormat::Parquet => Arc::new(ParquetFormat::default()),
            TableFormat::Arrow => Arc::new(ArrowFormat),
        }
    }
}

impl fmt::Display for TableFormat {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            TableFormat::Parquet => "Parquet",
            TableFormat::Arrow => "Arrow IPC",
        })
    }
}

/// The most bytes of one column's text that a Parquet row group may hold,
/// by default, for [`check_files`]: 256 MiB. A row group is read whole,
/// so the bytes it holds are the memory its reading takes.
pub const MAX_ROW_GROUP_TEXT: u64 = 256 << 20;

/// How many directory entries [`table_format`] looks at for a file of a
/// format it knows, at most: a directory of calls says so at once.
const LOOKED_AT: usize = 10_000;

/// The table format `input` holds, or `None` when it is no table: a
/// file named `.parquet`, `.arrow`, `.ipc` or `.feather`, or starting with
/// Parquet's or Arrow's magic bytes; a directory holding such files (at
/// any depth); a glob whose pattern ends in such a name (`traces/*.parquet`).
/// `None` for anything else (JSON Lines, say).
///
/// # Errors
/// When `input` cannot be read, or is a directory without a file of a
/// format it knows.
pub fn table_format(input: &str) -> io::Result<Option<TableFormat>> {
    let path = Path::new(input);
    if !path.exists() && is_glob(input) {
        return Ok(TableFormat::of_name(input));
    }
    let meta = std::fs::metadata(path)?;
    if meta.is_dir() {
        return match first_table_file(path, &mut 0)? {
            Some((format, _)) => Ok(Some(format)),
            None => Err(io::Error::new(
                io::ErrorKind::NotFound,
                "the directory holds no .parquet, .arrow, .ipc or .feather file",
            )),
        };
    }
    if let Some(format) = path
        .file_name()
        .and_then(|name| TableFormat::of_name(&name.to_string_lossy()))
    {
        return Ok(Some(format));
    }
    if !meta.is_file() {
        // A pipe or a device: its first bytes are the caller's to read.
        return Ok(None);
    }
    let mut start = [0u8; 6];
    let mut read = 0;
    let mut file = std::fs::File::open(path)?;
    while read < start.len() {
        match file.read(&mut start[read..])? {
            0 => break,
            n => read += n,
        }
    }
    Ok(TableFormat::of_magic(&start[..read]))
}

/// True when `input` holds a glob's special characters.
fn is_glob(input: &str) -> bool {
    input.contains(['*', '?', '['])
}

/// The format and extension (`.parquet`) of the first file of a format
/// canon knows under `dir`, depth first in name order, past hidden files
/// (`.`, `_`).
fn first_table_file(
    dir: &Path,
    looked_at: &mut usize,
) -> io::Result<Option<(TableFormat, String)>> {
    let mut entries: Vec<_> = std::fs::read_dir(dir)?.collect::<io::Result<_>>()?;
    entries.sort_by_key(|entry| entry.file_name());
    for entry in entries {
        *looked_at += 1;
        if *looked_at > LOOKED_AT {
            return Ok(None);
        }
        let name = entry.file_name();
        let name = name.to_string_lossy();
        if name.starts_with(['.', '_']) {
            continue;
        }
        let path = entry.path();
        if path.is_dir() {
            if let Some(found) = first_table_file(&path, looked_at)? {
                return Ok(Some(found));
            }
        } else if let Some(format) = TableFormat::of_name(&name) {
            let extension = name.rsplit_once('.').map_or("", |(_, e)| e);
            return Ok(Some((format, format!(".{extension}"))));
        }
    }
    Ok(None)
}

/// Registers `input` on `ctx` as the table `name`: a Parquet or Arrow IPC
/// file, a directory of such files (read in path order; Hive partitions
/// such as `year=2026/month=12/` become text columns of the table), or a
/// glob (`traces/*.parquet`). The format is [`table_format`]'s.
///
/// DataFusion reads a directory's subdirectories only when they are Hive
/// partitions (`key=value`), unless the session sets
/// `datafusion.execution.listing_table_ignore_subdirectory` to false, as
/// `canon replay` and `canon sql` do: then every file under it.
///
/// ```
/// use canon_datafusion::register_table;
/// use datafusion::prelude::SessionContext;
///
/// # #[tokio::main(flavor = "current_thread")]
/// # async fn main() -> datafusion::error::Result<()> {
/// let ctx = SessionContext::new();
/// let error = register_table(&ctx, "calls", "no/such/file.parquet").await.unwrap_err();
/// assert!(error.to_string().contains("no/such/file.parquet"));
/// # Ok(())
/// # }
/// ```
///
/// # Errors
/// When `input` does not exist, is not a table's files, or its files'
/// schemas cannot be read; each error names `input`.
pub async fn register_table(ctx: &SessionContext, name: &str, input: &str) -> Result<TableFormat> {
    let listing = listing(input)?;
    let named = |e: DataFusionError| e.context(format!("reading {input}"));
    let state = ctx.state();
    let options =
        ListingOptions::new(listing.format.file_format()).with_file_extension(listing.extension);
    let partitions = options
        .infer_partitions(&state, &listing.url)
        .await
        .map_err(named)?;
    let options = options.with_table_partition_cols(
        partitions
            .into_iter()
            .map(|column| (column, DataType::Utf8))
            .collect(),
    );
    let config = ListingTableConfig::new(listing.url)
        .with_listing_options(options)
        .infer_schema(&state)
        .await
        .map_err(named)?;
    let table = ListingTable::try_new(config).map_err(named)?;
    ctx.register_table(name, Arc::new(table))?;
    Ok(listing.format)
}

/// Where an input's files are, and how to tell them.
struct Listing {
    format: TableFormat,
    url: ListingTableUrl,
    /// What the files' names end with (`.parquet`); empty for a single
    /// file, read whatever its name, and for a glob, which says it.
    extension: String,
}

/// The listing of `input`, or why it is no table.
fn listing(input: &str) -> Result<Listing> {
    let format = match table_format(input) {
        Ok(Some(format)) => format,
        Ok(None) => {
            return plan_err!(
                "{input}: not a Parquet or Arrow IPC file, nor a directory or glob of them"
            )
        }
        Err(e) => return plan_err!("{input}: {e}"),
    };
    let url = ListingTableUrl::parse(input).map_err(|e| e.context(format!("reading {input}")))?;
    // A directory's files are told by its first file's extension.
    let path = Path::new(input);
    let extension = if path.is_dir() {
        first_table_file(path, &mut 0)
            .ok()
            .flatten()
            .map_or_else(String::new, |(_, extension)| extension)
    } else {
        String::new()
    };
    Ok(Listing {
        format,
        url,
        extension,
    })
}

/// Reads the footer of every Parquet file of `input` (the files
/// [`register_table`] reads, listed as `ctx` lists them), so that a file
/// that cannot be read is named before any row is, and checks that no row
/// group holds more than `limit` bytes of the column `column` (its
/// uncompressed size: the text a row group's reading holds at once). An
/// input of Arrow IPC files, which have no row groups, passes.
///
/// # Errors
/// A file whose footer cannot be read (not Parquet, truncated, corrupt),
/// named; the first row group over `limit`, named by its file, its index
/// and the column.
pub async fn check_files(
    ctx: &SessionContext,
    input: &str,
    column: &str,
    limit: u64,
) -> Result<()> {
    let listing = listing(input)?;
    if listing.format != TableFormat::Parquet || listing.url.get_url().scheme() != "file" {
        return Ok(());
    }
    let state = ctx.state();
    let store = LocalFileSystem::new();
    let mut files: Vec<_> = listing
        .url
        .list_all_files(&state, &store, &listing.extension)
        .await
        .map_err(|e| e.context(format!("listing {input}")))?
        .try_collect()
        .await
        .map_err(|e| e.context(format!("listing {input}")))?;
    files.sort_by(|a, b| a.location.cmp(&b.location));
    for meta in files {
        let path = store
            .path_to_filesystem(&meta.location)
            .map_err(|e| DataFusionError::External(Box::new(e)))?;
        check_file(&path, column, limit)?;
    }
    Ok(())
}

/// [`check_files`] for one file.
fn check_file(path: &Path, column: &str, limit: u64) -> Result<()> {
    let shown = path.display();
    let file = std::fs::File::open(path)
        .map_err(|e| DataFusionError::Execution(format!("{shown}: {e}")))?;
    let metadata = ParquetMetaDataReader::new()
        .parse_and_finish(&file)
        .map_err(|e| {
            DataFusionError::Execution(format!("{shown}: not a readable Parquet file: {e}"))
        })?;
    let schema = metadata.file_metadata().schema_descr();
    let Some(index) = (0..schema.num_columns()).find(|&i| {
        let leaf = schema.column(i);
        let first = leaf.path().parts().first().cloned();
        first.is_some_and(|first| first == column)
    }) else {
        // A missing column is the replay's error, which lists the others.
        return Ok(());
    };
    let groups = metadata.num_row_groups();
    for (i, group) in metadata.row_groups().iter().enumerate() {
        let size = u64::try_from(group.column(index).uncompressed_size()).unwrap_or(0);
        if size > limit {
            return Err(DataFusionError::Execution(format!(
                "{shown}: row group {i} (of {groups}, {} rows) holds {} of `{column}`, over \
                 the {} a row group may hold: raise the limit (--max-row-group), or write \
                 the file in smaller row groups",
                group.num_rows(),
                mebibytes(size),
                mebibytes(limit)
            )));
        }
    }
    Ok(())
}

/// `bytes` as people read them: `12.5 MiB`, or `300 bytes`.
fn mebibytes(bytes: u64) -> String {
    if bytes < 1 << 20 {
        format!("{bytes} bytes")
    } else {
        format!("{:.1} MiB", bytes as f64 / f64::from(1 << 20))
    }
}
