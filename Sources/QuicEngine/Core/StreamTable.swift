/// A connection's open streams by id. A connection has a handful (chat and presence, a few file
/// streams; the peer may open at most `maxBidirectionalStreams` at once), and every write and
/// every ACK looks one up: a short array searched from the front beats hashing the id.
struct StreamTable {
    private var streams: [StreamState] = []

    subscript(id: QuicStreamID) -> StreamState? {
        get {
            for stream in streams where stream.id == id { return stream }
            return nil
        }
        set {
            if let index = streams.firstIndex(where: { $0.id == id }) {
                if let newValue { streams[index] = newValue } else { streams.remove(at: index) }
            } else if let newValue {
                streams.append(newValue)
            }
        }
    }

    mutating func removeValue(forKey id: QuicStreamID) -> StreamState? {
        guard let index = streams.firstIndex(where: { $0.id == id }) else { return nil }
        return streams.remove(at: index)
    }

    mutating func removeAll() { streams.removeAll() }

    var count: Int { streams.count }
}
