//! Trust between a data center's daemons, attacked by a local user (issue
//! 42, finding 1): the broker and its members send each other the bearer
//! token, tuples and jobs (argv, secret environment); when one of them is
//! down, a local user (`interstice-test-a`) binds its socket path or port
//! (a *squatter*, a real process run as that user) and must receive
//! nothing, the broker must not answer "accepted" for a job the squatter
//! "took", and `on_behalf_of` never runs a job as root or a system user
//! unless the member's rule lists it. They need root; as anyone else they
//! say so and pass.

mod common;

use common::users::{privileged, uid_of, USER_A, USER_B};
use interstice_api::client::{Client, DEFAULT_TIMEOUT};
use interstice_api::wire::{EventKind, HpcEventRequest, SubmitRequest};
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

const BIN: &str = env!("CARGO_BIN_EXE_intersticed");
/// The data center's token (`api.token_file` of every daemon).
const TOKEN: &str = "dc-token-4f7e2b9a81c3d56e0f";
/// In the environment of the victim's job: must never reach the squatter.
const SECRET: &str = "victim-secret-93b1e0";

/// A root daemon in a temp dir whose socket every user may reach, killed on drop.
struct Node {
    dir: tempfile::TempDir,
    socket: PathBuf,
    child: Option<Child>,
}

impl Node {
    /// Start with `config` (`{d}` is the node's directory), with the
    /// data center's token in `{d}/token`, on its socket `{s}`
    /// (`socket`, or `{d}/d.sock`).
    fn start(config: &str, socket: Option<&str>) -> Node {
        let dir = tempfile::tempdir().unwrap();
        std::fs::set_permissions(dir.path(), std::fs::Permissions::from_mode(0o755)).unwrap();
        let token = dir.path().join("token");
        std::fs::write(&token, TOKEN).unwrap();
        std::fs::set_permissions(&token, std::fs::Permissions::from_mode(0o600)).unwrap();
        let d = dir.path().display().to_string();
        let socket = PathBuf::from(socket.unwrap_or("{d}/d.sock").replace("{d}", &d));
        let config = config
            .replace("{s}", &socket.display().to_string())
            .replace("{d}", &d);
        std::fs::write(dir.path().join("d.yaml"), config).unwrap();
        let log = std::fs::File::create(dir.path().join("log")).unwrap();
        let child = Command::new(BIN)
            .arg("--config")
            .arg(dir.path().join("d.yaml"))
            .stdout(Stdio::null())
            .stderr(log)
            .spawn()
            .unwrap();
        let mut node = Node {
            dir,
            socket,
            child: Some(child),
        };
        let client = node.client();
        let log = || std::fs::read_to_string(node.dir.path().join("log")).unwrap_or_default();
        common::wait_answering(&client, node.child.as_mut().unwrap(), log).unwrap();
        std::fs::set_permissions(node.socket(), std::fs::Permissions::from_mode(0o666)).unwrap();
        node
    }

    /// A broker on its Unix socket, forgetting members after 30 s.
    fn broker() -> Node {
        Node::start(
            "api: {socket: '{s}', token_file: '{d}/token'}\nstate_dir: '{d}/state'\nlog_level: info\n\
             datacenter: {role: broker, member_max_age_seconds: 30, timeout_seconds: 2}\n",
            None,
        )
    }

    /// A broker serving TLS as `identity` on its TCP listener `listen`,
    /// pinning `pin` (its member's certificate).
    fn tls_broker(listen: &str, identity: &Identity, pin: &str) -> Node {
        Node::start(
            &format!(
                "api: {{socket: '{{s}}', listen: '{listen}', token_file: '{{d}}/token'{tls}}}\n\
                 state_dir: '{{d}}/state'\nlog_level: info\n\
                 datacenter: {{role: broker, member_max_age_seconds: 30, timeout_seconds: 2, tls_pins: ['{pin}']}}\n",
                tls = identity.api_tls(),
            ),
            None,
        )
    }

    /// Wait until this broker lists one member (`how` it reaches it).
    fn hears_one_member(&self, how: &str) {
        until(
            &format!("the broker hears its member {how}"),
            Duration::from_secs(10),
            || self.client().members().is_ok_and(|list| list.members.len() == 1),
        );
    }

