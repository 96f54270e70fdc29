//! `cargo xtask test` and `cargo xtask with-postgres`: a throwaway PostgreSQL server on
//! loopback for taskstore's tests and benchmarks, started before a command and stopped
//! after it.
//!
//! The server comes from the distribution's packages (`/usr/lib/postgresql/<version>/bin`);
//! when none is installed and xtask runs as root, it installs Debian's `postgresql` package
//! first (`apt-get update`, then `apt-get install -y postgresql`). PostgreSQL refuses to run
//! as root, so as root the server runs as the `postgres` user the package creates. Its data
//! lives in a temporary directory, it listens on a free port of 127.0.0.1 only, and it runs
//! without `fsync` (nothing in it outlives the command). The command gets the database's
//! URL in [`POSTGRES_URL_VAR`].

use std::{
    fs,
    net::TcpListener,
    path::{Path, PathBuf},
    process::{Command, ExitStatus},
};

use crate::error::XtaskError;

/// The variable that carries the test database's URL to the command (and that taskstore's
/// PostgreSQL tests read).
pub const POSTGRES_URL_VAR: &str = "TASKSTORE_POSTGRES_URL";

/// Where Debian's packages put each PostgreSQL version's programs.
const PACKAGE_ROOT: &str = "/usr/lib/postgresql";

/// The database the command gets.
const DATABASE: &str = "taskstore";

/// A running throwaway server; stopped, and its data removed, when dropped.
#[derive(Debug)]
pub struct TestServer {
    bin: PathBuf,
    data: PathBuf,
    as_postgres: bool,
    url: String,
}

impl TestServer {
    /// Installs PostgreSQL if it is missing (as root only), then initializes and starts a
    /// server and creates its database.
    ///
    /// # Errors
    ///
    /// [`XtaskError::Postgres`] when PostgreSQL is missing and cannot be installed, or a
    /// step of the start fails (its output is in the message).
    pub fn start() -> Result<Self, XtaskError> {
        let root = is_root();
        let bin = match find_bin() {
            Some(bin) => bin,
            None if root => {
                eprintln!(
                    "xtask: PostgreSQL is not installed; installing Debian's postgresql package"
                );
                run(Command::new("apt-get").arg("update"))?;
                run(Command::new("apt-get")
                    .args(["install", "-y", "postgresql"])
                    .env("DEBIAN_FRONTEND", "noninteractive"))?;
                find_bin()
                    .ok_or_else(|| failed("no initdb under /usr/lib/postgresql after installing"))?
            }
            None => {
                return Err(failed(&format!(
                    "PostgreSQL is not installed (no {PACKAGE_ROOT}/<version>/bin/initdb): install the \
                     postgresql package, run as root so that xtask installs it, or set {POSTGRES_URL_VAR}"
                )));
            }
        };
        let data = std::env::temp_dir().join(format!("taskstore-postgres-{}", std::process::id()));
        if data.exists() {
            fs::remove_dir_all(&data).map_err(|source| io(&data, source))?;
        }
        fs::create_dir_all(&data).map_err(|source| io(&data, source))?;
        let mut server = Self {
            bin,
            data,
            as_postgres: root,
            url: String::new(),
        };
        if root {
            run(Command::new("chown")
                .arg("postgres:postgres")
                .arg(&server.data))?;
        }
        let cluster = server.data.join("cluster");
        run(server
            .command("initdb")
            .args([
                "--auth=trust",
                "--username=postgres",
                "--no-sync",
                "--encoding=UTF8",
                "--locale=C",
                "-D",
            ])
            .arg(&cluster))?;
        let port = free_port()?;
        let options = format!(
            "-p {port} -k {} -c listen_addresses=127.0.0.1 -c fsync=off -c synchronous_commit=off \
             -c full_page_writes=off -c max_connections=200",
            server.data.display()
        );
        run(server
            .command("pg_ctl")
            .args(["-w", "-t", "120", "-o", &options, "-l"])
            .arg(server.data.join("server.log"))
            .arg("-D")
            .arg(&cluster)
            .arg("start"))?;
        let port = port.to_string();
        run(server.command("createdb").args([
            "-h",
            "127.0.0.1",
            "-p",
            &port,
            "-U",
            "postgres",
            DATABASE,
        ]))?;
        server.url = format!("postgresql://postgres@127.0.0.1:{port}/{DATABASE}");
        Ok(server)
    }

