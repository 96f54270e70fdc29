//! Unit tests for `back`: the groups it finds are the strongly connected groups that
//! sorting and Pearce's search find, on hand-made and random graphs, and past 64 back
//! edges it does not search.

use proptest::prelude::*;

use super::super::cycle::{SORTED, groups};
use super::super::order::{dependents, topological};
use super::*;

/// The graph of jobs each depending on the positions listed.
fn edges(lists: &[Vec<u32>]) -> Edges {
    let mut deps = Vec::new();
    let mut dep_start = vec![0];
    for list in lists {
        deps.extend_from_slice(list);
        dep_start.push(deps.len() as u32);
    }
    let (out_start, outs, problem) = dependents(lists.len(), &dep_start, &deps);
    assert!(!problem, "{lists:?}");
    Edges {
        dep_start,
        deps,
        out_start,
        outs,
    }
}

/// Each job's group as the first job of that group, or nothing off every cycle.
fn firsts(mark: &[u32], cyclic: &[(u32, u32)]) -> Vec<Option<u32>> {
    mark.iter()
        .map(|&m| {
            cyclic
                .iter()
                .find(|&&(_, group)| group == m)
                .map(|&(first, _)| first)
        })
        .collect()
}

/// The groups by sorting and then Pearce's search, as [`firsts`] gives them (none at all
/// when the graph sorts).
fn by_sorting(graph: &Edges) -> Option<Vec<Option<u32>>> {
    let mut mark = topological(graph).err()?;
    for left in &mut mark {
        *left = if *left == 0 { SORTED } else { 0 };
    }
    let cyclic = groups(graph, &mut mark);
    Some(firsts(&mark, &cyclic))
}

/// The groups [`search`] finds, as [`firsts`] gives them.
fn by_back_edges(graph: &Edges) -> Option<Vec<Option<u32>>> {
    match search(graph) {
        Search::Cyclic { mark, cyclic } => {
            // Every job is marked a group or `SORTED`, and every group has its first job.
            assert!(
                mark.iter()
                    .all(|&m| m == SORTED || cyclic.iter().any(|&(_, group)| group == m))
            );
            for &(first, group) in &cyclic {
                assert_eq!(mark.get(first as usize), Some(&group));
                assert!(mark.iter().take(first as usize).all(|&m| m != group));
            }
            Some(firsts(&mark, &cyclic))
        }
        Search::Acyclic => None,
        Search::Unsearched => panic!("not searched"),
    }
}

#[test]
fn groups_through_several_back_edges_are_found_whole() {
    // 0 -> 1 -> 2 -> 3 (forward); 1 depends on 3 (back), closing 1-2-3; 5 depends on 6 and
    // 6 on 5 (one back edge, a two-job group); 7 depends on 9 and 8 on 7, 9 on 8: a group
    // closed by one back edge; 4 depends on 2 and is on no cycle; 10 depends on 11 (a back
    // edge on no cycle).
    let lists = vec![
        vec![],
        vec![0, 3],
        vec![1],
        vec![2],
        vec![2],
        vec![6],
        vec![5],
        vec![9],
        vec![7],
        vec![8],
        vec![11],
        vec![],
    ];
    let graph = edges(&lists);
    let want = [
        None,
        Some(1),
        Some(1),
        Some(1),
        None,
        Some(5),
        Some(5),
        Some(7),
        Some(7),
        Some(7),
        None,
        None,
    ]
    .to_vec();
    assert_eq!(by_back_edges(&graph), Some(want.clone()));
    assert_eq!(by_sorting(&graph), Some(want));
}

#[test]
fn a_cycle_through_two_back_edges_is_one_group() {
    // 0 depends on 3 and 2 on 5 (back edges); 3 depends on 2 and 5 on 0 (forward): the
    // cycle 0 -> 5 -> 2 -> 3 -> 0 takes both back edges, with 1 and 4 on no cycle.
    let lists = vec![vec![3], vec![0], vec![5], vec![2], vec![3], vec![0]];
    let graph = edges(&lists);
    let want = [Some(0), None, Some(0), Some(0), None, Some(0)].to_vec();
    assert_eq!(by_back_edges(&graph), Some(want.clone()));
    assert_eq!(by_sorting(&graph), Some(want));
}

