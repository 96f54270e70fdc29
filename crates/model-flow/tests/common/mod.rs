//! Helpers the flow property tests share.

/// Which jobs each job reaches through dependents: `reach[a][b]` when `b` depends on `a`
/// through any number of steps (transitive closure, small graphs only; `deps[i]` are the
/// positions job `i` depends on).
pub(crate) fn reaches(deps: &[Vec<usize>]) -> Vec<Vec<bool>> {
    let n = deps.len();
    let mut reach = vec![vec![false; n]; n];
    for (i, ds) in deps.iter().enumerate() {
        for &d in ds {
            reach[d][i] = true;
        }
    }
    for k in 0..n {
        let through = reach[k].clone();
        for row in &mut reach {
            if row[k] {
                for (cell, &onward) in row.iter_mut().zip(&through) {
                    *cell |= onward;
                }
            }
        }
    }
    reach
}
