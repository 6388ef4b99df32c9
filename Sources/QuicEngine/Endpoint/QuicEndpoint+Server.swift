internal import CQuic
import Glibc
import RuntimeCore

/// What a server endpoint does with packets no connection claims: new connections (with optional
/// Retry), Version Negotiation, and stateless resets.
extension QuicEndpoint {
    func accept(_ datagram: UnsafeRawBufferPointer, remote: SocketAddress, local: SocketAddress) {
        guard let server, let credentials = serverCredentials else { return }
        let bytes = datagram.baseAddress!.assumingMemoryBound(to: UInt8.self)
        var header = ngtcp2_pkt_hd()
        let verdict = ngtcp2_accept(&header, bytes, datagram.count)
        guard verdict == 0 else {
            if verdict == NGTCP2_ERR_RETRY { sendRetry(header, remote: remote, local: local) } else { statistics.undecodableDatagrams += 1 }
            return
        }
        let clientDestination = ConnectionID(header.dcid)
        if connections.count >= server.maxConnections {
            statistics.connectionsRefused += 1
            refuse(header, errorCode: UInt64(NGTCP2_CONNECTION_REFUSED), remote: remote, local: local)
            return
        }
        var originalDestination = clientDestination
        var retrySource: ConnectionID?
        // Hysteresis: a count hovering at the threshold would flip between Retry and accept from
        // one Initial to the next. (A retried client's own copies are retried above, whatever the count.)
        if handshakesInProgress >= server.retryAboveHandshakes {
            retryingUnderLoad = true
        } else if handshakesInProgress < server.retryAboveHandshakes / 2 {
            retryingUnderLoad = false
        }
        if header.token.len == 0, retriedDestinations.contains(clientDestination) {
            sendRetry(header, remote: remote, local: local)
            return
        }
        if server.requireRetry || retryingUnderLoad {
            guard let token = header.token.base, header.token.len > 0 else {
                sendRetry(header, remote: remote, local: local)
                return
            }
            guard token.pointee == UInt8(NGTCP2_CRYPTO_TOKEN_MAGIC_RETRY) else {
                sendRetry(header, remote: remote, local: local)
                return
            }
            var original = ngtcp2_cid()
            let valid = remote.withSockAddr { address, length in
                staticSecret.withUnsafeBufferPointer { secret in
                    ngtcp2_crypto_verify_retry_token(&original, token, header.token.len, secret.baseAddress, secret.count,
                                                     header.version, address, length, &header.dcid,
                                                     server.retryTokenLifetime.nanoseconds, now.nanoseconds)
                }
            }
            guard valid == 0 else {
                statistics.invalidTokens += 1
                refuse(header, errorCode: UInt64(NGTCP2_INVALID_TOKEN), remote: remote, local: local)
                return
            }
            originalDestination = ConnectionID(original)
            retrySource = clientDestination
        }
        // After the Retry check: under Retry, only a validated address can use up its quota.
        let countedAddress = server.addressLimitExemptions.contains { $0.contains(remote) } ? nil : remote.clientKey
        if let countedAddress, connectionsPerAddress[countedAddress, default: 0] >= server.maxConnectionsPerAddress {
            statistics.connectionsRefused += 1
            statistics.connectionsRefusedPerAddress += 1
            refuse(header, errorCode: UInt64(NGTCP2_CONNECTION_REFUSED), remote: remote, local: local)
            return
        }
        let source = ConnectionID.random(length: QuicEndpoint.connectionIDLength, from: random)
        let connection = QuicConnection(endpoint: self, id: takeConnectionNumber(), isServer: true,
                                        configuration: server.connection, local: local, remote: remote)
        let identity = QuicConnection.Identity(destination: ConnectionID(header.scid), source: source,
                                               originalDestination: originalDestination, retrySource: retrySource,
                                               version: header.version)
        do {
            try connection.start(identity: identity, credentials: credentials, serverName: nil,
                                 statelessResetToken: statelessResetToken(for: source), token: nil)
        } catch {
            statistics.connectionsRefused += 1
            return
        }
        connections[connection.id] = connection
        route(source, to: connection)
        route(clientDestination, to: connection)
        // A forged or corrupted Initial (its header parses, its protection does not) makes
        // ngtcp2 drop the connection on its first datagram: forget it without a word to the
        // application, so garbage never looks like a client that came and went.
        connection.heldEvents = []
        connection.receive(datagram, local: local, remote: remote)
        let held = connection.heldEvents ?? []
        connection.heldEvents = nil
        if case .closed = connection.phase {
            statistics.initialsDropped += 1
            remove(connection)
            return
        }
        statistics.connectionsAccepted += 1
        if let countedAddress {
            connection.countedAddress = countedAddress
            connectionsPerAddress[countedAddress, default: 0] += 1
        }
        connection.countsAsHandshake = true
        handshakesInProgress += 1
        enqueue(.accepted, for: connection)
        for event in held { enqueue(event, for: connection) }
        afterCall(connection)
    }