    /// A member of 4 processors publishing to `broker`, on its socket
    /// `address` when that is a path; `api` and `datacenter` add keys.
    fn member(broker: &str, address: &str, api: &str, datacenter: &str) -> Node {
        let socket = address.starts_with('/').then_some(address);
        Node::start(
            &format!(
            "api: {{socket: '{{s}}', token_file: '{{d}}/token'{api}}}\nstate_dir: '{{d}}/state'\n\
             log_level: info\nengine: {{procs: 4, policy: conservative}}\nbackend: {{type: plugin}}\n\
             execution: {{grace_seconds: 1}}\nnode: {{busy_margin_cpus: 1000}}\n\
             datacenter: {{role: member, broker: '{broker}', address: '{address}', publish_every_seconds: 0.2, \
             timeout_seconds: 2{datacenter}}}\n"
            ),
            socket,
        )
    }

    fn log(&self) -> String {
        std::fs::read_to_string(self.dir.path().join("log")).unwrap_or_default()
    }

    fn socket(&self) -> PathBuf {
        self.socket.clone()
    }

    fn client(&self) -> Client {
        Client::new(self.socket(), DEFAULT_TIMEOUT)
    }

    /// Stop at once (SIGKILL), as a crashed daemon.
    fn kill(&mut self) {
        if let Some(mut child) = self.child.take() {
            let _ = child.kill();
            let _ = child.wait();
        }
    }

    /// `POST /v1/jobs` over the Unix socket as `user`: (HTTP status, body).
    fn submit_as(&self, user: &str, body: &str) -> (u16, String) {
        let output = common::users::as_user(user)
            .args(["curl", "-s"])
            .arg("--unix-socket")
            .arg(self.socket())
            .args(["-w", "\n%{http_code}", "-H", "Content-Type: application/json"])
            .args(["--data-binary", body, "http://localhost/v1/jobs"])
            .output()
            .unwrap();
        let text = String::from_utf8_lossy(&output.stdout).to_string();
        let (body, status) = text.rsplit_once('\n').unwrap_or(("", &text));
        let status = status
            .trim()
            .parse()
            .unwrap_or_else(|_| panic!("no status: {output:?}"));
        (status, body.to_string())
    }

    /// The batch system takes all 4 processors for 100 s (evicting cloud jobs).
    fn hpc_takes_everything(&self) {
        self.client()
            .hpc_event(&HpcEventRequest {
                kind: EventKind::Started,
                id: "hpc-1".to_string(),
                procs: 4,
                walltime: 100.0,
                time: None,
                cpus: Some("0-3".to_string()),
            })
            .unwrap();
    }
}

impl Drop for Node {
    fn drop(&mut self) {
        self.kill();
        interstice_daemon::exec::end_all_jobs(&self.dir.path().join("state"));
    }
}

/// What a squatter answers every request with: a member's "accepted" (and a
/// broker's `ok`), so that a client that trusts it believes it.
const SQUATTER: &str = r#"
import socket, sys, time
where, seconds = sys.argv[1], float(sys.argv[2])
if where.startswith('/'):
    s = socket.socket(socket.AF_UNIX)
else:
    host, port = where.rsplit(':', 1)
    s = socket.socket()
    s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    where = (host, int(port))
s.bind(where)
s.listen(64)
s.settimeout(0.1)
if len(sys.argv) > 4:
    import ssl
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    context.load_cert_chain(sys.argv[3], sys.argv[4])
    s = context.wrap_socket(s, server_side=True)
body = b'{"ok":true,"id":7,"decision":"accepted","predicted_start":0,"predicted_completion":1,' \
       b'"violation_seconds":-1,"counter_offer_slo":null}'
end = time.time() + seconds
while time.time() < end:
    try:
        c, _ = s.accept()
    except Exception:
        continue
    c.settimeout(0.5)
    data = b''
    try:
        while True:
            chunk = c.recv(65536)
            if not chunk:
                break
            data += chunk
            head, _, rest = data.partition(b'\r\n\r\n')
            length = [l for l in head.split(b'\r\n') if l.lower().startswith(b'content-length:')]
            if _ and len(rest) >= (int(length[0].split(b':')[1]) if length else 0):
                break
    except Exception:
        pass
    sys.stdout.buffer.write(data + b'\n')
    sys.stdout.flush()
    try:
        c.sendall(b'HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nConnection: close\r\n'
                  b'Content-Length: %d\r\n\r\n' % len(body) + body)
    except Exception:
        pass
    c.close()
