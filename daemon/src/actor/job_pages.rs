//! The pages of `GET /v1/jobs?limit=N&cursor=C` (issue 42: one answer of
//! every job, up to 10,000 rows of up to 64 KiB each, held by each connection
//! that did not read it, took the daemon to gigabytes). A page is the newest
//! jobs older than its cursor, at most `limit` of them ([`DEFAULT_LIMIT`],
//! at most [`MAX_LIMIT`]) and at most [`PAGE_BYTES`] of JSON (always at least
//! one job), so what a connection holds is bounded whatever is stored. The
//! cursor is an id boundary: jobs submitted meanwhile do not shift the pages.

use interstice_api::wire::{JobList, JobView};

/// Jobs on a page when the request names no `limit`.
pub const DEFAULT_LIMIT: u32 = 100;

/// The most jobs a page may hold (`limit` above it is a 400).
pub const MAX_LIMIT: u32 = 1_000;

/// The most bytes of JSON a page's jobs take (its first job is kept
/// whatever its size: a job's text is bounded by `quota.max_job_text_bytes`, at most 1 MiB).
pub const PAGE_BYTES: usize = 256 << 10;

/// What a cursor says before the id it names (the first job it excludes).
const CURSOR_PREFIX: &str = "before-";

/// Which page a caller asks for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct JobsPage {
    /// Jobs on the page at most.
    pub limit: u32,
    /// Only jobs with ids below this one (None: the newest).
    pub before: Option<u64>,
}

impl JobsPage {
    /// The page `?limit=&cursor=` names; a bad value is the message of a
    /// 400 saying why.
    pub fn parse(limit: Option<u32>, cursor: Option<&str>) -> Result<JobsPage, String> {
        let limit = limit.unwrap_or(DEFAULT_LIMIT);
        if !(1..=MAX_LIMIT).contains(&limit) {
            return Err(format!(
                "limit: {limit} jobs a page; ask for 1 to {MAX_LIMIT} (default {DEFAULT_LIMIT})"
            ));
        }
        let before = match cursor {
            None => None,
            Some(text) => Some(
                text.strip_prefix(CURSOR_PREFIX)
                    .and_then(|id| id.parse().ok())
                    .ok_or_else(|| {
                        format!(
                            "cursor: {text:?} is not one this daemon gave; pass a page's next_cursor unchanged, \
                             or no cursor for the newest jobs"
                        )
                    })?,
            ),
        };
        Ok(JobsPage { limit, before })
    }
}

/// A page being filled, newest job first.
pub struct PageBuilder {
    page: JobsPage,
    jobs: Vec<JobView>,
    bytes: usize,
    more: bool,
}

impl PageBuilder {
    /// An empty page.
    pub fn new(page: JobsPage) -> PageBuilder {
        PageBuilder {
            page,
            jobs: Vec::new(),
            bytes: 0,
            more: false,
        }
    }

    /// Keep `job` (the next older one) if the page has room for it; false
    /// when full (then `job` is left for the next page, which thus exists).
    pub fn offer(&mut self, job: JobView) -> bool {
        let size = json_size(&job);
        let full = self.jobs.len() >= self.page.limit as usize
            || (!self.jobs.is_empty() && self.bytes + size > PAGE_BYTES);
        if full {
            self.more = true;
            return false;
        }
        self.bytes += size;
        self.jobs.push(job);
        true
    }

    /// The answer: the page's jobs by id, and the cursor of the next page
    /// if a job was left over.
    pub fn finish(mut self) -> JobList {
        let next_cursor = match (self.more, self.jobs.last()) {
            (true, Some(oldest)) => Some(format!("{CURSOR_PREFIX}{}", oldest.id)),
            _ => None,
        };
        self.jobs.reverse();
        JobList {
            jobs: self.jobs,
            next_cursor,
        }
    }
}

/// The bytes `job` takes as JSON, counted without keeping them.
fn json_size(job: &JobView) -> usize {
    struct Count(usize);
    impl std::io::Write for Count {
        fn write(&mut self, bytes: &[u8]) -> std::io::Result<usize> {
            self.0 += bytes.len();
            Ok(bytes.len())
        }
        fn flush(&mut self) -> std::io::Result<()> {
            Ok(())
        }
    }
    let mut count = Count(0);
    // Writing a JobView to a sink that never fails cannot fail.
    let _ = serde_json::to_writer(&mut count, job);
    count.0
}

#[cfg(test)]
mod tests {
    use super::*;

    fn view(id: u64, argv_bytes: usize) -> JobView {
        let mut view: JobView = serde_json::from_str(&format!(
            r#"{{"id":{id},"state":"ended","decision":"accepted","owner_uid":1000,"procs":1,"walltime":1.0,
               "slo":1.0,"argv":["x"],"class":null,"submitted_at":0.0,"predicted_start":null,
               "predicted_completion":null,"counter_offer_slo":null,"started_at":null,"ended_at":null,
               "exit_code":null,"pid":null,"evictions":0,"slo_violated":null}}"#
        ))
        .unwrap();
        view.argv = vec!["a".repeat(argv_bytes)];
        view
    }

    #[test]
    fn limits_and_cursors_are_checked_and_named_in_the_error() {
        assert_eq!(
            JobsPage::parse(None, None).unwrap(),
            JobsPage {
                limit: DEFAULT_LIMIT,
                before: None
            }
        );
        assert_eq!(
            JobsPage::parse(Some(5), Some("before-42")).unwrap().before,
            Some(42)
        );
        for (limit, cursor, says) in [
            (Some(0), None, "limit: 0"),
            (Some(MAX_LIMIT + 1), None, "limit: 1001"),
            (None, Some("42"), "cursor: \"42\""),
            (None, Some("before-x"), "cursor"),
        ] {
            let err = JobsPage::parse(limit, cursor).unwrap_err();
            assert!(err.contains(says), "{err}");
        }
    }

    #[test]
    fn a_page_stops_at_its_limit_or_its_bytes_and_says_where_the_next_starts() {
        let page = JobsPage::parse(Some(2), None).unwrap();
        let mut builder = PageBuilder::new(page);
        assert!(builder.offer(view(9, 10)) && builder.offer(view(7, 10)));
        assert!(!builder.offer(view(5, 10)));
        let list = builder.finish();
        assert_eq!(list.jobs.iter().map(|job| job.id).collect::<Vec<_>>(), vec![7, 9]);
        assert_eq!(list.next_cursor.as_deref(), Some("before-7"));

        let mut builder = PageBuilder::new(JobsPage::parse(Some(MAX_LIMIT), None).unwrap());
        let big = PAGE_BYTES / 3;
        let kept = (0..10)
            .rev()
            .take_while(|id| builder.offer(view(*id, big)))
            .count();
        assert_eq!(kept, 2, "two thirds of the budget fit, three do not");
        assert_eq!(builder.finish().next_cursor.as_deref(), Some("before-8"));

        let mut builder = PageBuilder::new(page);
        assert!(
            builder.offer(view(3, PAGE_BYTES * 2)),
            "a first job is kept whatever its size"
        );
        assert!(
            builder.finish().next_cursor.is_none(),
            "nothing was left over: the last page"
        );
    }
}
