//! TLS with pinned certificates, for a data center's daemons on several
//! hosts (`https://ADDR:PORT` endpoints): the client accepts a listener only
//! if its certificate's SHA-256 fingerprint is one of the pins it was given
//! and it proves, in the handshake, that it holds that certificate's private
//! key. No certificate authority, no host names: the pin list is the trust.
//! A squatter on the port, even one that copied the (public) certificate,
//! fails the handshake before a byte of the request or the token is sent.
//! The pins' spelling is always here; the handshake with the `tls` feature.

#[cfg(feature = "tls")]
use rustls::client::danger::{HandshakeSignatureValid, ServerCertVerified, ServerCertVerifier};
#[cfg(feature = "tls")]
use rustls::pki_types::{CertificateDer, ServerName, UnixTime};
#[cfg(feature = "tls")]
use rustls::{ClientConfig, ClientConnection, DigitallySignedStruct, SignatureScheme, StreamOwned};
#[cfg(feature = "tls")]
use std::net::TcpStream;
#[cfg(feature = "tls")]
use std::sync::Arc;

/// A certificate's SHA-256 fingerprint.
pub type Pin = [u8; 32];

/// The SHA-256 fingerprint of a DER certificate.
#[cfg(feature = "tls")]
pub fn fingerprint(certificate: &[u8]) -> Pin {
    let digest = ring::digest::digest(&ring::digest::SHA256, certificate);
    let mut pin = [0u8; 32];
    pin.copy_from_slice(digest.as_ref());
    pin
}

/// A fingerprint as `openssl x509 -noout -fingerprint -sha256` writes it
/// (`AB:CD:…`), which [`parse_pin`] reads back.
pub fn pin_text(pin: &Pin) -> String {
    let bytes: Vec<String> = pin.iter().map(|byte| format!("{byte:02X}")).collect();
    bytes.join(":")
}

/// A SHA-256 fingerprint written in hex, with or without `:` between the
/// bytes, optionally after `sha256:` or `SHA256 Fingerprint=`; else why not.
pub fn parse_pin(text: &str) -> Result<Pin, String> {
    let trimmed = text.trim();
    let hex = trimmed
        .strip_prefix("sha256 Fingerprint=")
        .or_else(|| trimmed.strip_prefix("SHA256 Fingerprint="))
        .or_else(|| trimmed.strip_prefix("sha256:"))
        .unwrap_or(trimmed);
    let digits: String = hex.chars().filter(|c| *c != ':').collect();
    let bad = || {
        format!(
            "{text:?} is not a SHA-256 fingerprint (64 hex digits, e.g. the output of \
             openssl x509 -noout -fingerprint -sha256 -in CERT)"
        )
    };
    if digits.len() != 64 || !digits.chars().all(|c| c.is_ascii_hexdigit()) {
        return Err(bad());
    }
    let mut pin = [0u8; 32];
    for (index, byte) in pin.iter_mut().enumerate() {
        *byte = u8::from_str_radix(&digits[2 * index..2 * index + 2], 16).map_err(|_| bad())?;
    }
    Ok(pin)
}

/// What to say of a DER certificate at `now` (Unix seconds) when it is out
/// of its dates: "expired on …" or "is not valid before …". `None` within
/// them, or when its dates cannot be read. A pinned certificate out of its
/// dates is still accepted (a pin trusts the key, whatever the dates say),
/// but its holder should renew it, and be told.
#[cfg(feature = "tls")]
pub fn out_of_dates(certificate: &[u8], now: i64) -> Option<String> {
    let (_, parsed) = x509_parser::parse_x509_certificate(certificate).ok()?;
    let validity = parsed.validity();
    if now > validity.not_after.timestamp() {
        Some(format!("expired on {}", validity.not_after))
    } else if now < validity.not_before.timestamp() {
        Some(format!("is not valid before {}", validity.not_before))
    } else {
        None
    }
}

