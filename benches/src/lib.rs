//! Shared fixtures for the taskmodel criterion benchmarks (the bench files live in `benches/`).

/// A seeded splitmix64 generator, so every run builds the same fleet and batches.
#[derive(Debug, Clone)]
pub struct Rng(pub u64);

impl Rng {
    /// The next number of the sequence.
    pub fn next_u64(&mut self) -> u64 {
        let out = model_ids::hash::splitmix64(self.0);
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        out
    }

    /// A number below `n` (`n` at least 1).
    pub fn below(&mut self, n: usize) -> usize {
        (self.next_u64() % n as u64) as usize
    }

    /// One of `from` (not empty).
    pub fn pick<'a>(&mut self, from: &[&'a str]) -> &'a str {
        from.get(self.below(from.len()))
            .copied()
            .unwrap_or_default()
    }
}

pub mod flows;

/// Label sets of real nodes with long prefixed keys, shared by the matching bench
/// (`benches/selector.rs`) and the selector index bench (`benches/selector_index.rs`).
pub mod nodes {
    /// L16, a GKE GPU node: the labels the kubelet sets, GKE's, NVIDIA GPU feature discovery's
    /// and one of the operator's own.
    pub const L16: &[(&str, &str)] = &[
        ("kubernetes.io/arch", "amd64"),
        ("kubernetes.io/os", "linux"),
        ("kubernetes.io/hostname", "gke-ml-a100-5f2c9e1b-x7kq"),
        ("node.kubernetes.io/instance-type", "a2-highgpu-8g"),
        ("topology.kubernetes.io/region", "us-central1"),
        ("topology.kubernetes.io/zone", "us-central1-a"),
        ("cloud.google.com/gke-nodepool", "a100-pool"),
        ("cloud.google.com/gke-accelerator", "nvidia-tesla-a100"),
        ("cloud.google.com/machine-family", "a2"),
        ("cloud.google.com/gke-os-distribution", "cos"),
        ("cloud.google.com/gke-boot-disk", "pd-balanced"),
        ("cloud.google.com/gke-container-runtime", "containerd"),
        ("cloud.google.com/gke-provisioning", "standard"),
        ("nvidia.com/gpu.present", "true"),
        ("nvidia.com/gpu.product", "NVIDIA-A100-SXM4-40GB"),
        ("acme.io/team", "ml-platform"),
    ];

    /// L32, an EKS GPU node: the kubelet's labels (with the deprecated beta and failure-domain
    /// copies many clusters still carry), EKS's, the EBS CSI driver's, NVIDIA GPU feature
    /// discovery's and two of the operator's own.
    pub const L32: &[(&str, &str)] = &[
        ("kubernetes.io/arch", "amd64"),
        ("kubernetes.io/os", "linux"),
        ("kubernetes.io/hostname", "ip-10-42-17-203"),
        ("beta.kubernetes.io/arch", "amd64"),
        ("beta.kubernetes.io/os", "linux"),
        ("beta.kubernetes.io/instance-type", "p4d.24xlarge"),
        ("node.kubernetes.io/instance-type", "p4d.24xlarge"),
        ("topology.kubernetes.io/region", "us-east-1"),
        ("topology.kubernetes.io/zone", "us-east-1a"),
        ("failure-domain.beta.kubernetes.io/region", "us-east-1"),
        ("failure-domain.beta.kubernetes.io/zone", "us-east-1a"),
        ("topology.k8s.aws/zone-id", "use1-az1"),
        ("topology.ebs.csi.aws.com/zone", "us-east-1a"),
        ("k8s.io/cloud-provider-aws", "5b8f3c2a9d1e4f60"),
        ("eks.amazonaws.com/nodegroup", "gpu-a100-ondemand"),
        ("eks.amazonaws.com/capacityType", "ON_DEMAND"),
        ("eks.amazonaws.com/nodegroup-image", "ami-0abcdef1234567890"),
        (
            "eks.amazonaws.com/sourceLaunchTemplateId",
            "lt-0123456789abcdef0",
        ),
        ("eks.amazonaws.com/sourceLaunchTemplateVersion", "3"),
        ("nvidia.com/gpu.present", "true"),
        ("nvidia.com/gpu.product", "NVIDIA-A100-SXM4-80GB"),
        ("nvidia.com/gpu.count", "8"),
        ("nvidia.com/gpu.memory", "81920"),
        ("nvidia.com/gpu.family", "ampere"),
        ("nvidia.com/gpu.machine", "p4d.24xlarge"),
        ("nvidia.com/gpu.compute.major", "8"),
        ("nvidia.com/cuda.driver.major", "535"),
        ("nvidia.com/cuda.runtime.major", "12"),
        ("nvidia.com/mig.capable", "true"),
        ("nvidia.com/gfd.timestamp", "1732233600"),
        ("acme.io/team", "ml-platform"),
        ("acme.io/cost-center", "cc-4711"),
    ];
}

