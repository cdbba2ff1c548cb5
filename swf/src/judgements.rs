//! An AHP judgements file (`interstice mcdm weights --judgements FILE`, and
//! seed 003's scheduler's user weights): the criteria's names and the
//! pairwise judgement matrix, entry `(i, j)` how much more important
//! criterion `i` is than `j` on Saaty's 1–9 scale.
//!
//! ```yaml
//! criteria: [cpu, ram, fragmentation, bandwidth]
//! matrix:
//!   - [1,   1,   1/3, 1/3]
//!   - [1,   1,   1/3, 1/3]
//!   - [3,   3,   1,   1]
//!   - [3,   3,   1,   1]
//! ```
//!
//! An entry is a number or a fraction `a/b` (YAML reads `1/3` as text).
//! Errors name the file, the line where YAML knows it, and the row, column
//! and criteria of a bad entry; the matrix's reciprocity and consistency are
//! checked by [`interstice_core::mcdm::ahp`].

use interstice_core::mcdm::ahp::{self, Derived, JudgementError};
use serde::Deserialize;
use std::path::Path;

/// A bad judgements file: the message names the file and what to fix.
#[derive(Debug, thiserror::Error)]
#[error("{0}")]
pub struct JudgementsFileError(pub String);

/// The criteria and their pairwise judgements, as read.
#[derive(Clone, Debug, PartialEq)]
pub struct Judgements {
    /// The criteria's names, in the matrix's order.
    pub criteria: Vec<String>,
    /// Row `i`, column `j`: how much more important criterion `i` is than `j`.
    pub matrix: Vec<Vec<f64>>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct File {
    criteria: Vec<String>,
    matrix: Vec<Vec<Entry>>,
}

#[derive(Deserialize)]
#[serde(untagged)]
enum Entry {
    Number(f64),
    Text(String),
}

/// The most bytes a judgements file may hold: a pairwise matrix of the few
/// criteria a person can judge (Saaty: at most about nine) is a few
/// kilobytes; a file of thousands of criteria is refused before it is parsed.
const MAX_FILE_BYTES: u64 = 1 << 20;

impl Judgements {
    /// Read and check `path`'s shape (names, one row and one column per criterion).
    pub fn read(path: &Path) -> Result<Judgements, JudgementsFileError> {
        let text = crate::input_file::read_text(path, MAX_FILE_BYTES)
            .map_err(|e| JudgementsFileError(format!("{}: cannot read: {e}", path.display())))?;
        Self::parse(&text, &path.display().to_string())
    }

    /// Parse the text of the file shown as `place`.
    pub fn parse(text: &str, place: &str) -> Result<Judgements, JudgementsFileError> {
        let file: File = crate::error::from_yaml(text, place).map_err(|e| {
            JudgementsFileError(format!(
                "{e} (expected `criteria: [names]` and `matrix: [[judgements]]`, one row per criterion)"
            ))
        })?;
        let bad = |what: String| JudgementsFileError(format!("{place}: {what}"));
        let n = file.criteria.len();
        if n == 0 {
            return Err(bad("`criteria` is empty: name at least one criterion".into()));
        }
        for (i, name) in file.criteria.iter().enumerate() {
            if name.trim().is_empty() {
                return Err(bad(format!("criterion {} has an empty name", i + 1)));
            }
            if file.criteria[..i].contains(name) {
                return Err(bad(format!("criterion `{name}` is named twice")));
            }
        }
        if file.matrix.len() != n {
            return Err(bad(format!(
                "`matrix` has {} rows for {n} criteria: give one row per criterion, in the order of `criteria`",
                file.matrix.len()
            )));
        }
        let mut matrix = Vec::with_capacity(n);
        for (i, row) in file.matrix.into_iter().enumerate() {
            if row.len() != n {
                return Err(bad(format!(
                    "`matrix` row {} (`{}`) has {} entries: give one per criterion ({n})",
                    i + 1,
                    file.criteria[i],
                    row.len()
                )));
            }
            let values = row
                .into_iter()
                .enumerate()
                .map(|(j, entry)| {
                    entry.value().ok_or_else(|| {
                        bad(format!(
                            "`matrix` row {}, column {} (`{}` against `{}`): `{}` is not a number or a fraction like 1/3",
                            i + 1,
                            j + 1,
                            file.criteria[i],
                            file.criteria[j],
                            entry.text()
                        ))
                    })
                })
                .collect::<Result<Vec<f64>, _>>()?;
            matrix.push(values);
        }
        Ok(Judgements {
            criteria: file.criteria,
            matrix,
        })
    }