    /// The database's URL.
    #[must_use]
    pub fn url(&self) -> &str {
        &self.url
    }

    /// The directory of the server's programs (`pgbench` is there too).
    #[must_use]
    pub fn bin(&self) -> &Path {
        &self.bin
    }

    /// A command running one of the server's programs, as the `postgres` user when xtask is
    /// root.
    fn command(&self, program: &str) -> Command {
        let path = self.bin.join(program);
        if self.as_postgres {
            let mut command = Command::new("runuser");
            command.args(["-u", "postgres", "--"]).arg(path);
            command
        } else {
            Command::new(path)
        }
    }
}

impl Drop for TestServer {
    fn drop(&mut self) {
        let stopped = self
            .command("pg_ctl")
            .args(["-w", "-m", "fast", "-D"])
            .arg(self.data.join("cluster"))
            .arg("stop")
            .output();
        if let Err(error) = stopped {
            eprintln!("xtask: could not stop the test server: {error}");
        }
        let _ = fs::remove_dir_all(&self.data);
    }
}

/// Runs `program args` with a throwaway server, the URL in [`POSTGRES_URL_VAR`] (and the
/// programs' directory first on `PATH`), and returns its exit status. When the variable is
/// set already, runs against that server and starts none.
///
/// # Errors
///
/// [`XtaskError::Postgres`] when no server can be started or the program cannot run.
pub fn with_postgres(program: &str, args: &[String]) -> Result<ExitStatus, XtaskError> {
    let given = std::env::var(POSTGRES_URL_VAR)
        .ok()
        .filter(|url| !url.is_empty());
    let server = match given {
        Some(_) => None,
        None => Some(TestServer::start()?),
    };
    let mut command = Command::new(program);
    command.args(args);
    if let Some(server) = &server {
        eprintln!("xtask: PostgreSQL test server at {}", server.url());
        command.env(POSTGRES_URL_VAR, server.url());
        let path = std::env::var_os("PATH").unwrap_or_default();
        let mut paths = vec![server.bin().to_path_buf()];
        paths.extend(std::env::split_paths(&path));
        if let Ok(joined) = std::env::join_paths(paths) {
            command.env("PATH", joined);
        }
    }
    command
        .status()
        .map_err(|error| failed(&format!("cannot run {program}: {error}")))
}

/// The newest installed version's programs.
fn find_bin() -> Option<PathBuf> {
    let mut versions: Vec<(u32, PathBuf)> = fs::read_dir(PACKAGE_ROOT)
        .ok()?
        .filter_map(Result::ok)
        .filter_map(|entry| {
            let version = entry.file_name().to_str()?.parse().ok()?;
            let bin = entry.path().join("bin");
            bin.join("initdb").exists().then_some((version, bin))
        })
        .collect();
    versions.sort();
    versions.pop().map(|(_, bin)| bin)
}

fn is_root() -> bool {
    Command::new("id")
        .arg("-u")
        .output()
        .is_ok_and(|output| output.stdout.trim_ascii() == b"0")
}

/// A port of 127.0.0.1 that nothing listens on now.
fn free_port() -> Result<u16, XtaskError> {
    TcpListener::bind("127.0.0.1:0")
        .and_then(|listener| listener.local_addr())
        .map(|address| address.port())
        .map_err(|error| failed(&format!("no free port on 127.0.0.1: {error}")))
}

/// Runs a step; a failure carries its output.
fn run(command: &mut Command) -> Result<(), XtaskError> {
    let output = command
        .output()
        .map_err(|error| failed(&format!("cannot run {command:?}: {error}")))?;
    if output.status.success() {
        Ok(())
    } else {
        Err(failed(&format!(
            "{command:?} failed ({}):\n{}{}",
            output.status,
            String::from_utf8_lossy(&output.stdout),
            String::from_utf8_lossy(&output.stderr)
        )))
    }
}

fn failed(message: &str) -> XtaskError {
    XtaskError::Postgres {
        message: message.to_owned(),
    }
}

fn io(path: &Path, source: std::io::Error) -> XtaskError {
    XtaskError::Io {
        path: path.to_path_buf(),
        source,
    }
}
