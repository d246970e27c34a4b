//! `runs.parquet`: every run of a sweep as one row (pandas: `pd.read_parquet`). Columns:
//! `sweep`, `run`, `config`, `label` (strings), `seed` (int64), one string column per grid
//! key (its value), then every metric as an optional double, the host's (`host.*`) last.

use std::path::Path;
use std::sync::Arc;

use parquet::basic::{LogicalType, Repetition, Type as PhysicalType};
use parquet::data_type::{ByteArray, ByteArrayType, DoubleType, Int64Type};
use parquet::file::properties::WriterProperties;
use parquet::file::writer::SerializedFileWriter;
use parquet::schema::types::Type;

use super::results::{Row, metric_names};
use crate::db_bench::HarnessError;

/// One column's values.
enum Column {
    Text(Vec<String>),
    Int(Vec<i64>),
    Double(Vec<Option<f64>>),
}

/// Writes `rows` of sweep `name` to `path`.
///
/// # Errors
/// [`HarnessError::Io`] or [`HarnessError::LinkRefused`] if the file cannot be created;
/// [`HarnessError::Config`] naming it if the Parquet writer fails.
pub fn write(
    path: &Path,
    name: &str,
    grid_keys: &[String],
    rows: &[Row],
) -> Result<(), HarnessError> {
    let err = |e: &dyn std::fmt::Display| {
        HarnessError::config(
            path.display().to_string(),
            format!("cannot write the Parquet file: {e}"),
        )
    };
    let text = |f: &dyn Fn(&Row) -> String| Column::Text(rows.iter().map(f).collect());
    let mut cols: Vec<(String, Column)> = vec![
        ("sweep".into(), text(&|_| name.to_owned())),
        ("run".into(), text(&|r| r.run.run.clone())),
        ("config".into(), text(&|r| r.run.config.clone())),
        ("label".into(), text(&|r| r.run.label.clone())),
        (
            "seed".into(),
            Column::Int(
                rows.iter()
                    .map(|r| i64::try_from(r.run.seed).unwrap_or(i64::MAX))
                    .collect(),
            ),
        ),
    ];
    for k in grid_keys {
        cols.push((
            k.clone(),
            text(&|r| {
                r.run
                    .values
                    .iter()
                    .find(|(key, _)| key == k)
                    .map(|(_, v)| v.clone())
                    .unwrap_or_default()
            }),
        ));
    }
    for m in metric_names(rows) {
        let vals = rows.iter().map(|r| r.metrics.get(&m).copied()).collect();
        cols.push((m, Column::Double(vals)));
    }
    let fields: Vec<Arc<Type>> = cols
        .iter()
        .map(|(n, c)| {
            let b = match c {
                Column::Text(_) => Type::primitive_type_builder(n, PhysicalType::BYTE_ARRAY)
                    .with_repetition(Repetition::REQUIRED)
                    .with_logical_type(Some(LogicalType::String)),
                Column::Int(_) => Type::primitive_type_builder(n, PhysicalType::INT64)
                    .with_repetition(Repetition::REQUIRED),
                Column::Double(_) => Type::primitive_type_builder(n, PhysicalType::DOUBLE)
                    .with_repetition(Repetition::OPTIONAL),
            };
            b.build().map(Arc::new).map_err(|e| err(&e))
        })
        .collect::<Result<_, _>>()?;
    let schema = Type::group_type_builder("sweep")
        .with_fields(fields)
        .build()
        .map_err(|e| err(&e))?;
    let file = crate::output::create(path)?;
    let props = Arc::new(WriterProperties::builder().build());
    let mut w = SerializedFileWriter::new(file, Arc::new(schema), props).map_err(|e| err(&e))?;
    let mut rg = w.next_row_group().map_err(|e| err(&e))?;
    let mut it = cols.iter();
    while let Some(mut cw) = rg.next_column().map_err(|e| err(&e))? {
        let (_, c) = it.next().ok_or_else(|| err(&"more columns than values"))?;
        match c {
            Column::Text(v) => {
                let v: Vec<ByteArray> = v.iter().map(|s| ByteArray::from(s.as_str())).collect();
                cw.typed::<ByteArrayType>()
                    .write_batch(&v, None, None)
                    .map_err(|e| err(&e))?;
            }
            Column::Int(v) => {
                cw.typed::<Int64Type>()
                    .write_batch(v, None, None)
                    .map_err(|e| err(&e))?;
            }
            Column::Double(v) => {
                let present: Vec<f64> = v.iter().filter_map(|x| *x).collect();
                let def: Vec<i16> = v.iter().map(|x| i16::from(x.is_some())).collect();
                cw.typed::<DoubleType>()
                    .write_batch(&present, Some(&def), None)
                    .map_err(|e| err(&e))?;
            }
        }
        cw.close().map_err(|e| err(&e))?;
    }
    rg.close().map_err(|e| err(&e))?;
    w.close().map_err(|e| err(&e))?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use parquet::file::reader::{FileReader, SerializedFileReader};

    use super::*;
    use crate::sweep::SweepRun;

    #[test]
    fn rows_read_back_with_their_columns_and_nulls() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("runs.parquet");
        let row = |seed: u64, m: &[(&str, f64)]| Row {
            run: SweepRun {
                run: format!("c00-s{seed}"),
                config: "c00".into(),
                label: "fs.cleaner=greedy".into(),
                values: vec![("fs.cleaner".into(), "greedy".into())],
                seed,
                scenario: String::new(),
            },
            metrics: m.iter().map(|(k, v)| ((*k).to_owned(), *v)).collect(),
        };
        let rows = [
            row(1, &[("a", 1.5), ("host.wall_ns", 9.0)]),
            row(2, &[("b", 2.0)]),
        ];
        write(&path, "t", &["fs.cleaner".into()], &rows).unwrap();
        let r = SerializedFileReader::new(std::fs::File::open(&path).unwrap()).unwrap();
        assert_eq!(r.metadata().file_metadata().num_rows(), 2);
        let names: Vec<String> = r
            .metadata()
            .file_metadata()
            .schema_descr()
            .columns()
            .iter()
            .map(|c| c.name().to_owned())
            .collect();
        assert_eq!(
            names,
            [
                "sweep",
                "run",
                "config",
                "label",
                "seed",
                "fs.cleaner",
                "a",
                "b",
                "host.wall_ns"
            ]
        );
        let rows: Vec<String> = r
            .get_row_iter(None)
            .unwrap()
            .map(|row| row.unwrap().to_string())
            .collect();
        assert!(
            rows[0].contains("a: 1.5") && rows[0].contains("b: null"),
            "{}",
            rows[0]
        );
        assert!(
            rows[1].contains("seed: 2") && rows[1].contains("fs.cleaner: \"greedy\""),
            "{}",
            rows[1]
        );
    }
}
