//! The `docstring_params` column (`mine --docstring-params`, docs/docstrings.md): a
//! docstring's parts as `codemine_docstring` parses them, one struct per row, on the CSN
//! rows (`shape` in the `csn` module) and the call-graph nodes (`nodes_shape` in
//! `callgraph`), which use it.
//!
//! In Arrow: a nullable struct of `params` (list of struct `name`, `type` (nullable),
//! `description`), `returns` (nullable struct `type` (nullable), `description`), `raises`
//! (list of struct `type` (nullable), `description`), `others` (list of struct `section`,
//! `text`) and `style`. Null where no docstring was parsed (a node of a function without
//! one, or one the filters dropped).
//!
//! ```
//! use arrow_array::Array;
//! use codemine_docstring::{parse, Language};
//! use codemine_schemas::docstring_params::DocstringParamsBuilder;
//!
//! let mut b = DocstringParamsBuilder::default();
//! b.append(Some(&parse("Adds.\n\n:param a: the first", Language::Python)));
//! b.append(None);
//! let column = b.finish()?;
//! assert_eq!(column.len(), 2);
//! # Ok::<(), arrow_schema::ArrowError>(())
//! ```

use std::sync::{Arc, LazyLock};

use arrow_array::builder::StringBuilder;
use arrow_array::{Array, ArrayRef, ListArray, RecordBatch, StructArray};
use arrow_buffer::{NullBuffer, OffsetBuffer, ScalarBuffer};
use arrow_schema::{ArrowError, DataType, Field, Fields, Schema, SchemaRef};
use codemine_docstring::DocstringParams;

/// The column's name.
pub const DOCSTRING_PARAMS: &str = "docstring_params";

fn string(name: &str, nullable: bool) -> Field {
    Field::new(name, DataType::Utf8, nullable)
}

/// The fields of the items of `params`, `raises` and `others`, and of `returns`.
struct ItemFields {
    params: Fields,
    raises: Fields,
    others: Fields,
    returns: Fields,
    top: Fields,
}

fn list_of(fields: &Fields) -> DataType {
    DataType::List(Arc::new(Field::new(
        "item",
        DataType::Struct(fields.clone()),
        true,
    )))
}

static FIELDS: LazyLock<ItemFields> = LazyLock::new(|| {
    let params = Fields::from(vec![
        string("name", false),
        string("type", true),
        string("description", false),
    ]);
    let typed = Fields::from(vec![string("type", true), string("description", false)]);
    let others = Fields::from(vec![string("section", false), string("text", false)]);
    let top = Fields::from(vec![
        Field::new("params", list_of(&params), false),
        Field::new("returns", DataType::Struct(typed.clone()), true),
        Field::new("raises", list_of(&typed), false),
        Field::new("others", list_of(&others), false),
        string("style", false),
    ]);
    ItemFields {
        params,
        raises: typed.clone(),
        others,
        returns: typed,
        top,
    }
});

/// The column's type.
pub fn data_type() -> DataType {
    DataType::Struct(FIELDS.top.clone())
}

/// The column's field (nullable).
pub fn field() -> Field {
    Field::new(DOCSTRING_PARAMS, data_type(), true)
}

/// A list of structs of `N` string fields, built as offsets and one builder per field.
struct StructList<const N: usize> {
    offsets: Vec<i32>,
    columns: [StringBuilder; N],
}

impl<const N: usize> Default for StructList<N> {
    fn default() -> Self {
        Self {
            offsets: vec![0],
            columns: std::array::from_fn(|_| StringBuilder::new()),
        }
    }
}

impl<const N: usize> StructList<N> {
    /// Appends one row's list; returns the bytes of its text.
    fn push<'a>(&mut self, items: impl Iterator<Item = [Option<&'a str>; N]>) -> usize {
        let mut bytes = 0;
        let mut count = 0i32;
        for item in items {
            for (b, v) in self.columns.iter_mut().zip(item) {
                bytes += v.map_or(0, str::len);
                b.append_option(v);
            }
            count += 1;
        }
        let last = self.offsets.last().copied().unwrap_or(0);
        self.offsets.push(last.saturating_add(count));
        bytes
    }

    fn finish(&mut self, fields: &Fields) -> Result<ListArray, ArrowError> {
        let columns: Vec<ArrayRef> = self
            .columns
            .iter_mut()
            .map(|b| Arc::new(b.finish()) as ArrayRef)
            .collect();
        let values = StructArray::try_new(fields.clone(), columns, None)?;
        let offsets = std::mem::replace(&mut self.offsets, vec![0]);
        let item = Arc::new(Field::new("item", DataType::Struct(fields.clone()), true));
        ListArray::try_new(
            item,
            OffsetBuffer::new(ScalarBuffer::from(offsets)),
            Arc::new(values),
            None,
        )
    }
}

/// Builds the column a row at a time.
#[derive(Default)]
pub struct DocstringParamsBuilder {
    params: StructList<3>,
    raises: StructList<2>,
    others: StructList<2>,
    returns: [StringBuilder; 2],
    returns_valid: Vec<bool>,
    style: StringBuilder,
    valid: Vec<bool>,
}