"#;

/// A local user's listener on a stopped daemon's address, recording what it receives.
struct Squatter {
    child: Child,
    heard: tempfile::NamedTempFile,
}

impl Squatter {
    /// `user` binds `address` (`HOST:PORT` or a socket path) for up to 60 s.
    fn bind(user: &str, address: &str) -> Squatter {
        Squatter::bind_tls(user, address, None)
    }

    /// As [`Squatter::bind`], serving TLS with `identity` (certificate, key) if given.
    fn bind_tls(user: &str, address: &str, identity: Option<&Identity>) -> Squatter {
        let heard = tempfile::NamedTempFile::new().unwrap();
        let mut command = common::users::as_user(user);
        command.args(["/usr/bin/python3", "-c", SQUATTER, address, "60"]);
        if let Some(identity) = identity {
            command.arg(&identity.certificate).arg(&identity.key);
        }
        let child = command
            .stdout(heard.reopen().unwrap())
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        let deadline = Instant::now() + Duration::from_secs(5);
        loop {
            let bound = if address.starts_with('/') {
                Path::new(address).exists()
            } else {
                std::net::TcpListener::bind(address).is_err()
            };
            if bound {
                break;
            }
            assert!(Instant::now() < deadline, "the squatter never bound {address}");
            std::thread::sleep(Duration::from_millis(20));
        }
        Squatter { child, heard }
    }

    /// Everything it received so far.
    fn heard(&self) -> String {
        std::fs::read_to_string(self.heard.path()).unwrap_or_default()
    }

    /// It received none of `secrets`.
    fn assert_heard_none(&self, secrets: &[&str], context: &str) {
        let heard = self.heard();
        for secret in secrets {
            assert!(
                !heard.contains(secret),
                "the squatter received {secret:?}:\n{heard}\n{context}"
            );
        }
    }
}

