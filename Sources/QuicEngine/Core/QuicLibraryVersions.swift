internal import CQuic

/// The versions of the C libraries this process runs with (not the headers it was built
/// against), for `--version` and the metrics' build information.
public enum QuicLibraryVersions {
    /// ngtcp2's own version string, such as `0.12.1`.
    public static var ngtcp2: String {
        guard let info = ngtcp2_version(0), let text = info.pointee.version_str else { return "unknown" }
        return String(cString: text)
    }

    /// GnuTLS's version string, such as `3.7.9`.
    public static var gnutls: String {
        guard let text = gnutls_check_version(nil) else { return "unknown" }
        return String(cString: text)
    }

    /// Both, as `--version` lists them.
    public static var all: [(name: String, version: String)] {
        [("ngtcp2", ngtcp2), ("GnuTLS", gnutls)]
    }
}
