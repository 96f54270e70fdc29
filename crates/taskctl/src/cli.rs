//! The command-line grammar (clap derive): subcommands, their arguments and the output format.

use std::path::PathBuf;

use clap::{Args, Parser, Subcommand, ValueEnum};
use taskmodel::JitterPolicy;

/// The largest `--retries` that `taskctl backoff` prints.
pub(crate) const MAX_SCHEDULE_RETRIES: u32 = 10_000;

/// taskctl: check task specs, tasks, flows and schedules, explain selectors and routing,
/// print retry schedules, flow orders, fire times and JSON Schema.
///
/// Exit codes: 0 valid, 1 invalid input, 2 usage error (bad arguments, an unreadable file, or
/// output that cannot be written).
#[derive(Debug, Parser)]
#[command(name = "taskctl", version, max_term_width = 100)]
pub(crate) struct Cli {
    /// Output format: text for people, json for programs.
    #[arg(long, short = 'o', value_enum, default_value_t = Output::Text, global = true)]
    pub(crate) output: Output,

    /// The subcommand.
    #[command(subcommand)]
    pub(crate) command: Command,
}

/// The output format.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub(crate) enum Output {
    /// Text for people.
    Text,
    /// One JSON document on stdout.
    Json,
}

/// The subcommands.
#[derive(Debug, Subcommand)]
pub(crate) enum Command {
    /// Validate task specs, whole tasks or flows (JSON files, or - for stdin).
    ///
    /// A document with `metadata`, `spec` and `status` is a task; one with `jobs` is a flow;
    /// anything else is a spec. Specs (and the specs of a flow's jobs) are held to the
    /// submit-boundary rules. With `--type`, every document is checked as that wire type
    /// instead. Each problem is printed with its file, its field path and, for
    /// JSON syntax errors, its line and column.
    Check(CheckArgs),
    /// Print a flow's order, its levels (jobs that can run side by side) and its graph.
    ///
    /// Exit 0 for a valid flow, 1 for an invalid one (its problems are printed as by check).
    Flow(FlowArgs),
    /// Show which runner a task spec is routed to, and why each other runner is not.
    ///
    /// Exit 0 when a runner is picked, 1 when an input is invalid or no runner can take the task.
    Route(RouteArgs),
    /// Print the retry schedule of a backoff policy for a seed.
    Backoff(BackoffArgs),
    /// Parse a label selector: canonical form, JSON form, and a match explanation.
    Selector(SelectorArgs),
    /// Print the JSON Schema of a wire type, or list the wire types.
    Schema(SchemaArgs),
    /// Schedules: the next fire times of a schedule or a cron expression.
    Schedule(ScheduleArgs),
    /// Simulate the control plane on simulated time: runners claim, run, fail and crash.
    ///
    /// Deterministic: the same inputs and seed print the same result, byte for byte.
    /// Exit 0 when the run kept every attempt rule, 1 when an input is invalid or a step
    /// broke a rule (the step is printed).
    Simulate(SimulateArgs),
}

/// Arguments of `taskctl check`.
#[derive(Debug, Args)]
pub(crate) struct CheckArgs {
    /// JSON files to check; `-` reads standard input.
    #[arg(required = true, value_name = "FILE")]
    pub(crate) files: Vec<PathBuf>,
    /// Check every document as this wire type (one `taskctl schema` lists) instead of telling
    /// a spec from a task by its fields.
    #[arg(long = "type", value_name = "TYPE", value_parser = crate::wire::type_parser())]
    pub(crate) type_name: Option<String>,
}

/// Arguments of `taskctl flow`.
#[derive(Debug, Args)]
pub(crate) struct FlowArgs {
    /// The flow (a JSON file, or - for stdin).
    #[arg(value_name = "FILE")]
    pub(crate) file: PathBuf,
    /// The graph's notation.
    #[arg(long, value_enum, default_value_t = GraphFormat::Mermaid)]
    pub(crate) graph: GraphFormat,
}

/// How `taskctl flow` draws the graph.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub(crate) enum GraphFormat {
    /// A Mermaid flowchart (renders in Markdown on most forges).
    Mermaid,
    /// Graphviz DOT (`dot -Tsvg`).
    Dot,
}

