internal import CQuic
import Digest

/// Stateless reset tokens (RFC 9000 section 10.3): a pseudo-random function of the connection
/// ID under the endpoint's secret, so a restarted server with the same key computes the same
/// token for an old connection ID.
///
/// The function is AES-128 CBC-MAC over one fixed 32-byte block pair (length, ID, zero padding),
/// which is a PRF for inputs of one fixed length. ngtcp2's HKDF-based generator did the same job
/// with about 45,000 instructions a token, four tokens a connection (5% of a handshake).
final class StatelessResetTokens {
    static let tokenLength = Int(NGTCP2_STATELESS_RESET_TOKENLEN)
    private let cipher: gnutls_cipher_hd_t
    private var zeroIV = [UInt8](repeating: 0, count: 16)

    init(secret: [UInt8]) throws {
        // A key of its own for this use, not the shared secret itself.
        var material = secret + Array("qchat stateless reset token key v1".utf8)
        var digest = SHA256.digest(of: material)
        material.removeAll()
        guard digest.count == SHA256.digestLength else { throw QuicError.tls(function: "gnutls_hash_init", message: "out of memory") }
        var handle: gnutls_cipher_hd_t?
        var iv = [UInt8](repeating: 0, count: 16)
        let result = digest.withUnsafeMutableBytes { key in
            iv.withUnsafeMutableBytes { iv in
                var keyDatum = gnutls_datum_t(data: key.baseAddress!.assumingMemoryBound(to: UInt8.self), size: 16)
                var ivDatum = gnutls_datum_t(data: iv.baseAddress!.assumingMemoryBound(to: UInt8.self), size: 16)
                return gnutls_cipher_init(&handle, GNUTLS_CIPHER_AES_128_CBC, &keyDatum, &ivDatum)
            }
        }
        digest = [UInt8](repeating: 0, count: 32)
        guard result == 0, let handle else { throw QuicError.tls(function: "gnutls_cipher_init", message: TLSCredentials.errorText(result)) }
        cipher = handle
    }

    deinit { gnutls_cipher_deinit(cipher) }

    func token(for id: ConnectionID) -> [UInt8] {
        var block = [UInt8](repeating: 0, count: 32)
        var cid = id.ngtcp2
        block[0] = UInt8(cid.datalen)
        withUnsafeBytes(of: &cid.data) { bytes in
            for index in 0..<min(cid.datalen, 20) { block[1 + index] = bytes[index] }
        }
        var output = [UInt8](repeating: 0, count: 32)
        zeroIV.withUnsafeMutableBytes { gnutls_cipher_set_iv(cipher, $0.baseAddress, 16) }
        _ = block.withUnsafeBytes { input in
            output.withUnsafeMutableBytes { gnutls_cipher_encrypt2(cipher, input.baseAddress, 32, $0.baseAddress, 32) }
        }
        return Array(output[16..<32])
    }
}