/// The pins whose certificates were said to be out of their dates (once
/// per process each: a broker connects to its members all the time).
#[cfg(feature = "tls")]
static SAID_OUT_OF_DATES: std::sync::Mutex<Vec<Pin>> = std::sync::Mutex::new(Vec::new());

#[cfg(feature = "tls")]
fn warn_once(pin: Pin, dates: &str) {
    let mut said = SAID_OUT_OF_DATES
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner());
    if said.contains(&pin) {
        return;
    }
    said.push(pin);
    tracing::warn!(
        "a pinned daemon's certificate (SHA-256 {}) {dates}: it is still accepted (the pin trusts \
         its key, not its dates); renew it on that daemon and pin the new one",
        pin_text(&pin)
    );
}

/// Accepts a server certificate only if its fingerprint is pinned; the
/// handshake's signatures are checked as usual (proof of the private key).
#[cfg(feature = "tls")]
#[derive(Debug)]
struct Pinned {
    pins: Vec<Pin>,
    provider: Arc<rustls::crypto::CryptoProvider>,
}

#[cfg(feature = "tls")]
impl ServerCertVerifier for Pinned {
    fn verify_server_cert(
        &self,
        end_entity: &CertificateDer<'_>,
        _intermediates: &[CertificateDer<'_>],
        _server_name: &ServerName<'_>,
        _ocsp_response: &[u8],
        now: UnixTime,
    ) -> Result<ServerCertVerified, rustls::Error> {
        let pin = fingerprint(end_entity.as_ref());
        if self.pins.contains(&pin) {
            let now = i64::try_from(now.as_secs()).unwrap_or(i64::MAX);
            if let Some(dates) = out_of_dates(end_entity.as_ref(), now) {
                warn_once(pin, &dates);
            }
            Ok(ServerCertVerified::assertion())
        } else {
            Err(rustls::Error::General(format!(
                "its certificate (SHA-256 {}) is not one of the pinned ones",
                pin_text(&pin)
            )))
        }
    }

    fn verify_tls12_signature(
        &self,
        message: &[u8],
        cert: &CertificateDer<'_>,
        dss: &DigitallySignedStruct,
    ) -> Result<HandshakeSignatureValid, rustls::Error> {
        rustls::crypto::verify_tls12_signature(
            message,
            cert,
            dss,
            &self.provider.signature_verification_algorithms,
        )
    }

    fn verify_tls13_signature(
        &self,
        message: &[u8],
        cert: &CertificateDer<'_>,
        dss: &DigitallySignedStruct,
    ) -> Result<HandshakeSignatureValid, rustls::Error> {
        rustls::crypto::verify_tls13_signature(
            message,
            cert,
            dss,
            &self.provider.signature_verification_algorithms,
        )
    }

    fn supported_verify_schemes(&self) -> Vec<SignatureScheme> {
        self.provider
            .signature_verification_algorithms
            .supported_schemes()
    }
}

/// An open TLS connection to a pinned listener.
#[cfg(feature = "tls")]
pub type TlsStream = StreamOwned<ClientConnection, TcpStream>;

/// The TLS handshake over `tcp` (whose read and write timeouts bound it)
/// with a listener whose certificate is one of `pins`: the connection, or
/// why the listener did not prove itself (nothing was sent but the handshake).
#[cfg(feature = "tls")]
pub fn handshake(mut tcp: TcpStream, host: &str, pins: &[Pin]) -> Result<TlsStream, std::io::Error> {
    let provider = Arc::new(rustls::crypto::ring::default_provider());
    let verifier = Pinned {
        pins: pins.to_vec(),
        provider: provider.clone(),
    };
    let config = ClientConfig::builder_with_provider(provider)
        .with_safe_default_protocol_versions()
        .map_err(std::io::Error::other)?
        .dangerous()
        .with_custom_certificate_verifier(Arc::new(verifier))
        .with_no_client_auth();
    // The name is not checked (the pin is); an IP address or a name both do.
    let name = ServerName::try_from(host.to_string()).unwrap_or_else(|_| {
        ServerName::try_from("interstice.invalid".to_string()).expect("a valid DNS name")
    });
    let mut connection = ClientConnection::new(Arc::new(config), name).map_err(std::io::Error::other)?;
    while connection.is_handshaking() {
        connection.complete_io(&mut tcp)?;
    }
    Ok(StreamOwned::new(connection, tcp))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A self-signed certificate valid from `from` to `until` (Unix seconds), as DER.
    #[cfg(feature = "tls")]
    fn certificate(from: i64, until: i64) -> Vec<u8> {
        let key = rcgen::KeyPair::generate().unwrap();
        let mut params = rcgen::CertificateParams::new(vec!["interstice-test".to_string()]).unwrap();
        params.not_before = rcgen::date_time_ymd(1970, 1, 1) + std::time::Duration::from_secs(from as u64);
        params.not_after = rcgen::date_time_ymd(1970, 1, 1) + std::time::Duration::from_secs(until as u64);
        params.self_signed(&key).unwrap().der().to_vec()
    }

    /// The finding: an expired pinned certificate was accepted silently. It
    /// is still accepted (the pin is the trust), and now said, once.
    #[cfg(feature = "tls")]
    #[test]
    fn a_pinned_certificate_out_of_its_dates_is_accepted_and_said_once() {
        let day = 86_400;
        let now = 1_800_000_000;
        let expired = certificate(now - 30 * day, now - day);
        let early = certificate(now + day, now + 30 * day);
        let current = certificate(now - day, now + day);
        let said = out_of_dates(&expired, now).unwrap();
        assert!(said.starts_with("expired on "), "{said}");
        assert!(out_of_dates(&early, now)
            .unwrap()
            .starts_with("is not valid before "));
        assert_eq!(out_of_dates(&current, now), None);
        assert_eq!(out_of_dates(b"not a certificate", now), None);
        let verifier = Pinned {
            pins: vec![fingerprint(&expired)],
            provider: Arc::new(rustls::crypto::ring::default_provider()),
        };
        let name = ServerName::try_from("interstice.invalid").unwrap();
        let at = UnixTime::since_unix_epoch(std::time::Duration::from_secs(now as u64));
        for _ in 0..2 {
            let verified =
                verifier.verify_server_cert(&CertificateDer::from(expired.clone()), &[], &name, &[], at);
            assert!(verified.is_ok(), "{verified:?}");
        }
        let said = SAID_OUT_OF_DATES.lock().unwrap();
        assert_eq!(
            said.iter().filter(|pin| **pin == fingerprint(&expired)).count(),
            1
        );
    }

    #[test]
    fn a_fingerprint_is_the_sha256_of_the_der() {
        // echo -n abc | sha256sum
        assert_eq!(
            pin_text(&fingerprint(b"abc")),
            "BA:78:16:BF:8F:01:CF:EA:41:41:40:DE:5D:AE:22:23:B0:03:61:A3:96:17:7A:9C:B4:10:FF:61:F2:00:15:AD"
        );
    }

    #[test]
    fn pins_read_back_in_every_spelling_and_bad_ones_are_named() {
        let pin: Pin = std::array::from_fn(|index| (index * 7) as u8);
        let text = pin_text(&pin);
        assert_eq!(parse_pin(&text), Ok(pin));
        assert_eq!(parse_pin(&text.replace(':', "").to_lowercase()), Ok(pin));
        assert_eq!(parse_pin(&format!("sha256:{text}")), Ok(pin));
        assert_eq!(parse_pin(&format!("SHA256 Fingerprint={text}\n")), Ok(pin));
        for bad in ["", "AB:CD", &text[..text.len() - 1], &text.replace('A', "G")] {
            assert!(parse_pin(bad).unwrap_err().contains("SHA-256"), "{bad}");
        }
    }
}
