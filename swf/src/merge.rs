//! Merging two job streams in submission order, lazily.

use interstice_core::Job;

/// The jobs of `a` and `b` (each in submission order) as one stream in
/// submission order, ties broken by job id. `a` is typically a trace and `b`
/// its injected cloud jobs, numbered after the trace's largest id: a tie then
/// puts the trace's job first, exactly as a stable sort of `a` followed by
/// `b` would. Nothing is buffered beyond one job of each.
pub fn merge_by_submit(
    a: impl IntoIterator<Item = Job>,
    b: impl IntoIterator<Item = Job>,
) -> impl Iterator<Item = Job> {
    let mut a = a.into_iter().peekable();
    let mut b = b.into_iter().peekable();
    std::iter::from_fn(move || match (a.peek(), b.peek()) {
        (Some(x), Some(y)) if (y.submit, y.id) < (x.submit, x.id) => b.next(),
        (Some(_), _) => a.next(),
        (None, _) => b.next(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::test_jobs::hpc_job as job;

    #[test]
    fn merges_in_submission_order_like_a_stable_sort() {
        let a = vec![job(2, 0), job(1, 5), job(3, 5)];
        let b = vec![job(10, 0), job(11, 5), job(12, 7)];
        let mut sorted: Vec<Job> = a.iter().chain(&b).cloned().collect();
        sorted.sort_by_key(|job| job.submit);
        let merged: Vec<Job> = merge_by_submit(a, b).collect();
        assert_eq!(merged, sorted);
    }
}