    private func sendRetry(_ header: ngtcp2_pkt_hd, remote: SocketAddress, local: SocketAddress) {
        var header = header
        var retrySource = ConnectionID.random(length: QuicEndpoint.connectionIDLength, from: random).ngtcp2
        var token = [UInt8](repeating: 0, count: Int(CQUIC_MAX_RETRY_TOKENLEN))
        let tokenLength = remote.withSockAddr { address, length in
            staticSecret.withUnsafeBufferPointer { secret in
                ngtcp2_crypto_generate_retry_token(&token, secret.baseAddress, secret.count, header.version, address, length,
                                                   &retrySource, &header.dcid, now.nanoseconds)
            }
        }
        guard tokenLength > 0 else { return }
        var packet = [UInt8](repeating: 0, count: Int(NGTCP2_MAX_UDP_PAYLOAD_SIZE))
        let written = packet.withUnsafeMutableBufferPointer { buffer in
            ngtcp2_crypto_write_retry(buffer.baseAddress, buffer.count, header.version, &header.scid, &retrySource,
                                      &header.dcid, token, Int(tokenLength))
        }
        guard written > 0 else { return }
        retriedDestinations.insert(ConnectionID(header.dcid))
        statistics.retriesSent += 1
        statelessPackets.append((Array(packet[..<Int(written)]), remote, local))
    }

    /// An Initial carrying CONNECTION_CLOSE, for a client we will not serve.
    private func refuse(_ header: ngtcp2_pkt_hd, errorCode: UInt64, remote: SocketAddress, local: SocketAddress) {
        var header = header
        var packet = [UInt8](repeating: 0, count: Int(NGTCP2_MAX_UDP_PAYLOAD_SIZE))
        let written = packet.withUnsafeMutableBufferPointer { buffer in
            ngtcp2_crypto_write_connection_close(buffer.baseAddress, buffer.count, header.version, &header.scid,
                                                 &header.dcid, errorCode, nil, 0)
        }
        guard written > 0 else { return }
        statelessPackets.append((Array(packet[..<Int(written)]), remote, local))
    }

    func sendVersionNegotiation(_ header: ngtcp2_version_cid, datagramSize: Int, remote: SocketAddress, local: SocketAddress) {
        // Only a datagram as large as a real Initial earns an answer (RFC 9000 section 6.1), so
        // the reply never amplifies.
        guard datagramSize >= Int(NGTCP2_MAX_UDP_PAYLOAD_SIZE) else { return }
        var packet = [UInt8](repeating: 0, count: 256)
        var supported: [UInt32] = [NGTCP2_PROTO_VER_V1]
        let written = packet.withUnsafeMutableBufferPointer { buffer in
            ngtcp2_pkt_write_version_negotiation(buffer.baseAddress, buffer.count, UInt8(truncatingIfNeeded: random.next()),
                                                 header.scid, header.scidlen, header.dcid, header.dcidlen,
                                                 &supported, supported.count)
        }
        guard written > 0 else { return }
        statistics.versionNegotiationsSent += 1
        statelessPackets.append((Array(packet[..<Int(written)]), remote, local))
    }

    /// Answers a short-header packet for an unknown connection ID so that a peer whose server
    /// state was lost learns it at once instead of waiting for its idle timeout.
    func sendStatelessReset(for destination: ConnectionID, datagramSize: Int, remote: SocketAddress, local: SocketAddress) {
        statistics.unroutableDatagrams += 1
        guard let server else { return }
        // The reset must be shorter than what triggered it (no loops between two endpoints) and
        // carry at least 5 random bytes and the 16-byte token. An idle client's keep-alive PING
        // is about 40 bytes: it must still earn a reset, or that client learns of the restart
        // only at its idle timeout.
        let minimumTrigger = 1 + Int(NGTCP2_MIN_STATELESS_RESET_RANDLEN) + Int(NGTCP2_STATELESS_RESET_TOKENLEN) + 1
        guard datagramSize >= minimumTrigger else { return }
        let second = now.nanoseconds / 1_000_000_000
        if statelessResetBudget.second != second { statelessResetBudget = (second, 0) }
        guard statelessResetBudget.used < server.statelessResetsPerSecond else { return }
        statelessResetBudget.used += 1
        let token = statelessResetToken(for: destination)
        let randomLength = min(datagramSize - 1 - Int(NGTCP2_STATELESS_RESET_TOKENLEN) - 1, 40)
        let padding = random.bytes(randomLength)
        var packet = [UInt8](repeating: 0, count: randomLength + 64)
        let written = packet.withUnsafeMutableBufferPointer { buffer in
            ngtcp2_pkt_write_stateless_reset(buffer.baseAddress, buffer.count, token, padding, padding.count)
        }
        guard written > 0 else { return }
        statistics.statelessResetsSent += 1
        statelessPackets.append((Array(packet[..<Int(written)]), remote, local))
    }
}
