import ChatProtocol

/// The core's clock for what waits in it: the glue calls ``tick(now:)`` every second.
extension ChatServerState {
    /// How long rooms of a device that moved to another node wait for it to join them there.
    static let takeoverGraceMilliseconds: Int64 = 10_000

    /// Time passes (the glue calls this every second with a shared store): rooms left behind by
    /// devices that moved get their `left`.
    public func tick(now: Int64) -> [ServerAction] {
        var out: [ServerAction] = []
        leaveRoomsOfReplacedDevices(now: now, into: &out)
        refreshReceivingUploads(now: now, into: &out)
        notStoredWarnings.flush(now: now, into: &out)
        return out
    }

    /// An upload still arriving keeps its interrupted-upload record young in the store: another
    /// node's expiry (``ClusterLink/expirePartials``) cannot know it is being received.
    private func refreshReceivingUploads(now: Int64, into out: inout [ServerAction]) {
        let refreshAfter = configuration.partialUploadMilliseconds / 4
        for (key, upload) in activeUploads where now - upload.partial.updated >= refreshAfter {
            activeUploads[key]?.partial.updated = now
            try? files.savePartial(activeUploads[key]!.partial)
        }
        writeSharedPartials(into: &out)
    }

    private func leaveRoomsOfReplacedDevices(now: Int64, into out: inout [ServerAction]) {
        while let leftover = replacedLeftovers.first, leftover.deadline <= now {
            replacedLeftovers.removeFirst()
            let key = ChatValidation.nickKey(leftover.nick)
            record(leftover.rooms.map { room in
                RoomEventDraft(event: StoredEvent(room: room, seq: 0, ts: now, kind: .left, sender: leftover.nick, text: "replaced"),
                               purpose: .notice, membership: .removeIfHeld([key], by: .thisNode(peer: leftover.peer)))
            }, now: now, into: &out)
        }
    }
}