impl Drop for Squatter {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// A loopback port nobody listens on now.
fn free_port() -> String {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    listener.local_addr().unwrap().to_string()
}

fn until(what: &str, timeout: Duration, mut check: impl FnMut() -> bool) {
    let deadline = Instant::now() + timeout;
    while !check() {
        assert!(Instant::now() < deadline, "timed out waiting until {what}");
        std::thread::sleep(Duration::from_millis(50));
    }
}

/// A job whose argv and environment carry the marker and the secret.
fn secret_job(marker: &str) -> String {
    format!(
        r#"{{"procs":1,"walltime":30,"slo":1000,"argv":["/bin/sleep","{marker}"],"env":{{"API_KEY":"{SECRET}"}}}}"#
    )
}

#[test]
fn a_user_on_a_stopped_brokers_port_receives_no_token_and_no_job() {
    if !privileged() {
        return;
    }
    // The broker is down (never started): user A listens on its port.
    let broker = free_port();
    let squatter = Squatter::bind(USER_A, &broker);
    let member = Node::member(&format!("http://{broker}"), "{d}/d.sock", "", "");
    // The member publishes every 0.2 s; a job it evicts is handed to the broker.
    let mut job = SubmitRequest::new(&["/bin/sleep", "1000.42"], 1, 30.0, 1000.0);
    job.env = Some([("API_KEY".to_string(), SECRET.to_string())].into());
    let answer = member.client().submit(&job).unwrap();
    assert!(answer.accepted(), "{answer:?}");
    std::thread::sleep(Duration::from_millis(500));
    member.hpc_takes_everything();
    std::thread::sleep(Duration::from_secs(3));
    let context = member.log();
    squatter.assert_heard_none(&[TOKEN, SECRET, "1000.42", "/v1/datacenter"], &context);
    assert!(context.contains("refusing to send anything"), "{context}");
}

#[test]
fn a_user_on_a_stopped_members_address_receives_nothing_and_the_broker_says_so() {
    if !privileged() {
        return;
    }
    let uid_b = uid_of(USER_B).unwrap();
    let allow_b = format!(", on_behalf_of: {{allow: [{uid_b}]}}");
    let broker = Node::broker();
    let to_broker = broker.socket().display().to_string();
    // Two idle members the broker ranks first: one on loopback TCP, one on
    // a Unix socket in a directory every user may write (as /tmp); and one
    // busy member, ranked last.
    let port = free_port();
    let mut on_tcp = Node::member(
        &to_broker,
        &format!("http://{port}"),
        &format!(", listen: '{port}'"),
        &allow_b,
    );
    let mut busy = Node::member(&to_broker, "{d}/d.sock", "", &allow_b);
    busy.hpc_takes_everything();
    let broker_ref = &broker;
    let heard = |count: usize| {
        move || {
            broker_ref
                .client()
                .members()
                .is_ok_and(|list| list.members.len() == count)
        }
    };
    until("the broker hears two members", Duration::from_secs(10), heard(2));
    // The member on TCP, a root daemon, proves itself: the broker forwards to it.
    let (status, body) = broker.submit_as(USER_B, &secret_job("1000.1"));
    assert_eq!(status, 200, "{body}\n{}", broker.log());
    assert!(body.contains("accepted") && body.contains(&port), "{body}");
    let shared = tempfile::tempdir().unwrap();
    std::fs::set_permissions(shared.path(), std::fs::Permissions::from_mode(0o1777)).unwrap();
    let shared_socket = shared.path().join("m.sock");
    let mut on_unix = Node::member(&to_broker, &shared_socket.display().to_string(), "", &allow_b);
    until(
        "the broker hears three members",
        Duration::from_secs(10),
        heard(3),
    );

    // Both idle members die; their tuples stay fresh. User A takes their addresses.
    on_tcp.kill();
    on_unix.kill();
    // A daemon stopped cleanly removes its socket; this one was killed.
    std::fs::remove_file(&shared_socket).unwrap();
    let squatters = [
        Squatter::bind(USER_A, &port),
        Squatter::bind(USER_A, &shared_socket.display().to_string()),
    ];
    // B's job goes past them to the busy member, which takes it; A hears nothing.
    let (status, body) = broker.submit_as(USER_B, &secret_job("1000.2"));
    let context = format!("{body}\n{}", broker.log());
    for squatter in &squatters {
        squatter.assert_heard_none(&[TOKEN, SECRET, "1000.2"], &context);
    }
    assert_eq!(status, 200, "{context}");
    let answer: serde_json::Value = serde_json::from_str(&body).unwrap();
    assert_eq!(answer["decision"], "accepted", "{context}");
    assert_eq!(
        answer["member"].as_str(),
        Some(busy.socket().display().to_string().as_str()),
        "{context}"
    );
    // With no member left that proves itself, the job is not placed, and B is told so.
    busy.kill();
    let (status, body) = broker.submit_as(USER_B, &secret_job("1000.3"));
    let context = format!("{body}\n{}", broker.log());
    for squatter in &squatters {
        squatter.assert_heard_none(&[TOKEN, SECRET, "1000.3"], &context);
    }
    assert_eq!(status, 503, "{context}");
    assert!(
        body.contains("not placed") && !body.contains("accepted"),
        "{context}"
    );
}

#[test]
fn on_behalf_of_never_names_root_or_a_system_user_unless_the_rule_lists_it() {
    if !privileged() {
        return;
    }
    let uid_b = uid_of(USER_B).unwrap();
    let member = Node::member("/nonexistent/broker.sock", "{d}/d.sock", "", "");
    let listed = Node::member(
        "/nonexistent/broker.sock",
        "{d}/d.sock",
        "",
        &format!(", on_behalf_of: {{allow: [{uid_b}], deny: [65534]}}"),
    );
    // Root (a broker over the Unix socket) names root, `daemon` (uid 1),
    // and B (a system user, created with useradd --system): all refused by
    // the default rule, naming it.
    for uid in [0, 1, uid_b] {
        let mut job = SubmitRequest::new(&["/bin/true"], 1, 30.0, 1000.0);
        job.on_behalf_of = Some(uid);
        let refused = member.client().submit(&job).unwrap_err().to_string();
        assert!(refused.contains("403"), "uid {uid}: {refused}");
        assert!(
            refused.contains("datacenter.on_behalf_of"),
            "uid {uid}: {refused}"
        );
        let jobs = member.client().jobs().unwrap().jobs;
        assert!(jobs.is_empty(), "uid {uid}: {jobs:?}");
    }
    // A rule that lists B lets the broker name B (and only B); a denied uid stays refused.
    let mut job = SubmitRequest::new(&["/bin/true"], 1, 30.0, 1000.0);
    job.on_behalf_of = Some(uid_b);
    assert!(listed.client().submit(&job).unwrap().accepted());
    assert_eq!(listed.client().jobs().unwrap().jobs[0].owner_uid, Some(uid_b));
    for uid in [0, 1, 65534] {
        job.on_behalf_of = Some(uid);
        let refused = listed.client().submit(&job).unwrap_err().to_string();
        assert!(
            refused.contains("403") && refused.contains("datacenter.on_behalf_of"),
            "{refused}"
        );
    }
    // A user may not name anyone else at all.
    let (status, body) = member.submit_as(
        USER_B,
        r#"{"procs":1,"walltime":30,"slo":1000,"argv":["/bin/true"],"on_behalf_of":0}"#,
    );
    assert_eq!(status, 403, "{body}");
}

/// A self-signed certificate and its key (`openssl req`), in a directory
/// every user may read (a squatter's own identity must be readable by it).
struct Identity {
    _dir: tempfile::TempDir,
    certificate: PathBuf,
    key: PathBuf,
    /// Its SHA-256 fingerprint as `openssl x509 -fingerprint -sha256` prints it.
    pin: String,
}

impl Identity {
    fn new() -> Identity {
        let dir = tempfile::tempdir().unwrap();
        std::fs::set_permissions(dir.path(), std::fs::Permissions::from_mode(0o755)).unwrap();
        let (certificate, key) = (dir.path().join("cert.pem"), dir.path().join("key.pem"));
        let made = Command::new("openssl")
            .args([
                "req",
                "-x509",
                "-newkey",
                "ec",
                "-pkeyopt",
                "ec_paramgen_curve:prime256v1",
                "-nodes",
            ])
            .args(["-days", "1", "-subj", "/CN=interstice-test", "-keyout"])
            .arg(&key)
            .arg("-out")
            .arg(&certificate)
            .output()
            .unwrap();
        assert!(made.status.success(), "{made:?}");
        let printed = Command::new("openssl")
            .args(["x509", "-noout", "-fingerprint", "-sha256", "-in"])
            .arg(&certificate)
            .output()
            .unwrap();
        let pin = String::from_utf8(printed.stdout).unwrap().trim().to_string();
        Identity {
            _dir: dir,
            certificate,
            key,
            pin,
        }
    }

