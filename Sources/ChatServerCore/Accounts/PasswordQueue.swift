/// Password tasks waiting for a hashing worker, in the order they get one (docs/PROTOCOL.md,
/// sections 7-8 item 4): logins (a hello with a password, `login`) before registrations and
/// password changes, and within each lane one task per key in turn, so one account or address
/// cannot hold the workers by sending many (issue 23, finding 8). When the queue is full a
/// newcomer takes the place of the newest waiting task of the heaviest key, if that key holds more
/// than its share (``displaceable(by:key:)``).
struct PasswordQueue {
    enum Lane: CaseIterable {
        /// Hello with a password, `login`: someone waits to get in.
        case login
        /// `register`, `password`: someone logged in (or a guest) changes a credential.
        case change
    }

    private var login = KeyedTurns()
    private var change = KeyedTurns()

    var count: Int { login.count + change.count }

    mutating func append(_ ticket: UInt64, lane: Lane, key: String) {
        switch lane {
        case .login: login.append(ticket, key: key)
        case .change: change.append(ticket, key: key)
        }
    }

    /// The next task to run: the next key's oldest login, else the next key's oldest change.
    mutating func next() -> UInt64? {
        login.next() ?? change.next()
    }

    /// Takes a waiting task out (its client went); false when it was not waiting.
    @discardableResult
    mutating func remove(_ ticket: UInt64, lane: Lane, key: String) -> Bool {
        switch lane {
        case .login: login.remove(ticket, key: key)
        case .change: change.remove(ticket, key: key)
        }
    }

    /// The waiting task a newcomer of `lane` and `key` may take the place of when the queue is
    /// full: for a login, the newest change of the key with most changes waiting; otherwise the
    /// newest task of the lane's heaviest key, if it holds at least two more than the newcomer's
    /// key (after the swap it still holds as many). Nil: the newcomer is refused.
    func displaceable(by lane: Lane, key: String) -> (ticket: UInt64, lane: Lane, key: String)? {
        if lane == .login, let victim = change.newestOfHeaviest() { return (victim.ticket, .change, victim.key) }
        let turns = lane == .login ? login : change
        guard let victim = turns.newestOfHeaviest(), turns.count(of: victim.key) > turns.count(of: key) + 1 else { return nil }
        return (victim.ticket, lane, victim.key)
    }
}

/// Tickets per key, first in first out within a key, the keys served in turn.
struct KeyedTurns {
    /// Keys with tickets waiting; the next to be served first.
    private var order: [String] = []
    private var tickets: [String: [UInt64]] = [:]
    private(set) var count = 0

    mutating func append(_ ticket: UInt64, key: String) {
        if tickets[key] == nil { order.append(key) }
        tickets[key, default: []].append(ticket)
        count += 1
    }

    /// The oldest ticket of the key whose turn it is; that key goes to the back of the line.
    mutating func next() -> UInt64? {
        guard !order.isEmpty else { return nil }
        let key = order.removeFirst()
        var waiting = tickets[key] ?? []
        let ticket = waiting.removeFirst()
        count -= 1
        if waiting.isEmpty {
            tickets[key] = nil
        } else {
            tickets[key] = waiting
            order.append(key)
        }
        return ticket
    }

    mutating func remove(_ ticket: UInt64, key: String) -> Bool {
        guard var waiting = tickets[key], let index = waiting.firstIndex(of: ticket) else { return false }
        waiting.remove(at: index)
        count -= 1
        if waiting.isEmpty {
            tickets[key] = nil
            order.removeAll { $0 == key }
        } else {
            tickets[key] = waiting
        }
        return true
    }

    func count(of key: String) -> Int { tickets[key]?.count ?? 0 }

    /// The newest ticket of the key with most tickets waiting (of those, the one served last).
    func newestOfHeaviest() -> (ticket: UInt64, key: String)? {
        var best: (ticket: UInt64, key: String)?
        var most = 0
        for key in order.reversed() {
            guard let waiting = tickets[key], waiting.count > most, let newest = waiting.last else { continue }
            most = waiting.count
            best = (newest, key)
        }
        return best
    }
}
