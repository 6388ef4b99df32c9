/// The fast encoder. `type`, `text` and `sender` are always written, so a peer that only
/// knows `{text, type, sender}` can decode every message; nil fields are left out.
extension ChatMessage {
    /// The message as one stream frame: a JSON object followed by LF.
    public func encodedLine() -> [UInt8] {
        encoded(lineFeed: true)
    }

    /// The message as one datagram: a JSON object, no LF.
    public func encodedDatagram() -> [UInt8] {
        encoded(lineFeed: false)
    }

    private func encoded(lineFeed: Bool) -> [UInt8] {
        var counter = JSONWriter(JSONByteCounter())
        writeMembers(to: &counter)
        counter.endObject()
        let size = counter.sink.count + (lineFeed ? 1 : 0)
        return [UInt8](unsafeUninitializedCapacity: size) { buffer, initializedCount in
            var filler = JSONWriter(JSONBufferFiller(UnsafeMutableRawBufferPointer(buffer)))
            writeMembers(to: &filler)
            filler.endObject()
            if lineFeed { filler.sink.append(ASCII.lineFeed) }
            initializedCount = filler.sink.count
        }
    }

    /// Every member, without the closing brace (the object may be nested in `found`'s `events`).
    func writeMembers<Sink: JSONByteSink>(to writer: inout JSONWriter<Sink>) {
        writer.write("type", type)
        if let room { writer.write("room", room) }
        writer.write("sender", sender)
        writer.write("text", text)
        if let id { writer.write("id", id) }
        if let seq { writer.write("seq", seq) }
        if let ts { writer.write("ts", ts) }
        if let peer { writer.write("peer", peer) }
        if let to { writer.write("to", to) }
        if let since { writer.write("since", since) }
        if let before { writer.write("before", before) }
        if let limit { writer.write("limit", Int64(limit)) }
        if let members { writer.write("members", members) }
        if let code { writer.write("code", code) }
        if let replay { writer.write("replay", replay) }
        if let account { writer.write("account", account) }
        if let password { writer.write("password", password) }
        if let old { writer.write("old", old) }
        if let mode { writer.write("mode", mode) }
        if let topic { writer.write("topic", topic) }
        if let features { writer.write("features", features) }
        if let modes { writer.write("modes", modes) }
        if let ops { writer.write("ops", ops) }
        if let identified { writer.write("identified", identified) }
        if let rooms { writer.write("rooms", rooms) }
        if let file { writer.write("file", file) }
        if let size { writer.write("size", size) }
        if let sha256 { writer.write("sha256", sha256) }
        if let offset { writer.write("offset", offset) }
        if let stored { writer.write("stored", stored) }
        if let with { writer.write("with", with) }
        if let ref { writer.write("ref", ref) }
        if let read { writer.write("read", read) }
        if let conversations { writer.write("conversations", conversations) }
        if let edited { writer.write("edited", edited) }
        if let redacted { writer.write("redacted", redacted) }
        if let events { writer.write("events", events) }
        if let away { writer.write("away", away) }
    }
}
