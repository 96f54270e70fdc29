//! `Merge`: several iterators that each yield in queue order, merged into one in queue
//! order (a queue keeps one selector index per task kind).

/// The items of several sources, each ascending, merged in ascending order.
///
/// Each step takes the smallest head: as many comparisons as there are sources, which are
/// the task kinds a runner runs that the queue holds (a handful).
pub(crate) struct Merge<I: Iterator> {
    sources: Vec<I>,
    heads: Vec<Option<I::Item>>,
}

impl<I: Iterator> Merge<I> {
    pub(crate) fn new(sources: impl IntoIterator<Item = I>) -> Self {
        let mut sources: Vec<I> = sources.into_iter().collect();
        let heads = sources.iter_mut().map(Iterator::next).collect();
        Self { sources, heads }
    }
}

impl<I> Iterator for Merge<I>
where
    I: Iterator,
    I::Item: Ord,
{
    type Item = I::Item;

    fn next(&mut self) -> Option<I::Item> {
        let (index, _) = self
            .heads
            .iter()
            .enumerate()
            .filter_map(|(i, head)| head.as_ref().map(|head| (i, head)))
            .min_by(|(_, a), (_, b)| a.cmp(b))?;
        let refill = self.sources.get_mut(index).and_then(Iterator::next);
        let head = self.heads.get_mut(index)?;
        std::mem::replace(head, refill)
    }
}

#[cfg(test)]
mod tests;
