import QuicEngine

/// Where a client connects next after a lost connection, and when (PROTOCOL.md sections 6 and
/// 10): the servers in the order they are tried, the one in use, those left out for the run, and
/// the backoff of the attempts since the last `welcome`. One copy for every client that comes
/// back: chat-client's ``ResilientSession`` and chat-bot's script bots and load clients.
///
/// A lost connection moves to the *next* server (round robin, wrapping): any node serves the same
/// chat, and the one just lost is the likeliest to be down. With one server the next is the same
/// one, so a restarted server is found again.
public struct ServerRotation: Sendable {
    /// Never empty.
    public private(set) var servers: [ServerAddress]
    /// Index in ``servers`` of the current connection's server, or of the next one tried.
    public private(set) var index: Int
    /// Reconnect attempts since the last ``connected()``.
    public private(set) var attempt = 0
    /// Servers left out for this run (not trusted), by index.
    private var skipped: Set<Int> = []

    /// Starts at `servers[index % count]` (bot N of several starts on server N mod count).
    public init(servers: [ServerAddress], startingAt index: Int = 0) {
        precondition(!servers.isEmpty, "a rotation needs a server")
        self.servers = servers
        self.index = index % servers.count
    }

    public var current: ServerAddress { servers[index] }

    /// How many servers are left out for the run.
    public var leftOutCount: Int { skipped.count }

    /// Moves to the next server not left out, after the current one (the current one itself when
    /// it is the only one left); false when every server is left out.
    @discardableResult
    public mutating func advance() -> Bool {
        for step in 1...servers.count {
            let candidate = (index + step) % servers.count
            if !skipped.contains(candidate) {
                index = candidate
                return true
            }
        }
        return false
    }

    /// Leaves the current server out for the rest of the run and moves to the next; false when
    /// none is left.
    public mutating func leaveOut() -> Bool {
        skipped.insert(index)
        return advance()
    }

    /// The current server's connections pin this certificate from now on.
    public mutating func pinCurrent(_ fingerprint: String) {
        servers[index].policy = .pinned(fingerprint)
    }

    /// A connection got its `welcome`: the next loss starts the backoff again.
    public mutating func connected() { attempt = 0 }

    /// Counts one more attempt without waiting for it (a server left out: the next is tried at once).
    public mutating func countAttempt() { attempt += 1 }

    /// Counts one more attempt and says how long to wait before it: 0.5 s doubling to 10 s, times
    /// a random 0.5-1.5, so a restarted server is not hit by every client at once (the first
    /// move after 0.25-0.75 s).
    public mutating func backoff<Random: RandomNumberGenerator>(using random: inout Random) -> TimeSpan {
        attempt += 1
        let base = min(10_000.0, 500.0 * Double(1 << min(attempt - 1, 5)))
        return .milliseconds(UInt64(base * Double.random(in: 0.5...1.5, using: &random)))
    }
}
