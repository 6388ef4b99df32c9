import ChatProtocol
import ChatServerCore

/// Accounts in core tests: connections with an address and a certificate fingerprint, and the
/// glue's password work done by hand with a stand-in "hash" (`H:` + the password), so tests decide
/// when each result comes back, in which order, and whether it fails.
extension Harness {
    /// A certificate fingerprint per number, shaped like the engine's (64 lowercase hex digits).
    static func fingerprint(_ number: Int) -> String {
        let hex = String(number, radix: 16)
        return String(repeating: "f", count: 64 - hex.count) + hex
    }

    /// Connects a client with an address (default `10.0.0.N`) and, optionally, a certificate.
    @discardableResult
    func connect(_ client: ClientID, address: String? = nil, shared: Bool = false, certificate: String?) -> Outbox {
        Outbox(settle(state.connected(client, legacy: false, datagrams: true, address: address ?? "10.0.0.\(client)",
                               addressIsShared: shared, certificate: certificate, now: now)))
    }

    /// Connects with an address and certificate, says hello (with a password if given) and opens
    /// the presence stream; password work the hello causes is done at once. Returns everything.
    @discardableResult
    func hello(_ client: ClientID, nick: String, room: String = "lobby", password: String? = nil, certificate: String? = nil,
               address: String? = nil, shared: Bool = false, peer: String? = nil) -> Outbox {
        connect(client, address: address, shared: shared, certificate: certificate)
        let out = send(.join(nick: nick, peer: peer ?? Harness.peer(client), room: room, password: password), from: client)
        let done = finishPasswordWork(out)
        return done + send(.status("online"), from: client, on: .presence)
    }

    /// Registers the connection's nick (its password work done at once).
    @discardableResult
    func register(_ client: ClientID, password: String? = "password1") -> Outbox {
        finishPasswordWork(send(.register(password: password), from: client))
    }

    /// A guest `alice` on connection `client` that registers with `password` and so is logged in.
    /// A server operator's name, which no guest may register, is made on the console instead and
    /// logged in to at hello.
    @discardableResult
    func registered(_ client: ClientID, nick: String, password: String = "password1", certificate: String? = nil,
                    room: String = "lobby") -> Outbox {
        if state.configuration.operators.contains(where: { ChatValidation.nickKey($0) == ChatValidation.nickKey(nick) }) {
            let made = operatorRegister(nick, passwordHash: "H:" + password, certificate: certificate)
            return made + hello(client, nick: nick, room: room, password: password, certificate: certificate)
        }
        let hello = hello(client, nick: nick, room: room, certificate: certificate)
        return hello + register(client, password: password)
    }

    /// The console's `register NAME`, as the glue runs it: the account read first (on a store
    /// reached through actions, a console command finds only what was read), then the command.
    @discardableResult
    func operatorRegister(_ name: String, passwordHash: String?, certificate: String?) -> Outbox {
        let read = Outbox(settle(state.readAccountForConsole(name)))
        return read + Outbox(settle(state.operatorRegister(name, passwordHash: passwordHash, certificate: certificate, now: now)))
    }

    /// The console's `unregister NAME`, as the glue runs it (the account read first).
    @discardableResult
    func operatorUnregister(_ name: String) -> Outbox {
        let read = Outbox(settle(state.readAccountForConsole(name)))
        return read + Outbox(settle(state.operatorUnregister(name, now: now)))
    }

    /// The password tasks an outbox asks for.
    func passwordTasks(in out: Outbox) -> [PasswordTask] {
        out.actions.compactMap { if case .password(let task) = $0 { task } else { nil } }
    }

    /// What the glue would answer, with the stand-in hash.
    static func outcome(of task: PasswordTask) -> PasswordOutcome {
        switch task.work {
        case .hash: .hashed("H:" + task.password)
        case .verify(let stored): .verified(stored == "H:" + task.password)
        case .decoy: .verified(false)
        }
    }

    /// Feeds one task's result back.
    @discardableResult
    func finish(_ task: PasswordTask, _ outcome: PasswordOutcome? = nil) -> Outbox {
        Outbox(settle(state.passwordTaskFinished(task.ticket, outcome ?? Harness.outcome(of: task), now: now)))
    }

    /// Answers every task of `out`, and those the answers cause, until none is left; returns `out`
    /// and everything that followed.
    @discardableResult
    func finishPasswordWork(_ out: Outbox) -> Outbox {
        var all = out
        var pending = passwordTasks(in: out)
        while !pending.isEmpty {
            let task = pending.removeFirst()
            let next = finish(task)
            all = all + next
            pending += passwordTasks(in: next)
        }
        return all
    }
}

extension Outbox {
    /// The `account` answers `client` received.
    func accountNotices(to client: ClientID) -> [ChatMessage] {
        chat(to: client).filter { $0.type == "account" }
    }
}
