extension ProxyStatistics {
    /// One line of JSON with snake_case keys. Written by hand: the keys are fixed, the values
    /// are numbers and dotted addresses (nothing to escape), and the library avoids Foundation.
    public var jsonLine: String {
        var json = "{\"type\":\"stats\",\"seed\":\(seed),\"uptime_s\":\(uptime.seconds)"
        json += ",\"listen\":\"\(listenAddress)\",\"server\":\"\(serverAddress)\""
        json += ",\"rebinds\":\(rebinds),\"loop_wakeups\":\(loopWakeups)"
        json += ",\"up\":\(ProxyStatistics.json(up)),\"down\":\(ProxyStatistics.json(down)),\"clients\":["
        json += clients.map(ProxyStatistics.json).joined(separator: ",")
        json += "]}"
        return json
    }

    private static func json(_ direction: DirectionStatistics) -> String {
        "{\"received_packets\":\(direction.receivedPackets),\"received_bytes\":\(direction.receivedBytes)"
            + ",\"forwarded_packets\":\(direction.forwardedPackets),\"forwarded_bytes\":\(direction.forwardedBytes)"
            + ",\"dropped_packets\":\(direction.droppedPackets)"
            + ",\"dropped\":{\"loss\":\(direction.droppedByLoss),\"blackhole\":\(direction.droppedByBlackhole)"
            + ",\"queue_overflow\":\(direction.droppedByQueueOverflow),\"send_error\":\(direction.droppedBySendError)"
            + ",\"unknown_source\":\(direction.droppedFromUnknownSource)}"
            + ",\"duplicated\":\(direction.duplicated),\"corrupted\":\(direction.corrupted),\"reordered\":\(direction.reordered)"
            + ",\"queued_packets\":\(direction.queuedPackets),\"queued_bytes\":\(direction.queuedBytes)}"
    }

    private static func json(_ client: ClientStatistics) -> String {
        "{\"address\":\"\(client.address)\",\"upstream\":\"\(client.upstreamAddress)\""
            + ",\"up_packets\":\(client.upPackets),\"up_bytes\":\(client.upBytes)"
            + ",\"down_packets\":\(client.downPackets),\"down_bytes\":\(client.downBytes)"
            + ",\"up_forwarded_packets\":\(client.upForwardedPackets),\"up_forwarded_bytes\":\(client.upForwardedBytes)"
            + ",\"down_forwarded_packets\":\(client.downForwardedPackets),\"down_forwarded_bytes\":\(client.downForwardedBytes)"
            + ",\"rebinds\":\(client.rebinds)}"
    }
}
