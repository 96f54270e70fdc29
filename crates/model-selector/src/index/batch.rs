//! `Batch`: changes applied to an index together.

use model_ids::RunnerId;

use crate::labels::Labels;

#[derive(Clone, Debug)]
pub(super) enum Op<P> {
    Register(RunnerId, Labels, P),
    Update(RunnerId, Labels, P),
    Remove(RunnerId),
}

/// Changes applied to a [`RunnerIndex`](super::RunnerIndex) together: readers see all of them or none.
/// Operations apply in the order they were added. At most [`MAX_BATCH_OPS`](super::MAX_BATCH_OPS) of them.
#[derive(Clone, Debug)]
pub struct Batch<P> {
    pub(super) ops: Vec<Op<P>>,
}

impl<P> Default for Batch<P> {
    fn default() -> Self {
        Self { ops: Vec::new() }
    }
}

impl<P> Batch<P> {
    /// An empty batch.
    pub fn new() -> Self {
        Self::default()
    }

    /// Adds runner `id`; applying fails if it is already present.
    pub fn register(&mut self, id: RunnerId, labels: Labels, payload: P) -> &mut Self {
        self.ops.push(Op::Register(id, labels, payload));
        self
    }

    /// Replaces the labels and payload of runner `id`; applying fails if it is absent.
    pub fn update(&mut self, id: RunnerId, labels: Labels, payload: P) -> &mut Self {
        self.ops.push(Op::Update(id, labels, payload));
        self
    }

    /// Removes runner `id`; applying fails if it is absent.
    pub fn remove(&mut self, id: RunnerId) -> &mut Self {
        self.ops.push(Op::Remove(id));
        self
    }

    /// Number of operations.
    pub fn len(&self) -> usize {
        self.ops.len()
    }

    /// Whether the batch has no operations.
    pub fn is_empty(&self) -> bool {
        self.ops.is_empty()
    }
}