/// A tenant's backlog and the runners that ask it for work: the fixtures of the claim
/// bench (`benches/fleet.rs`) and of its memory test (`tests/fleet_memory.rs`).
pub mod backlog {
    use chrono::{DateTime, TimeDelta, TimeZone, Utc};
    use model_fleet::{KindSet, QueueEntry, QueueKey, Runner};
    use model_ids::{RunnerId, Slot, TaskId, TenantId, Uid};
    use model_policy::AdmissionPolicy;
    use model_selector::{LabelSelector, Labels};
    use model_task::{SubprocessMode, Task, TaskEnv, TaskKind, TaskManifest, TaskSpec};

    use super::Rng;

    /// The time the runners ask: every queued task was queued in the hour before.
    pub fn now() -> DateTime<Utc> {
        Utc.with_ymd_and_hms(2026, 11, 22, 12, 0, 0)
            .single()
            .unwrap_or_default()
    }

    /// Zones by weight: the backlog is the work of the busy pools.
    const ZONES: [(&str, u64); 6] = [
        ("eu-west", 35),
        ("us-east", 30),
        ("eu-north", 15),
        ("us-west", 14),
        ("ap-south", 5),
        ("ap-east", 1),
    ];
    const GPUS: [(&str, u64); 4] = [("h100", 45), ("a100", 35), ("l4", 15), ("t4", 5)];
    const TEAMS: [(&str, u64); 8] = [
        ("ml", 30),
        ("web", 25),
        ("data", 15),
        ("search", 10),
        ("ads", 9),
        ("infra", 6),
        ("video", 4),
        ("mobile", 1),
    ];