    /// This identity as `api.tls`, its key readable by root only.
    fn api_tls(&self) -> String {
        std::fs::set_permissions(&self.key, std::fs::Permissions::from_mode(0o600)).unwrap();
        format!(
            ", tls: {{certificate: '{}', key: '{}'}}",
            self.certificate.display(),
            self.key.display()
        )
    }

    /// An identity whose certificate expired yesterday (made by rcgen:
    /// `openssl req` cannot date one in the past).
    fn expired() -> Identity {
        let dir = tempfile::tempdir().unwrap();
        std::fs::set_permissions(dir.path(), std::fs::Permissions::from_mode(0o755)).unwrap();
        let (certificate, key) = (dir.path().join("cert.pem"), dir.path().join("key.pem"));
        let pair = rcgen::KeyPair::generate().unwrap();
        let mut params = rcgen::CertificateParams::new(vec!["interstice-test".to_string()]).unwrap();
        let now = std::time::SystemTime::now();
        params.not_before = (now - Duration::from_secs(30 * 86_400)).into();
        params.not_after = (now - Duration::from_secs(86_400)).into();
        let made = params.self_signed(&pair).unwrap();
        std::fs::write(&certificate, made.pem()).unwrap();
        std::fs::write(&key, pair.serialize_pem()).unwrap();
        let pin = interstice_api::tls::pin_text(&interstice_api::tls::fingerprint(made.der()));
        Identity {
            _dir: dir,
            certificate,
            key,
            pin,
        }
    }

