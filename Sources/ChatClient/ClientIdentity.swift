import QuicEngine

/// chat-client's identity of its own (PROTOCOL.md section 7): a key and a self-signed certificate
/// in one PEM file, made on first start and presented on every connection, so that once the
/// account is registered (which binds it) the person is logged in from then on, as with an SSH key.
enum ClientIdentity {
    /// The identity at `path`, made there first when there is none (the directory 0700, the file
    /// 0600). Returns its SHA-256 fingerprint.
    static func ensure(at path: String) throws -> String {
        try TLSIdentity.ensureFile(at: path, commonName: "qchat-client", purpose: .client)
    }
}