    /// The weights, `λ_max` and consistency ratio, or why the matrix is not
    /// usable (naming the criteria of a bad entry); the consistency verdict
    /// is the caller's ([`Judgements::weights`]).
    pub fn derive(&self, place: &str) -> Result<Derived, JudgementsFileError> {
        ahp::derive(&self.matrix).map_err(|e| self.error(place, e))
    }

    /// The weights, refused with the consistency ratio above
    /// [`ahp::MAX_CONSISTENCY_RATIO`].
    pub fn weights(&self, place: &str) -> Result<Derived, JudgementsFileError> {
        let derived = self.derive(place)?;
        if derived.ratio > ahp::MAX_CONSISTENCY_RATIO {
            return Err(self.error(place, JudgementError::Inconsistent { ratio: derived.ratio }));
        }
        Ok(derived)
    }

    fn error(&self, place: &str, e: JudgementError) -> JudgementsFileError {
        let at = match e {
            JudgementError::NotReciprocal { row, col, .. } => {
                format!(" (`{}` against `{}`)", self.criteria[row], self.criteria[col])
            }
            _ => String::new(),
        };
        JudgementsFileError(format!("{place}: {e}{at}"))
    }
}

impl Entry {
    fn value(&self) -> Option<f64> {
        let v = match self {
            Entry::Number(v) => *v,
            Entry::Text(t) => match t.split_once('/') {
                Some((a, b)) => a.trim().parse::<f64>().ok()? / b.trim().parse::<f64>().ok()?,
                None => t.trim().parse().ok()?,
            },
        };
        v.is_finite().then_some(v)
    }

    fn text(&self) -> String {
        match self {
            Entry::Number(v) => v.to_string(),
            Entry::Text(t) => t.clone(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const TABLE7_NETWORK: &str = "criteria: [cpu, ram, fragmentation, bandwidth]\nmatrix:\n  - [1, 1, 1, 1/3]\n  - [1, 1, 1, 1/3]\n  - [1, 1, 1, 1/3]\n  - [3, 3, 3, 1]\n";

    #[test]
    fn fractions_and_numbers_give_the_weights() {
        let j = Judgements::parse(TABLE7_NETWORK, "j.yaml").unwrap();
        assert_eq!(j.criteria, ["cpu", "ram", "fragmentation", "bandwidth"]);
        assert!((j.matrix[0][3] - 1.0 / 3.0).abs() < 1e-15);
        let d = j.weights("j.yaml").unwrap();
        // Consistent: bandwidth 3 / 6 = 0.5, the others 1/6 each.
        assert!(d.ratio < 1e-9);
        assert!((d.weights[3] - 0.5).abs() < 1e-9, "{:?}", d.weights);
    }

    #[test]
    fn bad_files_name_the_place_and_the_fix() {
        let err = |text: &str| Judgements::parse(text, "j.yaml").unwrap_err().to_string();
        assert!(err("criteria: [a, b]\nmatrix: [[1, 2]]\n").contains("1 rows for 2 criteria"));
        assert!(err("criteria: [a, b]\nmatrix: [[1, 2], [x, 1]]\n")
            .contains("row 2, column 1 (`b` against `a`): `x`"));
        assert!(err("criteria: [a, a]\nmatrix: [[1, 1], [1, 1]]\n").contains("named twice"));
        assert!(err("criteria: [a]\nmatrix: [[1, 2]]\n").contains("row 1 (`a`) has 2 entries"));
        assert!(err("criteria: [a]\nmatrix: [[1]]\nweights: 3\n").starts_with("j.yaml:"));
        let j = Judgements::parse("criteria: [a, b]\nmatrix: [[1, 2], [2, 1]]\n", "j.yaml").unwrap();
        let e = j.derive("j.yaml").unwrap_err().to_string();
        assert!(e.contains("(`a` against `b`)"), "{e}");
        let cycle = "criteria: [a, b, c]\nmatrix: [[1, 9, 1/9], [1/9, 1, 9], [9, 1/9, 1]]\n";
        let e = Judgements::parse(cycle, "j.yaml")
            .unwrap()
            .weights("j.yaml")
            .unwrap_err()
            .to_string();
        assert!(
            e.starts_with("j.yaml: AHP judgements are inconsistent: consistency ratio"),
            "{e}"
        );
    }
}
