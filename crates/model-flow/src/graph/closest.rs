//! The job name closest to an unknown dependency, by edit distance, for the error's
//! "did you mean" hint.

/// The name in `names` closest to `input` by Levenshtein distance (on bytes), if one is
/// within a third of the input's length, rounded (so a one-letter name gets no hint); ties
/// go to the first declared.
///
/// Each comparison runs a DP row by row and stops as soon as every cell of a row exceeds
/// the best distance so far, so a flow of many names costs about the band, not the square.
pub(super) fn closest<'a, N: AsRef<str>>(input: &str, names: &'a [N]) -> Option<&'a N> {
    let input = input.as_bytes();
    let mut limit = (input.len() + 1) / 3;
    let mut best = None;
    let mut row = vec![0usize; model_ids::JOB_NAME_MAX_LEN + 1];
    let mut next = row.clone();
    for name in names {
        if let Some(distance) =
            bounded_distance(input, name.as_ref().as_bytes(), limit, &mut row, &mut next)
        {
            best = Some(name);
            if distance == 0 {
                break;
            }
            // Only a strictly closer name replaces this one.
            limit = distance - 1;
        }
    }
    best
}

/// The edit distance between `a` and `b` if it is at most `limit`. `b` is a job name (at
/// most `JOB_NAME_MAX_LEN` bytes, the length of the scratch rows).
fn bounded_distance(
    a: &[u8],
    b: &[u8],
    limit: usize,
    row: &mut [usize],
    next: &mut [usize],
) -> Option<usize> {
    if a.len().abs_diff(b.len()) > limit {
        return None;
    }
    let width = b.len() + 1;
    let (row, next) = (row.get_mut(..width)?, next.get_mut(..width)?);
    for (j, cell) in row.iter_mut().enumerate() {
        *cell = j;
    }
    for (i, &ca) in a.iter().enumerate() {
        let mut row_min = i + 1;
        if let Some(first) = next.first_mut() {
            *first = i + 1;
        }
        for (j, &cb) in b.iter().enumerate() {
            let substitute = row
                .get(j)
                .copied()
                .unwrap_or(usize::MAX)
                .saturating_add(usize::from(ca != cb));
            let delete = row
                .get(j + 1)
                .copied()
                .unwrap_or(usize::MAX)
                .saturating_add(1);
            let insert = next.get(j).copied().unwrap_or(usize::MAX).saturating_add(1);
            let cell = substitute.min(delete).min(insert);
            if let Some(slot) = next.get_mut(j + 1) {
                *slot = cell;
            }
            row_min = row_min.min(cell);
        }
        if row_min > limit {
            return None;
        }
        row.copy_from_slice(next);
    }
    row.last().copied().filter(|&d| d <= limit)
}
