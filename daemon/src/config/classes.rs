//! The `classes:` and `default_class:` keys: the service classes of cloud
//! jobs, checked into a [`ClassTable`].

use super::model::Config;
use crate::classes::ClassTable;

/// A victim order by class (`engine.eviction`, `backend.eviction`) needs
/// classes and a default class for the jobs that name none: the problem,
/// under `key`, when they are missing.
pub(super) fn needs_default_class(key: &str, classes: Option<&ClassTable>) -> Option<String> {
    classes.map_or(true, |table| table.default.is_none()).then(|| {
        format!("{key} orders cloud jobs by class: give `classes:` and a `default_class:` (for the jobs that name none)")
    })
}

impl Config {
    /// The service classes (`classes:`, `default_class:`), checked: `None`
    /// without classes; each problem names its key.
    pub fn class_table(&self) -> Result<Option<ClassTable>, Vec<String>> {
        let mut problems = Vec::new();
        if self.classes.is_empty() {
            if self.default_class.is_some() {
                problems
                    .push("default_class: there are no classes: add a `classes:` list, or remove it".into());
            }
            return if problems.is_empty() {
                Ok(None)
            } else {
                Err(problems)
            };
        }
        for (index, entry) in self.classes.iter().enumerate() {
            if let Err(err) = interstice_api::slurm::parse_class(&entry.name) {
                problems.push(format!("classes[{index}].name: {err}"));
            }
            if entry.weight.is_some() {
                problems.push(format!(
                    "classes[{index}].weight: only a replay draws classes by weight; a daemon's jobs name \
                     theirs: remove it"
                ));
            }
        }
        let classes = match interstice_swf::qos::service_classes(&self.classes) {
            Ok(classes) => classes,
            Err((key, message)) => {
                problems.push(format!("{key}: {message}"));
                return Err(problems);
            }
        };
        let mut table = ClassTable {
            classes,
            default: None,
        };
        if let Some(name) = &self.default_class {
            match table.index(Some(name)) {
                Ok(index) => table.default = index,
                Err(err) => problems.push(format!("default_class: {err}")),
            }
        }
        if problems.is_empty() {
            Ok(Some(table))
        } else {
            Err(problems)
        }
    }
}
