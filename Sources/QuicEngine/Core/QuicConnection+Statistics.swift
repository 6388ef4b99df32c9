internal import CQuic
import RuntimeCore

/// Path and congestion figures for status bars and benchmarks.
public struct QuicConnectionStatistics: Sendable {
    public var smoothedRTT: TimeSpan
    public var minimumRTT: TimeSpan
    public var latestRTT: TimeSpan
    public var congestionWindow: UInt64
    public var bytesInFlight: UInt64
    public var maxUDPPayloadSize: Int
}

extension QuicConnection {
    public var statistics: QuicConnectionStatistics {
        guard let raw else {
            return QuicConnectionStatistics(smoothedRTT: .zero, minimumRTT: .zero, latestRTT: .zero,
                                            congestionWindow: 0, bytesInFlight: 0, maxUDPPayloadSize: 0)
        }
        var stat = ngtcp2_conn_stat()
        cquic_conn_get_conn_stat(raw, &stat)
        return QuicConnectionStatistics(
            smoothedRTT: TimeSpan(nanoseconds: stat.smoothed_rtt),
            minimumRTT: TimeSpan(nanoseconds: stat.min_rtt == .max ? 0 : stat.min_rtt),
            latestRTT: TimeSpan(nanoseconds: stat.latest_rtt),
            congestionWindow: stat.cwnd,
            bytesInFlight: stat.bytes_in_flight,
            maxUDPPayloadSize: Int(ngtcp2_conn_get_path_max_tx_udp_payload_size(raw)))
    }
}

extension QuicConnection {
    /// Packets carrying STREAM frames that ngtcp2 declared lost (spurious losses included):
    /// ngtcp2 0.12.1 counts losses per stream and no other way, and forgets a stream's count when
    /// the stream closes, so each stream's is sampled when one of its sides finishes.
    var lostStreamPackets: Int {
        guard let raw else { return lostPacketsOfClosedStreams }
        var lost = lostPacketsOfClosedStreams
        for stream in streams.ids { lost += ngtcp2_conn_get_stream_loss_count(raw, stream) }
        return lost
    }

    func sampleLosses(of streamID: QuicStreamID) {
        guard let raw, let stream = streams[streamID] else { return }
        stream.lostPackets = ngtcp2_conn_get_stream_loss_count(raw, streamID)
    }

    /// Bytes the peer lets us send now, on the whole connection (its MAX_DATA less what we sent).
    var connectionSendCredit: UInt64 {
        guard let raw else { return 0 }
        return ngtcp2_conn_get_max_data_left(raw)
    }

    /// Bytes the peer lets us send now on one stream (its MAX_STREAM_DATA less what we sent).
    func streamSendCredit(_ streamID: QuicStreamID) -> UInt64 {
        guard let raw else { return 0 }
        return ngtcp2_conn_get_max_stream_data_left(raw, streamID)
    }

    /// Client side: whether the server made us prove our address with a Retry first.
    public var usedRetry: Bool {
        guard let raw else { return false }
        return ngtcp2_conn_after_retry(raw) != 0
    }
}
