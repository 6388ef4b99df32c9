internal import CQuic
import Glibc

extension QuicConnection {
    struct Identity {
        var destination: ConnectionID
        var source: ConnectionID
        var originalDestination: ConnectionID?
        var retrySource: ConnectionID?
        var version: UInt32
    }

    /// Creates the ngtcp2 connection and its TLS session.
    func start(identity: Identity, credentials: TLSCredentials, serverName: String?,
               statelessResetToken: [UInt8]?, token: [UInt8]?) throws {
        var settings = ngtcp2_settings()
        cquic_settings_default(&settings)
        settings.initial_ts = now.nanoseconds
        settings.cc_algo = NGTCP2_CC_ALGO_CUBIC
        settings.max_tx_udp_payload_size = configuration.maxUDPPayloadSize
        settings.handshake_timeout = configuration.handshakeTimeout.nanoseconds
        settings.max_window = configuration.maxConnectionWindow
        settings.max_stream_window = configuration.maxStreamWindow

        var params = ngtcp2_transport_params()
        cquic_transport_params_default(&params)
        params.initial_max_data = configuration.initialMaxData
        params.initial_max_stream_data_bidi_local = configuration.initialMaxStreamData
        params.initial_max_stream_data_bidi_remote = configuration.initialMaxStreamData
        params.initial_max_stream_data_uni = 0
        params.initial_max_streams_bidi = configuration.maxBidirectionalStreams
        params.initial_max_streams_uni = 0
        params.max_idle_timeout = configuration.idleTimeout.nanoseconds
        params.max_datagram_frame_size = configuration.maxDatagramFrameSize
        params.active_connection_id_limit = configuration.activeConnectionIDLimit
        if let original = identity.originalDestination { params.original_dcid = original.ngtcp2 }
        if let retry = identity.retrySource {
            params.retry_scid = retry.ngtcp2
            params.retry_scid_present = 1
        }
        if let resetToken = statelessResetToken {
            params.stateless_reset_token_present = 1
            withUnsafeMutableBytes(of: &params.stateless_reset_token) { $0.copyBytes(from: resetToken) }
        }

        var callbacks = QuicConnection.callbacks(isServer: isServer)
        var destination = identity.destination.ngtcp2
        var source = identity.source.ngtcp2
        let userData = Unmanaged.passUnretained(self).toOpaque()
        guard let memory else { throw QuicError.library(function: "cquic_conn_memory_new", code: 0, message: "out of memory") }
        var created: OpaquePointer?
        let result: Int32 = (token ?? []).withUnsafeBufferPointer { tokenBytes in
            if let base = tokenBytes.baseAddress, !tokenBytes.isEmpty {
                settings.token = ngtcp2_vec(base: UnsafeMutablePointer(mutating: base), len: tokenBytes.count)
            }
            return endpoint.scratch.withPath(local: localAddress, remote: remoteAddress) { path in
                isServer
                    ? cquic_conn_server_new(&created, &destination, &source, path, identity.version,
                                            &callbacks, &settings, &params, memory, userData)
                    : cquic_conn_client_new(&created, &destination, &source, path, identity.version,
                                            &callbacks, &settings, &params, memory, userData)
            }
        }
        guard result == 0, let created else {
            throw QuicError.library(function: "ngtcp2_conn_new", code: result, message: QuicConnection.errorText(result))
        }
        raw = created
        let session = try TLSSession(isServer: isServer, credentials: credentials, config: configuration.tls,
                                     serverName: serverName, connectionRef: connectionRef)
        tls = session
        ngtcp2_conn_set_tls_native_handle(created, UnsafeMutableRawPointer(session.handle))
        if let keepAlive = configuration.keepAliveInterval {
            ngtcp2_conn_set_keep_alive_timeout(created, keepAlive.nanoseconds)
        }
    }

    static func errorText(_ code: Int32) -> String { String(cString: ngtcp2_strerror(code)) }
}
