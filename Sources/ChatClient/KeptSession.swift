import ChatClientKit
import QuicEngine

/// What chat-client keeps of a session between runs (``SessionSlot``), under
/// `$XDG_STATE_HOME/qchat/sessions/<server>/<nick>/`: the peer id and the transfers not finished,
/// so that a client started again after a crash or a kill is the same peer (it replaces its own
/// ghost connection at once, keeping its nick) and takes its transfers up where the server has
/// them.
enum KeptSession {
    /// Takes a slot for `nick` on the server of `options`, starts `session` as its peer, and takes
    /// up the transfers the slot's last run left. A slot that cannot be had costs only the
    /// resuming: the session starts with a random peer id, and `note` says why.
    static func start(_ session: ResilientSession, options: ClientOptions, nick: String, note: @escaping (String) -> Void) throws
        -> SessionSlot? {
        let directory = options.paths.sessionDirectory + "/" + PrivateMessageStore.fileName(options.serverKey) + "/"
            + PrivateMessageStore.key(nick)
        var slot: SessionSlot?
        do {
            slot = try SessionSlot.claim(in: directory)
        } catch {
            note("transfers will not resume after a restart: \(error)")
        }
        if let problem = slot?.problem { note(problem) }
        try session.start(nick: nick, peer: slot?.peer)
        guard let slot else { return nil }
        var warned = false
        session.files.onUnfinishedChanged = { [unowned slot] transfers in
            if !slot.save(transfers) && !warned {
                warned = true
                note("cannot write \(slot.statePath): transfers will not resume after a restart")
            }
        }
        for line in slot.unfinished {
            guard let transfer = FileTransfer(stateLine: line, number: 0, started: .now()) else {
                note("a damaged line of \(slot.statePath) is dropped: \(line.prefix(80))")
                continue
            }
            session.files.restore(transfer)
        }
        session.files.onUnfinishedChanged(session.files.transfers.values.sorted { $0.number < $1.number })
        return slot
    }
}
