//! Who is on the other end of a connection to a daemon, from the kernel:
//! the peer's credentials on a Unix socket (`SO_PEERCRED`), the socket
//! tables (`/proc/net/tcp`, `/proc/net/tcp6`) for a loopback TCP connection.
//!
//! The data center's daemons prove each other with it before they send a
//! token or a job ([`PeerRule`]): a local user who binds a stopped daemon's
//! socket path or port is not root nor the daemons' uid, and is refused.

use std::net::{IpAddr, SocketAddr};
use std::os::unix::net::UnixStream;

/// Whom a client sends anything to: a listener owned by one of `uids` (on
/// a Unix socket, or over TCP on this host); a peer on another host cannot
/// prove itself over plain TCP, and gets nothing unless `unproven_remote`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PeerRule {
    /// The uids a daemon may run as: root and the daemons' own uid.
    pub uids: Vec<u32>,
    /// Send to a TCP peer on another host without proof (the admin's choice,
    /// `datacenter.allow_unproven_remote`).
    pub unproven_remote: bool,
}

impl PeerRule {
    /// Root and `daemon_uid` (by default the uid this process runs as).
    pub fn daemons(daemon_uid: Option<u32>) -> PeerRule {
        let own = daemon_uid.unwrap_or_else(|| nix::unistd::geteuid().as_raw());
        let mut uids = vec![0, own];
        uids.dedup();
        PeerRule {
            uids,
            unproven_remote: false,
        }
    }

    fn allows(&self, uid: u32) -> bool {
        self.uids.contains(&uid)
    }

    fn names(&self) -> String {
        let uids: Vec<String> = self.uids.iter().map(u32::to_string).collect();
        format!("uid {}", uids.join(" or "))
    }

    /// The peer of a connected Unix socket is one of the daemons' uids;
    /// else why not.
    pub fn check_unix(&self, stream: &UnixStream) -> Result<(), String> {
        let credentials = nix::sys::socket::getsockopt(stream, nix::sys::socket::sockopt::PeerCredentials)
            .map_err(|err| format!("its peer's credentials cannot be read ({err})"))?;
        let uid = credentials.uid();
        if self.allows(uid) {
            Ok(())
        } else {
            Err(format!(
                "the process listening there runs as uid {uid}, not as a daemon ({}): another user's socket",
                self.names()
            ))
        }
    }

    /// The listener of a TCP connection from `local` to `peer` is a
    /// daemon's: on this host, the kernel's tables name the owner of the
    /// connection's server end and of every listener on its address and
    /// port; on another host, only `unproven_remote` lets it pass.
    pub fn check_tcp(&self, local: SocketAddr, peer: SocketAddr) -> Result<(), String> {
        let peer = canonical(peer);
        if !is_this_host(peer.ip()) {
            return if self.unproven_remote {
                Ok(())
            } else {
                Err(format!(
                    "{peer} is on another host, which cannot prove itself over plain TCP; use a Unix socket \
                     on one host, or set datacenter.allow_unproven_remote: true on a network you trust"
                ))
            };
        }
        let sockets = tcp_sockets();
        let local = canonical(local);
        let server_end = sockets
            .iter()
            .find(|socket| socket.local == peer && socket.remote == Some(local))
            .ok_or_else(|| {
                format!("the kernel's socket tables do not show who accepted the connection to {peer}")
            })?;
        let listeners = sockets.iter().filter(|socket| {
            socket.remote.is_none()
                && socket.local.port() == peer.port()
                && (socket.local.ip() == peer.ip() || socket.local.ip().is_unspecified())
        });
        for socket in std::iter::once(server_end).chain(listeners) {
            if !self.allows(socket.uid) {
                return Err(format!(
                    "the process listening on {peer} runs as uid {}, not as a daemon ({}): another user's port",
                    socket.uid,
                    self.names()
                ));
            }
        }
        Ok(())
    }
}

/// An address of this host: loopback, or one of its own (a connection to
/// it is in this host's socket tables).
fn is_this_host(ip: IpAddr) -> bool {
    ip.is_loopback() || std::net::UdpSocket::bind(SocketAddr::new(ip, 0)).is_ok()
}

/// One row of the kernel's TCP socket tables.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TcpSocket {
    /// Its local end (IPv4-mapped IPv6 addresses as IPv4).
    pub local: SocketAddr,
    /// Its remote end; `None` for a listener.
    pub remote: Option<SocketAddr>,
    /// The uid owning it (an accepted socket: the acceptor's).
    pub uid: u32,
}

/// Every TCP socket of this host's network namespace, IPv4 and IPv6;
/// empty where the tables cannot be read.
pub fn tcp_sockets() -> Vec<TcpSocket> {
    ["/proc/net/tcp", "/proc/net/tcp6"]
        .iter()
        .filter_map(|table| std::fs::read_to_string(table).ok())
        .flat_map(|text| parse_table(&text))
        .collect()
}

/// The uid owning the socket whose local end is `own` and remote end
/// `remote` (the other end of a loopback connection), if any.
pub fn owner_of(own: SocketAddr, remote: SocketAddr) -> Option<u32> {
    let (own, remote) = (canonical(own), canonical(remote));
    tcp_sockets()
        .into_iter()
        .find(|socket| socket.local == own && socket.remote == Some(remote))
        .map(|socket| socket.uid)
}