/// Arguments of `taskctl route`.
#[derive(Debug, Args)]
pub(crate) struct RouteArgs {
    /// The task spec (a JSON file, or - for stdin).
    #[arg(value_name = "SPEC")]
    pub(crate) spec: PathBuf,
    /// The runner inventory: a JSON array of { "id", "labels", "kinds" }.
    #[arg(long, value_name = "FILE")]
    pub(crate) runners: PathBuf,
    /// The task id that rendezvous hashing spreads by; the spec's slot when absent.
    #[arg(long, value_name = "ID")]
    pub(crate) task_id: Option<String>,
}

/// Arguments of `taskctl backoff`.
#[derive(Debug, Args)]
pub(crate) struct BackoffArgs {
    /// How randomness spreads the delays: none, full, equal or decorrelated.
    #[arg(long, default_value_t = JitterPolicy::Full)]
    pub(crate) jitter: JitterPolicy,
    /// The delay before the first retry, in milliseconds.
    #[arg(long, default_value_t = 1_000)]
    pub(crate) first_ms: u64,
    /// The longest delay, in milliseconds.
    #[arg(long, default_value_t = 30_000)]
    pub(crate) max_ms: u64,
    /// How much each delay grows over the previous one (before jitter).
    #[arg(long, default_value_t = 2.0)]
    pub(crate) factor: f64,
    /// The seed of the deterministic random source: the same seed prints the same schedule.
    #[arg(long, default_value_t = 0)]
    pub(crate) seed: u64,
    /// How many retries to print.
    #[arg(long, default_value_t = 10, value_parser = clap::value_parser!(u32).range(1..=i64::from(MAX_SCHEDULE_RETRIES)))]
    pub(crate) retries: u32,
}

/// Arguments of `taskctl selector`.
#[derive(Debug, Args)]
pub(crate) struct SelectorArgs {
    /// The selector, e.g. "zone=eu,gpu in (a100,h100),!draining" ("" selects everything).
    #[arg(value_name = "EXPR")]
    pub(crate) expr: String,
    /// Labels to match against, as k=v,k=v.
    #[arg(long, value_name = "K=V,...", allow_hyphen_values = true)]
    pub(crate) labels: Option<String>,
}

/// Arguments of `taskctl schedule`.
#[derive(Debug, Args)]
pub(crate) struct ScheduleArgs {
    /// The schedule subcommand.
    #[command(subcommand)]
    pub(crate) command: ScheduleCommand,
}

/// The subcommands of `taskctl schedule`.
#[derive(Debug, Subcommand)]
pub(crate) enum ScheduleCommand {
    /// Print the next fire times, in UTC and in the schedule's time zone (RFC 3339).
    ///
    /// Give a schedule (a JSON file, or - for stdin) or a cron expression with --cron.
    /// Exit 0 with the times (none when the schedule never fires again), 1 when the schedule
    /// or expression is invalid.
    Next(NextArgs),
}

/// Arguments of `taskctl schedule next`.
#[derive(Debug, Args)]
pub(crate) struct NextArgs {
    /// The schedule (a JSON file, or - for stdin).
    #[arg(
        value_name = "FILE",
        required_unless_present = "cron",
        conflicts_with = "cron"
    )]
    pub(crate) file: Option<PathBuf>,
    /// A cron expression instead of a schedule: five fields, six with seconds, or a nickname.
    #[arg(long, value_name = "EXPR", allow_hyphen_values = true)]
    pub(crate) cron: Option<String>,
    /// The IANA time zone of --cron (default UTC).
    #[arg(long, value_name = "ZONE", requires = "cron")]
    pub(crate) time_zone: Option<String>,
    /// Times after this one (RFC 3339); the current time when absent.
    #[arg(long, value_name = "TIME")]
    pub(crate) from: Option<String>,
    /// How many fire times to print.
    #[arg(long, default_value_t = 10, value_parser = clap::value_parser!(u16).range(1..=i64::try_from(taskmodel::schedule::MAX_NEXT_FIRE_TIMES).unwrap_or(1000)))]
    pub(crate) count: u16,
}