impl DocstringParamsBuilder {
    /// Appends one row (null for `None`); returns the bytes of its text, for the writers'
    /// size limits.
    pub fn append(&mut self, parts: Option<&DocstringParams>) -> usize {
        let Some(p) = parts else {
            // A null row still takes a place in every child.
            self.params.push(std::iter::empty());
            self.raises.push(std::iter::empty());
            self.others.push(std::iter::empty());
            self.returns[0].append_null();
            self.returns[1].append_value("");
            self.returns_valid.push(false);
            self.style.append_value("");
            self.valid.push(false);
            return 0;
        };
        let mut bytes = self.params.push(p.params.iter().map(|x| {
            [
                Some(x.name.as_str()),
                x.type_name.as_deref(),
                Some(x.description.as_str()),
            ]
        }));
        bytes += self.raises.push(
            p.raises
                .iter()
                .map(|x| [x.type_name.as_deref(), Some(x.description.as_str())]),
        );
        bytes += self.others.push(
            p.others
                .iter()
                .map(|x| [Some(x.section.as_str()), Some(x.text.as_str())]),
        );
        match &p.returns {
            Some(r) => {
                self.returns[0].append_option(r.type_name.as_deref());
                self.returns[1].append_value(&r.description);
                self.returns_valid.push(true);
                bytes += r.description.len() + r.type_name.as_ref().map_or(0, String::len);
            }
            None => {
                self.returns[0].append_null();
                self.returns[1].append_value("");
                self.returns_valid.push(false);
            }
        }
        self.style.append_value(p.style.as_str());
        self.valid.push(true);
        bytes + 16
    }

    /// Rows appended since the last [`DocstringParamsBuilder::finish`].
    pub fn len(&self) -> usize {
        self.valid.len()
    }

    pub fn is_empty(&self) -> bool {
        self.valid.is_empty()
    }

    /// The column of the rows appended, and a fresh start.
    pub fn finish(&mut self) -> Result<StructArray, ArrowError> {
        let f = &*FIELDS;
        let returns_valid = std::mem::take(&mut self.returns_valid);
        let returns = StructArray::try_new(
            f.returns.clone(),
            self.returns
                .iter_mut()
                .map(|b| Arc::new(b.finish()) as ArrayRef)
                .collect(),
            Some(NullBuffer::from(returns_valid)),
        )?;
        let columns: Vec<ArrayRef> = vec![
            Arc::new(self.params.finish(&f.params)?),
            Arc::new(returns),
            Arc::new(self.raises.finish(&f.raises)?),
            Arc::new(self.others.finish(&f.others)?),
            Arc::new(self.style.finish()),
        ];
        let valid = std::mem::take(&mut self.valid);
        StructArray::try_new(f.top.clone(), columns, Some(NullBuffer::from(valid)))
    }
}

/// `schema` with the column appended.
pub fn with_field(schema: &Schema) -> SchemaRef {
    let mut fields: Vec<Field> = schema.fields().iter().map(|f| f.as_ref().clone()).collect();
    fields.push(field());
    Arc::new(Schema::new(fields))
}

/// `batch` with the column (one value per row) appended.
pub fn append_column(batch: &RecordBatch, column: StructArray) -> Result<RecordBatch, ArrowError> {
    if column.len() != batch.num_rows() {
        return Err(ArrowError::InvalidArgumentError(format!(
            "{} docstring_params values for {} rows",
            column.len(),
            batch.num_rows()
        )));
    }
    let mut columns = batch.columns().to_vec();
    columns.push(Arc::new(column));
    RecordBatch::try_new(with_field(&batch.schema()), columns)
}

#[cfg(test)]
mod tests {
    use super::*;
    use arrow_array::cast::AsArray;
    use codemine_docstring::{Param, Returns, Style};

    #[test]
    fn rows_and_nulls() {
        let mut b = DocstringParamsBuilder::default();
        let parts = DocstringParams {
            params: vec![Param {
                name: "a".into(),
                type_name: Some("int".into()),
                description: "the first".into(),
            }],
            returns: Some(Returns {
                type_name: None,
                description: "the sum".into(),
            }),
            style: Style::Google,
            ..Default::default()
        };
        b.append(Some(&parts));
        b.append(None);
        b.append(Some(&DocstringParams::default()));
        let col = b.finish().expect("valid arrays");
        assert_eq!(col.data_type(), &data_type());
        assert_eq!(col.len(), 3);
        assert!(col.is_valid(0) && col.is_null(1) && col.is_valid(2));
        let params = col.column(0).as_list::<i32>();
        assert_eq!(params.value_length(0), 1);
        assert_eq!(params.value_length(2), 0);
        let first = params.value(0);
        let names = first.as_struct().column(0).as_string::<i32>();
        assert_eq!(names.value(0), "a");
        let returns = col.column(1).as_struct();
        assert!(returns.is_valid(0) && returns.is_null(2));
        assert_eq!(col.column(4).as_string::<i32>().value(0), "google");
        // A second batch starts afresh.
        b.append(None);
        assert_eq!(b.finish().expect("valid arrays").len(), 1);
    }
}
