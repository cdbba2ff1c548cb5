//! Per-job storage indexed by submission number, whose memory is given back
//! as jobs are handed over.
//!
//! The engine numbers jobs in submission order and keeps that number (its
//! `idx`) in every queue and timer, so a job's slot must not move while the
//! job is known. Slots live in pages of [`PAGE`] jobs; when every job of a
//! full page has been released (handed over to the shell, see
//! [`super::Engine::take_finished`]) the page is freed. A long run thus holds
//! the pages of the jobs still in the system (plus one pointer per page from
//! the oldest such job on), not one slot per job ever submitted.

use std::collections::VecDeque;
use std::ops::{Index, IndexMut};

/// Jobs per page (a power of two).
const PAGE: usize = 64;
const SHIFT: u32 = PAGE.trailing_zeros();

#[derive(Clone, Debug)]
struct Page<T> {
    slots: Vec<Option<T>>,
    /// Slots holding a value.
    live: usize,
}

/// A vector of per-job values that can release values one by one and frees
/// whole pages once all their values are released.
#[derive(Clone, Debug)]
pub(super) struct JobTable<T> {
    /// Pages from page number `first_page` on (`None`: freed); freed pages
    /// at the front are dropped, so the table follows the oldest value held.
    pages: VecDeque<Option<Box<Page<T>>>>,
    first_page: usize,
    /// The index the next `push` gets.
    len: usize,
    /// Values held (pushed and not released).
    held: usize,
}

impl<T> Default for JobTable<T> {
    fn default() -> Self {
        JobTable {
            pages: VecDeque::new(),
            first_page: 0,
            len: 0,
            held: 0,
        }
    }
}

impl<T> JobTable<T> {
    /// The index the next [`JobTable::push`] returns.
    pub(super) fn next_index(&self) -> usize {
        self.len
    }

    /// Values held.
    pub(super) fn held(&self) -> usize {
        self.held
    }

    /// Where the page of `idx` is in `pages`, unless it was dropped.
    fn position(&self, idx: usize) -> Option<usize> {
        (idx >> SHIFT).checked_sub(self.first_page)
    }

    /// Store `value` at the next index and return that index.
    pub(super) fn push(&mut self, value: T) -> usize {
        let idx = self.len;
        let at = (idx >> SHIFT) - self.first_page;
        if at == self.pages.len() {
            self.pages.push_back(Some(Box::new(Page {
                slots: Vec::with_capacity(PAGE),
                live: 0,
            })));
        }
        let page = self.pages[at].as_mut().expect("the last page is never freed");
        page.slots.push(Some(value));
        page.live += 1;
        self.len += 1;
        self.held += 1;
        idx
    }

    /// The value at `idx`, if it is still held.
    pub(super) fn get(&self, idx: usize) -> Option<&T> {
        self.pages
            .get(self.position(idx)?)?
            .as_ref()?
            .slots
            .get(idx & (PAGE - 1))?
            .as_ref()
    }

    /// Take the value at `idx` out (`None` if it was already released);
    /// frees its page when that was the page's last value and the page is full.
    pub(super) fn release(&mut self, idx: usize) -> Option<T> {
        let value = self.slot_mut(idx)?.take()?;
        self.forget(idx);
        Some(value)
    }

    /// [`JobTable::release`] of a value no one wants: dropped where it lies
    /// (not moved out first). False if the slot was empty.
    pub(super) fn discard(&mut self, idx: usize) -> bool {
        match self.slot_mut(idx) {
            Some(slot) if slot.is_some() => *slot = None,
            _ => return false,
        }
        self.forget(idx);
        true
    }

    /// The slot of `idx`, on a page still held.
    fn slot_mut(&mut self, idx: usize) -> Option<&mut Option<T>> {
        let at = self.position(idx)?;
        self.pages.get_mut(at)?.as_mut()?.slots.get_mut(idx & (PAGE - 1))
    }