/// Arguments of `taskctl schema`.
#[derive(Debug, Args)]
pub(crate) struct SchemaArgs {
    /// The wire type; without it, the wire types are listed (with `--output json`, all schemas).
    #[arg(value_name = "TYPE", value_parser = crate::wire::type_parser())]
    pub(crate) type_name: Option<String>,
}

/// Arguments of `taskctl simulate`.
#[derive(Debug, Args)]
pub(crate) struct SimulateArgs {
    /// Task specs or manifests (JSON files, as `taskctl check` reads them; - for stdin).
    #[arg(required = true, value_name = "SPEC")]
    pub(crate) specs: Vec<PathBuf>,
    /// The runner inventory, as `taskctl route` reads it: a JSON array of { "id", "labels", "kinds" }.
    #[arg(long, value_name = "FILE")]
    pub(crate) runners: PathBuf,
    /// Submit each spec this many times (copies are named NAME-1, NAME-2, ...).
    #[arg(long, default_value_t = 1)]
    pub(crate) copies: u32,
    /// Spread the copies of each spec over this many slots, SLOT-1 to SLOT-N (1: they share
    /// the spec's slot and run one at a time).
    #[arg(long, default_value_t = 1, value_name = "N")]
    pub(crate) slots: u32,
    /// The seed of every random draw (outcomes, run times, backoff jitter).
    #[arg(long, default_value_t = 0)]
    pub(crate) seed: u64,
    /// The share of attempts that fail (0 to 1).
    #[arg(long, default_value_t = 0.0, value_name = "RATE")]
    pub(crate) fail_rate: f64,
    /// The share of attempts that run until the spec's timeout (0 to 1).
    #[arg(long, default_value_t = 0.0, value_name = "RATE")]
    pub(crate) timeout_rate: f64,
    /// The fail rate of one job, in place of --fail-rate: NAME=RATE, NAME a flow's job or a
    /// spec's or manifest's task name (repeatable).
    #[arg(long, value_name = "NAME=RATE")]
    pub(crate) job_fail_rate: Vec<String>,
    /// The timeout rate of one job, in place of --timeout-rate: NAME=RATE (repeatable).
    #[arg(long, value_name = "NAME=RATE")]
    pub(crate) job_timeout_rate: Vec<String>,
    /// A runner that crashes at a simulated time, RUNNER@MS, and comes back at another,
    /// RUNNER@MS..BACK (repeatable).
    #[arg(long, value_name = "RUNNER@MS[..MS]")]
    pub(crate) crash: Vec<String>,
    /// How long a lease lasts from a claim or a heartbeat, in milliseconds.
    #[arg(long, default_value_t = 30_000, value_name = "MS")]
    pub(crate) lease_ms: u64,
    /// How often a runner heartbeats a running attempt, in milliseconds (below --lease-ms).
    #[arg(long, default_value_t = 10_000, value_name = "MS")]
    pub(crate) heartbeat_ms: u64,
    /// The mean run time of an attempt, in milliseconds (each draws from half to one and a half times it).
    #[arg(long, default_value_t = 1_000, value_name = "MS")]
    pub(crate) attempt_ms: u64,
    /// How much simulated time to run at most, in milliseconds.
    #[arg(long, default_value_t = 86_400_000, value_name = "MS")]
    pub(crate) duration_ms: u64,
    /// Write a Gantt chart of the attempts per runner (SVG) to this file.
    #[arg(long, value_name = "FILE.svg")]
    pub(crate) timeline: Option<PathBuf>,
    /// Which control plane answers the calls: taskstore on an SQLite file, or in memory.
    #[arg(long, value_enum, default_value_t = PlaneKind::Sqlite)]
    pub(crate) plane: PlaneKind,
    /// Keep the SQLite store in this new file (the sqlite plane); by default it lives in a
    /// temporary directory removed after the run.
    #[arg(long, value_name = "FILE")]
    pub(crate) store_path: Option<PathBuf>,
}

/// Which control plane `taskctl simulate` drives.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub(crate) enum PlaneKind {
    /// taskstore's embedded SQLite store, through the calls a control plane makes.
    Sqlite,
    /// The model's calls on tasks kept in memory (faster; no database).
    Memory,
}