#[test]
fn back_edges_that_close_no_cycle_are_acyclic_and_past_64_not_searched() {
    // Each even job depends on the odd job after it: 64 back edges, no cycle.
    let acyclic: Vec<Vec<u32>> = (0..128u32)
        .map(|i| if i % 2 == 0 { vec![i + 1] } else { vec![] })
        .collect();
    assert_eq!(search(&edges(&acyclic)), Search::Acyclic);
    let mut more = acyclic.clone();
    more.extend([vec![129], vec![]]);
    assert_eq!(search(&edges(&more)), Search::Unsearched);
    // The 64th back edge (its last bit) closes a cycle: jobs 126 and 127 depend on each
    // other.
    let mut last = acyclic;
    last[127] = vec![126];
    let graph = edges(&last);
    let want = (0..128).map(|job| (job >= 126).then_some(126)).collect();
    assert_eq!(by_back_edges(&graph), Some(want));
    assert_eq!(by_sorting(&graph), by_back_edges(&graph));
}

#[test]
fn a_list_with_a_problem_or_many_dependencies_is_left_to_the_checks() {
    // Job 1 closes a cycle with job 2; job 3's list is as given.
    let graph = |third: Vec<u32>| {
        let mut deps = vec![0];
        let mut all = Vec::new();
        for list in [vec![], vec![2], vec![1], third] {
            all.extend(list);
            deps.push(all.len() as u32);
        }
        Edges {
            dep_start: deps,
            deps: all,
            out_start: Vec::new(),
            outs: Vec::new(),
        }
    };
    assert!(matches!(search(&graph(vec![0, 1])), Search::Cyclic { .. }));
    for third in [
        vec![3],
        vec![4],
        vec![super::super::UNKNOWN],
        vec![0, 1, 0],
        vec![2, 2],
    ] {
        assert_eq!(
            search(&graph(third.clone())),
            Search::Unsearched,
            "{third:?}"
        );
    }
    // A list of more than FEW_DEPENDENCIES distinct jobs beside a cycle.
    let jobs = FEW_DEPENDENCIES as u32 + 3;
    let mut lists: Vec<Vec<u32>> = vec![Vec::new(); jobs as usize];
    lists[0] = vec![1];
    lists[1] = vec![0];
    lists[jobs as usize - 1] = (0..jobs - 2).collect();
    assert_eq!(search(&edges(&lists)), Search::Unsearched);
    lists[jobs as usize - 1].pop();
    assert!(matches!(search(&edges(&lists)), Search::Cyclic { .. }));
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(2048))]

    /// On random graphs of long forward chains with dependencies on later jobs (each of
    /// which may close cycles of any length, alone or together; a few, tens, or more than
    /// 64), the groups of the back edges are those of sorting and Pearce's search, job by
    /// job, and past 64 back edges there is no search.
    #[test]
    fn the_back_edge_groups_are_the_strongly_connected_ones(
        shape in (2usize..90, prop_oneof![Just(9usize), Just(40), Just(80), Just(200)])
            .prop_flat_map(|(jobs, most)| (
                Just(jobs),
                proptest::collection::vec((0..jobs, 0..jobs, 0u8..4), jobs..jobs * 3),
                proptest::collection::vec((0..jobs, 0..jobs), 0..most),
            )),
    ) {
        let (jobs, forward, back) = shape;
        let mut lists: Vec<Vec<u32>> = vec![Vec::new(); jobs];
        // Mostly the job before (long chains), else any earlier job.
        for (job, earlier, near) in forward {
            let dep = if near > 0 { job.checked_sub(1) } else { Some(earlier % job.max(1)) };
            if let (Some(dep), Some(list)) = (dep.filter(|&d| d < job), lists.get_mut(job))
                && !list.contains(&(dep as u32))
            {
                list.push(dep as u32);
            }
        }
        for (job, later) in back {
            if later > job
                && let Some(list) = lists.get_mut(job)
                && !list.contains(&(later as u32))
            {
                list.push(later as u32);
            }
        }
        let graph = edges(&lists);
        let back: usize = lists
            .iter()
            .enumerate()
            .map(|(job, list)| list.iter().filter(|&&dep| dep as usize > job).count())
            .sum();
        if back > 64 {
            prop_assert_eq!(search(&graph), Search::Unsearched);
        } else {
            prop_assert_eq!(by_back_edges(&graph), by_sorting(&graph), "{:?}", lists);
        }
    }
}