/// The rows of a `/proc/net/tcp{,6}` table (its header skipped, bad rows left out).
pub fn parse_table(text: &str) -> Vec<TcpSocket> {
    /// The kernel's state number of a listener.
    const LISTEN: &str = "0A";
    text.lines()
        .skip(1)
        .filter_map(|line| {
            let fields: Vec<&str> = line.split_whitespace().collect();
            let local = proc_address(fields.get(1)?)?;
            let remote = proc_address(fields.get(2)?)?;
            let listening = fields.get(3)?.eq_ignore_ascii_case(LISTEN);
            Some(TcpSocket {
                local,
                remote: (!listening).then_some(remote),
                uid: fields.get(7)?.parse().ok()?,
            })
        })
        .collect()
}

/// An address as the kernel's tables write it: the address's 32-bit words
/// in host byte order, in hex, then `:` and the port in hex.
fn proc_address(text: &str) -> Option<SocketAddr> {
    let (address, port) = text.split_once(':')?;
    let port = u16::from_str_radix(port, 16).ok()?;
    let mut bytes = Vec::with_capacity(16);
    for chunk in address.as_bytes().chunks(8) {
        let word = u32::from_str_radix(std::str::from_utf8(chunk).ok()?, 16).ok()?;
        bytes.extend_from_slice(&word.to_ne_bytes());
    }
    let ip = match bytes.len() {
        4 => IpAddr::from(<[u8; 4]>::try_from(bytes).ok()?),
        16 => IpAddr::from(<[u8; 16]>::try_from(bytes).ok()?),
        _ => return None,
    };
    Some(canonical(SocketAddr::new(ip, port)))
}

/// IPv4-mapped IPv6 addresses (a dual-stack listener's IPv4 peers) as IPv4.
fn canonical(addr: SocketAddr) -> SocketAddr {
    match addr.ip() {
        IpAddr::V6(ip) => match ip.to_ipv4_mapped() {
            Some(v4) => SocketAddr::new(IpAddr::V4(v4), addr.port()),
            None => addr,
        },
        IpAddr::V4(_) => addr,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_socket_tables_name_each_ends_owner() {
        // 127.0.0.1:40000 → 127.0.0.1:9477, owned by uid 65534 (as the kernel writes it),
        // the server end by root, and root's listener on every address.
        let table = "  sl  local_address rem_address   st tx_queue rx_queue tr tm->when retrnsmt   uid  timeout inode\n\
                     0: 0100007F:9C40 0100007F:2505 01 00000000:00000000 00:00000000 00000000 65534        0 12345 1\n\
                     1: 0100007F:2505 0100007F:9C40 01 00000000:00000000 00:00000000 00000000     0        0 12346 1\n\
                     2: 00000000:2505 00000000:0000 0A 00000000:00000000 00:00000000 00000000     0        0 12347 1\n";
        let rows = parse_table(table);
        let peer: SocketAddr = "127.0.0.1:40000".parse().unwrap();
        let local: SocketAddr = "127.0.0.1:9477".parse().unwrap();
        assert_eq!(rows[0].local, peer);
        assert_eq!((rows[0].remote, rows[0].uid), (Some(local), 65534));
        assert_eq!((rows[1].remote, rows[1].uid), (Some(peer), 0));
        assert_eq!(rows[2].local, "0.0.0.0:9477".parse().unwrap());
        assert_eq!(rows[2].remote, None);
        let v6 = "  sl  local_address remote_address st …\n\
                  0: 00000000000000000000000001000000:2505 00000000000000000000000000000000:0000 0A 0 0 0 1000 0 1\n\
                  1: 0000000000000000FFFF00000100007F:2505 0000000000000000FFFF00000100007F:9C40 01 0 0 0 0 0 1\n";
        let rows = parse_table(v6);
        assert_eq!(rows[0].local, "[::1]:9477".parse().unwrap());
        assert_eq!((rows[0].remote, rows[0].uid), (None, 1000));
        assert_eq!(rows[1].local, local, "a mapped IPv4 address reads as IPv4");
        assert_eq!(rows[1].remote, Some(peer));
    }

    #[test]
    fn a_loopback_connection_proves_its_listener_and_a_remote_one_does_not() {
        let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        let client = std::net::TcpStream::connect(listener.local_addr().unwrap()).unwrap();
        let me = nix::unistd::geteuid().as_raw();
        let (local, peer) = (client.local_addr().unwrap(), client.peer_addr().unwrap());
        // Not yet accepted, then accepted: both times our own listener's.
        assert_eq!(PeerRule::daemons(None).check_tcp(local, peer), Ok(()));
        let (_server, _) = listener.accept().unwrap();
        assert_eq!(owner_of(peer, local), Some(me));
        assert_eq!(PeerRule::daemons(None).check_tcp(local, peer), Ok(()));
        let stranger = PeerRule {
            uids: vec![me + 1],
            unproven_remote: false,
        };
        let refused = stranger.check_tcp(local, peer).unwrap_err();
        assert!(refused.contains(&format!("runs as uid {me}")), "{refused}");
        let remote: SocketAddr = "192.0.2.1:9477".parse().unwrap();
        let refused = PeerRule::daemons(None).check_tcp(local, remote).unwrap_err();
        assert!(refused.contains("allow_unproven_remote"), "{refused}");
        let trusting = PeerRule {
            unproven_remote: true,
            ..PeerRule::daemons(None)
        };
        assert_eq!(trusting.check_tcp(local, remote), Ok(()));
    }

    #[test]
    fn a_unix_socket_proves_its_listener() {
        let (ours, _theirs) = UnixStream::pair().unwrap();
        assert_eq!(PeerRule::daemons(None).check_unix(&ours), Ok(()));
        let me = nix::unistd::geteuid().as_raw();
        let stranger = PeerRule {
            uids: vec![me + 1],
            unproven_remote: false,
        };
        assert!(stranger
            .check_unix(&ours)
            .unwrap_err()
            .contains(&format!("uid {me}")));
    }
}
