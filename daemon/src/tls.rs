//! The TCP listener over TLS (`api.tls`): the certificate and key the
//! daemon presents to a data center's daemons on other hosts, which pin the
//! certificate (`interstice_api::tls`). The key is refused, as the token
//! file is, when another user owns it or may read it.

use crate::config::TlsConfig;
use std::os::unix::fs::MetadataExt;
use std::sync::Arc;
use tokio_rustls::rustls::pki_types::pem::PemObject;
use tokio_rustls::rustls::pki_types::{CertificateDer, PrivateKeyDer};
use tokio_rustls::rustls::ServerConfig;
use tokio_rustls::TlsAcceptor;

/// The acceptor of `api.tls`, or what is wrong with its files (naming the key).
pub fn acceptor(config: &TlsConfig) -> Result<TlsAcceptor, String> {
    let certificate = &config.certificate;
    let chain = CertificateDer::pem_file_iter(certificate)
        .and_then(|certificates| certificates.collect::<Result<Vec<_>, _>>())
        .map_err(|err| format!("api.tls.certificate: {}: {err}", certificate.display()))?;
    if chain.is_empty() {
        return Err(format!(
            "api.tls.certificate: {} holds no PEM certificate",
            certificate.display()
        ));
    }
    let now = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |since| i64::try_from(since.as_secs()).unwrap_or(i64::MAX));
    if let Some(dates) = interstice_api::tls::out_of_dates(chain[0].as_ref(), now) {
        tracing::warn!(
            "api.tls.certificate: {} {dates}: the daemons that pin it still accept it (a pin \
             trusts the key, not the dates); renew it and give them its new pin",
            certificate.display()
        );
    }
    let key_path = &config.key;
    let meta =
        std::fs::metadata(key_path).map_err(|err| format!("api.tls.key: {}: {err}", key_path.display()))?;
    let me = nix::unistd::geteuid().as_raw();
    if meta.uid() != me || meta.mode() & 0o077 != 0 {
        return Err(format!(
            "api.tls.key: {} must be owned by the daemon's uid {me} with mode 0600 (it is uid {}, mode {:04o}); \
             whoever reads it can pass for this daemon",
            key_path.display(),
            meta.uid(),
            meta.mode() & 0o7777
        ));
    }
    let key = PrivateKeyDer::from_pem_file(key_path)
        .map_err(|err| format!("api.tls.key: {}: {err}", key_path.display()))?;
    let provider = Arc::new(tokio_rustls::rustls::crypto::ring::default_provider());
    let server = ServerConfig::builder_with_provider(provider)
        .with_safe_default_protocol_versions()
        .map_err(|err| format!("api.tls: {err}"))?
        .with_no_client_auth()
        .with_single_cert(chain, key)
        .map_err(|err| format!("api.tls: the certificate and key do not make a TLS identity: {err}"))?;
    Ok(TlsAcceptor::from(Arc::new(server)))
}