    /// Count the emptied slot `idx` out of its page, freeing the page (and
    /// those before it) once nothing in it is held.
    fn forget(&mut self, idx: usize) {
        let Some(at) = self.position(idx) else {
            return;
        };
        let Some(page) = self.pages.get_mut(at).and_then(|page| page.as_mut()) else {
            return;
        };
        page.live -= 1;
        self.held -= 1;
        if page.live == 0 && page.slots.len() == PAGE {
            self.pages[at] = None;
            while self.pages.front().is_some_and(Option::is_none) {
                self.pages.pop_front();
                self.first_page += 1;
            }
        }
    }

    /// The values held, in index order.
    pub(super) fn iter(&self) -> impl Iterator<Item = &T> + '_ {
        self.pages
            .iter()
            .flatten()
            .flat_map(|page| page.slots.iter().flatten())
    }

    /// The values held, in index order, by value.
    pub(super) fn into_values(self) -> impl Iterator<Item = T> {
        self.pages
            .into_iter()
            .flatten()
            .flat_map(|page| page.slots.into_iter().flatten())
    }
}

impl<T> Index<usize> for JobTable<T> {
    type Output = T;

    fn index(&self, idx: usize) -> &T {
        match self.get(idx) {
            Some(value) => value,
            None => panic!("job slot {idx} was released or never filled"),
        }
    }
}

impl<T> IndexMut<usize> for JobTable<T> {
    fn index_mut(&mut self, idx: usize) -> &mut T {
        match self.slot_mut(idx).and_then(Option::as_mut) {
            Some(value) => value,
            None => panic!("job slot {idx} was released or never filled"),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_discarded_value_is_forgotten_like_a_released_one() {
        let mut table = JobTable::default();
        for i in 0..PAGE {
            table.push(i.to_string());
        }
        assert!(table.discard(5) && !table.discard(5), "discarded once");
        assert_eq!((table.get(5), table.held()), (None, PAGE - 1));
        for i in (0..PAGE).filter(|&i| i != 5) {
            assert!(table.discard(i));
        }
        assert_eq!(
            (table.first_page, table.held()),
            (1, 0),
            "the empty page is freed"
        );
        assert!(!table.discard(PAGE), "never filled");
    }

    #[test]
    fn full_pages_are_freed_when_every_value_is_released() {
        let mut table = JobTable::default();
        for i in 0..(2 * PAGE + 3) {
            assert_eq!(table.push(i), i);
        }
        for i in 0..PAGE {
            assert_eq!(table.release(i), Some(i));
        }
        assert_eq!(table.first_page, 1, "a full, empty page at the front is dropped");
        assert_eq!(table.release(3), None, "released twice");
        assert_eq!(table.get(3), None);
        assert_eq!(table[PAGE + 1], PAGE + 1);
        // The last, partial page stays even when empty: it is still filling.
        for i in 2 * PAGE..2 * PAGE + 3 {
            table.release(i);
        }
        assert!(table.pages[1].is_some());
        assert_eq!(table.held(), PAGE);
        assert_eq!(
            table.iter().copied().collect::<Vec<_>>(),
            (PAGE..2 * PAGE).collect::<Vec<_>>()
        );
        assert_eq!(table.next_index(), 2 * PAGE + 3);
    }

    #[test]
    fn the_page_table_follows_the_oldest_value_held() {
        let mut table = JobTable::default();
        for i in 0..100 * PAGE {
            table.push(i);
            // Each job leaves a page later than it came, the middle page
            // (holding the first job) last of its batch.
            if i >= PAGE && i % PAGE != PAGE / 2 {
                table.release(i - PAGE);
            }
            if i >= PAGE && i % PAGE == PAGE - 1 {
                table.release(i + 1 - 2 * PAGE + PAGE / 2);
            }
        }
        assert!(table.pages.len() <= 3, "{} pages kept", table.pages.len());
        assert_eq!(table.get(99 * PAGE), Some(&(99 * PAGE)));
        assert_eq!(table.get(0), None);
    }
}