    /// A squatter's own identity: readable by the squatter.
    fn readable(&self) -> &Identity {
        std::fs::set_permissions(&self.key, std::fs::Permissions::from_mode(0o644)).unwrap();
        self
    }
}

/// The finding: an expired pinned certificate was accepted silently. The
/// pin still trusts it (its key, not its dates), and both ends now say so:
/// its holder at start, the daemon that pins it once.
#[test]
fn a_pinned_certificate_past_its_dates_is_accepted_and_said_by_both_ends() {
    if !privileged() {
        return;
    }
    let (broker_id, member_id) = (Identity::expired(), Identity::new());
    let (to_broker, to_member) = (free_port(), free_port());
    let broker = Node::tls_broker(&to_broker, &broker_id, &member_id.pin);
    let member = Node::member(
        &format!("https://{to_broker}"),
        &format!("https://{to_member}"),
        &format!(", listen: '{to_member}'{}", member_id.api_tls()),
        &format!(", tls_pins: ['{}']", broker_id.pin),
    );
    broker.hears_one_member("over TLS");
    // Several publications later, the member has said it once.
    std::thread::sleep(Duration::from_secs(1));
    let (broker_log, member_log) = (broker.log(), member.log());
    assert!(
        broker_log.contains("api.tls.certificate") && broker_log.contains("expired on"),
        "{broker_log}"
    );
    assert_eq!(
        member_log.matches("a pinned daemon's certificate").count(),
        1,
        "{member_log}"
    );
    assert!(member_log.contains("expired on"), "{member_log}");
}

#[test]
fn across_hosts_tls_with_pins_sends_the_token_only_to_the_pinned_daemons() {
    if !privileged() {
        return;
    }
    let uid_b = uid_of(USER_B).unwrap();
    let (broker_id, member_id, squatter_id) = (Identity::new(), Identity::new(), Identity::new());
    let (to_broker, to_member) = (free_port(), free_port());
    // The broker serves TLS on its TCP listener and pins the member's
    // certificate; the member pins the broker's. Both over https://.
    let mut broker = Node::tls_broker(&to_broker, &broker_id, &member_id.pin);
    let member_dc = format!(
        ", on_behalf_of: {{allow: [{uid_b}]}}, tls_pins: ['{}']",
        broker_id.pin
    );
    let member_api = format!(", listen: '{to_member}'{}", member_id.api_tls());
    let mut member = Node::member(
        &format!("https://{to_broker}"),
        &format!("https://{to_member}"),
        &member_api,
        &member_dc,
    );
    // The member's tuples reach the broker over TLS with the token, and the
    // broker's forward reaches the member the same way.
    broker.hears_one_member("over TLS");
    let (status, body) = broker.submit_as(USER_B, &secret_job("1000.5"));
    assert_eq!(status, 200, "{body}\n{}\n{}", broker.log(), member.log());
    assert!(
        body.contains("accepted") && body.contains(&format!("https://{to_member}")),
        "{body}"
    );

    // The member dies; A serves TLS on its port with a certificate of its own.
    member.kill();
    let at_member = Squatter::bind_tls(USER_A, &to_member, Some(squatter_id.readable()));
    let (status, body) = broker.submit_as(USER_B, &secret_job("1000.6"));
    let context = format!("{body}\n{}", broker.log());
    at_member.assert_heard_none(&[TOKEN, SECRET, "1000.6"], &context);
    assert_eq!(status, 503, "{context}");
    assert!(context.contains("not one of the pinned"), "{context}");

    // The broker dies; A takes its port (TLS with its own certificate, then
    // plain TCP): a member publishing there sends it nothing.
    broker.kill();
    for identity in [Some(&squatter_id), None] {
        let at_broker = Squatter::bind_tls(USER_A, &to_broker, identity);
        let fresh = Node::member(&format!("https://{to_broker}"), "{d}/d.sock", "", &member_dc);
        std::thread::sleep(Duration::from_secs(2));
        let log = fresh.log();
        at_broker.assert_heard_none(&[TOKEN, "/v1/datacenter"], &log);
        assert!(log.contains("refusing to send anything"), "{log}");
    }
}