    fn weighted(rng: &mut Rng, table: &[(&'static str, u64)]) -> &'static str {
        let total: u64 = table.iter().map(|(_, w)| w).sum();
        let mut draw = rng.next_u64() % total;
        for (name, weight) in table {
            if draw < *weight {
                return name;
            }
            draw -= weight;
        }
        table.first().map(|(name, _)| *name).unwrap_or_default()
    }

    /// One task's runner selector and priority from the mix: most select one or two labels
    /// by equality over zones, GPU types and teams; some add `In`, `NotIn`, `Exists` or
    /// `DoesNotExist`; 1 in 100 selects nothing and is best-effort work at priority -1,
    /// which comes last in the queue.
    fn selector(rng: &mut Rng) -> (String, i32) {
        let (zone, gpu, team) = (
            weighted(rng, &ZONES),
            weighted(rng, &GPUS),
            weighted(rng, &TEAMS),
        );
        let other_zone = weighted(rng, &ZONES);
        let draw = rng.below(100);
        let text = match draw {
            0..35 => format!("zone={zone}"),
            35..50 => format!("team={team}"),
            50..65 => format!("zone={zone},gpu={gpu}"),
            65..72 => format!("team={team},zone={zone}"),
            72..80 => format!("zone in ({zone},{other_zone})"),
            80..87 => format!("zone={zone},gpu notin (l4,t4)"),
            87..93 => format!("team={team},gpu"),
            93..99 => format!("zone={zone},!spot"),
            _ => String::new(),
        };
        let priority = match (draw, rng.below(100)) {
            (99, _) => -1,
            (_, 0..80) => 0,
            (_, 80..95) => 1,
            (_, 95..99) => 2,
            _ => 5,
        };
        (text, priority)
    }

    /// `n` queued tasks of the mix, queued over the hour before [`now`], of 20,000 slots
    /// (admission `queue`), 70% container, 25% subprocess, 5% wasm.
    pub fn backlog(n: usize) -> Vec<QueueEntry> {
        let mut rng = Rng(17);
        (0..n)
            .map(|i| {
                let (text, priority) = selector(&mut rng);
                let selector: LabelSelector = text.parse().unwrap_or_default();
                let kind = match rng.below(100) {
                    0..70 => KindSet::CONTAINER,
                    70..95 => KindSet::SUBPROCESS,
                    _ => KindSet::WASM,
                };
                let at = now() - TimeDelta::milliseconds(rng.below(3_600_000) as i64 + 1);
                let id = TaskId::new(format!("task-{i:06}")).unwrap_or_else(|_| unreachable!());
                let slot = Slot::new(format!("slot-{:05}", rng.below(20_000)))
                    .unwrap_or_else(|_| unreachable!());
                QueueEntry::new(
                    QueueKey::new(priority, at, id),
                    slot,
                    kind,
                    AdmissionPolicy::Queue,
                    selector,
                )
            })
            .collect()
    }

    /// The runners that ask, each with what the queue holds for it:
    ///
    /// - `idle`: a wasm runner of a pool no selector names, polling: its only work is the
    ///   best-effort wasm tasks at the end of the queue;
    /// - `best-effort`: a subprocess and container runner no selector names, so its only work
    ///   is the best-effort tier at the end of the queue;
    /// - `scarce`: a runner of the smallest pools (ap-east, t4, team mobile);
    /// - `busy`: a runner of the busiest pool (eu-west, h100, team ml), whose work is at the
    ///   head of the queue.
    pub fn runners() -> Vec<(&'static str, Runner)> {
        let runner = |name: &'static str, labels: &[(&str, &str)], kinds: KindSet| {
            let runner = Runner::builder(
                RunnerId::new(name).unwrap_or_else(|_| unreachable!()),
                kinds,
            )
            .labels(Labels::from_pairs(labels.iter().copied()).unwrap_or_default())
            .max_concurrent(4)
            .build()
            .and_then(|r| r.register(None, now(), model_fleet::LivenessTtl::default()));
            (name, runner.unwrap_or_else(|_| unreachable!()))
        };
        vec![
            runner(
                "idle",
                &[("zone", "sa-east"), ("team", "edge")],
                KindSet::WASM,
            ),
            runner(
                "best-effort",
                &[("zone", "sa-east"), ("team", "batch"), ("spot", "true")],
                two_kinds(),
            ),
            runner(
                "scarce",
                &[("zone", "ap-east"), ("gpu", "t4"), ("team", "mobile")],
                two_kinds(),
            ),
            runner(
                "busy",
                &[("zone", "eu-west"), ("gpu", "h100"), ("team", "ml")],
                two_kinds(),
            ),
        ]
    }

    /// Subprocess and container.
    fn two_kinds() -> KindSet {
        KindSet::SUBPROCESS
            .union(&KindSet::CONTAINER)
            .unwrap_or_else(|_| unreachable!())
    }

    /// Slots that have a task running: one in ten.
    pub fn busy_slots() -> impl Iterator<Item = String> {
        (0..20_000).step_by(10).map(|i| format!("slot-{i:05}"))
    }

    /// A task running in `slot`.
    pub fn running(slot: &str) -> Task {
        let mode =
            SubprocessMode::command("/bin/true".into(), vec![]).unwrap_or_else(|_| unreachable!());
        let kind =
            TaskKind::subprocess(mode, TaskEnv::default(), None).unwrap_or_else(|_| unreachable!());
        let spec = TaskSpec::builder(slot, kind, 60_000)
            .build()
            .unwrap_or_else(|_| unreachable!());
        let id = TaskId::new(format!("running-{slot}")).unwrap_or_else(|_| unreachable!());
        let tenant = TenantId::new("acme").unwrap_or_else(|_| unreachable!());
        let mut task = Task::create(
            TaskManifest::named(id, spec),
            tenant,
            Uid::from_u128(1),
            now() - TimeDelta::hours(2),
        )
        .unwrap_or_else(|_| unreachable!());
        let _ = task.begin_attempt(None, now() - TimeDelta::hours(2));
        task
    }
}

/// The files and the machine state the store benches (`benches/store.rs`,
/// `benches/flow_store.rs`, `benches/schedule_ticks.rs`) share.
pub mod store_files {
    use std::path::{Path, PathBuf};

    /// Where the SQLite files go: `TASKSTORE_BENCH_DIR`, else `target/bench-store` of the
    /// workspace (created if missing; a bench with nowhere to write stops there).
    ///
    /// # Panics
    ///
    /// When the folder cannot be created.
    #[allow(clippy::expect_used, reason = "a bench with nowhere to write stops")]
    pub fn dir() -> PathBuf {
        let dir = std::env::var_os("TASKSTORE_BENCH_DIR").map_or_else(
            || PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../target/bench-store"),
            PathBuf::from,
        );
        std::fs::create_dir_all(&dir).expect("the bench folder can be created");
        dir
    }

    /// Removes the SQLite database at `path` with its write-ahead log and shared memory
    /// files, so a measurement starts from an empty file (a missing file is no error).
    pub fn remove(path: &Path) {
        for suffix in ["", "-wal", "-shm"] {
            let _ = std::fs::remove_file(format!("{}{suffix}", path.display()));
        }
    }

    /// The machine's load average line (`/proc/loadavg`), empty where there is none.
    pub fn load() -> String {
        std::fs::read_to_string("/proc/loadavg")
            .unwrap_or_default()
            .trim()
            .to_owned()
    }
}
